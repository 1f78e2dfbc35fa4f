/* bench/conv2d.c - 2D convolution (SKEL_CONV2D) from 3x3 to 31x31, issue 29.

   build/bench_conv2d gpu [--backend cuda|opencl] [--n 4096] [--lo 3] [--hi 31]
                          [--tilings 0,1,2,3,4,8,16,32] [--block 256] [--user] [--shapes] [--reps 15]
       n x n floats on the device; per filter size and tiling (variant.tiling:
       0 the default, 1 Phi_occupancy, 2 Phi_tiling, 3 no register tiling,
       >= 4 that many outputs a work-item): the median of reps calls (CUDA
       events; OpenCL: host clock and clFinish), TFLOP/s (2 flops a tap),
       % of the fp32 peak (multiprocessors x fp32 lanes x 2 x the clock the
       device reports), % of the copy (a device-to-device copy of the n x n
       floats, the bytes the convolution must move, timed in the same run),
       and, on CUDA, the registers and groups per multiprocessor of the
       compiled kernel.  --user: the same sums through a weighted user
       function (SKEL_OVERLAP2D_EX: the general kernel).  --shapes: 15x15
       against non-square, separable, int32, double windows and each edge
       policy.
   build/bench_conv2d cpu [--backend pool|omp|seq] [--n 4096] [--lo 3] [--hi 31] [--threads N] [--reps 3]
       skel's CPU backend (pool by default; every thread, or N) against two hand-vectorised
       loops (AVX-512 or AVX2+FMA intrinsics, OpenMP over rows) on the same
       data, interleaved; GFLOP/s and % of the measured vector fp32 peak (an
       FMA-throughput loop on every thread: FMA units x lanes x 2 x clock).
       Run it with OMP_WAIT_POLICY=passive: otherwise the hand loops'
       OpenMP threads spin on after each loop, on the cores the pool's
       workers need next (H100 machine, 16 threads, 15x15, without it:
       pool 366 GFLOP/s, omp 554; that the spinning is the whole cause
       is not yet measured).
   build/bench_conv2d factors
       the tiling metric's candidates and choice per filter size for the
       limits of an sm_80 (A100) and an sm_90 (H100) device; no GPU needed.

   Every result is checked against a plain C loop on a corner of the
   matrix and its interior (small integer data: the sums are exact). */
#include "bench.h"
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#ifndef BENCH_NO_OPENCL
#include "skel_cl.h"
#endif
#include "bench_skel.h"
#include <stdio.h>
#include <string.h>
#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif
#if defined(_OPENMP)
#include <omp.h>
#endif

/* a weighted sum of (2d+1)^2 taps: SKEL_CONV2D, and the same as a weighted
   user function (the general kernel) */
#define CONV(d)                                                               \
    SKEL_CONV2D(cv##d, float, d, d)                                           \
    SKEL_FUNC(float, uf##d, (const float *a, skel_index s, const float *w),   \
              float t = 0; int y, x;                                          \
              for (y = -(d); y <= (d); ++y)                                   \
                  for (x = -(d); x <= (d); ++x) t += w[y * (2 * (d) + 1) + x] * a[y * s + x]; \
              return t;)                                                      \
    SKEL_OVERLAP2D_EX(uv##d, uf##d, float, d, d, SKEL_WEIGHTED, SKEL_NO_UNIFORM)
CONV(1) CONV(2) CONV(3) CONV(4) CONV(5) CONV(6) CONV(7) CONV(8) CONV(9) CONV(10) CONV(11) CONV(12) CONV(13)
CONV(14) CONV(15)
static skel_skeleton *const convs[16] = { NULL, cv1, cv2, cv3, cv4, cv5, cv6, cv7, cv8, cv9, cv10, cv11, cv12, cv13,
                                          cv14, cv15 };
static skel_skeleton *const users[16] = { NULL, uv1, uv2, uv3, uv4, uv5, uv6, uv7, uv8, uv9, uv10, uv11, uv12, uv13,
                                          uv14, uv15 };
/* the shapes that must not hide a slower path behind 15x15 floats */
SKEL_CONV2D(cv_7x31, float, 3, 15)
SKEL_CONV2D(cv_31x7, float, 15, 3)
SKEL_CONV2D(cv_i32, int32_t, 7, 7)
SKEL_CONV2D(cv_f64, double, 7, 7)

static int n = 4096, lo = 3, hi = 31, reps = 0, block, threads, user, shapes_too;
static const char *backend;     /* default: cuda (gpu), pool (cpu) */
static int tilings[16] = { 0 }, ntilings = 1;

static void check(int rc, const char *what)
{
    if (rc != SKEL_OK) { fprintf(stderr, "%s: %s\n", what, skel_last_error()); exit(1); }
}

static skel_plan *plan_for(const char *b, int th, int blk, int tiling)
{
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = b;
    v.threads = th;
    v.block = blk;
    v.tiling = tiling;
    return bench_variant_plan(&v);
}

/* ---- data: small integers, so every sum is exact ---- */
static float wts[31 * 31];
static void fill(skel_vec *m, skel_type t)
{
    size_t i, N = skel_size(m);
    void *p = skel_write(m);
    for (i = 0; i < N; ++i) {
        int v = (int)((i * 7919u + i / 4099u) % 17u) - 8;
        if (t == SKEL_FLOAT) ((float *)p)[i] = (float)v;
        else if (t == SKEL_DOUBLE) ((double *)p)[i] = v;
        else ((int32_t *)p)[i] = v;
    }
}
static void weights(int dr, int dc, int separable, void *w, skel_type t)
{
    int y, x, W = 2 * dc + 1;
    for (y = 0; y <= 2 * dr; ++y)
        for (x = 0; x < W; ++x) {
            int v = separable ? ((y % 3) - 1) * ((x % 3) + 1) : (int)((y * 31 + x * 17) % 7) - 3;
            if (t == SKEL_FLOAT) ((float *)w)[y * W + x] = (float)v;
            else if (t == SKEL_DOUBLE) ((double *)w)[y * W + x] = v;
            else ((int32_t *)w)[y * W + x] = v;
        }
}
static double elem(const void *p, skel_type t, size_t i)
{
    return t == SKEL_FLOAT ? ((const float *)p)[i] : t == SKEL_DOUBLE ? ((const double *)p)[i] : ((const int32_t *)p)[i];
}
/* the plain C loop (duplicated edges) at a few outputs: corners, edges, interior */
static void verify(const char *what, skel_vec *in, skel_vec *out, const void *w, int dr, int dc, skel_type t, int edge)
{
    const void *a = skel_read(in), *o = skel_read(out);
    size_t R = skel_rows(in), C = skel_cols(in), k;
    size_t pts[][2] = { { 0, 0 }, { 0, C - 1 }, { R - 1, 0 }, { R - 1, C - 1 }, { R / 2, C / 2 },
                        { 3, C / 3 }, { R / 3, 5 }, { R - 2, C - 7 }, { R / 2 + 1, C - 1 } };
    for (k = 0; k < sizeof pts / sizeof pts[0]; ++k) {
        size_t r = pts[k][0], c = pts[k][1];
        double s = 0;
        int y, x;
        for (y = -dr; y <= dr; ++y)
            for (x = -dc; x <= dc; ++x) {
                long long ar = (long long)r + y, ac = (long long)c + x;
                double v;
                if (edge == SKEL_EDGE_DUPLICATE) {
                    ar = ar < 0 ? 0 : ar >= (long long)R ? (long long)R - 1 : ar;
                    ac = ac < 0 ? 0 : ac >= (long long)C ? (long long)C - 1 : ac;
                } else if (edge == SKEL_EDGE_CYCLIC) {
                    ar = (ar + (long long)R) % (long long)R;
                    ac = (ac + (long long)C) % (long long)C;
                }
                v = ar < 0 || ac < 0 || ar >= (long long)R || ac >= (long long)C ? 0 : elem(a, t, (size_t)ar * C + (size_t)ac);
                s += elem(w, t, (size_t)(y + dr) * (size_t)(2 * dc + 1) + (size_t)(x + dc)) * v;
            }
        if (elem(o, t, r * C + c) != s) {
            fprintf(stderr, "%s: WRONG at (%zu, %zu): %g, want %g\n", what, r, c, elem(o, t, r * C + c), s);
            exit(2);
        }
    }
}

/* ======================================================================
   GPU
   ====================================================================== */
static _skel_CUevent ev0, ev1;
static int use_events;
static double gpu_ms(skel_skeleton *sk, skel_call *c)
{
    double t[64], t0 = 0;
    int k, r = reps ? reps : 15;
    check(skel_run(sk, c), sk->name);          /* compile, upload */
    if (use_events) _skel_cu.cuCtxSynchronize();
#ifndef BENCH_NO_OPENCL
    else skel_cl_finish();
#endif
    for (k = 0; k < r && k < 64; ++k) {
        float ms = 0;
        if (use_events) _skel_cu.cuEventRecord(ev0, NULL);
        else t0 = bench_now();
        check(skel_run(sk, c), sk->name);
        if (use_events) {
            _skel_cu.cuEventRecord(ev1, NULL);
            _skel_cu.cuEventSynchronize(ev1);
            _skel_cu.cuEventElapsedTime(&ms, ev0, ev1);
            t[k] = ms;
        } else {
#ifndef BENCH_NO_OPENCL
            skel_cl_finish();
#endif
            t[k] = 1e3 * (bench_now() - t0);
        }
    }
    return bench_median(t, k);
}

/* the compiled kernel's registers and groups a multiprocessor (CUDA) */
static void kernel_facts(skel_skeleton *sk, int tiling, int *regs, int *groups)
{
    _skel_cuda_kern *k;
    _skel_CUfunction f;
    *regs = *groups = 0;
    if (!use_events || _skel_cuda_kernels(sk, 0, block, tiling, &k) != SKEL_OK) return;
    if (_skel_cuda_fn(k, "skel_overlap2d", &f) != SKEL_OK) return;
    _skel_cu.cuFuncGetAttribute(regs, _SKEL_CUF_NUM_REGS, f);
    _skel_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(groups, f, k->block, 0);
}

static double peak_tflops(void)
{
    skel_cuda_device_info i;
    int clock = 0, lanes;
    if (skel_cuda_device_get(0, &i) != SKEL_OK) return 0;
    _skel_cu.cuDeviceGetAttribute(&clock, 13 /* CU_DEVICE_ATTRIBUTE_CLOCK_RATE, kHz */, _skel_cuda_devs[0].dev);
    lanes = i.cc_major == 8 && i.cc_minor == 0 ? 64 : i.cc_major >= 8 ? 128 : 64;   /* fp32 lanes a multiprocessor */
    return 2.0 * i.sms * lanes * clock * 1e3 * 1e-12;
}

static double copy_ms(void)
{
    _skel_CUdeviceptr a = 0, b = 0;
    size_t bytes = (size_t)n * (size_t)n * 4;
    double t[16];
    int k;
    float ms;
    if (!use_events || _skel_cu.cuMemAlloc_v2(&a, bytes) != 0 || _skel_cu.cuMemAlloc_v2(&b, bytes) != 0) return 0;
    _skel_cu.cuMemcpyDtoD_v2(b, a, bytes);
    for (k = 0; k < 16; ++k) {
        _skel_cu.cuEventRecord(ev0, NULL);
        _skel_cu.cuMemcpyDtoD_v2(b, a, bytes);
        _skel_cu.cuEventRecord(ev1, NULL);
        _skel_cu.cuEventSynchronize(ev1);
        _skel_cu.cuEventElapsedTime(&ms, ev0, ev1);
        t[k] = ms;
    }
    _skel_cu.cuMemFree_v2(a);
    _skel_cu.cuMemFree_v2(b);
    return bench_median(t, 16);
}

static void gpu_row(const char *what, skel_skeleton *sk, int tiling, skel_vec *in, skel_vec *out, const void *w,
                    skel_type t, int edge, double peak, double copy, double taps, size_t esz)
{
    skel_plan *p = plan_for(backend, 0, block, tiling);
    skel_call c;
    double ms, tf;
    int regs, groups;
    memset(&c, 0, sizeof c);
    c.in[0] = in;
    c.out = out;
    c.weights = w;
    c.edge = (skel_edge)edge;
    check(skel_set_plan(sk, p), "plan");
    ms = gpu_ms(sk, &c);
    verify(what, in, out, w, sk->dr, sk->dc, t, edge);
    kernel_facts(sk, tiling, &regs, &groups);
    tf = 2.0 * taps * (double)n * (double)n / (ms * 1e-3) * 1e-12;
    printf("%-10s %-7s %6d %8.4f %8.2f %6.1f%% %6.1f%% %5d %4d\n", what, backend, tiling, ms, tf,
           peak > 0 ? 100 * tf / peak : 0, copy > 0 ? 100 * copy * (double)esz / 4 / ms : 0, regs, groups);
    fflush(stdout);
    skel_set_plan(sk, NULL);
    skel_plan_free(p);
}

static void gpu(void)
{
    skel_vec *in, *out;
    double peak = 0, copy = 0;
    int d, k;
    if (!backend) backend = "cuda";
    use_events = strcmp(backend, "cuda") == 0;
    if (!skel_backend_available(backend)) { fprintf(stderr, "backend %s: not available\n", backend); exit(1); }
    if (use_events) {
        _skel_cu.cuCtxSetCurrent(_skel_cuda_devs[0].ctx);
        _skel_cu.cuEventCreate(&ev0, 0);
        _skel_cu.cuEventCreate(&ev1, 0);
        peak = peak_tflops();
        copy = copy_ms();
    }
    check(skel_mat_new(&in, SKEL_FLOAT, (size_t)n, (size_t)n), "in");
    check(skel_mat_new(&out, SKEL_FLOAT, (size_t)n, (size_t)n), "out");
    fill(in, SKEL_FLOAT);
    printf("# %d x %d floats on the device (%s); fp32 peak %.1f TFLOP/s; copy %.4f ms (%.0f GB/s)\n", n, n, backend,
           peak, copy, copy > 0 ? 2.0 * n * n * 4 / (copy * 1e-3) * 1e-9 : 0);
    printf("%-10s %-7s %6s %8s %8s %7s %7s %5s %4s\n", "filter", "backend", "tiling", "ms", "TFLOP/s", "%peak", "%copy",
           "regs", "grp");
    for (d = lo / 2; d <= hi / 2 && d <= 15; ++d) {
        char what[32];
        double taps = (double)(2 * d + 1) * (2 * d + 1);
        if (d < 1) continue;
        weights(d, d, 0, wts, SKEL_FLOAT);
        snprintf(what, sizeof what, "%dx%d", 2 * d + 1, 2 * d + 1);
        for (k = 0; k < ntilings; ++k)
            gpu_row(what, convs[d], tilings[k], in, out, wts, SKEL_FLOAT, SKEL_EDGE_DUPLICATE, peak, copy, taps, 4);
        if (user) {
            snprintf(what, sizeof what, "%dx%d/user", 2 * d + 1, 2 * d + 1);
            gpu_row(what, users[d], 0, in, out, wts, SKEL_FLOAT, SKEL_EDGE_DUPLICATE, peak, copy, taps, 4);
        }
    }
    if (shapes_too) {
        static const char *en[3] = { "const", "cyclic", "dup" };
        skel_vec *i2, *o2;
        double w64[225];
        int32_t w32[225];
        printf("# 15x15 floats against other shapes, types and edges (tiling 0)\n");
        for (k = 0; k < 3; ++k) {
            char what[32];
            weights(7, 7, 0, wts, SKEL_FLOAT);
            snprintf(what, sizeof what, "15x15/%s", en[k]);
            gpu_row(what, cv7, 0, in, out, wts, SKEL_FLOAT, k, peak, copy, 225, 4);
        }
        weights(7, 7, 1, wts, SKEL_FLOAT);
        gpu_row("15x15/sep", cv7, 0, in, out, wts, SKEL_FLOAT, SKEL_EDGE_DUPLICATE, peak, copy, 225, 4);
        weights(3, 15, 0, wts, SKEL_FLOAT);
        gpu_row("7x31", cv_7x31, 0, in, out, wts, SKEL_FLOAT, SKEL_EDGE_DUPLICATE, peak, copy, 7 * 31, 4);
        weights(15, 3, 0, wts, SKEL_FLOAT);
        gpu_row("31x7", cv_31x7, 0, in, out, wts, SKEL_FLOAT, SKEL_EDGE_DUPLICATE, peak, copy, 7 * 31, 4);
        check(skel_mat_new(&i2, SKEL_INT32, (size_t)n, (size_t)n), "in");
        check(skel_mat_new(&o2, SKEL_INT32, (size_t)n, (size_t)n), "out");
        fill(i2, SKEL_INT32);
        weights(7, 7, 0, w32, SKEL_INT32);
        gpu_row("15x15/i32", cv_i32, 0, i2, o2, w32, SKEL_INT32, SKEL_EDGE_DUPLICATE, peak, copy, 225, 4);
        skel_free(i2); skel_free(o2);
        check(skel_mat_new(&i2, SKEL_DOUBLE, (size_t)n, (size_t)n), "in");
        check(skel_mat_new(&o2, SKEL_DOUBLE, (size_t)n, (size_t)n), "out");
        fill(i2, SKEL_DOUBLE);
        weights(7, 7, 0, w64, SKEL_DOUBLE);
        gpu_row("15x15/f64", cv_f64, 0, i2, o2, w64, SKEL_DOUBLE, SKEL_EDGE_DUPLICATE, peak, copy, 225, 8);
        skel_free(i2); skel_free(o2);
    }
    skel_free(in);
    skel_free(out);
}

/* ======================================================================
   CPU: skel against hand-vectorised loops
   ====================================================================== */
#if defined(__AVX512F__)
#define VW 16
typedef __m512 vf;
#define VLOAD(p) _mm512_loadu_ps(p)
#define VSTORE(p, v) _mm512_storeu_ps(p, v)
#define VSET1(x) _mm512_set1_ps(x)
#define VFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VZERO() _mm512_setzero_ps()
#define VADD(a, b) _mm512_add_ps(a, b)
#elif defined(__AVX2__) && defined(__FMA__)
#define VW 8
typedef __m256 vf;
#define VLOAD(p) _mm256_loadu_ps(p)
#define VSTORE(p, v) _mm256_storeu_ps(p, v)
#define VSET1(x) _mm256_set1_ps(x)
#define VFMA(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VZERO() _mm256_setzero_ps()
#define VADD(a, b) _mm256_add_ps(a, b)
#endif

#ifdef VW
/* Hand loop 1: one output row, 4 vectors of outputs held in registers over
   every tap (a broadcast weight, 4 unaligned loads, 4 FMAs a tap).  P is
   the input padded by the edge policy, (n + 2d) x (n + 2d). */
static void hand1(float *out, const float *P, const float *w, int d)
{
    int N = n, PC = n + 2 * d, W = 2 * d + 1;
    long r;
#pragma omp parallel for schedule(static)
    for (r = 0; r < N; ++r) {
        int c, y, x, k;
        for (c = 0; c + 4 * VW <= N; c += 4 * VW) {
            vf a0 = VZERO(), a1 = VZERO(), a2 = VZERO(), a3 = VZERO();
            for (y = 0; y < W; ++y) {
                const float *q = P + (r + y) * PC + c;
                for (x = 0; x < W; ++x) {
                    vf wv = VSET1(w[y * W + x]);
                    a0 = VFMA(wv, VLOAD(q + x), a0);
                    a1 = VFMA(wv, VLOAD(q + x + VW), a1);
                    a2 = VFMA(wv, VLOAD(q + x + 2 * VW), a2);
                    a3 = VFMA(wv, VLOAD(q + x + 3 * VW), a3);
                }
            }
            VSTORE(out + r * N + c, a0); VSTORE(out + r * N + c + VW, a1);
            VSTORE(out + r * N + c + 2 * VW, a2); VSTORE(out + r * N + c + 3 * VW, a3);
        }
        for (; c < N; ++c) {
            float s = 0;
            for (y = 0; y < W; ++y)
                for (k = 0; k < W; ++k) s += w[y * W + k] * P[(r + y) * PC + c + k];
            out[r * N + c] = s;
        }
    }
}

/* Hand loop 2: two output rows of 4 vectors each; every input row's vector
   feeds both rows (their window rows y and y - 1): half the loads.  KEEP
   holds each loaded vector in a register: otherwise GCC folds the load
   into both rows' FMAs as a memory operand and loads it twice (2-vCPU AMD
   EPYC, 2 rows x 2 vectors: 106-119 GFLOP/s from 7x7 to 15x15 folded). */
#define KEEP(v) __asm__("" : "+v"(v))
static void hand2(float *out, const float *P, const float *w, int d)
{
    int N = n, PC = n + 2 * d, W = 2 * d + 1;
    long r;
#pragma omp parallel for schedule(static)
    for (r = 0; r < N; r += 2) {
        int c, y, x, k, rr;
        for (c = 0; c + 4 * VW <= N; c += 4 * VW) {
            vf a0 = VZERO(), a1 = VZERO(), a2 = VZERO(), a3 = VZERO();
            vf b0 = VZERO(), b1 = VZERO(), b2 = VZERO(), b3 = VZERO();
            for (y = 0; y <= W; ++y) {
                const float *q = P + (r + y) * PC + c;
                for (x = 0; x < W; ++x) {
                    vf u0 = VLOAD(q + x), u1 = VLOAD(q + x + VW), u2 = VLOAD(q + x + 2 * VW), u3 = VLOAD(q + x + 3 * VW);
                    KEEP(u0); KEEP(u1); KEEP(u2); KEEP(u3);
                    if (y < W) {
                        vf wv = VSET1(w[y * W + x]);
                        a0 = VFMA(wv, u0, a0); a1 = VFMA(wv, u1, a1); a2 = VFMA(wv, u2, a2); a3 = VFMA(wv, u3, a3);
                    }
                    if (y > 0) {
                        vf wv = VSET1(w[(y - 1) * W + x]);
                        b0 = VFMA(wv, u0, b0); b1 = VFMA(wv, u1, b1); b2 = VFMA(wv, u2, b2); b3 = VFMA(wv, u3, b3);
                    }
                }
            }
            VSTORE(out + r * N + c, a0); VSTORE(out + r * N + c + VW, a1);
            VSTORE(out + r * N + c + 2 * VW, a2); VSTORE(out + r * N + c + 3 * VW, a3);
            VSTORE(out + (r + 1) * N + c, b0); VSTORE(out + (r + 1) * N + c + VW, b1);
            VSTORE(out + (r + 1) * N + c + 2 * VW, b2); VSTORE(out + (r + 1) * N + c + 3 * VW, b3);
        }
        for (rr = 0; rr < 2; ++rr)
            for (k = c; k < N; ++k) {
                float s = 0;
                for (y = 0; y < W; ++y)
                    for (x = 0; x < W; ++x) s += w[y * W + x] * P[(r + rr + y) * PC + k + x];
                out[(r + rr) * N + k] = s;
            }
    }
}

/* The machine's vector fp32 peak: independent FMA chains on every thread. */
static double cpu_peak(int nth)
{
    double best = 0;
    int rep;
    for (rep = 0; rep < 3; ++rep) {
        double t0 = bench_now(), t;
        long it = 20000000;
#pragma omp parallel num_threads(nth)
        {
            vf a[10], m = VSET1(0.999f), c = VSET1(1e-3f);
            long i;
            int k;
            for (k = 0; k < 10; ++k) a[k] = VSET1((float)k);
            for (i = 0; i < it; ++i)
                for (k = 0; k < 10; ++k) a[k] = VFMA(a[k], m, c);
            {
                float s[VW];
                vf z = a[0];
                for (k = 1; k < 10; ++k) z = VADD(z, a[k]);
                VSTORE(s, z);
                bench_sink(s[0]);
            }
        }
        t = bench_now() - t0;
        if (2.0 * VW * 10 * (double)it * nth / t > best) best = 2.0 * VW * 10 * (double)it * nth / t;
    }
    return best * 1e-9;
}
#endif

static void cpu(void)
{
#if !defined(VW) || !defined(_OPENMP)
    fprintf(stderr, "cpu: needs AVX2+FMA or AVX-512 (-march=native) and OpenMP for the hand loops\n");
    exit(1);
#else
    int nth = threads ? threads : omp_get_max_threads(), d;
    double peak = cpu_peak(nth);
    if (!backend) backend = "pool";
    skel_vec *in, *out;
    float *P, *ho = (float *)malloc((size_t)n * n * 4);
    check(skel_mat_new(&in, SKEL_FLOAT, (size_t)n, (size_t)n), "in");
    check(skel_mat_new(&out, SKEL_FLOAT, (size_t)n, (size_t)n), "out");
    fill(in, SKEL_FLOAT);
    omp_set_num_threads(nth);
    printf("# %d x %d floats, skel's %s backend, %d threads, vector fp32 peak %.1f GFLOP/s (measured: %d-wide FMAs "
           "on every thread)\n", n, n, backend, nth, peak, VW);
    printf("%-8s %9s %9s %9s %7s %7s %7s\n", "filter", "skel", "hand1", "hand2", "%peak", "/hand", "ms");
    for (d = lo / 2; d <= hi / 2 && d <= 15; ++d) {
        skel_plan *p = plan_for(backend, nth, 0, 0);
        int PC = n + 2 * d, k, rep, r = reps ? reps : 3;
        double ts[16], t1[16], t2[16], taps = (double)(2 * d + 1) * (2 * d + 1), fl, s, h1, h2;
        const float *a = (const float *)skel_read(in);
        skel_call c;
        if (d < 1) continue;
        weights(d, d, 0, wts, SKEL_FLOAT);
        P = (float *)malloc((size_t)PC * PC * 4);
        for (k = 0; k < PC * PC; ++k) {   /* padded by duplication */
            int y = k / PC - d, x = k % PC - d;
            y = y < 0 ? 0 : y >= n ? n - 1 : y;
            x = x < 0 ? 0 : x >= n ? n - 1 : x;
            P[k] = a[(size_t)y * n + x];
        }
        memset(&c, 0, sizeof c);
        c.in[0] = in; c.out = out; c.weights = wts; c.edge = SKEL_EDGE_DUPLICATE;
        check(skel_set_plan(convs[d], p), "plan");
        check(skel_run(convs[d], &c), "warm up");
        hand1(ho, P, wts, d);
        for (rep = 0; rep < r && rep < 16; ++rep) {   /* interleaved */
            double t0 = bench_now();
            check(skel_run(convs[d], &c), "conv");
            ts[rep] = bench_now() - t0;
            t0 = bench_now();
            hand1(ho, P, wts, d);
            t1[rep] = bench_now() - t0;
            t0 = bench_now();
            hand2(ho, P, wts, d);
            t2[rep] = bench_now() - t0;
        }
        verify("cpu", in, out, wts, d, d, SKEL_FLOAT, SKEL_EDGE_DUPLICATE);
        if (memcmp(ho + (size_t)(n / 2) * n, (const float *)skel_read(out) + (size_t)(n / 2) * n, (size_t)n * 4)) {
            fprintf(stderr, "hand loop and skel differ\n");
            exit(2);
        }
        fl = 2.0 * taps * (double)n * n * 1e-9;
        s = fl / bench_median(ts, rep);
        h1 = fl / bench_median(t1, rep);
        h2 = fl / bench_median(t2, rep);
        printf("%3dx%-4d %9.1f %9.1f %9.1f %6.1f%% %7.2f %7.1f\n", 2 * d + 1, 2 * d + 1, s, h1, h2, 100 * s / peak,
               s / (h1 > h2 ? h1 : h2), 1e3 * bench_median(ts, rep));
        fflush(stdout);
        skel_set_plan(convs[d], NULL);
        skel_plan_free(p);
        free(P);
    }
    skel_free(in);
    skel_free(out);
    free(ho);
#endif
}

/* ======================================================================
   the tiling metric for reference devices (no GPU)
   ====================================================================== */
static void factors(void)
{
    static const int archs[2] = { 80, 90 };
    static const char *names[2] = { "sm_80 (A100 limits: 108 SMs, 64K registers, 164 KiB shared memory an SM)",
                                    "sm_90 (H100 limits: 132 SMs, 64K registers, 228 KiB shared memory an SM)" };
    int a, d, k;
    for (a = 0; a < 2; ++a) {
        printf("## %s, block %d, floats\n", names[a], block ? block : 256);
        for (d = lo / 2; d <= hi / 2 && d <= 15; ++d)
            for (k = 0; k < ntilings; ++k) {
                _skel_kernel_opts o;
                _skel_ov2_cand c;
                char why[1024];
                if (d < 1) continue;
                memset(&o, 0, sizeof o);
                _skel_gpu_ref_limits(archs[a], &o);
                o.block = block ? block : 256;
                o.local_mem = 49152;
                o.tiling = tilings[k];
                if (_skel_ov2_tiling(convs[d], &o, 4, &c, why, sizeof why) < 0 && !why[0])
                    snprintf(why, sizeof why, "the shared-memory tile");
                printf("%2dx%-2d tiling %d: %s\n", 2 * d + 1, 2 * d + 1, tilings[k], why);
            }
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int i;
    for (i = 2; i < argc; ++i) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--lo") == 0 && i + 1 < argc) lo = atoi(argv[++i]);
        else if (strcmp(argv[i], "--hi") == 0 && i + 1 < argc) hi = atoi(argv[++i]);
        else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc) block = atoi(argv[++i]);
        else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) threads = atoi(argv[++i]);
        else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend = argv[++i];
        else if (strcmp(argv[i], "--user") == 0) user = 1;
        else if (strcmp(argv[i], "--shapes") == 0) shapes_too = 1;
        else if (strcmp(argv[i], "--tilings") == 0 && i + 1 < argc) {
            char *s = argv[++i];
            for (ntilings = 0; *s && ntilings < 16;) {
                tilings[ntilings++] = (int)strtol(s, &s, 10);
                if (*s == ',') ++s;
            }
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (n < 64 || lo < 1 || hi > 31) { fprintf(stderr, "--n >= 64, 1 <= lo <= hi <= 31\n"); return 1; }
    if (strcmp(mode, "gpu") == 0) gpu();
    else if (strcmp(mode, "cpu") == 0) cpu();
    else if (strcmp(mode, "factors") == 0) factors();
    else {
        fprintf(stderr, "usage: %s gpu|cpu|factors [options] (see the top of bench/conv2d.c)\n", argv[0]);
        return 1;
    }
    return 0;
}
