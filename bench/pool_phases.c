/* pool_phases.c - where a small pool/2 call's time goes on this machine:
   a float dot of 2^16 elements (two arrays, 512 KB) on the pool's two
   threads against the caller alone, with the cross-core costs that bound
   it measured beside it.  Prints (medians of 401 after a warm-up):
     round trip   a cache line passed to another CPU and back (two
                  threads pinned to CPUs 0 and 1)
     seq          the dot on the caller alone
     halves       each of two pinned threads summing its half, both at once
                  (the hardware's best for a 2-thread call, no hand-over)
     pool/2       _skel_pool_for over 2, 4, 8 and 16 chunks: the call, the
                  caller's first chunk after the call began (publication),
                  the call's return after the last chunk (completion), the
                  helper's first chunk, each thread's time in its chunks.
   Usage: bench_pool_phases                                       (Linux) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <sched.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"

#define N (1 << 16)
#define REPS 401
static float *xs, *ys;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

/* 8 independent 8-wide accumulators: the loop runs at the cache's speed */
static float dot(const float *x, const float *y, size_t n)
{
    float acc[64] = {0}, s = 0;
    size_t i, k, blocks = n / 64;
    for (i = 0; i < blocks; ++i)
        for (k = 0; k < 64; ++k) acc[k] += x[64 * i + k] * y[64 * i + k];
    for (i = 64 * blocks; i < n; ++i) s += x[i] * y[i];
    for (i = 32; i > 0; i /= 2)         /* a tree: a chain of 64 adds cost a chunk 60 ns */
        for (k = 0; k < i; ++k) acc[k] += acc[k + i];
    return s + acc[0];
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    (void)pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* ---- round trip and halves: a second thread pinned to CPU 1 ---- */
static volatile int flag;
static int go, done_half;
static double half_t[2][REPS];
static volatile float sink;

static void *ponger(void *arg)
{
    int i;
    (void)arg;
    pin(1);
    for (i = 0; i < 100000; ++i) {
        while (flag != 2 * i + 1) {}
        flag = 2 * i + 2;
    }
    return NULL;
}

static void *half_worker(void *arg)
{
    int c = (int)(intptr_t)arg, r;
    const float *x = xs + (size_t)c * N / 2, *y = ys + (size_t)c * N / 2;
    pin(c);
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {}
    for (r = 0; r < 2000; ++r) sink = dot(x, y, N / 2);
    for (r = 0; r < REPS; ++r) {
        double t0 = now();
        sink = dot(x, y, N / 2);
        half_t[c][r] = now() - t0;
    }
    __atomic_add_fetch(&done_half, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* ---- the pool call, instrumented from its body ---- */
static double first_t[2], last_t[2], busy_t[2];
static int chunks[2];
static volatile float part_sum[64];   /* (volatile: the sums are computed, never read) */

static void body(void *ctx, int part, size_t lo, size_t hi)
{
    int w = _skel_pool_self ? 1 : 0;         /* 0: the caller, 1: the helper */
    double t0 = now(), t1;
    (void)ctx;
    if (!chunks[w]) first_t[w] = t0;
    part_sum[part] = dot(xs + lo, ys + lo, hi - lo);
    t1 = now();
    last_t[w] = t1;
    busy_t[w] += t1 - t0;
    chunks[w]++;
}

static void pool_phases(int parts)
{
    static double call[REPS], pub[REPS], fin[REPS], join[REPS], busy0[REPS], busy1[REPS];
    int r, w, joined = 0;
    for (w = 0; w < 20000; ++w) _skel_pool_for(2, parts, N, body, NULL);   /* workers placed, caches warm */
    for (r = 0; r < REPS; ++r) {
        double t0, t1, end;
        memset(chunks, 0, sizeof chunks);
        busy_t[0] = busy_t[1] = 0;
        t0 = now();
        _skel_pool_for(2, parts, N, body, NULL);
        t1 = now();
        end = chunks[1] && last_t[1] > last_t[0] ? last_t[1] : last_t[0];
        call[r] = t1 - t0;
        pub[r] = first_t[0] - t0;
        fin[r] = t1 - end;
        busy0[r] = busy_t[0];
        busy1[r] = busy_t[1];
        if (chunks[1]) join[joined++] = first_t[1] - t0;
    }
    printf("| pool/2, %2d chunks | %.2f | %.2f | %.2f | %.2f%s | %.2f / %.2f |\n", parts,
           1e6 * median(call, REPS), 1e6 * median(pub, REPS), 1e6 * median(fin, REPS),
           joined ? 1e6 * median(join, joined) : -1.0, joined < REPS ? " *" : "",
           1e6 * median(busy0, REPS), 1e6 * median(busy1, REPS));
    if (joined < REPS) printf("  * of the %d calls the helper joined (%d of %d)\n", joined, joined, REPS);
}

int main(void)
{
    static double seq[REPS];
    pthread_t t[2];
    double t0, rt;
    int i, c;
    xs = malloc(N * sizeof *xs);
    ys = malloc(N * sizeof *ys);
    if (!xs || !ys) return 1;
    for (i = 0; i < N; ++i) { xs[i] = (float)(i % 7) * 0.1f; ys[i] = (float)(i % 5) * 0.1f; }

    pin(0);
    if (pthread_create(&t[0], NULL, ponger, NULL) != 0) return 1;
    t0 = now();
    for (i = 0; i < 100000; ++i) {
        flag = 2 * i + 1;
        while (flag != 2 * i + 2) {}
    }
    rt = (now() - t0) / 100000;
    pthread_join(t[0], NULL);

    for (c = 0; c < 2; ++c)
        if (pthread_create(&t[c], NULL, half_worker, (void *)(intptr_t)c) != 0) return 1;
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    for (c = 0; c < 2; ++c) pthread_join(t[c], NULL);

    {   /* the caller unpinned again, as a program's thread is */
        cpu_set_t all;
        CPU_ZERO(&all);
        for (c = 0; c < CPU_SETSIZE && c < 1024; ++c) CPU_SET(c, &all);
        (void)pthread_setaffinity_np(pthread_self(), sizeof all, &all);
    }
    for (i = 0; i < 2000; ++i) sink = dot(xs, ys, N);
    for (i = 0; i < REPS; ++i) {
        t0 = now();
        sink = dot(xs, ys, N);
        seq[i] = now() - t0;
    }
    printf("float dot of 2^16 elements, medians of %d calls, us\n\n", REPS);
    printf("cross-CPU round trip (CPUs 0 and 1): %.3f us\n", 1e6 * rt);
    printf("seq (the caller alone): %.2f us\n", 1e6 * median(seq, REPS));
    printf("two pinned threads, each its half at once: %.2f / %.2f us\n\n",
           1e6 * median(half_t[0], REPS), 1e6 * median(half_t[1], REPS));
    printf("| call | us | caller's first chunk after the start | return after the last chunk | helper's first chunk after the start | in chunks: caller / helper |\n");
    printf("|---|---|---|---|---|---|\n");
    pool_phases(2);
    pool_phases(4);
    pool_phases(8);
    pool_phases(16);    /* what skel's Map/Reduce use here: chunks of 4096 */
    return 0;
}
