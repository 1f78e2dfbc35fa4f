/* omp_team.c - what one call on many OpenMP threads leaves behind for the
   small calls after it.  skel keeps the largest OpenMP team it opened (so
   that libgomp does not end and create threads between calls of different
   widths); a kept team of 256 threads on a 2-core machine made every later
   2-thread call wake 256 threads.  skel now keeps teams only up to the
   processor count.

   Times an omp/2 Map of n floats (median us of 101 calls, each right after
   the one before), then makes one call on `big` threads, then times the
   same omp/2 calls again; prints both medians and their ratio (after /
   before: 1.0 means the big call left nothing behind).

   Usage: bench_omp_team [n [big]]      (default 100000 256)
   Build against other headers for an A/B (bench/var/, -I). */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"

SKEL_FUNC(float, ot_f, (float a), return a * 1.5f + 2.0f;)
SKEL_MAP(ot_map, ot_f, float, 1)

#define REPS 101

static double median_us(skel_vec *o, skel_vec *a)
{
    double t[REPS];
    int k;
    for (k = 0; k < REPS; ++k) {
        double t0 = bench_now();
        if (skel_map1(ot_map, o, a) != SKEL_OK) { fprintf(stderr, "map: %s\n", skel_last_error()); exit(1); }
        t[k] = 1e6 * (bench_now() - t0);
    }
    return bench_median(t, REPS);
}

static skel_plan *omp_plan(int threads)
{
    skel_plan *p;
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = "omp";
    v.threads = threads;
    if (skel_plan_new(&p) != SKEL_OK || skel_plan_add(p, 0, SIZE_MAX, &v) != SKEL_OK) {
        fprintf(stderr, "plan: %s\n", skel_last_error());
        exit(1);
    }
    return p;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 100000;
    int big = argc > 2 ? atoi(argv[2]) : 256;
    skel_plan *two, *wide;
    skel_vec *a, *o;
    double before, after;
    if (!skel_backend_available("omp")) { printf("no omp backend\n"); return 0; }
    two = omp_plan(2);
    wide = omp_plan(big);
    if (skel_vec_new_fill(&a, SKEL_FLOAT, n, &(float){ 1.0f }) != SKEL_OK || skel_vec_new(&o, SKEL_FLOAT, n) != SKEL_OK) return 1;
    skel_set_plan(ot_map, two);
    median_us(o, a);                                /* warm: the 2-thread team exists */
    before = median_us(o, a);
    skel_set_plan(ot_map, wide);
    skel_map1(ot_map, o, a);                        /* one call on `big` threads */
    skel_set_plan(ot_map, two);
    after = median_us(o, a);
    printf("omp/2 Map of %zu floats, median us of %d: before one omp/%d call %.1f, after it %.1f (after/before %.2f)\n",
           n, REPS, big, before, after, after / before);
    skel_set_plan(ot_map, NULL);
    skel_plan_free(two);
    skel_plan_free(wide);
    skel_free(a);
    skel_free(o);
    return 0;
}
