/* bench.h - timing helpers for the skel benchmarks.

   Include first in a benchmark .c file (it asks for POSIX clocks, and on
   Linux for _GNU_SOURCE, as skel.h does for a program that includes it
   first: the benchmarks measure the pool a default build gets).

       double t0 = bench_now();            seconds, CLOCK_MONOTONIC
       bench_sink(x);                      keeps x (and its computation) alive
       bench_barrier();                    the compiler may not move memory
                                           accesses across this point
       m = bench_median(samples, n);       sorts samples in place */
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

#endif /* BENCH_H */
