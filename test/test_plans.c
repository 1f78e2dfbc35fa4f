/* Manual execution plans: which variant a size gets, and that an attached
   plan really decides where a call runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

int _skel_test_parallel_threshold(int *threads);   /* skel.h, for tests */
#ifdef _OPENMP
#include <omp.h>
#endif

/* The element function reports which thread computed it: 100 * team size +
   thread number (100 on seq).  Host-only code, so no GPU backend may run it. */
#ifdef _OPENMP
static int32_t p_team(void) { return (int32_t)(100 * omp_get_num_threads() + omp_get_thread_num()); }
#else
static int32_t p_team(void) { return 100; }
#endif
SKEL_FUNC(int32_t, p_who, (skel_index i), (void)i; return p_team();)
SKEL_FUNC(float, p_twice, (float a), return 2 * a;)
SKEL_MAP_EX(p_whomap, p_who, int32_t, int32_t, 0, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_MAP(p_map, p_twice, float, 1)
SKEL_FUNC(float, p_get, (const float *v, float e), return v[(skel_index)e];)
SKEL_MAPARRAY(p_marr, p_get, float)

static skel_variant var(const char *backend, int threads)
{
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = backend;
    v.threads = threads;
    return v;
}

static int lookup_threads(const skel_plan *p, size_t n)
{
    skel_variant v;
    memset(&v, 0, sizeof v);
    ST_OK(skel_plan_lookup(p, n, &v));
    ST_CHECK(v.backend != NULL);
    return v.threads;
}

SKEL_TEST(plan_argument_errors)
{
    skel_plan *p = NULL;
    skel_variant v = var("seq", 1);
    ST_EQ_INT(skel_plan_new(NULL), SKEL_EINVAL);
    ST_EQ_INT(skel_plan_add(NULL, 0, 1, &v), SKEL_EINVAL);
    ST_EQ_INT(skel_plan_lookup(NULL, 1, &v), SKEL_EINVAL);
    ST_EQ_INT(skel_set_plan(NULL, NULL), SKEL_EINVAL);
    ST_OK(skel_plan_new(&p));
    ST_EQ_INT(skel_plan_add(p, 10, 9, &v), SKEL_EINVAL);     /* empty range */
    skel_plan_free(p);
    skel_plan_free(NULL);
}

/* seq variants told apart by their thread field (seq ignores it) */
SKEL_TEST(plan_ranges_pick_their_variant)
{
    skel_plan *p = NULL;
    skel_variant v1 = var("seq", 1), v2 = var("seq", 2), v3 = var("seq", 3);
    skel_variant out;
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, 100, &v1));
    ST_OK(skel_plan_add(p, 101, 1000, &v2));
    ST_EQ_INT(lookup_threads(p, 0), 1);
    ST_EQ_INT(lookup_threads(p, 100), 1);     /* bounds are inclusive */
    ST_EQ_INT(lookup_threads(p, 101), 2);
    ST_EQ_INT(lookup_threads(p, 1000), 2);
    ST_EQ_INT(skel_plan_lookup(p, 1001, &out), SKEL_EINVAL);  /* outside every range */
    ST_CHECK(skel_last_error()[0] != 0);
    ST_EQ_INT(skel_plan_lookup(p, SIZE_MAX, &out), SKEL_EINVAL);
    ST_OK(skel_plan_lookup(p, 5, NULL));      /* NULL out: just "is it covered" */
    /* a later range wins where it overlaps earlier ones */
    ST_OK(skel_plan_add(p, 50, 200, &v3));
    ST_EQ_INT(lookup_threads(p, 49), 1);
    ST_EQ_INT(lookup_threads(p, 50), 3);
    ST_EQ_INT(lookup_threads(p, 200), 3);
    ST_EQ_INT(lookup_threads(p, 201), 2);
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v1));
    ST_EQ_INT(lookup_threads(p, 150), 1);
    ST_EQ_INT(lookup_threads(p, SIZE_MAX), 1);
    ST_OK(skel_plan_lookup(p, 7, &out));
    ST_CHECK(strcmp(out.backend, "seq") == 0);
    skel_plan_free(p);
}

static skel_vec *ivec(size_t n)
{
    skel_vec *v = NULL;
    ST_OK(skel_vec_new(&v, SKEL_INT32, n));
    return v;
}

/* run p_whomap on n elements; returns the smallest and largest team code */
static void who_ran(size_t n, int32_t *lo, int32_t *hi)
{
    skel_vec *o = ivec(n);
    const int32_t *r;
    size_t i;
    skel_call c;
    memset(&c, 0, sizeof c);
    c.out = o;
    ST_OK(skel_run(p_whomap, &c));
    r = (const int32_t *)skel_read(o);
    *lo = *hi = r[0];
    for (i = 1; i < n; ++i) {
        if (r[i] < *lo) *lo = r[i];
        if (r[i] > *hi) *hi = r[i];
    }
    skel_free(o);
}

SKEL_TEST(attached_plan_decides_the_backend)
{
    skel_plan *p = NULL;
    skel_variant seq = var("seq", 0), omp3 = var("omp", 3), out;
    skel_vec *small = ivec(100), *big = ivec(10000);
    skel_call c;
    int32_t lo, hi;
    if (getenv("SKEL_BACKEND")) ST_SKIP("SKEL_BACKEND is set: it overrides plans");
    if (!skel_backend_available("omp")) ST_SKIP("needs the omp backend");
#ifdef _OPENMP
    if (omp_get_thread_limit() < 3) ST_SKIP("OMP_THREAD_LIMIT below 3");
#endif
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, 1000, &seq));
    ST_OK(skel_plan_add(p, 1001, SIZE_MAX, &omp3));
    ST_OK(skel_set_plan(p_whomap, p));
    memset(&c, 0, sizeof c);
    c.out = small;
    ST_OK(skel_choose(p_whomap, &c, &out));
    ST_CHECK(strcmp(out.backend, "seq") == 0);
    c.out = big;
    ST_OK(skel_choose(p_whomap, &c, &out));
    ST_CHECK(strcmp(out.backend, "omp") == 0);
    ST_EQ_INT(out.threads, 3);
    /* and the calls really run there */
    who_ran(100, &lo, &hi);
    ST_EQ_INT(lo, 100);
    ST_EQ_INT(hi, 100);
    who_ran(10000, &lo, &hi);
    ST_CHECK(lo >= 200);                  /* inside a team of 2 or more ... */
    ST_CHECK(hi % 100 >= 1 && hi % 100 <= 2);   /* ... its threads 0..2 working (the team may be
                                                   larger: it keeps the largest size so far) */
    /* detached: the default again (seq below the parallel threshold) */
    ST_OK(skel_set_plan(p_whomap, NULL));
    if (!getenv("SKEL_OMP_THRESHOLD") && !getenv("SKEL_PARALLEL_THRESHOLD")) {
        c.out = small;
        ST_OK(skel_choose(p_whomap, &c, &out));
        ST_CHECK(strcmp(out.backend, "seq") == 0);
    }
    skel_plan_free(p);
    skel_free(small); skel_free(big);
}

/* Bulk selection: a later call of a group whose own plan picks another
   memory space runs on the group's first variant. */
SKEL_TEST(plan_group_moves_a_call_to_the_first_calls_variant)
{
    skel_variant omp2 = var("omp", 2), ocl = var("opencl", 0), out;
    skel_plan *ph, *pd;
    skel_vec *w, *a = NULL, *b = NULL;
    skel_call cw, cm;
    if (getenv("SKEL_BACKEND")) ST_SKIP("SKEL_BACKEND is set: it overrides plans");
    if (!skel_backend_available("omp") || !skel_backend_available("opencl")) ST_SKIP("needs omp and opencl");
    w = ivec(1000);
    ST_OK(skel_vec_new(&a, SKEL_FLOAT, 1000));
    ST_OK(skel_vec_new(&b, SKEL_FLOAT, 1000));
    ST_OK(skel_plan_new(&ph));
    ST_OK(skel_plan_add(ph, 0, SIZE_MAX, &omp2));
    ST_OK(skel_plan_new(&pd));
    ST_OK(skel_plan_add(pd, 0, SIZE_MAX, &ocl));
    ST_OK(skel_set_plan(p_whomap, ph));
    ST_OK(skel_set_plan(p_map, pd));
    memset(&cw, 0, sizeof cw);
    cw.out = w; cw.group = 11;
    memset(&cm, 0, sizeof cm);
    cm.in[0] = a; cm.out = b; cm.group = 11;
    skel_group_reset(11);
    ST_OK(skel_choose(p_whomap, &cw, &out));        /* first: the host, omp/2 */
    ST_CHECK(strcmp(out.backend, "omp") == 0 && out.threads == 2);
    ST_OK(skel_choose(p_map, &cm, &out));           /* its plan says opencl: moved */
    ST_CHECK(strcmp(out.backend, "omp") == 0 && out.threads == 2);
    skel_group_reset(11);
    ST_OK(skel_choose(p_map, &cm, &out));           /* now opencl comes first */
    ST_CHECK(strcmp(out.backend, "opencl") == 0);
    ST_OK(skel_choose(p_whomap, &cw, &out));
    ST_CHECK(strcmp(out.backend, "opencl") == 0);
    cm.group = 0;
    ST_OK(skel_choose(p_map, &cm, &out));           /* no group: its own plan */
    ST_CHECK(strcmp(out.backend, "opencl") == 0);
    skel_group_reset(11);
    skel_set_plan(p_whomap, NULL);
    skel_set_plan(p_map, NULL);
    skel_plan_free(ph); skel_plan_free(pd);
    skel_free(w); skel_free(a); skel_free(b);
}

SKEL_TEST(plan_results_match_on_every_variant)
{
    size_t n = 50000, i;
    skel_vec *a = NULL, *o = NULL;
    float *p;
    int vi;
    ST_OK(skel_vec_new(&a, SKEL_FLOAT, n));
    ST_OK(skel_vec_new(&o, SKEL_FLOAT, n));
    p = (float *)skel_write(a);
    for (i = 0; i < n; ++i) p[i] = (float)i * 0.25f - 3;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        skel_variant out;
        skel_call c;
        const float *r;
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(p_map, vi);
        memset(&c, 0, sizeof c);
        c.in[0] = a; c.out = o;
        if (!getenv("SKEL_BACKEND")) {
            ST_OK(skel_choose(p_map, &c, &out));
            ST_CHECK(strcmp(out.backend, st_variant_get(vi)->v.backend) == 0);
            ST_EQ_INT(out.threads, st_variant_get(vi)->v.threads);
        }
        memset(skel_write(o), 0, n * sizeof(float));
        ST_OK(skel_run(p_map, &c));
        r = (const float *)skel_read(o);
        for (i = 0; i < n; ++i)
            if (r[i] != 2 * ((float)i * 0.25f - 3)) ST_FAIL("r[%zu] = %g", i, (double)r[i]);
    }
    ST_OK(skel_set_plan(p_map, NULL));
    skel_free(a); skel_free(o);
}

SKEL_TEST(default_choice_without_plan_uses_threshold)
{
    skel_vec *a = NULL, *o = NULL, *A = NULL, *O = NULL;
    skel_variant out;
    skel_call c;
    const char *par = skel_backend_available("pool") ? "pool" : skel_backend_available("omp") ? "omp" : "seq";
    int threads, at;
    if (getenv("SKEL_BACKEND") || getenv("SKEL_OMP_THRESHOLD") || getenv("SKEL_PARALLEL_THRESHOLD"))
        ST_SKIP("SKEL_BACKEND or a threshold variable is set");
    at = _skel_test_parallel_threshold(&threads);
    ST_EQ_INT(at, threads > 4 ? 8192 * threads : 32768);    /* 8192 a thread, at least 32768 */
    ST_OK(skel_set_plan(p_map, NULL));
    ST_OK(skel_vec_new(&a, SKEL_FLOAT, (size_t)at - 1));
    ST_OK(skel_vec_new(&o, SKEL_FLOAT, (size_t)at - 1));
    ST_OK(skel_vec_new(&A, SKEL_FLOAT, (size_t)at));
    ST_OK(skel_vec_new(&O, SKEL_FLOAT, (size_t)at));
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.out = o;
    ST_OK(skel_choose(p_map, &c, &out));
    ST_CHECK(strcmp(out.backend, "seq") == 0);
    c.in[0] = A; c.out = O;
    ST_OK(skel_choose(p_map, &c, &out));
    ST_CHECK(strcmp(out.backend, par) == 0);
    skel_free(a); skel_free(o); skel_free(A); skel_free(O);
}

SKEL_TEST(choose_checks_operands_like_run)
{
    skel_variant out;
    skel_call c;
    skel_vec *a = NULL;
    ST_OK(skel_vec_new(&a, SKEL_FLOAT, 10));
    memset(&c, 0, sizeof c);
    c.in[0] = a;                              /* no out */
    ST_EQ_INT(skel_choose(p_map, &c, &out), SKEL_EINVAL);
    ST_EQ_INT(skel_choose(p_map, NULL, &out), SKEL_EINVAL);
    c.out = a;
    ST_EQ_INT(skel_choose(p_map, &c, NULL), SKEL_EINVAL);
    skel_free(a);
}

/* A range plan looks at the product of a 2D context point (skel.h:
   skel_plan_lookup_point).  MapArray's point is (length of v, elements of
   the result), so 10 x 200 falls in the range from 1001. */
SKEL_TEST(plan_range_lookup_of_2d_point_uses_product)
{
    skel_plan *p = NULL;
    skel_variant small = var("seq", 1), large = var("seq", 2), out;
    size_t pt[2] = { 10, 200 }, pt2[2] = { 10, 100 };
    skel_vec *v = NULL, *idx = NULL, *o = NULL;
    skel_call c;
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, 1000, &small));
    ST_OK(skel_plan_add(p, 1001, SIZE_MAX, &large));
    ST_OK(skel_plan_lookup_point(p, pt, 2, &out));
    ST_EQ_INT(out.threads, 2);
    ST_OK(skel_plan_lookup_point(p, pt2, 2, &out));
    ST_EQ_INT(out.threads, 1);
    ST_OK(skel_plan_lookup_point(p, pt, 1, &out));
    ST_EQ_INT(out.threads, 1);
    if (!getenv("SKEL_BACKEND")) {
        ST_OK(skel_set_plan(p_marr, p));
        ST_OK(skel_vec_new(&v, SKEL_FLOAT, 10));
        ST_OK(skel_vec_new(&idx, SKEL_FLOAT, 200));
        ST_OK(skel_vec_new(&o, SKEL_FLOAT, 200));
        memset(&c, 0, sizeof c);
        c.in[0] = v; c.in[1] = idx; c.out = o;
        ST_OK(skel_choose(p_marr, &c, &out));
        ST_EQ_INT(out.threads, 2);
        ST_OK(skel_set_plan(p_marr, NULL));
    }
    skel_plan_free(p);
    skel_free(v); skel_free(idx); skel_free(o);
}
