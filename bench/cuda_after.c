/* cuda_after.c - what a CUDA call costs after other calls over the same
   data: bench/split.c's sweep Map (2^22 floats, k multiply-add pairs per
   element, the input uploaded from the host each call) on the cuda
   backend, timed right after a cuda call, a pool call, a pool call and
   1 ms asleep, a seq call (k = 0), and a pool call and 1 ms of spinning;
   41 rounds, the five orders rotated; medians, p10 and p90 in ms.

   Why: bench_split timed its configurations in a fixed rotation, every
   cuda call right after a 16-thread pool call, and T_gpu came out above
   what the tuned plan's cuda call took (results/splits.md).

   Usage: bench_cuda_after [K]          (default 8; needs a CUDA GPU) */
#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "bench_skel.h"

#include "split_sweep.h"       /* sweep_map: the synthetic Map of the sweep */

/* One call with plan p, the input written on the host first (untimed). */
static double timed(skel_plan *p, const skel_call *c, skel_vec *x)
{
    skel_write(x);
    return sweep_call_timed(p, c, "bench_cuda_after");
}

int main(int argc, char **argv)
{
    static const char *names[5] = { "after a cuda call", "after a pool call", "after a pool call, 1 ms asleep",
                                    "after a seq call (k = 0)", "after a pool call, 1 ms spinning" };
    static double t[5][41];
    size_t n = (size_t)1 << 22, i;
    int32_t k = argc > 1 ? (int32_t)atoi(argv[1]) : 8, k0 = 0;
    skel_vec *x, *r;
    skel_call c, c0;
    skel_plan *pg, *pp, *ps;
    float *p;
    int round, j;
    if (!skel_backend_available("cuda")) {
        printf("bench_cuda_after needs a CUDA GPU (the cuda backend is absent here)\n");
        return 0;
    }
    pg = bench_fixed_plan("cuda", 0, 0);
    pp = bench_fixed_plan("pool", 0, 0);
    ps = bench_fixed_plan("seq", 0, 0);
    if (skel_vec_new(&x, SKEL_FLOAT, n) != SKEL_OK || skel_vec_new(&r, SKEL_FLOAT, n) != SKEL_OK) return 1;
    p = (float *)skel_write(x);
    for (i = 0; i < n; ++i) p[i] = (float)(i % 1000) / 1000.0f;
    memset(&c, 0, sizeof c);
    c.out = r; c.in[0] = x; c.uniform = &k;
    c0 = c; c0.uniform = &k0;
    for (j = 0; j < 3; ++j) { timed(pg, &c, x); timed(pp, &c, x); }
    for (round = 0; round < 41; ++round)
        for (j = 0; j < 5; ++j) {
            int q = (j + round) % 5;
            if (q == 0) timed(pg, &c, x);
            else if (q == 3) timed(ps, &c0, x);
            else timed(pp, &c, x);
            if (q == 2) { struct timespec ts = { 0, 1000000 }; nanosleep(&ts, NULL); }
            if (q == 4) { double t0 = bench_now(); while (bench_now() - t0 < 1e-3) {} }
            t[q][round] = timed(pg, &c, x);
        }
    printf("cuda call of sweep_map, k %d, 2^22 floats from the host (SKEL_CUDA_PINNED=%s):\n", (int)k,
           getenv("SKEL_CUDA_PINNED") ? getenv("SKEL_CUDA_PINNED") : "auto");
    for (j = 0; j < 5; ++j) {
        bench_median(t[j], 41);     /* (sorts) */
        printf("  %-34s median %.3f ms, p10 %.3f, p90 %.3f\n", names[j], 1e3 * t[j][20], 1e3 * t[j][4], 1e3 * t[j][36]);
    }
    return 0;
}
