/* skel_run's fast path (skel.h, "the fast path of skel_run"): a Map, a
   whole Reduce or a MapReduce of host data on a CPU variant run in one
   chunk is checked and run without the full dispatch.  These tests check
   that it gives the full path's bits where it runs, and that every call
   it must not take (an operand with a task on it, an input or output
   valid on a device, a split plan, a thread bound to a place, bad
   operands) goes the full way and comes out right. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

/* private entry points (defined in the implementation) */
void _skel_test_fast_path(int on);
unsigned long _skel_test_fast_runs(void);
int _skel_test_parallel_threshold(int *threads);
int _skel_test_map_get(skel_vec *c, size_t *lo, unsigned *mask, int max);
int _skel_test_write_range(skel_vec *c, int s, size_t lo, size_t hi, const void *src);
int _skel_place_bind(int p);
int _skel_place_find(const char *name);
int skel_cl_register(void);

SKEL_FUNC(float, fp_axpy, (float x, float y, float a), return a * x + y;)
SKEL_FUNC_COMMUTATIVE(float, fp_add, (float a, float b), return a + b;)
SKEL_FUNC(float, fp_mul, (float a, float b), return a * b;)
SKEL_FUNC_COMMUTATIVE(int32_t, fp_addi, (int32_t a, int32_t b), return a + b;)
SKEL_MAP_EX(fp_saxpy, fp_axpy, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float))
SKEL_REDUCE(fp_sum, fp_add, float)
SKEL_REDUCE(fp_isum, fp_addi, int32_t)
SKEL_MAPREDUCE(fp_dot, fp_mul, fp_add, float, 2)
SKEL_MAP(fp_vmul, fp_mul, float, 2)
SKEL_FUNC(float, fp_neg, (float a), return -a;)
SKEL_MAP(fp_vneg, fp_neg, float, 1)
SKEL_MAPREDUCE(fp_sumneg, fp_neg, fp_add, float, 1)

static const size_t fp_sizes[] = { 1, 2, 7, 31, 32, 63, 64, 1023, 1025, 65537 };
#define FP_NSIZES (sizeof fp_sizes / sizeof fp_sizes[0])

/* Random small integers as floats (sums exact in any order) or int32. */
static skel_vec *fp_vec(skel_type t, size_t n, uint64_t *rng)
{
    skel_vec *v;
    void *p;
    size_t i;
    ST_OK(skel_vec_new(&v, t, n));
    p = skel_write(v);
    for (i = 0; i < n; ++i) {
        long long x = st_rand_int(rng, -9, 9);
        if (t == SKEL_FLOAT) ((float *)p)[i] = (float)x;
        else ((int32_t *)p)[i] = (int32_t)x;
    }
    return v;
}

/* A plan forcing variant v (NULL: none) on sk. */
static skel_plan *fp_plan(skel_skeleton *sk, const skel_variant *v)
{
    skel_plan *p = NULL;
    if (v) {
        ST_OK(skel_plan_new(&p));
        ST_OK(skel_plan_add(p, 0, SIZE_MAX, v));
    }
    ST_OK(skel_set_plan(sk, p));
    return p;
}

static void fp_unplan(skel_skeleton *sk, skel_plan *p)
{
    ST_OK(skel_set_plan(sk, NULL));
    skel_plan_free(p);
}

/* y = a x + y, sum(x), dot(x, y) and the int32 sum of xi on the current
   plans, with the fast path on or off; results into r[0..2], ri, y. */
typedef struct fp_ops { skel_vec *x, *y, *xi; float a; } fp_ops;
static void fp_calls(fp_ops *o, float *r, int32_t *ri)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = o->x; c.in[1] = o->y; c.out = o->y; c.uniform = &o->a;
    ST_OK(skel_run(fp_saxpy, &c));
    ST_OK(skel_reduce(fp_sum, o->x, &r[0]));
    ST_OK(skel_mapreduce2(fp_dot, o->x, o->y, &r[1]));
    ST_OK(skel_reduce(fp_isum, o->xi, ri));
}

/* The map of v is one host segment. */
static void fp_host_only(skel_vec *v)
{
    size_t lo[4];
    unsigned mask[4];
    ST_EQ_INT(_skel_test_map_get(v, lo, mask, 4), 1);
    ST_EQ_UINT(mask[0], 1);
}

SKEL_TEST(fast_path_gives_the_full_paths_bits_on_seq_pool_and_the_default)
{
    static const char *names[] = { "seq", "pool/4", "no plan" };
    skel_variant vs[2];
    int w, threads, threshold = _skel_test_parallel_threshold(&threads);
    size_t k, i;
    memset(vs, 0, sizeof vs);
    vs[0].backend = "seq";
    vs[1].backend = "pool"; vs[1].threads = 4;
    for (w = 0; w < 3; ++w)
        for (k = 0; k < FP_NSIZES; ++k) {
            size_t n = fp_sizes[k];
            uint64_t rng = st_seed("fast", n, (size_t)w);
            skel_plan *p[4];
            skel_skeleton *sks[4] = { fp_saxpy, fp_sum, fp_dot, fp_isum };
            fp_ops o[2];
            float r[2][2], *y[2];
            int32_t ri[2];
            double want[2] = { 0, 0 }, mag = 0;
            long long wanti = 0;
            unsigned long before;
            int one_chunk = w == 0 || (w == 1 && n < 32) || (w == 2 && n < (size_t)threshold);
            st_context("%s, n = %zu", names[w], n);
            for (i = 0; i < 4; ++i) p[i] = fp_plan(sks[i], w < 2 ? &vs[w] : NULL);
            for (i = 0; i < 2; ++i) {      /* the same operands twice: fast path on, off */
                uint64_t r2 = rng;
                o[i].x = fp_vec(SKEL_FLOAT, n, &r2);
                o[i].y = fp_vec(SKEL_FLOAT, n, &r2);
                o[i].xi = fp_vec(SKEL_INT32, n, &r2);
                o[i].a = 0.5f;
            }
            before = _skel_test_fast_runs();
            fp_calls(&o[0], r[0], &ri[0]);
            ST_EQ_INT(_skel_test_fast_runs() - before, one_chunk ? 4 : 0);
            _skel_test_fast_path(0);
            before = _skel_test_fast_runs();
            fp_calls(&o[1], r[1], &ri[1]);
            _skel_test_fast_path(1);
            ST_EQ_INT(_skel_test_fast_runs() - before, 0);
            /* the same bits either way, and the plain loop's values */
            y[0] = (float *)skel_read(o[0].y);
            y[1] = (float *)skel_read(o[1].y);
            ST_CHECK(memcmp(y[0], y[1], n * sizeof(float)) == 0);
            ST_CHECK(memcmp(r[0], r[1], sizeof r[0]) == 0);
            ST_EQ_INT(ri[0], ri[1]);
            {
                const float *x = (const float *)skel_read(o[0].x);
                const int32_t *xi = (const int32_t *)skel_read(o[0].xi);
                uint64_t r2 = rng;
                for (i = 0; i < n; ++i) {
                    float x0 = (float)st_rand_int(&r2, -9, 9);
                    (void)x0;
                }
                for (i = 0; i < n; ++i) {
                    float y0 = (float)st_rand_int(&r2, -9, 9);
                    ST_CHECK(y[0][i] == 0.5f * x[i] + y0);
                    want[0] += x[i];
                    want[1] += (double)x[i] * y[0][i];
                    mag += fabs((double)x[i] * y[0][i]);
                    wanti += xi[i];
                }
            }
            ST_CHECK(fabs((double)r[0][0] - want[0]) <= 1e-6 * (double)n);
            ST_CHECK(fabs((double)r[0][1] - want[1]) <= 1e-5 * mag);
            ST_EQ_INT(ri[0], wanti);
            for (i = 0; i < 2; ++i) {
                fp_host_only(o[i].y);
                skel_free(o[i].x); skel_free(o[i].y); skel_free(o[i].xi);
            }
            for (i = 0; i < 4; ++i) fp_unplan(sks[i], p[i]);
        }
}

SKEL_TEST(fast_path_leaves_calls_on_containers_with_tasks_to_the_full_path)
{
    const size_t n = 4099;
    uint64_t rng = st_seed("fast-tasks", n, 1);
    skel_vec *x = fp_vec(SKEL_FLOAT, n, &rng), *y = fp_vec(SKEL_FLOAT, n, &rng);
    skel_call c;
    float a = 2, s, want = 0;
    unsigned long before;
    size_t i;
    const float *px = (const float *)skel_read(x), *py = (const float *)skel_read(y);
    for (i = 0; i < n; ++i) want += 2 * px[i] + py[i];
    /* y = 2x + y queued; the sum of y right after must wait for it */
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = y; c.uniform = &a;
    ST_OK(skel_submit(fp_saxpy, &c));
    before = _skel_test_fast_runs();
    ST_OK(skel_reduce(fp_sum, y, &s));
    ST_CHECK(s == want);
    ST_EQ_INT(_skel_test_fast_runs() - before, 0);
    ST_OK(skel_wait_all());
    skel_free(x); skel_free(y);
}

/* The OpenCL place (PoCL in CI), 0 when there is none, -1 when
   SKEL_TEST_BACKENDS leaves OpenCL out (make test-tsan: seq,pool). */
static int fp_cl_place(void)
{
    const char *only = getenv("SKEL_TEST_BACKENDS");
    if (only && *only && !strstr(only, "opencl")) return -1;
    if (skel_cl_register() != SKEL_OK) return 0;
    return _skel_place_find("opencl") > 0 ? _skel_place_find("opencl") : 0;
}

SKEL_TEST(fast_path_leaves_device_valid_inputs_and_outputs_to_the_full_path)
{
    const size_t n = 1000;
    uint64_t rng = st_seed("fast-device", n, 2);
    skel_vec *x = fp_vec(SKEL_FLOAT, n, &rng), *y = fp_vec(SKEL_FLOAT, n, &rng), *r;
    float dev[300], junk[1000], a = 3, s, want = 0;
    const float *px, *py, *pr;
    unsigned long before;
    skel_call c;
    size_t i;
    int cl = fp_cl_place();
    const char *req = getenv("SKEL_REQUIRE");
    if (cl <= 0) {
        skel_free(x); skel_free(y);
        if (cl < 0) ST_SKIP("SKEL_TEST_BACKENDS=%s leaves OpenCL out", getenv("SKEL_TEST_BACKENDS"));
        if (req && strstr(req, "opencl")) ST_FAIL("SKEL_REQUIRE=opencl but no OpenCL place");
        ST_SKIP("no OpenCL device here");
    }
    /* in: x's elements 100..399 are newest on the device */
    for (i = 0; i < 300; ++i) dev[i] = (float)(i % 13) - 6;
    ST_OK(_skel_test_write_range(x, cl, 100, 400, dev));
    before = _skel_test_fast_runs();
    ST_OK(skel_reduce(fp_sum, x, &s));
    px = (const float *)skel_read(x);
    for (i = 0; i < n; ++i) want += px[i];
    ST_CHECK(px[100] == dev[0] && px[399] == dev[299]);
    ST_CHECK(s == want);
    ST_EQ_INT(_skel_test_fast_runs() - before, 0);
    /* out: r newest on the device; a host Map into it must leave the host's values newest */
    ST_OK(skel_vec_new(&r, SKEL_FLOAT, n));
    for (i = 0; i < n; ++i) junk[i] = -1000;
    ST_OK(_skel_test_write_range(r, cl, 0, n, junk));
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = r; c.uniform = &a;
    before = _skel_test_fast_runs();
    ST_OK(skel_run(fp_saxpy, &c));
    pr = (const float *)skel_read(r);
    py = (const float *)skel_read(y);
    for (i = 0; i < n; ++i) ST_CHECK(pr[i] == 3 * px[i] + py[i]);
    fp_host_only(r);
    ST_EQ_INT(_skel_test_fast_runs() - before, 0);
    /* host-only again: the next call takes the fast path */
    before = _skel_test_fast_runs();
    ST_OK(skel_run(fp_saxpy, &c));
    ST_EQ_INT(_skel_test_fast_runs() - before, 1);
    skel_free(x); skel_free(y); skel_free(r);
}

SKEL_TEST(fast_path_leaves_split_plans_and_bound_threads_to_the_full_path)
{
    const size_t n = 777;
    uint64_t rng = st_seed("fast-split", n, 3);
    skel_vec *x = fp_vec(SKEL_FLOAT, n, &rng), *y = fp_vec(SKEL_FLOAT, n, &rng), *r;
    skel_variant v;
    skel_plan *p[2];
    skel_call c;
    float a = -1, s, want = 0;
    const float *px, *py, *pr;
    unsigned long before;
    size_t i;
    int old;
    ST_OK(skel_vec_new(&r, SKEL_FLOAT, n));
    memset(&v, 0, sizeof v);
    v.backend = "split";
    v.parts[0].backend = "pool"; v.parts[0].threads = 2; v.parts[0].share = 0.5;
    v.parts[1].backend = "seq"; v.parts[1].share = 0.5;
    p[0] = fp_plan(fp_saxpy, &v);
    p[1] = fp_plan(fp_sum, &v);
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = r; c.uniform = &a;
    px = (const float *)skel_read(x);
    py = (const float *)skel_read(y);
    for (i = 0; i < n; ++i) want += px[i];
    before = _skel_test_fast_runs();
    ST_OK(skel_run(fp_saxpy, &c));
    ST_OK(skel_reduce(fp_sum, x, &s));
    ST_EQ_INT(_skel_test_fast_runs() - before, 0);
    pr = (const float *)skel_read(r);
    for (i = 0; i < n; ++i) ST_CHECK(pr[i] == py[i] - px[i]);
    ST_CHECK(s == want);
    fp_unplan(fp_saxpy, p[0]);
    fp_unplan(fp_sum, p[1]);
    /* a thread bound to the host place: the full path (it honours the binding) */
    old = _skel_place_bind(0);
    before = _skel_test_fast_runs();
    s = 0;
    ST_OK(skel_reduce(fp_sum, x, &s));
    ST_EQ_INT(_skel_test_fast_runs() - before, 0);
    _skel_place_bind(old);
    ST_CHECK(s == want);
    skel_free(x); skel_free(y); skel_free(r);
}

SKEL_TEST(fast_path_leaves_bad_operands_to_the_full_paths_errors)
{
    const size_t n = 100;
    uint64_t rng = st_seed("fast-errors", n, 4);
    skel_vec *x = fp_vec(SKEL_FLOAT, n, &rng), *xi = fp_vec(SKEL_INT32, n, &rng), *short_ = fp_vec(SKEL_FLOAT, n - 1, &rng);
    skel_vec *e, *w1, *w2;
    float s = 7, a = 1, *buf = (float *)calloc(2 * n, sizeof(float));
    unsigned long before = _skel_test_fast_runs();
    skel_call c;
    ST_CHECK(buf != NULL);
    ST_OK(skel_vec_new(&e, SKEL_FLOAT, 0));
    ST_EQ_INT(skel_reduce(fp_sum, xi, &s), SKEL_ETYPE);
    ST_EQ_INT(skel_reduce(fp_sum, e, &s), SKEL_EEMPTY);
    ST_EQ_INT(skel_reduce(fp_sum, x, NULL), SKEL_EINVAL);
    ST_EQ_INT(skel_mapreduce2(fp_dot, x, short_, &s), SKEL_ESIZE);
    ST_CHECK(s == 7);
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = x; c.out = short_; c.uniform = &a;
    ST_EQ_INT(skel_run(fp_saxpy, &c), SKEL_ESIZE);
    c.out = x; c.uniform = NULL;
    ST_EQ_INT(skel_run(fp_saxpy, &c), SKEL_EINVAL);      /* the uniform is missing */
    /* two wrapped containers over overlapping memory: in and out */
    ST_OK(skel_vec_wrap(&w1, SKEL_FLOAT, n, buf));
    ST_OK(skel_vec_wrap(&w2, SKEL_FLOAT, n, buf + 1));
    c.in[0] = w1; c.in[1] = w1; c.out = w2; c.uniform = &a;
    ST_EQ_INT(skel_run(fp_saxpy, &c), SKEL_EINVAL);
    ST_EQ_INT(_skel_test_fast_runs() - before, 0);
    skel_free(x); skel_free(xi); skel_free(short_); skel_free(e); skel_free(w1); skel_free(w2);
    free(buf);
}

/* The shorthands take the fast path without a skel_call: the same results
   as the full path (a Map of one and of two inputs, a MapReduce of one),
   and every call they must not take gives the full path's error. */
SKEL_TEST(fast_path_shorthands_give_the_full_paths_results_and_errors)
{
    static const size_t sizes[] = { 1, 31, 64, 97, 1025 };
    skel_variant seq;
    skel_plan *p[3];
    skel_skeleton *sks[3] = { fp_vmul, fp_vneg, fp_sumneg };
    size_t k, i;
    memset(&seq, 0, sizeof seq);
    seq.backend = "seq";
    for (i = 0; i < 3; ++i) p[i] = fp_plan(sks[i], &seq);
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        size_t n = sizes[k];
        uint64_t rng = st_seed("fast-short", n, 0);
        skel_vec *x = fp_vec(SKEL_FLOAT, n, &rng), *y = fp_vec(SKEL_FLOAT, n, &rng), *o[2][2];
        float s[2];
        unsigned long before;
        int f;
        st_context("n = %zu", n);
        for (f = 0; f < 2; ++f) {       /* fast path on, off */
            _skel_test_fast_path(!f);
            before = _skel_test_fast_runs();
            ST_OK(skel_vec_new(&o[f][0], SKEL_FLOAT, n));
            ST_OK(skel_vec_new(&o[f][1], SKEL_FLOAT, n));
            ST_OK(skel_map2(fp_vmul, o[f][0], x, y));
            ST_OK(skel_map1(fp_vneg, o[f][1], x));
            ST_OK(skel_mapreduce1(fp_sumneg, y, &s[f]));
            ST_EQ_INT(_skel_test_fast_runs() - before, f ? 0 : 3);
        }
        _skel_test_fast_path(1);
        {
            const float *xs = (const float *)skel_read(x), *ys = (const float *)skel_read(y);
            const float *m = (const float *)skel_read(o[0][0]), *ng = (const float *)skel_read(o[0][1]);
            double want = 0;
            for (i = 0; i < n; ++i) {
                ST_CHECK(m[i] == xs[i] * ys[i]);
                ST_CHECK(ng[i] == -xs[i]);
                want -= ys[i];
            }
            ST_CHECK(s[0] == (float)want);
        }
        ST_CHECK(memcmp(skel_read(o[0][0]), skel_read(o[1][0]), n * sizeof(float)) == 0);
        ST_CHECK(memcmp(skel_read(o[0][1]), skel_read(o[1][1]), n * sizeof(float)) == 0);
        ST_CHECK(memcmp(&s[0], &s[1], sizeof s[0]) == 0);
        skel_free(x); skel_free(y);
        for (f = 0; f < 2; ++f) { skel_free(o[f][0]); skel_free(o[f][1]); }
    }
    {
        const size_t n = 50;
        uint64_t rng = st_seed("fast-short-errors", n, 0);
        skel_vec *x = fp_vec(SKEL_FLOAT, n, &rng), *out = fp_vec(SKEL_FLOAT, n, &rng), *xi = fp_vec(SKEL_INT32, n, &rng);
        skel_vec *w1, *w2;
        float s = 7, *buf = (float *)calloc(2 * n, sizeof(float));
        int rc[2], f, c;
        ST_CHECK(buf != NULL);
        ST_OK(skel_vec_wrap(&w1, SKEL_FLOAT, n, buf));
        ST_OK(skel_vec_wrap(&w2, SKEL_FLOAT, n, buf + 1));
        for (c = 0; c < 10; ++c) {
            unsigned long before = _skel_test_fast_runs();
            for (f = 0; f < 2; ++f) {
                _skel_test_fast_path(!f);
                switch (c) {
                case 0: rc[f] = skel_mapreduce1(fp_dot, x, &s); break;          /* an input missing */
                case 1: rc[f] = skel_mapreduce2(fp_sum, x, x, &s); break;       /* one too many */
                case 2: rc[f] = skel_map1(fp_vmul, out, x); break;
                case 3: rc[f] = skel_map2(fp_vneg, out, x, x); break;
                case 4: rc[f] = skel_map2(fp_vmul, NULL, x, x); break;          /* no output */
                case 5: rc[f] = skel_map2(fp_vmul, w2, w1, w1); break;          /* output overlaps an input */
                case 6: rc[f] = skel_map2(fp_saxpy, out, x, x); break;          /* the uniform is missing */
                case 7: rc[f] = skel_mapreduce2(fp_dot, x, NULL, &s); break;
                case 8: rc[f] = skel_map1(fp_vneg, xi, x); break;               /* output of another type */
                default: rc[f] = skel_reduce(fp_sum, x, NULL); break;           /* no result */
                }
            }
            _skel_test_fast_path(1);
            st_context("case %d", c);
            ST_CHECK(rc[0] != SKEL_OK);
            ST_EQ_INT(rc[0], rc[1]);
            ST_EQ_INT(_skel_test_fast_runs() - before, 0);
        }
        ST_CHECK(s == 7);
        skel_free(x); skel_free(out); skel_free(xi); skel_free(w1); skel_free(w2);
        free(buf);
    }
    for (i = 0; i < 3; ++i) fp_unplan(sks[i], p[i]);
}
