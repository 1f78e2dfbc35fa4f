/* peers.c - skel's CPU backends against what a C or C++ programmer would
   use instead, in one run, on the same data:
       single core   a plain C loop, an `omp simd reduction` loop (sum,
                     dot), Kokkos (Serial), skel seq (and skel seq with an
                     operator not declared commutative: the ordered path)
       all cores     hand-written OpenMP, oneTBB, Thrust on its OpenMP
                     system, skel pool, skel omp
   on six float kernels (peers.h): saxpy, sum, dot, scan, 1-D stencil
   (5 points), 5x5 convolution (a square matrix of n elements).  Results
   are checked against the plain loop before timing; a mismatch is
   reported and makes the exit status 1.

   Modes
     (default)   time per call, n = 2^10 .. 2^24: per (kernel, n) each
                 variant is warmed up, then takes one sample per round, in
                 a rotated order, 7 rounds; the median sample / k is
                 reported.  A sample: 10 ms of sleep (the threads of the
                 runtime before it stop spinning: GNU OpenMP's spin for a
                 few ms after a region, and spinning threads of one runtime
                 halved another's speed on 16 cores), one untimed call (its
                 own threads wake up), then k timed calls in a row, k
                 chosen so they last about 5 ms.  Ratios: skel seq against
                 the best single-core peer, skel pool against the best of
                 OpenMP and TBB (> 1: skel faster).
     --calls     the interference test: saxpy, dot, stencil at 2^16, 2^20,
                 2^22; per variant 200 calls timed one by one, in blocks
                 rotated between variants (10 ms of sleep and 10 untimed
                 calls before each block), 3 cycles; median, mean, 90th
                 percentile and largest call.  Start a competing process
                 first to see how the parallel variants behave on a
                 shared machine (bench/pool.sh does).
     --overhead  saxpy calls of 16 elements (the pool runs them on the
                 calling thread), 32 (two chunks) and 16 per thread, back
                 to back (workers warm): median of 31 samples of 2000
                 calls, ns per call
     --idle      skel pool calls, then the process's CPU time over 1 s of
                 sleep (workers must be asleep)

   Usage: bench_peers [--threads T] [--sizes LO:HI[:STEP]] [--kernels k,..]
                      [--calls | --overhead | --idle] [--help]
       T defaults to the CPUs this process may use; --sizes are powers
       of two.
   Built by make bench; the C++ peers are linked in when their libraries
   are installed (their files say how): peers_tbb.cpp, peers_thrust.cpp,
   peers_kokkos.cpp.  The banner says which are in. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "bench_skel.h"
#include "peers.h"

/* ---- skel instances: one set per backend, each with its fixed plan ---- */
SKEL_FUNC(float, saxpy_f, (float x, float y, float a), return a * x + y;)
SKEL_FUNC_COMMUTATIVE(float, add_c, (float a, float b), return a + b;)
SKEL_FUNC(float, add_o, (float a, float b), return a + b;)
SKEL_FUNC(float, mul_f, (float a, float b), return a * b;)
SKEL_FUNC(float, st_f, (const float *a), return PEER_ST(a, 0);)
#define INSTANCES(b)                                                          \
    SKEL_MAP_EX(saxpy_##b, saxpy_f, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float)) \
    SKEL_REDUCE(sum_##b, add_c, float)                                        \
    SKEL_MAPREDUCE(dot_##b, mul_f, add_c, float, 2)                           \
    SKEL_SCAN(scan_##b, add_o, float)                                         \
    SKEL_OVERLAP(st_##b, st_f, float, 2)                                      \
    SKEL_CONV2D(conv_##b, float, 2, 2)
INSTANCES(seq)
INSTANCES(pool)
INSTANCES(omp)
SKEL_REDUCE(sum_ord, add_o, float)
SKEL_MAPREDUCE(dot_ord, mul_f, add_o, float, 2)

typedef struct skset { skel_skeleton *saxpy, *sum, *dot, *scan, *st, *conv; } skset;
static const skset SEQ = { saxpy_seq, sum_seq, dot_seq, scan_seq, st_seq, conv_seq };
static const skset POOL = { saxpy_pool, sum_pool, dot_pool, scan_pool, st_pool, conv_pool };
static const skset OMP = { saxpy_omp, sum_omp, dot_omp, scan_omp, st_omp, conv_omp };
static const skset ORD = { NULL, sum_ord, dot_ord, NULL, NULL, NULL };

enum { SAXPY, SUM, DOT, SCAN, STENCIL, CONV, NKERNELS };
static const char *KNAME[NKERNELS] = { "saxpy", "sum", "dot", "scan", "stencil", "conv5x5" };
static const double KBYTES[NKERNELS] = { 12, 4, 8, 8, 8, 8 };

/* ---- operands of the current (kernel, n) ---- */
static float *X, *Y, *Y0, *R, *H, ALPHA = 0.5f, RES, REF;
static size_t N, ROWS, COLS;
static skel_vec *vX, *vY, *vR;
static int THREADS;

/* ---- the variants ---- */
enum { V_LOOP, V_SIMD, V_SEQ, V_ORD, V_KOKKOS, V_OMP, V_TBB, V_THRUST, V_POOL, V_SKOMP, NVAR };
static const char *VNAME[NVAR] = { "C loop", "omp simd", "skel seq", "skel seq, ordered", "Kokkos serial",
                                   "OpenMP", "TBB", "Thrust-OMP", "skel pool", "skel omp" };
static const int VPAR[NVAR] = { 0, 0, 0, 0, 0, 1, 1, 1, 1, 1 };
static const peer_ops *PEER[NVAR];

static void die(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, skel_last_error());
    exit(1);
}

/* the hand-written OpenMP loops */
static void omp_run(int k)
{
    long i, n = (long)N;
    float s = 0;
    (void)i; (void)n;
    switch (k) {
    case SAXPY:
        #pragma omp parallel for schedule(static)
        for (i = 0; i < n; ++i) Y[i] = ALPHA * X[i] + Y[i];
        break;
    case SUM:
        #pragma omp parallel for simd schedule(static) reduction(+:s)
        for (i = 0; i < n; ++i) s += X[i];
        RES = s;
        break;
    case DOT:
        #pragma omp parallel for simd schedule(static) reduction(+:s)
        for (i = 0; i < n; ++i) s += X[i] * Y[i];
        RES = s;
        break;
    case SCAN: {    /* block sums, their scan, the blocks from their carries */
        float carry[512];
        int nt = THREADS < 511 ? THREADS : 511;
        #pragma omp parallel num_threads(nt)
        {
#ifdef _OPENMP
            int t = omp_get_thread_num(), m = omp_get_num_threads(), u;
#else
            int t = 0, m = 1, u;
#endif
            size_t lo = N / (size_t)m * (size_t)t, hi = t == m - 1 ? N : N / (size_t)m * (size_t)(t + 1);
            carry[t + 1] = peer_sum_range(X, lo, hi);
            #pragma omp barrier
            #pragma omp single
            for (carry[0] = 0, u = 1; u <= m; ++u) carry[u] += carry[u - 1];
            peer_scan_range(X, R, lo, hi, carry[t]);
        }
        break;
    }
    case STENCIL:
        #pragma omp parallel
        {
#ifdef _OPENMP
            size_t t = (size_t)omp_get_thread_num(), m = (size_t)omp_get_num_threads();
#else
            size_t t = 0, m = 1;
#endif
            peer_stencil_range(X, R, N, N / m * t, t == m - 1 ? N : N / m * (t + 1));
        }
        break;
    case CONV:
        #pragma omp parallel for schedule(static)
        for (i = 0; i < (long)ROWS; ++i) peer_conv_rows(X, R, ROWS, COLS, (size_t)i, (size_t)i + 1);
        break;
    }
}

/* one call of kernel k on skel instance set s */
static void skel_call_k(const skset *s, int k)
{
    skel_call c;
    int rc = SKEL_OK;
    memset(&c, 0, sizeof c);
    switch (k) {
    case SAXPY: c.in[0] = vX; c.in[1] = vY; c.out = vY; c.uniform = &ALPHA; rc = skel_run(s->saxpy, &c); break;
    case SUM: rc = skel_reduce(s->sum, vX, &RES); break;
    case DOT: rc = skel_mapreduce2(s->dot, vX, vY, &RES); break;
    case SCAN: rc = skel_scan(s->scan, vR, vX); break;
    case STENCIL: rc = skel_overlap(s->st, vR, vX, SKEL_EDGE_CONSTANT, NULL); break;
    case CONV: c.in[0] = vX; c.out = vR; c.weights = peer_w5; rc = skel_run(s->conv, &c); break;
    }
    if (rc != SKEL_OK) die(KNAME[k]);
}

static void peer_call(const peer_ops *p, int k)
{
    switch (k) {
    case SAXPY: p->saxpy(N, ALPHA, X, Y); break;
    case SUM: RES = p->sum(N, X); break;
    case DOT: RES = p->dot(N, X, Y); break;
    case SCAN: p->scan(N, X, R); break;
    case STENCIL: p->stencil(N, X, R); break;
    case CONV: p->conv(ROWS, COLS, X, R); break;
    }
}

/* the plain serial loop (also the reference) */
static void loop_run(int k, int simd)
{
    size_t i;
    float s = 0;
    switch (k) {
    case SAXPY: peer_saxpy_range(ALPHA, X, Y, 0, N); break;
    case SUM:
        if (simd) { RES = peer_sum_range(X, 0, N); break; }
        for (i = 0; i < N; ++i) s += X[i];
        RES = s;
        break;
    case DOT:
        if (simd) { RES = peer_dot_range(X, Y, 0, N); break; }
        for (i = 0; i < N; ++i) s += X[i] * Y[i];
        RES = s;
        break;
    case SCAN: peer_scan_range(X, R, 0, N, 0); break;
    case STENCIL: peer_stencil_range(X, R, N, 0, N); break;
    case CONV: peer_conv_rows(X, R, ROWS, COLS, 0, ROWS); break;
    }
}

/* Does variant v run kernel k? */
static int has(int v, int k)
{
    switch (v) {
    case V_SIMD: case V_ORD: return k == SUM || k == DOT;
    case V_KOKKOS: case V_TBB: case V_THRUST: return PEER[v] != NULL;
    default: return 1;
    }
}

static void run(int v, int k)
{
    switch (v) {
    case V_LOOP: loop_run(k, 0); break;
    case V_SIMD: loop_run(k, 1); break;
    case V_SEQ: skel_call_k(&SEQ, k); break;
    case V_ORD: skel_call_k(&ORD, k); break;
    case V_OMP: omp_run(k); break;
    case V_POOL: skel_call_k(&POOL, k); break;
    case V_SKOMP: skel_call_k(&OMP, k); break;
    default: peer_call(PEER[v], k); break;
    }
}

/* ---- operands ---- */
static void operands(int k, size_t n)
{
    size_t i;
    uint64_t s = 88172645463325252ULL;
    ROWS = 1; COLS = n;
    if (k == CONV) {            /* a square matrix, or 2:1 for odd powers */
        ROWS = (size_t)1 << (int)(log2((double)n) / 2);
        COLS = n / ROWS;
    }
    N = ROWS * COLS;
    X = (float *)malloc(N * 4); Y = (float *)malloc(N * 4); Y0 = (float *)malloc(N * 4);
    R = (float *)malloc(N * 4); H = (float *)malloc(N * 4);
    if (!X || !Y || !Y0 || !R || !H) { fprintf(stderr, "out of memory\n"); exit(1); }
    for (i = 0; i < N; ++i) {   /* small integers: every sum of them is exact in float */
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        X[i] = (float)((int)(s % 17) - 8);
        Y0[i] = Y[i] = (float)((int)((s >> 20) % 17) - 8);
    }
    if (skel_vec_wrap(&vY, SKEL_FLOAT, N, Y) != SKEL_OK) die("wrap");
    if (k == CONV) {
        if (skel_mat_wrap(&vX, SKEL_FLOAT, ROWS, COLS, X) != SKEL_OK || skel_mat_wrap(&vR, SKEL_FLOAT, ROWS, COLS, R) != SKEL_OK)
            die("wrap");
    } else if (skel_vec_wrap(&vX, SKEL_FLOAT, N, X) != SKEL_OK || skel_vec_wrap(&vR, SKEL_FLOAT, N, R) != SKEL_OK) {
        die("wrap");
    }
    loop_run(k, 0);             /* the reference */
    REF = RES;
    memcpy(H, k == SAXPY ? Y : R, N * 4);
    memcpy(Y, Y0, N * 4);
}

static void free_operands(void)
{
    skel_free(vX); skel_free(vY); skel_free(vR);
    free(X); free(Y); free(Y0); free(R); free(H);
}

static int FAILED;
/* Run v once on fresh data and compare with the reference. */
static void check(int v, int k)
{
    const float *got = k == SAXPY ? Y : R;
    size_t i = 0, bad = 0;
    memcpy(Y, Y0, N * 4);
    memset(R, 0, N * 4);
    RES = 0;
    run(v, k);
    if (k == SUM || k == DOT) {
        if (fabsf(RES - REF) > 1e-6f * (fabsf(REF) + (float)N)) bad = 1;
    } else {
        for (i = 0; i < N; ++i)
            if (fabsf(got[i] - H[i]) > 1e-5f * (fabsf(H[i]) + 1)) { ++bad; break; }
    }
    if (bad) {
        printf("MISMATCH: %s %s n=%zu (got %g, want %g at %zu)\n", VNAME[v], KNAME[k], N,
               k == SUM || k == DOT ? (double)RES : (double)got[i], k == SUM || k == DOT ? (double)REF : (double)H[i], i);
        FAILED = 1;
    }
    memcpy(Y, Y0, N * 4);
}

static void nap_ms(double ms)
{
    struct timespec t;
    t.tv_sec = 0;
    t.tv_nsec = (long)(ms * 1e6);
    nanosleep(&t, NULL);
}

/* ---- default mode: time per call ---- */
#define ROUNDS 7
#define SETTLE_MS 10
static void table(int k, size_t n)
{
    double t[NVAR][ROUNDS], med[NVAR], once;
    long reps[NVAR];
    int v, r, i, order[NVAR], nv = 0, best1 = -1, bestp = -1;
    operands(k, n);
    for (v = 0; v < NVAR; ++v) {
        if (!has(v, k)) continue;
        order[nv++] = v;
        check(v, k);
        once = bench_now();
        run(v, k);
        once = bench_now() - once;
        reps[v] = (long)(5e-3 / (once > 1e-8 ? once : 1e-8)) + 1;
    }
    for (r = 0; r < ROUNDS; ++r)
        for (i = 0; i < nv; ++i) {
            long q;
            double t0;
            v = order[(i + r) % nv];
            nap_ms(SETTLE_MS);
            run(v, k);
            t0 = bench_now();
            for (q = 0; q < reps[v]; ++q) run(v, k);
            t[v][r] = (bench_now() - t0) / (double)reps[v];
        }
    for (i = 0; i < nv; ++i) {
        v = order[i];
        med[v] = bench_median(t[v], ROUNDS);
        if (v != V_SEQ && v != V_ORD && !VPAR[v] && (best1 < 0 || med[v] < med[best1])) best1 = v;
        if ((v == V_OMP || v == V_TBB) && (bestp < 0 || med[v] < med[bestp])) bestp = v;
    }
    for (i = 0; i < nv; ++i) {
        v = order[i];
        printf("| %s | 2^%d | %s | %.3f | %.2f |", KNAME[k], (int)lround(log2((double)N)), VNAME[v], 1e6 * med[v],
               KBYTES[k] * (double)N / med[v] * 1e-9);
        if ((v == V_SEQ || v == V_ORD) && best1 >= 0) printf(" %.2f of %s |\n", med[best1] / med[v], VNAME[best1]);
        else if ((v == V_POOL || v == V_SKOMP) && bestp >= 0) printf(" %.2f of %s |\n", med[bestp] / med[v], VNAME[bestp]);
        else printf(" |\n");
    }
    fflush(stdout);
    free_operands();
}

/* ---- --calls: one call at a time, while something else may run ---- */
#define CALLS 200
#define CYCLES 3
static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void calls(int k, size_t n)
{
    static const int vs[] = { V_SEQ, V_POOL, V_SKOMP, V_OMP, V_TBB, V_THRUST };
    enum { NV = sizeof vs / sizeof vs[0] };
    static double t[NV][CALLS * CYCLES];
    double med[NV], mean[NV];
    int i, c, q, nv = 0, use[NV];
    operands(k, n);
    for (i = 0; i < NV; ++i)
        if (has(vs[i], k)) { use[nv++] = i; check(vs[i], k); }
    for (c = 0; c < CYCLES; ++c)
        for (i = 0; i < nv; ++i) {
            int w = use[(i + c) % nv];
            nap_ms(SETTLE_MS);
            for (q = 0; q < 10; ++q) run(vs[w], k);
            for (q = 0; q < CALLS; ++q) {
                double t0 = bench_now();
                run(vs[w], k);
                t[w][c * CALLS + q] = bench_now() - t0;
            }
        }
    for (i = 0; i < nv; ++i) {
        int w = use[i];
        qsort(t[w], CALLS * CYCLES, sizeof(double), cmp_d);
        med[w] = t[w][CALLS * CYCLES / 2];
        for (mean[w] = 0, q = 0; q < CALLS * CYCLES; ++q) mean[w] += t[w][q] / (CALLS * CYCLES);
    }
    for (i = 0; i < nv; ++i) {
        int w = use[i];
        printf("| %s | 2^%d | %s | %.1f | %.1f | %.1f | %.1f | %.2f |\n", KNAME[k], (int)lround(log2((double)N)),
               VNAME[vs[w]], 1e6 * med[w], 1e6 * mean[w], 1e6 * t[w][CALLS * CYCLES * 9 / 10],
               1e6 * t[w][CALLS * CYCLES - 1], med[w] / med[0]);
    }
    if (has(V_TBB, k)) printf("| %s | 2^%d | skel pool / TBB, medians | %.2f | | | | |\n", KNAME[k],
                              (int)lround(log2((double)N)), med[1] / med[4]);
    fflush(stdout);
    free_operands();
}

/* ---- --overhead: small saxpy calls, back to back ---- */
static void overhead(size_t n)
{
    static const int vs[] = { V_LOOP, V_SEQ, V_POOL, V_SKOMP, V_OMP, V_TBB };
    double t[31];
    int i, s, q;
    operands(SAXPY, n);
    printf("\n| variant | ns per %zu-element saxpy call (median of 31 x 2000) |\n|---|---|\n", n);
    for (i = 0; i < (int)(sizeof vs / sizeof vs[0]); ++i) {
        if (!has(vs[i], SAXPY)) continue;
        check(vs[i], SAXPY);
        nap_ms(SETTLE_MS);
        for (q = 0; q < 2000; ++q) run(vs[i], SAXPY);   /* warm */
        for (s = 0; s < 31; ++s) {
            double t0 = bench_now();
            for (q = 0; q < 2000; ++q) run(vs[i], SAXPY);
            t[s] = (bench_now() - t0) / 2000;
        }
        printf("| %s%s | %.0f |\n", VNAME[vs[i]], VPAR[vs[i]] ? " (parallel)" : "", 1e9 * bench_median(t, 31));
    }
    free_operands();
}

/* ---- --idle: what the pool costs while nothing runs ---- */
static void idle(void)
{
    struct timespec a, b;
    double busy;
    int q;
    operands(SAXPY, (size_t)1 << 16);
    for (q = 0; q < 2000; ++q) run(V_POOL, SAXPY);
    nap_ms(50);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    nap_ms(999);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    busy = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
    printf("idle: %.3f ms of CPU in 1 s of sleep after 2000 pool calls (%d workers started)\n", 1e3 * busy,
           _skel_pool_threads());
    free_operands();
}

static void plans(void)
{
    const skset *sets[3] = { &SEQ, &POOL, &OMP };
    skel_plan *p[3];
    int s, i;
    p[0] = bench_fixed_plan("seq", 0, 0);
    p[1] = bench_fixed_plan("pool", THREADS, 0);
    p[2] = skel_backend_available("omp") ? bench_fixed_plan("omp", THREADS, 0) : NULL;
    for (s = 0; s < 3; ++s) {
        skel_skeleton *k[6] = { sets[s]->saxpy, sets[s]->sum, sets[s]->dot, sets[s]->scan, sets[s]->st, sets[s]->conv };
        for (i = 0; i < 6; ++i) skel_set_plan(k[i], p[s] ? p[s] : p[0]);
    }
    skel_set_plan(sum_ord, p[0]);
    skel_set_plan(dot_ord, p[0]);
}

int main(int argc, char **argv)
{
    int lo = 10, hi = 24, step = 2, i, k, e, mode = 0, kern[NKERNELS];
    for (k = 0; k < NKERNELS; ++k) kern[k] = 1;
    THREADS = _skel_cpu_count();
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) THREADS = atoi(argv[++i]);
        else if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            step = 1;
            if (sscanf(argv[++i], "%d:%d:%d", &lo, &hi, &step) < 2) hi = lo;
        } else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) {
            for (k = 0; k < NKERNELS; ++k) kern[k] = strstr(argv[i + 1], KNAME[k]) != NULL;
            ++i;
        } else if (strcmp(argv[i], "--calls") == 0) mode = 1;
        else if (strcmp(argv[i], "--overhead") == 0) mode = 2;
        else if (strcmp(argv[i], "--idle") == 0) mode = 3;
        else {
            printf("usage: bench_peers [--threads T] [--sizes LO:HI[:STEP]] [--kernels saxpy,sum,dot,scan,stencil,conv5x5]\n"
                   "                   [--calls | --overhead | --idle]   (sizes are powers of two)\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (THREADS < 1 || lo < 1 || hi > 30 || step < 1) { fprintf(stderr, "bad arguments\n"); return 2; }
#ifdef _OPENMP
    omp_set_num_threads(THREADS);
#endif
#ifdef PEERS_TBB
    PEER[V_TBB] = peer_tbb();
#endif
#ifdef PEERS_THRUST
    PEER[V_THRUST] = peer_thrust();
#endif
#ifdef PEERS_KOKKOS
    PEER[V_KOKKOS] = peer_kokkos();
#endif
    for (i = 0; i < NVAR; ++i) if (PEER[i]) PEER[i]->init(THREADS);
    plans();
    printf("skel %s CPU peers, %d threads, float32; peers linked in:%s%s%s\n", SKEL_VERSION, THREADS,
           PEER[V_TBB] ? " TBB" : "", PEER[V_THRUST] ? " Thrust-OMP" : "", PEER[V_KOKKOS] ? " Kokkos" : "");
    if (mode == 2) {    /* 16: the pool's calling thread alone; 32: two chunks; 16 per thread */
        overhead(16);
        overhead(32);
        overhead((size_t)16 * (size_t)THREADS);
    }
    else if (mode == 3) idle();
    else {
        if (mode == 1) printf("| kernel | n | variant | median us | mean us | p90 us | max us | median / skel seq's |\n|---|---|---|---|---|---|---|---|\n");
        else printf("| kernel | n | variant | us per call | GB/s | ratio (> 1: skel faster) |\n|---|---|---|---|---|---|\n");
        for (k = 0; k < NKERNELS; ++k) {
            if (!kern[k] || (mode == 1 && k != SAXPY && k != DOT && k != STENCIL)) continue;
            if (mode == 1 && lo == 10 && hi == 24) {
                static const int cs[] = { 16, 20, 22 };
                for (e = 0; e < 3; ++e) calls(k, (size_t)1 << cs[e]);
                continue;
            }
            for (e = lo; e <= hi; e += step) {
                if (mode == 1) calls(k, (size_t)1 << e);
                else table(k, (size_t)1 << e);
            }
        }
    }
    return FAILED;
}
