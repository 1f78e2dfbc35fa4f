/* peers.h - the kernels of bench/peers.c, shared by its baselines.

   Every baseline (the hand-written C and OpenMP loops in peers.c, TBB in
   peers_tbb.cpp, Thrust in peers_thrust.cpp, Kokkos in peers_kokkos.cpp)
   calls the same range functions below inside its own parallel construct,
   so the baselines differ only in how they split and schedule the work:
       saxpy    y = a*x + y, in place                     12 B/element
       sum      s = x[0] + .. + x[n-1]                     4 B/element
       dot      s = x[0]*y[0] + ..                         8 B/element
       scan     r[i] = x[0] + .. + x[i]                    8 B/element
       stencil  r[i] = 5-point weighted sum, 0 outside     8 B/element
       conv     5x5 weighted sum on a rows x cols matrix, 0 outside
   The reductions vectorise with `omp simd reduction` (-fopenmp or
   -fopenmp-simd), the strongest loop a C or C++ programmer would write. */
#ifndef PEERS_H
#define PEERS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One baseline library.  A NULL kernel is not measured. */
typedef struct peer_ops {
    const char *name;
    void (*init)(int threads);          /* once, before any kernel */
    void (*saxpy)(size_t n, float a, const float *x, float *y);
    float (*sum)(size_t n, const float *x);
    float (*dot)(size_t n, const float *x, const float *y);
    void (*scan)(size_t n, const float *x, float *r);
    void (*stencil)(size_t n, const float *x, float *r);
    void (*conv)(size_t rows, size_t cols, const float *x, float *r);
} peer_ops;

const peer_ops *peer_tbb(void);         /* parallel, `threads` workers */
const peer_ops *peer_thrust(void);      /* Thrust's OpenMP system, omp_set_num_threads */
const peer_ops *peer_kokkos(void);      /* Kokkos::Serial */

#ifdef __cplusplus
}
#endif

/* the 1-D stencil's and the 5x5 convolution's weights */
#define PEER_ST(a, i) (a[(i) - 2] * 0.1f + a[(i) - 1] * 0.2f + a[i] * 0.4f + a[(i) + 1] * 0.2f + a[(i) + 2] * 0.1f)
static const float peer_w5[25] = { 0.01f, 0.02f, 0.03f, 0.02f, 0.01f, 0.02f, 0.04f, 0.06f, 0.04f, 0.02f,
                                   0.03f, 0.06f, 0.20f, 0.06f, 0.03f, 0.02f, 0.04f, 0.06f, 0.04f, 0.02f,
                                   0.01f, 0.02f, 0.03f, 0.02f, 0.01f };

static inline void peer_saxpy_range(float a, const float *x, float *y, size_t lo, size_t hi)
{
    size_t i;
    for (i = lo; i < hi; ++i) y[i] = a * x[i] + y[i];
}

static inline float peer_sum_range(const float *x, size_t lo, size_t hi)
{
    float s = 0;
    size_t i;
    _Pragma("omp simd reduction(+:s)")
    for (i = lo; i < hi; ++i) s += x[i];
    return s;
}

static inline float peer_dot_range(const float *x, const float *y, size_t lo, size_t hi)
{
    float s = 0;
    size_t i;
    _Pragma("omp simd reduction(+:s)")
    for (i = lo; i < hi; ++i) s += x[i] * y[i];
    return s;
}

/* r[lo..hi) = carry + the running sum of x[lo..hi); returns the last */
static inline float peer_scan_range(const float *x, float *r, size_t lo, size_t hi, float carry)
{
    size_t i;
    for (i = lo; i < hi; ++i) { carry += x[i]; r[i] = carry; }
    return carry;
}

static inline float peer_st_edge(const float *x, size_t n, size_t i)
{
    float s = 0;
    int k;
    static const float w[5] = { 0.1f, 0.2f, 0.4f, 0.2f, 0.1f };
    for (k = -2; k <= 2; ++k) {
        long j = (long)i + k;
        float v = j >= 0 && (size_t)j < n ? x[j] : 0.0f;
        s = k == -2 ? v * w[0] : s + v * w[k + 2];
    }
    return s;
}

/* one element of the stencil, for per-element APIs (Thrust, Kokkos) */
static inline float peer_st_at(const float *x, size_t n, size_t i)
{
    return i >= 2 && i + 2 < n ? PEER_ST(x, i) : peer_st_edge(x, n, i);
}

static inline void peer_stencil_range(const float *x, float *r, size_t n, size_t lo, size_t hi)
{
    size_t i = lo, a = n < 2 ? n : 2, b = n > 2 ? n - 2 : 0;
    for (; i < hi && i < a; ++i) r[i] = peer_st_edge(x, n, i);
    for (; i < hi && i < b; ++i) r[i] = PEER_ST(x, i);
    for (; i < hi; ++i) r[i] = peer_st_edge(x, n, i);
}

static inline float peer_conv_edge(const float *x, size_t R, size_t C, size_t r, size_t c)
{
    float s = 0;
    int y, k;
    for (y = -2; y <= 2; ++y)
        for (k = -2; k <= 2; ++k) {
            long rr = (long)r + y, cc = (long)c + k;
            float v = rr >= 0 && (size_t)rr < R && cc >= 0 && (size_t)cc < C ? x[(size_t)rr * C + (size_t)cc] : 0.0f;
            s += peer_w5[(y + 2) * 5 + k + 2] * v;
        }
    return s;
}

/* rows [rlo, rhi) of the 5x5 convolution; interior elements in one loop */
static inline void peer_conv_rows(const float *x, float *out, size_t R, size_t C, size_t rlo, size_t rhi)
{
    size_t r, c;
    for (r = rlo; r < rhi; ++r) {
        int inner = r >= 2 && r + 2 < R;
        for (c = 0; c < C; ++c) {
            if (inner && c >= 2 && c + 2 < C) {
                for (; c + 2 < C; ++c) {
                    const float *a = x + r * C + c;
                    float s = 0;
                    int y, k;
                    for (y = -2; y <= 2; ++y)
                        for (k = -2; k <= 2; ++k) s += peer_w5[(y + 2) * 5 + k + 2] * a[(long)y * (long)C + k];
                    out[r * C + c] = s;
                }
                if (c >= C) break;
            }
            out[r * C + c] = peer_conv_edge(x, R, C, r, c);
        }
    }
}

#endif /* PEERS_H */
