/* The expressive forms: 8- and 16-bit element types, struct elements and
   accumulators, accumulators of another type than the elements, several
   outputs, views (read-only whole containers the function indexes), the
   index in every skeleton, MapPairs / MapPairsReduce, 3-D containers and
   MapOverlap3D.  Each against a plain C loop on random data, at the sizes
   0, 1, 2, 7 (odd), 1021 (prime), 1025 (more than a block of work-items
   with their items), 65537, and beyond the last-level cache on seq and
   omp/3, on every backend variant (st_variant_get).  One instance serves
   every size, so PoCL and NVRTC compile each form once. */
#define _POSIX_C_SOURCE 200809L   /* mkdtemp */
#define SKEL_DEBUG      /* SKEL_AT checks view bounds on the CPU backends */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_cl.h"
#include "skel_test.h"

static const size_t sizes[] = { 0, 1, 2, 7, 1021, 1025, 65537 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* fn(n, vi) at every size on every variant; big: also beyond the cache
   (elements of esz bytes) on the variants that run it */
typedef void (*size_fn)(size_t n, int vi);
static void each_size(const char *what, size_fn fn, int big, size_t esz)
{
    int vi;
    size_t k;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const st_variant *v = st_variant_get(vi);
        for (k = 0; k < NSIZES; ++k) {
            st_context("%s %s n=%zu", what, v->label, sizes[k]);
            fn(sizes[k], vi);
        }
        if (big && v->big) {
            st_context("%s %s n=%zu (beyond the cache)", what, v->label, st_big_bytes() / esz);
            fn(st_big_bytes() / esz, vi);
        }
    }
    st_context("");
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ST_CHECK(p != NULL);
    return p;
}

/* a vector / matrix / 3-D container of type t holding a copy of h */
static skel_vec *vec_of(skel_type t, size_t n, const void *h)
{
    skel_vec *v = NULL;
    ST_OK(skel_vec_new_copy(&v, t, n, h));
    return v;
}
static skel_vec *vec_new(skel_type t, size_t n)
{
    skel_vec *v = NULL;
    ST_OK(skel_vec_new(&v, t, n));
    return v;
}
static skel_mat *mat_of(skel_type t, size_t r, size_t c, const void *h)
{
    skel_mat *m = NULL;
    ST_OK(skel_mat_new_copy(&m, t, r, c, h));
    return m;
}

/* ======================================================================
   8- and 16-bit elements; an accumulator wider than the elements
   ====================================================================== */
SKEL_FUNC(uint8_t, f_u8mix, (uint8_t a, uint8_t b), return (uint8_t)(a * 3 + b);)   /* wraps mod 256 */
SKEL_FUNC(int8_t, f_i8neg, (int8_t a), return (int8_t)(-a);)
SKEL_FUNC(uint16_t, f_u16sq, (uint16_t a), return (uint16_t)(a * a);)              /* wraps mod 65536 */
/* wraps mod 2^32 (the uint8 sum beyond the cache overflows int32 where the
   cache is 64 MiB: 2^25 elements) */
SKEL_FUNC(int32_t, f_addi, (int32_t a, int32_t b), return (int32_t)((uint32_t)a + (uint32_t)b);)
SKEL_FUNC(int16_t, f_i16max, (int16_t a, int16_t b), return a > b ? a : b;)
SKEL_FUNC(int16_t, f_i16lap, (const int16_t *a), return (int16_t)(a[-1] - 2 * a[0] + a[1]);)
SKEL_FUNC(double, f_sqdiff, (uint8_t a, uint8_t b), double d = (double)a - (double)b; return d * d;)
SKEL_FUNC(double, f_addd, (double a, double b), return a + b;)
SKEL_MAP(t_u8mix, f_u8mix, uint8_t, 2)
SKEL_MAP(t_i8neg, f_i8neg, int8_t, 1)
SKEL_MAP(t_u16sq, f_u16sq, uint16_t, 1)
SKEL_REDUCE_EX(t_u8sum, f_addi, int32_t, uint8_t)
SKEL_REDUCE_EX(t_fsumd, f_addd, double, float)
SKEL_SCAN(t_i16max, f_i16max, int16_t)
SKEL_OVERLAP(t_i16lap, f_i16lap, int16_t, 1)
SKEL_MAPREDUCE_EX(t_mse, f_sqdiff, f_addd, double, uint8_t, 2, SKEL_NO_INDEX, SKEL_NO_UNIFORM)

static void small_case(size_t n, int vi)
{
    uint64_t s = st_seed("small", n, (size_t)vi);
    uint8_t *a = (uint8_t *)xmalloc(n), *b = (uint8_t *)xmalloc(n);
    int8_t *c = (int8_t *)xmalloc(n);
    uint16_t *d = (uint16_t *)xmalloc(2 * n);
    int16_t *e = (int16_t *)xmalloc(2 * n);
    skel_vec *va, *vb, *vc, *vd, *ve, *o8, *oi8, *o16, *oi16, *olap;
    const uint8_t *g8;
    const int8_t *gi8;
    const uint16_t *g16;
    const int16_t *gi16;
    int32_t sum = -1;
    uint32_t rsum = 0;
    double mse = -1, rmse = 0;
    int16_t run = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        a[i] = (uint8_t)st_rand_int(&s, 0, 255);
        b[i] = (uint8_t)st_rand_int(&s, 0, 255);
        c[i] = (int8_t)st_rand_int(&s, -127, 127);
        d[i] = (uint16_t)st_rand_int(&s, 0, 65535);
        e[i] = (int16_t)st_rand_int(&s, -8000, 8000);
    }
    va = vec_of(SKEL_UINT8, n, a); vb = vec_of(SKEL_UINT8, n, b); vc = vec_of(SKEL_INT8, n, c);
    vd = vec_of(SKEL_UINT16, n, d); ve = vec_of(SKEL_INT16, n, e);
    o8 = vec_new(SKEL_UINT8, n); oi8 = vec_new(SKEL_INT8, n); o16 = vec_new(SKEL_UINT16, n);
    oi16 = vec_new(SKEL_INT16, n); olap = vec_new(SKEL_INT16, n);
    st_use_variant(t_u8mix, vi); st_use_variant(t_i8neg, vi); st_use_variant(t_u16sq, vi);
    st_use_variant(t_u8sum, vi); st_use_variant(t_i16max, vi); st_use_variant(t_i16lap, vi);
    st_use_variant(t_mse, vi);
    ST_OK(skel_map2(t_u8mix, o8, va, vb));
    ST_OK(skel_map1(t_i8neg, oi8, vc));
    ST_OK(skel_map1(t_u16sq, o16, vd));
    ST_OK(skel_scan(t_i16max, oi16, ve));
    ST_OK(skel_overlap(t_i16lap, olap, ve, SKEL_EDGE_DUPLICATE, NULL));
    ST_EQ_INT(skel_reduce(t_u8sum, va, &sum), n ? SKEL_OK : SKEL_EEMPTY);
    ST_EQ_INT(skel_mapreduce2(t_mse, va, vb, &mse), n ? SKEL_OK : SKEL_EEMPTY);
    g8 = (const uint8_t *)skel_read(o8); gi8 = (const int8_t *)skel_read(oi8);
    g16 = (const uint16_t *)skel_read(o16); gi16 = (const int16_t *)skel_read(oi16);
    for (i = 0; i < n; ++i) {
        int16_t l = (int16_t)(e[i ? i - 1 : 0] - 2 * e[i] + e[i + 1 < n ? i + 1 : n - 1]);
        if (g8[i] != (uint8_t)(a[i] * 3 + b[i])) ST_FAIL("uint8 map [%zu]: %d", i, g8[i]);
        if (gi8[i] != (int8_t)-c[i]) ST_FAIL("int8 map [%zu]: %d", i, gi8[i]);
        if (g16[i] != (uint16_t)(d[i] * d[i])) ST_FAIL("uint16 map [%zu]: %d", i, g16[i]);
        run = i == 0 || e[i] > run ? e[i] : run;
        if (gi16[i] != run) ST_FAIL("int16 max scan [%zu]: %d, want %d", i, gi16[i], run);
        if (((const int16_t *)skel_read(olap))[i] != l) ST_FAIL("int16 overlap [%zu]", i);
        rsum += a[i];
        rmse += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    }
    if (n) {
        ST_EQ_UINT((uint32_t)sum, rsum);
        ST_NEAR(mse, rmse, 1e-12);   /* integers below 2^53: exact in any order */
    }
    skel_free(va); skel_free(vb); skel_free(vc); skel_free(vd); skel_free(ve);
    skel_free(o8); skel_free(oi8); skel_free(o16); skel_free(oi16); skel_free(olap);
    free(a); free(b); free(c); free(d); free(e);
}
SKEL_TEST(forms_8_and_16_bit_elements_and_wider_sums) { each_size("small types", small_case, 1, 4); }

/* Reduce with a double accumulator over float data: whole, rows, columns
   (the partial rows of a column reduce are accumulators, not elements). */
static void fsumd_case(size_t n, int vi)
{
    uint64_t s = st_seed("fsumd", n, (size_t)vi);
    size_t R = n ? 1 + n % 37 : 0, C = n ? (n + R - 1) / R : 0, i, r, c;
    float *h = (float *)xmalloc(R * C * sizeof(float));
    double *rr = (double *)xmalloc(R * sizeof(double)), *rc = (double *)xmalloc(C * sizeof(double)), whole = 0, got = 0;
    skel_vec *m, *orow, *ocol;
    skel_call call;
    for (i = 0; i < R * C; ++i) h[i] = (float)st_rand_int(&s, -1000000, 1000000) * (1.0f / 1024);
    for (r = 0; r < R; ++r) rr[r] = 0;
    for (c = 0; c < C; ++c) rc[c] = 0;
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) { rr[r] += h[r * C + c]; rc[c] += h[r * C + c]; whole += h[r * C + c]; }
    m = mat_of(SKEL_FLOAT, R, C, h);
    orow = vec_new(SKEL_DOUBLE, R);
    ocol = vec_new(SKEL_DOUBLE, C);
    st_use_variant(t_fsumd, vi);
    ST_EQ_INT(skel_reduce(t_fsumd, m, &got), R * C != 0 ? SKEL_OK : SKEL_EEMPTY);
    /* multiples of 2^-10 below 2^31: every double sum is exact */
    if (R * C != 0) ST_CHECK(got == whole);
    memset(&call, 0, sizeof call);
    call.in[0] = m;
    call.out = orow;
    call.direction = SKEL_ROWS;
    ST_OK(skel_run(t_fsumd, &call));
    for (r = 0; r < R; ++r) if (((const double *)skel_read(orow))[r] != rr[r]) ST_FAIL("row %zu", r);
    call.out = ocol;
    call.direction = SKEL_COLS;
    ST_OK(skel_run(t_fsumd, &call));
    for (c = 0; c < C; ++c) if (((const double *)skel_read(ocol))[c] != rc[c]) ST_FAIL("column %zu", c);
    skel_free(m); skel_free(orow); skel_free(ocol);
    free(h); free(rr); free(rc);
}
SKEL_TEST(forms_reduce_floats_into_doubles_whole_rows_columns) { each_size("float->double", fsumd_case, 0, 4); }

/* ======================================================================
   struct elements and accumulators
   ====================================================================== */
SKEL_STRUCT(tf_pt, float x; float y; int32_t id;)
SKEL_STRUCT(tf_best, int32_t v; int32_t at;)
SKEL_STRUCT(tf_mom, double sx; double sy; double sxx; double syy; double sxy;)
SKEL_FUNC(tf_pt, f_rot, (tf_pt p, float s), tf_pt q; q.x = -p.y * s; q.y = p.x * s; q.id = p.id + 1; return q;)
/* the first of the least values: associative, not commutative */
SKEL_FUNC(tf_best, f_best, (tf_best a, tf_best b), return b.v < a.v ? b : a;)
SKEL_FUNC(tf_best, f_tag, (skel_index i, int32_t v), tf_best b; b.v = v; b.at = (int32_t)i; return b;)
SKEL_FUNC(tf_mom, f_mom, (float x, float y),
          tf_mom m; m.sx = x; m.sy = y; m.sxx = (double)x * x; m.syy = (double)y * y; m.sxy = (double)x * y; return m;)
SKEL_FUNC(tf_mom, f_momadd, (tf_mom a, tf_mom b),
          a.sx += b.sx; a.sy += b.sy; a.sxx += b.sxx; a.syy += b.syy; a.sxy += b.sxy; return a;)
SKEL_FUNC(tf_pt, f_ptsm, (const tf_pt *a),
          tf_pt q; q.x = a[-1].x + a[1].x; q.y = a[0].y; q.id = a[-1].id - a[1].id; return q;)
SKEL_MAP_X(t_rot, f_rot, SKEL_OUTS(tf_pt), SKEL_INS(tf_pt), SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_UNIFORM(float))
SKEL_MAPREDUCE_X(t_argmin, f_tag, f_best, tf_best, SKEL_INS(int32_t), SKEL_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
SKEL_REDUCE(t_bestred, f_best, tf_best)
SKEL_SCAN(t_bestscan, f_best, tf_best)
SKEL_MAPREDUCE_X(t_pearson, f_mom, f_momadd, tf_mom, SKEL_INS(float, float), SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
/* the same sums declared commutative: the GPUs fold them in any order */
SKEL_FUNC_COMMUTATIVE(tf_mom, f_momadd_c, (tf_mom a, tf_mom b),
          a.sx += b.sx; a.sy += b.sy; a.sxx += b.sxx; a.syy += b.syy; a.sxy += b.sxy; return a;)
SKEL_MAPREDUCE_X(t_pearson_c, f_mom, f_momadd_c, tf_mom, SKEL_INS(float, float), SKEL_NO_INDEX, SKEL_NO_VIEWS,
                 SKEL_NO_UNIFORM)
SKEL_OVERLAP(t_ptsm, f_ptsm, tf_pt, 1)

/* A vector of n points (for the declaration test in test_errors.c). */
skel_vec *tf_points(size_t n);
skel_vec *tf_points(size_t n)
{
    return vec_new(SKEL_TYPE(tf_pt), n);
}

static void struct_case(size_t n, int vi)
{
    uint64_t s = st_seed("struct", n, (size_t)vi);
    tf_pt *p = (tf_pt *)xmalloc(n * sizeof(tf_pt)), ev = { 100, -100, 7 };
    tf_best *tb = (tf_best *)xmalloc(n * sizeof(tf_best)), best = { -1, -1 }, rb = { 0, 0 };
    int32_t *v = (int32_t *)xmalloc(n * sizeof(int32_t));
    float *x = (float *)xmalloc(n * sizeof(float)), *y = (float *)xmalloc(n * sizeof(float)), scale = 2;
    skel_type pt = SKEL_TYPE(tf_pt), bt = SKEL_TYPE(tf_best);
    skel_vec *vp, *vq, *vsm, *vv, *vb, *vbs, *vx, *vy;
    tf_mom mom, rm;
    const tf_pt *q, *sm;
    const tf_best *bs;
    skel_call call;
    size_t i;
    ST_CHECK(pt >= SKEL_TYPE_COUNT && bt >= SKEL_TYPE_COUNT && pt != bt);
    ST_EQ_INT(skel_type_get(pt)->size, sizeof(tf_pt));
    for (i = 0; i < n; ++i) {
        p[i].x = (float)st_rand_int(&s, -999, 999);
        p[i].y = (float)st_rand_int(&s, -999, 999);
        p[i].id = (int32_t)i;
        v[i] = (int32_t)st_rand_int(&s, 0, 20);          /* many ties */
        tb[i].v = v[i]; tb[i].at = (int32_t)i;
        x[i] = (float)st_rand_int(&s, -4096, 4096) / 64;
        y[i] = (float)st_rand_int(&s, -4096, 4096) / 64;
    }
    vp = vec_of(pt, n, p); vq = vec_new(pt, n); vsm = vec_new(pt, n);
    vv = vec_of(SKEL_INT32, n, v); vb = vec_of(bt, n, tb); vbs = vec_new(bt, n);
    vx = vec_of(SKEL_FLOAT, n, x); vy = vec_of(SKEL_FLOAT, n, y);
    st_use_variant(t_rot, vi); st_use_variant(t_argmin, vi); st_use_variant(t_bestred, vi);
    st_use_variant(t_bestscan, vi); st_use_variant(t_pearson, vi); st_use_variant(t_ptsm, vi);
    st_use_variant(t_pearson_c, vi);
    memset(&call, 0, sizeof call);
    call.in[0] = vp; call.out = vq; call.uniform = &scale;
    ST_OK(skel_run(t_rot, &call));
    ST_OK(skel_scan(t_bestscan, vbs, vb));
    ST_OK(skel_overlap(t_ptsm, vsm, vp, SKEL_EDGE_CONSTANT, &ev));
    q = (const tf_pt *)skel_read(vq);
    bs = (const tf_best *)skel_read(vbs);
    sm = (const tf_pt *)skel_read(vsm);
    mom.sx = mom.sy = mom.sxx = mom.syy = mom.sxy = 0;
    rm = mom;
    for (i = 0; i < n; ++i) {
        tf_pt l = i ? p[i - 1] : ev, r = i + 1 < n ? p[i + 1] : ev;
        if (q[i].x != -p[i].y * 2 || q[i].y != p[i].x * 2 || q[i].id != (int32_t)i + 1) ST_FAIL("struct map [%zu]", i);
        if (i == 0 || tb[i].v < rb.v) rb = tb[i];
        if (bs[i].v != rb.v || bs[i].at != rb.at) ST_FAIL("struct scan [%zu]: (%d, %d), want (%d, %d)", i, bs[i].v, bs[i].at, rb.v, rb.at);
        if (sm[i].x != l.x + r.x || sm[i].y != p[i].y || sm[i].id != l.id - r.id) ST_FAIL("struct overlap [%zu]", i);
        rm.sx += x[i]; rm.sy += y[i]; rm.sxx += (double)x[i] * x[i]; rm.syy += (double)y[i] * y[i];
        rm.sxy += (double)x[i] * y[i];
    }
    ST_EQ_INT(skel_mapreduce1(t_argmin, vv, &best), n ? SKEL_OK : SKEL_EEMPTY);
    if (n) { ST_EQ_INT(best.v, rb.v); ST_EQ_INT(best.at, rb.at); }
    best.v = best.at = -1;
    ST_EQ_INT(skel_reduce(t_bestred, vb, &best), n ? SKEL_OK : SKEL_EEMPTY);
    if (n) { ST_EQ_INT(best.v, rb.v); ST_EQ_INT(best.at, rb.at); }
    ST_EQ_INT(skel_mapreduce2(t_pearson, vx, vy, &mom), n ? SKEL_OK : SKEL_EEMPTY);
    if (n) {   /* multiples of 2^-12 below 2^40: exact in any order */
        ST_CHECK(mom.sx == rm.sx && mom.sy == rm.sy);
        ST_CHECK(mom.sxx == rm.sxx && mom.syy == rm.syy && mom.sxy == rm.sxy);
    }
    memset(&mom, 0xff, sizeof mom);
    ST_EQ_INT(skel_mapreduce2(t_pearson_c, vx, vy, &mom), n ? SKEL_OK : SKEL_EEMPTY);
    if (n) {
        ST_CHECK(mom.sx == rm.sx && mom.sy == rm.sy);
        ST_CHECK(mom.sxx == rm.sxx && mom.syy == rm.syy && mom.sxy == rm.sxy);
    }
    skel_free(vp); skel_free(vq); skel_free(vsm); skel_free(vv); skel_free(vb); skel_free(vbs);
    skel_free(vx); skel_free(vy);
    free(p); free(tb); free(v); free(x); free(y);
}
SKEL_TEST(forms_struct_elements_and_struct_accumulators) { each_size("structs", struct_case, 1, sizeof(tf_mom)); }

/* A struct of two double sums from three floats (12 bytes in, 16 out): the
   GPU's register-folding reduce then takes 4 elements a work-item a tile
   (its item count rounded down to a power of two, which divides the
   block); the running value is ordered: exact sums of multiples of 2^-6. */
SKEL_STRUCT(tf_two, double s; double w;)
SKEL_FUNC(tf_two, f_three, (float x, float y, float z), tf_two t; t.s = (double)x * y; t.w = (double)z - x; return t;)
SKEL_FUNC(tf_two, f_twoadd, (tf_two a, tf_two b), a.s += b.s; a.w += b.w; return a;)
SKEL_MAPREDUCE_X(t_three, f_three, f_twoadd, tf_two, SKEL_INS(float, float, float), SKEL_NO_INDEX, SKEL_NO_VIEWS,
                 SKEL_NO_UNIFORM)
static void three_case(size_t n, int vi)
{
    uint64_t s = st_seed("three", n, (size_t)vi);
    float *h[3];
    skel_vec *v[3];
    tf_two got = { 0, 0 }, want = { 0, 0 };
    skel_call call;
    size_t i;
    int k;
    for (k = 0; k < 3; ++k) {
        h[k] = (float *)xmalloc(n * sizeof(float));
        for (i = 0; i < n; ++i) h[k][i] = (float)st_rand_int(&s, -640, 640) / 64;
        v[k] = vec_of(SKEL_FLOAT, n, h[k]);
    }
    for (i = 0; i < n; ++i) { want.s += (double)h[0][i] * h[1][i]; want.w += (double)h[2][i] - h[0][i]; }
    st_use_variant(t_three, vi);
    memset(&call, 0, sizeof call);
    call.in[0] = v[0]; call.in[1] = v[1]; call.in[2] = v[2]; call.result = &got;
    ST_EQ_INT(skel_run(t_three, &call), n ? SKEL_OK : SKEL_EEMPTY);
    if (n && (got.s != want.s || got.w != want.w)) ST_FAIL("three floats: (%g, %g), want (%g, %g)", got.s, got.w, want.s, want.w);
    for (k = 0; k < 3; ++k) { skel_free(v[k]); free(h[k]); }
}
SKEL_TEST(forms_struct_accumulator_from_three_inputs) { each_size("three inputs", three_case, 1, 12); }

/* ======================================================================
   several outputs
   ====================================================================== */
SKEL_FUNC(void, f_split, (float a, int32_t b, float *s, int32_t *d, uint8_t *pos),
          *s = a + (float)b; *d = b * 2; *pos = (uint8_t)(a > 0);)
SKEL_FUNC(void, f_four, (skel_index i, float a, float *o0, double *o1, int64_t *o2, tf_pt *o3),
          *o0 = a * 2; *o1 = (double)a + 0.5; *o2 = (int64_t)i * 3; o3->x = a; o3->y = -a; o3->id = (int32_t)(i % 1000);)
/* gradient and a smoothed value of an 8-bit line, plus where they are */
SKEL_FUNC(void, f_grad, (skel_index r, skel_index c, const uint8_t *a, float *g, int16_t *sm),
          *g = (float)a[1] - (float)a[-1] + (float)(c % 3); *sm = (int16_t)(a[-1] + a[0] + a[1] + r);)
SKEL_MAP_X(t_split, f_split, SKEL_OUTS(float, int32_t, uint8_t), SKEL_INS(float, int32_t), SKEL_NO_INDEX, SKEL_NO_VIEWS,
           SKEL_NO_UNIFORM)
SKEL_MAP_X(t_four, f_four, SKEL_OUTS(float, double, int64_t, tf_pt), SKEL_INS(float), SKEL_INDEX, SKEL_NO_VIEWS,
           SKEL_NO_UNIFORM)
SKEL_OVERLAP_X(t_grad, f_grad, SKEL_OUTS(float, int16_t), uint8_t, 1, SKEL_INDEX2D, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
SKEL_FUNC(void, f_twin, (float a, float *x, float *y), *x = a; *y = -a;)
SKEL_MAP_X(t_twin, f_twin, SKEL_OUTS(float, float), SKEL_INS(float), SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)

static void outs_case(size_t n, int vi)
{
    uint64_t s = st_seed("outs", n, (size_t)vi);
    float *a = (float *)xmalloc(n * sizeof(float));
    int32_t *b = (int32_t *)xmalloc(n * sizeof(int32_t));
    skel_vec *va, *vb, *o1, *o2, *f0, *f1, *f2, *f3;
    skel_call call;
    size_t i;
    for (i = 0; i < n; ++i) { a[i] = (float)st_rand_int(&s, -5000, 5000) / 8; b[i] = (int32_t)st_rand_int(&s, -9999, 9999); }
    va = vec_of(SKEL_FLOAT, n, a); vb = vec_of(SKEL_INT32, n, b);
    o1 = vec_new(SKEL_INT32, n); o2 = vec_new(SKEL_UINT8, n);
    f0 = vec_new(SKEL_FLOAT, n); f1 = vec_new(SKEL_DOUBLE, n); f2 = vec_new(SKEL_INT64, n); f3 = vec_new(SKEL_TYPE(tf_pt), n);
    st_use_variant(t_split, vi);
    st_use_variant(t_four, vi);
    memset(&call, 0, sizeof call);
    call.in[0] = va; call.in[1] = vb;
    call.outs[0] = va;                      /* in place: the first output overwrites in[0] */
    call.outs[1] = o1; call.outs[2] = o2;
    ST_OK(skel_run(t_split, &call));
    for (i = 0; i < n; ++i) {
        if (((const float *)skel_read(va))[i] != a[i] + (float)b[i]) ST_FAIL("output 0 [%zu]", i);
        if (((const int32_t *)skel_read(o1))[i] != b[i] * 2) ST_FAIL("output 1 [%zu]", i);
        if (((const uint8_t *)skel_read(o2))[i] != (a[i] > 0)) ST_FAIL("output 2 [%zu]", i);
    }
    memset(&call, 0, sizeof call);
    call.in[0] = vb;
    ST_CHECK(skel_write(va) != NULL);
    memcpy(skel_write(va), a, n * sizeof(float));
    call.in[0] = va;
    call.out = f0; call.outs[1] = f1; call.outs[2] = f2; call.outs[3] = f3;
    ST_OK(skel_run(t_four, &call));
    for (i = 0; i < n; ++i) {
        const tf_pt *p3 = (const tf_pt *)skel_read(f3) + i;
        if (((const float *)skel_read(f0))[i] != a[i] * 2 || ((const double *)skel_read(f1))[i] != (double)a[i] + 0.5 ||
            ((const int64_t *)skel_read(f2))[i] != (int64_t)i * 3 || p3->x != a[i] || p3->y != -a[i] ||
            p3->id != (int32_t)(i % 1000))
            ST_FAIL("four outputs [%zu]", i);
    }
    skel_free(va); skel_free(vb); skel_free(o1); skel_free(o2);
    skel_free(f0); skel_free(f1); skel_free(f2); skel_free(f3);
    free(a); free(b);
}
SKEL_TEST(forms_map_with_several_outputs_of_several_types) { each_size("several outputs", outs_case, 1, 64); }

/* The gradient instance along a vector, matrix rows and matrix columns. */
static void grad_case(size_t n, int vi)
{
    uint64_t s = st_seed("grad", n, (size_t)vi);
    size_t R = n > 7 ? 7 : 1, C = n / R, i, r, c;
    int dir;
    uint8_t *h = (uint8_t *)xmalloc(R * C);
    skel_vec *in[2], *g, *sm;
    for (i = 0; i < R * C; ++i) h[i] = (uint8_t)st_rand_int(&s, 0, 255);
    in[0] = vec_of(SKEL_UINT8, R * C, h);
    in[1] = mat_of(SKEL_UINT8, R, C, h);
    st_use_variant(t_grad, vi);
    for (dir = 0; dir < 3; ++dir) {
        skel_vec *src = in[dir ? 1 : 0];
        skel_call call;
        const float *gg;
        const int16_t *ss;
        int d = dir == 0 ? 0 : dir == 1 ? SKEL_ROWS : SKEL_COLS;
        if (dir == 0) { g = vec_new(SKEL_FLOAT, R * C); sm = vec_new(SKEL_INT16, R * C); }
        else { ST_OK(skel_mat_new(&g, SKEL_FLOAT, R, C)); ST_OK(skel_mat_new(&sm, SKEL_INT16, R, C)); }
        memset(&call, 0, sizeof call);
        call.in[0] = src; call.outs[0] = g; call.outs[1] = sm;
        call.direction = d; call.edge = SKEL_EDGE_CYCLIC;
        if (dir == 2 && R < 2) { skel_free(g); skel_free(sm); continue; }
        ST_OK(skel_run(t_grad, &call));
        gg = (const float *)skel_read(g);
        ss = (const int16_t *)skel_read(sm);
        for (r = 0; r < R; ++r)
            for (c = 0; c < C; ++c) {
                size_t L = dir == 2 ? R : dir == 1 ? C : R * C, k = dir == 2 ? r : dir == 1 ? c : r * C + c;
                size_t km = (k + L - 1) % L, kp = (k + 1) % L;
                size_t at = r * C + c, am, ap;
                int row = dir == 0 ? 0 : (int)r, col = dir == 0 ? (int)(r * C + c) : (int)c;
                am = dir == 2 ? km * C + c : dir == 1 ? r * C + km : km;
                ap = dir == 2 ? kp * C + c : dir == 1 ? r * C + kp : kp;
                if (gg[at] != (float)h[ap] - (float)h[am] + (float)(col % 3)) ST_FAIL("dir %d gradient (%zu, %zu)", dir, r, c);
                if (ss[at] != (int16_t)(h[am] + h[at] + h[ap] + row)) ST_FAIL("dir %d smoothed (%zu, %zu)", dir, r, c);
            }
        skel_free(g); skel_free(sm);
    }
    skel_free(in[0]); skel_free(in[1]); free(h);
}
SKEL_TEST(forms_overlap_with_two_outputs_and_index_every_direction) { each_size("overlap outputs", grad_case, 0, 1); }

/* ======================================================================
   views and the index in every skeleton
   ====================================================================== */
SKEL_FUNC(float, f_look, (skel_index i, float a, skel_view_float t, skel_view_int32_t m),
          return a * SKEL_AT(t, i % t.size) + (float)SKEL_AT2(m, i % m.rows, i % m.cols);)
SKEL_FUNC(double, f_wdot, (skel_index i, float a, skel_view_double w), return (double)a * SKEL_AT(w, (i * 7) % w.size);)
SKEL_FUNC(float, f_ovv, (skel_index i, const float *a, skel_view_float f, float u),
          return a[-1] + a[1] - 2 * a[0] + u * SKEL_AT(f, i % f.size);)
/* a masked Jacobi step: (a[-1] + a[1] + a[-st] + a[st] - f) / 4 where mask */
SKEL_FUNC(float, f_jacobi, (skel_index r, skel_index c, const float *a, skel_index st, skel_view_float f, skel_view_uint8_t m),
          return SKEL_AT2(m, r, c) ? (a[-1] + a[1] + a[-st] + a[st] - SKEL_AT2(f, r, c)) * 0.25f : a[0];)
SKEL_FUNC(float, f_mav, (skel_index i, const float *v, float e, skel_view_float w),
          return v[(skel_index)e] + SKEL_AT(w, i % w.size);)
SKEL_FUNC(float, f_oob, (skel_index i, float a, skel_view_float t), return a + SKEL_AT(t, i + 1);)
SKEL_MAP_X(t_look, f_look, SKEL_OUTS(float), SKEL_INS(float), SKEL_INDEX, SKEL_VIEWS(float, int32_t), SKEL_NO_UNIFORM)
SKEL_MAPREDUCE_X(t_wdot, f_wdot, f_addd, double, SKEL_INS(float), SKEL_INDEX, SKEL_VIEWS(double), SKEL_NO_UNIFORM)
SKEL_FUNC_COMMUTATIVE(double, f_addd_c, (double a, double b), return a + b;)
/* commutative: the GPUs fold it in any order, the index and the view from registers */
SKEL_MAPREDUCE_X(t_wdot_c, f_wdot, f_addd_c, double, SKEL_INS(float), SKEL_INDEX, SKEL_VIEWS(double), SKEL_NO_UNIFORM)
SKEL_OVERLAP_X(t_ovv, f_ovv, SKEL_OUTS(float), float, 1, SKEL_INDEX, SKEL_VIEWS(float), SKEL_UNIFORM(float))
SKEL_OVERLAP2D_X(t_jacobi, f_jacobi, float, 1, 1, SKEL_UNWEIGHTED, SKEL_INDEX2D, SKEL_VIEWS(float, uint8_t), SKEL_NO_UNIFORM)
SKEL_MAPARRAY_X(t_mav, f_mav, float, SKEL_INDEX, SKEL_VIEWS(float), SKEL_NO_UNIFORM)
SKEL_MAP_X(t_oob, f_oob, SKEL_OUTS(float), SKEL_INS(float), SKEL_INDEX, SKEL_VIEWS(float), SKEL_NO_UNIFORM)

static void views_case(size_t n, int vi)
{
    uint64_t s = st_seed("views", n, (size_t)vi);
    size_t i, R = n > 31 ? 31 : 1, C = n / R, r, c;
    float *a = (float *)xmalloc(n * sizeof(float)), t[37], u = 0.5f, *f = (float *)xmalloc(R * C * sizeof(float));
    int32_t m[5 * 7];
    double w[11], dot = -1, rdot = 0;
    uint8_t *mask = (uint8_t *)xmalloc(R * C);
    skel_vec *va, *vt, *vm, *vw, *vo, *vf, *vmask, *ma, *mo, *idx, *vidx;
    skel_call call;
    const float *got;
    for (i = 0; i < n; ++i) a[i] = (float)st_rand_int(&s, -300, 300) / 4;
    for (i = 0; i < 37; ++i) t[i] = (float)st_rand_int(&s, -8, 8);
    for (i = 0; i < 35; ++i) m[i] = (int32_t)st_rand_int(&s, -50, 50);
    for (i = 0; i < 11; ++i) w[i] = (double)st_rand_int(&s, -16, 16) / 4;
    for (i = 0; i < R * C; ++i) { f[i] = (float)st_rand_int(&s, -40, 40); mask[i] = (uint8_t)(st_rand_int(&s, 0, 3) != 0); }
    va = vec_of(SKEL_FLOAT, n, a); vt = vec_of(SKEL_FLOAT, 37, t); vm = mat_of(SKEL_INT32, 5, 7, m);
    vw = vec_of(SKEL_DOUBLE, 11, w); vo = vec_new(SKEL_FLOAT, n);
    vf = mat_of(SKEL_FLOAT, R, C, f); vmask = mat_of(SKEL_UINT8, R, C, mask);
    ma = mat_of(SKEL_FLOAT, R, C, a); ST_OK(skel_mat_new(&mo, SKEL_FLOAT, R, C));
    st_use_variant(t_look, vi); st_use_variant(t_wdot, vi); st_use_variant(t_ovv, vi);
    st_use_variant(t_jacobi, vi); st_use_variant(t_mav, vi);
    /* Map: two views of two shapes */
    memset(&call, 0, sizeof call);
    call.in[0] = va; call.out = vo; call.views[0] = vt; call.views[1] = vm;
    ST_OK(skel_run(t_look, &call));
    got = (const float *)skel_read(vo);
    for (i = 0; i < n; ++i)
        if (got[i] != a[i] * t[i % 37] + (float)m[(i % 5) * 7 + i % 7]) ST_FAIL("map with views [%zu]", i);
    /* MapReduce with a view */
    memset(&call, 0, sizeof call);
    call.in[0] = va; call.result = &dot; call.views[0] = vw;
    ST_EQ_INT(skel_run(t_wdot, &call), n ? SKEL_OK : SKEL_EEMPTY);
    for (i = 0; i < n; ++i) rdot += (double)a[i] * w[(i * 7) % 11];
    if (n) ST_CHECK(dot == rdot);   /* quarters times quarters: exact */
    st_use_variant(t_wdot_c, vi);
    dot = -1;
    call.result = &dot;
    ST_EQ_INT(skel_run(t_wdot_c, &call), n ? SKEL_OK : SKEL_EEMPTY);
    if (n) ST_CHECK(dot == rdot);   /* exact in any order too */
    /* MapOverlap 1D with index, view, uniform */
    memset(&call, 0, sizeof call);
    call.in[0] = va; call.out = vo; call.views[0] = vt; call.uniform = &u; call.edge = SKEL_EDGE_DUPLICATE;
    ST_OK(skel_run(t_ovv, &call));
    got = (const float *)skel_read(vo);
    for (i = 0; i < n; ++i) {
        float l = a[i ? i - 1 : 0], rr = a[i + 1 < n ? i + 1 : n - 1];
        if (got[i] != l + rr - 2 * a[i] + u * t[i % 37]) ST_FAIL("overlap with a view [%zu]", i);
    }
    /* MapOverlap 2D: a masked Jacobi step with a right-hand side */
    memset(&call, 0, sizeof call);
    call.in[0] = ma; call.out = mo; call.views[0] = vf; call.views[1] = vmask; call.edge = SKEL_EDGE_CONSTANT;
    ST_OK(skel_run(t_jacobi, &call));
    got = (const float *)skel_read(mo);
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) {
            float up = r ? a[(r - 1) * C + c] : 0, dn = r + 1 < R ? a[(r + 1) * C + c] : 0;
            float lf = c ? a[r * C + c - 1] : 0, rt = c + 1 < C ? a[r * C + c + 1] : 0;
            float want = mask[r * C + c] ? (lf + rt + up + dn - f[r * C + c]) * 0.25f : a[r * C + c];
            if (got[r * C + c] != want) ST_FAIL("Jacobi (%zu, %zu): %g, want %g", r, c, got[r * C + c], want);
        }
    /* MapArray with index and a view: r[i] = t[idx[i]] + w[i % 37] */
    {
        float *ix = (float *)xmalloc(n * sizeof(float));
        for (i = 0; i < n; ++i) ix[i] = (float)st_rand_int(&s, 0, 36);
        vidx = vec_of(SKEL_FLOAT, n, ix);
        idx = vt;
        memset(&call, 0, sizeof call);
        call.in[0] = idx; call.in[1] = vidx; call.out = vo; call.views[0] = vt;
        ST_OK(skel_run(t_mav, &call));
        got = (const float *)skel_read(vo);
        for (i = 0; i < n; ++i) if (got[i] != t[(size_t)ix[i]] + t[i % 37]) ST_FAIL("maparray with a view [%zu]", i);
        skel_free(vidx);
        free(ix);
    }
    skel_free(va); skel_free(vt); skel_free(vm); skel_free(vw); skel_free(vo); skel_free(vf); skel_free(vmask);
    skel_free(ma); skel_free(mo);
    free(a); free(f); free(mask);
}
SKEL_TEST(forms_views_and_indices_in_map_mapreduce_overlaps_maparray) { each_size("views", views_case, 0, 4); }

/* A view that would be written, or has another type, or is missing, is
   refused; an out-of-bounds SKEL_AT fails the call on the CPU backends
   (SKEL_DEBUG). */
SKEL_TEST(forms_views_are_checked)
{
    skel_vec *a = vec_new(SKEL_FLOAT, 10), *o = vec_new(SKEL_FLOAT, 10), *t = vec_new(SKEL_FLOAT, 10);
    skel_vec *ti = vec_new(SKEL_INT32, 35), *td = vec_new(SKEL_DOUBLE, 10);
    skel_call call;
    memset(&call, 0, sizeof call);
    call.in[0] = a; call.out = o; call.views[0] = t;
    ST_EQ_INT(skel_run(t_look, &call), SKEL_EINVAL);                        /* views[1] missing */
    ST_CHECK(strstr(skel_last_error(), "views[1] is NULL") != NULL);
    call.views[1] = td;
    ST_EQ_INT(skel_run(t_look, &call), SKEL_ETYPE);
    ST_CHECK(strstr(skel_last_error(), "views[1] holds double") != NULL);
    call.views[1] = ti;
    call.views[0] = o;
    ST_EQ_INT(skel_run(t_look, &call), SKEL_EINVAL);                        /* the output as a view */
    ST_CHECK(strstr(skel_last_error(), "read-only") != NULL);
    call.views[0] = t;
    call.views[2] = t;
    ST_EQ_INT(skel_run(t_look, &call), SKEL_EINVAL);
    call.views[2] = NULL;
    ST_OK(skel_set_plan(t_oob, NULL));
    ST_OK(skel_set_plan(t_look, NULL));
    ST_OK(skel_run(t_look, &call));
    memset(&call, 0, sizeof call);
    call.in[0] = a; call.out = o; call.views[0] = t;
    ST_EQ_INT(skel_run(t_oob, &call), SKEL_EINVAL);                         /* reads t[10] */
    ST_CHECK(strstr(skel_last_error(), "out of bounds") != NULL);
    skel_free(a); skel_free(o); skel_free(t); skel_free(ti); skel_free(td);
}

/* Outputs: one per declared output, each of its type and shape, distinct. */
SKEL_TEST(forms_several_outputs_are_checked)
{
    skel_vec *a = vec_new(SKEL_FLOAT, 10), *b = vec_new(SKEL_INT32, 10), *o1 = vec_new(SKEL_INT32, 10);
    skel_vec *o2 = vec_new(SKEL_UINT8, 10), *short2 = vec_new(SKEL_UINT8, 9), *fo = vec_new(SKEL_FLOAT, 10);
    skel_mat *m = NULL, *mf = NULL, *ms = NULL;
    skel_call call;
    memset(&call, 0, sizeof call);
    call.in[0] = a; call.in[1] = b; call.out = fo; call.outs[1] = o1;
    ST_EQ_INT(skel_run(t_split, &call), SKEL_EINVAL);
    ST_CHECK(strstr(skel_last_error(), "outs[2] is NULL") != NULL);
    call.outs[2] = short2;
    ST_EQ_INT(skel_run(t_split, &call), SKEL_ESIZE);
    call.outs[2] = o1;
    ST_EQ_INT(skel_run(t_split, &call), SKEL_ETYPE);
    call.outs[2] = o2;
    call.outs[0] = a;
    ST_EQ_INT(skel_run(t_split, &call), SKEL_EINVAL);                      /* out and outs[0] differ */
    call.outs[0] = NULL;
    ST_OK(skel_run(t_split, &call));
    call.outs[3] = o2;
    ST_EQ_INT(skel_run(t_split, &call), SKEL_EINVAL);                      /* a fourth output */
    /* two outputs cannot be one container */
    memset(&call, 0, sizeof call);
    call.in[0] = a; call.outs[0] = fo; call.outs[1] = fo;
    ST_EQ_INT(skel_run(t_twin, &call), SKEL_EINVAL);
    ST_CHECK(strstr(skel_last_error(), "the same container") != NULL);
    /* rows then columns feeds one pass into the next: one output only */
    ST_OK(skel_mat_new(&m, SKEL_UINT8, 2, 5));
    ST_OK(skel_mat_new(&mf, SKEL_FLOAT, 2, 5));
    ST_OK(skel_mat_new(&ms, SKEL_INT16, 2, 5));
    memset(&call, 0, sizeof call);
    call.in[0] = m; call.outs[0] = mf; call.outs[1] = ms;
    ST_OK(skel_run(t_grad, &call));
    call.direction = SKEL_ROWS_COLS;
    ST_EQ_INT(skel_run(t_grad, &call), SKEL_EUNSUPPORTED);
    skel_free(a); skel_free(b); skel_free(o1); skel_free(o2); skel_free(short2); skel_free(fo); skel_free(m);
    skel_free(mf); skel_free(ms);
}

/* ======================================================================
   MapPairs, MapPairsReduce
   ====================================================================== */
SKEL_STRUCT(tf_p3, float x; float y; float z;)
SKEL_STRUCT(tf_nn, int32_t d; int32_t at;)
SKEL_FUNC(float, f_dist2, (tf_p3 a, tf_p3 b),
          float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z; return dx * dx + dy * dy + dz * dz;)
SKEL_FUNC(int32_t, f_pix, (skel_index r, skel_index c, int32_t a, int32_t b, int32_t e, skel_view_int32_t w, int32_t u),
          return a * (int32_t)(r % 5) + b - e * (int32_t)(c % 3) + SKEL_AT(w, (r + c) % w.size) * u;)
/* squared distance, and the column (row) index as a tie-breaker: ties are
   common on these integer grids, so only the order picks the answer */
SKEL_FUNC(tf_nn, f_nn, (skel_index r, skel_index c, tf_p3 a, tf_p3 b),
          tf_nn n; float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
          n.d = (int32_t)(dx * dx + dy * dy + dz * dz); n.at = (int32_t)(r * 100000 + c); return n;)
SKEL_FUNC(tf_nn, f_nnmin, (tf_nn a, tf_nn b), return b.d < a.d ? b : a;)
SKEL_MAPPAIRS(t_dist, f_dist2, float, SKEL_INS(tf_p3), SKEL_INS(tf_p3))
SKEL_MAPPAIRS_X(t_pix, f_pix, int32_t, SKEL_INS(int32_t), SKEL_INS(int32_t, int32_t), SKEL_INDEX2D, SKEL_VIEWS(int32_t),
                SKEL_UNIFORM(int32_t))
SKEL_MAPPAIRSREDUCE_X(t_nearest, f_nn, f_nnmin, tf_nn, SKEL_INS(tf_p3), SKEL_INS(tf_p3), SKEL_INDEX2D, SKEL_NO_VIEWS,
                      SKEL_NO_UNIFORM)

static void pairs_case(size_t n, int vi)
{
    uint64_t s = st_seed("pairs", n, (size_t)vi);
    size_t R = n > 300 ? 300 + n % 7 : n, C = n > 300 ? n / 60 + 1 : (n * 3) / 2 + 1, i, r, c;
    tf_p3 *p = (tf_p3 *)xmalloc(R * sizeof(tf_p3)), *q = (tf_p3 *)xmalloc(C * sizeof(tf_p3));
    int32_t *ia = (int32_t *)xmalloc(R * sizeof(int32_t)), *ib = (int32_t *)xmalloc(C * sizeof(int32_t));
    int32_t *ic = (int32_t *)xmalloc(C * sizeof(int32_t)), w[13], u = 3;
    skel_type t3 = SKEL_TYPE(tf_p3), tn = SKEL_TYPE(tf_nn);
    skel_vec *vp, *vq, *va, *vb, *vc, *vw, *nr, *nc;
    skel_mat *d2, *pix;
    skel_call call;
    const float *gd;
    const int32_t *gp;
    for (i = 0; i < R; ++i) {
        p[i].x = (float)st_rand_int(&s, -6, 6); p[i].y = (float)st_rand_int(&s, -6, 6); p[i].z = (float)st_rand_int(&s, -6, 6);
        ia[i] = (int32_t)st_rand_int(&s, -99, 99);
    }
    for (i = 0; i < C; ++i) {
        q[i].x = (float)st_rand_int(&s, -6, 6); q[i].y = (float)st_rand_int(&s, -6, 6); q[i].z = (float)st_rand_int(&s, -6, 6);
        ib[i] = (int32_t)st_rand_int(&s, -99, 99);
        ic[i] = (int32_t)st_rand_int(&s, -99, 99);
    }
    for (i = 0; i < 13; ++i) w[i] = (int32_t)st_rand_int(&s, -9, 9);
    vp = vec_of(t3, R, p); vq = vec_of(t3, C, q); va = vec_of(SKEL_INT32, R, ia); vb = vec_of(SKEL_INT32, C, ib);
    vc = vec_of(SKEL_INT32, C, ic); vw = vec_of(SKEL_INT32, 13, w); nr = vec_new(tn, R); nc = vec_new(tn, C);
    ST_OK(skel_mat_new(&d2, SKEL_FLOAT, R, C));
    ST_OK(skel_mat_new(&pix, SKEL_INT32, R, C));
    st_use_variant(t_dist, vi); st_use_variant(t_pix, vi); st_use_variant(t_nearest, vi);
    memset(&call, 0, sizeof call);
    call.in[0] = vp; call.in[1] = vq; call.out = d2;
    ST_OK(skel_run(t_dist, &call));
    memset(&call, 0, sizeof call);
    call.in[0] = va; call.in[1] = vb; call.in[2] = vc; call.out = pix; call.views[0] = vw; call.uniform = &u;
    ST_OK(skel_run(t_pix, &call));
    gd = (const float *)skel_read(d2);
    gp = (const int32_t *)skel_read(pix);
    for (r = 0; r < R; ++r)
        for (c = 0; c < C; ++c) {
            float dx = p[r].x - q[c].x, dy = p[r].y - q[c].y, dz = p[r].z - q[c].z;
            if (gd[r * C + c] != dx * dx + dy * dy + dz * dz) ST_FAIL("distance (%zu, %zu)", r, c);
            if (gp[r * C + c] != ia[r] * (int32_t)(r % 5) + ib[c] - ic[c] * (int32_t)(c % 3) + w[(r + c) % 13] * u)
                ST_FAIL("pairs with index, view, uniform (%zu, %zu)", r, c);
        }
    memset(&call, 0, sizeof call);
    call.in[0] = vp; call.in[1] = vq; call.out = nr; call.direction = SKEL_ROWS;
    ST_EQ_INT(skel_run(t_nearest, &call), R && !C ? SKEL_EEMPTY : SKEL_OK);
    call.out = nc; call.direction = SKEL_COLS;
    ST_EQ_INT(skel_run(t_nearest, &call), C && !R ? SKEL_EEMPTY : SKEL_OK);
    for (r = 0; r < R && C; ++r) {       /* the first nearest column of each row */
        const tf_nn *g = (const tf_nn *)skel_read(nr) + r;
        int32_t bd = -1, bat = 0;
        for (c = 0; c < C; ++c) {
            float dx = p[r].x - q[c].x, dy = p[r].y - q[c].y, dz = p[r].z - q[c].z;
            int32_t d = (int32_t)(dx * dx + dy * dy + dz * dz);
            if (bd < 0 || d < bd) { bd = d; bat = (int32_t)(r * 100000 + c); }
        }
        if (g->d != bd || g->at != bat) ST_FAIL("nearest of row %zu: (%d, %d), want (%d, %d)", r, g->d, g->at, bd, bat);
    }
    for (c = 0; c < C && R; ++c) {       /* the first nearest row of each column */
        const tf_nn *g = (const tf_nn *)skel_read(nc) + c;
        int32_t bd = -1, bat = 0;
        for (r = 0; r < R; ++r) {
            float dx = p[r].x - q[c].x, dy = p[r].y - q[c].y, dz = p[r].z - q[c].z;
            int32_t d = (int32_t)(dx * dx + dy * dy + dz * dz);
            if (bd < 0 || d < bd) { bd = d; bat = (int32_t)(r * 100000 + c); }
        }
        if (g->d != bd || g->at != bat) ST_FAIL("nearest of column %zu: (%d, %d), want (%d, %d)", c, g->d, g->at, bd, bat);
    }
    skel_free(vp); skel_free(vq); skel_free(va); skel_free(vb); skel_free(vc); skel_free(vw);
    skel_free(nr); skel_free(nc); skel_free(d2); skel_free(pix);
    free(p); free(q); free(ia); free(ib); free(ic);
}
SKEL_TEST(forms_mappairs_and_mappairsreduce_rows_and_columns) { each_size("pairs", pairs_case, 0, 1); }

SKEL_TEST(forms_mappairs_operands_are_checked)
{
    skel_vec *a = vec_new(SKEL_INT32, 4), *b = vec_new(SKEL_INT32, 5), *b6 = vec_new(SKEL_INT32, 6), *w = vec_new(SKEL_INT32, 3);
    skel_vec *p = vec_new(SKEL_TYPE(tf_p3), 4), *q = vec_new(SKEL_TYPE(tf_p3), 5), *o4 = vec_new(SKEL_TYPE(tf_nn), 4);
    skel_mat *m45 = NULL, *m54 = NULL;
    skel_call call;
    int32_t u = 1;
    ST_OK(skel_mat_new(&m45, SKEL_INT32, 4, 5));
    ST_OK(skel_mat_new(&m54, SKEL_INT32, 5, 4));
    memset(&call, 0, sizeof call);
    call.in[0] = a; call.in[1] = b; call.in[2] = b6; call.out = m45; call.views[0] = w; call.uniform = &u;
    ST_EQ_INT(skel_run(t_pix, &call), SKEL_ESIZE);      /* the column operands differ in length */
    call.in[2] = b;
    call.out = m54;
    ST_EQ_INT(skel_run(t_pix, &call), SKEL_ESIZE);      /* the result is the wrong way round */
    call.out = m45;
    ST_OK(skel_run(t_pix, &call));
    memset(&call, 0, sizeof call);
    call.in[0] = p; call.in[1] = q; call.out = o4;
    ST_EQ_INT(skel_run(t_nearest, &call), SKEL_EINVAL); /* no direction */
    call.direction = SKEL_COLS;
    ST_EQ_INT(skel_run(t_nearest, &call), SKEL_ESIZE);  /* columns: 5 results */
    call.direction = SKEL_ROWS;
    ST_OK(skel_run(t_nearest, &call));
    skel_free(a); skel_free(b); skel_free(b6); skel_free(w); skel_free(p); skel_free(q); skel_free(o4);
    skel_free(m45); skel_free(m54);
}

/* ======================================================================
   3-D containers, MapOverlap3D
   ====================================================================== */
SKEL_FUNC(float, f_at3, (skel_index p, skel_index r, skel_index c, float a), return a + (float)(p * 10000 + r * 100 + c);)
/* 7-point heat step */
SKEL_FUNC(float, f_heat, (const float *a, skel_index rs, skel_index ps),
          return a[0] + 0.125f * (a[-1] + a[1] + a[-rs] + a[rs] + a[-ps] + a[ps] - 6 * a[0]);)
/* all 27 neighbours with distinct integer weights */
SKEL_FUNC(int32_t, f_27, (const int32_t *a, skel_index rs, skel_index ps),
          int32_t s = 0; int z, y, x;
          for (z = -1; z <= 1; ++z) for (y = -1; y <= 1; ++y) for (x = -1; x <= 1; ++x)
              s += (9 * (z + 1) + 3 * (y + 1) + x + 2) * a[z * ps + y * rs + x];
          return s;)
/* a window of 5 planes, 3 rows, 1 column, with the index, a view and a uniform */
SKEL_FUNC(float, f_tall, (skel_index p, skel_index r, skel_index c, const float *a, skel_index rs, skel_index ps,
                          skel_view_float w, float u),
          return a[-2 * ps] - a[2 * ps] + a[-rs] * u + (float)(p - r + c) + SKEL_AT(w, (p + r + c) % w.size);)
SKEL_MAP_X(t_at3, f_at3, SKEL_OUTS(float), SKEL_INS(float), SKEL_INDEX3D, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
SKEL_OVERLAP3D(t_heat, f_heat, float, 1, 1, 1)
SKEL_OVERLAP3D(t_27, f_27, int32_t, 1, 1, 1)
SKEL_OVERLAP3D_X(t_tall, f_tall, float, 2, 1, 0, SKEL_INDEX3D, SKEL_VIEWS(float), SKEL_UNIFORM(float))

/* (the GPU kernel's groups: 32 columns x 8 rows, up to 64 planes, fewer
   for small blocks: exact tiles, one short, one over) */
static const size_t shapes3[][3] = { { 0, 3, 4 }, { 1, 1, 1 }, { 2, 3, 5 }, { 3, 7, 13 }, { 5, 17, 41 }, { 11, 9, 67 },
                                     { 17, 33, 65 }, { 4, 32, 32 }, { 6, 31, 33 }, { 9, 16, 64 }, { 7, 19, 136 } };

/* element (p, r, c) of a D x R x C block under an edge policy; -1: the constant */
static long long at3(long long p, long long r, long long c, size_t D, size_t R, size_t C, int edge)
{
    long long d[3] = { p, r, c }, n[3] = { (long long)D, (long long)R, (long long)C };
    int k;
    for (k = 0; k < 3; ++k) {
        if (d[k] >= 0 && d[k] < n[k]) continue;
        if (edge == SKEL_EDGE_CYCLIC) d[k] = ((d[k] % n[k]) + n[k]) % n[k];
        else if (edge == SKEL_EDGE_DUPLICATE) d[k] = d[k] < 0 ? 0 : n[k] - 1;
        else return -1;
    }
    return (d[0] * n[1] + d[1]) * n[2] + d[2];
}

/* full: every edge policy and every instance; else the 7-point step
   with duplicated edges only (the beyond-the-cache size) */
static void ten3_case(size_t D, size_t R, size_t C, int vi, int full)
{
    uint64_t s = st_seed("ten3", D * 1000003u + R * 1009u + C, (size_t)vi);
    size_t n = D * R * C, i, p, r, c;
    float *h = (float *)xmalloc(n * sizeof(float)), ev = 7, u = 0.5f, w[5] = { 1, -2, 3, -4, 5 };
    int32_t *hi = (int32_t *)xmalloc(n * sizeof(int32_t)), evi = -3;
    skel_ten *t = NULL, *o = NULL, *ti = NULL, *oi = NULL;
    skel_vec *vw;
    skel_call call;
    int edge;
    for (i = 0; i < n; ++i) { h[i] = (float)st_rand_int(&s, -64, 64) / 8; hi[i] = (int32_t)st_rand_int(&s, -99, 99); }
    ST_OK(skel_ten_new_copy(&t, SKEL_FLOAT, D, R, C, h));
    ST_OK(skel_ten_new(&o, SKEL_FLOAT, D, R, C));
    ST_OK(skel_ten_new_copy(&ti, SKEL_INT32, D, R, C, hi));
    ST_OK(skel_ten_new(&oi, SKEL_INT32, D, R, C));
    vw = vec_of(SKEL_FLOAT, 5, w);
    ST_EQ_INT(skel_dims(t), 3);
    ST_EQ_INT(skel_depth(t), D);
    st_use_variant(t_at3, vi); st_use_variant(t_heat, vi); st_use_variant(t_27, vi); st_use_variant(t_tall, vi);
    ST_OK(skel_map1(t_at3, o, t));
    for (p = 0; p < D; ++p)
        for (r = 0; r < R; ++r)
            for (c = 0; c < C; ++c) {
                i = (p * R + r) * C + c;
                if (((const float *)skel_read(o))[i] != h[i] + (float)(p * 10000 + r * 100 + c))
                    ST_FAIL("3-D index (%zu, %zu, %zu)", p, r, c);
            }
    for (edge = full ? SKEL_EDGE_CONSTANT : SKEL_EDGE_DUPLICATE; edge <= SKEL_EDGE_DUPLICATE; ++edge) {
        const float *gf;
        const int32_t *gi;
        memset(&call, 0, sizeof call);
        call.in[0] = t; call.out = o; call.edge = (skel_edge)edge; call.edge_value = &ev;
        ST_OK(skel_run(t_heat, &call));
        call.in[0] = ti; call.out = oi; call.edge_value = &evi;
        if (full) ST_OK(skel_run(t_27, &call));
        gf = (const float *)skel_read(o);
        gi = (const int32_t *)skel_read(oi);
        for (p = 0; p < D; ++p)
            for (r = 0; r < R; ++r)
                for (c = 0; c < C; ++c) {
                    long long P = (long long)p, Y = (long long)r, X = (long long)c, k;
                    float nb[7];
                    int32_t si = 0;
                    int z, y, x, q;
                    static const int off[7][3] = { { 0, 0, 0 }, { 0, 0, -1 }, { 0, 0, 1 }, { 0, -1, 0 }, { 0, 1, 0 },
                                                   { -1, 0, 0 }, { 1, 0, 0 } };
                    for (q = 0; q < 7; ++q) {
                        k = at3(P + off[q][0], Y + off[q][1], X + off[q][2], D, R, C, edge);
                        nb[q] = k < 0 ? ev : h[k];
                    }
                    for (z = -1; z <= 1 && full; ++z)
                        for (y = -1; y <= 1; ++y)
                            for (x = -1; x <= 1; ++x) {
                                k = at3(P + z, Y + y, X + x, D, R, C, edge);
                                si += (9 * (z + 1) + 3 * (y + 1) + x + 2) * (k < 0 ? evi : hi[k]);
                            }
                    i = (p * R + r) * C + c;
                    if (gf[i] != nb[0] + 0.125f * (nb[1] + nb[2] + nb[3] + nb[4] + nb[5] + nb[6] - 6 * nb[0]))
                        ST_FAIL("7-point, edge %d, (%zu, %zu, %zu): %g", edge, p, r, c, gf[i]);
                    if (full && gi[i] != si) ST_FAIL("27-point, edge %d, (%zu, %zu, %zu): %d, want %d", edge, p, r, c, gi[i], si);
                }
    }
    /* index, view, uniform, a window of 5 x 3 x 1, in place */
    if (!full) goto done;
    memset(&call, 0, sizeof call);
    call.in[0] = t; call.out = t; call.edge = SKEL_EDGE_CYCLIC; call.views[0] = vw; call.uniform = &u;
    ST_EQ_INT(skel_run(t_tall, &call), n && D < 2 ? SKEL_ESIZE : SKEL_OK);
    for (p = 0; n && D >= 2 && p < D; ++p)
        for (r = 0; r < R; ++r)
            for (c = 0; c < C; ++c) {
                long long P = (long long)p, Y = (long long)r, X = (long long)c;
                float want = h[at3(P - 2, Y, X, D, R, C, SKEL_EDGE_CYCLIC)] - h[at3(P + 2, Y, X, D, R, C, SKEL_EDGE_CYCLIC)] +
                             h[at3(P, Y - 1, X, D, R, C, SKEL_EDGE_CYCLIC)] * u + (float)(P - Y + X) + w[(p + r + c) % 5];
                i = (p * R + r) * C + c;
                if (((const float *)skel_read(t))[i] != want) ST_FAIL("tall window (%zu, %zu, %zu)", p, r, c);
            }
done:
    skel_free(t); skel_free(o); skel_free(ti); skel_free(oi); skel_free(vw);
    free(h); free(hi);
}

SKEL_TEST(forms_3d_map_and_overlap3d_every_edge)
{
    int vi;
    size_t k;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const st_variant *v = st_variant_get(vi);
        for (k = 0; k < sizeof shapes3 / sizeof shapes3[0]; ++k) {
            st_context("3-D %s %zux%zux%zu", v->label, shapes3[k][0], shapes3[k][1], shapes3[k][2]);
            ten3_case(shapes3[k][0], shapes3[k][1], shapes3[k][2], vi, 1);
        }
        if (v->big) {
            size_t planes = st_big_bytes() / 4 / (64 * 130);
            st_context("3-D %s %zux64x130 (beyond the cache)", v->label, planes);
            ten3_case(planes, 64, 130, vi, 0);
        }
    }
    st_context("");
}

/* Windows whose planes take more registers: the GPU kernel then computes
   fewer outputs a work-item a step (doubles, 7 points: 2; floats, a 5 x 5
   x 5 box: 1).  Integer-valued data: exact sums in any order. */
SKEL_FUNC(double, f_heatd, (const double *a, skel_index rs, skel_index ps),
          return a[0] + 0.125 * (a[-1] + a[1] + a[-rs] + a[rs] + a[-ps] + a[ps] - 6 * a[0]);)
SKEL_FUNC(float, f_box5, (const float *a, skel_index rs, skel_index ps),
          float s = 0; int z, y, x;
          for (z = -2; z <= 2; ++z) for (y = -2; y <= 2; ++y) for (x = -2; x <= 2; ++x)
              s += (float)(25 * (z + 2) + 5 * (y + 2) + x + 3) * a[z * ps + y * rs + x];
          return s;)
SKEL_OVERLAP3D(t_heatd, f_heatd, double, 1, 1, 1)
SKEL_OVERLAP3D(t_box5, f_box5, float, 2, 2, 2)

static void wide3_case(size_t D, size_t R, size_t C, int vi)
{
    uint64_t s = st_seed("wide3", D * 1000003u + R * 1009u + C, (size_t)vi);
    size_t n = D * R * C, i, p, r, c;
    double *hd = (double *)xmalloc(n * sizeof(double)), evd = 5;
    float *hf = (float *)xmalloc(n * sizeof(float)), evf = -2;
    skel_ten *td = NULL, *od = NULL, *tf = NULL, *of = NULL;
    skel_call call;
    int edge, small = n && (D < 2 || R < 2 || C < 2);
    for (i = 0; i < n; ++i) { hd[i] = (double)st_rand_int(&s, -64, 64) / 8; hf[i] = (float)st_rand_int(&s, -99, 99); }
    ST_OK(skel_ten_new_copy(&td, SKEL_DOUBLE, D, R, C, hd));
    ST_OK(skel_ten_new(&od, SKEL_DOUBLE, D, R, C));
    ST_OK(skel_ten_new_copy(&tf, SKEL_FLOAT, D, R, C, hf));
    ST_OK(skel_ten_new(&of, SKEL_FLOAT, D, R, C));
    st_use_variant(t_heatd, vi); st_use_variant(t_box5, vi);
    for (edge = SKEL_EDGE_CONSTANT; edge <= SKEL_EDGE_DUPLICATE; ++edge) {
        const double *gd;
        const float *gf;
        memset(&call, 0, sizeof call);
        call.in[0] = td; call.out = od; call.edge = (skel_edge)edge; call.edge_value = &evd;
        ST_OK(skel_run(t_heatd, &call));
        call.in[0] = tf; call.out = of; call.edge_value = &evf;
        ST_EQ_INT(skel_run(t_box5, &call), small ? SKEL_ESIZE : SKEL_OK);
        gd = (const double *)skel_read(od);
        gf = (const float *)skel_read(of);
        for (p = 0; p < D; ++p)
            for (r = 0; r < R; ++r)
                for (c = 0; c < C; ++c) {
                    long long P = (long long)p, Y = (long long)r, X = (long long)c, k;
                    static const int off[7][3] = { { 0, 0, 0 }, { 0, 0, -1 }, { 0, 0, 1 }, { 0, -1, 0 }, { 0, 1, 0 },
                                                   { -1, 0, 0 }, { 1, 0, 0 } };
                    double nb[7];
                    float sf = 0;
                    int z, y, x, q;
                    for (q = 0; q < 7; ++q) {
                        k = at3(P + off[q][0], Y + off[q][1], X + off[q][2], D, R, C, edge);
                        nb[q] = k < 0 ? evd : hd[k];
                    }
                    for (z = -2; z <= 2 && !small; ++z)
                        for (y = -2; y <= 2; ++y)
                            for (x = -2; x <= 2; ++x) {
                                k = at3(P + z, Y + y, X + x, D, R, C, edge);
                                sf += (float)(25 * (z + 2) + 5 * (y + 2) + x + 3) * (k < 0 ? evf : hf[k]);
                            }
                    i = (p * R + r) * C + c;
                    if (gd[i] != nb[0] + 0.125 * (nb[1] + nb[2] + nb[3] + nb[4] + nb[5] + nb[6] - 6 * nb[0]))
                        ST_FAIL("7-point double, edge %d, (%zu, %zu, %zu): %g", edge, p, r, c, gd[i]);
                    if (!small && gf[i] != sf) ST_FAIL("5x5x5, edge %d, (%zu, %zu, %zu): %g, want %g", edge, p, r, c, gf[i], sf);
                }
    }
    skel_free(td); skel_free(od); skel_free(tf); skel_free(of);
    free(hd); free(hf);
}

SKEL_TEST(forms_overlap3d_doubles_and_a_5x5x5_window)
{
    int vi;
    size_t k;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const st_variant *v = st_variant_get(vi);
        for (k = 0; k < sizeof shapes3 / sizeof shapes3[0]; ++k) {
            st_context("3-D wide %s %zux%zux%zu", v->label, shapes3[k][0], shapes3[k][1], shapes3[k][2]);
            wide3_case(shapes3[k][0], shapes3[k][1], shapes3[k][2], vi);
        }
    }
    st_context("");
}

/* CUDA takes a 16-byte kernel for 3-D stencils of 4- and 8-byte elements
   whose rows hold whole pieces; OpenCL takes it only when asked (NVIDIA's
   ran it slower), so that CI checks its results here on PoCL.  The plan
   must pick it, for floats and doubles, and not where a row ends in part
   of a piece. */
int _skel_cl_test_plan(skel_skeleton *sk, const skel_call *c, int compute_units, char *desc, size_t size);
/* 1: the OpenCL plan of sk over 3 x 5 x cols elements of type t takes the
   16-byte kernel; 0: it does not; -1: no plan */
static int ov3_vec_planned(skel_skeleton *sk, skel_type t, size_t cols)
{
    skel_ten *in = NULL, *out = NULL;
    skel_call call;
    char desc[256];
    int rc = -1;
    memset(&call, 0, sizeof call);
    if (skel_ten_new(&in, t, 3, 5, cols) == SKEL_OK && skel_ten_new(&out, t, 3, 5, cols) == SKEL_OK) {
        call.in[0] = in; call.out = out;
        if (_skel_cl_test_plan(sk, &call, 4, desc, sizeof desc) == SKEL_OK) rc = strstr(desc, "skel_overlap3d_vec:") != NULL;
    }
    skel_free(in); skel_free(out);
    return rc;
}
SKEL_TEST(forms_overlap3d_16_byte_kernel_on_opencl)
{
    int vi, ran = 0;
    size_t k;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const st_variant *v = st_variant_get(vi);
        if (strcmp(v->v.backend, "opencl") != 0 || v->v.devices) continue;
        skel_cl_use_ov3_vec(1);
        ST_CHECK(ov3_vec_planned(t_heat, SKEL_FLOAT, 64) == 1);
        ST_CHECK(ov3_vec_planned(t_heatd, SKEL_DOUBLE, 64) == 1);
        ST_CHECK(ov3_vec_planned(t_heat, SKEL_FLOAT, 66) == 0);
        for (k = 0; k < sizeof shapes3 / sizeof shapes3[0]; ++k) {
            st_context("3-D 16-byte %s %zux%zux%zu", v->label, shapes3[k][0], shapes3[k][1], shapes3[k][2]);
            ten3_case(shapes3[k][0], shapes3[k][1], shapes3[k][2], vi, 1);
            wide3_case(shapes3[k][0], shapes3[k][1], shapes3[k][2], vi);
        }
        skel_cl_use_ov3_vec(0);
        ran = 1;
    }
    st_context("");
    if (!ran) ST_SKIP("no OpenCL variant here");
}

SKEL_TEST(forms_3d_shapes_are_checked)
{
    skel_ten *t = NULL, *o = NULL, *t2 = NULL;
    skel_mat *m = NULL, *mo = NULL;
    skel_call call;
    ST_OK(skel_ten_new(&t, SKEL_FLOAT, 3, 4, 5));
    ST_OK(skel_ten_new(&o, SKEL_FLOAT, 3, 4, 5));
    ST_OK(skel_ten_new(&t2, SKEL_FLOAT, 4, 3, 5));
    ST_OK(skel_mat_new(&m, SKEL_FLOAT, 12, 5));
    ST_OK(skel_mat_new(&mo, SKEL_FLOAT, 12, 5));
    memset(&call, 0, sizeof call);
    call.in[0] = m; call.out = mo;
    ST_EQ_INT(skel_run(t_heat, &call), SKEL_ESHAPE);      /* a matrix */
    call.in[0] = t; call.out = t2;
    ST_EQ_INT(skel_run(t_heat, &call), SKEL_ESIZE);       /* 4 x 3 x 5 is not 3 x 4 x 5 */
    call.out = mo;
    ST_EQ_INT(skel_run(t_heat, &call), SKEL_ESHAPE);
    call.out = o;
    ST_OK(skel_run(t_heat, &call));
    ST_EQ_INT(skel_map1(t_at3, mo, t), SKEL_ESHAPE);      /* 3-D input, 2-D output */
    skel_free(t); skel_free(o); skel_free(t2); skel_free(m); skel_free(mo);
}

/* ======================================================================
   the tuner and plan files know every new kind and form
   ====================================================================== */
/* tune sk over lower..upper (dims 2 when upper[1]) briefly, into dir;
   the second tuning loads the file */
static void tune_twice(skel_skeleton *sk, const char *id, size_t lo, size_t hi, int dims, const skel_call *tmpl,
                       const char *dir)
{
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    int k;
    memset(&d, 0, sizeof d);
    d.id = id;
    d.sk = sk;
    d.lower[0] = d.lower[1] = lo;
    d.upper[0] = d.upper[1] = hi;
    d.dims = dims;
    d.call = tmpl;
    d.time_budget = 0.15;
    d.max_depth = 2;
    d.reps = 1;
    d.dir = dir;
    d.quiet = 1;
    for (k = 0; k < 2; ++k) {
        st_context("tune %s, %s", id, k ? "loaded" : "measured");
        ST_OK(skel_tune(&d, &p));
        ST_OK(skel_plan_stats_get(p, &st));
        ST_EQ_INT(st.dims, dims);
        ST_EQ_INT(st.loaded, k);
        ST_CHECK(st.points >= 1 << dims);
        skel_set_plan(sk, NULL);
        skel_plan_free(p);
    }
    st_context("");
}

SKEL_TEST(forms_tuner_plans_every_new_kind_and_reloads_them)
{
    char dir[] = "/tmp/skel_forms_XXXXXX", path[600];
    skel_vec *t = vec_new(SKEL_FLOAT, 37), *m = NULL, *w = vec_new(SKEL_DOUBLE, 11);
    skel_plan *p;
    skel_call c;
    FILE *f;
    char line[512];
    int found = 0;
    float u = 1;
    ST_CHECK(mkdtemp(dir) != NULL);
    ST_OK(skel_mat_new(&m, SKEL_INT32, 5, 7));
    tune_twice(t_pearson, "forms-pearson", 10, 100000, 1, NULL, dir);      /* a struct accumulator */
    tune_twice(t_split, "forms-split", 10, 100000, 1, NULL, dir);          /* three outputs */
    memset(&c, 0, sizeof c);
    c.views[0] = t; c.views[1] = m;                                         /* the template's views */
    tune_twice(t_look, "forms-look", 10, 100000, 1, &c, dir);
    memset(&c, 0, sizeof c);
    c.views[0] = w;
    tune_twice(t_wdot, "forms-wdot", 10, 100000, 1, &c, dir);
    tune_twice(t_dist, "forms-pairs", 4, 500, 2, NULL, dir);               /* R x C */
    memset(&c, 0, sizeof c);
    c.direction = SKEL_COLS;
    tune_twice(t_nearest, "forms-nearest", 4, 500, 2, &c, dir);
    memset(&c, 0, sizeof c);
    c.edge = SKEL_EDGE_CYCLIC;
    tune_twice(t_heat, "forms-heat", 8, 2000, 2, &c, dir);                 /* planes * rows x cols */
    c.uniform = &u;                                                         /* (views made by the tuner) */
    tune_twice(t_tall, "forms-tall", 16, 2000, 2, &c, dir);
    tune_twice(t_grad, "forms-grad", 4, 300, 2, NULL, dir);
    /* the plan file records the form, and the dump shows it */
    ST_OK(skel_plan_path("forms-split", dir, path, sizeof path));
    ST_OK(skel_plan_load(&p, path));
    snprintf(path + strlen(path), sizeof path - strlen(path), ".txt");
    ST_OK(skel_plan_dump(p, SKEL_DUMP_TEXT, path));
    skel_plan_free(p);
    ST_CHECK((f = fopen(path, "r")) != NULL);
    while (fgets(line, sizeof line, f))
        if (strstr(line, "instance:  Map t_split") && strstr(line, "3 outputs")) found = 1;
    fclose(f);
    ST_CHECK(found);
    skel_free(t); skel_free(m); skel_free(w);
}

/* ======================================================================
   8 threads call the new forms at once (shared instances, plans, inputs
   and views; outputs of their own), on every variant
   ====================================================================== */
#define FT_N 1031
#define FT_R 37
#define FT_C 53
static skel_vec *ft_a, *ft_b, *ft_v, *ft_rw, *ft_cl1, *ft_cl2;
static skel_ten *ft_t;
static int32_t ft_va[FT_N], ft_w[FT_N], ft_r27[3 * 5 * 7], ft_rpix[FT_R * FT_C];
static float ft_af[FT_N];
static tf_best ft_best;

static void *ft_thread(void *arg)
{
    long bad = 0, k;
    int *fails = (int *)arg, rep;
    skel_vec *o0 = NULL, *o1 = NULL, *o2 = NULL, *o27 = NULL;
    skel_mat *op = NULL;
    skel_call c;
    int u = 3;
    skel_vec_new(&o0, SKEL_FLOAT, FT_N);
    skel_vec_new(&o1, SKEL_INT32, FT_N);
    skel_vec_new(&o2, SKEL_UINT8, FT_N);
    skel_ten_new(&o27, SKEL_INT32, 3, 5, 7);
    skel_mat_new(&op, SKEL_INT32, FT_R, FT_C);
    for (rep = 0; rep < 3; ++rep) {
        tf_best best = { -1, -1 };
        memset(&c, 0, sizeof c);
        c.in[0] = ft_a; c.in[1] = ft_b; c.outs[0] = o0; c.outs[1] = o1; c.outs[2] = o2;
        bad += skel_run(t_split, &c) != SKEL_OK;
        for (k = 0; k < FT_N && !bad; ++k)
            bad += ((const float *)skel_read(o0))[k] != ft_af[k] + (float)ft_va[k] ||
                   ((const int32_t *)skel_read(o1))[k] != 2 * ft_va[k];
        bad += skel_mapreduce1(t_argmin, ft_b, &best) != SKEL_OK || best.v != ft_best.v || best.at != ft_best.at;
        memset(&c, 0, sizeof c);
        c.in[0] = ft_t; c.out = o27; c.edge = SKEL_EDGE_CYCLIC;
        bad += skel_run(t_27, &c) != SKEL_OK;
        for (k = 0; k < 3 * 5 * 7 && !bad; ++k) bad += ((const int32_t *)skel_read(o27))[k] != ft_r27[k];
        memset(&c, 0, sizeof c);
        c.in[0] = ft_rw; c.in[1] = ft_cl1; c.in[2] = ft_cl2; c.out = op; c.views[0] = ft_v; c.uniform = &u;
        bad += skel_run(t_pix, &c) != SKEL_OK;
        for (k = 0; k < FT_R * FT_C && !bad; ++k) bad += ((const int32_t *)skel_read(op))[k] != ft_rpix[k];
    }
    skel_free(o0); skel_free(o1); skel_free(o2); skel_free(o27); skel_free(op);
    *fails = (int)bad;
    return NULL;
}

SKEL_TEST(forms_eight_threads_call_the_new_forms_at_once)
{
    uint64_t s = st_seed("threads", 0, 0);
    int32_t h27[3 * 5 * 7], rw[FT_R], c1[FT_C], c2[FT_C], w[13];
    pthread_t th[8];
    int fails[8], vi, t, p, r, c, z, y, x;
    for (t = 0; t < FT_N; ++t) {
        ft_va[t] = (int32_t)st_rand_int(&s, -999, 999);
        ft_af[t] = (float)st_rand_int(&s, -999, 999);
        ft_w[t] = (int32_t)st_rand_int(&s, 0, 9);
        if (t == 0 || ft_w[t] < ft_best.v) { ft_best.v = ft_w[t]; ft_best.at = t; }
    }
    for (t = 0; t < 3 * 5 * 7; ++t) h27[t] = (int32_t)st_rand_int(&s, -99, 99);
    for (t = 0; t < FT_R; ++t) rw[t] = (int32_t)st_rand_int(&s, -99, 99);
    for (t = 0; t < FT_C; ++t) { c1[t] = (int32_t)st_rand_int(&s, -99, 99); c2[t] = (int32_t)st_rand_int(&s, -99, 99); }
    for (t = 0; t < 13; ++t) w[t] = (int32_t)st_rand_int(&s, -9, 9);
    for (p = 0; p < 3; ++p)
        for (r = 0; r < 5; ++r)
            for (c = 0; c < 7; ++c) {
                int32_t sum = 0;
                for (z = -1; z <= 1; ++z)
                    for (y = -1; y <= 1; ++y)
                        for (x = -1; x <= 1; ++x)
                            sum += (9 * (z + 1) + 3 * (y + 1) + x + 2) * h27[at3(p + z, r + y, c + x, 3, 5, 7, SKEL_EDGE_CYCLIC)];
                ft_r27[(p * 5 + r) * 7 + c] = sum;
            }
    for (r = 0; r < FT_R; ++r)
        for (c = 0; c < FT_C; ++c) ft_rpix[r * FT_C + c] = rw[r] * (r % 5) + c1[c] - c2[c] * (c % 3) + w[(r + c) % 13] * 3;
    ft_a = vec_of(SKEL_FLOAT, FT_N, ft_af);
    ft_b = vec_of(SKEL_INT32, FT_N, ft_va);
    memcpy(skel_write(ft_b), ft_w, sizeof ft_w);      /* argmin reads the small values */
    ft_v = vec_of(SKEL_INT32, 13, w);
    ft_rw = vec_of(SKEL_INT32, FT_R, rw);
    ft_cl1 = vec_of(SKEL_INT32, FT_C, c1);
    ft_cl2 = vec_of(SKEL_INT32, FT_C, c2);
    ST_OK(skel_ten_new_copy(&ft_t, SKEL_INT32, 3, 5, 7, h27));
    for (t = 0; t < FT_N; ++t) ft_va[t] = ft_w[t];    /* what t_split reads from ft_b now */
    for (vi = 0; vi < st_variant_count(); ++vi) {
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(t_split, vi); st_use_variant(t_argmin, vi); st_use_variant(t_27, vi); st_use_variant(t_pix, vi);
        for (t = 0; t < 8; ++t) ST_CHECK(pthread_create(&th[t], NULL, ft_thread, &fails[t]) == 0);
        for (t = 0; t < 8; ++t) pthread_join(th[t], NULL);
        for (t = 0; t < 8; ++t) if (fails[t]) ST_FAIL("thread %d: %d wrong results or failed calls", t, fails[t]);
    }
    st_context("");
    skel_free(ft_a); skel_free(ft_b); skel_free(ft_v); skel_free(ft_rw); skel_free(ft_cl1); skel_free(ft_cl2);
    skel_free(ft_t);
}
