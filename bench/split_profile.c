/* split_profile.c - where a split call's time goes (issue 25's profile).

   One Map of 2^22 floats (bench/split.c's sweep function, k multiply-add
   pairs per element) run as pool alone, the GPU alone and a split between
   them at the shares that balance those two (refined by 8 untimed split
   calls first), in interleaved rounds; prints the medians, T* and the
   split's start shares.  Under SKEL_TRACE=FILE the split calls record
   their steps (skel.h SPLIT CALLS, "Profile"); bench/split_profile.py
   FILE N sums up the last N calls step by step.

   Usage: bench_split_profile [--loc host|device] [--k K] [--calls N] [--gpu cuda|opencl]
   (defaults: host, 4, 30, cuda; --gpu opencl: a smoke run on PoCL) */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

#include "split_sweep.h"       /* sweep_map: the synthetic Map of the sweep */

#define MAXCALLS 200
static int GPU_SPACE;
static unsigned long long order_rng = 0x9E3779B97F4A7C15ull;

static skel_plan *fixed(const skel_variant *v)
{
    skel_plan *p;
    if (skel_plan_new(&p) != SKEL_OK || skel_plan_add(p, 0, SIZE_MAX, v) != SKEL_OK) {
        fprintf(stderr, "bench_split_profile: plan: %s\n", skel_last_error());
        exit(1);
    }
    return p;
}

/* One call with plan p, inputs placed first (untimed), the result waited for. */
static double timed(skel_plan *p, const skel_call *c, skel_vec *x, int on_gpu)
{
    if (!on_gpu) skel_write(x);
    else if (!_skel_acquire(x, GPU_SPACE, _SKEL_READ)) { fprintf(stderr, "bench_split_profile: upload failed\n"); exit(1); }
    else _skel_map_reset(x, GPU_SPACE);
    return sweep_call_timed(p, c, "bench_split_profile");
}

int main(int argc, char **argv)
{
    const char *gpu = "cuda";
    int on_gpu = 0, calls = 30, i;
    int32_t k = 4;
    size_t n = (size_t)1 << 22, j;
    skel_vec *x, *r;
    skel_variant vc, vg, vs;
    skel_plan *pc, *pg, *ps;
    skel_call c;
    double tc[MAXCALLS], tg[MAXCALLS], ts[MAXCALLS], mc, mg, share;
    float *p;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--loc") && i + 1 < argc) on_gpu = !strcmp(argv[++i], "device");
        else if (!strcmp(argv[i], "--k") && i + 1 < argc) k = (int32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--calls") && i + 1 < argc) calls = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu = argv[++i];
        else {
            printf("usage: bench_split_profile [--loc host|device] [--k K] [--calls N] [--gpu cuda|opencl]\n");
            return 2;
        }
    }
    if (calls < 1 || calls > MAXCALLS) calls = 30;
    if ((strcmp(gpu, "cuda") ? skel_cl_register() : skel_cuda_register()) != SKEL_OK) {
        printf("bench_split_profile needs a %s device: %s\n", gpu, skel_last_error());
        return 1;
    }
    GPU_SPACE = _skel_place_of(_skel_backend_find(gpu), 0);
    skel_vec_new(&x, SKEL_FLOAT, n);
    skel_vec_new(&r, SKEL_FLOAT, n);
    p = (float *)skel_write(x);
    for (j = 0; j < n; ++j) p[j] = (float)(j % 1000) / 1000.0f;
    memset(&c, 0, sizeof c);
    c.out = r; c.in[0] = x; c.uniform = &k;
    memset(&vc, 0, sizeof vc);
    vc.backend = "pool";
    vg = vc;
    vg.backend = gpu;
    pc = fixed(&vc);
    pg = fixed(&vg);
    for (i = 0; i < 18; ++i) {      /* 3 warm-up rounds, then 15 for the shares; in turns */
        if (i % 2) tg[i] = timed(pg, &c, x, on_gpu);
        tc[i] = timed(pc, &c, x, on_gpu);
        if (i % 2 == 0) tg[i] = timed(pg, &c, x, on_gpu);
    }
    mc = bench_median(tc + 3, 15);
    mg = bench_median(tg + 3, 15);
    share = mg / (mc + mg);
    vs = vc;
    vs.backend = "split";
    vs.parts[0].backend = "pool"; vs.parts[0].share = share;
    vs.parts[1].backend = gpu; vs.parts[1].share = 1 - share;
    ps = fixed(&vs);
    for (i = 0; i < 8; ++i) timed(ps, &c, x, on_gpu);     /* refinement */
    for (i = 0; i < calls; ++i) {   /* each round in a fresh order (bench.h: why) */
        int ord[3] = { 0, 1, 2 }, j;
        bench_shuffle(ord, 3, &order_rng);
        for (j = 0; j < 3; ++j) {
            if (ord[j] == 0) tc[i] = timed(pc, &c, x, on_gpu);
            else if (ord[j] == 1) tg[i] = timed(pg, &c, x, on_gpu);
            else ts[i] = timed(ps, &c, x, on_gpu);
        }
    }
    mc = bench_median(tc, calls);
    mg = bench_median(tg, calls);
    printf("inputs on the %s, k %d: T_cpu %.3f ms, T_gpu %.3f ms, T* %.3f ms, split %.3f ms = %.3f x T* (start shares %.3f / %.3f)\n",
           on_gpu ? "GPU" : "host", (int)k, 1e3 * mc, 1e3 * mg, 1e3 / (1 / mc + 1 / mg), 1e3 * bench_median(ts, calls),
           bench_median(ts, calls) * (1 / mc + 1 / mg), share, 1 - share);
    skel_set_plan(sweep_map, NULL);
    skel_plan_free(pc); skel_plan_free(pg); skel_plan_free(ps);
    skel_free(x); skel_free(r);
    return 0;
}
