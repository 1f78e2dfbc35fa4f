/* The worker pool (skel.h, "worker pool"): its parallel-for, its tasks,
   nested use, many callers at once, start and stop, idle cost, pinning.
   The skeletons on the pool backend are checked with every other backend
   in test_skeletons.c (variants pool/2 and pool/4).  Everything here also
   runs under ThreadSanitizer (make test-tsan). */
#define _GNU_SOURCE                 /* sched_getaffinity (pinning), clock_gettime, setenv */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "skel.h"
#include "skel_test.h"

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void nap_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* ---- a body that records which chunk covered which index ---- */
typedef struct cover {
    size_t n, parts;
    int *count;                 /* count[i]: chunks that covered index i (atomic) */
    size_t *lo, *hi;            /* per part: the range it got */
    int *calls;                 /* per part: times it ran (atomic) */
} cover;

static void cover_body(void *ctx, int part, size_t lo, size_t hi)
{
    cover *c = (cover *)ctx;
    size_t i;
    for (i = lo; i < hi; ++i) __atomic_add_fetch(&c->count[i], 1, __ATOMIC_RELAXED);
    c->lo[part] = lo;
    c->hi[part] = hi;
    __atomic_add_fetch(&c->calls[part], 1, __ATOMIC_RELAXED);
}

/* Run one parallel-for and check that every index was covered once, by
   contiguous chunks in part order. */
static void check_cover(int width, size_t parts, size_t n)
{
    cover c;
    size_t i, p, at = 0;
    c.n = n; c.parts = parts;
    c.count = (int *)calloc(n + 1, sizeof *c.count);
    c.lo = (size_t *)calloc(parts, sizeof *c.lo);
    c.hi = (size_t *)calloc(parts, sizeof *c.hi);
    c.calls = (int *)calloc(parts, sizeof *c.calls);
    ST_CHECK(c.count && c.lo && c.hi && c.calls);
    st_context("width %d, %zu parts, n = %zu", width, parts, n);
    _skel_pool_for(width, (int)parts, n, cover_body, &c);
    for (i = 0; i < n; ++i)
        if (c.count[i] != 1) ST_FAIL("index %zu covered %d times", i, c.count[i]);
    for (p = 0; p < parts; ++p) {
        if (c.calls[p] != 1) ST_FAIL("part %zu ran %d times", p, c.calls[p]);
        if (c.lo[p] != at || c.hi[p] < c.lo[p]) ST_FAIL("part %zu is [%zu, %zu), expected to start at %zu", p,
                                                         c.lo[p], c.hi[p], at);
        if (c.hi[p] - c.lo[p] > n / parts + 1) ST_FAIL("part %zu has %zu items of %zu", p, c.hi[p] - c.lo[p], n);
        at = c.hi[p];
    }
    ST_EQ_UINT(at, n);
    st_context("");
    free(c.count); free(c.lo); free(c.hi); free(c.calls);
}

SKEL_TEST(pool_for_runs_every_chunk_once_in_order)
{
    static const size_t ns[] = { 1, 2, 7, 1023, 1025, 8193, 65537 };
    static const int widths[] = { 1, 2, 3, 4, 8, 300 };
    size_t k, w;
    for (w = 0; w < sizeof widths / sizeof *widths; ++w)
        for (k = 0; k < sizeof ns / sizeof *ns; ++k) {
            size_t n = ns[k];
            check_cover(widths[w], _skel_pool_parts(widths[w], n), n);
            check_cover(widths[w], n < 97 ? n : 97, n);     /* a prime count */
            check_cover(widths[w], 1, n);
        }
    check_cover(4, 1, 0);                                   /* nothing to do */
    _skel_pool_stop();                                      /* (width 300 started 255 workers) */
}

SKEL_TEST(pool_parts_give_each_thread_several_chunks_of_a_grain_or_more)
{
    ST_EQ_UINT(_skel_pool_parts(2, 1 << 16), 16);            /* 8 per thread */
    ST_EQ_UINT(_skel_pool_parts(16, 1 << 24), 128);
    ST_EQ_UINT(_skel_pool_parts(16, 1 << 18), 64);           /* chunks of 4096 */
    ST_EQ_UINT(_skel_pool_parts(16, 1 << 16), 16);           /* one per thread, at the grain */
    ST_EQ_UINT(_skel_pool_parts(16, 4096), 16);              /* one per thread, under the grain */
    ST_EQ_UINT(_skel_pool_parts(16, 160), 10);               /* chunks of at least 16 items */
    ST_EQ_UINT(_skel_pool_parts(16, 32), 2);
    ST_EQ_UINT(_skel_pool_parts(16, 31), 1);                 /* the calling thread alone */
    ST_EQ_UINT(_skel_pool_parts(4, 0), 1);
    ST_EQ_UINT(_skel_pool_parts(0, 100000), 8);              /* width < 1 counts as 1 */
}

/* Rows, planes and blocks of columns are chunked by their elements, at
   most one chunk an item: counted in items, a column pass of 16 blocks of
   16 x 4096 elements was one chunk (_SKEL_POOL_MIN items a chunk) and ran
   on one thread, and 56 rows of a 56 x 637 scan gave 16 threads 3 chunks. */
SKEL_TEST(pool_parts_of_heavy_items_count_their_elements)
{
    ST_EQ_UINT(_skel_test_pool_parts_of(2, 16, 16 * 4096), 16);    /* was 1 */
    ST_EQ_UINT(_skel_test_pool_parts_of(16, 56, 637), 16);          /* was 3 */
    ST_EQ_UINT(_skel_test_pool_parts_of(16, 3, 1 << 20), 3);        /* one item a chunk at most */
    ST_EQ_UINT(_skel_test_pool_parts_of(16, 1, 1 << 20), 1);
    ST_EQ_UINT(_skel_test_pool_parts_of(2, 0, 100), 1);
    ST_EQ_UINT(_skel_test_pool_parts_of(2, 1 << 16, 1), _skel_pool_parts(2, 1 << 16));   /* elements: as before */
    ST_EQ_UINT(_skel_test_pool_parts_of(16, 31, 1), 1);
}

/* ---- many threads calling at once ---- */
typedef struct fill { int *out; int salt; } fill;
static void fill_body(void *ctx, int part, size_t lo, size_t hi)
{
    fill *f = (fill *)ctx;
    size_t i;
    (void)part;
    for (i = lo; i < hi; ++i) f->out[i] = (int)(i * 7 + (size_t)f->salt);
}

SKEL_FUNC(int32_t, pmul, (int32_t a, int32_t b), return a * b;)
SKEL_FUNC(int32_t, padd, (int32_t a, int32_t b), return a + b;)
SKEL_MAPREDUCE(pdot, pmul, padd, int32_t, 2)
SKEL_FUNC(float, psq, (float a), return a * a - 1;)
SKEL_MAP(psqmap, psq, float, 1)

static skel_plan *pool_plan(int threads)
{
    skel_plan *p = NULL;
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = "pool";
    v.threads = threads;
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v));
    return p;
}

typedef struct caller { int id, bad; } caller;

static void *call_many(void *arg)
{
    caller *me = (caller *)arg;
    size_t n = 10007, i;
    int *out = (int *)malloc(n * sizeof *out), it;
    int32_t *a = (int32_t *)malloc(n * sizeof *a), r = 0, want = 0;
    skel_vec *va = NULL, *vb = NULL;
    for (i = 0; i < n; ++i) { a[i] = (int32_t)((i * 31 + (size_t)me->id) % 17) - 8; want += a[i] * a[i]; }
    if (!out || skel_vec_new_copy(&va, SKEL_INT32, n, a) != SKEL_OK || skel_vec_new_copy(&vb, SKEL_INT32, n, a) != SKEL_OK)
        me->bad = 1;
    for (it = 0; it < 60 && !me->bad; ++it) {
        fill f;
        f.out = out; f.salt = me->id * 1000 + it;
        _skel_pool_for(1 + (me->id + it) % 4, 1 + (it % 23), n, fill_body, &f);
        for (i = 0; i < n; ++i) if (out[i] != (int)(i * 7 + (size_t)f.salt)) { me->bad = 2; break; }
        if (skel_mapreduce2(pdot, va, vb, &r) != SKEL_OK || r != want) me->bad = 3;
    }
    skel_free(va); skel_free(vb);
    free(out); free(a);
    return NULL;
}

SKEL_TEST(pool_serves_many_threads_calling_at_once)
{
    pthread_t th[8];
    caller c[8];
    skel_plan *p = pool_plan(3);
    int i;
    ST_OK(skel_set_plan(pdot, p));
    for (i = 0; i < 8; ++i) {
        c[i].id = i; c[i].bad = 0;
        ST_CHECK(pthread_create(&th[i], NULL, call_many, &c[i]) == 0);
    }
    for (i = 0; i < 8; ++i) pthread_join(th[i], NULL);
    for (i = 0; i < 8; ++i) if (c[i].bad) ST_FAIL("caller %d: check %d failed", i, c[i].bad);
    ST_OK(skel_set_plan(pdot, NULL));
    skel_plan_free(p);
}

/* ---- nested use ---- */
typedef struct nest { int bad; int inner_width; } nest;
static void nest_body(void *ctx, int part, size_t lo, size_t hi)
{
    nest *s = (nest *)ctx;
    size_t n = 3001, i;
    int out[3001];
    fill f;
    (void)part; (void)lo; (void)hi;
    f.out = out; f.salt = part;
    _skel_pool_for(s->inner_width, 13, n, fill_body, &f);      /* from inside a chunk */
    for (i = 0; i < n; ++i) if (out[i] != (int)(i * 7 + (size_t)part)) __atomic_store_n(&s->bad, 1, __ATOMIC_RELAXED);
}

static int task_nested_for(void *arg)
{
    nest *s = (nest *)arg;
    _skel_pool_for(4, 16, 16, nest_body, s);
    return 7;
}

typedef struct skcall { skel_vec *in, *out; } skcall;
static int task_skeleton_call(void *arg)
{
    skcall *k = (skcall *)arg;
    return skel_map1(psqmap, k->out, k->in);
}

SKEL_TEST(pool_nested_calls_from_chunks_and_tasks_complete)
{
    nest s;
    _skel_task t[6];
    skcall k;
    skel_plan *p = pool_plan(4);
    const float *o;
    size_t i, n = 50000;
    int j;
    s.bad = 0; s.inner_width = 4;
    _skel_pool_for(4, 32, 32, nest_body, &s);                /* every chunk makes a call of its own */
    ST_EQ_INT(s.bad, 0);
    for (j = 0; j < 6; ++j) _skel_pool_submit(&t[j], task_nested_for, &s);   /* tasks make calls too */
    for (j = 0; j < 6; ++j) ST_EQ_INT(_skel_task_wait(&t[j]), 7);
    ST_EQ_INT(s.bad, 0);
    /* a skeleton call from a worker, on the pool backend */
    ST_OK(skel_vec_new(&k.in, SKEL_FLOAT, n));
    ST_OK(skel_vec_new(&k.out, SKEL_FLOAT, n));
    {
        float *w = (float *)skel_write(k.in);
        for (i = 0; i < n; ++i) w[i] = (float)(i % 100) * 0.25f;
    }
    ST_OK(skel_set_plan(psqmap, p));
    _skel_pool_submit(&t[0], task_skeleton_call, &k);
    ST_OK(_skel_task_wait(&t[0]));
    o = (const float *)skel_read(k.out);
    for (i = 0; i < n; ++i) {
        float x = (float)(i % 100) * 0.25f;
        if (o[i] != x * x - 1) ST_FAIL("out[%zu] = %g, want %g", i, (double)o[i], (double)(x * x - 1));
    }
    ST_OK(skel_set_plan(psqmap, NULL));
    skel_plan_free(p);
    skel_free(k.in); skel_free(k.out);
}

/* ---- calls do not wait for workers that take no chunk ---- */
typedef struct blocker { int started, release; } blocker;
static int block_task(void *arg)
{
    blocker *b = (blocker *)arg;
    __atomic_add_fetch(&b->started, 1, __ATOMIC_SEQ_CST);
    while (!__atomic_load_n(&b->release, __ATOMIC_ACQUIRE)) nap_ms(1);
    return 0;
}

static pthread_t ran_on;
static int record_thread(void *arg) { (void)arg; ran_on = pthread_self(); return 3; }

/* Start 4 workers (or more) and hold every one with a blocking task in t
   (300 at most); returns how many. */
static int hold_every_worker(blocker *b, _skel_task *t)
{
    int i, nw, waited = 0;
    _skel_pool_wake(4);
    nw = _skel_pool_threads();
    ST_CHECK(nw >= 3 && nw < 300);
    b->started = 0; b->release = 0;
    for (i = 0; i < nw; ++i) _skel_pool_submit(&t[i], block_task, b);
    while (__atomic_load_n(&b->started, __ATOMIC_SEQ_CST) < nw && waited < 10000) { nap_ms(1); ++waited; }
    ST_EQ_INT(__atomic_load_n(&b->started, __ATOMIC_SEQ_CST), nw);   /* every worker is held */
    return nw;
}

static void release_workers(blocker *b, _skel_task *t, int nw)
{
    int i;
    __atomic_store_n(&b->release, 1, __ATOMIC_RELEASE);
    for (i = 0; i < nw; ++i) ST_EQ_INT(_skel_task_wait(&t[i]), 0);
}

SKEL_TEST(pool_call_and_task_wait_complete_while_every_worker_is_busy)
{
    blocker b;
    _skel_task t[300], mine;
    int nw;
    nw = hold_every_worker(&b, t);
    check_cover(4, 64, 100000);             /* the caller does every chunk itself */
    _skel_pool_submit(&mine, record_thread, NULL);
    ST_EQ_INT(_skel_task_done(&mine), 0);   /* nobody can have taken it */
    ST_EQ_INT(_skel_task_wait(&mine), 3);   /* so the waiter runs it */
    ST_CHECK(pthread_equal(ran_on, pthread_self()));
    release_workers(&b, t, nw);
}

/* ---- tasks ---- */
typedef struct sumtask { const int *v; size_t n; long long sum; } sumtask;
static int sum_task(void *arg)
{
    sumtask *s = (sumtask *)arg;
    size_t i;
    s->sum = 0;
    for (i = 0; i < s->n; ++i) s->sum += s->v[i];
    return (int)(s->n % 1000);
}

SKEL_TEST(pool_tasks_run_on_workers_and_report_their_status)
{
    enum { NT = 100 };
    static int v[NT * 100];
    _skel_task t[NT];
    sumtask s[NT];
    int i, waited = 0, all;
    for (i = 0; i < NT * 100; ++i) v[i] = i % 37 - 18;
    for (i = 0; i < NT; ++i) {
        s[i].v = v + i * 100; s[i].n = (size_t)(i + 1) * 10 <= 100 * (size_t)(NT - i) ? (size_t)(i + 1) * 10 : 100;
        _skel_pool_submit(&t[i], sum_task, &s[i]);
    }
    do {    /* nobody waits: workers must run them (polling never runs a task) */
        all = 1;
        for (i = 0; i < NT; ++i) all &= _skel_task_done(&t[i]);
        if (!all) { nap_ms(1); ++waited; }
    } while (!all && waited < 10000);
    ST_CHECK(all);
    for (i = 0; i < NT; ++i) {
        long long want = 0;
        size_t k;
        for (k = 0; k < s[i].n; ++k) want += s[i].v[k];
        ST_EQ_INT(_skel_task_wait(&t[i]), (int)(s[i].n % 1000));
        ST_EQ_INT(s[i].sum, want);
    }
}

/* _skel_task_join (a split call's wait for its host part): spins while a
   worker runs the task, then sleeps; a task nobody took runs on the
   joiner at once, whatever the spin; many joiners at once get their own
   task's status and work. */
static int nap_task(void *arg) { nap_ms(*(int *)arg); return 11; }

typedef struct joiner { int id, ok; } joiner;
static void *join_many(void *arg)
{
    joiner *j = (joiner *)arg;
    static const double spins[3] = { 0, 1e-5, 1.0 };
    int v[400], i, r;
    for (i = 0; i < 400; ++i) v[i] = (i * 7 + j->id) % 23 - 11;
    j->ok = 1;
    for (r = 0; r < 60; ++r) {
        _skel_task t;
        sumtask s;
        long long want = 0;
        s.v = v; s.n = (size_t)(r * 13 + j->id) % 400 + 1;
        for (i = 0; i < (int)s.n; ++i) want += v[i];
        _skel_pool_submit(&t, sum_task, &s);
        j->ok &= _skel_task_join(&t, spins[r % 3]) == (int)(s.n % 1000) && s.sum == want && _skel_task_done(&t);
    }
    return NULL;
}

SKEL_TEST(pool_task_join_spins_sleeps_and_runs_untaken_tasks_itself)
{
    pthread_t th[8];
    joiner j[8];
    blocker b;
    _skel_task t[300], mine, slow;
    int i, nw, ms = 30;
    double t0;
    for (i = 0; i < 8; ++i) {
        j[i].id = i;
        ST_CHECK(pthread_create(&th[i], NULL, join_many, &j[i]) == 0);
    }
    for (i = 0; i < 8; ++i) {
        pthread_join(th[i], NULL);
        ST_CHECK(j[i].ok);
    }
    _skel_pool_submit(&slow, nap_task, &ms);    /* longer than the spin: the joiner sleeps, then returns */
    ST_EQ_INT(_skel_task_join(&slow, 1e-3), 11);
    nw = hold_every_worker(&b, t);
    _skel_pool_submit(&mine, record_thread, NULL);
    t0 = wall_seconds();
    ST_EQ_INT(_skel_task_join(&mine, 60.0), 3);    /* queued: runs here, no minute of spinning */
    ST_CHECK(pthread_equal(ran_on, pthread_self()));
    ST_CHECK(wall_seconds() - t0 < 10.0);
    release_workers(&b, t, nw);
}

/* ---- start and stop ---- */
static int stopper_done;
static void *stop_often(void *arg)
{
    int i;
    (void)arg;
    for (i = 0; i < 50 && !__atomic_load_n(&stopper_done, __ATOMIC_ACQUIRE); ++i) { _skel_pool_stop(); nap_ms(1); }
    return NULL;
}

SKEL_TEST(pool_starts_and_stops_many_times)
{
    pthread_t th;
    caller c;
    int i;
    for (i = 0; i < 100; ++i) {
        check_cover(3, 8, 4099);
        ST_CHECK(_skel_pool_threads() >= 1);
        _skel_pool_stop();
        ST_EQ_INT(_skel_pool_threads(), 0);
    }
    /* stops while other threads call: every call still completes correctly */
    __atomic_store_n(&stopper_done, 0, __ATOMIC_RELEASE);
    ST_CHECK(pthread_create(&th, NULL, stop_often, NULL) == 0);
    c.id = 3; c.bad = 0;
    call_many(&c);
    __atomic_store_n(&stopper_done, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    ST_EQ_INT(c.bad, 0);
}

SKEL_TEST(pool_idle_workers_use_no_cpu)
{
    double c0, c1;
    _skel_pool_wake(16);                    /* more workers than cores, all spinning */
    check_cover(16, 128, 1 << 16);
    nap_ms(50);                             /* well past SKEL_POOL_SPIN_US: asleep */
    c0 = cpu_seconds();
    nap_ms(300);
    c1 = cpu_seconds();
    ST_CHECK(_skel_pool_threads() >= 15);
    if (c1 - c0 > 0.015) ST_FAIL("an idle process used %.1f ms of CPU in 300 ms", 1e3 * (c1 - c0));
}

/* ---- pinning ---- */
static int affinity_count(void *arg)
{
    cpu_set_t s;
    (void)arg;
    if (sched_getaffinity(0, sizeof s, &s) != 0) return -1;
    return CPU_COUNT(&s);
}

SKEL_TEST(pool_pins_workers_only_when_asked)
{
    _skel_task t;
    cpu_set_t s;
    int all;
    ST_CHECK(sched_getaffinity(0, sizeof s, &s) == 0);
    all = CPU_COUNT(&s);
    _skel_pool_stop();
    unsetenv("SKEL_PIN");
    _skel_pool_submit(&t, affinity_count, NULL);
    while (!_skel_task_done(&t)) nap_ms(1);  /* on a worker, not on this thread */
    ST_EQ_INT(_skel_task_wait(&t), all);    /* off by default */
    if (all < 2) ST_SKIP("one CPU: nothing to pin to");
    _skel_pool_stop();
    setenv("SKEL_PIN", "1", 1);
    _skel_pool_submit(&t, affinity_count, NULL);
    while (!_skel_task_done(&t)) nap_ms(1);
    ST_EQ_INT(_skel_task_wait(&t), 1);
    _skel_pool_stop();
    unsetenv("SKEL_PIN");
}

/* A worker on its caller's CPU moves off it and keeps its affinity
   (skel.h, _skel_pool_step_aside): checked on this thread, which the
   function treats as it treats a worker. */
SKEL_TEST(pool_worker_steps_off_its_callers_cpu)
{
    cpu_set_t all, now;
    int c = -1, moved, after = -1, tries;
    ST_CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
    if (CPU_COUNT(&all) < 2) ST_SKIP("one CPU: nowhere to step aside to");
    _skel_pool_stop();
    unsetenv("SKEL_PIN");
    _skel_pool_wake(2);                     /* a pool started without pinning */
    for (tries = 0, moved = 0; !moved && tries < 20; ++tries) {  /* (0: the thread changed CPU in between) */
        c = sched_getcpu();
        moved = _skel_pool_step_aside(c);
        after = sched_getcpu();
        ST_CHECK(sched_getaffinity(0, sizeof now, &now) == 0);
        ST_CHECK(CPU_EQUAL(&now, &all));    /* free to run anywhere again */
    }
    ST_EQ_INT(moved, 1);                    /* skel.h built with its affinity calls (main.c: _GNU_SOURCE) */
    ST_CHECK(after != c);
    ST_EQ_INT(_skel_pool_step_aside(-1), 0);   /* the owner's CPU unknown */
    _skel_pool_stop();
    setenv("SKEL_PIN", "1", 1);
    _skel_pool_wake(2);
    ST_EQ_INT(_skel_pool_step_aside(sched_getcpu()), 0);   /* pinned workers stay */
    _skel_pool_stop();
    unsetenv("SKEL_PIN");
}

/* A sleeping worker's affinity leaves out the CPU its waker is likely on
   (the caller of the last call it helped with), so that the OS cannot
   wake it onto that busy CPU; once it runs it may run anywhere again
   (skel.h, _skel_pool_avoid).  Long chunks make sure workers help. */
static void slow_body(void *ctx, int part, size_t lo, size_t hi)
{
    (void)ctx; (void)part; (void)lo; (void)hi;
    nap_ms(2);
}

SKEL_TEST(pool_sleeping_workers_avoid_their_wakers_cpu_and_widen_again)
{
    cpu_set_t all;
    _skel_task t;
    int round, avoiding = 0;
    ST_CHECK(sched_getaffinity(0, sizeof all, &all) == 0);
    if (CPU_COUNT(&all) < 2) ST_SKIP("one CPU: nothing to avoid");
    _skel_pool_stop();
    unsetenv("SKEL_PIN");
    for (round = 0; round < 5; ++round) {
        _skel_pool_for(4, 16, 16, slow_body, NULL);     /* workers help (2 ms a chunk) */
        nap_ms(20);                                     /* and fall asleep */
        ST_CHECK(_skel_pool_sleepers_avoiding() >= 0);  /* each one's affinity as recorded */
        avoiding += _skel_pool_sleepers_avoiding();
        _skel_pool_submit(&t, affinity_count, NULL);    /* woken: free to run anywhere again */
        while (!_skel_task_done(&t)) nap_ms(1);         /* (on a worker, not on this thread) */
        ST_EQ_INT(_skel_task_wait(&t), CPU_COUNT(&all));
    }
    ST_CHECK(avoiding > 0);
    _skel_pool_stop();
    setenv("SKEL_PIN", "1", 1);                         /* pinned workers keep their one CPU */
    _skel_pool_for(4, 16, 16, slow_body, NULL);
    nap_ms(20);
    ST_EQ_INT(_skel_pool_sleepers_avoiding(), 0);
    _skel_pool_stop();
    unsetenv("SKEL_PIN");
}

/* A call that ends before its wake-ups have reached every sleeping
   worker it wanted still leaves them all awake: each worker that wakes
   wakes the next while fewer are awake than the call wanted, also once
   the call has ended (skel.h _skel_pool_publish).  Before, the chain
   went on only through workers that joined the call, so after a short
   call most workers still slept and the next call waited for them. */
static void quick_body(void *ctx, int part, size_t lo, size_t hi) { (void)ctx; (void)part; (void)lo; (void)hi; }

/* Workers woken since `before` (their wake counts then); *which: the last. */
static int woken_since(const unsigned *before, int n, int *which)
{
    int k, woke = 0;
    for (k = 0; k < n; ++k)
        if (_skel_pool_wakes(k) > before[k]) { ++woke; *which = k; }
    return woke;
}

/* Wait up to 2 s for `want` of them to have woken; how many did. */
static int wait_woken(const unsigned *before, int n, int want, int *which)
{
    int waited;
    for (waited = 0; waited < 2000 && woken_since(before, n, which) < want; ++waited) nap_ms(1);
    return woken_since(before, n, which);
}

/* Wait until the 5 workers sleep (a loaded machine runs their spins
   late: 20 ms was not always enough); note their wake counts in before[]. */
static void all_asleep(unsigned *before)
{
    int k, waited;
    for (waited = 0; waited < 2000 && _skel_pool_asleep() < 5; ++waited) nap_ms(1);
    ST_EQ_INT(_skel_pool_asleep(), 5);
    for (k = 0; k < 5; ++k) before[k] = _skel_pool_wakes(k);
}

/* A new pool of 5 workers, all asleep. */
static void five_asleep(unsigned *before)
{
    _skel_pool_stop();
    _skel_pool_for(6, 6, 6, slow_body, NULL);       /* 5 workers start and help (2 ms a chunk) */
    ST_EQ_INT(_skel_pool_threads(), 5);
    all_asleep(before);
}

SKEL_TEST(pool_wake_chain_goes_on_after_a_short_call_has_ended)
{
    unsigned before[5];
    int last = -1, woke;
    five_asleep(before);
    _skel_pool_for(6, 6, 6, quick_body, NULL);      /* over on this thread before any worker wakes */
    woke = wait_woken(before, 5, 5, &last);
    st_context("%d of 5 workers woke in 2 s", woke);
    ST_EQ_INT(woke, 5);
    _skel_pool_stop();
}

/* A wake-up passed on goes to a worker that slept before the last
   publication, not to one that woke for it and slept again (on a loaded
   machine the chain woke such a worker twice and never reached the last
   sleeper).  Deterministic: a call that wants one helper wakes one
   worker; once it sleeps again, a wake-up passed on must go elsewhere. */
SKEL_TEST(pool_wake_passed_on_skips_a_worker_that_already_woke_for_the_call)
{
    unsigned before[5];
    int first = -1, second = -1;
    five_asleep(before);
    _skel_pool_for(2, 2, 2, quick_body, NULL);      /* wants one helper: one wake-up, no chain */
    ST_EQ_INT(wait_woken(before, 5, 1, &first), 1);
    all_asleep(before);                             /* it slept again, having seen the call */
    _skel_pool_pass_wake();
    ST_EQ_INT(wait_woken(before, 5, 1, &second), 1);
    st_context("worker %d woke for the call, then worker %d", first, second);
    ST_CHECK(second != first);
    _skel_pool_stop();
}

/* ---- pool calls that run faster on their caller alone ---- */
/* The rule alone, on made-up times: a new site tries parallel (8 calls,
   the last 4 counted), then the caller alone where it could win, and
   keeps the faster; parallel tried again after 128 times its estimate,
   the workers woken first, and taken back when the machine makes it
   faster; never alone where the caller's chunks say it is slow; one
   preempted call does not move the choice. */
static double site_clock;                   /* the made-up times' clock */
static int pick_site(_skel_site *e) { return _skel_site_pick(e, site_clock, 0) != 0; }
static void note_site(_skel_site *e, int alone, double t, double guess)
{
    site_clock += t;
    _skel_site_note(e, alone, t, guess);
}
static int run_site(_skel_site *e, int calls, double par, double one, double guess, int *alone)
{
    int i, k = 0;
    for (i = 0, *alone = 0; i < calls; ++i) {
        k = pick_site(e);
        *alone += k;
        note_site(e, k, k ? one : par, k ? 0 : guess);
    }
    return k;
}

SKEL_TEST(pool_site_rule_runs_alone_where_it_wins_and_tries_again)
{
    _skel_site e;
    int i, k, alone;
    memset(&e, 0, sizeof e);
    for (i = 0; i < 8; ++i) ST_EQ_INT(pick_site(&e), 0), note_site(&e, 0, i < 4 ? 50e-6 : 5e-6, 3e-6);
    for (i = 0; i < 8; ++i) ST_EQ_INT(pick_site(&e), 1), note_site(&e, 1, i < 4 ? 9e-6 : 3e-6, 0);
    st_context("parallel %g s, alone %g s (the tries' first halves not counted)", e.par, e.one);
    ST_NEAR(e.par, 5e-6, 1e-6);
    ST_NEAR(e.one, 3e-6, 1e-6);
    run_site(&e, 1000, 5e-6, 3e-6, 3e-6, &alone);       /* a parallel try after 128 x 5 us alone */
    st_context("1000 calls: %d alone", alone);
    ST_CHECK(alone >= 960 && alone <= 992);
    for (i = 0; i < 1000 && (k = _skel_site_pick(&e, site_clock, 1)) == 1; ++i) note_site(&e, 1, 3e-6, 0);
    ST_EQ_INT(k, 2);                                    /* a try is due: wake the workers first, */
    note_site(&e, 1, 3e-6, 0);
    ST_EQ_INT(_skel_site_pick(&e, site_clock, 1), 1);   /* run alone while one still sleeps, */
    note_site(&e, 1, 3e-6, 0);
    ST_EQ_INT(_skel_site_pick(&e, site_clock + 300e-6, 1), 0);  /* try after 200 us at most, */
    note_site(&e, 0, 5e-6, 3e-6);
    for (i = 0; i < 7; ++i) ST_EQ_INT(pick_site(&e), 0), note_site(&e, 0, 5e-6, 3e-6);    /* 8 calls */
    ST_EQ_INT(pick_site(&e), 1);
    for (i = 0; i < 5000; ++i) {                        /* parallel now takes 1 us: it comes back */
        k = pick_site(&e);
        note_site(&e, k, k ? 3e-6 : 1e-6, k ? 0 : 0.5e-6);
        if (e.par < e.one) break;
    }
    st_context("parallel chosen again after %d calls", i);
    ST_CHECK(i < 5000);
    while (e.left > 0) note_site(&e, pick_site(&e), 1e-6, 0.5e-6);     /* (the try's end) */
    ST_EQ_INT(run_site(&e, 20, 1e-6, 3e-6, 0.5e-6, &alone), 0);
    ST_EQ_INT(alone, 0);
    note_site(&e, 0, 4e-3, 0.5e-6);                     /* one preempted call: parallel stays ahead */
    st_context("after a 4 ms call: parallel %g s, alone %g s", e.par, e.one);
    ST_CHECK(e.par < e.one);

    memset(&e, 0, sizeof e);                            /* parallel faster: alone tried now and then */
    run_site(&e, 1000, 2e-6, 3e-6, 2.4e-6, &alone);
    st_context("parallel 2 us, alone 3 us, 1000 calls: %d alone", alone);
    ST_CHECK(alone >= 8 && alone <= 48);

    memset(&e, 0, sizeof e);                            /* a 2^20 sum over 16 threads: 17 us, 127 alone */
    run_site(&e, 2000, 17e-6, 127e-6, 127e-6, &alone);
    ST_EQ_INT(alone, 0);
}

/* How long a caller spins for its helpers' chunks before it sleeps:
   twice its own chunks' time, and until 1.5 times what the site's calls
   usually take has passed (a caller whose chunk was light waits out the
   helpers' heavy ones awake), 5 us at least, SKEL_POOL_SPIN_US at most. */
SKEL_TEST(pool_caller_spins_until_the_call_is_late)
{
    const double cap = 100e-6;                  /* SKEL_POOL_SPIN_US, 100 by default */
    ST_NEAR(_skel_pool_wait_spin(1e-6, 0, 2e-6), 5e-6, 1e-9);         /* nothing known: the floor */
    ST_NEAR(_skel_pool_wait_spin(10e-6, 0, 20e-6), 20e-6, 1e-9);      /* twice a chunk */
    ST_NEAR(_skel_pool_wait_spin(80e-6, 0, 80e-6), cap, 1e-9);        /* bounded */
    ST_NEAR(_skel_pool_wait_spin(1e-6, 22e-6, 2e-6), 31e-6, 1e-9);    /* light chunk: until 33 us */
    ST_NEAR(_skel_pool_wait_spin(10e-6, 22e-6, 30e-6), 20e-6, 1e-9);  /* late already: twice a chunk */
    ST_NEAR(_skel_pool_wait_spin(1e-6, 1.0, 2e-6), cap, 1e-9);        /* a long call: bounded */
}

/* A site whose helpers are slow (here: every chunk off the calling
   thread sleeps 2 ms, one on it takes 20 us) runs on its caller after
   its first parallel try (8 calls); results
   are the same either way (the same chunks, in order, on one thread). */
typedef struct slowhelp { pthread_t caller; int *out; int off; } slowhelp;
static void slowhelp_body(void *ctx, int part, size_t lo, size_t hi)
{
    slowhelp *h = (slowhelp *)ctx;
    size_t i;
    (void)part;
    if (!pthread_equal(pthread_self(), h->caller)) {
        __atomic_add_fetch(&h->off, 1, __ATOMIC_RELAXED);
        usleep(2000);
    } else {                                            /* 20 us: long enough for a helper to come */
        double end = wall_seconds() + 20e-6;
        while (wall_seconds() < end) {}
    }
    for (i = lo; i < hi; ++i) h->out[i] = (int)(i * 3 + 1);
}

SKEL_TEST(pool_site_with_slow_helpers_runs_on_its_caller)
{
    static int who;                                     /* the site's instance: any address */
    enum { N = 4096, CALLS = 60 };
    int out[N], helped = 0, c;
    size_t i;
    slowhelp h;
    h.caller = pthread_self(); h.out = out;
    for (c = 0; c < CALLS; ++c) {
        memset(out, 0, sizeof out);
        h.off = 0;
        _skel_pool_site_for(&who, N, 1, 2, 16, N, slowhelp_body, &h);
        helped += h.off > 0;
        for (i = 0; i < N; ++i)
            if (out[i] != (int)(i * 3 + 1)) ST_FAIL("call %d: out[%zu] = %d", c, i, out[i]);
    }
    st_context("%d of %d calls had a chunk on a helper", helped, CALLS);
    ST_CHECK(helped <= 10);                             /* the first parallel try: 8 */
    _skel_pool_stop();
}

/* A site is a call's shape too, not only its item count: after the site
   of N units of 1 element has gone to its caller (slow helpers, as above:
   from its 17th call), a call of N / 16 units of 16 elements over the same
   N items starts with a parallel try of its own (one shared site kept the column pass of 65536
   x 16 on its caller, timed at 4096 x 256: both 256 tiles).  The pool's
   count of calls run alone tells (that a helper took a chunk of the try
   did not: on a loaded machine none came within its 8 calls, 1 run in 30). */
SKEL_TEST(pool_site_keyed_by_the_calls_shape)
{
    static int who;
    enum { N = 4096 };
    int out[N], c;
    unsigned sleeps, alone0, alone1, alone2;
    slowhelp h;
    h.caller = pthread_self(); h.out = out;
    _skel_pool_tally(&sleeps, &alone0);
    for (c = 0; c < 30; ++c) { h.off = 0; _skel_pool_site_for(&who, N, 1, 2, 16, N, slowhelp_body, &h); }
    _skel_pool_tally(&sleeps, &alone1);
    st_context("the first shape: %u of 30 calls alone", alone1 - alone0);
    ST_CHECK(alone1 - alone0 >= 10);                    /* it went to its caller */
    _skel_pool_site_for(&who, N / 16, 16, 2, 16, N, slowhelp_body, &h);
    _skel_pool_tally(&sleeps, &alone2);
    ST_EQ_INT((int)(alone2 - alone1), 0);               /* the other shape tried parallel */
    _skel_pool_stop();
}

/* ---- column reductions: parts by rows (tall) and by columns (wide) ----
   The first non-zero value of each column (associative, not commutative:
   a fold out of row order gives another value), the sum in int32 (the
   partial rows folded by reduce_cols) and in int64 from int32 (folded
   through combine), on the pool at several widths, against plain C. */
SKEL_FUNC(int32_t, pfirst_nz, (int32_t a, int32_t b), return a != 0 ? a : b;)
SKEL_REDUCE(pcol_first, pfirst_nz, int32_t)
SKEL_REDUCE(pcol_sum, padd, int32_t)
SKEL_FUNC(int64_t, padd64, (int64_t a, int64_t b), return a + b;)
SKEL_REDUCE_EX(pcol_sum64, padd64, int64_t, int32_t)

static void check_column_reduce(size_t R, size_t C, int width, unsigned seed)
{
    int32_t *h = (int32_t *)malloc(R * C * sizeof *h), *first = (int32_t *)calloc(C, sizeof *first);
    int64_t *sum = (int64_t *)calloc(C, sizeof *sum);
    skel_mat *m = NULL;
    skel_vec *o32 = NULL, *o64 = NULL;
    skel_plan *p = pool_plan(width);
    skel_call call;
    size_t r, c;
    ST_CHECK(h && first && sum);
    for (r = 0; r < R * C; ++r) {       /* a third zeros, so the first non-zero is often a later row's */
        seed = seed * 1103515245u + 12345u;
        h[r] = (seed >> 16) % 3 == 0 ? 0 : (int32_t)((seed >> 8) & 0xffff) - 30000;
    }
    for (c = 0; c < C; ++c)
        for (r = 0; r < R; ++r) {
            if (!first[c]) first[c] = h[r * C + c];
            sum[c] += h[r * C + c];
        }
    st_context("%zu x %zu on pool/%d", R, C, width);
    ST_OK(skel_mat_new_copy(&m, SKEL_INT32, R, C, h));
    ST_OK(skel_vec_new(&o32, SKEL_INT32, C));
    ST_OK(skel_vec_new(&o64, SKEL_INT64, C));
    memset(&call, 0, sizeof call);
    call.in[0] = m;
    call.direction = SKEL_COLS;
    call.out = o32;
    ST_OK(skel_set_plan(pcol_first, p));
    ST_OK(skel_run(pcol_first, &call));
    for (c = 0; c < C; ++c)
        if (((const int32_t *)skel_read(o32))[c] != first[c]) { ST_FAIL("first non-zero of column %zu", c); break; }
    ST_OK(skel_set_plan(pcol_sum, p));
    ST_OK(skel_run(pcol_sum, &call));
    for (c = 0; c < C; ++c)
        if (((const int32_t *)skel_read(o32))[c] != (int32_t)sum[c]) { ST_FAIL("int32 sum of column %zu", c); break; }
    call.out = o64;
    ST_OK(skel_set_plan(pcol_sum64, p));
    ST_OK(skel_run(pcol_sum64, &call));
    for (c = 0; c < C; ++c)
        if (((const int64_t *)skel_read(o64))[c] != sum[c]) { ST_FAIL("int64 sum of column %zu", c); break; }
    skel_set_plan(pcol_first, NULL); skel_set_plan(pcol_sum, NULL); skel_set_plan(pcol_sum64, NULL);
    skel_plan_free(p);
    skel_free(m); skel_free(o32); skel_free(o64);
    free(h); free(first); free(sum);
    st_context("");
}

SKEL_TEST(pool_column_reduce_by_rows_and_by_columns_matches_plain_c)
{
    static const size_t shape[][2] = { { 1, 1 }, { 1, 37 }, { 5, 3 }, { 16, 70001 }, { 20011, 7 },
                                       { 257, 4099 }, { 1000, 33 }, { 3, 65537 }, { 4096, 17 } };
    static const int width[] = { 1, 2, 3, 8 };
    size_t s, w;
    for (s = 0; s < sizeof shape / sizeof shape[0]; ++s)
        for (w = 0; w < sizeof width / sizeof width[0]; ++w)
            check_column_reduce(shape[s][0], shape[s][1], width[w], (unsigned)(s * 7 + w + 1));
    _skel_pool_stop();
}

/* ---- the column pass in whole tiles ----
   Matrices of a few column blocks and few tiles, where the column pass
   makes smaller tiles, a part each (whole tiles as items), and one of
   many rows, where it does not: a weighted window of 5 (order-sensitive:
   a row off by one changes the sum) along the columns and rows then
   columns, duplicate and constant edges, on pool/2, 3, 8 and 16 (more
   threads than CPUs here), against plain C. */
SKEL_FUNC(int32_t, pwin5, (const int32_t *a), return a[-2] + 2 * a[-1] + 3 * a[0] + 5 * a[1] + 7 * a[2];)
SKEL_OVERLAP(pcol_win5, pwin5, int32_t, 2)

static int32_t win5_at(const int32_t *h, size_t n, size_t stride, ptrdiff_t i, int dup, int32_t ev)
{
    static const int32_t w[5] = { 1, 2, 3, 5, 7 };
    int32_t s = 0;
    ptrdiff_t k, at;
    for (k = -2; k <= 2; ++k) {
        at = i + k;
        if (at < 0 || at >= (ptrdiff_t)n) {
            if (!dup) { s += w[k + 2] * ev; continue; }
            at = at < 0 ? 0 : (ptrdiff_t)n - 1;
        }
        s += w[k + 2] * h[(size_t)at * stride];
    }
    return s;
}

SKEL_TEST(pool_column_pass_in_whole_tiles_matches_plain_c)
{
    static const size_t shape[][2] = { { 256, 34 }, { 287, 34 }, { 100, 33 }, { 17, 40 }, { 40, 100 },
                                       { 1000, 35 }, { 33, 1000 } };
    static const int width[] = { 2, 3, 8, 16 };
    int32_t ev = -3;
    size_t s, w, i, r, c;
    int dup, dir;
    for (s = 0; s < sizeof shape / sizeof shape[0]; ++s) {
        size_t R = shape[s][0], C = shape[s][1], n = R * C;
        int32_t *h = (int32_t *)malloc(n * sizeof *h), *rows = (int32_t *)malloc(n * sizeof *rows);
        int32_t *ref = (int32_t *)malloc(n * sizeof *ref);
        unsigned seed = (unsigned)s * 977u + 5u;
        ST_CHECK(h && rows && ref);
        for (i = 0; i < n; ++i) { seed = seed * 1103515245u + 12345u; h[i] = (int32_t)((seed >> 8) % 2001) - 1000; }
        for (dup = 0; dup <= 1; ++dup)
            for (dir = 0; dir <= 1; ++dir) {    /* columns; rows then columns */
                const int32_t *src = h;
                if (dir) {
                    for (r = 0; r < R; ++r)
                        for (c = 0; c < C; ++c) rows[r * C + c] = win5_at(h + r * C, C, 1, (ptrdiff_t)c, dup, ev);
                    src = rows;
                }
                for (r = 0; r < R; ++r)
                    for (c = 0; c < C; ++c) ref[r * C + c] = win5_at(src + c, R, C, (ptrdiff_t)r, dup, ev);
                for (w = 0; w < sizeof width / sizeof width[0]; ++w) {
                    skel_mat *in = NULL, *out = NULL;
                    skel_plan *p = pool_plan(width[w]);
                    skel_call call;
                    const int32_t *got;
                    st_context("%zu x %zu, %s, %s edges, pool/%d", R, C, dir ? "rows then columns" : "columns",
                               dup ? "duplicate" : "constant", width[w]);
                    ST_OK(skel_mat_new_copy(&in, SKEL_INT32, R, C, h));
                    ST_OK(skel_mat_new(&out, SKEL_INT32, R, C));
                    memset(&call, 0, sizeof call);
                    call.in[0] = in; call.out = out;
                    call.direction = dir ? SKEL_ROWS_COLS : SKEL_COLS;
                    call.edge = dup ? SKEL_EDGE_DUPLICATE : SKEL_EDGE_CONSTANT;
                    call.edge_value = dup ? NULL : &ev;
                    ST_OK(skel_set_plan(pcol_win5, p));
                    ST_OK(skel_run(pcol_win5, &call));
                    got = (const int32_t *)skel_read(out);
                    ST_CHECK(got != NULL);
                    for (i = 0; got && i < n; ++i)
                        if (got[i] != ref[i]) { ST_FAIL("element %zu x %zu: %d, want %d", i / C, i % C, got[i], ref[i]); break; }
                    skel_set_plan(pcol_win5, NULL);
                    skel_plan_free(p);
                    skel_free(in); skel_free(out);
                }
            }
        free(h); free(rows); free(ref);
    }
    _skel_pool_stop();
}

/* ---- the pool as a tuner choice ---- */
typedef struct seen { int pool[64], omp, seq; } seen;
static double record_cost(const skel_variant *v, const size_t *point, double *once, void *user)
{
    seen *s = (seen *)user;
    (void)point; (void)once;
    if (strcmp(v->backend, "pool") == 0 && v->threads >= 0 && v->threads < 64) s->pool[v->threads] = 1;
    if (strcmp(v->backend, "omp") == 0) s->omp = 1;
    if (strcmp(v->backend, "seq") == 0) s->seq = 1;
    return strcmp(v->backend, "seq") == 0 ? 1e-6 : -1;   /* only seq runs: the table is what counts */
}

SKEL_TEST(tuner_default_variants_are_seq_and_pool_thread_counts)
{
    skel_tune_desc d;
    skel_plan *p = NULL;
    seen s;
    int th, cores = 0, n = 0;
    if (!skel_backend_available("pool")) ST_SKIP("no pool backend");
    memset(&s, 0, sizeof s);
    memset(&d, 0, sizeof d);
    d.id = "pool_table"; d.dims = 1; d.lower[0] = 10; d.upper[0] = 1000;
    d.cost = record_cost; d.user = &s; d.nofile = 1; d.quiet = 1; d.max_depth = 1;
    ST_OK(skel_tune(&d, &p));
    ST_CHECK(s.seq);
    ST_EQ_INT(s.omp, 0);                    /* omp only where there is no pool */
    for (th = 0; th < 64; ++th) if (s.pool[th]) { ++n; cores = th; }
    ST_EQ_INT(s.pool[1], 0);                /* pool/1 would be seq */
    if (cores >= 2) {
        ST_CHECK(s.pool[2]);
        for (th = 4; th < cores; th *= 2) ST_CHECK(s.pool[th]);
    }
    st_context("%d pool variants up to %d threads", n, cores);
    skel_plan_free(p);
}

SKEL_TEST(pool_variant_thread_count_is_bounded)
{
    skel_plan *p = NULL;
    skel_variant v;
    if (!skel_backend_available("pool")) ST_SKIP("no pool backend");
    memset(&v, 0, sizeof v);
    v.backend = "pool";
    ST_OK(skel_plan_new(&p));
    v.threads = 256;
    ST_OK(skel_plan_add(p, 0, 10, &v));
    v.threads = 257;
    ST_EQ_INT(skel_plan_add(p, 11, 20, &v), SKEL_EINVAL);
    ST_CHECK(strstr(skel_last_error(), "257") != NULL);
    skel_plan_free(p);
}

/* A child forked after the pool started gets workers of its own: its
   calls and tasks complete (the parent's threads do not exist there). */
SKEL_TEST(pool_works_in_a_forked_child)
{
    pid_t pid;
    int status = -1;
#if defined(__SANITIZE_THREAD__)
    ST_SKIP("ThreadSanitizer does not support threads started after a multi-threaded fork");
#endif
    check_cover(4, 32, 10000);              /* the parent's pool is running */
    fflush(stdout);
    pid = fork();
    ST_CHECK(pid >= 0);
    if (pid == 0) {
        int *count = (int *)calloc(10000, sizeof *count), ok = 1, i, w = 0;
        size_t lo[32], hi[32];
        int calls[32] = { 0 };
        cover c;
        _skel_task t;
        c.n = 10000; c.parts = 32; c.count = count; c.lo = lo; c.hi = hi; c.calls = calls;
        _skel_pool_for(4, 32, 10000, cover_body, &c);
        for (i = 0; i < 10000; ++i) ok &= count[i] == 1;
        _skel_pool_submit(&t, record_thread, NULL);
        while (!_skel_task_done(&t) && w++ < 5000) nap_ms(1);   /* a worker of the child's runs it */
        ok &= _skel_task_done(&t) && _skel_task_wait(&t) == 3 && _skel_pool_threads() >= 1;
        _exit(ok ? 0 : 1);
    }
    ST_CHECK(waitpid(pid, &status, 0) == pid);
    ST_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The site rule's guess of a call's time on its caller alone (the gate of
   its tries alone): the chunk count times the lower median of the chunk
   times the threads recorded, not the caller's own chunks' time.  Here
   the caller's home range (the first quarter of the chunks, as a Julia
   set's first rows) takes 1 us a chunk and the rest 30 us: a guess from
   the caller's chunks said 16 us for a call of 364 us of work. */
typedef struct unevenwork { int parts, width; int *out; } unevenwork;
static void uneven_body(void *ctx, int part, size_t lo, size_t hi)
{
    unevenwork *u = (unevenwork *)ctx;
    double end = wall_seconds() + (part < u->parts / u->width ? 1e-6 : 30e-6);
    size_t i;
    while (wall_seconds() < end) {}
    for (i = lo; i < hi; ++i) u->out[i] = (int)i + 7;
}
SKEL_TEST(pool_guess_of_the_time_alone_counts_every_threads_chunks)
{
    enum { N = 1600, PARTS = 16 };
    int out[N], k, ok = 0;
    const double total = 4 * 1e-6 + 12 * 30e-6;
    unevenwork u;
    size_t i;
    u.parts = PARTS; u.width = 4; u.out = out;
    for (k = 0; k < 5; ++k) {
        double g;
        memset(out, 0, sizeof out);
        g = _skel_test_pool_guess(4, PARTS, N, uneven_body, &u);
        for (i = 0; i < N; ++i)
            if (out[i] != (int)i + 7) ST_FAIL("out[%zu] = %d", i, out[i]);
        st_context("guess %.0f us, work %.0f us", 1e6 * g, 1e6 * total);
        if (g < 0) ST_SKIP("the call did not run in parallel (no pool thread)");
        ok += g >= 0.4 * total;
    }
    ST_CHECK(ok >= 4);      /* (a run may lose its helpers to a loaded machine: the caller's records then) */
    _skel_pool_stop();
}
