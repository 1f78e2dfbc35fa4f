/* omp_stall.c - does a GPU call slow down the OpenMP call after it?

   Written for the tuner evaluation's host-data misses
   (bench/RESULTS_TUNER.md in git history, section 10): on the H100 machine's 16 vCPUs, omp/16 sums of 2-11 million
   floats took up to 15 times their usual time, in the rounds that also
   ran CUDA and OpenCL calls, while omp/8 did not.  The suspects are driver
   threads that stay busy after a call (one busy core holds up all 16
   threads of a team at its barrier) and the way skel waits for OpenCL.

   A sample: the call named by the condition (untimed), then one omp/16
   sum (timed).  Conditions:
       alone    nothing before
       omp8     an omp/8 sum
       cuda     a CUDA sum on host data (skel_flush first: it uploads)
       opencl   the same on OpenCL
   Per condition: median, 90th percentile and largest time of SAMPLES
   samples, in ms, and how many took over twice the median of "alone".
   The conditions take turns, so drift hits all of them.

   Usage: bench_omp_stall [n] [threads]   (default 11172445 16) */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"
#include "bench_skel.h"

SKEL_FUNC(float, add_f, (float a, float b), return a + b;)
SKEL_REDUCE(vsum, add_f, float)

#define SAMPLES 60
enum { ALONE, OMP8, CUDA, OPENCL, NCOND };
static const char *names[NCOND] = { "alone", "omp8", "cuda", "opencl" };
static skel_plan *plans[NCOND + 1];     /* the conditions' calls, then the timed omp one */
static skel_vec *X;
static double sink;

static void sum_with(skel_plan *p)
{
    float r;
    skel_set_plan(vsum, p);
    if (skel_reduce(vsum, X, &r) != SKEL_OK) {
        fprintf(stderr, "vsum: %s\n", skel_last_error());
        exit(1);
    }
    sink += r;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 11172445, i;
    int threads = argc > 2 ? atoi(argv[2]) : 16, c, k;
    double t[NCOND][SAMPLES], sorted[SAMPLES], alone, med;
    float *x;
    if (skel_vec_new(&X, SKEL_FLOAT, n) != SKEL_OK) return 1;
    x = skel_write(X);
    for (i = 0; i < n; ++i) x[i] = (float)((i * 2654435761u) % 1000) * 1e-3f;
    plans[OMP8] = bench_fixed_plan("omp", 8, 0);
    plans[CUDA] = skel_backend_available("cuda") ? bench_fixed_plan("cuda", 0, 0) : NULL;
    plans[OPENCL] = skel_backend_available("opencl") ? bench_fixed_plan("opencl", 0, 0) : NULL;
    plans[NCOND] = bench_fixed_plan("omp", threads, 0);
    sum_with(plans[NCOND]);                 /* warm up: thread pools, kernels compiled */
    for (c = OMP8; c < NCOND; ++c) if (plans[c]) sum_with(plans[c]);
    for (k = 0; k < SAMPLES; ++k)
        for (c = 0; c < NCOND; ++c) {
            double t0;
            if (c != ALONE && !plans[c]) continue;
            if (c != ALONE) { skel_flush(X); sum_with(plans[c]); skel_flush(X); }
            t0 = bench_now();
            sum_with(plans[NCOND]);
            t[c][k] = 1e3 * (bench_now() - t0);
        }
    memcpy(sorted, t[ALONE], sizeof sorted);
    alone = bench_median(sorted, SAMPLES);
    printf("omp/%d sum of %zu floats after another call, ms over %d samples\n", threads, n, SAMPLES);
    printf("%-8s %9s %9s %9s %s\n", "before", "median", "p90", "max", "slow (> 2x alone's median)");
    for (c = 0; c < NCOND; ++c) {
        int slow = 0;
        if (c != ALONE && !plans[c]) { printf("%-8s (backend not available)\n", names[c]); continue; }
        for (k = 0; k < SAMPLES; ++k) slow += t[c][k] > 2 * alone;
        med = bench_median(t[c], SAMPLES);          /* sorts */
        printf("%-8s %9.3f %9.3f %9.3f %d\n", names[c], med, t[c][SAMPLES * 9 / 10], t[c][SAMPLES - 1], slow);
    }
    bench_sink(sink);
    return 0;
}
