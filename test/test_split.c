/* Split calls: one call over several places at once (skel.h SPLIT CALLS).

   Every skeleton runs split at shares 0, 1, 0.5, odd and random, on sizes
   0, 1, 2, odd, prime and large, against plain C; chains of split calls
   (same split, other splits, host reads and writes in between) check the
   values and the transfer counters: only halos move; halos at part borders
   for every edge policy and overlaps as wide as the parts; a part that
   cannot run leaves every container as it was and is named; threads run
   split calls on shared inputs.

   Places: the host (seq, pool) everywhere, and OpenCL's device (PoCL in
   CI) where it is present: host-only splits always run, splits with an
   OpenCL part skip without it (fail under SKEL_REQUIRE=opencl) and where
   SKEL_TEST_BACKENDS leaves opencl out (the ThreadSanitizer run). */
#define _POSIX_C_SOURCE 200809L     /* mkdtemp */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

/* private entry points (defined in the implementation) */
void _skel_test_split_fail(int space, int rc);
void _skel_test_split_refine(int on);
int _skel_trace_flush(void);
void _skel_cl_test_fail_allocs(int on);
int _skel_test_map_ok(skel_vec *c);
int _skel_test_map_get(skel_vec *c, size_t *lo, unsigned *mask, int max);
int skel_cl_register(void);

/* ---- the places and the split variants ---- */
static int sp_cl = -1;      /* OpenCL's memory space, 0 when absent; -1 not looked yet */

static int sp_wants(const char *backend)
{
    const char *only = getenv("SKEL_TEST_BACKENDS");
    return !only || !*only || strstr(only, backend) != NULL;
}

/* OpenCL's space, or 0 (and a failure under SKEL_REQUIRE=opencl). */
static int sp_opencl(void)
{
    const char *req = getenv("SKEL_REQUIRE");
    if (sp_cl < 0) {
        skel_traffic t;
        int s;
        sp_cl = 0;
        if (sp_wants("opencl") && skel_cl_register() == SKEL_OK) {
            skel_traffic_get(&t);
            for (s = 1; s < t.spaces; ++s)
                if (strncmp(t.name[s], "opencl", 6) == 0) sp_cl = s;
        }
    }
    if (!sp_cl && req && strstr(req, "opencl") && sp_wants("opencl")) ST_FAIL("SKEL_REQUIRE=opencl but no OpenCL device");
    return sp_cl;
}

typedef struct sp_split {
    char label[64];
    skel_variant v;
} sp_split;

static void sp_part(skel_variant *v, int k, const char *backend, double share, int threads)
{
    v->parts[k].backend = backend;
    v->parts[k].share = share;
    v->parts[k].threads = threads;
}

/* The GPU backends a split may use here: OpenCL (the place sp_opencl
   found) and CUDA when present; the host (seq) stands in without them. */
static int sp_gpus(const char **out)
{
    int n = 0;
    if (sp_opencl()) out[n++] = "opencl";
    if (sp_wants("cuda") && skel_backend_available("cuda")) out[n++] = "cuda";
    if (!n) out[n++] = "seq";
    return n;
}

/* The splits every skeleton runs, for each GPU backend: shares 0, 1, 0.5,
   odd, random between the host and it; and three parts with two on it.
   `few` keeps the first three of each (the large sizes). */
static int sp_splits(sp_split *out, int few)
{
    static const double shares[] = { 0, 1, 0.5, 0.3141 };
    const char *gpus[2];
    uint64_t rng = st_seed("splits", 7, 11);
    int n = 0, k, g, ng = sp_gpus(gpus);
    for (g = 0; g < ng; ++g) {
        const char *gpu = gpus[g];
        for (k = 0; k < 5; ++k) {
            double s = k < 4 ? shares[k] : (double)st_rand_int(&rng, 1, 999) / 1000;
            sp_split *x = &out[n++];
            memset(x, 0, sizeof *x);
            x->v.backend = "split";
            sp_part(&x->v, 0, "pool", s, 2);
            sp_part(&x->v, 1, gpu, 1 - s, 0);
            snprintf(x->label, sizeof x->label, "pool/2 %.4f | %s %.4f", s, gpu, 1 - s);
            if (few && k == 2) break;
        }
        if (few) continue;
        {   /* the device first, then the host, then the device again (two logical parts there) */
            sp_split *x = &out[n++];
            memset(x, 0, sizeof *x);
            x->v.backend = "split";
            sp_part(&x->v, 0, gpu, 0.37, 0);
            sp_part(&x->v, 1, "seq", 0.21, 0);
            sp_part(&x->v, 2, gpu, 0.42, 0);
            snprintf(x->label, sizeof x->label, "%s .37 | seq .21 | %s .42", gpu, gpu);
        }
    }
    if (ng == 2 && !few) {  /* both GPU backends (the GPU machine: CUDA and NVIDIA's OpenCL): three places */
        sp_split *x = &out[n++];
        memset(x, 0, sizeof *x);
        x->v.backend = "split";
        sp_part(&x->v, 0, gpus[1], 0.4, 0);
        sp_part(&x->v, 1, "pool", 0.2, 2);
        sp_part(&x->v, 2, gpus[0], 0.4, 0);
        snprintf(x->label, sizeof x->label, "%s .4 | pool/2 .2 | %s .4", gpus[1], gpus[0]);
    }
    return n;
}

/* Run call c of sk on variant v (a plan that forces it). */
static int sp_run(skel_skeleton *sk, const skel_call *c, const skel_variant *v)
{
    skel_plan *p = NULL;
    int rc;
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, v));
    ST_OK(skel_set_plan(sk, p));
    rc = skel_run(sk, c);
    skel_set_plan(sk, NULL);
    skel_plan_free(p);
    return rc;
}

static const size_t sp_sizes[] = { 0, 1, 2, 7, 13, 50021 };
#define SP_NSIZES (sizeof sp_sizes / sizeof *sp_sizes)
#define SP_LARGE 50021

static skel_vec *sp_ivec(size_t n, uint64_t *rng)
{
    skel_vec *v;
    int32_t *p;
    size_t i;
    ST_OK(skel_vec_new(&v, SKEL_INT32, n));
    p = (int32_t *)skel_write(v);
    for (i = 0; i < n; ++i) p[i] = (int32_t)st_rand_int(rng, -1000, 1000);
    return v;
}

static skel_mat *sp_imat(size_t r, size_t c, uint64_t *rng)
{
    skel_mat *m;
    int32_t *p;
    size_t i;
    ST_OK(skel_mat_new(&m, SKEL_INT32, r, c));
    p = (int32_t *)skel_write(m);
    for (i = 0; i < r * c; ++i) p[i] = (int32_t)st_rand_int(rng, -1000, 1000);
    return m;
}

/* ---- the instances ---- */
SKEL_FUNC(int32_t, sp_lin, (int32_t a, int32_t b), return 3 * a - b;)
SKEL_FUNC(int32_t, sp_idx, (skel_index i, int32_t a), return a + (int32_t)(i % 7);)
SKEL_FUNC(int32_t, sp_idx2, (skel_index r, skel_index c, int32_t a), return a + (int32_t)(r * 100 + c);)
SKEL_FUNC(int64_t, sp_add64, (int64_t a, int64_t b), return a + b;)
SKEL_FUNC(int32_t, sp_add, (int32_t a, int32_t b), return a + b;)
SKEL_FUNC(int32_t, sp_last, (int32_t a, int32_t b), (void)a; return b;)
SKEL_FUNC(int64_t, sp_sq, (int32_t a, int32_t b), return (int64_t)a * b;)
SKEL_FUNC(int64_t, sp_isq, (skel_index i), return (int64_t)(i % 1000) * (int64_t)(i % 1000);)
SKEL_FUNC(int32_t, sp_ma, (const int32_t *v, int32_t e, int32_t n), return v[(e + 5000) % n] * 2 + e;)
SKEL_FUNC(int32_t, sp_st1, (const int32_t *a), return a[-1] + 2 * a[0] + 3 * a[1];)
SKEL_FUNC(int32_t, sp_st3, (const int32_t *a), return a[-3] - a[-1] + 2 * a[0] + 5 * a[2] + 7 * a[3];)
/* (% 1000: a chain of sweeps must not overflow; the values stay within +-999) */
SKEL_FUNC(int32_t, sp_st2d, (const int32_t *a, skel_index s),
          return (a[-2 * s] + 2 * a[-s - 1] + 3 * a[0] + 5 * a[s + 1] - a[2 * s]) % 1000;)

SKEL_MAP(sp_map, sp_lin, int32_t, 2)
SKEL_MAP_EX(sp_mapi, sp_idx, int32_t, int32_t, 1, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_MAP_EX(sp_mapi2, sp_idx2, int32_t, int32_t, 1, SKEL_INDEX2D, SKEL_NO_UNIFORM)
SKEL_REDUCE(sp_red, sp_add, int32_t)
SKEL_REDUCE(sp_redlast, sp_last, int32_t)
SKEL_MAPREDUCE_EX(sp_dot, sp_sq, sp_add64, int64_t, int32_t, 2, SKEL_NO_INDEX, SKEL_NO_UNIFORM)
SKEL_MAPREDUCE_EX(sp_isum, sp_isq, sp_add64, int64_t, int64_t, 0, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_SCAN(sp_scan, sp_add, int32_t)
SKEL_SCAN(sp_scanlast, sp_last, int32_t)
SKEL_MAPARRAY_EX(sp_marr, sp_ma, int32_t, SKEL_UNIFORM(int32_t))
SKEL_OVERLAP(sp_ov1, sp_st1, int32_t, 1)
SKEL_OVERLAP(sp_ov3, sp_st3, int32_t, 3)
SKEL_OVERLAP2D(sp_ov2d, sp_st2d, int32_t, 2, 1)
SKEL_FUNC(int64_t, sp_rc, (skel_index r, skel_index c), return 1000 * (int64_t)r + (int64_t)c;)
SKEL_MAPREDUCE_INDEX(sp_grid, sp_rc, sp_add64, int64_t, SKEL_INDEX2D, SKEL_NO_UNIFORM)
SKEL_MAP_INDEX(sp_gridmap, sp_rc, int64_t, SKEL_INDEX2D, SKEL_NO_UNIFORM)

/* ---- plain C references ---- */
/* 1-D stencil of width d (1 or 3) at i of a line of n elements, stride st */
static int32_t sp_ref1(const int32_t *a, size_t st, size_t n, size_t i, int d, int edge, int32_t ev)
{
    int32_t w[7];
    int k;
    for (k = -d; k <= d; ++k) {
        ptrdiff_t j = (ptrdiff_t)i + k;
        int32_t x = ev;
        if (j >= 0 && (size_t)j < n) x = a[(size_t)j * st];
        else if (edge == SKEL_EDGE_CYCLIC) x = a[(size_t)(((j % (ptrdiff_t)n) + (ptrdiff_t)n) % (ptrdiff_t)n) * st];
        else if (edge == SKEL_EDGE_DUPLICATE) x = a[(j < 0 ? 0 : n - 1) * st];
        w[k + d] = x;
    }
    return d == 1 ? w[0] + 2 * w[1] + 3 * w[2] : w[0] - w[2] + 2 * w[3] + 5 * w[5] + 7 * w[6];
}

static int32_t sp_ref2d(const int32_t *a, size_t R, size_t C, size_t r, size_t c, int edge, int32_t ev)
{
    static const int dy[5] = { -2, -1, 0, 1, 2 }, dx[5] = { 0, -1, 0, 1, 0 }, wt[5] = { 1, 2, 3, 5, -1 };
    int32_t s = 0;
    int k;
    for (k = 0; k < 5; ++k) {
        ptrdiff_t y = (ptrdiff_t)r + dy[k], x = (ptrdiff_t)c + dx[k];
        int inr = y >= 0 && (size_t)y < R, inc = x >= 0 && (size_t)x < C;
        size_t yy, xx;
        if ((!inr || !inc) && edge == SKEL_EDGE_CONSTANT) { s += wt[k] * ev; continue; }
        yy = inr ? (size_t)y : edge == SKEL_EDGE_CYCLIC ? (size_t)(((y % (ptrdiff_t)R) + (ptrdiff_t)R) % (ptrdiff_t)R) : (y < 0 ? 0 : R - 1);
        xx = inc ? (size_t)x : edge == SKEL_EDGE_CYCLIC ? (size_t)(((x % (ptrdiff_t)C) + (ptrdiff_t)C) % (ptrdiff_t)C) : (x < 0 ? 0 : C - 1);
        s += wt[k] * a[yy * C + xx];
    }
    return s % 1000;
}

static void sp_check_vec(skel_vec *v, const int32_t *want, size_t n)
{
    const int32_t *got = (const int32_t *)skel_read(v);
    size_t i;
    ST_CHECK(got != NULL);
    for (i = 0; i < n; ++i)
        if (got[i] != want[i]) ST_FAIL("element %zu: got %d, want %d", i, (int)got[i], (int)want[i]);
    ST_CHECK(_skel_test_map_ok(v));
}

/* ---- every skeleton at every share and size ---- */
SKEL_TEST(split_map_and_maparray_at_every_share_and_size)
{
    sp_split sp[16];
    uint64_t rng = st_seed("split-map", 1, 2);
    size_t k;
    int ns, s;
    for (k = 0; k < SP_NSIZES; ++k) {
        size_t n = sp_sizes[k], i, nv = 37;
        skel_vec *a = sp_ivec(n, &rng), *b = sp_ivec(n, &rng), *r, *v = sp_ivec(nv, &rng);
        int32_t *want = (int32_t *)malloc((n + 1) * sizeof *want), u = (int32_t)nv;
        const int32_t *pa = (const int32_t *)skel_read(a), *pb = (const int32_t *)skel_read(b), *pv = (const int32_t *)skel_read(v);
        ST_OK(skel_vec_new(&r, SKEL_INT32, n));
        ns = sp_splits(sp, n == SP_LARGE);
        for (s = 0; s < ns; ++s) {
            skel_call c;
            st_context("Map n=%zu split %s", n, sp[s].label);
            memset(&c, 0, sizeof c);
            c.out = r; c.in[0] = a; c.in[1] = b;
            ST_OK(sp_run(sp_map, &c, &sp[s].v));
            for (i = 0; i < n; ++i) want[i] = 3 * pa[i] - pb[i];
            sp_check_vec(r, want, n);
            st_context("Map with index n=%zu split %s", n, sp[s].label);
            memset(&c, 0, sizeof c);
            c.out = r; c.in[0] = a;
            ST_OK(sp_run(sp_mapi, &c, &sp[s].v));
            for (i = 0; i < n; ++i) want[i] = pa[i] + (int32_t)(i % 7);
            sp_check_vec(r, want, n);
            st_context("MapArray n=%zu split %s", n, sp[s].label);
            memset(&c, 0, sizeof c);
            c.out = r; c.in[0] = v; c.in[1] = a; c.uniform = &u;
            ST_OK(sp_run(sp_marr, &c, &sp[s].v));
            for (i = 0; i < n; ++i) want[i] = pv[(pa[i] + 5000) % (int32_t)nv] * 2 + pa[i];
            sp_check_vec(r, want, n);
            pa = (const int32_t *)skel_read(a);
            pv = (const int32_t *)skel_read(v);
        }
        skel_free(a); skel_free(b); skel_free(r); skel_free(v);
        free(want);
    }
    st_context("");
}

SKEL_TEST(split_reductions_combine_parts_in_order)
{
    sp_split sp[16];
    uint64_t rng = st_seed("split-reduce", 3, 4);
    size_t k;
    int ns, s;
    for (k = 1; k < SP_NSIZES; ++k) {      /* reducing nothing is an error (SKEL_EEMPTY) */
        size_t n = sp_sizes[k], i;
        skel_vec *a = sp_ivec(n, &rng), *b = sp_ivec(n, &rng), *out;
        const int32_t *pa = (const int32_t *)skel_read(a), *pb = (const int32_t *)skel_read(b);
        int32_t sum = 0, got;
        int64_t dot = 0, isum = 0, got64;
        for (i = 0; i < n; ++i) {
            sum += pa[i];
            dot += (int64_t)pa[i] * pb[i];
            isum += (int64_t)(i % 1000) * (int64_t)(i % 1000);
        }
        ST_OK(skel_vec_new(&out, SKEL_INT32, 1));
        ns = sp_splits(sp, n == SP_LARGE);
        for (s = 0; s < ns; ++s) {
            skel_call c;
            st_context("n=%zu split %s", n, sp[s].label);
            memset(&c, 0, sizeof c);
            c.in[0] = a; c.result = &got;
            ST_OK(sp_run(sp_red, &c, &sp[s].v));
            ST_EQ_INT(got, sum);
            ST_OK(sp_run(sp_redlast, &c, &sp[s].v));
            ST_EQ_INT(got, pa[n - 1]);
            c.result = NULL; c.out = out;       /* into a 1-element vector */
            ST_OK(sp_run(sp_red, &c, &sp[s].v));
            ST_EQ_INT(((const int32_t *)skel_read(out))[0], sum);
            memset(&c, 0, sizeof c);
            c.in[0] = a; c.in[1] = b; c.result = &got64;
            ST_OK(sp_run(sp_dot, &c, &sp[s].v));
            ST_EQ_INT(got64, dot);
            memset(&c, 0, sizeof c);
            c.count = n; c.result = &got64;      /* index only */
            ST_OK(sp_run(sp_isum, &c, &sp[s].v));
            ST_EQ_INT(got64, isum);
            pa = (const int32_t *)skel_read(a);
        }
        skel_free(a); skel_free(b); skel_free(out);
    }
    st_context("");
}

SKEL_TEST(split_scans_carry_between_parts)
{
    sp_split sp[16];
    uint64_t rng = st_seed("split-scan", 5, 6);
    size_t k;
    int ns, s, mode;
    for (k = 0; k < SP_NSIZES; ++k) {
        size_t n = sp_sizes[k], i;
        skel_vec *a = sp_ivec(n, &rng), *r;
        int32_t *want = (int32_t *)malloc((n + 1) * sizeof *want), init = 17;
        const int32_t *pa = (const int32_t *)skel_read(a);
        ST_OK(skel_vec_new(&r, SKEL_INT32, n));
        ns = sp_splits(sp, n == SP_LARGE);
        for (s = 0; s < ns; ++s)
            for (mode = 0; mode < 4; ++mode) {   /* inclusive, from init, exclusive; a "last" scan */
                skel_call c;
                int32_t acc = mode == 0 ? 0 : init;
                st_context("Scan mode %d n=%zu split %s", mode, n, sp[s].label);
                memset(&c, 0, sizeof c);
                c.out = r; c.in[0] = a;
                if (mode == 1 || mode == 2) c.init = &init;
                c.exclusive = mode == 2;
                ST_OK(sp_run(mode == 3 ? sp_scanlast : sp_scan, &c, &sp[s].v));
                for (i = 0; i < n; ++i) {
                    if (mode == 3) { want[i] = pa[i]; continue; }
                    if (mode == 2) { want[i] = acc; acc += pa[i]; }
                    else { acc += pa[i]; want[i] = acc; }
                }
                sp_check_vec(r, want, n);
                pa = (const int32_t *)skel_read(a);
            }
        skel_free(a); skel_free(r);
        free(want);
    }
    st_context("");
}

/* Matrices split by rows: Map with (row, col), row and column reductions,
   row scans, MapOverlap along rows, columns and both, MapOverlap2D, at
   every edge policy (shapes down to one row). */
SKEL_TEST(split_matrices_by_rows_every_form_and_edge)
{
    static const size_t shapes[][2] = { { 1, 5 }, { 2, 3 }, { 7, 13 }, { 13, 7 }, { 301, 67 } };
    sp_split sp[16];
    uint64_t rng = st_seed("split-matrix", 7, 8);
    size_t q;
    int ns, s, edge, dir;
    for (q = 0; q < sizeof shapes / sizeof *shapes; ++q) {
        size_t R = shapes[q][0], C = shapes[q][1], n = R * C, i, r, c0;
        skel_mat *a = sp_imat(R, C, &rng), *m;
        skel_vec *rowv, *colv;
        int32_t *want = (int32_t *)malloc((n + 1) * sizeof *want), ev = 9;
        const int32_t *pa = (const int32_t *)skel_read(a);
        ST_OK(skel_mat_new(&m, SKEL_INT32, R, C));
        ST_OK(skel_vec_new(&rowv, SKEL_INT32, R));
        ST_OK(skel_vec_new(&colv, SKEL_INT32, C));
        ns = sp_splits(sp, q == 4);
        for (s = 0; s < ns; ++s) {
            skel_call c;
            st_context("%zux%zu Map 2-D index, split %s", R, C, sp[s].label);
            memset(&c, 0, sizeof c);
            c.out = m; c.in[0] = a;
            ST_OK(sp_run(sp_mapi2, &c, &sp[s].v));
            for (i = 0; i < n; ++i) want[i] = pa[i] + (int32_t)((i / C) * 100 + i % C);
            sp_check_vec(m, want, n);
            st_context("%zux%zu Reduce rows, columns, split %s", R, C, sp[s].label);
            memset(&c, 0, sizeof c);
            c.in[0] = a; c.out = rowv; c.direction = SKEL_ROWS;
            ST_OK(sp_run(sp_red, &c, &sp[s].v));
            for (r = 0; r < R; ++r)
                for (want[r] = 0, c0 = 0; c0 < C; ++c0) want[r] += pa[r * C + c0];
            sp_check_vec(rowv, want, R);
            c.out = colv; c.direction = SKEL_COLS;
            ST_OK(sp_run(sp_red, &c, &sp[s].v));
            for (c0 = 0; c0 < C; ++c0)
                for (want[c0] = 0, r = 0; r < R; ++r) want[c0] += pa[r * C + c0];
            sp_check_vec(colv, want, C);
            st_context("%zux%zu Scan rows, split %s", R, C, sp[s].label);
            memset(&c, 0, sizeof c);
            c.in[0] = a; c.out = m;
            ST_OK(sp_run(sp_scan, &c, &sp[s].v));
            for (r = 0; r < R; ++r)
                for (c0 = 0; c0 < C; ++c0) want[r * C + c0] = pa[r * C + c0] + (c0 ? want[r * C + c0 - 1] : 0);
            sp_check_vec(m, want, n);
            for (edge = 0; edge < 3; ++edge) {
                for (dir = SKEL_ROWS; dir <= SKEL_ROWS_COLS; ++dir) {
                    if ((dir & SKEL_ROWS && C < 1) || (dir & SKEL_COLS && R < 1)) continue;
                    st_context("%zux%zu MapOverlap dir %d edge %d, split %s", R, C, dir, edge, sp[s].label);
                    memset(&c, 0, sizeof c);
                    c.in[0] = a; c.out = m; c.direction = dir; c.edge = (skel_edge)edge; c.edge_value = &ev;
                    ST_OK(sp_run(sp_ov1, &c, &sp[s].v));
                    for (r = 0; r < R; ++r)
                        for (c0 = 0; c0 < C; ++c0) {
                            int32_t x;
                            if (dir == SKEL_ROWS) x = sp_ref1(pa + r * C, 1, C, c0, 1, edge, ev);
                            else if (dir == SKEL_COLS) x = sp_ref1(pa + c0, C, R, r, 1, edge, ev);
                            else {  /* rows, then columns of the row results */
                                int32_t col[400];
                                size_t y;
                                for (y = 0; y < R; ++y) col[y] = sp_ref1(pa + y * C, 1, C, c0, 1, edge, ev);
                                x = sp_ref1(col, 1, R, r, 1, edge, ev);
                            }
                            want[r * C + c0] = x;
                        }
                    sp_check_vec(m, want, n);
                }
                if (R >= 2) {
                    st_context("%zux%zu MapOverlap2D edge %d, split %s", R, C, edge, sp[s].label);
                    memset(&c, 0, sizeof c);
                    c.in[0] = a; c.out = m; c.edge = (skel_edge)edge; c.edge_value = &ev;
                    ST_OK(sp_run(sp_ov2d, &c, &sp[s].v));
                    for (r = 0; r < R; ++r)
                        for (c0 = 0; c0 < C; ++c0) want[r * C + c0] = sp_ref2d(pa, R, C, r, c0, edge, ev);
                    sp_check_vec(m, want, n);
                }
            }
            pa = (const int32_t *)skel_read(a);
        }
        skel_free(a); skel_free(m); skel_free(rowv); skel_free(colv);
        free(want);
    }
    st_context("");
}

/* Index-only 2-D forms (no input container): a MapReduce over a
   call.rows x call.cols grid and a Map into a matrix, split by elements. */
SKEL_TEST(split_index_only_grids)
{
    static const size_t shapes[][2] = { { 1, 1 }, { 3, 5 }, { 97, 131 } };
    sp_split sp[16];
    size_t q, i, j;
    int ns, s;
    for (q = 0; q < sizeof shapes / sizeof *shapes; ++q) {
        size_t R = shapes[q][0], C = shapes[q][1];
        int64_t want = 0, got;
        skel_mat *m;
        ST_OK(skel_mat_new(&m, SKEL_INT64, R, C));
        for (i = 0; i < R; ++i)
            for (j = 0; j < C; ++j) want += 1000 * (int64_t)i + (int64_t)j;
        ns = sp_splits(sp, 0);
        for (s = 0; s < ns; ++s) {
            skel_call c;
            const int64_t *pm;
            st_context("%zux%zu split %s", R, C, sp[s].label);
            memset(&c, 0, sizeof c);
            c.result = &got; c.rows = R; c.cols = C;
            got = -1;
            ST_OK(sp_run(sp_grid, &c, &sp[s].v));
            ST_EQ_INT(got, want);
            memset(&c, 0, sizeof c);
            c.out = m;
            ST_OK(sp_run(sp_gridmap, &c, &sp[s].v));
            ST_CHECK((pm = (const int64_t *)skel_read(m)) != NULL);
            for (i = 0; i < R * C; ++i)
                if (pm[i] != 1000 * (int64_t)(i / C) + (int64_t)(i % C)) ST_FAIL("element %zu: %lld", i, (long long)pm[i]);
        }
        skel_free(m);
    }
    st_context("");
}

/* Vectors: halos at part borders for every edge, overlaps as wide as the
   parts (d = 3 on 7 elements: parts of 2 and 3 read beyond both
   neighbours, and the cyclic edge wraps into the other end's part). */
SKEL_TEST(split_vector_overlap_halos_at_borders)
{
    sp_split sp[16];
    uint64_t rng = st_seed("split-halo", 9, 10);
    size_t k;
    int ns, s, edge, w;
    for (k = 0; k < SP_NSIZES; ++k) {
        size_t n = sp_sizes[k], i;
        skel_vec *a = sp_ivec(n, &rng), *r;
        int32_t *want = (int32_t *)malloc((n + 1) * sizeof *want), ev = -4;
        const int32_t *pa = (const int32_t *)skel_read(a);
        ST_OK(skel_vec_new(&r, SKEL_INT32, n));
        ns = sp_splits(sp, n == SP_LARGE);
        for (s = 0; s < ns; ++s)
            for (w = 1; w <= 3; w += 2)
                for (edge = 0; edge < 3; ++edge) {
                    skel_call c;
                    if ((size_t)w > n) continue;       /* the overlap may not exceed the length */
                    st_context("MapOverlap d=%d edge %d n=%zu split %s", w, edge, n, sp[s].label);
                    memset(&c, 0, sizeof c);
                    c.out = r; c.in[0] = a; c.edge = (skel_edge)edge; c.edge_value = &ev;
                    ST_OK(sp_run(w == 1 ? sp_ov1 : sp_ov3, &c, &sp[s].v));
                    for (i = 0; i < n; ++i) want[i] = sp_ref1(pa, 1, n, i, w, edge, ev);
                    sp_check_vec(r, want, n);
                    pa = (const int32_t *)skel_read(a);
                }
        skel_free(a); skel_free(r);
        free(want);
    }
    st_context("");
}

/* ---- chains: values and the bytes that move ---- */
static uint64_t sp_moved(void)
{
    skel_traffic t;
    skel_traffic_get(&t);
    return skel_traffic_total(&t);
}

static void sp_ref_sweep(const int32_t *in, int32_t *out, size_t R, size_t C, int edge, int32_t ev)
{
    size_t r, c;
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) out[r * C + c] = sp_ref2d(in, R, C, r, c, edge, ev);
}

/* A chain of 2-D stencil sweeps (ping-pong) split between the host and
   the device: with the same split each sweep moves only the halos (2 dR
   rows each way at the one border; cyclic: the wrapped rows too), a
   host read in between moves the device's part home once, and a change of
   split moves only the rows that change places. */
SKEL_TEST(split_chain_moves_only_halos)
{
    const size_t R = 64, C = 40, n = R * C, row = C * sizeof(int32_t);
    uint64_t rng = st_seed("split-chain", 11, 12);
    const char *gpus[2];
    int edge, g, ng = sp_gpus(gpus);
    if (!strcmp(gpus[0], "seq")) ST_SKIP("needs a GPU backend (or OpenCL's device) as a second place");
    _skel_test_split_refine(0);     /* the parts' borders stay where the shares put them */
    for (g = 0; g < ng; ++g)
    for (edge = 0; edge < 3; ++edge) {
        skel_mat *x = sp_imat(R, C, &rng), *y, *cur, *nxt, *t;
        int32_t *ref = (int32_t *)malloc(n * sizeof *ref), *tmp = (int32_t *)malloc(n * sizeof *tmp), ev = 3;
        skel_variant a, b;
        skel_call c;
        uint64_t m0, per;
        int sweep;
        memcpy(ref, skel_read(x), n * sizeof *ref);
        ST_OK(skel_mat_new(&y, SKEL_INT32, R, C));
        memset(&a, 0, sizeof a);
        a.backend = "split";
        sp_part(&a, 0, gpus[g], 0.5, 0);        /* rows 0..31 on the device, 32..63 on the host */
        sp_part(&a, 1, "pool", 0.5, 2);
        b = a;
        b.parts[0].share = 0.25;                /* rows 0..15 on the device */
        b.parts[1].share = 0.75;
        memset(&c, 0, sizeof c);
        c.edge = (skel_edge)edge;
        c.edge_value = &ev;
        cur = x; nxt = y;
        per = 2 * 2 * row * (edge == SKEL_EDGE_CYCLIC ? 2 : 1);  /* dR = 2 rows each way, per border crossed */
        for (sweep = 0; sweep < 8; ++sweep) {
            st_context("%s edge %d sweep %d", gpus[g], edge, sweep);
            c.in[0] = cur; c.out = nxt;
            m0 = sp_moved();
            ST_OK(sp_run(sp_ov2d, &c, sweep < 5 ? &a : &b));
            /* the first sweep distributes the device's rows and halo; after the
               host's read (sweep 2) and write (4) the host holds everything,
               and only the device's part and halo go up again */
            if (sweep == 0) ST_EQ_UINT(sp_moved() - m0, (R / 2 + 2 + (edge == SKEL_EDGE_CYCLIC ? 2 : 0)) * row);
            else if (sweep == 3) ST_EQ_UINT(sp_moved() - m0, per / 2);
            else if (sweep == 5) ST_EQ_UINT(sp_moved() - m0, (R / 4 + 2 + (edge == SKEL_EDGE_CYCLIC ? 2 : 0)) * row);
            else ST_EQ_UINT(sp_moved() - m0, per);
            sp_ref_sweep(ref, tmp, R, C, edge, ev);
            memcpy(ref, tmp, n * sizeof *ref);
            if (sweep == 2) {   /* the host reads the result: the device's half comes home, once */
                m0 = sp_moved();
                sp_check_vec(nxt, ref, n);
                ST_EQ_UINT(sp_moved() - m0, (R / 2) * row);
                m0 = sp_moved();
                ST_CHECK(skel_read(nxt) != NULL);
                ST_EQ_UINT(sp_moved() - m0, 0);
            }
            if (sweep == 4) {   /* the host writes: everything on the host alone */
                int32_t *w = (int32_t *)skel_write(nxt);
                ST_CHECK(w != NULL);
                w[5] += 1;
                ref[5] += 1;
            }
            t = cur; cur = nxt; nxt = t;
        }
        st_context("%s edge %d end", gpus[g], edge);
        sp_check_vec(cur, ref, n);
        ST_CHECK(_skel_test_map_ok(nxt));
        skel_free(x); skel_free(y);
        free(ref); free(tmp);
    }
    _skel_test_split_refine(-1);    /* back to SKEL_SPLIT_REFINE's */
    st_context("");
}

/* ---- failure of one part ---- */
SKEL_TEST(split_failing_part_leaves_containers_as_they_were)
{
    const size_t n = 1000;
    uint64_t rng = st_seed("split-fail", 13, 14);
    skel_vec *a = sp_ivec(n, &rng), *b = sp_ivec(n, &rng), *r = sp_ivec(n, &rng), *fresh;
    int32_t *before = (int32_t *)malloc(n * sizeof *before), *want = (int32_t *)malloc(n * sizeof *want);
    const int32_t *pa, *pb;
    skel_variant v;
    skel_call c;
    size_t i;
    int gpu = sp_opencl(), rc;
    memset(&v, 0, sizeof v);
    v.backend = "split";
    sp_part(&v, 0, "pool", 0.5, 2);
    sp_part(&v, 1, gpu ? "opencl" : "seq", 0.5, 0);
    memset(&c, 0, sizeof c);
    c.out = r; c.in[0] = a; c.in[1] = b;
    memcpy(before, skel_read(r), n * sizeof *before);
    /* an injected device error on the second part's place */
    _skel_test_split_fail(gpu ? gpu : 0, SKEL_EDEVICE);
    rc = sp_run(sp_map, &c, &v);
    _skel_test_split_fail(-1, 0);
    ST_EQ_INT(rc, SKEL_EDEVICE);
    ST_CHECK(strstr(skel_last_error(), "split part") != NULL);
    ST_CHECK(strstr(skel_last_error(), gpu ? "opencl:0" : "host") != NULL);
    sp_check_vec(r, before, n);
    if (gpu) {  /* out of device memory: the device part cannot allocate its copies */
        ST_OK(skel_vec_new(&fresh, SKEL_INT32, n));
        memcpy(before, skel_read(fresh), n * sizeof *before);
        c.out = fresh;
        _skel_cl_test_fail_allocs(1);
        rc = sp_run(sp_map, &c, &v);
        _skel_cl_test_fail_allocs(0);
        ST_EQ_INT(rc, SKEL_ENOMEM);
        ST_CHECK(strstr(skel_last_error(), "part 1 of 2 (opencl:0") != NULL);
        sp_check_vec(fresh, before, n);
        /* and then it runs */
        ST_OK(sp_run(sp_map, &c, &v));
        pa = (const int32_t *)skel_read(a);
        pb = (const int32_t *)skel_read(b);
        for (i = 0; i < n; ++i) want[i] = 3 * pa[i] - pb[i];
        sp_check_vec(fresh, want, n);
        skel_free(fresh);
    }
    skel_free(a); skel_free(b); skel_free(r);
    free(before); free(want);
}

/* ---- threads: split calls on shared inputs ---- */
typedef struct sp_thread {
    skel_vec *a, *b, *r;
    skel_variant v;
    int ok, rounds;
} sp_thread;

static void *sp_thread_run(void *p)
{
    sp_thread *t = (sp_thread *)p;
    skel_call c;
    int k;
    size_t i, n = skel_size(t->a);
    t->ok = 1;
    for (k = 0; k < t->rounds && t->ok; ++k) {
        const int32_t *pa, *pb, *pr;
        memset(&c, 0, sizeof c);
        c.out = t->r; c.in[0] = t->a; c.in[1] = t->b;
        if (skel_run(sp_map, &c) != SKEL_OK) { t->ok = 0; break; }
        pa = (const int32_t *)skel_read(t->a);
        pb = (const int32_t *)skel_read(t->b);
        pr = (const int32_t *)skel_read(t->r);
        for (i = 0; i < n && t->ok; ++i) t->ok = pr[i] == 3 * pa[i] - pb[i];
    }
    return NULL;
}

/* ---- the expressive forms: several outputs, views, indices, narrow and
   struct elements, wider accumulators; and the forms that do not split ---- */
SKEL_STRUCT(sp_pt, int32_t x; int32_t y;)
SKEL_FUNC(void, sp_two, (skel_index i, int32_t a, skel_view_int32_t w, int32_t *s, uint8_t *pos),
          *s = a + SKEL_AT(w, i % w.size); *pos = (uint8_t)(a > 0);)
SKEL_FUNC(void, sp_ovtwo, (skel_index i, const int32_t *a, int32_t *s, int16_t *d),
          *s = a[-1] + 2 * a[0] + 3 * a[1]; *d = (int16_t)(a[1] - a[-1] + (int32_t)(i % 5));)
SKEL_FUNC(sp_pt, sp_swap, (sp_pt a), sp_pt b; b.x = a.y; b.y = a.x + 1; return b;)
SKEL_FUNC(int32_t, sp_st3d, (const int32_t *a, skel_index rs, skel_index ps),
          return a[-ps] - a[ps] + 2 * a[-rs] + 3 * a[1] + 5 * a[0];)
SKEL_MAP_X(sp_mapx, sp_two, SKEL_OUTS(int32_t, uint8_t), SKEL_INS(int32_t), SKEL_INDEX, SKEL_VIEWS(int32_t), SKEL_NO_UNIFORM)
SKEL_OVERLAP_X(sp_ovx, sp_ovtwo, SKEL_OUTS(int32_t, int16_t), int32_t, 1, SKEL_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
SKEL_REDUCE_EX(sp_u8sum, sp_add, int32_t, uint8_t)
SKEL_MAP(sp_smap, sp_swap, sp_pt, 1)
SKEL_FUNC(int32_t, sp_pri, (skel_index r, skel_index c, int32_t a, int32_t b),
          return 3 * a - b + (int32_t)(r % 7) * 100 + (int32_t)(c % 5);)
SKEL_MAPPAIRS_X(sp_pairsi, sp_pri, int32_t, SKEL_INS(int32_t), SKEL_INS(int32_t), SKEL_INDEX2D, SKEL_NO_VIEWS,
                SKEL_NO_UNIFORM)
SKEL_MAPPAIRSREDUCE_X(sp_pred, sp_pri, sp_add, int32_t, SKEL_INS(int32_t), SKEL_INS(int32_t), SKEL_INDEX2D,
                      SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
SKEL_OVERLAP3D(sp_ov3d, sp_st3d, int32_t, 1, 1, 1)

/* the forms Map and 1-D MapOverlap take, at every share and size */
static void sp_forms_vec(size_t n, const sp_split *sp, int ns, uint64_t *rng)
{
    size_t i, nv = 11;
    skel_vec *a = sp_ivec(n, rng), *w = sp_ivec(nv, rng), *s1, *p8, *d16, *u8, *pt, *pt2;
    const int32_t *pa = (const int32_t *)skel_read(a), *pw = (const int32_t *)skel_read(w);
    int32_t *want = (int32_t *)malloc((n + 1) * sizeof *want), ev = 17, got;
    uint8_t *pu;
    sp_pt *pp;
    int s, edge;
    ST_OK(skel_vec_new(&s1, SKEL_INT32, n));
    ST_OK(skel_vec_new(&p8, SKEL_UINT8, n));
    ST_OK(skel_vec_new(&d16, SKEL_INT16, n));
    ST_OK(skel_vec_new(&u8, SKEL_UINT8, n));
    ST_OK(skel_vec_new(&pt, SKEL_TYPE(sp_pt), n));
    ST_OK(skel_vec_new(&pt2, SKEL_TYPE(sp_pt), n));
    pu = (uint8_t *)skel_write(u8);
    for (i = 0; i < n; ++i) pu[i] = (uint8_t)st_rand_int(rng, 0, 255);
    pp = (sp_pt *)skel_write(pt);
    for (i = 0; i < n; ++i) { pp[i].x = (int32_t)st_rand_int(rng, -999, 999); pp[i].y = (int32_t)st_rand_int(rng, -999, 999); }
    for (s = 0; s < ns; ++s) {
        skel_call c;
        st_context("Map, two outputs, a view, n=%zu split %s", n, sp[s].label);
        memset(&c, 0, sizeof c);
        c.in[0] = a; c.outs[0] = s1; c.outs[1] = p8; c.views[0] = w;
        ST_OK(sp_run(sp_mapx, &c, &sp[s].v));
        pa = (const int32_t *)skel_read(a);
        pw = (const int32_t *)skel_read(w);
        for (i = 0; i < n; ++i) want[i] = pa[i] + pw[i % nv];
        sp_check_vec(s1, want, n);
        for (i = 0; i < n; ++i)
            if (((const uint8_t *)skel_read(p8))[i] != (pa[i] > 0)) ST_FAIL("outs[1][%zu] wrong", i);
        ST_CHECK(_skel_test_map_ok(p8));
        for (edge = 0; edge < 3; ++edge) {
            st_context("MapOverlap, two outputs, edge %d, n=%zu split %s", edge, n, sp[s].label);
            memset(&c, 0, sizeof c);
            c.in[0] = a; c.outs[0] = s1; c.outs[1] = d16; c.edge = (skel_edge)edge; c.edge_value = &ev;
            ST_OK(sp_run(sp_ovx, &c, &sp[s].v));
            pa = (const int32_t *)skel_read(a);
            for (i = 0; i < n; ++i) want[i] = sp_ref1(pa, 1, n, i, 1, edge, ev);
            sp_check_vec(s1, want, n);
            for (i = 0; i < n; ++i) {
                int32_t r;
                {
                    ptrdiff_t jl = (ptrdiff_t)i - 1, jr = (ptrdiff_t)i + 1;
                    int32_t xl = ev, xr = ev;
                    if (jl >= 0) xl = pa[jl]; else if (edge == SKEL_EDGE_CYCLIC) xl = pa[n - 1]; else if (edge == SKEL_EDGE_DUPLICATE) xl = pa[0];
                    if ((size_t)jr < n) xr = pa[jr]; else if (edge == SKEL_EDGE_CYCLIC) xr = pa[0]; else if (edge == SKEL_EDGE_DUPLICATE) xr = pa[n - 1];
                    r = xr - xl + (int32_t)(i % 5);
                }
                if (((const int16_t *)skel_read(d16))[i] != (int16_t)r) ST_FAIL("outs[1][%zu]: got %d, want %d", i,
                                                                                 ((const int16_t *)skel_read(d16))[i], (int)(int16_t)r);
            }
            ST_CHECK(_skel_test_map_ok(d16));
        }
        st_context("Map of structs n=%zu split %s", n, sp[s].label);
        memset(&c, 0, sizeof c);
        c.in[0] = pt; c.out = pt2;
        ST_OK(sp_run(sp_smap, &c, &sp[s].v));
        {
            const sp_pt *x = (const sp_pt *)skel_read(pt), *y = (const sp_pt *)skel_read(pt2);
            for (i = 0; i < n; ++i)
                if (y[i].x != x[i].y || y[i].y != x[i].x + 1) ST_FAIL("struct element %zu wrong", i);
        }
        if (n) {
            int32_t sum = 0;
            st_context("Reduce of uint8 into int32 n=%zu split %s", n, sp[s].label);
            memset(&c, 0, sizeof c);
            c.in[0] = u8; c.result = &got;
            ST_OK(sp_run(sp_u8sum, &c, &sp[s].v));
            pu = (uint8_t *)skel_read(u8);
            for (i = 0; i < n; ++i) sum += pu[i];
            ST_EQ_INT(got, sum);
        }
    }
    skel_free(a); skel_free(w); skel_free(s1); skel_free(p8); skel_free(d16); skel_free(u8); skel_free(pt); skel_free(pt2);
    free(want);
}

/* uint8 matrices reduced by rows and by columns into int32 */
static void sp_forms_mat(size_t R, size_t C, const sp_split *sp, int ns, uint64_t *rng)
{
    skel_mat *m;
    skel_vec *rows, *cols;
    uint8_t *pm;
    size_t i, j;
    int s;
    ST_OK(skel_mat_new(&m, SKEL_UINT8, R, C));
    ST_OK(skel_vec_new(&rows, SKEL_INT32, R));
    ST_OK(skel_vec_new(&cols, SKEL_INT32, C));
    pm = (uint8_t *)skel_write(m);
    for (i = 0; i < R * C; ++i) pm[i] = (uint8_t)st_rand_int(rng, 0, 255);
    for (s = 0; s < ns; ++s) {
        skel_call c;
        const uint8_t *x;
        st_context("uint8 %zux%zu reduced by rows and columns, split %s", R, C, sp[s].label);
        memset(&c, 0, sizeof c);
        c.in[0] = m; c.out = rows; c.direction = SKEL_ROWS;
        ST_OK(sp_run(sp_u8sum, &c, &sp[s].v));
        c.out = cols; c.direction = SKEL_COLS;
        ST_OK(sp_run(sp_u8sum, &c, &sp[s].v));
        x = (const uint8_t *)skel_read(m);
        for (i = 0; i < R; ++i) {
            int32_t t = 0;
            for (j = 0; j < C; ++j) t += x[i * C + j];
            if (((const int32_t *)skel_read(rows))[i] != t) ST_FAIL("row %zu wrong", i);
        }
        for (j = 0; j < C; ++j) {
            int32_t t = 0;
            for (i = 0; i < R; ++i) t += x[i * C + j];
            if (((const int32_t *)skel_read(cols))[j] != t) ST_FAIL("column %zu wrong", j);
        }
    }
    skel_free(m); skel_free(rows); skel_free(cols);
}

/* One segment valid in one space: the call ran whole on one place. */
static void sp_check_one_place(skel_vec *v)
{
    size_t lo[4];
    unsigned mask[4];
    int n = _skel_test_map_get(v, lo, mask, 4);
    ST_CHECK(_skel_test_map_ok(v));
    ST_EQ_INT(n, 1);
    ST_CHECK(mask[0] && !(mask[0] & (mask[0] - 1)));
}

/* Every element of v set to a value no call here computes, in the GPU
   places' memory and then on the host (a part that skipped its range, or
   wrote another, would leave it there; device memory keeps what an
   earlier call computed) */
SKEL_FUNC(int32_t, sp_bad, (skel_index i), (void)i; return -2147483647 - 1;)
SKEL_MAP_INDEX(sp_badmap, sp_bad, int32_t, SKEL_INDEX, SKEL_NO_UNIFORM)
static void sp_poison(skel_vec *v)
{
    const char *gpus[2];
    int32_t *p;
    size_t i;
    int g, ng = sp_gpus(gpus);
    for (g = 0; g < ng; ++g) {
        skel_variant one;
        skel_call c;
        memset(&one, 0, sizeof one);
        one.backend = gpus[g];
        memset(&c, 0, sizeof c);
        c.out = v;
        ST_OK(sp_run(sp_badmap, &c, &one));
    }
    p = (int32_t *)skel_write(v);
    for (i = 0; i < skel_size(v); ++i) p[i] = INT32_MIN;
}

/* MapPairs and MapPairsReduce (with the (r, c) index: a part computes
   its own rows or columns) split by rows of the result, or by the outputs
   of a reduction by columns, at every share, on empty, single, odd and
   prime shapes: values against plain C, the coherence map sound */
static void sp_pairs_split(size_t R, size_t C, const sp_split *sp, int ns, uint64_t *rng)
{
    skel_vec *r = sp_ivec(R, rng), *cv = sp_ivec(C, rng), *rows, *cols;
    skel_mat *out;
    size_t i, j;
    int s;
    ST_OK(skel_mat_new(&out, SKEL_INT32, R, C));
    ST_OK(skel_vec_new(&rows, SKEL_INT32, R));
    ST_OK(skel_vec_new(&cols, SKEL_INT32, C));
    for (s = 0; s < ns; ++s) {
        skel_call c;
        const int32_t *a, *b, *x;
#define SP_PRI(i, j) (3 * a[i] - b[j] + (int32_t)((i) % 7) * 100 + (int32_t)((j) % 5))
        st_context("MapPairs %zu x %zu split %s", R, C, sp[s].label);
        memset(&c, 0, sizeof c);
        c.in[0] = r; c.in[1] = cv; c.out = out;
        sp_poison(out);
        ST_OK(sp_run(sp_pairsi, &c, &sp[s].v));
        a = (const int32_t *)skel_read(r); b = (const int32_t *)skel_read(cv); x = (const int32_t *)skel_read(out);
        for (i = 0; i < R; ++i)
            for (j = 0; j < C; ++j)
                if (x[i * C + j] != SP_PRI(i, j)) ST_FAIL("pair %zu,%zu: got %d, want %d", i, j, (int)x[i * C + j], (int)SP_PRI(i, j));
        ST_CHECK(_skel_test_map_ok(out));
        if (!R || !C) continue;     /* (a reduction over nothing is refused) */
        st_context("MapPairsReduce by rows %zu x %zu split %s", R, C, sp[s].label);
        memset(&c, 0, sizeof c);
        c.in[0] = r; c.in[1] = cv; c.out = rows; c.direction = SKEL_ROWS;
        sp_poison(rows);
        sp_poison(cols);
        ST_OK(sp_run(sp_pred, &c, &sp[s].v));
        c.out = cols; c.direction = SKEL_COLS;
        st_context("MapPairsReduce by columns %zu x %zu split %s", R, C, sp[s].label);
        ST_OK(sp_run(sp_pred, &c, &sp[s].v));
        a = (const int32_t *)skel_read(r); b = (const int32_t *)skel_read(cv);
        for (i = 0; i < R; ++i) {
            int32_t t = 0;
            for (j = 0; j < C; ++j) t += SP_PRI(i, j);
            if (((const int32_t *)skel_read(rows))[i] != t) ST_FAIL("row %zu: got %d, want %d", i, ((const int32_t *)skel_read(rows))[i], t);
        }
        for (j = 0; j < C; ++j) {
            int32_t t = 0;
            for (i = 0; i < R; ++i) t += SP_PRI(i, j);
            if (((const int32_t *)skel_read(cols))[j] != t) ST_FAIL("column %zu: got %d, want %d", j, ((const int32_t *)skel_read(cols))[j], t);
        }
        ST_CHECK(_skel_test_map_ok(rows));
        ST_CHECK(_skel_test_map_ok(cols));
#undef SP_PRI
    }
    skel_free(r); skel_free(cv); skel_free(out); skel_free(rows); skel_free(cols);
}

void skel_cl_use_ov3_vec(int on);

/* sp_st3d's value at (p, i, j) of a D x R x C block x under the edge policy */
static int32_t sp_ref3d(const int32_t *x, size_t D, size_t R, size_t C, size_t p, size_t i, size_t j, int edge,
                        int32_t ev)
{
    const ptrdiff_t dp[5] = { -1, 1, 0, 0, 0 }, di[5] = { 0, 0, -1, 0, 0 }, dj[5] = { 0, 0, 0, 1, 0 };
    const int32_t wt[5] = { 1, -1, 2, 3, 5 };
    const ptrdiff_t n[3] = { (ptrdiff_t)D, (ptrdiff_t)R, (ptrdiff_t)C };
    int32_t sum = 0;
    int k, d;
    for (k = 0; k < 5; ++k) {
        ptrdiff_t q[3];
        int out = 0;
        q[0] = (ptrdiff_t)p + dp[k]; q[1] = (ptrdiff_t)i + di[k]; q[2] = (ptrdiff_t)j + dj[k];
        for (d = 0; d < 3; ++d) {
            if (q[d] >= 0 && q[d] < n[d]) continue;
            if (edge == SKEL_EDGE_CONSTANT) out = 1;
            else if (edge == SKEL_EDGE_CYCLIC) q[d] = (q[d] % n[d] + n[d]) % n[d];
            else q[d] = q[d] < 0 ? 0 : n[d] - 1;
        }
        sum += wt[k] * (out ? ev : x[((size_t)q[0] * R + (size_t)q[1]) * C + (size_t)q[2]]);
    }
    return sum;
}

/* MapOverlap3D split by planes (dD halo planes fetched from wherever they
   are valid: the input is new on the host before every call) under every
   edge policy, with the marching kernel and (shapes
   of 4 or 8 columns) the 16-byte one on OpenCL; the output poisoned in
   every place first */
static void sp_ov3_split(size_t D, size_t R, size_t C, const sp_split *sp, int ns, uint64_t *rng)
{
    skel_ten *t, *t2;
    int32_t *pt, ev = -3;
    size_t i, j, p;
    int s, e, vec;
    ST_OK(skel_ten_new(&t, SKEL_INT32, D, R, C));
    ST_OK(skel_ten_new(&t2, SKEL_INT32, D, R, C));
    for (vec = 0; vec < (C % 4 ? 1 : 2); ++vec)
        for (e = 0; e < 3; ++e)
            for (s = 0; s < ns; ++s) {
                skel_call c;
                const int32_t *x, *y;
                st_context("MapOverlap3D %zux%zux%zu edge %d%s split %s", D, R, C, e, vec ? " (16-byte kernel)" : "",
                           sp[s].label);
                memset(&c, 0, sizeof c);
                c.in[0] = t; c.out = t2; c.edge = (skel_edge)e; c.edge_value = &ev;
                pt = (int32_t *)skel_write(t);  /* new values on the host only: a part must fetch its halo */
                for (i = 0; i < D * R * C; ++i) pt[i] = (int32_t)st_rand_int(rng, -999, 999);
                sp_poison(t2);
                if (sp_opencl()) skel_cl_use_ov3_vec(vec);
                ST_OK(sp_run(sp_ov3d, &c, &sp[s].v));
                if (sp_opencl()) skel_cl_use_ov3_vec(0);
                x = (const int32_t *)skel_read(t); y = (const int32_t *)skel_read(t2);
                ST_CHECK(_skel_test_map_ok(t2));
                for (p = 0; p < D; ++p)
                    for (i = 0; i < R; ++i)
                        for (j = 0; j < C; ++j) {
                            int32_t want = sp_ref3d(x, D, R, C, p, i, j, e, ev), got = y[(p * R + i) * C + j];
                            if (got != want) ST_FAIL("3-D element %zu,%zu,%zu: got %d, want %d", p, i, j, (int)got, (int)want);
                        }
            }
    skel_free(t); skel_free(t2);
}

/* In-place MapOverlaps (1-D and 3-D) run whole on the largest part's
   place (the fallback rule): right values, one place */
static void sp_forms_whole(const sp_split *sp, int ns, uint64_t *rng)
{
    size_t R = 9, C = 13, D = 5, i, j, p;
    skel_vec *v = sp_ivec(101, rng);
    skel_ten *t;
    int32_t *pt, ev = -3, *ref = (int32_t *)malloc(101 * sizeof *ref), *ref3 = (int32_t *)malloc(D * R * C * sizeof *ref3);
    int s;
    ST_OK(skel_ten_new(&t, SKEL_INT32, D, R, C));
    pt = (int32_t *)skel_write(t);
    for (i = 0; i < D * R * C; ++i) pt[i] = (int32_t)st_rand_int(rng, -999, 999);
    for (s = 0; s < ns; ++s) {
        skel_call c;
        const int32_t *a, *x;
        st_context("in-place MapOverlap3D (whole) split %s", sp[s].label);
        x = (const int32_t *)skel_read(t);
        for (p = 0; p < D; ++p)
            for (i = 0; i < R; ++i)
                for (j = 0; j < C; ++j) ref3[(p * R + i) * C + j] = sp_ref3d(x, D, R, C, p, i, j, SKEL_EDGE_CONSTANT, ev);
        memset(&c, 0, sizeof c);
        c.in[0] = t; c.out = t; c.edge_value = &ev;
        ST_OK(sp_run(sp_ov3d, &c, &sp[s].v));
        sp_check_one_place(t);
        sp_check_vec(t, ref3, D * R * C);
        pt = (int32_t *)skel_write(t);     /* (values stay small) */
        for (i = 0; i < D * R * C; ++i) pt[i] = (int32_t)st_rand_int(rng, -999, 999);
        st_context("in-place MapOverlap (whole) split %s", sp[s].label);
        a = (const int32_t *)skel_read(v);
        for (i = 0; i < 101; ++i) ref[i] = sp_ref1(a, 1, 101, i, 1, SKEL_EDGE_CYCLIC, 0);
        memset(&c, 0, sizeof c);
        c.in[0] = v; c.out = v; c.edge = SKEL_EDGE_CYCLIC;
        ST_OK(sp_run(sp_ov1, &c, &sp[s].v));
        sp_check_one_place(v);
        sp_check_vec(v, ref, 101);
    }
    skel_free(v); skel_free(t);
    free(ref); free(ref3);
}

SKEL_TEST(split_forms_outputs_views_types_and_whole_forms)
{
    sp_split sp[16];
    uint64_t rng = st_seed("split-forms", 5, 9);
    size_t k;
    int ns;
    for (k = 0; k < SP_NSIZES; ++k) {
        ns = sp_splits(sp, sp_sizes[k] == SP_LARGE);
        sp_forms_vec(sp_sizes[k], sp, ns, &rng);
    }
    ns = sp_splits(sp, 0);
    sp_forms_mat(1, 7, sp, ns, &rng);
    sp_forms_mat(13, 7, sp, ns, &rng);
    sp_forms_mat(211, 33, sp, ns, &rng);
    sp_forms_whole(sp, ns, &rng);
    sp_pairs_split(0, 5, sp, ns, &rng);
    sp_pairs_split(1, 1, sp, ns, &rng);
    sp_pairs_split(2, 3, sp, ns, &rng);
    sp_pairs_split(13, 7, sp, ns, &rng);
    sp_pairs_split(211, 33, sp, ns, &rng);
    sp_pairs_split(97, 0, sp, ns, &rng);
    sp_ov3_split(1, 3, 4, sp, ns, &rng);
    sp_ov3_split(2, 5, 8, sp, ns, &rng);
    sp_ov3_split(7, 4, 8, sp, ns, &rng);
    sp_ov3_split(13, 3, 5, sp, ns, &rng);
    ns = sp_splits(sp, 1);
    sp_pairs_split(3001, 17, sp, ns, &rng);
    sp_ov3_split(67, 9, 12, sp, ns, &rng);
    st_context("");
}

SKEL_TEST(split_threads_share_inputs)
{
    const size_t n = 20011;
    uint64_t rng = st_seed("split-threads", 15, 16);
    skel_vec *a = sp_ivec(n, &rng), *b = sp_ivec(n, &rng);
    sp_thread th[6];
    pthread_t id[6];
    skel_plan *p = NULL;
    skel_variant v;
    int k, gpu = sp_opencl();
    memset(&v, 0, sizeof v);
    v.backend = "split";
    sp_part(&v, 0, "pool", 0.4, 2);
    sp_part(&v, 1, gpu ? "opencl" : "seq", 0.35, 0);
    sp_part(&v, 2, "seq", 0.25, 0);
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v));
    ST_OK(skel_set_plan(sp_map, p));
    for (k = 0; k < 6; ++k) {
        th[k].a = a; th[k].b = b;
        ST_OK(skel_vec_new(&th[k].r, SKEL_INT32, n));
        th[k].rounds = 4;
        ST_CHECK(pthread_create(&id[k], NULL, sp_thread_run, &th[k]) == 0);
    }
    for (k = 0; k < 6; ++k) pthread_join(id[k], NULL);
    skel_set_plan(sp_map, NULL);
    skel_plan_free(p);
    for (k = 0; k < 6; ++k) {
        ST_CHECK(th[k].ok);
        ST_CHECK(_skel_test_map_ok(th[k].r));
        skel_free(th[k].r);
    }
    ST_CHECK(_skel_test_map_ok(a));
    skel_free(a); skel_free(b);
}

/* ---- split variants in plans and from the tuner; refinement ---- */
typedef struct sp_log {
    int lines, bad;
    double first[SKEL_MAX_PARTS];   /* the variant's shares */
    char last[512];
} sp_log;

/* "Map sp_map: split shares refined: host 0.500 -> 0.600 (0.5 ms), opencl:0 ...":
   every place moves at most 0.1 a call and stays within 0.25 of the plan's. */
static void sp_log_sink(int level, const char *msg, void *user)
{
    sp_log *L = (sp_log *)user;
    const char *p = strstr(msg, "split shares refined:");
    int k = 0;
    (void)level;
    if (!p) return;
    snprintf(L->last, sizeof L->last, "%s", msg);
    for (p += 21; k < SKEL_MAX_PARTS && (p = strchr(p, ' ')) != NULL; ++k) {
        double from, to;
        char place[32];
        if (sscanf(p, " %31s %lf -> %lf", place, &from, &to) != 3) break;
        if (to - from > 0.1 + 1e-3 || from - to > 0.1 + 1e-3) L->bad = 1;
        if (to - L->first[k] > 0.25 + 1e-3 || L->first[k] - to > 0.25 + 1e-3) L->bad = 1;
        p = strchr(p + 1, ')');
        if (!p) break;
    }
    L->lines++;
}

/* The variant table of plan p as skel_plan_dump's text prints it. */
static void sp_variant_lines(const skel_plan *p, char *buf, size_t size)
{
    char path[96], line[512];
    size_t len = 0;
    FILE *f;
    buf[0] = 0;
    snprintf(path, sizeof path, "/tmp/skel-split-plan-%ld.txt", (long)getpid());
    ST_OK(skel_plan_dump(p, SKEL_DUMP_TEXT, path));
    f = fopen(path, "r");
    ST_CHECK(f != NULL);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "  v", 3) == 0 && len + strlen(line) < size) {
            memcpy(buf + len, line, strlen(line) + 1);
            len += strlen(line);
        }
    if (f) fclose(f);
    remove(path);
}

SKEL_TEST(split_plans_keep_shares_tuner_makes_splits_refinement_bounded)
{
    const size_t n = 400009;
    uint64_t rng = st_seed("split-plans", 17, 18);
    int gpu = sp_opencl(), k;
    skel_variant v, got, pool, v2;
    skel_plan *p, *q;
    char dir[64], path[128];
    memset(&v, 0, sizeof v);
    v.backend = "split";
    sp_part(&v, 0, "pool", 0.3, 2);
    sp_part(&v, 1, gpu ? "opencl" : "seq", 0.7, 0);
    v.parts[1].block = gpu ? 64 : 0;
    pool = v;
    memset(&pool, 0, sizeof pool);
    pool.backend = "pool";
    /* a plan keeps a split variant, parts, shares and parameters */
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, 1000, &v));
    ST_OK(skel_plan_add(p, 1001, SIZE_MAX, &pool));
    ST_OK(skel_plan_lookup(p, 500, &got));
    ST_CHECK(strcmp(got.backend, "split") == 0);
    ST_CHECK(got.parts[0].backend && strcmp(got.parts[0].backend, "pool") == 0);
    ST_CHECK(got.parts[1].backend && strcmp(got.parts[1].backend, gpu ? "opencl" : "seq") == 0);
    ST_CHECK(got.parts[2].backend == NULL);
    ST_CHECK(got.parts[0].share > 0.3 - 1e-9 && got.parts[0].share < 0.3 + 1e-9);
    ST_CHECK(got.parts[1].share > 0.7 - 1e-9 && got.parts[1].share < 0.7 + 1e-9);
    ST_EQ_INT(got.parts[0].threads, 2);
    ST_EQ_INT(got.parts[1].block, gpu ? 64 : 0);
    ST_OK(skel_plan_lookup(p, 5000, &got));
    ST_CHECK(strcmp(got.backend, "pool") == 0);
    skel_plan_free(p);
    if (!gpu) ST_SKIP("the tuner's splits and refinement need OpenCL's device as a second place");
    {   /* the tuner makes a split candidate at its point and measures it like any variant */
        skel_variant vars[2];
        skel_tune_desc d;
        skel_vec *a = sp_ivec(n, &rng), *b = sp_ivec(n, &rng), *r;
        skel_call c;
        size_t pt = n;
        char tab[4096], tab2[4096], *line;
        int splits = 0;
        ST_OK(skel_vec_new(&r, SKEL_INT32, n));
        memset(vars, 0, sizeof vars);
        vars[0].backend = "pool"; vars[0].threads = 2;
        vars[1].backend = "opencl";
        memset(&d, 0, sizeof d);
        memset(&c, 0, sizeof c);
        c.out = r; c.in[0] = a; c.in[1] = b;
        d.id = "split-test"; d.sk = sp_map; d.call = &c; d.dims = 1;
        d.lower[0] = d.upper[0] = n;
        d.variants = vars; d.nvariants = 2; d.splits = 1;
        d.nofile = 1; d.quiet = 1; d.reps = 2;
        d.time_budget = 20; d.timeout = 10;     /* a budget a loaded machine does not exhaust at one point */
        ST_OK(skel_tune(&d, &p));
        sp_variant_lines(p, tab, sizeof tab);
        for (line = tab; (line = strstr(line, "split")) != NULL; line += 5) splits++;
        if (splits < 1) ST_FAIL("no split variant in the tuned plan's table:\n%s", tab);
        snprintf(dir, sizeof dir, "/tmp/skel-split-XXXXXX");
        ST_CHECK(mkdtemp(dir) != NULL);
        snprintf(path, sizeof path, "%s/split.plan", dir);
        ST_OK(skel_plan_save(p, path));     /* and a plan file keeps them */
        ST_OK(skel_plan_load(&q, path));
        remove(path);
        rmdir(dir);
        ST_OK(skel_plan_lookup_point(q, &pt, 1, &v2));
        ST_OK(skel_plan_lookup_point(p, &pt, 1, &got));
        ST_CHECK(strcmp(v2.backend, got.backend) == 0);
        for (k = 0; k < SKEL_MAX_PARTS && got.parts[k].backend; ++k) {
            ST_CHECK(v2.parts[k].backend && strcmp(v2.parts[k].backend, got.parts[k].backend) == 0);
            ST_CHECK(v2.parts[k].share == got.parts[k].share);
        }
        sp_variant_lines(q, tab2, sizeof tab2);
        ST_CHECK(strcmp(tab, tab2) == 0);
        skel_plan_free(q);
        ST_OK(skel_plan_lookup_point(p, &pt, 1, &got));     /* whatever won, it runs and is right */
        ST_OK(skel_set_plan(sp_map, p));
        ST_OK(skel_run(sp_map, &c));
        {
            const int32_t *pa = (const int32_t *)skel_read(a), *pb = (const int32_t *)skel_read(b);
            const int32_t *pr = (const int32_t *)skel_read(r);
            size_t i;
            for (i = 0; i < n; ++i)
                if (pr[i] != 3 * pa[i] - pb[i]) ST_FAIL("tuned plan (%s): element %zu", got.backend, i);
        }
        skel_set_plan(sp_map, NULL);
        skel_plan_free(p);
        {   /* refinement: repeated calls move the shares, each step and in all bounded */
            sp_log L;
            memset(&L, 0, sizeof L);
            /* far from balanced, so that steps are taken and the 0.25
               bound is reached; the device's part the slower one (an
               OpenCL place has no completion stamp: its part's time is
               taken when the wait returns, after the host's part) */
            L.first[0] = 0.03;
            L.first[1] = 0.97;
            _skel_test_split_refine(2);     /* also below 50 us: the H100 takes a few */
            skel_set_log(sp_log_sink, &L);
            v.parts[0].share = 0.03;
            v.parts[1].share = 0.97;
            for (k = 0; k < 12; ++k) ST_OK(sp_run(sp_map, &c, &v));
            skel_set_log(NULL, NULL);
            _skel_test_split_refine(-1);
            ST_CHECK(L.lines >= 1);
            if (L.bad) ST_FAIL("a refinement step out of bounds: %s", L.last);
            {
                const int32_t *pa = (const int32_t *)skel_read(a), *pb = (const int32_t *)skel_read(b);
                const int32_t *pr = (const int32_t *)skel_read(r);
                size_t i;
                for (i = 0; i < n; ++i)
                    if (pr[i] != 3 * pa[i] - pb[i]) ST_FAIL("refined split: element %zu", i);
            }
        }
        skel_free(a); skel_free(b); skel_free(r);
    }
}

/* ---- the profile under SKEL_TRACE: a split call records its steps ---- */
static const char *const sp_steps[] = { "split: call", "split: layout", "split: prepare", "split: host data",
                                        "split: submit", "split: gpu part", "split: host part", "split: gpu finish",
                                        "split: record", "split: refine" };
#define SP_NSTEPS (sizeof sp_steps / sizeof *sp_steps)

/* two calls of pool | opencl: the first uploads 8 MiB (the host part runs
   as a pool task), the second finds its data in place (this thread runs
   the host part) */
SKEL_TEST_HIDDEN(child_split_trace_records_steps)
{
    const size_t n = (size_t)1 << 21;
    uint64_t rng = st_seed("split-trace", 3, 4);
    skel_vec *a = sp_ivec(n, &rng), *b = sp_ivec(n, &rng), *r;
    skel_variant v;
    skel_call c;
    const int32_t *pa, *pb, *pr;
    size_t i;
    int k;
    ST_CHECK(sp_opencl() > 0);
    ST_OK(skel_vec_new(&r, SKEL_INT32, n));
    memset(&v, 0, sizeof v);
    v.backend = "split";
    sp_part(&v, 0, "pool", 0.5, 2);
    sp_part(&v, 1, "opencl", 0.5, 0);
    memset(&c, 0, sizeof c);
    c.out = r; c.in[0] = a; c.in[1] = b;
    for (k = 0; k < 2; ++k) ST_OK(sp_run(sp_map, &c, &v));
    pa = (const int32_t *)skel_read(a); pb = (const int32_t *)skel_read(b); pr = (const int32_t *)skel_read(r);
    for (i = 0; i < n; ++i)
        if (pr[i] != 3 * pa[i] - pb[i]) ST_FAIL("traced split: element %zu", i);
    ST_OK(_skel_trace_flush());
    skel_free(a); skel_free(b); skel_free(r);
}

SKEL_TEST(split_trace_records_the_calls_steps)
{
    char path[256], envs[300], line[512], out[4096];
    const char *env[2];
    double c0[2] = { 0, 0 }, c1[2] = { 0, 0 }, t0, t1;
    int count[SP_NSTEPS], task = 0, inline_ = 0, calls = 0, outside = 0, rc;
    size_t k;
    FILE *f;
    if (!sp_opencl()) ST_SKIP("needs OpenCL's device as a second place");
    snprintf(path, sizeof path, "/tmp/skel_split_trace_%d.txt", (int)getpid());
    snprintf(envs, sizeof envs, "SKEL_TRACE=%s", path);
    env[0] = envs; env[1] = NULL;
    rc = st_child("child_split_trace_records_steps", env, 120, out, sizeof out);
    if (rc != 0) ST_FAIL("child failed (%d): %s", rc, out);
    memset(count, 0, sizeof count);
    for (k = 0; k < 2; ++k) {   /* pass 1: the calls' spans; pass 2: every step inside one */
        ST_CHECK((f = fopen(path, "r")) != NULL);
        while (f && fgets(line, sizeof line, f)) {
            char name[64];
            size_t s;
            int in = 0, j;
            if (sscanf(line, "ev %*d T %*d %*d %lf %lf %*u %*d %63[^\n]", &t0, &t1, name) != 3) continue;
            if (k == 0) {
                if (strcmp(name, "split: call") == 0 && calls < 2) { c0[calls] = t0; c1[calls] = t1; ++calls; }
                continue;
            }
            for (s = 0; s < SP_NSTEPS; ++s) count[s] += strcmp(name, sp_steps[s]) == 0;
            task += strcmp(name, "split: wait host") == 0;
            inline_ += strcmp(name, "split: host inline") == 0;
            for (j = 0; j < 2; ++j) in |= t0 >= c0[j] - 1 && t1 <= c1[j] + 1;    /* (microseconds, rounded) */
            outside += strncmp(name, "split: ", 7) == 0 && !in;
        }
        if (f) fclose(f);
    }
    unlink(path);
    ST_EQ_INT(calls, 2);
    for (k = 0; k < SP_NSTEPS; ++k)
        if (count[k] != 2) ST_FAIL("%d events \"%s\" for 2 split calls", count[k], sp_steps[k]);
    ST_EQ_INT(task, 1);         /* the first call's host part ran as a task ... */
    ST_EQ_INT(inline_, 1);      /* ... the second's on the calling thread */
    ST_EQ_INT(outside, 0);
}
