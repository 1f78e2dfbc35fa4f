/* 2D MapOverlap with wide windows (issue 29): every window half-width 0..15
   in both directions (so every odd window size 1..31, non-square windows
   with dR != dC, and 31 x 31), the weighted sum SKEL_CONV2D in float,
   double, int32 and int64, user functions with wide windows (weighted and
   not), every edge policy, matrices smaller than the window, 1 x n and
   n x 1, on every backend variant, and on the GPU backends under every
   tiling (the two metrics, no register tiling, each tiling factor),
   against a plain C loop; and #24's forms (index, views, uniform, 8/16-bit
   and struct elements) through the same CPU blocks.

   Inputs and weights are small integers, so every sum is exact in every
   element type and in any order: results must equal the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

/* every half-width as dR and as dC: (d, 15 - d) */
SKEL_CONV2D(cv00_15, float, 0, 15)
SKEL_CONV2D(cv01_14, float, 1, 14)
SKEL_CONV2D(cv02_13, float, 2, 13)
SKEL_CONV2D(cv03_12, float, 3, 12)
SKEL_CONV2D(cv04_11, float, 4, 11)
SKEL_CONV2D(cv05_10, float, 5, 10)
SKEL_CONV2D(cv06_09, float, 6, 9)
SKEL_CONV2D(cv07_08, float, 7, 8)
SKEL_CONV2D(cv08_07, float, 8, 7)
SKEL_CONV2D(cv09_06, float, 9, 6)
SKEL_CONV2D(cv10_05, float, 10, 5)
SKEL_CONV2D(cv11_04, float, 11, 4)
SKEL_CONV2D(cv12_03, float, 12, 3)
SKEL_CONV2D(cv13_02, float, 13, 2)
SKEL_CONV2D(cv14_01, float, 14, 1)
SKEL_CONV2D(cv15_00, float, 15, 0)
SKEL_CONV2D(cv15_15, float, 15, 15)
SKEL_CONV2D(cvi32, int32_t, 5, 3)
SKEL_CONV2D(cvf64, double, 4, 6)
SKEL_CONV2D(cvi64, int64_t, 7, 2)
/* user functions: a weighted sum plus the centre, and a sum with weights
   of its own (the reference computes the same: wuser_w, uuser_w) */
SKEL_FUNC(float, wuser, (const float *a, skel_index s, const float *w),
          float t = 0; int y, x;
          for (y = -5; y <= 5; ++y) for (x = -4; x <= 4; ++x) t += w[y * 9 + x] * a[y * s + x];
          return t + a[0];)
SKEL_FUNC(float, uuser, (const float *a, skel_index s),
          float t = 0; int y, x;
          for (y = -6; y <= 6; ++y) for (x = -6; x <= 6; ++x) t += (float)((y * 7 + x * 3 + 100) % 5 - 2) * a[y * s + x];
          return t;)
SKEL_OVERLAP2D_EX(ov_wuser, wuser, float, 5, 4, SKEL_WEIGHTED, SKEL_NO_UNIFORM)
SKEL_OVERLAP2D(ov_uuser, uuser, float, 6, 6)
/* #24's forms (index, views, uniform, 8/16-bit and struct elements): see
   conv2d_forms_through_every_block */
SKEL_FUNC(float, fflat, (skel_index i, const float *a, skel_index s, const float *w, skel_view_float v, float u),
          float t = 0; int y, x;
          for (y = -3; y <= 3; ++y) for (x = -9; x <= 9; ++x) t += w[y * 19 + x] * a[y * s + x];
          return t + u * (float)(i % 7) + SKEL_AT(v, i % v.size);)
SKEL_FUNC(float, frc, (skel_index r, skel_index c, const float *a, skel_index s),
          return a[0] + a[-s] * (float)r - a[s + 1] * (float)(c % 64);)
SKEL_STRUCT(cx2, float re; float im;)
SKEL_FUNC(cx2, fcx, (const cx2 *a, skel_index s),
          cx2 r; r.re = a[-s].re + a[s].re - a[-1].im; r.im = 2 * a[1].im + a[-2].re; return r;)
SKEL_OVERLAP2D_X(ov_flat, fflat, float, 3, 9, SKEL_WEIGHTED, SKEL_INDEX, SKEL_VIEWS(float), SKEL_UNIFORM(float))
SKEL_OVERLAP2D_X(ov_rc, frc, float, 1, 1, SKEL_UNWEIGHTED, SKEL_INDEX2D, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
SKEL_OVERLAP2D(ov_cx, fcx, cx2, 1, 2)
SKEL_CONV2D(cvi8, int8_t, 1, 2)
SKEL_CONV2D(cvu16, uint16_t, 4, 4)

enum { K_CONV, K_WUSER, K_UUSER };
typedef struct cv_inst {
    skel_skeleton *sk;
    skel_type t;
    int kind, all_tilings;      /* all_tilings: every tiling on the GPU backends, else the default
                                   (each tiling is a kernel to compile: NVRTC takes ~2 s, twice in
                                   the CI's sm_80/sm_90 compile check) */
} cv_inst;
static const cv_inst insts[] = {
    { cv00_15, SKEL_FLOAT, K_CONV, 0 }, { cv01_14, SKEL_FLOAT, K_CONV, 0 }, { cv02_13, SKEL_FLOAT, K_CONV, 0 },
    { cv03_12, SKEL_FLOAT, K_CONV, 0 }, { cv04_11, SKEL_FLOAT, K_CONV, 0 }, { cv05_10, SKEL_FLOAT, K_CONV, 0 },
    { cv06_09, SKEL_FLOAT, K_CONV, 0 }, { cv07_08, SKEL_FLOAT, K_CONV, 1 }, { cv08_07, SKEL_FLOAT, K_CONV, 0 },
    { cv09_06, SKEL_FLOAT, K_CONV, 0 }, { cv10_05, SKEL_FLOAT, K_CONV, 0 }, { cv11_04, SKEL_FLOAT, K_CONV, 0 },
    { cv12_03, SKEL_FLOAT, K_CONV, 0 }, { cv13_02, SKEL_FLOAT, K_CONV, 0 }, { cv14_01, SKEL_FLOAT, K_CONV, 0 },
    { cv15_00, SKEL_FLOAT, K_CONV, 0 }, { cv15_15, SKEL_FLOAT, K_CONV, 0 }, { cvi32, SKEL_INT32, K_CONV, 0 },
    { cvf64, SKEL_DOUBLE, K_CONV, 1 }, { cvi64, SKEL_INT64, K_CONV, 0 }, { ov_wuser, SKEL_FLOAT, K_WUSER, 0 },
    { ov_uuser, SKEL_FLOAT, K_UUSER, 0 },
};
#define NINSTS (int)(sizeof insts / sizeof insts[0])

/* the weight at window offset (y, x) of a user function with its own */
static double uuser_w(int y, int x) { return (double)((y * 7 + x * 3 + 100) % 5 - 2); }

static long long edge_at(long long i, long long n, int edge)
{
    if (i >= 0 && i < n) return i;
    if (edge == SKEL_EDGE_CYCLIC) return ((i % n) + n) % n;
    if (edge == SKEL_EDGE_DUPLICATE) return i < 0 ? 0 : n - 1;
    return -1;
}

/* values as the element type (every value is a small integer) */
static void to_type(skel_type t, const double *src, void *dst, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) switch (t) {
        case SKEL_FLOAT: ((float *)dst)[i] = (float)src[i]; break;
        case SKEL_DOUBLE: ((double *)dst)[i] = src[i]; break;
        case SKEL_INT32: ((int32_t *)dst)[i] = (int32_t)src[i]; break;
        default: ((int64_t *)dst)[i] = (int64_t)src[i]; break;
        }
}
static double from_type(skel_type t, const void *p, size_t i)
{
    switch (t) {
    case SKEL_FLOAT: return ((const float *)p)[i];
    case SKEL_DOUBLE: return ((const double *)p)[i];
    case SKEL_INT32: return ((const int32_t *)p)[i];
    default: return (double)((const int64_t *)p)[i];
    }
}

/* The data of one shape and edge policy: input, weights (small random
   integers) and the plain C loop's result, shared by every variant. */
typedef struct cv_data {
    size_t R, C;
    int edge;
    double *h, *w, *ref, ev;
} cv_data;

static void make_data(const cv_inst *in, size_t R, size_t C, int edge, uint64_t seed, cv_data *d)
{
    int dr = in->sk->dr, dc = in->sk->dc, W = 2 * dc + 1, y, x;
    size_t n = R * C, nw = (size_t)(2 * dr + 1) * (size_t)W, PC = C + 2 * (size_t)dc, i, r, c;
    double *pad = (double *)malloc((R + 2 * (size_t)dr) * PC * sizeof *pad);
    d->R = R; d->C = C; d->edge = edge; d->ev = 5;
    d->h = (double *)malloc(n * sizeof *d->h);
    d->w = (double *)malloc(nw * sizeof *d->w);
    d->ref = (double *)malloc(n * sizeof *d->ref);
    ST_CHECK(pad && d->h && d->w && d->ref);
    for (i = 0; i < n; ++i) d->h[i] = (double)st_rand_int(&seed, -8, 8);
    for (i = 0; i < nw; ++i) d->w[i] = (double)st_rand_int(&seed, -3, 3);
    /* the input padded by the edge policy, then the window sums */
    for (r = 0; r < R + 2 * (size_t)dr; ++r)
        for (c = 0; c < PC; ++c) {
            long long ar = edge_at((long long)r - dr, (long long)R, edge), ac = edge_at((long long)c - dc, (long long)C, edge);
            pad[r * PC + c] = ar < 0 || ac < 0 ? d->ev : d->h[(size_t)ar * C + (size_t)ac];
        }
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) {
            double s = in->kind == K_WUSER ? d->h[r * C + c] : 0;
            for (y = 0; y <= 2 * dr; ++y)
                for (x = 0; x < W; ++x)
                    s += (in->kind == K_UUSER ? uuser_w(y - dr, x - dc) : d->w[(size_t)y * (size_t)W + (size_t)x]) *
                         pad[(r + (size_t)y) * PC + c + (size_t)x];
            d->ref[r * C + c] = s;
        }
    free(pad);
}

static void free_data(cv_data *d) { free(d->h); free(d->w); free(d->ref); }

/* One call of inst on d under the instance's current plan, against d->ref. */
static void run_case(const cv_inst *in, const cv_data *d)
{
    size_t n = d->R * d->C, nw = (size_t)(2 * in->sk->dr + 1) * (size_t)(2 * in->sk->dc + 1), i, bad = 0;
    size_t esz = skel_type_get(in->t)->size;
    unsigned char *th = (unsigned char *)malloc(n * esz), *tw = (unsigned char *)malloc(nw * esz), tev[8];
    skel_vec *a = NULL, *o = NULL;
    const void *got;
    skel_call call;
    ST_CHECK(th && tw);
    to_type(in->t, d->h, th, n);
    to_type(in->t, d->w, tw, nw);
    to_type(in->t, &d->ev, tev, 1);
    ST_OK(skel_mat_new_copy(&a, in->t, d->R, d->C, th));
    ST_OK(skel_mat_new(&o, in->t, d->R, d->C));
    memset(&call, 0, sizeof call);
    call.in[0] = a;
    call.out = o;
    call.edge = (skel_edge)d->edge;
    call.edge_value = d->edge == SKEL_EDGE_CONSTANT ? tev : NULL;
    if (in->kind != K_UUSER) call.weights = tw;
    ST_OK(skel_run(in->sk, &call));
    ST_CHECK((got = skel_read(o)) != NULL);
    for (i = 0; i < n; ++i)
        if (from_type(in->t, got, i) != d->ref[i] && bad++ == 0)
            printf("  %s %zux%zu edge %d: out[%zu][%zu] = %g, want %g\n", in->sk->name, d->R, d->C, d->edge,
                   i / d->C, i % d->C, from_type(in->t, got, i), d->ref[i]);
    if (bad) ST_FAIL("%s %zux%zu edge %d: %zu of %zu outputs wrong", in->sk->name, d->R, d->C, d->edge, bad, n);
    skel_free(a);
    skel_free(o);
    free(th);
    free(tw);
}

/* The shapes a window of dr x dc runs on: as small as the overlap allows
   (smaller than the window), the window's own size, 1 x n / n x 1 where
   the window allows them, a few tiles with edges everywhere, and matrices
   with interior GPU tiles (rows of whole 16-byte pieces or not). */
static int shapes(int dr, int dc, size_t out[][2])
{
    int k = 0;
    out[k][0] = dr ? (size_t)dr : 1; out[k++][1] = dc ? (size_t)dc : 1;
    out[k][0] = (size_t)(2 * dr + 1); out[k++][1] = (size_t)(2 * dc + 2);
    if (dr <= 1) { out[k][0] = 1; out[k++][1] = 257; }
    if (dc <= 1) { out[k][0] = 257; out[k++][1] = 1; }
    out[k][0] = 37; out[k++][1] = 131;
    out[k][0] = 150; out[k++][1] = 600;
    out[k][0] = 149; out[k++][1] = 301;
    return k;
}

/* the tilings a GPU backend runs an instance under */
static const int all_tilings[] = { SKEL_TILING_AUTO, SKEL_TILING_OCCUPANCY, SKEL_TILING_MAX, SKEL_TILING_SHARED,
                                   4, 8, 16, 32, 208, 216 };     /* cx + 100 cy */

static void run_inst(const cv_inst *in)
{
    size_t sh[8][2];
    int vi, k, e, t, ns = shapes(in->sk->dr, in->sk->dc, sh);
    for (k = 0; k < ns; ++k)
        for (e = SKEL_EDGE_CONSTANT; e <= SKEL_EDGE_DUPLICATE; ++e) {
            cv_data d;
            make_data(in, sh[k][0], sh[k][1], e, st_seed(in->sk->name, (size_t)k * 3 + (size_t)e, 0), &d);
            for (vi = 0; vi < st_variant_count(); ++vi) {
                const st_variant *sv = st_variant_get(vi);
                int gpu = strcmp(sv->v.backend, "cuda") == 0 || strcmp(sv->v.backend, "opencl") == 0 ||
                          strcmp(sv->v.backend, "cuda-check") == 0;     /* (CI's sm_80/sm_90 compile check) */
                int nt = gpu && in->all_tilings ? (int)(sizeof all_tilings / sizeof all_tilings[0]) : 1;
                for (t = 0; t < nt; ++t) {
                    skel_plan *p = NULL;
                    skel_variant v = sv->v;
                    v.tiling = all_tilings[t];
                    ST_OK(skel_plan_new(&p));
                    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v));
                    ST_OK(skel_set_plan(in->sk, p));
                    st_context("%s on %s, tiling %d, %zux%zu, edge %d", in->sk->name, sv->label, v.tiling, sh[k][0],
                               sh[k][1], e);
                    run_case(in, &d);
                    skel_set_plan(in->sk, NULL);
                    skel_plan_free(p);
                }
            }
            free_data(&d);
        }
    st_context("");
}

SKEL_TEST(conv2d_every_window_width_non_square)
{
    int i;
    for (i = 0; i < NINSTS; ++i)
        if (insts[i].t == SKEL_FLOAT && insts[i].kind == K_CONV && insts[i].sk != cv15_15) run_inst(&insts[i]);
}

SKEL_TEST(conv2d_31x31_int_double_int64)
{
    int i;
    for (i = 0; i < NINSTS; ++i)
        if (insts[i].sk == cv15_15 || insts[i].t != SKEL_FLOAT) run_inst(&insts[i]);
}

SKEL_TEST(conv2d_wide_user_functions)
{
    int i;
    for (i = 0; i < NINSTS; ++i)
        if (insts[i].kind != K_CONV) run_inst(&insts[i]);
}

/* A window wider than the matrix along a dimension is refused before
   anything runs, the same on every backend. */
SKEL_TEST(conv2d_window_wider_than_the_matrix_is_refused)
{
    int vi;
    float h[14 * 3], wt[31 * 31];
    skel_vec *a = NULL, *o = NULL;
    skel_call call;
    memset(h, 0, sizeof h);
    memset(wt, 0, sizeof wt);
    ST_OK(skel_mat_new_copy(&a, SKEL_FLOAT, 14, 3, h));
    ST_OK(skel_mat_new(&o, SKEL_FLOAT, 14, 3));
    memset(&call, 0, sizeof call);
    call.in[0] = a;
    call.out = o;
    call.weights = wt;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(cv15_15, vi);
        ST_EQ_INT(skel_run(cv15_15, &call), SKEL_ESIZE);
    }
    st_context("");
    skel_set_plan(cv15_15, NULL);
    skel_free(a);
    skel_free(o);
}

/* #24's forms through the CPU's blocks (interior blocks in place, edge
   blocks on a padded copy, rows of more than _SKEL_OV2_COLS bytes split)
   and the GPU templates: the flat index, a view and a uniform with a wide
   weighted window; (row, col); struct elements; 8- and 16-bit weighted
   sums.  Small integers: every result is exact; each against a plain loop
   over the edge-padded input, on every variant and edge policy. */
static long long at2(long long r, long long c, size_t R, size_t C, int edge)
{
    long long ar = edge_at(r, (long long)R, edge), ac = edge_at(c, (long long)C, edge);
    return ar < 0 || ac < 0 ? -1 : ar * (long long)C + ac;
}

static void forms_case(int vi, int edge, size_t R, size_t C)
{
    uint64_t sd = st_seed("conv2d-forms", R * 7 + (size_t)edge, (size_t)vi);
    size_t n = R * C, i, r, c, bad = 0;
    float *a = (float *)malloc(n * sizeof *a), w[7 * 19], v[13], u = 0.5f, ev = 5, *want = (float *)malloc(n * sizeof *want);
    cx2 *z = (cx2 *)malloc(n * sizeof *z), zev = { 5, -3 }, *zwant = (cx2 *)malloc(n * sizeof *zwant);
    int8_t *b8 = (int8_t *)malloc(n), w8[3 * 5], e8 = 5, *want8 = (int8_t *)malloc(n);
    uint16_t *b16 = (uint16_t *)malloc(n * 2), w16[9 * 9], e16 = 5, *want16 = (uint16_t *)malloc(n * 2);
    skel_vec *va, *vo, *vv, *vz, *vzo, *v8, *v8o, *v16, *v16o;
    skel_call call;
    const void *got;
    int y, x;
    ST_CHECK(a && want && z && zwant && b8 && want8 && b16 && want16);
    for (i = 0; i < n; ++i) {
        a[i] = (float)st_rand_int(&sd, -8, 8);
        z[i].re = (float)st_rand_int(&sd, -8, 8); z[i].im = (float)st_rand_int(&sd, -8, 8);
        b8[i] = (int8_t)st_rand_int(&sd, -2, 2);
        b16[i] = (uint16_t)st_rand_int(&sd, 0, 8);
    }
    for (i = 0; i < 7 * 19; ++i) w[i] = (float)st_rand_int(&sd, -3, 3);
    for (i = 0; i < 13; ++i) v[i] = (float)st_rand_int(&sd, -9, 9);
    for (i = 0; i < 15; ++i) w8[i] = (int8_t)st_rand_int(&sd, -1, 1);
    for (i = 0; i < 81; ++i) w16[i] = (uint16_t)st_rand_int(&sd, 0, 3);
    ST_OK(skel_mat_new_copy(&va, SKEL_FLOAT, R, C, a)); ST_OK(skel_mat_new(&vo, SKEL_FLOAT, R, C));
    ST_OK(skel_vec_new_copy(&vv, SKEL_FLOAT, 13, v));
    ST_OK(skel_mat_new_copy(&vz, SKEL_TYPE(cx2), R, C, z)); ST_OK(skel_mat_new(&vzo, SKEL_TYPE(cx2), R, C));
    ST_OK(skel_mat_new_copy(&v8, SKEL_INT8, R, C, b8)); ST_OK(skel_mat_new(&v8o, SKEL_INT8, R, C));
    ST_OK(skel_mat_new_copy(&v16, SKEL_UINT16, R, C, b16)); ST_OK(skel_mat_new(&v16o, SKEL_UINT16, R, C));
    st_use_variant(ov_flat, vi); st_use_variant(ov_rc, vi); st_use_variant(ov_cx, vi);
    st_use_variant(cvi8, vi); st_use_variant(cvu16, vi);
#define FA(rr, cc) (at2(rr, cc, R, C, edge) < 0 ? ev : a[at2(rr, cc, R, C, edge)])
    /* the flat index, a view, a uniform, 7 x 19 weights */
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) {
            float t = 0;
            i = r * C + c;
            for (y = -3; y <= 3; ++y)
                for (x = -9; x <= 9; ++x) t += w[(y + 3) * 19 + x + 9] * FA((long long)r + y, (long long)c + x);
            want[i] = t + u * (float)(i % 7) + v[i % 13];
        }
    memset(&call, 0, sizeof call);
    call.in[0] = va; call.out = vo; call.views[0] = vv; call.uniform = &u; call.weights = w;
    call.edge = (skel_edge)edge; call.edge_value = &ev;
    ST_OK(skel_run(ov_flat, &call));
    ST_CHECK((got = skel_read(vo)) != NULL);
    for (i = 0; i < n; ++i)
        if (((const float *)got)[i] != want[i] && bad++ == 0)
            printf("  ov_flat %zux%zu edge %d [%zu]: %g, want %g\n", R, C, edge, i, ((const float *)got)[i], want[i]);
    /* (row, col) */
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c)
            want[r * C + c] = FA((long long)r, (long long)c) + FA((long long)r - 1, (long long)c) * (float)r -
                              FA((long long)r + 1, (long long)c + 1) * (float)(c % 64);
    memset(&call, 0, sizeof call);
    call.in[0] = va; call.out = vo; call.edge = (skel_edge)edge; call.edge_value = &ev;
    ST_OK(skel_run(ov_rc, &call));
    ST_CHECK((got = skel_read(vo)) != NULL);
    for (i = 0; i < n; ++i)
        if (((const float *)got)[i] != want[i] && bad++ == 0)
            printf("  ov_rc %zux%zu edge %d [%zu]: %g, want %g\n", R, C, edge, i, ((const float *)got)[i], want[i]);
#undef FA
#define FZ(rr, cc) (at2(rr, cc, R, C, edge) < 0 ? zev : z[at2(rr, cc, R, C, edge)])
    /* struct elements */
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) {
            long long rr = (long long)r, cc = (long long)c;
            zwant[r * C + c].re = FZ(rr - 1, cc).re + FZ(rr + 1, cc).re - FZ(rr, cc - 1).im;
            zwant[r * C + c].im = 2 * FZ(rr, cc + 1).im + FZ(rr, cc - 2).re;
        }
#undef FZ
    memset(&call, 0, sizeof call);
    call.in[0] = vz; call.out = vzo; call.edge = (skel_edge)edge; call.edge_value = &zev;
    ST_OK(skel_run(ov_cx, &call));
    ST_CHECK((got = skel_read(vzo)) != NULL);
    for (i = 0; i < n; ++i)
        if ((((const cx2 *)got)[i].re != zwant[i].re || ((const cx2 *)got)[i].im != zwant[i].im) && bad++ == 0)
            printf("  ov_cx %zux%zu edge %d [%zu] wrong\n", R, C, edge, i);
    /* 8- and 16-bit weighted sums */
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) {
            int s8 = 0, s16 = 0;
            for (y = -1; y <= 1; ++y)
                for (x = -2; x <= 2; ++x) {
                    long long k = at2((long long)r + y, (long long)c + x, R, C, edge);
                    s8 += w8[(y + 1) * 5 + x + 2] * (k < 0 ? e8 : b8[k]);
                }
            for (y = -4; y <= 4; ++y)
                for (x = -4; x <= 4; ++x) {
                    long long k = at2((long long)r + y, (long long)c + x, R, C, edge);
                    s16 += w16[(y + 4) * 9 + x + 4] * (k < 0 ? e16 : b16[k]);
                }
            want8[r * C + c] = (int8_t)s8;
            want16[r * C + c] = (uint16_t)s16;
        }
    memset(&call, 0, sizeof call);
    call.in[0] = v8; call.out = v8o; call.weights = w8; call.edge = (skel_edge)edge; call.edge_value = &e8;
    ST_OK(skel_run(cvi8, &call));
    ST_CHECK((got = skel_read(v8o)) != NULL);
    for (i = 0; i < n; ++i)
        if (((const int8_t *)got)[i] != want8[i] && bad++ == 0)
            printf("  cvi8 %zux%zu edge %d [%zu]: %d, want %d\n", R, C, edge, i, ((const int8_t *)got)[i], want8[i]);
    memset(&call, 0, sizeof call);
    call.in[0] = v16; call.out = v16o; call.weights = w16; call.edge = (skel_edge)edge; call.edge_value = &e16;
    ST_OK(skel_run(cvu16, &call));
    ST_CHECK((got = skel_read(v16o)) != NULL);
    for (i = 0; i < n; ++i)
        if (((const uint16_t *)got)[i] != want16[i] && bad++ == 0)
            printf("  cvu16 %zux%zu edge %d [%zu]: %d, want %d\n", R, C, edge, i, ((const uint16_t *)got)[i],
                   want16[i]);
    if (bad) ST_FAIL("%zux%zu edge %d: %zu outputs wrong", R, C, edge, bad);
    skel_free(va); skel_free(vo); skel_free(vv); skel_free(vz); skel_free(vzo);
    skel_free(v8); skel_free(v8o); skel_free(v16); skel_free(v16o);
    free(a); free(want); free(z); free(zwant); free(b8); free(want8); free(b16); free(want16);
}

SKEL_TEST(conv2d_forms_through_every_block)
{
    static const size_t shapes_[][2] = { { 9, 19 }, { 23, 1100 }, { 4, 16500 } };   /* (16500: rows of int8 too split) */
    int vi, e, k;
    for (vi = 0; vi < st_variant_count(); ++vi)
        for (e = SKEL_EDGE_CONSTANT; e <= SKEL_EDGE_DUPLICATE; ++e)
            for (k = 0; k < 3; ++k) {
                st_context("%s, %zux%zu, edge %d", st_variant_get(vi)->label, shapes_[k][0], shapes_[k][1], e);
                forms_case(vi, e, shapes_[k][0], shapes_[k][1]);
            }
    st_context("");
    skel_set_plan(ov_flat, NULL); skel_set_plan(ov_rc, NULL); skel_set_plan(ov_cx, NULL);
    skel_set_plan(cvi8, NULL); skel_set_plan(cvu16, NULL);
}

