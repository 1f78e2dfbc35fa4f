/* pool_probe.c - a pool call of bench/eval2d.c's "moment" (sum of
   a[r][c] (r+1)(c+1), an int64 MapReduce over a (row, col) index) alone in
   its process, on seq and pool/2..16, in five patterns: back to back,
   after 1.3 ms of sleep, after 1.3 ms of the caller spinning (a CUDA
   wait), after a cuda call and after an opencl call of the same instance
   (as the evaluation's rounds interleave them; each skipped when the
   backend is absent).  41 timed calls each: min, median, p90, max in ms.

   Usage: bench_pool_probe [ROWS COLS]     (default 870 x 3881)

   Why: in bench_eval2d's process on the H100 machine every pool variant of
   moment ran 2-7x slower than this probe measures (results/tuner2d.md). */
#include "bench.h"
#include <stdio.h>
#include <time.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"
#include "bench_skel.h"
SKEL_FUNC(int64_t, moment_f, (skel_index r, skel_index c, int32_t a), return (int64_t)a * (r + 1) * (c + 1);)
SKEL_FUNC(int64_t, addl_f, (int64_t a, int64_t b), return a + b;)
SKEL_MAPREDUCE_EX(moment, moment_f, addl_f, int64_t, int32_t, 1, SKEL_INDEX2D, SKEL_NO_UNIFORM)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    size_t R = argc > 1 ? (size_t)atoi(argv[1]) : 870, C = argc > 2 ? (size_t)atoi(argv[2]) : 3881, i;
    int th[] = { 1, 2, 4, 8, 16 }, k, mode, j, reps = 41;
    int32_t *h = malloc(R * C * 4);
    skel_mat *m; skel_call c; int64_t res;
    for (i = 0; i < R * C; ++i) h[i] = (int32_t)(i * 2654435761u % 1000) - 500;
    skel_mat_new_copy(&m, SKEL_INT32, R, C, h);
    memset(&c, 0, sizeof c); c.in[0] = m; c.result = &res;
    skel_plan *gp[2]; int haveg[2];
    haveg[0] = skel_cuda_register() == SKEL_OK; haveg[1] = skel_cl_register() == SKEL_OK;
    gp[0] = haveg[0] ? bench_fixed_plan("cuda", 0, 0) : NULL;
    gp[1] = haveg[1] ? bench_fixed_plan("opencl", 0, 0) : NULL;
    printf("cuda %d opencl %d\n", haveg[0], haveg[1]);
    for (mode = 0; mode < 5; ++mode) {
        if (mode >= 3 && !haveg[mode - 3]) continue;
        for (k = 0; k < 5; ++k) {
            skel_plan *p = th[k] == 1 ? bench_fixed_plan("seq", 0, 0) : bench_fixed_plan("pool", th[k], 0);
            double t[64], s;
            skel_set_plan(moment, p);
            skel_run(moment, &c);
            for (j = 0; j < reps; ++j) {
                if (mode == 1) { struct timespec d = { 0, 1300000 }; nanosleep(&d, NULL); }
                if (mode == 2) { double e = now() + 1.3e-3; while (now() < e) {} }
                if (mode >= 3) { skel_set_plan(moment, gp[mode - 3]); skel_run(moment, &c); skel_set_plan(moment, p); }
                s = now(); skel_run(moment, &c); t[j] = now() - s;
            }
            qsort(t, reps, sizeof t[0], cmp);
            printf("%s %s/%d: min %.3f med %.3f p90 %.3f max %.3f ms\n", mode == 0 ? "back-to-back" : mode == 1 ? "after-sleep " : mode == 2 ? "after-spin  " : mode == 3 ? "after-cuda  " : "after-ocl   ",
                   th[k] == 1 ? "seq" : "pool", th[k], 1e3 * t[0], 1e3 * t[reps / 2], 1e3 * t[reps * 9 / 10], 1e3 * t[reps - 1]);
            skel_set_plan(moment, NULL); skel_plan_free(p);
        }
    }
    return 0;
}
