/* cpu.c - skel's CPU backends against hand-written loops, in one run.

   For n = 2^10 .. 2^26 it times, per skeleton, four variants side by side:
       seq:  a plain C loop          vs  skel forced onto "seq" by a plan
       omp:  a hand-written OpenMP   vs  skel forced onto "omp" by a plan
   Each pair computes exactly the same thing (same expression, same edge
   handling) and the results are compared before timing; a mismatch is
   reported loudly and makes the exit status 1.

   Skeletons (float throughout):
       map          saxpy, y = a*x + y in place, a uniform     12 B/elem
       reduce       sum                                          4 B/elem
       reduce+simd  the same, baseline `#pragma omp simd reduction`
       mapreduce    dot product                                  8 B/elem
       mapreduce+simd  the same, baseline `omp simd reduction`
       scan         inclusive prefix sum; the OpenMP baseline is a
                    3-phase scan (block sums, scan of sums, block scans)  8 B/elem
       overlap1d    5-tap weighted sum, d = 2, CONSTANT edge 0   8 B/elem
       overlap2d    3x3 weighted neighbourhood (SKEL_OVERLAP2D) on a
                    square matrix of ~n elements, CONSTANT edge 0  8 B/elem
   B/elem counts the bytes a call must read and write, once each.

   The inputs are random nonzero small integers (-8..8) stored as floats:
   every partial sum is then exact, so reductions and scans summed in a
   different order (skel sums blocks) still compare bit for bit.  The map
   and overlap weights are not integers, so those results are general
   floats; they compare exactly because both sides evaluate the same
   expression in the same order.

   Timing: per (skeleton, n) each variant is warmed up, calibrated, then
   sampled; a sample is k back-to-back calls (k chosen so a sample lasts a
   few ms) and the four variants take turns sample by sample, so drift
   hits all of them.  The reported time is the median sample / k.
   ratio = hand time / skel time: > 1 means skel is faster.

   Usage: bench_cpu [--quick] [--csv] [--max K] [--help] */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define SKEL_IMPLEMENTATION
#include "skel.h"

/* ---- skeleton instances: one per backend, each with its own plan ---- */
SKEL_FUNC(float, saxpy_f, (float x, float y, float a), return a * x + y;)
SKEL_FUNC(float, add_f, (float a, float b), return a + b;)
SKEL_FUNC(float, mul_f, (float a, float b), return a * b;)
SKEL_FUNC(float, ov1_f, (const float *a),
    return a[-2] * 0.1f + a[-1] * 0.2f + a[0] * 0.4f + a[1] * 0.2f + a[2] * 0.1f;)
SKEL_FUNC(float, ov2_f, (const float *a, skel_index s),
    return a[-s - 1] * 0.05f + a[-s] * 0.1f + a[-s + 1] * 0.05f
         + a[-1] * 0.1f + a[0] * 0.4f + a[1] * 0.1f
         + a[s - 1] * 0.05f + a[s] * 0.1f + a[s + 1] * 0.15f;)

#define INSTANCES(b)                                                          \
    SKEL_MAP_EX(saxpy_##b, saxpy_f, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float)) \
    SKEL_REDUCE(sum_##b, add_f, float)                                        \
    SKEL_MAPREDUCE(dot_##b, mul_f, add_f, float, 2)                           \
    SKEL_SCAN(scan_##b, add_f, float)                                         \
    SKEL_OVERLAP(ov1_##b, ov1_f, float, 2)                                    \
    SKEL_OVERLAP2D(ov2_##b, ov2_f, float, 1, 1)
INSTANCES(seq)
INSTANCES(omp)

/* ---- operands: set per (skeleton, n) ---- */
static float *A, *B;        /* inputs */
static float *S, *H;        /* outputs of skel and of the hand loop */
static size_t N, ROWS, COLS;
static float alpha = 0.7310586f, zero = 0, hand_r, skel_r;
static skel_vec *vA, *vB, *vS;

/* ---- hand-written loops, plain C ---- */
#ifdef _OPENMP
#define SIMD_SUM _Pragma("omp simd reduction(+:s)")
#else
#define SIMD_SUM
#endif

static void saxpy_hand(void)
{
    const float a = alpha, *x = A;
    float *y = H;
    size_t i, n = N;
    for (i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

static void sum_hand(void)
{
    const float *x = A;
    float s = x[0];
    size_t i, n = N;
    for (i = 1; i < n; ++i) s += x[i];
    hand_r = s;
}

static void sum_simd(void)
{
    const float *x = A;
    float s = 0;
    size_t i, n = N;
    SIMD_SUM
    for (i = 0; i < n; ++i) s += x[i];
    hand_r = s;
}

static void dot_hand(void)
{
    const float *x = A, *y = B;
    float s = 0;
    size_t i, n = N;
    for (i = 0; i < n; ++i) s += x[i] * y[i];
    hand_r = s;
}

static void dot_simd(void)
{
    const float *x = A, *y = B;
    float s = 0;
    size_t i, n = N;
    SIMD_SUM
    for (i = 0; i < n; ++i) s += x[i] * y[i];
    hand_r = s;
}

static float scan_block(const float *a, float *r, size_t lo, size_t hi, float acc)
{
    size_t i;
    for (i = lo; i < hi; ++i) { acc += a[i]; r[i] = acc; }
    return acc;
}

static void scan_hand(void)
{
    H[0] = A[0];
    scan_block(A, H, 1, N, A[0]);
}

/* 1D overlap: the window around i with 0 beyond the ends */
static float ov1_edge(const float *a, size_t n, size_t i)
{
    float w[5];
    int k;
    for (k = -2; k <= 2; ++k)
        w[k + 2] = (i + k < n) ? a[i + k] : 0;   /* i + k wraps past n below 0 */
    return w[0] * 0.1f + w[1] * 0.2f + w[2] * 0.4f + w[3] * 0.2f + w[4] * 0.1f;
}

static void ov1_range(const float *a, float *r, size_t n, size_t lo, size_t hi)
{
    size_t i = lo, e = hi < n - 2 ? hi : n - 2;  /* n >= 4 */
    for (; i < hi && i < 2; ++i) r[i] = ov1_edge(a, n, i);
    for (; i < e; ++i)
        r[i] = a[i - 2] * 0.1f + a[i - 1] * 0.2f + a[i] * 0.4f + a[i + 1] * 0.2f + a[i + 2] * 0.1f;
    for (; i < hi; ++i) r[i] = ov1_edge(a, n, i);
}

static void ov1_hand(void) { ov1_range(A, H, N, 0, N); }

/* 2D overlap: the 3x3 window around (r, c) with 0 outside */
static float ov2_edge(const float *a, size_t R, size_t C, size_t r, size_t c)
{
    float w[3][3];
    int y, x;
    for (y = -1; y <= 1; ++y)
        for (x = -1; x <= 1; ++x)
            w[y + 1][x + 1] = (r + y < R && c + x < C) ? a[(r + y) * C + c + x] : 0;
    return w[0][0] * 0.05f + w[0][1] * 0.1f + w[0][2] * 0.05f
         + w[1][0] * 0.1f + w[1][1] * 0.4f + w[1][2] * 0.1f
         + w[2][0] * 0.05f + w[2][1] * 0.1f + w[2][2] * 0.15f;
}

static void ov2_row(const float *a, float *o, size_t R, size_t C, size_t r)
{
    const float *up, *mid, *dn;
    float *out = o + r * C;
    size_t c;
    if (r == 0 || r == R - 1) {
        for (c = 0; c < C; ++c) out[c] = ov2_edge(a, R, C, r, c);
        return;
    }
    up = a + (r - 1) * C, mid = a + r * C, dn = a + (r + 1) * C;
    out[0] = ov2_edge(a, R, C, r, 0);
    for (c = 1; c < C - 1; ++c)
        out[c] = up[c - 1] * 0.05f + up[c] * 0.1f + up[c + 1] * 0.05f
               + mid[c - 1] * 0.1f + mid[c] * 0.4f + mid[c + 1] * 0.1f
               + dn[c - 1] * 0.05f + dn[c] * 0.1f + dn[c + 1] * 0.15f;
    out[C - 1] = ov2_edge(a, R, C, r, C - 1);
}

static void ov2_hand(void)
{
    size_t r;
    for (r = 0; r < ROWS; ++r) ov2_row(A, H, ROWS, COLS, r);
}

/* ---- hand-written loops, OpenMP ---- */
#ifdef _OPENMP
static void saxpy_omp_hand(void)
{
    const float a = alpha, *x = A;
    float *y = H;
    size_t i, n = N;
#pragma omp parallel for schedule(static)
    for (i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}

static void sum_omp_hand(void)
{
    const float *x = A;
    float s = 0;
    size_t i, n = N;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (i = 0; i < n; ++i) s += x[i];
    hand_r = s;
}

static void sum_omp_simd(void)
{
    const float *x = A;
    float s = 0;
    size_t i, n = N;
#pragma omp parallel for simd schedule(static) reduction(+:s)
    for (i = 0; i < n; ++i) s += x[i];
    hand_r = s;
}

static void dot_omp_hand(void)
{
    const float *x = A, *y = B;
    float s = 0;
    size_t i, n = N;
#pragma omp parallel for schedule(static) reduction(+:s)
    for (i = 0; i < n; ++i) s += x[i] * y[i];
    hand_r = s;
}

static void dot_omp_simd(void)
{
    const float *x = A, *y = B;
    float s = 0;
    size_t i, n = N;
#pragma omp parallel for simd schedule(static) reduction(+:s)
    for (i = 0; i < n; ++i) s += x[i] * y[i];
    hand_r = s;
}

/* 3-phase scan: each thread sums its block; one thread scans the block
   sums; each thread scans its block starting from its offset. */
#define MAX_THREADS 1024
static void scan_omp_hand(void)
{
    static float part[MAX_THREADS + 1];
    const float *a = A;
    float *r = H;
    size_t n = N;
#pragma omp parallel
    {
        size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads(), i;
        size_t lo = n * t / nt, hi = n * (t + 1) / nt;
        float s = 0;
        for (i = lo; i < hi; ++i) s += a[i];
        part[t + 1] = s;
#pragma omp barrier
#pragma omp single
        {
            part[0] = 0;
            for (i = 1; i <= nt; ++i) part[i] += part[i - 1];
        }
        if (t == 0 && lo < hi) { r[0] = a[0]; scan_block(a, r, 1, hi, a[0]); }
        else scan_block(a, r, lo, hi, part[t]);
    }
}

static void ov1_omp_hand(void)
{
    size_t n = N;
#pragma omp parallel
    {
        size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        ov1_range(A, H, n, n * t / nt, n * (t + 1) / nt);
    }
}

static void ov2_omp_hand(void)
{
    size_t r, R = ROWS, C = COLS;
#pragma omp parallel for schedule(static)
    for (r = 0; r < R; ++r) ov2_row(A, H, R, C, r);
}
#else
#define saxpy_omp_hand NULL
#define sum_omp_hand NULL
#define sum_omp_simd NULL
#define dot_omp_hand NULL
#define dot_omp_simd NULL
#define scan_omp_hand NULL
#define ov1_omp_hand NULL
#define ov2_omp_hand NULL
#endif

/* ---- the benchmark table ---- */
enum { SCALAR = 1, IN_PLACE = 2, MATRIX = 4 };
typedef struct op {
    const char *name;
    double bytes;               /* bytes read + written per element */
    int flags;
    skel_skeleton *sk[2];       /* seq, omp */
    void (*hand[2])(void);      /* plain C, OpenMP */
    int nin;                    /* skel inputs: A, then B */
} op;

static const op OPS[] = {
    { "map",            12, IN_PLACE, { saxpy_seq, saxpy_omp }, { saxpy_hand, saxpy_omp_hand }, 2 },
    { "reduce",          4, SCALAR,   { sum_seq, sum_omp },     { sum_hand, sum_omp_hand },     1 },
    { "reduce+simd",     4, SCALAR,   { sum_seq, sum_omp },     { sum_simd, sum_omp_simd },     1 },
    { "mapreduce",       8, SCALAR,   { dot_seq, dot_omp },     { dot_hand, dot_omp_hand },     2 },
    { "mapreduce+simd",  8, SCALAR,   { dot_seq, dot_omp },     { dot_simd, dot_omp_simd },     2 },
    { "scan",            8, 0,        { scan_seq, scan_omp },   { scan_hand, scan_omp_hand },   1 },
    { "overlap1d",       8, 0,        { ov1_seq, ov1_omp },     { ov1_hand, ov1_omp_hand },     1 },
    { "overlap2d",       8, MATRIX,   { ov2_seq, ov2_omp },     { ov2_hand, ov2_omp_hand },     1 },
};
#define NOPS (int)(sizeof OPS / sizeof OPS[0])
#define MAX_LOG2 26
#define MIN_LOG2 10

typedef struct result { double t_hand, t_skel; } result;
static result RES[NOPS][MAX_LOG2 + 1][2];
static int HAVE[NOPS][MAX_LOG2 + 1][2];
static int mismatches, failures;
static const char *BACKEND[2] = { "seq", "omp" };

static void die_skel(const char *what, int st)
{
    fprintf(stderr, "FATAL: %s: %s: %s\n", what, skel_error_string(st), skel_last_error());
    exit(2);
}

/* Wraps the operands of op o at size n and fills in its skel call. */
static void operands(const op *o, size_t n, skel_call *call)
{
    int st;
    skel_free(vA); skel_free(vB); skel_free(vS);
    vA = vB = vS = NULL;
    if (o->flags & MATRIX) {
        ROWS = COLS = (size_t)sqrt((double)n);
        N = ROWS * COLS;
        if ((st = skel_mat_wrap(&vA, SKEL_FLOAT, ROWS, COLS, A)) ||
            (st = skel_mat_wrap(&vS, SKEL_FLOAT, ROWS, COLS, S)))
            die_skel("skel_mat_wrap", st);
    } else {
        N = n; ROWS = 1; COLS = n;
        if ((st = skel_vec_wrap(&vA, SKEL_FLOAT, N, A)) ||
            (st = skel_vec_wrap(&vB, SKEL_FLOAT, N, B)) ||
            (st = skel_vec_wrap(&vS, SKEL_FLOAT, N, S)))
            die_skel("skel_vec_wrap", st);
    }
    memset(call, 0, sizeof *call);
    call->in[0] = vA;
    if (o->nin == 2) call->in[1] = (o->flags & IN_PLACE) ? vS : vB;
    if (o->flags & SCALAR) call->result = &skel_r;
    else call->out = vS;
    if (o->flags & IN_PLACE) call->uniform = &alpha;
    call->edge = SKEL_EDGE_CONSTANT;
    call->edge_value = &zero;
}

/* Outputs start as B (in place) or as NaN, so an unwritten element shows. */
static void reset_outputs(const op *o)
{
    float *s = skel_write(vS);
    size_t i;
    if (!s) die_skel("skel_write", SKEL_EINVAL);
    if (o->flags & IN_PLACE) {
        memcpy(s, B, N * sizeof *s);
        memcpy(H, B, N * sizeof *H);
        return;
    }
    for (i = 0; i < N; ++i) s[i] = H[i] = NAN;
    hand_r = skel_r = NAN;
}

/* Runs skel and the hand loop once from the same inputs; 0 if they agree. */
static int check(const op *o, int b, int n_log2, const skel_call *call)
{
    const float *s;
    size_t i;
    int st;
    reset_outputs(o);
    o->hand[b]();
    if ((st = skel_run(o->sk[b], call)) != SKEL_OK) {
        fprintf(stderr, "FAIL: %s n=2^%d %s: %s: %s\n", o->name, n_log2, BACKEND[b],
                skel_error_string(st), skel_last_error());
        ++failures;
        return 1;
    }
    if (o->flags & SCALAR) {
        if (skel_r == hand_r) return 0;
        fprintf(stderr, "MISMATCH: %s n=2^%d %s: skel %.9g, hand %.9g\n",
                o->name, n_log2, BACKEND[b], skel_r, hand_r);
        ++mismatches;
        return 1;
    }
    s = skel_read(vS);
    for (i = 0; i < N; ++i)
        if (!(s[i] == H[i])) {
            fprintf(stderr, "MISMATCH: %s n=2^%d %s: element %zu: skel %.9g, hand %.9g\n",
                    o->name, n_log2, BACKEND[b], i, s[i], H[i]);
            ++mismatches;
            return 1;
        }
    return 0;
}

/* Variant v: 0 hand seq, 1 skel seq, 2 hand omp, 3 skel omp; k calls. */
static int run_variant(const op *o, int v, const skel_call *call, long k)
{
    int b = v / 2, st = SKEL_OK;
    long c;
    if (v % 2 == 0) {
        for (c = 0; c < k; ++c) o->hand[b]();
        bench_sink(hand_r);
        return SKEL_OK;
    }
    for (c = 0; c < k && st == SKEL_OK; ++c) st = skel_run(o->sk[b], call);
    bench_sink(skel_r);
    return st;
}

/* Times op o at size 2^n_log2; budget in seconds for the four variants. */
static void measure(const op *o, int oi, int n_log2, double budget, int nb)
{
    enum { MAX_SAMPLES = 21, MIN_SAMPLES = 5 };
    double t[4], samples[4][MAX_SAMPLES], round = 0, t0, sample_s;
    long k[4];
    int v, s, ns, bad[2] = { 0, 0 }, b;
    skel_call call;

    operands(o, (size_t)1 << n_log2, &call);
    for (b = 0; b < nb; ++b) bad[b] = check(o, b, n_log2, &call);
    sample_s = budget / (4.0 * 15);
    for (v = 0; v < 2 * nb; ++v) {          /* warm up, then calibrate */
        long c = 0;
        if (bad[v / 2]) continue;
        run_variant(o, v, &call, 1);
        t0 = bench_now();
        do { run_variant(o, v, &call, 1); ++c; } while (bench_now() - t0 < 0.2 * sample_s);
        t[v] = (bench_now() - t0) / c;
        k[v] = (long)ceil(sample_s / t[v]);
        round += k[v] * t[v];
    }
    ns = round > 0 ? (int)(budget / round) : MIN_SAMPLES;
    ns = ns < MIN_SAMPLES ? MIN_SAMPLES : ns > MAX_SAMPLES ? MAX_SAMPLES : ns;
    for (s = 0; s < ns; ++s)
        for (v = 0; v < 2 * nb; ++v) {
            if (bad[v / 2]) continue;
            if (k[v] > 1) run_variant(o, v, &call, 1);  /* cache-resident sizes: start warm */
            t0 = bench_now();
            if (run_variant(o, v, &call, k[v]) != SKEL_OK) {
                fprintf(stderr, "FAIL: %s n=2^%d %s: %s\n", o->name, n_log2,
                        BACKEND[v / 2], skel_last_error());
                ++failures;
                bad[v / 2] = 1;
                continue;
            }
            samples[v][s] = (bench_now() - t0) / k[v];
        }
    for (b = 0; b < nb; ++b) {
        if (bad[b]) continue;
        RES[oi][n_log2][b].t_hand = bench_median(samples[2 * b], ns);
        RES[oi][n_log2][b].t_skel = bench_median(samples[2 * b + 1], ns);
        HAVE[oi][n_log2][b] = 1;
    }
}

/* ---- per-call overhead: a 16-element Map on seq ---- */
static void overhead(int csv, double budget)
{
    enum { M = 16, SAMPLES = 15 };
    static float x[M], y[M], yh[M];
    double hs[SAMPLES], ss[SAMPLES], t0, th, tsk;
    long calls, c;
    int i, s, st;
    skel_vec *vx = NULL, *vy = NULL;
    skel_call call;

    for (i = 0; i < M; ++i) x[i] = y[i] = yh[i] = A[i];
    if ((st = skel_vec_wrap(&vx, SKEL_FLOAT, M, x)) || (st = skel_vec_wrap(&vy, SKEL_FLOAT, M, y)))
        die_skel("skel_vec_wrap", st);
    call = (skel_call){ .in = { vx, vy }, .out = vy, .uniform = &alpha };
    calls = (long)(budget / SAMPLES / 2 / 200e-9);
    for (c = 0; c < 1000; ++c) {    /* warm up both, the same number of times */
        if ((st = skel_run(saxpy_seq, &call)) != SKEL_OK) die_skel("map16", st);
        for (i = 0; i < M; ++i) yh[i] = alpha * x[i] + yh[i];
    }
    for (s = 0; s < SAMPLES; ++s) {
        const float a = alpha;
        t0 = bench_now();
        for (c = 0; c < calls; ++c) {
            for (i = 0; i < M; ++i) yh[i] = a * x[i] + yh[i];
            bench_barrier();        /* one loop per iteration, not folded */
        }
        hs[s] = (bench_now() - t0) / calls;
        t0 = bench_now();
        for (c = 0; c < calls; ++c) skel_run(saxpy_seq, &call);
        ss[s] = (bench_now() - t0) / calls;
    }
    th = bench_median(hs, SAMPLES);
    tsk = bench_median(ss, SAMPLES);
    for (i = 0; i < M; ++i)
        if (y[i] != yh[i]) {
            fprintf(stderr, "MISMATCH: overhead map16 element %d: skel %.9g, hand %.9g\n", i, y[i], yh[i]);
            ++mismatches;
            break;
        }
    if (csv)
        printf("overhead_map16,16,seq,%.6g,%.6g,,,\n", th, tsk);
    else
        printf("\nper-call overhead, 16-element map on seq: skel %.0f ns/call, hand loop %.1f ns "
               "(skel - hand = %.0f ns; target < 1000 ns)\n", tsk * 1e9, th * 1e9, (tsk - th) * 1e9);
    skel_free(vx);
    skel_free(vy);
}

/* ---- output ---- */
static double gbs(const op *o, int n_log2, double t)
{
    size_t n = (size_t)1 << n_log2;
    if (o->flags & MATRIX) { size_t side = (size_t)sqrt((double)n); n = side * side; }
    return o->bytes * (double)n / t * 1e-9;
}

static void print_row(const op *o, int oi, int n_log2, int csv, int nb)
{
    int b;
    if (csv) {
        for (b = 0; b < nb; ++b) {
            const result *r = &RES[oi][n_log2][b];
            if (!HAVE[oi][n_log2][b]) continue;
            printf("%s,%zu,%s,%.6g,%.6g,%.4g,%.4g,%.4f\n", o->name, (size_t)1 << n_log2,
                   BACKEND[b], r->t_hand, r->t_skel, gbs(o, n_log2, r->t_hand),
                   gbs(o, n_log2, r->t_skel), r->t_hand / r->t_skel);
        }
        return;
    }
    printf("%-15s 2^%-3d", o->name, n_log2);
    for (b = 0; b < nb; ++b) {
        const result *r = &RES[oi][n_log2][b];
        if (!HAVE[oi][n_log2][b]) { printf(" | %47s", "FAILED"); continue; }
        printf(" | %10.2f %10.2f %6.2f %6.2f %5.2f", r->t_hand * 1e6, r->t_skel * 1e6,
               gbs(o, n_log2, r->t_hand), gbs(o, n_log2, r->t_skel), r->t_hand / r->t_skel);
    }
    printf("\n");
    fflush(stdout);
}

static void print_header(int nb)
{
    int b;
    printf("%-15s %-5s", "", "");
    for (b = 0; b < nb; ++b) printf(" | %-47s", BACKEND[b]);
    printf("\n%-15s %-5s", "skeleton", "n");
    for (b = 0; b < nb; ++b)
        printf(" | %10s %10s %6s %6s %5s", "hand us", "skel us", "hGB/s", "sGB/s", "ratio");
    printf("\n");
}

/* min and geometric mean of the ratio over n >= 2^16, per skeleton and backend */
static void print_summary(int csv, int nb, int step, int max_log2)
{
    int oi, b, n;
    if (csv) return;
    printf("\nratio = hand time / skel time over n >= 2^16 (target: >= 0.95)\n");
    printf("%-15s", "skeleton");
    for (b = 0; b < nb; ++b) printf(" | %-3s %6s %6s %-5s", BACKEND[b], "min", "gmean", "");
    printf("\n");
    for (oi = 0; oi < NOPS; ++oi) {
        printf("%-15s", OPS[oi].name);
        for (b = 0; b < nb; ++b) {
            double mn = 1e300, lg = 0;
            int cnt = 0;
            for (n = MIN_LOG2; n <= max_log2; n += step) {
                double r;
                if (n < 16 || !HAVE[oi][n][b]) continue;
                r = RES[oi][n][b].t_hand / RES[oi][n][b].t_skel;
                mn = r < mn ? r : mn;
                lg += log(r);
                ++cnt;
            }
            if (!cnt) { printf(" | %-3s %6s %6s %-5s", "", "-", "-", ""); continue; }
            printf(" | %-3s %6.2f %6.2f %-5s", "", mn, exp(lg / cnt), mn >= 0.95 ? "met" : "MISS");
        }
        printf("\n");
    }
}

static float *alloc_floats(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n * sizeof(float)) != 0) {
        fprintf(stderr, "FATAL: out of memory for %zu floats\n", n);
        exit(2);
    }
    return p;
}

int main(int argc, char **argv)
{
    int quick = 0, csv = 0, max_log2 = MAX_LOG2, step = 1, nb, oi, n, i;
    double budget, t_start = bench_now();
    size_t nmax;
    unsigned long long rng = 0x9e3779b97f4a7c15ull;
    skel_plan *plan[2];

    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--csv")) csv = 1;
        else if (!strcmp(argv[i], "--max") && i + 1 < argc) max_log2 = atoi(argv[++i]);
        else {
            printf("usage: %s [--quick] [--csv] [--max K]\n"
                   "  skel seq/omp against hand-written C/OpenMP loops, n = 2^10 .. 2^K (K <= 26)\n"
                   "  --quick  every fourth size, shorter timing\n"
                   "  --csv    skeleton,n,backend,hand_s,skel_s,hand_GBs,skel_GBs,ratio\n",
                   argv[0]);
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (max_log2 > MAX_LOG2 || max_log2 < MIN_LOG2) max_log2 = MAX_LOG2;
    step = quick ? 4 : 1;
    budget = quick ? 0.12 : 0.4;
    nb = skel_backend_available("omp") && OPS[0].hand[1] ? 2 : 1;

    for (i = 0; i < 2; ++i) {
        int st;
        if ((st = skel_plan_new(&plan[i])) ||
            (st = skel_plan_add(plan[i], 0, SIZE_MAX, &(skel_variant){ .backend = BACKEND[i] })))
            die_skel("skel_plan", st);
    }
    for (oi = 0; oi < NOPS; ++oi)
        for (i = 0; i < 2; ++i) skel_set_plan(OPS[oi].sk[i], plan[i]);

    nmax = (size_t)1 << max_log2;
    A = alloc_floats(nmax); B = alloc_floats(nmax);
    S = alloc_floats(nmax); H = alloc_floats(nmax);
    for (i = 0; i < (int)nmax; ++i) {   /* xorshift64: random nonzero -8..8 */
        int a, b;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        a = (int)(rng % 16); b = (int)((rng >> 20) % 16);
        A[i] = (float)(a < 8 ? a - 8 : a - 7);
        B[i] = (float)(b < 8 ? b - 8 : b - 7);
        S[i] = H[i] = 0;
    }

    if (csv) {
        printf("skeleton,n,backend,hand_s,skel_s,hand_GBs,skel_GBs,ratio\n");
    } else {
        printf("skel %s CPU benchmark: skel vs hand-written, median time per call\n", SKEL_VERSION);
#ifdef _OPENMP
        printf("OpenMP threads: %d", omp_get_max_threads());
#else
        printf("OpenMP: off");
#endif
#ifdef __VERSION__
        printf(", compiler: %s", __VERSION__);
#endif
        printf("\nratio = hand / skel time (> 1: skel faster); GB/s = bytes read + written per second\n\n");
        print_header(nb);
    }
    for (n = MIN_LOG2; n <= max_log2; n += step)
        for (oi = 0; oi < NOPS; ++oi) {
            measure(&OPS[oi], oi, n, budget, nb);
            print_row(&OPS[oi], oi, n, csv, nb);
        }
    overhead(csv, quick ? 0.2 : 0.6);
    print_summary(csv, nb, step, max_log2);

    if (!csv) printf("\ntotal %.0f s\n", bench_now() - t_start);
    if (mismatches || failures) {
        fprintf(stderr, "\n*** %d MISMATCH(ES), %d FAILED CALL(S): see above ***\n", mismatches, failures);
        printf("\n*** %d MISMATCH(ES), %d FAILED CALL(S) ***\n", mismatches, failures);
    }
    skel_free(vA); skel_free(vB); skel_free(vS);
    for (i = 0; i < 2; ++i) skel_plan_free(plan[i]);
    free(A); free(B); free(S); free(H);
    return mismatches || failures ? 1 : 0;
}
