/* Streams (skel.h, "streams"): Pipeline, Farm and Comp nodes over a
   stream of items, their queues, ordering, nesting (seed 001's
   configurations), errors, stopping, statistics, and their threads on the
   worker pool.  Stage functions run on stream threads, where an assertion
   must not fire (it jumps back into the test's frame): they record what
   they saw, and the test checks it after the run.  Everything here also
   runs under ThreadSanitizer (make test-tsan). */
#define _GNU_SOURCE                 /* clock_gettime, nanosleep */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

int _skel_place_find(const char *name);    /* skel.h, "places" */

/* ---- items and stages that record what happened to each item ---- */
typedef struct titem {
    long seq;                   /* the source's count */
    uint64_t v;                 /* a value every stage changes */
    uint64_t trail;             /* the stages it went through, in order */
    pthread_t thread[4];        /* the thread of each of its first stages */
    int nstages;
} titem;

typedef struct trun {
    long n;                     /* items the source gives (< 0: without end) */
    long next;                  /* source's: items given */
    int fail_source_at;         /* the source fails at this item (-1: never) */
    int fail_sink_at;
    int stop_at;                /* the sink calls skel_stream_stop at this item (-1: never) */
    skel_stream *s;
    long *seen;                 /* per seq: times the sink saw it */
    titem *out;                 /* per seq: the item as the sink saw it */
    long *order;                /* seqs in the order the sink saw them */
    long nout;
    long freed;                 /* items the sink or drop freed */
    long dropped;
    long produced, consumed;    /* atomic: for the in-flight bound */
    long max_in_flight;         /* atomic */
    int sink_us;                /* the sink sleeps this long per item */
    int endless;                /* the source never ends */
} trun;

static uint64_t mix(uint64_t v, int id)
{
    v ^= (uint64_t)id * 0x9E3779B97F4A7C15ULL;
    v *= 0xBF58476D1CE4E5B9ULL;
    return v ^ (v >> 31);
}

static void spin(uint64_t v, int max)
{
    volatile uint64_t x = v;
    int i, k = max ? (int)(v % (uint64_t)max) : 0;
    for (i = 0; i < k; ++i) x = x * 3 + 1;
}

static void nap_us(int us)
{
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000L };
    nanosleep(&ts, NULL);
}

static uint64_t seed_of(long seq) { return st_seed("stream", (size_t)seq, 7); }

static int src_items(void *user, void **item)
{
    trun *r = (trun *)user;
    titem *it;
    long in;
    if (!r->endless && r->next >= r->n) return 0;
    if (r->next == r->fail_source_at) return SKEL_EIO;
    if (!(it = (titem *)calloc(1, sizeof *it))) return SKEL_ENOMEM;
    it->seq = r->next++;
    it->v = seed_of(it->seq);
    in = __atomic_add_fetch(&r->produced, 1, __ATOMIC_SEQ_CST) - __atomic_load_n(&r->consumed, __ATOMIC_SEQ_CST);
    if (in > __atomic_load_n(&r->max_in_flight, __ATOMIC_RELAXED)) __atomic_store_n(&r->max_in_flight, in, __ATOMIC_RELAXED);
    *item = it;
    return 1;
}

static int sink_items(void *user, void *item)
{
    trun *r = (trun *)user;
    titem *it = (titem *)item;
    int fail = r->nout == r->fail_sink_at;
    if (r->sink_us) nap_us(r->sink_us);
    __atomic_add_fetch(&r->consumed, 1, __ATOMIC_SEQ_CST);
    if (it->seq >= 0 && it->seq < r->n) {
        r->seen[it->seq]++;
        r->out[it->seq] = *it;
    }
    if (r->nout < r->n) r->order[r->nout] = it->seq;
    r->nout++;
    if (it->seq == r->stop_at) skel_stream_stop(r->s);
    free(it);
    r->freed++;
    return fail ? SKEL_EIO : SKEL_OK;
}

static void drop_item(void *user, void *item)
{
    trun *r = (trun *)user;
    free(item);
    r->dropped++;
    r->freed++;
}

/* A stage: user = its id (1..); it changes v, notes itself in the trail,
   and spins a while that depends on the item (so farm copies finish out
   of order).  An id over 100 fails on the item whose seq is id - 100. */
static int stage_fn(skel_stream_worker *w, void *item, void **out)
{
    titem *it = (titem *)item;
    int id = (int)(intptr_t)w->user;
    if (id > 100 && it->seq == id - 100) return SKEL_ESIZE;
    it->v = mix(it->v, id % 100);
    it->trail = it->trail * 131 + (uint64_t)(id % 100);
    if (it->nstages < 4) it->thread[it->nstages] = pthread_self();
    it->nstages++;
    spin(it->v, 3000);
    *out = it;
    return SKEL_OK;
}

static void trun_init(trun *r, skel_stream *s, long n)
{
    memset(r, 0, sizeof *r);
    r->s = s;
    r->n = n;
    r->fail_source_at = r->fail_sink_at = r->stop_at = -1;
    r->seen = (long *)calloc((size_t)(n > 0 ? n : 1), sizeof *r->seen);
    r->out = (titem *)calloc((size_t)(n > 0 ? n : 1), sizeof *r->out);
    r->order = (long *)calloc((size_t)(n > 0 ? n : 1), sizeof *r->order);
    ST_CHECK(r->seen && r->out && r->order);
}

static void trun_free(trun *r) { free(r->seen); free(r->out); free(r->order); }

static skel_stream_desc tdesc(trun *r)
{
    skel_stream_desc d;
    memset(&d, 0, sizeof d);
    d.source = src_items;
    d.sink = sink_items;
    d.drop = drop_item;
    d.user = r;
    return d;
}

static int tstage(skel_stream *s, const char *name, int id)
{
    return skel_stream_stage(s, &(skel_stage_desc){ .name = name, .cpu = stage_fn, .user = (void *)(intptr_t)id });
}

/* Every item reached the sink once, through the stages ids[0..k) in that
   order; in the source's order if ordered. */
static void check_items(const trun *r, const int *ids, int k, int ordered)
{
    long i;
    int j;
    ST_EQ_INT(r->nout, r->n);
    for (i = 0; i < r->n; ++i) {
        uint64_t v = seed_of(i), trail = 0;
        for (j = 0; j < k; ++j) {
            v = mix(v, ids[j]);
            trail = trail * 131 + (uint64_t)ids[j];
        }
        if (r->seen[i] != 1) ST_FAIL("item %ld reached the sink %ld times", i, r->seen[i]);
        if (r->out[i].v != v || r->out[i].trail != trail || r->out[i].nstages != k)
            ST_FAIL("item %ld: value %llx trail %llx after %d stages, expected %llx %llx after %d", i,
                    (unsigned long long)r->out[i].v, (unsigned long long)r->out[i].trail, r->out[i].nstages,
                    (unsigned long long)v, (unsigned long long)trail, k);
        if (ordered && r->order[i] != i) ST_FAIL("the sink's item %ld was item %ld (ordered)", i, r->order[i]);
    }
    ST_EQ_INT(r->freed, r->n);
}

/* ---- order and every item ---- */
SKEL_TEST(stream_pipeline_gives_every_item_through_every_stage_in_order)
{
    static const long ns[] = { 0, 1, 2, 7, 257 };
    static const int ids[] = { 1, 2, 3 };
    size_t k;
    for (k = 0; k < sizeof ns / sizeof *ns; ++k) {
        skel_stream *s;
        skel_stream_desc d;
        trun r;
        int a, b, c, p;
        ST_OK(skel_stream_new(&s));
        a = tstage(s, "a", 1); b = tstage(s, "b", 2); c = tstage(s, "c", 3);
        p = skel_stream_pipeline(s, 3, (int[]){ a, b, c });
        ST_CHECK(p >= 0);
        trun_init(&r, s, ns[k]);
        st_context("%ld items", ns[k]);
        d = tdesc(&r);
        ST_OK(skel_stream_run(s, p, &d));
        check_items(&r, ids, 3, 1);
        trun_free(&r);
        skel_stream_free(s);
    }
}

static void farm_run(int ordered_farm, int ordered_run, long n, int workers, int threads)
{
    static const int ids[] = { 1, 2 };
    skel_stream *s;
    skel_stream_desc d;
    trun r;
    int a, f, b, p;
    ST_OK(skel_stream_new(&s));
    a = tstage(s, "a", 1);
    b = tstage(s, "b", 2);
    f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = workers, .ordered = ordered_farm });
    p = skel_stream_pipeline(s, 2, (int[]){ f, b });
    ST_CHECK(p >= 0);
    trun_init(&r, s, n);
    st_context("farm of %d, %ld items, ordered %d/%d, %d threads", workers, n, ordered_farm, ordered_run, threads);
    d = tdesc(&r);
    d.ordered = ordered_run;
    d.threads = threads;
    ST_OK(skel_stream_run(s, p, &d));
    check_items(&r, ids, 2, ordered_farm || ordered_run);
    trun_free(&r);
    skel_stream_free(s);
}

SKEL_TEST(stream_farm_unordered_gives_every_item_once)
{
    farm_run(0, 0, 500, 6, 0);
    farm_run(0, 0, 3, 6, 0);
    farm_run(0, 0, 100, 1, 0);
}

SKEL_TEST(stream_farm_ordered_gives_items_in_source_order)
{
    farm_run(1, 0, 500, 6, 0);
    farm_run(0, 1, 500, 5, 0);   /* desc.ordered orders every farm */
    farm_run(1, 0, 50, 13, 3);   /* more copies than threads */
    farm_run(1, 0, 1, 4, 0);
}

SKEL_TEST(stream_runs_on_any_number_of_threads_the_callers_alone_too)
{
    static const int ths[] = { 1, 2, 3, 8, 64 };
    static const int ids[] = { 1, 2, 3 };
    size_t k;
    long i;
    for (k = 0; k < sizeof ths / sizeof *ths; ++k) {
        skel_stream *s;
        skel_stream_desc d;
        skel_stream_stats st;
        trun r;
        int a, b, c, f, p;
        ST_OK(skel_stream_new(&s));
        a = tstage(s, "a", 1); b = tstage(s, "b", 2); c = tstage(s, "c", 3);
        f = skel_stream_farm(s, b, &(skel_farm_desc){ .cpu_workers = 4 });
        p = skel_stream_pipeline(s, 3, (int[]){ a, f, c });
        trun_init(&r, s, 120);
        st_context("%d threads", ths[k]);
        d = tdesc(&r);
        d.threads = ths[k];
        ST_OK(skel_stream_run(s, p, &d));
        check_items(&r, ids, 3, 0);
        ST_OK(skel_stream_stats_get(s, &st));
        ST_EQ_INT(st.threads, ths[k] < st.workers ? ths[k] : st.workers);
        if (ths[k] == 1)
            for (i = 0; i < r.n; ++i)
                if (!pthread_equal(r.out[i].thread[0], pthread_self()) || !pthread_equal(r.out[i].thread[2], pthread_self()))
                    ST_FAIL("one thread: item %ld ran on another thread", i);
        trun_free(&r);
        skel_stream_free(s);
    }
}

/* ---- nesting: seed 001's ten configurations of r and p (depth 2) ---- */
enum { CF_COMP, CF_PIPE, CF_FR_P, CF_R_FP, CF_FR_FP, CF_F_RP, CF_F_RCP, CF_FR_C_FP, CF_FR_C_P, CF_R_C_FP, CF_COUNT };
static const char *cf_names[] = { "r.p", "r|p", "F(r)|p", "r|F(p)", "F(r)|F(p)", "F(r|p)", "F(r.p)", "F(r).F(p)",
                                  "F(r).p", "r.F(p)" };

/* The configuration's root over stages r (id 1) and p (id 2); farms of
   cw CPU workers. */
static int build_config(skel_stream *s, int cf, int cw, int ordered)
{
    skel_farm_desc fd;
    int r = tstage(s, "r", 1), p = tstage(s, "p", 2), x;
    memset(&fd, 0, sizeof fd);
    fd.cpu_workers = cw;
    fd.ordered = ordered;
    switch (cf) {
    case CF_COMP: return skel_stream_comp(s, 2, (int[]){ r, p });
    case CF_PIPE: return skel_stream_pipeline(s, 2, (int[]){ r, p });
    case CF_FR_P: return skel_stream_pipeline(s, 2, (int[]){ skel_stream_farm(s, r, &fd), p });
    case CF_R_FP: return skel_stream_pipeline(s, 2, (int[]){ r, skel_stream_farm(s, p, &fd) });
    case CF_FR_FP: x = skel_stream_farm(s, r, &fd); return skel_stream_pipeline(s, 2, (int[]){ x, skel_stream_farm(s, p, &fd) });
    case CF_F_RP: return skel_stream_farm(s, skel_stream_pipeline(s, 2, (int[]){ r, p }), &fd);
    case CF_F_RCP: return skel_stream_farm(s, skel_stream_comp(s, 2, (int[]){ r, p }), &fd);
    case CF_FR_C_FP: x = skel_stream_farm(s, r, &fd); return skel_stream_comp(s, 2, (int[]){ x, skel_stream_farm(s, p, &fd) });
    case CF_FR_C_P: return skel_stream_comp(s, 2, (int[]){ skel_stream_farm(s, r, &fd), p });
    default: return skel_stream_comp(s, 2, (int[]){ r, skel_stream_farm(s, p, &fd) });
    }
}

SKEL_TEST(stream_seed001_configurations_at_depth_two_compute_every_item)
{
    static const int ids[] = { 1, 2 };
    static const int workers[] = { 2, 5 };  /* 2: as many threads as on a small CI machine; 5: more */
    static const int threads[] = { 0, 1, 2 };   /* one per worker; fewer threads than workers */
    int cf, o, w, t;
    for (cf = 0; cf < CF_COUNT; ++cf)
        for (o = 0; o < 2; ++o)
            for (w = 0; w < 2; ++w)
                for (t = 0; t < 3; ++t) {
                    skel_stream *s;
                    skel_stream_desc d;
                    trun r;
                    int root;
                    ST_OK(skel_stream_new(&s));
                    st_context("%s, %d workers a farm, ordered %d, %d threads", cf_names[cf], workers[w], o, threads[t]);
                    root = build_config(s, cf, workers[w], o);
                    ST_CHECK(root >= 0);
                    trun_init(&r, s, 97);
                    d = tdesc(&r);
                    d.threads = threads[t];
                    d.queue = 1 + t;
                    ST_OK(skel_stream_run(s, root, &d));
                    check_items(&r, ids, 2, o || cf <= CF_PIPE);
                    trun_free(&r);
                    skel_stream_free(s);
                }
}

/* The workers and queues each configuration flattens into. */
SKEL_TEST(stream_configurations_have_the_workers_and_queues_of_their_structure)
{
    /* workers with the source and sink; queues with the source's and sink's */
    static const int want_workers[CF_COUNT] = { 3, 4, 7, 7, 10, 10, 6, 10, 7, 7 };
    static const int want_queues[CF_COUNT] = { 2, 3, 3, 3, 3, 6, 2, 3, 3, 3 };
    int cf;
    for (cf = 0; cf < CF_COUNT; ++cf) {
        skel_stream *s;
        skel_stream_desc d;
        skel_stream_stats st;
        skel_stream_queue_stats q;
        trun r;
        int root, i;
        ST_OK(skel_stream_new(&s));
        st_context("%s", cf_names[cf]);
        root = build_config(s, cf, 4, 0);
        trun_init(&r, s, 10);
        d = tdesc(&r);
        ST_OK(skel_stream_run(s, root, &d));
        ST_OK(skel_stream_stats_get(s, &st));
        ST_EQ_INT(st.workers, want_workers[cf]);
        ST_EQ_INT(st.queues, want_queues[cf]);
        for (i = 0; i < st.queues; ++i) {   /* a Comp joins a farm by a one-item queue */
            ST_OK(skel_stream_queue_stats_get(s, i, &q));
            if (q.from >= 0 && q.to >= 0 && (cf == CF_FR_C_FP || cf == CF_FR_C_P || cf == CF_R_C_FP))
                ST_EQ_INT(q.capacity, 1);
        }
        trun_free(&r);
        skel_stream_free(s);
    }
}

SKEL_TEST(stream_comp_runs_its_stages_in_one_worker_on_one_thread)
{
    static const int ids[] = { 1, 2, 3 };
    skel_stream *s;
    skel_stream_desc d;
    skel_stream_stats st;
    skel_stream_node_stats ns;
    trun r;
    int a, b, c, comp;
    long i;
    ST_OK(skel_stream_new(&s));
    a = tstage(s, "a", 1); b = tstage(s, "b", 2); c = tstage(s, "c", 3);
    comp = skel_stream_comp(s, 2, (int[]){ a, skel_stream_comp(s, 2, (int[]){ b, c }) });
    trun_init(&r, s, 64);
    d = tdesc(&r);
    ST_OK(skel_stream_run(s, comp, &d));
    check_items(&r, ids, 3, 1);
    ST_OK(skel_stream_stats_get(s, &st));
    ST_EQ_INT(st.workers, 3);       /* the source, a.b.c, the sink */
    ST_OK(skel_stream_node_stats_get(s, comp, &ns));
    ST_EQ_INT(ns.workers, 1);
    ST_EQ_INT(ns.items, 64);
    for (i = 0; i < r.n; ++i)
        if (!pthread_equal(r.out[i].thread[0], r.out[i].thread[1]) || !pthread_equal(r.out[i].thread[1], r.out[i].thread[2]))
            ST_FAIL("item %ld: the comp's stages ran on different threads", i);
    trun_free(&r);
    skel_stream_free(s);
}

/* In a Comp, consecutive stages share one worker; a farm part is joined
   to them by a one-item queue. */
SKEL_TEST(stream_comp_fuses_its_stages_around_a_farm)
{
    static const int ids[] = { 1, 2, 3, 4 };
    skel_stream *s;
    skel_stream_desc d;
    skel_stream_stats st;
    skel_stream_queue_stats q;
    trun r;
    int a, b, c, e, comp, i;
    long k;
    ST_OK(skel_stream_new(&s));
    a = tstage(s, "a", 1); b = tstage(s, "b", 2); c = tstage(s, "c", 3); e = tstage(s, "e", 4);
    comp = skel_stream_comp(s, 3, (int[]){ a, b, skel_stream_pipeline(s, 2, (int[]){ skel_stream_farm(s, c,
                            &(skel_farm_desc){ .cpu_workers = 3 }), e }) });
    ST_CHECK(comp >= 0);
    trun_init(&r, s, 80);
    d = tdesc(&r);
    ST_OK(skel_stream_run(s, comp, &d));
    check_items(&r, ids, 4, 0);
    ST_OK(skel_stream_stats_get(s, &st));
    ST_EQ_INT(st.workers, 2 + 1 + 3 + 1);   /* source, sink, a.b, 3 copies of c, e */
    ST_EQ_INT(st.queues, 4);                /* source->a.b, a.b->farm (one item), farm->e, e->sink */
    for (i = 0; i < st.queues; ++i) {
        ST_OK(skel_stream_queue_stats_get(s, i, &q));
        if (q.from == b) ST_EQ_INT(q.capacity, 1);
    }
    for (k = 0; k < r.n; ++k)
        if (!pthread_equal(r.out[k].thread[0], r.out[k].thread[1])) ST_FAIL("item %ld: a and b on two threads", k);
    trun_free(&r);
    skel_stream_free(s);
}

/* ---- bounded queues ---- */
SKEL_TEST(stream_queues_stay_bounded_under_a_fast_source_and_a_slow_sink)
{
    static const int ids[] = { 1, 2 };
    skel_stream *s;
    skel_stream_desc d;
    skel_stream_stats st;
    skel_stream_queue_stats q;
    trun r;
    int a, b, f, p, i, caps = 0;
    ST_OK(skel_stream_new(&s));
    a = tstage(s, "a", 1); b = tstage(s, "b", 2);
    f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 3 });
    p = skel_stream_pipeline(s, 2, (int[]){ f, b });
    trun_init(&r, s, 150);
    r.sink_us = 200;
    d = tdesc(&r);
    d.queue = 2;
    ST_OK(skel_stream_run(s, p, &d));
    check_items(&r, ids, 2, 0);
    ST_OK(skel_stream_stats_get(s, &st));
    for (i = 0; i < st.queues; ++i) {
        ST_OK(skel_stream_queue_stats_get(s, i, &q));
        st_context("queue %d (%d -> %d)", i, q.from, q.to);
        ST_EQ_INT(q.capacity, 2);
        ST_CHECK(q.max <= q.capacity);
        ST_CHECK(q.mean >= 0 && q.mean <= q.max);
        ST_EQ_INT(q.items, 150);
        if (q.from == -1) ST_EQ_INT(q.max, q.capacity);    /* the fast source filled its queue */
        caps += q.capacity;
    }
    st_context("");
    /* items between the source and the sink: in the queues, or held by a
       worker (the sink's counts as taken when it is done) */
    if (r.max_in_flight > caps + st.workers - 1)
        ST_FAIL("%ld items in flight, more than %d queue places + %d workers", r.max_in_flight, caps, st.workers - 1);
    trun_free(&r);
    skel_stream_free(s);
}

/* ---- stopping and failing ---- */
SKEL_TEST(stream_stop_takes_no_more_items_and_finishes_those_taken)
{
    skel_stream *s;
    skel_stream_desc d;
    skel_stream_stats st;
    skel_stream_queue_stats q;
    trun r;
    int a, f, i, caps = 0;
    ST_OK(skel_stream_new(&s));
    a = tstage(s, "a", 1);
    f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 4, .ordered = 1 });
    trun_init(&r, s, 100000);       /* (the sink's arrays) */
    r.endless = 1;
    r.stop_at = 20;
    d = tdesc(&r);
    ST_OK(skel_stream_run(s, f, &d));
    ST_OK(skel_stream_stats_get(s, &st));
    ST_CHECK(st.items > 20);
    ST_EQ_INT(st.done, st.items);   /* every item taken reached the sink */
    ST_EQ_INT(st.dropped, 0);
    ST_EQ_INT(r.freed, st.items);
    for (i = 0; i < st.queues; ++i) {
        ST_OK(skel_stream_queue_stats_get(s, i, &q));
        caps += q.capacity;
    }
    ST_CHECK(st.items <= 21 + caps + st.workers);   /* what the source could fill meanwhile */
    trun_free(&r);
    skel_stream_free(s);
}

/* A failure: the run returns its status and says where, takes no more
   items, and every item the source gave was freed (by the sink, or by
   drop). */
static void fail_run(int where, int status)
{
    skel_stream *s;
    skel_stream_desc d;
    skel_stream_stats st;
    trun r;
    int a, b, f, p, rc;
    ST_OK(skel_stream_new(&s));
    a = tstage(s, "a", 1);
    b = tstage(s, "bad", where == 0 ? 100 + 37 : 2);
    f = skel_stream_farm(s, b, &(skel_farm_desc){ .cpu_workers = 3, .ordered = 1 });
    p = skel_stream_pipeline(s, 2, (int[]){ a, f });
    trun_init(&r, s, 1000);
    if (where == 1) r.fail_source_at = 37;
    if (where == 2) r.fail_sink_at = 37;
    d = tdesc(&r);
    rc = skel_stream_run(s, p, &d);
    ST_EQ_INT(rc, status);
    ST_CHECK(strstr(skel_last_error(), where == 0 ? "stage bad" : where == 1 ? "the source" : "the sink") != NULL);
    if (where != 1) ST_CHECK(strstr(skel_last_error(), "item 37") != NULL);
    ST_OK(skel_stream_stats_get(s, &st));
    ST_EQ_INT(st.items, st.done + st.dropped);
    ST_EQ_INT(r.freed, st.items);
    ST_EQ_INT(r.dropped, st.dropped);
    ST_CHECK(st.items < 1000);      /* it stopped */
    if (where == 1) ST_EQ_INT(st.items, 37);
    trun_free(&r);
    skel_stream_free(s);
}

SKEL_TEST(stream_failure_in_a_stage_stops_the_run_and_drops_pending_items)
{
    fail_run(0, SKEL_ESIZE);
}

SKEL_TEST(stream_failure_of_the_source_or_sink_stops_the_run)
{
    fail_run(1, SKEL_EIO);
    fail_run(2, SKEL_EIO);
}

typedef struct local_stats { int fini; long items; } local_stats;
static local_stats lstats;
static int counting_stage(skel_stream_worker *w, void *item, void **out)
{
    titem *it = (titem *)item;
    if (!w->local && !(w->local = calloc(1, sizeof(long)))) return SKEL_ENOMEM;
    ++*(long *)w->local;
    if (it->seq == 150) return SKEL_EINVAL;
    *out = item;
    return SKEL_OK;
}
static void counting_fini(skel_stream_worker *w)
{
    lstats.fini++;
    lstats.items += *(long *)w->local;   /* (fini runs on the caller, after the threads) */
    free(w->local);
}

SKEL_TEST(stream_worker_locals_go_to_fini_after_success_and_failure)
{
    int round;
    for (round = 0; round < 2; ++round) {
        skel_stream *s;
        skel_stream_desc d;
        skel_stream_stats st;
        skel_stream_worker_stats ws;
        trun r;
        int a, f, i, used = 0, rc;
        ST_OK(skel_stream_new(&s));
        a = skel_stream_stage(s, &(skel_stage_desc){ .name = "count", .cpu = counting_stage, .fini = counting_fini });
        f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 5 });
        trun_init(&r, s, round == 0 ? 100 : 400);
        memset(&lstats, 0, sizeof lstats);
        d = tdesc(&r);
        rc = skel_stream_run(s, f, &d);
        ST_EQ_INT(rc, round == 0 ? SKEL_OK : SKEL_EINVAL);
        ST_OK(skel_stream_stats_get(s, &st));
        for (i = 0; i < st.workers; ++i) {
            ST_OK(skel_stream_worker_stats_get(s, i, &ws));
            used += ws.node >= 0 && ws.items > 0;
        }
        ST_EQ_INT(lstats.fini, used);
        ST_EQ_INT(r.freed, st.items);
        if (round == 0) ST_EQ_INT(lstats.items, 100);
        trun_free(&r);
        skel_stream_free(s);
    }
}

/* ---- building ---- */
SKEL_TEST(stream_builders_reject_bad_nodes_and_pass_on_earlier_failures)
{
    skel_stream *s;
    skel_stream_desc d;
    trun r;
    int a, b, f, bad;
    ST_EQ_INT(skel_stream_new(NULL), SKEL_EINVAL);
    ST_OK(skel_stream_new(&s));
    ST_EQ_INT(skel_stream_stage(s, NULL), SKEL_EINVAL);
    ST_EQ_INT(skel_stream_stage(s, &(skel_stage_desc){ .name = "no function" }), SKEL_EINVAL);
    ST_EQ_INT(skel_stream_stage(NULL, &(skel_stage_desc){ .cpu = stage_fn }), SKEL_EINVAL);
    a = tstage(s, "a", 1);
    b = tstage(s, "b", 2);
    ST_EQ_INT(skel_stream_pipeline(s, 0, (int[]){ a }), SKEL_EINVAL);
    ST_EQ_INT(skel_stream_pipeline(s, 2, (int[]){ a, a }), SKEL_EINVAL);
    ST_EQ_INT(skel_stream_pipeline(s, 2, (int[]){ a, 99 }), SKEL_EINVAL);
    ST_EQ_INT(skel_stream_comp(s, 2, (int[]){ a, SKEL_ENOMEM }), SKEL_ENOMEM);     /* passed on */
    ST_EQ_INT(skel_stream_farm(s, SKEL_ETYPE, NULL), SKEL_ETYPE);
    ST_EQ_INT(skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = -1 }), SKEL_EINVAL);
    f = skel_stream_farm(s, a, NULL);               /* one CPU worker per CPU */
    ST_CHECK(f >= 0);
    ST_EQ_INT(skel_stream_farm(s, f, NULL), SKEL_EINVAL);                          /* a farm of a farm */
    ST_CHECK(strstr(skel_last_error(), "farm") != NULL);
    ST_EQ_INT(skel_stream_pipeline(s, 1, (int[]){ a }), SKEL_EINVAL);              /* a belongs to f */
    bad = skel_stream_farm(s, skel_stream_pipeline(s, 2, (int[]){ b, f }), NULL);  /* a farm inside a farm */
    ST_EQ_INT(bad, SKEL_EINVAL);
    trun_init(&r, s, 3);
    d = tdesc(&r);
    ST_EQ_INT(skel_stream_run(s, 1000, &d), SKEL_EINVAL);
    ST_EQ_INT(skel_stream_run(s, SKEL_ENOMEM, &d), SKEL_ENOMEM);
    ST_EQ_INT(skel_stream_run(NULL, f, &d), SKEL_EINVAL);
    d.queue = -1;
    ST_EQ_INT(skel_stream_run(s, f, &d), SKEL_EINVAL);
    d.queue = 0;
    d.source = NULL;
    ST_EQ_INT(skel_stream_run(s, f, &d), SKEL_EINVAL);
    d.source = src_items;
    ST_OK(skel_stream_run(s, f, &d));
    ST_EQ_INT(r.nout, 3);
    skel_stream_free(s);
    skel_stream_free(NULL);
    trun_free(&r);
}

SKEL_TEST(stream_gpu_workers_need_a_gpu_place_that_exists)
{
    skel_stream *s;
    skel_stream_desc d;
    trun r;
    int a, f;
    ST_OK(skel_stream_new(&s));
    a = skel_stream_stage(s, &(skel_stage_desc){ .name = "a", .cpu = stage_fn, .gpu = stage_fn, .user = (void *)1 });
    f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 1, .gpu_workers = 2, .gpus = "nosuchgpu" });
    trun_init(&r, s, 5);
    d = tdesc(&r);
    ST_EQ_INT(skel_stream_run(s, f, &d), SKEL_EBACKEND);
    ST_CHECK(strstr(skel_last_error(), "nosuchgpu") != NULL);
    ST_EQ_INT(r.next, 0);           /* nothing ran */
    trun_free(&r);
    skel_stream_free(s);
}

/* Out of memory while building or starting: an error, never a crash,
   and a run that could not start took no item. */
SKEL_TEST(stream_out_of_memory_fails_cleanly)
{
    static const int ids[] = { 1, 2 };
    long k;
    int ok = 0;
    for (k = 0; k < 200 && !ok; ++k) {
        skel_stream *s = NULL;
        skel_stream_desc d;
        trun r;
        int root, rc;
        st_alloc_fail_after(k);
        rc = skel_stream_new(&s);
        if (rc == SKEL_OK) {
            root = build_config(s, CF_F_RP, 3, 1);
            trun_init(&r, s, 20);
            d = tdesc(&r);
            rc = root < 0 ? root : skel_stream_run(s, root, &d);
            st_alloc_fail_after(-1);
            st_context("allocation %ld fails", k);
            if (rc == SKEL_OK) {
                check_items(&r, ids, 2, 1);
                ok = 1;
            } else ST_EQ_INT(r.next, 0);
            trun_free(&r);
            skel_stream_free(s);
        }
        st_alloc_fail_after(-1);
        if (rc != SKEL_OK) ST_EQ_INT(rc, SKEL_ENOMEM);
    }
    ST_CHECK(ok);
}

/* ---- statistics ---- */
static int sleepy_stage(skel_stream_worker *w, void *item, void **out)
{
    (void)w; (void)out; (void)item;
    nap_us(2000);
    return SKEL_OK;
}

SKEL_TEST(stream_statistics_measure_service_time_utilisation_and_queues)
{
    skel_stream *s;
    skel_stream_desc d;
    skel_stream_stats st;
    skel_stream_node_stats ns, fs;
    skel_stream_worker_stats ws;
    trun r;
    char path[256], buf[4096];
    FILE *fp;
    size_t got;
    int a, f, i;
    ST_OK(skel_stream_new(&s));
    a = skel_stream_stage(s, &(skel_stage_desc){ .name = "sleepy", .cpu = sleepy_stage });
    f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 3 });
    trun_init(&r, s, 30);
    d = tdesc(&r);
    ST_OK(skel_stream_run(s, f, &d));
    ST_OK(skel_stream_stats_get(s, &st));
    ST_EQ_INT(st.items, 30);
    ST_EQ_INT(st.done, 30);
    ST_CHECK(st.seconds >= 30 * 0.002 / 3);
    ST_OK(skel_stream_node_stats_get(s, a, &ns));
    ST_OK(skel_stream_node_stats_get(s, f, &fs));
    ST_EQ_INT(ns.items, 30);
    ST_EQ_INT(fs.items, 30);
    ST_EQ_INT(fs.workers, 3);
    ST_CHECK(ns.busy >= 30 * 0.002 && ns.busy <= 3 * st.seconds + 1e-3);
    ST_CHECK(ns.model >= 0.002);                        /* a stage: its time per item */
    ST_CHECK(fs.model >= 0.002 / 3 && fs.model < ns.model);  /* its farm: three copies at once */
    ST_CHECK(fs.service > 0 && fs.service <= st.seconds);
    ST_CHECK(fs.util_min <= fs.util_mean && fs.util_mean <= fs.util_max && fs.util_max <= 1.0 + 1e-9);
    ST_CHECK(fs.util_sd >= 0);
    for (i = 0; i < st.workers; ++i) {
        ST_OK(skel_stream_worker_stats_get(s, i, &ws));
        ST_CHECK(ws.util >= 0 && ws.util <= 1.0 + 1e-9);
        ST_CHECK(strcmp(ws.place, "host") == 0);
    }
    ST_EQ_INT(skel_stream_worker_stats_get(s, st.workers, &ws), SKEL_EINVAL);
    snprintf(path, sizeof path, "/tmp/skel_stream_stats_%d.json", (int)getpid());
    ST_OK(skel_stream_dump(s, SKEL_DUMP_JSON, path));
    ST_CHECK((fp = fopen(path, "r")) != NULL);
    got = fread(buf, 1, sizeof buf - 1, fp);
    buf[got] = 0;
    fclose(fp);
    remove(path);
    ST_CHECK(strstr(buf, "\"sleepy\"") && strstr(buf, "\"queues\"") && strstr(buf, "\"util\""));
    ST_EQ_INT(skel_stream_dump(s, SKEL_DUMP_SVG, path), SKEL_EINVAL);
    trun_free(&r);
    skel_stream_free(s);
}

/* ---- the worker pool ---- */
typedef struct pool_probe { int threads_seen; long sum; } pool_probe;
static void add_body(void *ctx, int part, size_t lo, size_t hi)
{
    (void)part;
    __atomic_add_fetch((long *)ctx, (long)(hi - lo), __ATOMIC_RELAXED);
}
static int pool_task(void *arg)
{
    long n = 0;
    _skel_pool_for(4, 16, 10000, add_body, &n);
    *(long *)arg = n;
    return SKEL_OK;
}
/* A stage that uses the pool from inside: a parallel-for and a task. */
static int pool_stage(skel_stream_worker *w, void *item, void **out)
{
    titem *it = (titem *)item;
    long n = 0, m = 0;
    _skel_task t;
    (void)w; (void)out;
    _skel_pool_submit(&t, pool_task, &m);
    _skel_pool_for(4, 16, 5000, add_body, &n);
    _skel_task_wait(&t);
    it->v = (uint64_t)(n + m);
    it->nstages = _skel_pool_threads();
    return SKEL_OK;
}

static void *pool_user(void *arg)
{
    int k;
    for (k = 0; k < 50; ++k) {
        long n = 0;
        _skel_pool_for(3, 12, 3000, add_body, &n);
        if (n != 3000) __atomic_store_n((int *)arg, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

SKEL_TEST(stream_threads_hold_reserved_pool_workers_and_others_still_run)
{
    skel_stream *s;
    skel_stream_desc d;
    trun r;
    pthread_t other;
    int a, f, bad = 0;
    long i;
    ST_OK(skel_stream_new(&s));
    a = skel_stream_stage(s, &(skel_stage_desc){ .name = "pool", .cpu = pool_stage });
    f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 6 });
    trun_init(&r, s, 60);
    d = tdesc(&r);
    ST_CHECK(pthread_create(&other, NULL, pool_user, &bad) == 0);
    ST_OK(skel_stream_run(s, f, &d));
    pthread_join(other, NULL);
    ST_EQ_INT(bad, 0);
    for (i = 0; i < r.n; ++i) {
        ST_EQ_INT(r.seen[i], 1);
        ST_EQ_UINT(r.out[i].v, 15000);
        /* the run's 7 other threads were reserved: the pool grew past them */
        ST_CHECK(r.out[i].nstages >= 7);
    }
    trun_free(&r);
    skel_stream_free(s);
}

SKEL_TEST(stream_starts_and_stops_many_times)
{
    static const int ids[] = { 1, 2 };
    int k;
    for (k = 0; k < 40; ++k) {
        skel_stream *s;
        skel_stream_desc d;
        trun r;
        int a, b, f, p;
        ST_OK(skel_stream_new(&s));
        a = tstage(s, "a", 1); b = tstage(s, "b", 2);
        f = skel_stream_farm(s, b, &(skel_farm_desc){ .cpu_workers = 1 + k % 4, .ordered = k & 1 });
        p = skel_stream_pipeline(s, 2, (int[]){ a, f });
        trun_init(&r, s, k % 7 * 3);
        d = tdesc(&r);
        d.queue = 1 + k % 3;
        ST_OK(skel_stream_run(s, p, &d));
        check_items(&r, ids, 2, k & 1);
        if (k % 10 == 9) _skel_pool_stop();
        trun_free(&r);
        skel_stream_free(s);
    }
}

SKEL_TEST(stream_runs_again_with_fresh_statistics)
{
    static const int ids[] = { 1 };
    skel_stream *s;
    skel_stream_desc d;
    skel_stream_stats st;
    trun r;
    int a, f, k;
    ST_OK(skel_stream_new(&s));
    a = tstage(s, "a", 1);
    f = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 3, .ordered = 1 });
    for (k = 0; k < 3; ++k) {
        trun_init(&r, s, 10 + k);
        d = tdesc(&r);
        ST_OK(skel_stream_run(s, f, &d));
        check_items(&r, ids, 1, 1);
        ST_OK(skel_stream_stats_get(s, &st));
        ST_EQ_INT(st.items, 10 + k);
        trun_free(&r);
    }
    skel_stream_free(s);
}

/* ---- GPU workers ---- */
SKEL_FUNC(float, twice_plus1, (float a), return 2.0f * a + 1.0f;)
SKEL_MAP(twice, twice_plus1, float, 1)

typedef struct gitem {
    long seq;
    skel_vec *v, *o;
    char backend[2][16];        /* where stage r's and stage p's calls ran */
    int gpu[2];                 /* whether a GPU worker ran them */
    int ok;
} gitem;

typedef struct gjob { long n, next; gitem *items; } gjob;

static int gsource(void *user, void **item)
{
    gjob *j = (gjob *)user;
    if (j->next >= j->n) return 0;
    *item = &j->items[j->next++];
    return 1;
}

/* A stage that maps v to o where its worker's calls run and notes where
   that was; user: 0 for r, 1 for p. */
static int gstage(skel_stream_worker *w, void *item, void **out)
{
    gitem *it = (gitem *)item;
    int k = (int)(intptr_t)w->user, rc;
    skel_call c;
    skel_variant v;
    const float *o;
    (void)out;
    memset(&c, 0, sizeof c);
    c.in[0] = it->v;
    c.out = it->o;
    if ((rc = skel_choose(twice, &c, &v)) != SKEL_OK || (rc = skel_run(twice, &c)) != SKEL_OK) return rc;
    snprintf(it->backend[k], sizeof it->backend[k], "%s", v.backend);
    it->gpu[k] = w->gpu;
    if (!(o = (const float *)skel_read(it->o))) return SKEL_EDEVICE;
    it->ok = o[it->seq % 1000] == 2.0f * (float)it->seq + 1.0f && o[999 - it->seq % 1000] == 1.0f;
    return SKEL_OK;
}

SKEL_TEST(stream_gpu_workers_run_their_skeleton_calls_on_their_gpu)
{
    int vi, tested = 0;
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const char *b = st_variant_get(vi)->v.backend;
        skel_stream *s;
        skel_stream_worker_stats ws;
        skel_stream_stats st;
        gjob j;
        int r, p, f, i, gpu_items = 0;
        if (_skel_place_find(b) <= 0) continue;    /* a CPU backend, or cuda-check (computes on the host) */
        st_context("GPU workers on %s", b);
        memset(&j, 0, sizeof j);
        j.n = 40;
        ST_CHECK((j.items = (gitem *)calloc((size_t)j.n, sizeof *j.items)) != NULL);
        for (i = 0; i < j.n; ++i) {
            float *x;
            j.items[i].seq = i;
            ST_OK(skel_vec_new(&j.items[i].v, SKEL_FLOAT, 1000));
            ST_OK(skel_vec_new(&j.items[i].o, SKEL_FLOAT, 1000));
            x = (float *)skel_write(j.items[i].v);
            x[i % 1000] = (float)i;
        }
        ST_OK(skel_stream_new(&s));
        /* Farm(r | p): r has no GPU function (the host, in every copy); p runs on the GPU in GPU copies */
        r = skel_stream_stage(s, &(skel_stage_desc){ .name = "r", .cpu = gstage, .user = (void *)0 });
        p = skel_stream_stage(s, &(skel_stage_desc){ .name = "p", .cpu = gstage, .gpu = gstage, .user = (void *)1 });
        f = skel_stream_farm(s, skel_stream_pipeline(s, 2, (int[]){ r, p }),
                             &(skel_farm_desc){ .cpu_workers = 1, .gpu_workers = 2, .gpus = b });
        ST_OK(skel_stream_run(s, f, &(skel_stream_desc){ .source = gsource, .user = &j }));
        for (i = 0; i < j.n; ++i) {
            gitem *it = &j.items[i];
            if (!it->ok) ST_FAIL("item %d: wrong result", i);
            if (it->gpu[0] || (strcmp(it->backend[0], "seq") && strcmp(it->backend[0], "pool")))
                ST_FAIL("item %d: r ran on %s (a GPU worker: %d)", i, it->backend[0], it->gpu[0]);
            if (it->gpu[1] != !strcmp(it->backend[1], b))
                ST_FAIL("item %d: p ran on %s, by a %s worker", i, it->backend[1], it->gpu[1] ? "GPU" : "CPU");
            gpu_items += it->gpu[1];
            skel_free(it->v);
            skel_free(it->o);
        }
        ST_CHECK(gpu_items > 0);
        ST_OK(skel_stream_stats_get(s, &st));
        for (i = 0; i < st.workers; ++i) {
            ST_OK(skel_stream_worker_stats_get(s, i, &ws));
            if (ws.gpu) ST_CHECK(strncmp(ws.place, b, strlen(b)) == 0);
        }
        free(j.items);
        skel_stream_free(s);
        ++tested;
    }
    if (!tested) {      /* (SKEL_TEST_BACKENDS may leave them out: the ThreadSanitizer run) */
        const char *req = getenv("SKEL_REQUIRE");
        if (req && ((strstr(req, "cuda") && !skel_backend_available("cuda")) ||
                    (strstr(req, "opencl") && !skel_backend_available("opencl"))))
            ST_FAIL("SKEL_REQUIRE=%s, but that GPU backend is not here", req);
        ST_SKIP("no GPU backend here (or SKEL_TEST_BACKENDS leaves them out)");
    }
}
