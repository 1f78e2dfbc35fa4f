/* pool_bursts.c - a pool call timed the way a benchmark's rounds call it:
   0.3 ms of untimed calls, one timed call, then a pause (the other
   configurations' turn) while the workers go to sleep; or back to back.
   The call is bench/eval2d.c's Julia set (a Map with a (row, col) index,
   Q24 fixed point, uneven work per element) at small shapes, on pool/16,
   8, 4, 2 and seq: min, median and p90 of N timed calls in us, the first
   16 and the last 8, and how many calls (timed or not) found their caller
   asleep on the call's end or ran on the caller alone (the pool's call-site
   rule).  Why: in H100 runs of bench_eval2d, pool/16 ran
   these shapes at seq's time (results/tuner2d.md, runs T-Z); on the
   2-vCPU VM, pool/2 after the wider widths in one process does too.

   Usage: bench_pool_bursts [GAP_US [BURST]]
          GAP_US: pause after each timed call (default 0); BURST: 1 for
          the 0.3 ms of untimed calls before it (default 0)
   Environment: P_N timed calls (16 to 300, default 300), P_W the widths
   to run, comma-separated (0: seq), P_FIRST how many first calls to print (default 16).
   e.g. P_W=0,2 build/bench_pool_bursts 3000 1 */
#include "bench.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"
SKEL_STRUCT(jview, int64_t x0; int64_t y0; int64_t dx; int64_t dy;)
SKEL_FUNC(int32_t, julia_f, (skel_index r, skel_index c, jview v),
    int64_t zr = v.x0 + c * v.dx, zi = v.y0 + r * v.dy, t;
    int k = 0;
    while (k < 64 && zr * zr + zi * zi < ((int64_t)4 << 48)) {
        t = ((zr * zr - zi * zi) >> 24) - 13254525;
        zi = ((2 * zr * zi) >> 24) + 2516582;
        zr = t;
        ++k;
    }
    return k;)
SKEL_MAP_EX(julia, julia_f, int32_t, int32_t, 0, SKEL_INDEX2D, SKEL_UNIFORM(jview))

/* Is width w in the comma-separated list? */
static int width_listed(const char *list, int w)
{
    char *end;
    for (;;) {
        long v = strtol(list, &end, 10);
        if (end == list) return 0;
        if (v == w) return 1;
        if (*end != ',') return 0;
        list = end + 1;
    }
}

int main(int argc, char **argv)
{
    static const size_t shapes[][2] = { {89, 31}, {112, 21}, {41, 158}, {35, 87}, {92, 27} };
    static const int widths[] = { 16, 8, 4, 2, 0 };
    int gap_us = argc > 1 ? atoi(argv[1]) : 0, burst = argc > 2 ? atoi(argv[2]) : 0;
    size_t s;
    int w, k;
    for (s = 0; s < sizeof shapes / sizeof *shapes; ++s) {
        size_t R = shapes[s][0], C = shapes[s][1];
        skel_mat *Z = NULL;
        jview v;
        skel_call c;
        v.x0 = -(int64_t)(1.6 * (1 << 24)); v.y0 = -(int64_t)(1 << 24);
        v.dx = (int64_t)(3.2 * (1 << 24)) / (int64_t)C; v.dy = (int64_t)(2 << 24) / (int64_t)R;
        skel_mat_new(&Z, SKEL_INT32, R, C);
        memset(&c, 0, sizeof c);
        c.out = Z; c.uniform = &v;
        for (w = 0; w < 5; ++w) {
            if (getenv("P_W") && !width_listed(getenv("P_W"), widths[w])) continue;
            skel_plan *p = NULL;
            skel_variant var;
            double t[300], sorted[300], med;
            unsigned sl0, al0, sl1, al1;
            int N = getenv("P_N") ? atoi(getenv("P_N")) : 300, first = getenv("P_FIRST") ? atoi(getenv("P_FIRST")) : 16;
            if (N < 16 || N > 300) N = 300;
            if (first < 0 || first > N) first = N;
            memset(&var, 0, sizeof var);
            var.backend = widths[w] ? "pool" : "seq";
            var.threads = widths[w];
            skel_plan_new(&p);
            skel_plan_add(p, 0, SIZE_MAX, &var);
            skel_set_plan(julia, p);
            _skel_pool_tally(&sl0, &al0);
            for (k = 0; k < N; ++k) {
                double t0;
                if (burst) {    /* eval-like: warm-up calls for 0.3 ms, one timed call, a gap */
                    double end = bench_now() + 300e-6;
                    while (bench_now() < end) { skel_run(julia, &c); skel_read(Z); }
                }
                t0 = bench_now();
                skel_run(julia, &c);
                skel_read(Z);
                t[k] = bench_now() - t0;
                if (gap_us) usleep((unsigned)gap_us);
            }
            _skel_pool_tally(&sl1, &al1);
            memcpy(sorted, t, sizeof t);
            med = bench_median(sorted, N);     /* (sorts them) */
            printf("%zu x %zu %s/%d gap %d burst %d: min %.1f med %.1f p90 %.1f | first16:", R, C, var.backend, widths[w], gap_us, burst,
                   sorted[0] * 1e6, med * 1e6, sorted[N * 9 / 10] * 1e6);
            for (k = 0; k < first; ++k) printf(" %.0f", t[k] * 1e6);
            printf(" | last8:");
            for (k = N - 8; k < N; ++k) printf(" %.0f", t[k] * 1e6);
            printf(" | caller slept %u, alone %u\n", sl1 - sl0, al1 - al0);
            skel_set_plan(julia, NULL);
            skel_plan_free(p);
        }
        skel_free(Z);
    }
    return 0;
}
