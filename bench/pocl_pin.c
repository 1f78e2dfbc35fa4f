/* pocl_pin.c - does pinning PoCL's worker threads (POCL_AFFINITY=1, which
   skel_cl.h sets unless the environment already says) change what a
   small OpenCL call costs on the CPU?

   Written for the CPU tuner evaluation's Taylor and N-body misses
   (bench/RESULTS_TUNER.md in git history, section 0): the tuner measured PoCL at 82-132 us
   near n = 3000 where the evaluation timed it at 292-385 us.

   A sample is one Taylor Map (32 terms, as bench/eval.c) of n floats on
   host data (the input's device copy dropped first, so it uploads), timed
   until its result is complete.  Per n: the median of 41 samples, in us,
   for seq, omp/2 and PoCL (opencl/b128), each right after its own
   untimed call.  Run it once with POCL_AFFINITY=0 and once without:

       for a in 0 1; do POCL_AFFINITY=$a build/bench_pocl_pin; done

   With --contexts N it prints, at size N, the spread of one call's time
   (least, quartiles, most of 201 samples) for each variant after
   different predecessors: itself, its own untimed call, another
   variant's call, its own call and a 2 ms pause.  Written for session
   14's question whether PoCL and omp/2 cost the same in the tuner's
   sequence (repetitions of one variant) as in the evaluation's rounds.

   Usage: bench_pocl_pin [n ...]      (default 50 3492 348846)
          bench_pocl_pin --contexts N */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cl.h"
#include "bench_skel.h"

SKEL_FUNC(float, taylor_f, (float x),
    float s = 1.0f, term = 1.0f; int k;
    for (k = 1; k < 32; ++k) { term *= x / (float)k; s += term; }
    return s;)
SKEL_MAP(taylor, taylor_f, float, 1)

#define SAMPLES 41
static skel_vec *X, *Z;

static double timed_call(skel_plan *p)
{
    double t0;
    skel_set_plan(taylor, p);
    _skel_release_devices(Z);           /* as the tuner and the evaluation start a call */
    _skel_mark_written(Z, 0);
    skel_flush(X);
    t0 = bench_now();
    if (skel_map1(taylor, Z, X) != SKEL_OK) {
        fprintf(stderr, "taylor: %s\n", skel_last_error());
        exit(1);
    }
    _skel_tune_sync(Z);
    return bench_now() - t0;
}

/* X: n values in [-1, 1) on the host; Z: the result vector */
static void make_operands(size_t n)
{
    float *x;
    size_t j;
    if (skel_vec_new(&X, SKEL_FLOAT, n) != SKEL_OK || skel_vec_new(&Z, SKEL_FLOAT, n) != SKEL_OK) exit(1);
    x = (float *)skel_write(X);
    for (j = 0; j < n; ++j) x[j] = (float)((j * 2654435761u) % 1000) / 500.0f - 1;
}

static void spread(const char *variant, const char *after, double *s, int k)
{
    bench_median(s, k);                 /* sorts s */
    printf("  %-12s after %-22s least %7.1f  p25 %7.1f  median %7.1f  p75 %7.1f  most %8.1f\n", variant, after,
           1e6 * s[0], 1e6 * s[k / 4], 1e6 * s[k / 2], 1e6 * s[3 * k / 4], 1e6 * s[k - 1]);
}

static void contexts(skel_plan **plans, const char **names, size_t n)
{
    static double s[201];
    struct timespec pause = { 0, 2000000 };
    int i, k, K = 201;
    make_operands(n);
    printf("n = %zu, us per call on host data\n", n);
    for (i = 0; i < 3; ++i) timed_call(plans[i]);       /* compiles, warms */
    for (i = 0; i < 3; ++i) {
        int other = i == 0 ? 2 : 0;                     /* seq follows PoCL, the others follow seq */
        char label[64];
        for (k = 0; k < K; ++k) s[k] = timed_call(plans[i]);
        spread(names[i], "itself", s, K);
        for (k = 0; k < K; ++k) { timed_call(plans[i]); s[k] = timed_call(plans[i]); }
        spread(names[i], "its own untimed call", s, K);
        for (k = 0; k < K; ++k) { timed_call(plans[other]); s[k] = timed_call(plans[i]); }
        snprintf(label, sizeof label, "a call of %s", names[other]);
        spread(names[i], label, s, K);
        for (k = 0; k < K; ++k) { timed_call(plans[i]); nanosleep(&pause, NULL); s[k] = timed_call(plans[i]); }
        spread(names[i], "its own call, 2 ms", s, K);
    }
    skel_free(X);
    skel_free(Z);
}

int main(int argc, char **argv)
{
    static const size_t defaults[] = { 50, 3492, 348846 };
    const char *names[3] = { "seq", "omp/2", "opencl/b128" };
    skel_plan *plans[3];
    double s[SAMPLES];
    int a, i, k, nn = argc > 1 ? argc - 1 : 3;
    plans[0] = bench_fixed_plan("seq", 0, 0);
    plans[1] = bench_fixed_plan("omp", 2, 0);
    plans[2] = bench_fixed_plan("opencl", 0, 128);
    if (!skel_backend_available("opencl")) {
        printf("no OpenCL device: nothing to measure\n");
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--contexts") == 0) {
        contexts(plans, names, (size_t)atol(argv[2]));
        for (i = 0; i < 3; ++i) skel_plan_free(plans[i]);
        return 0;
    }
    printf("POCL_AFFINITY=%s; median us of %d calls\n", getenv("POCL_AFFINITY"), SAMPLES);
    printf("%10s %12s %12s %12s\n", "n", names[0], names[1], names[2]);
    for (a = 0; a < nn; ++a) {
        size_t n = argc > 1 ? (size_t)atol(argv[a + 1]) : defaults[a];
        make_operands(n);
        printf("%10zu", n);
        for (i = 0; i < 3; ++i) {
            timed_call(plans[i]);       /* compiles, warms */
            for (k = 0; k < SAMPLES; ++k) {
                timed_call(plans[i]);   /* untimed: what the previous one left is not charged */
                s[k] = timed_call(plans[i]);
            }
            printf(" %12.1f", 1e6 * bench_median(s, SAMPLES));
        }
        printf("\n");
        skel_free(X);
        skel_free(Z);
    }
    for (i = 0; i < 3; ++i) skel_plan_free(plans[i]);
    return 0;
}
