/* Values at the limits: thread counts beyond any machine, calls on empty
   data with huge dimensions, 2-D sizes whose product overflows, containers
   that wrap overlapping memory, 2-D index grids.  Each is refused clearly,
   or runs at once and right; none crashes, hangs or lies. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

SKEL_FUNC(float, l_twice, (float a), return 2 * a + 1;)
SKEL_FUNC(float, l_add, (float a, float b), return a + b;)
SKEL_FUNC(float, l_w, (const float *a), return a[-1] + a[0] + a[1];)
SKEL_FUNC(float, l_w2, (const float *a, skel_index s), return a[-s] + a[0] + a[s];)
SKEL_FUNC(float, l_get, (const float *v, float e), return v[(skel_index)e];)
SKEL_FUNC(int64_t, l_rc, (skel_index r, skel_index c), return 1000 * r + c;)
SKEL_FUNC(int64_t, l_i, (skel_index i), return i;)
SKEL_FUNC(int64_t, l_add64, (int64_t a, int64_t b), return a + b;)
SKEL_MAP(l_map, l_twice, float, 1)
SKEL_REDUCE(l_sum, l_add, float)
SKEL_SCAN(l_scan, l_add, float)
SKEL_OVERLAP(l_ov, l_w, float, 1)
SKEL_OVERLAP2D(l_ov2, l_w2, float, 1, 1)
SKEL_MAPARRAY(l_ma, l_get, float)
SKEL_MAPREDUCE_INDEX(l_grid, l_rc, l_add64, int64_t, SKEL_INDEX2D, SKEL_NO_UNIFORM)
SKEL_MAPREDUCE_INDEX(l_flat, l_i, l_add64, int64_t, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_MAP_INDEX(l_gridmap, l_rc, int64_t, SKEL_INDEX2D, SKEL_NO_UNIFORM)

int _skel_omp_kept_team(void);

/* ---- thread counts ---- */
SKEL_TEST(limits_thread_counts_beyond_the_bound_are_refused)
{
    skel_plan *p;
    static const char *const names[] = { "seq", "omp", "pool" };
    int k;
    ST_OK(skel_plan_new(&p));
    for (k = 0; k < 3; ++k) {
        skel_variant v;
        if (!skel_backend_available(names[k])) continue;
        memset(&v, 0, sizeof v);
        v.backend = names[k];
        v.threads = 100000;
        ST_EQ_INT(skel_plan_add(p, 0, 10, &v), SKEL_EINVAL);
        ST_CHECK(strstr(skel_last_error(), "100000") != NULL);
        v.threads = SKEL_MAX_THREADS + 1;
        ST_EQ_INT(skel_plan_add(p, 0, 10, &v), SKEL_EINVAL);
        ST_CHECK(strstr(skel_last_error(), "SKEL_MAX_THREADS") != NULL);
    }
    skel_plan_free(p);
}

/* The bound itself runs, and a team larger than the machine is not kept:
   later small calls do not wake it. */
SKEL_TEST(limits_the_largest_thread_count_runs_and_its_team_is_not_kept)
{
    skel_plan *p;
    skel_vec *a = st_fvec(5000, 1), *o = NULL;
    skel_variant v;
    if (!skel_backend_available("omp")) ST_SKIP("no omp backend");
    memset(&v, 0, sizeof v);
    v.backend = "omp";
    v.threads = SKEL_MAX_THREADS;
    ST_OK(skel_vec_new(&o, SKEL_FLOAT, 5000));
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v));
    ST_OK(skel_set_plan(l_map, p));
    ST_OK(skel_map1(l_map, o, a));
    ST_CHECK(((const float *)skel_read(o))[4999] == 2 * ((const float *)skel_read(a))[4999] + 1);
    {
        long procs = sysconf(_SC_NPROCESSORS_ONLN);
        if (procs > 0 && procs < SKEL_MAX_THREADS && _skel_omp_kept_team() > procs)
            ST_FAIL("a %d-thread team is kept on a %ld-processor machine", _skel_omp_kept_team(), procs);
    }
    ST_OK(skel_set_plan(l_map, NULL));
    skel_plan_free(p);
    skel_free(a);
    skel_free(o);
}

SKEL_TEST_HIDDEN(child_limits_omp_threads_env)
{
    skel_vec *a = st_fvec(50000, 1), *o = NULL;
    ST_OK(skel_vec_new(&o, SKEL_FLOAT, 50000));
    ST_OK(skel_map1(l_map, o, a));
    ST_CHECK(((const float *)skel_read(o))[49999] == 2 * ((const float *)skel_read(a))[49999] + 1);
    skel_free(a);
    skel_free(o);
}

SKEL_TEST(limits_omp_threads_beyond_the_bound_is_ignored_with_a_warning)
{
    static const char *const env[] = { "SKEL_OMP_THREADS=100000", "SKEL_BACKEND=omp", NULL };
    static char out[16384];
    int rc;
    if (!skel_backend_available("omp")) ST_SKIP("no omp backend");
    rc = st_child("child_limits_omp_threads_env", env, 60, out, sizeof out);
    if (rc != 0 || !strstr(out, "1 passed, 0 failed") || !strstr(out, "SKEL_OMP_THREADS=\"100000\""))
        ST_FAIL("status %d:\n%s", rc, out);
}

/* ---- empty data ---- */
/* A 2^64-1 x 0 matrix has no element: every call on it returns at once (a
   row Scan looped over its rows for ever, a column Reduce took seconds). */
SKEL_TEST_HIDDEN(child_limits_empty_calls)
{
    skel_mat *m = NULL, *o = NULL;
    skel_vec *e = NULL, *v = NULL;
    skel_call c;
    float w = 0;
    int vi;
    ST_OK(skel_mat_new(&m, SKEL_FLOAT, SIZE_MAX, 0));
    ST_OK(skel_mat_new(&o, SKEL_FLOAT, SIZE_MAX, 0));
    ST_OK(skel_vec_new(&e, SKEL_FLOAT, 0));
    v = st_fvec(7, 1);
    (void)w;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        int k;
        skel_skeleton *all[] = { l_map, l_sum, l_scan, l_ov, l_ov2, l_ma };
        st_context("%s", st_variant_get(vi)->label);
        for (k = 0; k < 6; ++k) st_use_variant(all[k], vi);
        ST_OK(skel_map1(l_map, o, m));
        memset(&c, 0, sizeof c);
        c.in[0] = m; c.out = o; c.direction = SKEL_ROWS;
        ST_OK(skel_run(l_scan, &c));
        ST_OK(skel_run(l_ov, &c));
        c.direction = SKEL_COLS;
        ST_OK(skel_run(l_ov, &c));
        c.direction = SKEL_ROWS_COLS;
        ST_OK(skel_run(l_ov, &c));
        c.direction = 0;
        ST_OK(skel_run(l_ov2, &c));
        memset(&c, 0, sizeof c);
        c.in[0] = m; c.out = e; c.direction = SKEL_COLS;      /* 0 columns: a 0-element result */
        ST_OK(skel_run(l_sum, &c));
        memset(&c, 0, sizeof c);
        c.in[0] = v; c.in[1] = m; c.out = o;                  /* MapArray over no elements */
        ST_OK(skel_run(l_ma, &c));
        for (k = 0; k < 6; ++k) ST_OK(skel_set_plan(all[k], NULL));
    }
    skel_free(m); skel_free(o); skel_free(e); skel_free(v);
}

SKEL_TEST(limits_calls_on_empty_data_with_huge_dimensions_return_at_once)
{
    ST_CHILD_OK("child_limits_empty_calls", NULL, 60);
}

/* ---- 2-D sizes ---- */
SKEL_TEST(limits_a_range_plan_saturates_2d_sizes)
{
    skel_plan *p;
    skel_variant v;
    size_t pt[2];
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, 1000, &(skel_variant){ .backend = "seq" }));
    ST_OK(skel_plan_add(p, 1001, SIZE_MAX, &(skel_variant){ .backend = skel_backend_available("omp") ? "omp" : "pool" }));
    pt[0] = pt[1] = (size_t)1 << 33;      /* 2^66: wrapped to 4 */
    ST_OK(skel_plan_lookup_point(p, pt, 2, &v));
    ST_CHECK(strcmp(v.backend, "seq") != 0);
    pt[0] = SIZE_MAX; pt[1] = 2;
    ST_OK(skel_plan_lookup_point(p, pt, 2, &v));
    ST_CHECK(strcmp(v.backend, "seq") != 0);
    pt[0] = 10; pt[1] = 100;
    ST_OK(skel_plan_lookup_point(p, pt, 2, &v));
    ST_CHECK(strcmp(v.backend, "seq") == 0);
    skel_plan_free(p);
}

/* ---- overlapping memory ---- */
/* out wraps buf + 1 and in wraps buf: refused, nothing changed (it gave
   silently wrong results); one container as both is the in-place call. */
SKEL_TEST(limits_different_containers_over_overlapping_memory_are_refused)
{
    float buf[17], copy[17];
    skel_vec *in = NULL, *out = NULL, *same = NULL;
    int i, vi;
    for (i = 0; i < 17; ++i) buf[i] = (float)(i * 3 % 7);
    memcpy(copy, buf, sizeof buf);
    ST_OK(skel_vec_wrap(&in, SKEL_FLOAT, 16, buf));
    ST_OK(skel_vec_wrap(&out, SKEL_FLOAT, 16, buf + 1));
    ST_OK(skel_vec_wrap(&same, SKEL_FLOAT, 16, buf));
    for (vi = 0; vi < st_variant_count(); ++vi) {
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(l_map, vi);
        st_use_variant(l_scan, vi);
        st_use_variant(l_ov, vi);
        ST_EQ_INT(skel_map1(l_map, out, in), SKEL_EINVAL);
        ST_CHECK(strstr(skel_last_error(), "overlapping memory") != NULL);
        ST_EQ_INT(skel_scan(l_scan, out, in), SKEL_EINVAL);
        ST_EQ_INT(skel_overlap(l_ov, out, in, SKEL_EDGE_CONSTANT, NULL), SKEL_EINVAL);
        ST_EQ_INT(skel_map1(l_map, same, in), SKEL_EINVAL);      /* the same memory, two containers */
        ST_CHECK(memcmp(buf, copy, sizeof buf) == 0);
    }
    ST_OK(skel_set_plan(l_map, NULL));
    ST_OK(skel_map1(l_map, in, in));                              /* in place: fine */
    ST_OK(skel_flush(in));
    for (i = 0; i < 16; ++i) ST_CHECK(buf[i] == 2 * copy[i] + 1);
    ST_CHECK(buf[16] == copy[16]);
    ST_OK(skel_set_plan(l_scan, NULL));
    ST_OK(skel_set_plan(l_ov, NULL));
    skel_free(in); skel_free(out); skel_free(same);
}

/* ---- index grids ---- */
/* An index-only MapReduce over SKEL_INDEX2D needs a rows x cols grid (with
   call.count alone every row index was 0, silently). */
SKEL_TEST(limits_index_only_mapreduce_over_a_2d_grid)
{
    static const size_t shapes[][2] = { { 1, 1 }, { 3, 5 }, { 97, 131 }, { 1024, 3 } };
    skel_call c;
    int64_t r, want;
    size_t k, i, j;
    int vi;
    memset(&c, 0, sizeof c);
    c.result = &r;
    c.count = 100;
    ST_EQ_INT(skel_run(l_grid, &c), SKEL_EINVAL);                 /* 2-D index, 1-D count */
    ST_CHECK(strstr(skel_last_error(), "call.rows and call.cols") != NULL);
    c.rows = 10; c.cols = 10;
    ST_EQ_INT(skel_run(l_grid, &c), SKEL_EINVAL);                 /* both */
    c.count = 0; c.rows = SIZE_MAX; c.cols = 3;
    ST_EQ_INT(skel_run(l_grid, &c), SKEL_EINVAL);                 /* overflow */
    c.rows = 0; c.cols = 5;
    ST_EQ_INT(skel_run(l_grid, &c), SKEL_EEMPTY);
    for (vi = 0; vi < st_variant_count(); ++vi)
        for (k = 0; k < sizeof shapes / sizeof *shapes; ++k) {
            st_context("%s %zu x %zu", st_variant_get(vi)->label, shapes[k][0], shapes[k][1]);
            st_use_variant(l_grid, vi);
            st_use_variant(l_flat, vi);
            memset(&c, 0, sizeof c);
            c.result = &r;
            c.rows = shapes[k][0]; c.cols = shapes[k][1];
            for (want = 0, i = 0; i < c.rows; ++i)
                for (j = 0; j < c.cols; ++j) want += 1000 * (int64_t)i + (int64_t)j;
            r = -1;
            ST_OK(skel_run(l_grid, &c));
            ST_EQ_INT(r, want);
            r = -1;                                                   /* a 1-D index over a grid: flat */
            ST_OK(skel_run(l_flat, &c));
            ST_EQ_INT(r, (int64_t)(c.rows * c.cols) * (int64_t)(c.rows * c.cols - 1) / 2);
        }
    ST_OK(skel_set_plan(l_grid, NULL));
    ST_OK(skel_set_plan(l_flat, NULL));
    for (vi = 0; vi < st_variant_count(); ++vi) {      /* the index-only Map shorthand, 2-D */
        skel_mat *m = NULL;
        const int64_t *q;
        st_context("%s", st_variant_get(vi)->label);
        ST_OK(skel_mat_new(&m, SKEL_INT64, 37, 53));
        st_use_variant(l_gridmap, vi);
        ST_OK(skel_map1(l_gridmap, m, NULL));
        ST_CHECK((q = (const int64_t *)skel_read(m)) != NULL);
        for (i = 0; i < 37 * 53; ++i) ST_EQ_INT(q[i], 1000 * (int64_t)(i / 53) + (int64_t)(i % 53));
        skel_free(m);
    }
    ST_OK(skel_set_plan(l_gridmap, NULL));
    {
        skel_vec *a = st_fvec(10, 1), *o = NULL;                      /* rows / cols only where they mean something */
        ST_OK(skel_vec_new(&o, SKEL_FLOAT, 10));
        memset(&c, 0, sizeof c);
        c.in[0] = a; c.out = o; c.rows = 2; c.cols = 5;
        ST_EQ_INT(skel_run(l_map, &c), SKEL_EINVAL);
        skel_free(a); skel_free(o);
    }
}
