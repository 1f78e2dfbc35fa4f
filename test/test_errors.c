/* Bad input: every refused call returns a clear error code, says why in
   skel_last_error(), and leaves every container it was given unchanged. */
#define _POSIX_C_SOURCE 200809L   /* strtok_r, mkdtemp, popen */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

SKEL_FUNC(float, e_add, (float a, float b), return a + b;)
SKEL_FUNC(float, e_scale, (float a, float u), return a * u;)
SKEL_FUNC(float, e_ov, (const float *a), return a[-1] + 2 * a[0] + 3 * a[1];)
SKEL_FUNC(float, e_ov2d, (const float *a, skel_index stride), return a[-stride] + a[stride] + a[-2] + a[2];)
SKEL_FUNC(float, e_ov3, (const float *a), return a[-3] + a[3];)
SKEL_FUNC(float, e_get, (const float *v, float e), return v[(skel_index)e];)
SKEL_MAP(e_map2, e_add, float, 2)
SKEL_MAP_EX(e_mapu, e_scale, float, float, 1, SKEL_NO_INDEX, SKEL_UNIFORM(float))
SKEL_REDUCE(e_red, e_add, float)
SKEL_MAPREDUCE(e_mr, e_add, e_add, float, 2)
SKEL_SCAN(e_scan, e_add, float)
SKEL_OVERLAP(e_ovl, e_ov, float, 1)
SKEL_OVERLAP(e_ovl3, e_ov3, float, 3)
SKEL_OVERLAP2D(e_ovl2d, e_ov2d, float, 1, 2)
SKEL_CONV2D(e_conv, float, 1, 1)
SKEL_MAPARRAY(e_marr, e_get, float)

/* run sk on c, which must fail with want, change nothing, and name the
   instance (needle) in skel_last_error() */
static void expect_refused(skel_skeleton *sk, const skel_call *c, int want, const char *needle,
                           const char *file, int line)
{
    st_snap s;
    const char *changed;
    int rc;
    if (c) st_snap_take(&s, c, 4);   /* float results only here */
    rc = skel_run(sk, c);
    if (rc != want)
        st_fail_(file, line, "skel_run returned %d (%s), want %d (%s); last error: %s", rc,
                 skel_error_string(rc), want, skel_error_string(want), skel_last_error());
    if (!skel_last_error()[0]) st_fail_(file, line, "skel_last_error() is empty");
    if (needle && !strstr(skel_last_error(), needle))
        st_fail_(file, line, "skel_last_error() \"%s\" does not name \"%s\"", skel_last_error(), needle);
    if (c && (changed = st_snap_changed(&s)) != NULL) st_fail_(file, line, "a refused call changed %s", changed);
}
#define REFUSED(sk, c, want) expect_refused(sk, c, want, (sk)->name, __FILE__, __LINE__)

static skel_vec *fvec(size_t n, float start)
{
    skel_vec *v = NULL;
    float *p;
    size_t i;
    ST_OK(skel_vec_new(&v, SKEL_FLOAT, n));
    p = (float *)skel_write(v);
    for (i = 0; i < n; ++i) p[i] = start + (float)i * 0.5f;
    return v;
}

static skel_mat *fmat(size_t r, size_t c, float start)
{
    skel_mat *m = NULL;
    float *p;
    size_t i;
    ST_OK(skel_mat_new(&m, SKEL_FLOAT, r, c));
    p = (float *)skel_write(m);
    for (i = 0; i < r * c; ++i) p[i] = start - (float)i * 0.25f;
    return m;
}

SKEL_TEST(error_strings_are_distinct_for_every_code)
{
    int a, b;
    for (a = SKEL_EDEPEND; a <= SKEL_OK; ++a) {
        ST_CHECK(skel_error_string(a) != NULL);
        ST_CHECK(skel_error_string(a)[0] != 0);
        for (b = SKEL_EDEPEND; b < a; ++b) ST_CHECK(strcmp(skel_error_string(a), skel_error_string(b)) != 0);
    }
    ST_CHECK(skel_error_string(-1000) != NULL);
    ST_CHECK(skel_error_string(5) != NULL);
}

SKEL_TEST(null_skeleton_and_null_call_are_refused)
{
    skel_vec *a = fvec(8, 1), *b = fvec(8, 2), *o = fvec(8, 3);
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.out = o;
    expect_refused(NULL, &c, SKEL_EINVAL, NULL, __FILE__, __LINE__);
    REFUSED(e_map2, NULL, SKEL_EINVAL);
    ST_EQ_INT(skel_map2(NULL, o, a, b), SKEL_EINVAL);
    skel_free(a); skel_free(b); skel_free(o);
}

SKEL_TEST(map_operand_errors_leave_containers_unchanged)
{
    skel_vec *a = fvec(8, 1), *b = fvec(8, 2), *o = fvec(8, 3), *b9 = fvec(9, 4), *o9 = fvec(9, 5);
    skel_mat *m = fmat(2, 4, 6), *mo = fmat(2, 4, 7);
    skel_vec *d = NULL;
    skel_call c;
    double dv[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    float u = 2;
    ST_OK(skel_vec_new_copy(&d, SKEL_DOUBLE, 8, dv));
#define CALL(i0, i1, o_) do { memset(&c, 0, sizeof c); c.in[0] = i0; c.in[1] = i1; c.out = o_; } while (0)
    CALL(a, b, NULL);   REFUSED(e_map2, &c, SKEL_EINVAL);    /* no out */
    CALL(a, NULL, o);   REFUSED(e_map2, &c, SKEL_EINVAL);    /* missing input */
    CALL(a, b9, o);     REFUSED(e_map2, &c, SKEL_ESIZE);     /* input sizes differ */
    CALL(a, b, o9);     REFUSED(e_map2, &c, SKEL_ESIZE);     /* out size differs */
    CALL(a, d, o);      REFUSED(e_map2, &c, SKEL_ETYPE);     /* double into a float instance */
    CALL(a, b, d);      REFUSED(e_map2, &c, SKEL_ETYPE);     /* double out */
    CALL(a, m, o);      REFUSED(e_map2, &c, SKEL_ESHAPE);    /* vector and matrix of 8 */
    CALL(m, m, o);      REFUSED(e_map2, &c, SKEL_ESHAPE);    /* matrix in, vector out */
    CALL(a, b, mo);     REFUSED(e_map2, &c, SKEL_ESHAPE);    /* vector in, matrix out */
    CALL(a, b, o); c.in[2] = a; REFUSED(e_map2, &c, SKEL_EINVAL);   /* a third input */
    CALL(a, b, o); c.uniform = &u; REFUSED(e_map2, &c, SKEL_EINVAL); /* uniform not declared */
    CALL(a, NULL, o);   REFUSED(e_mapu, &c, SKEL_EINVAL);    /* missing uniform */
#undef CALL
    skel_free(a); skel_free(b); skel_free(o); skel_free(b9); skel_free(o9);
    skel_free(m); skel_free(mo); skel_free(d);
}

SKEL_TEST(reduce_errors_leave_containers_unchanged)
{
    skel_vec *a = fvec(8, 1), *e = fvec(0, 0), *r2 = fvec(2, 9), *r3 = fvec(3, 9), *b = fvec(8, 3);
    skel_mat *m = fmat(2, 4, 6), *mo = fmat(1, 2, 7);
    skel_call c;
    float res = 77;
    memset(&c, 0, sizeof c);
    c.in[0] = a;
    REFUSED(e_red, &c, SKEL_EINVAL);                          /* whole reduce, no result */
    c.result = &res; c.out = r2;
    REFUSED(e_red, &c, SKEL_EINVAL);                          /* whole reduce: result and out */
    c.result = NULL;
    REFUSED(e_red, &c, SKEL_ESIZE);                           /* into out: 2 elements, not 1 */
    c.out = mo;
    REFUSED(e_red, &c, SKEL_ESIZE);                           /* into out: a matrix */
    c.out = e; c.in[0] = e;
    REFUSED(e_red, &c, SKEL_ESIZE);                           /* into out: 0 elements */
    c.out = NULL; c.result = &res;
    REFUSED(e_red, &c, SKEL_EEMPTY);                          /* empty: no identity */
    ST_EQ_INT(skel_reduce(e_red, e, &res), SKEL_EEMPTY);
    ST_CHECK(res == 77);
    c.in[0] = a; c.direction = SKEL_ROWS; c.result = NULL; c.out = r2;
    REFUSED(e_red, &c, SKEL_ESHAPE);                          /* row-wise on a vector */
    c.in[0] = m; c.out = mo;
    REFUSED(e_red, &c, SKEL_ESHAPE);                          /* row-wise result is a matrix */
    c.out = r3;
    REFUSED(e_red, &c, SKEL_ESIZE);                           /* 2 rows, 3 results */
    c.direction = SKEL_COLS; c.out = r2;
    REFUSED(e_red, &c, SKEL_ESIZE);                           /* 4 columns, 2 results */
    c.out = NULL;
    REFUSED(e_red, &c, SKEL_EINVAL);                          /* column-wise, no out */
    c.direction = 7; c.out = r2;
    REFUSED(e_red, &c, SKEL_EINVAL);                          /* unknown direction */
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.result = &res; c.direction = SKEL_ROWS;
    REFUSED(e_mr, &c, SKEL_EUNSUPPORTED);                     /* MapReduce is whole only ... */
    ST_CHECK(strstr(skel_last_error(), "on every backend") != NULL);   /* ... a limit of the skeleton */
    c.direction = SKEL_WHOLE; c.in[1] = r2;
    REFUSED(e_mr, &c, SKEL_ESIZE);
    skel_free(a); skel_free(e); skel_free(r2); skel_free(r3); skel_free(b);
    skel_free(m); skel_free(mo);
}

SKEL_TEST(scan_errors_leave_containers_unchanged)
{
    skel_vec *a = fvec(8, 1), *o = fvec(8, 2), *o7 = fvec(7, 3);
    skel_mat *m = fmat(2, 4, 6), *mo = fmat(2, 4, 7);
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.out = o; c.exclusive = 1;
    REFUSED(e_scan, &c, SKEL_EINVAL);                         /* exclusive without init */
    c.exclusive = 0; c.out = o7;
    REFUSED(e_scan, &c, SKEL_ESIZE);
    c.out = NULL;
    REFUSED(e_scan, &c, SKEL_EINVAL);
    c.out = o; c.direction = SKEL_ROWS;
    REFUSED(e_scan, &c, SKEL_ESHAPE);                         /* direction on a vector */
    c.in[0] = m; c.out = mo; c.direction = SKEL_COLS;
    REFUSED(e_scan, &c, SKEL_EUNSUPPORTED);                   /* matrices scan row-wise only ... */
    ST_CHECK(strstr(skel_last_error(), "on every backend") != NULL);   /* ... on every backend */
    ST_CHECK(strstr(skel_error_string(SKEL_EUNSUPPORTED), "by the skeleton") != NULL);
    skel_free(a); skel_free(o); skel_free(o7); skel_free(m); skel_free(mo);
}

SKEL_TEST(overlap_errors_leave_containers_unchanged)
{
    skel_vec *a = fvec(8, 1), *o = fvec(8, 2), *two = fvec(2, 3), *two_o = fvec(2, 4);
    skel_mat *m28 = fmat(2, 8, 6), *m28o = fmat(2, 8, 7), *m82 = fmat(8, 2, 6), *m82o = fmat(8, 2, 7);
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.out = NULL;
    REFUSED(e_ovl, &c, SKEL_EINVAL);                          /* no out */
    c.out = two_o;
    REFUSED(e_ovl, &c, SKEL_ESIZE);                           /* out of another size */
    c.out = m28o;
    REFUSED(e_ovl, &c, SKEL_ESHAPE);                          /* out of another shape */
    c.out = o; c.direction = SKEL_COLS;
    REFUSED(e_ovl, &c, SKEL_ESHAPE);                          /* direction on a vector */
    c.direction = SKEL_WHOLE; c.edge = (skel_edge)9;
    REFUSED(e_ovl, &c, SKEL_EINVAL);                          /* unknown edge policy */
    c.edge = SKEL_EDGE_CYCLIC;
    c.in[0] = two; c.out = two_o;
    REFUSED(e_ovl3, &c, SKEL_ESIZE);                          /* d 3 > n 2 */
    c.in[0] = m82; c.out = m82o; c.direction = SKEL_ROWS;
    REFUSED(e_ovl3, &c, SKEL_ESIZE);                          /* d 3 > 2 columns */
    c.direction = SKEL_ROWS_COLS;
    REFUSED(e_ovl3, &c, SKEL_ESIZE);
    c.in[0] = m28; c.out = m28o; c.direction = SKEL_COLS;
    REFUSED(e_ovl3, &c, SKEL_ESIZE);                          /* d 3 > 2 rows */
    c.direction = SKEL_ROWS_COLS;
    REFUSED(e_ovl3, &c, SKEL_ESIZE);
    c.direction = 9;
    REFUSED(e_ovl3, &c, SKEL_EINVAL);                         /* unknown direction */
    c.direction = SKEL_ROWS;                                  /* 3 <= 8 columns: fine */
    ST_OK(skel_run(e_ovl3, &c));
    skel_free(a); skel_free(o); skel_free(two); skel_free(two_o);
    skel_free(m28); skel_free(m28o); skel_free(m82); skel_free(m82o);
}

SKEL_TEST(overlap2d_errors_leave_containers_unchanged)
{
    skel_vec *a = fvec(8, 1), *o = fvec(8, 2);
    skel_mat *m41 = fmat(4, 1, 6), *m41o = fmat(4, 1, 7), *m33 = fmat(3, 3, 1), *m33o = fmat(3, 3, 2);
    skel_call c;
    float w[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.out = o;
    REFUSED(e_ovl2d, &c, SKEL_ESHAPE);                        /* 2D overlap of a vector */
    c.in[0] = m41; c.out = m41o;
    REFUSED(e_ovl2d, &c, SKEL_ESIZE);                         /* dC 2 > 1 column */
    c.in[0] = m33; c.out = m33o;
    REFUSED(e_conv, &c, SKEL_EINVAL);                         /* weighted, no weights */
    c.weights = w;
    ST_OK(skel_run(e_conv, &c));
    skel_free(a); skel_free(o); skel_free(m41); skel_free(m41o); skel_free(m33); skel_free(m33o);
}

SKEL_TEST(maparray_errors_leave_containers_unchanged)
{
    skel_vec *v = fvec(8, 1), *idx = fvec(5, 0), *o = fvec(5, 2), *o6 = fvec(6, 2);
    skel_mat *m = fmat(2, 4, 1), *mi = fmat(1, 5, 0), *mo = fmat(1, 5, 3);
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = m; c.in[1] = idx; c.out = o;
    REFUSED(e_marr, &c, SKEL_ESHAPE);                         /* first operand must be a vector */
    c.in[0] = v; c.out = o6;
    REFUSED(e_marr, &c, SKEL_ESIZE);                          /* out does not match in[1] */
    c.in[1] = mi; c.out = o;
    REFUSED(e_marr, &c, SKEL_ESHAPE);                         /* matrix in[1], vector out */
    c.in[1] = NULL; c.out = mo;
    REFUSED(e_marr, &c, SKEL_EINVAL);                         /* no in[1] */
    c.in[1] = mi;
    {   /* valid indices for the call that succeeds */
        float *q = (float *)skel_write(mi);
        int k;
        for (k = 0; k < 5; ++k) q[k] = (float)(7 - k);
    }
    ST_OK(skel_run(e_marr, &c));
    ST_CHECK(((const float *)skel_read(mo))[4] == 1 + 3 * 0.5f);
    skel_free(v); skel_free(idx); skel_free(o); skel_free(o6); skel_free(m); skel_free(mi); skel_free(mo);
}

/* ---- declarations of the expressive forms ---- */
/* A struct of the same name as test_forms.c's tf_pt but other fields: two
   types, and a call that mixes them says so. */
SKEL_STRUCT(tf_pt, double x; double y;)
SKEL_FUNC(tf_pt, e_ptid, (tf_pt p), return p;)
SKEL_MAP_X(e_ptmap, e_ptid, SKEL_OUTS(tf_pt), SKEL_INS(tf_pt), SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)
skel_vec *tf_points(size_t n);  /* test_forms.c: a vector of its tf_pt */

SKEL_TEST(struct_declared_differently_in_two_files_is_another_type)
{
    skel_vec *theirs = tf_points(4), *ours = NULL, *out = NULL;
    ST_CHECK(theirs != NULL);
    ST_OK(skel_vec_new(&ours, SKEL_TYPE(tf_pt), 4));
    ST_OK(skel_vec_new(&out, SKEL_TYPE(tf_pt), 4));
    ST_CHECK(skel_elem_type(ours) != skel_elem_type(theirs));
    ST_OK(skel_map1(e_ptmap, out, ours));
    ST_EQ_INT(skel_map1(e_ptmap, out, theirs), SKEL_ETYPE);
    ST_CHECK(strstr(skel_last_error(), "declared differently") != NULL);
    skel_free(theirs); skel_free(ours); skel_free(out);
}

/* ---- backends ---- */
SKEL_TEST(plan_refuses_unknown_backend)
{
    skel_plan *p = NULL;
    skel_variant v;
    memset(&v, 0, sizeof v);
    ST_OK(skel_plan_new(&p));
    v.backend = "nonsense";
    ST_EQ_INT(skel_plan_add(p, 0, 10, &v), SKEL_EBACKEND);
    ST_CHECK(strstr(skel_last_error(), "nonsense") != NULL);
    v.backend = NULL;
    ST_EQ_INT(skel_plan_add(p, 0, 10, &v), SKEL_EINVAL);
    ST_EQ_INT(skel_plan_add(p, 0, 10, NULL), SKEL_EINVAL);
    v.backend = "seq"; v.threads = -1;
    ST_EQ_INT(skel_plan_add(p, 0, 10, &v), SKEL_EINVAL);
    ST_EQ_INT(skel_plan_lookup(p, 5, &v), SKEL_EINVAL);      /* nothing was added */
    ST_EQ_INT(skel_backend_available("nonsense"), 0);
    ST_EQ_INT(skel_backend_available("seq"), 1);
    skel_plan_free(p);
}

/* SKEL_BACKEND is read once, the first time skel needs its backends, so it
   cannot be changed inside this process: these tests run a hidden test in
   a child process with the variable set (st_child). */
SKEL_TEST(env_backend_unknown_makes_every_call_fail)
{
    static const char *const env[] = { "SKEL_BACKEND=nonsense", NULL };
    ST_CHILD_OK("child_env_backend_nonsense", env, 60);
}

SKEL_TEST(env_backend_seq_overrides_plan)
{
    static const char *const env[] = { "SKEL_BACKEND=seq", NULL };
    ST_CHILD_OK("child_env_backend_seq", env, 60);
}

SKEL_TEST_HIDDEN(child_env_backend_nonsense)
{
    skel_vec *a = fvec(8, 1), *b = fvec(8, 2), *o = fvec(8, 3);
    skel_call c;
    skel_variant v;
    float r = 5;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.out = o;
    expect_refused(e_map2, &c, SKEL_EBACKEND, "nonsense", __FILE__, __LINE__);
    ST_EQ_INT(skel_choose(e_map2, &c, &v), SKEL_EBACKEND);
    ST_EQ_INT(skel_reduce(e_red, a, &r), SKEL_EBACKEND);
    ST_CHECK(r == 5);
    skel_free(a); skel_free(b); skel_free(o);
}

SKEL_TEST_HIDDEN(child_env_backend_seq)
{
    skel_vec *a = fvec(100000, 1), *b = fvec(100000, 2), *o = fvec(100000, 3);
    skel_plan *p = NULL;
    skel_variant v;
    skel_call c;
    memset(&v, 0, sizeof v);
    ST_OK(skel_plan_new(&p));
    v.backend = skel_backend_available("omp") ? "omp" : "seq";
    v.threads = 2;
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v));
    ST_OK(skel_set_plan(e_map2, p));
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.out = o;
    ST_OK(skel_choose(e_map2, &c, &v));
    ST_CHECK(strcmp(v.backend, "seq") == 0);
    ST_OK(skel_run(e_map2, &c));
    ST_CHECK(((const float *)skel_read(o))[99999] == 1 + 2 + 2 * 99999 * 0.5f);
    ST_OK(skel_set_plan(e_map2, NULL));
    skel_plan_free(p);
    skel_free(a); skel_free(b); skel_free(o);
}

/* SKEL_REQUIRE=omp,opencl names backends this machine must have: CI sets
   it so that a build that silently lost a backend fails instead of
   skipping.  Without it a missing backend is a skip. */
SKEL_TEST(required_backends_are_available)
{
    const char *req = getenv("SKEL_REQUIRE");
    char buf[256], *tok, *save = NULL;
    if (!req) return;
    snprintf(buf, sizeof buf, "%s", req);
    for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save))
        if (!skel_backend_available(tok))
            ST_FAIL("SKEL_REQUIRE names backend '%s', which is not available", tok);
}

/* One skip line per absent backend, so a run says what it did not cover. */
static void backend_present(const char *name, const char *why)
{
    if (!skel_backend_available(name)) ST_SKIP("backend %s absent (%s); its cases did not run", name, why);
}
SKEL_TEST(backend_omp_present) { backend_present("omp", "built without -fopenmp, or SKEL_NO_OPENMP"); }
#ifdef SKEL_TEST_NO_GPU
#define GPU_WHY "the test was built with SKEL_TEST_NO_GPU"
#else
#define GPU_WHY "driver library or device not found"
#endif
SKEL_TEST(backend_cuda_present) { backend_present("cuda", GPU_WHY); }
SKEL_TEST(backend_opencl_present) { backend_present("opencl", GPU_WHY); }

SKEL_TEST(backend_registry_lists_seq_first)
{
    int i, n = skel_backend_count();
    ST_CHECK(n >= 1);
    ST_CHECK(strcmp(skel_backend_name(0), "seq") == 0);
    for (i = 0; i < n; ++i) ST_EQ_INT(skel_backend_available(skel_backend_name(i)), 1);
    ST_CHECK(skel_backend_name(n) == NULL);
    ST_CHECK(skel_backend_name(-1) == NULL);
}

/* ---- the environment ---- */
/* A bad value of a numeric variable is ignored with a warning that names
   it, whatever SKEL_VERBOSE says; calls still run. */
SKEL_TEST_HIDDEN(child_env_bad_numbers)
{
    skel_vec *a = fvec(50000, 1), *b = fvec(50000, 2), *o = fvec(50000, 3);
    ST_OK(skel_map2(e_map2, o, a, b));
    ST_CHECK(((const float *)skel_read(o))[49999] == 1 + 2 + 2 * 49999 * 0.5f);
    skel_free(a); skel_free(b); skel_free(o);
}

SKEL_TEST(env_bad_numbers_are_ignored_with_a_warning_naming_them)
{
    static const char *const env[] = { "SKEL_OMP_THREADS=abc", "SKEL_OMP_THRESHOLD=-5", "SKEL_VERBOSE=yes",
                                       "SKEL_FALLBACK=", NULL };
    static char out[16384];
    int rc = st_child("child_env_bad_numbers", env, 60, out, sizeof out);
    if (rc != 0 || !strstr(out, "1 passed, 0 failed") || !strstr(out, "SKEL_OMP_THREADS=\"abc\"") ||
        !strstr(out, "SKEL_OMP_THRESHOLD=\"-5\"") || !strstr(out, "SKEL_VERBOSE=\"yes\"") ||
        !strstr(out, "SKEL_FALLBACK=\"\""))
        ST_FAIL("status %d:\n%s", rc, out);
}

/* SKEL_BACKEND=cuda-check says why the backend is absent: the variable it
   needs is unset, NVRTC is missing, or SKEL_CUDA_CHECK names something
   that is not an architecture NVRTC builds for (never another one). */
SKEL_TEST_HIDDEN(child_env_cuda_check_absent)
{
    const char *want = getenv("ST_WANT");
    skel_vec *a = fvec(8, 1), *b = fvec(8, 2), *o = fvec(8, 3);
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.out = o;
    expect_refused(e_map2, &c, SKEL_EBACKEND, "cuda-check", __FILE__, __LINE__);
    if (want && !strstr(skel_last_error(), want) && !strstr(skel_last_error(), "NVRTC not found"))
        ST_FAIL("last error \"%s\" does not say \"%s\"", skel_last_error(), want);
    ST_CHECK(skel_backend_available("cuda-check") == 0);
    skel_free(a); skel_free(b); skel_free(o);
}

SKEL_TEST(env_backend_cuda_check_says_why_it_is_absent)
{
    static const char *const unset[] = { "SKEL_BACKEND=cuda-check", "SKEL_CUDA_CHECK", "ST_WANT=SKEL_CUDA_CHECK is not set",
                                         NULL };
    static const char *const huge[] = { "SKEL_BACKEND=cuda-check", "SKEL_CUDA_CHECK=sm_99999999999",
                                        "ST_WANT=not a list of sm_XY names", NULL };
    static const char *const unknown[] = { "SKEL_BACKEND=cuda-check", "SKEL_CUDA_CHECK=sm_80,sm_9999",
                                           "ST_WANT=does not build sm_9999", NULL };
    ST_CHILD_OK("child_env_cuda_check_absent", unset, 60);
    ST_CHILD_OK("child_env_cuda_check_absent", huge, 60);
    ST_CHILD_OK("child_env_cuda_check_absent", unknown, 60);
}

/* ---- start-up ---- */
/* A program that runs on the CPU never opens a GPU library: libcuda, NVRTC
   and the OpenCL loader are opened when something needs a GPU (here:
   listing the backends), not at the first call (which cost 25-40 ms). */
static int mapped(const char *lib)
{
    char line[1024];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, lib) != NULL;
    fclose(f);
    return found;
}

SKEL_TEST_HIDDEN(child_cpu_call_opens_no_gpu_library)
{
    skel_vec *a = fvec(1000, 1), *b = fvec(1000, 2), *o = fvec(1000, 3);
    skel_plan *p;
    if (mapped("libOpenCL") < 0) ST_SKIP("no /proc/self/maps");
    ST_OK(skel_map2(e_map2, o, a, b));                     /* default plan: seq */
    ST_OK(skel_plan_new(&p));                              /* a CPU plan */
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &(skel_variant){ .backend = "seq" }));
    ST_OK(skel_set_plan(e_map2, p));
    ST_OK(skel_map2(e_map2, o, a, b));
    ST_CHECK(((const float *)skel_read(o))[999] == 1 + 2 + 2 * 999 * 0.5f);
    ST_EQ_INT(mapped("libOpenCL"), 0);
    ST_EQ_INT(mapped("libcuda"), 0);
    ST_EQ_INT(mapped("libnvrtc"), 0);
    ST_CHECK(skel_backend_count() >= 1);                   /* asks about every backend: probes */
    if (skel_backend_available("opencl")) ST_EQ_INT(mapped("libOpenCL"), 1);
    ST_OK(skel_set_plan(e_map2, NULL));
    skel_plan_free(p);
    skel_free(a); skel_free(b); skel_free(o);
}

SKEL_TEST(startup_a_cpu_call_opens_no_gpu_library)
{
    static const char *const env[] = { "SKEL_BACKEND", NULL };
    ST_CHILD_OK("child_cpu_call_opens_no_gpu_library", env, 60);
}
