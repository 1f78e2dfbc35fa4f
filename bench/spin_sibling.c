/* spin_sibling.c - does a single-thread call run slower right after an
   OpenMP call with many threads?

   Written for the H100 evaluation's small host-data misses
   (bench/RESULTS_TUNER.md in git history, section 12): the evaluation timed seq at 7.0 us on an N-body point where
   the tuner measured 4.3 us, and each of its samples may follow another
   configuration's omp/16 call.  GNU OpenMP's idle workers spin for a
   while after a parallel region (OMP_WAIT_POLICY unset); on a VM whose
   vCPUs are hyperthreads, a spinning worker shares a core with the
   calling thread.

   A sample: the predecessor call (untimed), then one Taylor Map of n
   floats on seq, timed.  Predecessors: seq, omp/16 (or the given thread
   count), omp/16 then a 20 ms pause.  Each also with the predecessor
   followed by one untimed seq call (what bench/eval.c does before a
   sample).  The conditions take turns; median and quartiles of SAMPLES.

   Usage: bench_spin_sibling [n] [threads]    (default 2000 16) */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "bench_skel.h"

SKEL_FUNC(float, taylor_f, (float x),
    float s = 1.0f, term = 1.0f; int k;
    for (k = 1; k < 32; ++k) { term *= x / (float)k; s += term; }
    return s;)
SKEL_MAP(taylor, taylor_f, float, 1)

#define SAMPLES 301
enum { SEQ, OMP, OMP_PAUSE, SEQ2, OMP2, OMP_PAUSE2, NCOND };
static const char *names[NCOND] = {
    "after seq", "after omp/T", "after omp/T, 20 ms", "after seq, seq", "after omp/T, seq", "after omp/T, 20 ms, seq"
};
static skel_vec *X, *Z;

static double call(skel_plan *p)
{
    double t0;
    skel_set_plan(taylor, p);
    t0 = bench_now();
    if (skel_map1(taylor, Z, X) != SKEL_OK) {
        fprintf(stderr, "taylor: %s\n", skel_last_error());
        exit(1);
    }
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    static double s[NCOND][SAMPLES];
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 2000, j;
    int threads = argc > 2 ? atoi(argv[2]) : 16, c, k;
    struct timespec pause = { 0, 20000000 };
    skel_plan *seq = bench_fixed_plan("seq", 0, 0), *omp = bench_fixed_plan("omp", threads, 0);
    float *x;
    if (skel_vec_new(&X, SKEL_FLOAT, n) != SKEL_OK || skel_vec_new(&Z, SKEL_FLOAT, n) != SKEL_OK) return 1;
    x = (float *)skel_write(X);
    for (j = 0; j < n; ++j) x[j] = (float)((j * 2654435761u) % 1000) / 500.0f - 1;
    call(seq); call(omp);
    for (k = 0; k < SAMPLES; ++k)
        for (c = 0; c < NCOND; ++c) {
            call(c % 3 == SEQ ? seq : omp);
            if (c % 3 == OMP_PAUSE) nanosleep(&pause, NULL);
            if (c >= SEQ2) call(seq);
            s[c][k] = call(seq);
        }
    printf("seq Taylor Map, n = %zu, T = %d, us over %d samples (OMP_WAIT_POLICY=%s)\n", n, threads, SAMPLES,
           getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "unset");
    for (c = 0; c < NCOND; ++c) {
        bench_median(s[c], SAMPLES);
        printf("  %-26s p25 %7.2f  median %7.2f  p75 %7.2f\n", names[c], 1e6 * s[c][SAMPLES / 4],
               1e6 * s[c][SAMPLES / 2], 1e6 * s[c][3 * SAMPLES / 4]);
    }
    skel_free(X); skel_free(Z);
    skel_plan_free(seq); skel_plan_free(omp);
    return 0;
}
