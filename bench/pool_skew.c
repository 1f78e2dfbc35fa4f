/* pool_skew.c - a Map whose second half does all the work (each element
   of it 400 multiply-adds, the first half one): on pool/2 the calling
   thread's chunk is the cheap half, it finishes at once and waits for the
   helper's.  seq and pool/2 back to back, 200 calls each: min, median,
   p90 in us, and how many calls found their caller asleep on the call's
   end.  P_W: the widths instead of 1,2 (1: seq), e.g. P_W=1,8,16.  Run with SKEL_POOL_ADAPT=0 (every pool call in parallel):
   a call that takes more than the heavy half's time paid for the wait,
   e.g. a wake-up of the caller (results/tuner2d.md, runs W-Z's lead).

   Usage: SKEL_POOL_ADAPT=0 bench_pool_skew [N]     (default 2048) */
#include "bench.h"
#include <stdio.h>
#include <string.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"
SKEL_FUNC(int32_t, skew_f, (skel_index i, int32_t half),
    int32_t s = (int32_t)i; int k, m = i >= half ? 400 : 1;
    for (k = 0; k < m; ++k) s = s * 1103515245 + 12345;
    return s;)
SKEL_MAP_EX(skew, skew_f, int32_t, int32_t, 0, SKEL_INDEX, SKEL_UNIFORM(int32_t))
int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 2048;
    int32_t half = (int32_t)(n / 2);
    const char *ws = getenv("P_W") ? getenv("P_W") : "1,2";
    int w, k;
    skel_vec *o = NULL;
    skel_call c;
    skel_vec_new(&o, SKEL_INT32, n);
    memset(&c, 0, sizeof c);
    c.out = o; c.uniform = &half;
    for (; (w = atoi(ws)) > 0; ws = strchr(ws, ',') ? strchr(ws, ',') + 1 : "") {
        skel_plan *p = NULL; skel_variant v; double t[200], s;
        unsigned sl0, al0, sl1, al1;
        memset(&v, 0, sizeof v); v.backend = w == 1 ? "seq" : "pool"; v.threads = w;
        skel_plan_new(&p); skel_plan_add(p, 0, SIZE_MAX, &v); skel_set_plan(skew, p);
        _skel_pool_tally(&sl0, &al0);
        for (k = 0; k < 200; ++k) { double t0 = bench_now(); skel_run(skew, &c); skel_read(o); t[k] = bench_now() - t0; }
        _skel_pool_tally(&sl1, &al1);
        s = bench_median(t, 200);     /* (sorts them) */
        printf("n %zu %s/%d: min %.1f med %.1f p90 %.1f us, caller slept %u, alone %u\n", n, v.backend, w, t[0]*1e6,
               s*1e6, t[180]*1e6, sl1 - sl0, al1 - al0);
        skel_set_plan(skew, NULL); skel_plan_free(p);
    }
    return 0;
}
