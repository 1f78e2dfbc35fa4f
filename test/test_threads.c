/* Threads: any number of threads may call skel at once on different output
   containers, sharing instances, plans and input containers (skel.h,
   THREADS).  Every test here runs 8 threads that call every skeleton at
   the same time and checks every result against a plain C loop; `make
   test-tsan` runs them under ThreadSanitizer (seq and OpenCL: OpenMP's
   runtime is not instrumented).  Integer data: results are exact. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

#define NT 8            /* threads */
#define N 2053          /* vector length (prime) */
#define MR 29           /* matrix rows and columns */
#define MC 37
#define REPS 3          /* calls of each skeleton per thread */

SKEL_FUNC(int32_t, th_axpy, (int32_t a, int32_t b), return 3 * a - b;)
SKEL_FUNC(int32_t, th_scale, (int32_t a, int32_t u), return a * u + 1;)
SKEL_FUNC(int32_t, th_add, (int32_t a, int32_t b), return a + b;)
SKEL_FUNC(int32_t, th_mul, (int32_t a, int32_t b), return a * b;)
SKEL_FUNC(int32_t, th_ix, (skel_index i), return (int32_t)(i % 101);)
SKEL_FUNC(int32_t, th_w3, (const int32_t *a), return a[-1] + 2 * a[0] + 3 * a[1];)
SKEL_FUNC(int32_t, th_w2d, (const int32_t *a, skel_index s), return a[-s] + 2 * a[0] - a[s + 1];)
SKEL_FUNC(int32_t, th_get, (const int32_t *v, int32_t e), return v[e] + e;)
SKEL_MAP(th_map, th_axpy, int32_t, 2)
SKEL_MAP_EX(th_mapu, th_scale, int32_t, int32_t, 1, SKEL_NO_INDEX, SKEL_UNIFORM(int32_t))
SKEL_MAP_INDEX(th_mapi, th_ix, int32_t, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_REDUCE(th_sum, th_add, int32_t)
SKEL_MAPREDUCE(th_dot, th_mul, th_add, int32_t, 2)
SKEL_SCAN(th_scan, th_add, int32_t)
SKEL_OVERLAP(th_ov, th_w3, int32_t, 1)
SKEL_OVERLAP2D(th_ov2, th_w2d, int32_t, 1, 1)
SKEL_MAPARRAY(th_ma, th_get, int32_t)

static skel_skeleton *const ALL[] = { th_map, th_mapu, th_mapi, th_sum, th_dot, th_scan, th_ov, th_ov2, th_ma };
#define NALL ((int)(sizeof ALL / sizeof *ALL))

/* ---- shared inputs and their references (written before the threads start) ---- */
static skel_vec *A, *B, *IDX;           /* vectors of N (IDX: indices into A) */
static skel_mat *M;                     /* MR x MC */
static int32_t a_[N], b_[N], idx_[N], m_[MR * MC];
static int32_t w_map[N], w_mapi[N], w_scan[N], w_ov[N], w_ma[N], w_rows[MR], w_cols[MC], w_srows[MR * MC],
    w_ovc[MR * MC], w_ov2[MR * MC], w_sum, w_dot;

static int edge_at(long i, long n) { return i < 0 ? 0 : i >= n ? (int)n - 1 : (int)i; }   /* SKEL_EDGE_DUPLICATE */

/* the expected results, by plain C loops */
static void make_references(void)
{
    int i, k;
    w_sum = w_dot = 0;
    for (i = 0; i < N; ++i) {
        w_map[i] = 3 * a_[i] - b_[i];
        w_mapi[i] = i % 101;
        w_sum += a_[i];
        w_dot += a_[i] * b_[i];
        w_scan[i] = (i ? w_scan[i - 1] : 0) + a_[i];
        w_ov[i] = a_[edge_at(i - 1, N)] + 2 * a_[i] + 3 * a_[edge_at(i + 1, N)];
        w_ma[i] = a_[idx_[i]] + idx_[i];
    }
    for (i = 0; i < MR; ++i)
        for (w_rows[i] = 0, k = 0; k < MC; ++k) w_srows[i * MC + k] = w_rows[i] += m_[i * MC + k];
    for (i = 0; i < MC; ++i)
        for (w_cols[i] = 0, k = 0; k < MR; ++k) {
            w_cols[i] += m_[k * MC + i];
            w_ovc[k * MC + i] = m_[edge_at(k - 1, MR) * MC + i] + 2 * m_[k * MC + i] + 3 * m_[edge_at(k + 1, MR) * MC + i];
        }
    for (i = 0; i < MR * MC; ++i) {
        int y = i / MC, x = i % MC;
        int up = y > 0 ? m_[(y - 1) * MC + x] : 0, dn = y + 1 < MR && x + 1 < MC ? m_[(y + 1) * MC + x + 1] : 0;
        w_ov2[i] = up + 2 * m_[i] - dn;
    }
}

static void make_inputs(void)
{
    uint64_t rng = st_seed("threads", N, MR);
    int i;
    for (i = 0; i < N; ++i) {
        a_[i] = (int32_t)st_rand_int(&rng, -50, 50);
        b_[i] = (int32_t)st_rand_int(&rng, -50, 50);
        idx_[i] = (int32_t)st_rand_int(&rng, 0, N - 1);
    }
    for (i = 0; i < MR * MC; ++i) m_[i] = (int32_t)st_rand_int(&rng, -9, 9);
    ST_OK(skel_vec_new_copy(&A, SKEL_INT32, N, a_));
    ST_OK(skel_vec_new_copy(&B, SKEL_INT32, N, b_));
    ST_OK(skel_vec_new_copy(&IDX, SKEL_INT32, N, idx_));
    ST_OK(skel_mat_new_copy(&M, SKEL_INT32, MR, MC, m_));
    make_references();
}

static void free_inputs(void)
{
    skel_free(A); skel_free(B); skel_free(IDX); skel_free(M);
    A = B = IDX = M = NULL;
}

/* ---- one thread's work: every skeleton, REPS times, every result checked ---- */
typedef struct job {
    int id;
    char err[512];              /* the first wrong result, or "" */
} job;

static void bad(job *j, const char *fmt, ...)
{
    va_list ap;
    if (j->err[0]) return;
    va_start(ap, fmt);
    vsnprintf(j->err, sizeof j->err, fmt, ap);
    va_end(ap);
}

static void check_vec(job *j, const char *what, skel_vec *v, const int32_t *want, size_t n)
{
    const int32_t *got = (const int32_t *)skel_read(v);
    size_t i;
    if (!got) { bad(j, "%s: skel_read failed: %s", what, skel_last_error()); return; }
    for (i = 0; i < n; ++i)
        if (got[i] != want[i]) { bad(j, "%s[%zu] = %d, want %d", what, i, got[i], want[i]); return; }
}

#define RUN(what, expr) do { int rc_ = (expr); if (rc_ != SKEL_OK) { bad(j, "%s: %s", what, skel_last_error()); return; } } while (0)

static void every_skeleton(job *j)
{
    skel_vec *o = NULL, *one = NULL, *rows = NULL, *cols = NULL;
    skel_mat *om = NULL;
    int32_t u = j->id + 2, r, want_u[N];
    int rep, i;
    skel_call c;
    for (i = 0; i < N; ++i) want_u[i] = a_[i] * u + 1;
    if (skel_vec_new(&o, SKEL_INT32, N) || skel_vec_new(&one, SKEL_INT32, 1) || skel_vec_new(&rows, SKEL_INT32, MR) ||
        skel_vec_new(&cols, SKEL_INT32, MC) || skel_mat_new(&om, SKEL_INT32, MR, MC)) {
        bad(j, "containers: %s", skel_last_error());
        goto done;
    }
    for (rep = 0; rep < REPS && !j->err[0]; ++rep) {
        RUN("map", skel_map2(th_map, o, A, B));
        check_vec(j, "map", o, w_map, N);
        memset(&c, 0, sizeof c);
        c.in[0] = A; c.out = o; c.uniform = &u;
        RUN("map uniform", skel_run(th_mapu, &c));
        check_vec(j, "map uniform", o, want_u, N);
        RUN("index map", skel_map1(th_mapi, o, NULL));
        check_vec(j, "index map", o, w_mapi, N);
        r = -1;
        RUN("reduce", skel_reduce(th_sum, A, &r));
        if (r != w_sum) bad(j, "reduce: %d, want %d", r, w_sum);
        memset(&c, 0, sizeof c);
        c.in[0] = A; c.out = one;
        RUN("reduce into out", skel_run(th_sum, &c));
        check_vec(j, "reduce into out", one, &w_sum, 1);
        memset(&c, 0, sizeof c);
        c.in[0] = M; c.out = rows; c.direction = SKEL_ROWS;
        RUN("reduce rows", skel_run(th_sum, &c));
        check_vec(j, "reduce rows", rows, w_rows, MR);
        c.out = cols; c.direction = SKEL_COLS;
        RUN("reduce cols", skel_run(th_sum, &c));
        check_vec(j, "reduce cols", cols, w_cols, MC);
        r = -1;
        RUN("mapreduce", skel_mapreduce2(th_dot, A, B, &r));
        if (r != w_dot) bad(j, "mapreduce: %d, want %d", r, w_dot);
        RUN("scan", skel_scan(th_scan, o, A));
        check_vec(j, "scan", o, w_scan, N);
        memset(&c, 0, sizeof c);
        c.in[0] = M; c.out = om; c.direction = SKEL_ROWS;
        RUN("scan rows", skel_run(th_scan, &c));
        check_vec(j, "scan rows", om, w_srows, MR * MC);
        RUN("overlap", skel_overlap(th_ov, o, A, SKEL_EDGE_DUPLICATE, NULL));
        check_vec(j, "overlap", o, w_ov, N);
        memset(&c, 0, sizeof c);
        c.in[0] = M; c.out = om; c.direction = SKEL_COLS; c.edge = SKEL_EDGE_DUPLICATE;
        RUN("overlap cols", skel_run(th_ov, &c));
        check_vec(j, "overlap cols", om, w_ovc, MR * MC);
        memset(&c, 0, sizeof c);
        c.in[0] = M; c.out = om;
        RUN("overlap2d", skel_run(th_ov2, &c));
        check_vec(j, "overlap2d", om, w_ov2, MR * MC);
        RUN("maparray", skel_map2(th_ma, o, A, IDX));
        check_vec(j, "maparray", o, w_ma, N);
    }
done:
    skel_free(o); skel_free(one); skel_free(rows); skel_free(cols); skel_free(om);
}

static void *worker(void *p)
{
    every_skeleton((job *)p);
    return NULL;
}

/* NT threads of fn at once; fails with the first thread's error */
static void run_threads(void *(*fn)(void *), const char *label)
{
    pthread_t th[NT];
    job jobs[NT];
    int i;
    for (i = 0; i < NT; ++i) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].id = i;
        ST_CHECK(pthread_create(&th[i], NULL, fn, &jobs[i]) == 0);
    }
    for (i = 0; i < NT; ++i) pthread_join(th[i], NULL);
    for (i = 0; i < NT; ++i)
        if (jobs[i].err[0]) ST_FAIL("%s, thread %d: %s", label, i, jobs[i].err);
}

static void use_plan(skel_plan *p)
{
    int k;
    for (k = 0; k < NALL; ++k) ST_OK(skel_set_plan(ALL[k], p));
}

/* 8 threads, every skeleton, on each variant (shared instances, shared plan,
   shared inputs). */
SKEL_TEST(threads_every_skeleton_from_8_threads_on_every_variant)
{
    int vi;
    make_inputs();
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const st_variant *v = st_variant_get(vi);
        use_plan(v->plan);
        run_threads(worker, v->label);
    }
    use_plan(NULL);
    free_inputs();
}

/* The inputs live on a GPU (only there): 8 threads on the CPU read them at
   once, so each read may copy them to the host. */
SKEL_TEST(threads_shared_inputs_on_a_device_are_read_by_8_threads)
{
    skel_plan *p = NULL;
    int vi, gpu = -1, k;
    for (vi = 0; vi < st_variant_count(); ++vi)
        if (strcmp(st_variant_get(vi)->label, "opencl") == 0 || strcmp(st_variant_get(vi)->label, "cuda") == 0) gpu = vi;
    if (gpu < 0) ST_SKIP("no GPU backend: no device memory to share");
    make_inputs();
    for (k = 0; k < 3; ++k) {
        skel_vec *in[4];
        int i;
        in[0] = A; in[1] = B; in[2] = IDX; in[3] = M;
        /* an in-place GPU copy makes each input valid on the device only */
        for (i = 0; i < 4; ++i) {
            skel_call c;
            int32_t one = 1;
            memset(&c, 0, sizeof c);
            c.in[0] = in[i]; c.out = in[i]; c.uniform = &one;
            st_use_variant(th_mapu, gpu);
            ST_OK(skel_run(th_mapu, &c));   /* a * 1 + 1 */
        }
        for (i = 0; i < N; ++i) { a_[i] += 1; b_[i] += 1; idx_[i] += 1; }
        for (i = 0; i < MR * MC; ++i) m_[i] += 1;
        for (i = 0; i < N; ++i)             /* keep the indices in range */
            if (idx_[i] >= N) idx_[i] = N - 1;
        {
            int32_t *q = (int32_t *)skel_write(IDX);
            memcpy(q, idx_, sizeof idx_);
        }
        make_references();
        ST_OK(skel_plan_new(&p));
        ST_OK(skel_plan_add(p, 0, SIZE_MAX, &(skel_variant){ .backend = "seq" }));
        use_plan(p);
        run_threads(worker, "seq on device-resident inputs");
        use_plan(NULL);
        skel_plan_free(p);
    }
    free_inputs();
}

/* One thread swaps the plans of the shared instances while 7 call them. */
typedef struct swapper { volatile int stop; skel_plan *p[2]; } swapper;
static swapper SW;
static void *swap_plans(void *arg)
{
    int k = 0;
    (void)arg;
    while (!__atomic_load_n(&SW.stop, __ATOMIC_ACQUIRE)) use_plan(SW.p[k++ & 1]);
    return NULL;
}

SKEL_TEST(threads_plans_swapped_while_7_threads_call)
{
    pthread_t sw, th[NT - 1];
    job jobs[NT - 1];
    int i, vi = st_variant_count() - 1;    /* the last variant (a GPU's where there is one) against seq */
    make_inputs();
    SW.stop = 0;
    SW.p[0] = st_variant_get(0)->plan;
    SW.p[1] = st_variant_get(vi)->plan;
    ST_CHECK(pthread_create(&sw, NULL, swap_plans, NULL) == 0);
    for (i = 0; i < NT - 1; ++i) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].id = i;
        ST_CHECK(pthread_create(&th[i], NULL, worker, &jobs[i]) == 0);
    }
    for (i = 0; i < NT - 1; ++i) pthread_join(th[i], NULL);
    __atomic_store_n(&SW.stop, 1, __ATOMIC_RELEASE);
    pthread_join(sw, NULL);
    use_plan(NULL);
    for (i = 0; i < NT - 1; ++i)
        if (jobs[i].err[0]) ST_FAIL("thread %d: %s", i, jobs[i].err);
    free_inputs();
}

/* Tuning from 8 threads at once (different ids; same instance) while
   calls run: the registry, plans and files stay consistent. */
SKEL_FUNC(float, th_f, (float a), return a * 2 + 1;)
SKEL_MAP(th_tuned, th_f, float, 1)
typedef struct tjob { int id; int rc; char err[256]; skel_plan *plan; } tjob;
static void *tune_worker(void *p)
{
    tjob *t = (tjob *)p;
    skel_tune_desc d;
    skel_plan *plan = NULL;
    char id[32];
    snprintf(id, sizeof id, "threads-%d", t->id);
    memset(&d, 0, sizeof d);
    d.id = id;
    d.sk = th_tuned;
    d.lower[0] = 10;
    d.upper[0] = 3000;
    d.time_budget = 0.2;
    d.max_depth = 2;
    d.reps = 1;
    d.nofile = 1;
    d.quiet = 1;
    t->rc = skel_tune(&d, &plan);
    if (t->rc != SKEL_OK) snprintf(t->err, sizeof t->err, "%s", skel_last_error());
    else {
        skel_vec *x = NULL, *y = NULL;
        float one = 1;
        const float *q;
        if (skel_vec_new_fill(&x, SKEL_FLOAT, 777, &one) || skel_vec_new(&y, SKEL_FLOAT, 777) ||
            skel_map1(th_tuned, y, x) || !(q = (const float *)skel_read(y)) || q[776] != 3)
            snprintf(t->err, sizeof t->err, "call after tuning: %s", skel_last_error());
        skel_free(x);
        skel_free(y);
    }
    t->plan = plan;     /* freed when no thread's call can use it any more */
    return NULL;
}

SKEL_TEST(threads_8_tunings_at_once)
{
    pthread_t th[NT];
    tjob t[NT];
    int i;
    for (i = 0; i < NT; ++i) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].id = i;
        ST_CHECK(pthread_create(&th[i], NULL, tune_worker, &t[i]) == 0);
    }
    for (i = 0; i < NT; ++i) pthread_join(th[i], NULL);
    ST_OK(skel_set_plan(th_tuned, NULL));
    for (i = 0; i < NT; ++i) skel_plan_free(t[i].plan);
    for (i = 0; i < NT; ++i) {
        ST_OK(t[i].rc);
        if (t[i].err[0]) ST_FAIL("thread %d: %s", i, t[i].err);
    }
}
