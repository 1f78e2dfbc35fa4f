/* bench.h - timing helpers for the skel benchmarks.

   Include first in a benchmark .c file (it asks for POSIX clocks, and on
   Linux for _GNU_SOURCE, as skel.h does for a program that includes it
   first: the benchmarks measure the pool a default build gets).

       double t0 = bench_now();            seconds, CLOCK_MONOTONIC
       bench_sink(x);                      keeps x (and its computation) alive
       bench_barrier();                    the compiler may not move memory
                                           accesses across this point
       m = bench_median(samples, n);       sorts samples in place
       bench_shuffle(order, n, &state);    a fresh random order of order[0..n)
   Configurations timed in rounds take a fresh order each round: in a
   fixed rotation each follows the same other one, and what that one
   leaves behind is charged to it (on the H100 machine a CUDA call uploading
   16 MB of page-locked input took 0.34-0.36 ms after a CUDA call, 0.40-
   0.48 ms after a 16-thread pool call over the same data). */
#ifndef BENCH_H
#define BENCH_H

#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#if defined(__linux__)
#define _GNU_SOURCE
#else
#define _POSIX_C_SOURCE 200809L
#endif
#endif
#include <stdlib.h>
#include <time.h>

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Stores through a volatile so the compiler must compute the value. */
static volatile double bench_sink_;
static inline void bench_sink(double x) { bench_sink_ = x; }

#if defined(__GNUC__)
#define bench_barrier() __asm__ __volatile__("" ::: "memory")
#else
#define bench_barrier() bench_sink(0)
#endif

static int bench_cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of n > 0 samples (sorts them). */
static inline double bench_median(double *s, int n)
{
    qsort(s, (size_t)n, sizeof *s, bench_cmp_double_);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Fisher-Yates with xorshift64 (state: any nonzero seed). */
static inline void bench_shuffle(int *order, int n, unsigned long long *state)
{
    int i, j, t;
    for (i = n - 1; i > 0; --i) {
        *state ^= *state << 13; *state ^= *state >> 7; *state ^= *state << 17;
        j = (int)(*state % (unsigned long long)(i + 1));
        t = order[i]; order[i] = order[j]; order[j] = t;
    }
}

#endif /* BENCH_H */
