/* pool_wake.c - parallel calls after a pause, when the pool's workers
   have gone to sleep: how long the first call takes, the second, and the
   calls after them, against the same calls on the caller alone.

   Each round: a 10 ms pause (the workers spin SKEL_POOL_SPIN_US, then
   sleep), then 50 calls back to back of a parallel-for of N items (a
   multiply-add a item, 16 chunks) at width W; 40 rounds; mean time of
   call 1, call 2, calls 3-5, 6-10 and 11-50, in microseconds.  Width 1
   runs every chunk on the caller: the time the call's work takes alone.

   It measured why sleeping workers' affinity leaves out their waker's CPU
   (skel.h, _skel_pool_avoid): on the 2-vCPU KVM development VM a worker
   woken onto its busy caller's CPU stayed off the calls for a millisecond
   or more.  Usage: bench_pool_wake [N [W]]   (default 65536 2) */
#include "bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"

static volatile double sink;
static void body(void *ctx, int part, size_t lo, size_t hi)
{
    double s = 0;
    size_t i;
    (void)ctx; (void)part;
    for (i = lo; i < hi; ++i) s += (double)i * 1e-9;
    sink += s;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 65536;
    int width = argc > 2 ? atoi(argv[2]) : 2, r, k;
    double t[50] = { 0 }, late = 0;
    for (r = 0; r < 40; ++r) {
        usleep(10000);
        for (k = 0; k < 50; ++k) {
            double t0 = bench_now();
            _skel_pool_for(width, 16, n, body, NULL);
            t[k] += bench_now() - t0;
        }
    }
    for (k = 10; k < 50; ++k) late += t[k];
    printf("n %zu, width %d: us a call after a 10 ms pause: call 1 %.1f, call 2 %.1f, calls 3-5 %.1f, 6-10 %.1f, 11-50 %.1f\n",
           n, width, 1e6 * t[0] / 40, 1e6 * t[1] / 40, 1e6 * (t[2] + t[3] + t[4]) / 120,
           1e6 * (t[5] + t[6] + t[7] + t[8] + t[9]) / 200, 1e6 * late / 1600);
    return 0;
}
