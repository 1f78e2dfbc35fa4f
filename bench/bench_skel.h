/* bench_skel.h - skel helpers shared by the benchmarks.  Include after
   skel.h (and its backend headers).

       skel_plan *p = bench_fixed_plan("omp", 8, 0);   every size on omp/8;
                                                       exits on failure
       skel_plan *p = bench_variant_plan(&v);          every size on variant v */
#ifndef BENCH_SKEL_H
#define BENCH_SKEL_H

#include <stdlib.h>
#include <string.h>

/* A plan that sends every size to the variant v. */
static inline skel_plan *bench_variant_plan(const skel_variant *v)
{
    skel_plan *p;
    if (skel_plan_new(&p) != SKEL_OK || skel_plan_add(p, 0, SIZE_MAX, v) != SKEL_OK) exit(1);
    return p;
}

/* ... to one backend (threads, block: 0 for the backend's default). */
static inline skel_plan *bench_fixed_plan(const char *backend, int threads, int block)
{
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = backend;
    v.threads = threads;
    v.block = block;
    return bench_variant_plan(&v);
}

#endif /* BENCH_SKEL_H */
