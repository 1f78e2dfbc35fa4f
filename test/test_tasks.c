/* Tasks and scheduling (skel.h, "places", "trace", "tasks"): place
   binding, the trace file, asynchronous calls and their dependencies,
   failures, waits, every policy, user tasks and the Farm.  Everything
   here also runs under ThreadSanitizer (make test-tsan) and ASan. */
#define _GNU_SOURCE                 /* setenv, clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

int _skel_place_count(void);
int _skel_place_backend(int p);
const char *_skel_place_name(int p);
int _skel_place_find(const char *name);
int _skel_link_cost(int from, int to, size_t bytes, double *t);
int _skel_place_bind(int p);
int _skel_place_bound(void);
int _skel_trace_on(void);
void _skel_trace_lane(const char *fmt, ...);
void _skel_trace_event(int kind, int place, int from, double t0, double t1, uint64_t bytes, int flags, const char *name);
int _skel_trace_flush(void);
double _skel_now(void);

SKEL_FUNC(float, tk_twice, (float a), return 2 * a;)
SKEL_MAP(tk_map2x, tk_twice, float, 1)

/* ---- places ---- */

SKEL_TEST(place_binding_moves_calls_to_the_bound_place)
{
    skel_vec *a, *r;
    skel_variant v;
    skel_plan *plan;
    int cl, old;
    ST_OK(skel_vec_new(&a, SKEL_FLOAT, 1000));
    ST_OK(skel_vec_new(&r, SKEL_FLOAT, 1000));
    ST_EQ_INT(_skel_place_find("host"), 0);
    ST_EQ_INT(_skel_place_bound(), -1);
    /* the host place takes the call a plan gives a GPU, and runs it on a CPU backend */
    cl = _skel_place_find("opencl");
    if (cl > 0) {
        ST_EQ_INT(_skel_place_find("opencl:0"), cl);
        ST_OK(skel_plan_new(&plan));
        ST_OK(skel_plan_add(plan, 0, (size_t)-1, &(skel_variant){ .backend = "opencl" }));
        ST_OK(skel_set_plan(tk_map2x, plan));
        ST_OK(skel_choose(tk_map2x, &(skel_call){ .in = { a }, .out = r }, &v));
        ST_CHECK(strcmp(v.backend, "opencl") == 0);
        old = _skel_place_bind(0);
        ST_EQ_INT(old, -1);
        ST_OK(skel_choose(tk_map2x, &(skel_call){ .in = { a }, .out = r }, &v));
        ST_CHECK(strcmp(v.backend, "seq") == 0);    /* 1000 elements: below the parallel threshold */
        _skel_place_bind(old);
        ST_OK(skel_set_plan(tk_map2x, NULL));
        skel_plan_free(plan);
        /* a thread bound to the OpenCL place runs there without a plan */
        _skel_place_bind(cl);
        ST_EQ_INT(_skel_place_bound(), cl);
        ST_OK(skel_choose(tk_map2x, &(skel_call){ .in = { a }, .out = r }, &v));
        ST_CHECK(strcmp(v.backend, "opencl") == 0);
        ST_OK(skel_map1(tk_map2x, r, a));
        _skel_place_bind(-1);
    }
    ST_OK(skel_choose(tk_map2x, &(skel_call){ .in = { a }, .out = r }, &v));
    ST_CHECK(strcmp(v.backend, "seq") == 0);
    ST_EQ_INT(_skel_place_find("nowhere"), -1);
    ST_EQ_INT(_skel_place_find(NULL), -1);
    skel_free(a);
    skel_free(r);
}

/* ---- the trace ---- */

SKEL_TEST_HIDDEN(child_trace_records_lanes_events_and_copies)
{
    skel_vec *a, *r;
    int cl = _skel_place_find("opencl");
    double t0;
    ST_CHECK(_skel_trace_on());
    ST_OK(skel_vec_new_fill(&a, SKEL_FLOAT, 4096, &(float){ 1.5f }));
    ST_OK(skel_vec_new(&r, SKEL_FLOAT, 4096));
    _skel_trace_lane("main %d", 7);
    /* one clock reading: the order in which arguments are evaluated is
       unspecified (gcc took the end first; under ThreadSanitizer more than
       1 us passed before the start, and the tool refused the event) */
    t0 = _skel_now();
    _skel_trace_event('S', 0, -1, t0, t0 + 1e-6, 0, 0, "stage with spaces");
    if (cl > 0) {
        _skel_place_bind(cl);
        ST_OK(skel_map1(tk_map2x, r, a));
        _skel_place_bind(-1);
        ST_CHECK(((const float *)skel_read(r))[4095] == 3.0f);
    }
    ST_OK(_skel_trace_flush());
    skel_free(a);
    skel_free(r);
}

/* tools/skel_trace (when built: make all) sums the file up and draws it;
   a file that is no trace is refused. */
static void trace_tool_reads(const char *path)
{
    char cmd[1024], sum[300], svg[300], line[512];
    int lane = 0, link = 0, open_ = 0, close_ = 0;
    FILE *f;
    if (access("build/skel_trace", X_OK) != 0) return;
    snprintf(sum, sizeof sum, "%s.sum", path);
    snprintf(svg, sizeof svg, "%s.svg", path);
    snprintf(cmd, sizeof cmd, "build/skel_trace --svg %s %s >%s 2>&1", svg, path, sum);
    ST_EQ_INT(system(cmd), 0);
    ST_CHECK((f = fopen(sum, "r")) != NULL);
    while (f && fgets(line, sizeof line, f)) {
        lane += strstr(line, "main 7") != NULL && strstr(line, "1 tasks") != NULL;
        link += strstr(line, "host       -> opencl") != NULL && strstr(line, "16384 bytes in      1 copies") != NULL;
    }
    if (f) fclose(f);
    ST_EQ_INT(lane, 1);
    ST_EQ_INT(link, _skel_place_find("opencl") > 0);
    ST_CHECK((f = fopen(svg, "r")) != NULL);
    while (f && fgets(line, sizeof line, f)) { open_ += strncmp(line, "<svg ", 5) == 0; close_ += strcmp(line, "</svg>\n") == 0; }
    if (f) fclose(f);
    ST_EQ_INT(open_, 1);
    ST_EQ_INT(close_, 1);
    snprintf(cmd, sizeof cmd, "build/skel_trace %s >/dev/null 2>&1", sum);   /* not a trace */
    ST_CHECK(WEXITSTATUS(system(cmd)) == 1);
    unlink(sum);
    unlink(svg);
}

SKEL_TEST(trace_file_names_lanes_events_and_copies)
{
    char path[256], envs[300], line[512], out[4096];
    const char *env[2];
    FILE *f;
    int lanes = 0, stage = 0, copies = 0, header = 0, rc;
    snprintf(path, sizeof path, "/tmp/skel_trace_test_%d.txt", (int)getpid());
    snprintf(envs, sizeof envs, "SKEL_TRACE=%s", path);
    env[0] = envs; env[1] = NULL;
    rc = st_child("child_trace_records_lanes_events_and_copies", env, 60, out, sizeof out);
    if (rc != 0) ST_FAIL("child failed (%d): %s", rc, out);
    ST_CHECK((f = fopen(path, "r")) != NULL);
    while (fgets(line, sizeof line, f)) {
        header += strcmp(line, "skeltrace 1\n") == 0;
        lanes += strncmp(line, "lane 0 main 7", 13) == 0;
        stage += strstr(line, " S 0 -1 ") && strstr(line, " stage with spaces\n");
        copies += strncmp(line, "ev 0 C ", 7) == 0 && strstr(line, " 16384 ") != NULL;
    }
    fclose(f);
    trace_tool_reads(path);
    unlink(path);
    ST_EQ_INT(header, 1);
    ST_EQ_INT(lanes, 1);
    ST_EQ_INT(stage, 1);
    /* with an OpenCL place: the upload of a and the download of r */
    if (_skel_place_find("opencl") > 0) ST_EQ_INT(copies, 2);
    else ST_EQ_INT(copies, 0);
}

SKEL_TEST(trace_is_off_without_skel_trace)
{
    ST_CHECK(!_skel_trace_on() || getenv("SKEL_TRACE"));
    ST_OK(_skel_trace_flush());
}

/* ---- asynchronous calls and user tasks ---- */

#include <pthread.h>
#include <time.h>

SKEL_FUNC(uint32_t, tk_add, (uint32_t a, uint32_t b), return a + b;)
SKEL_FUNC(uint32_t, tk_mul3, (uint32_t a), return 3u * a + 1u;)
SKEL_FUNC(uint32_t, tk_nb, (const uint32_t *a), return a[-1] + 2u * a[0] + 5u * a[1];)
SKEL_MAP(tk_addu, tk_add, uint32_t, 2)
SKEL_MAP(tk_mulu, tk_mul3, uint32_t, 1)
SKEL_OVERLAP(tk_nbu, tk_nb, uint32_t, 1)
SKEL_SCAN(tk_scanu, tk_add, uint32_t)
SKEL_REDUCE(tk_sumu, tk_add, uint32_t)

static const char *const POLICIES[] = { "dmda", "eager", "ws", "static" };
#define NPOL 4

static void sched(const char *policy, const char *places, int workers)
{
    ST_OK(skel_sched_set(&(skel_sched_desc){ .policy = policy, .places = places, .cpu_workers = workers, .nofile = 1 }));
}

static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static skel_vec *uvec(size_t n, uint32_t seed)
{
    skel_vec *v;
    uint32_t *p;
    size_t i;
    ST_OK(skel_vec_new(&v, SKEL_UINT32, n));
    p = (uint32_t *)skel_write(v);
    for (i = 0; i < n; ++i) p[i] = seed * 2654435761u + (uint32_t)i * 40503u + 7u;
    return v;
}

/* user tasks: data[0] is written (or read), arg says how */
typedef struct tk_arg { long sleep_us; uint32_t value; int ran; int fail; } tk_arg;

static int tk_fill(skel_vec *const *d, void *arg)  /* data[0] = value, after a nap */
{
    tk_arg *a = (tk_arg *)arg;
    uint32_t *p;
    size_t i;
    nap_us(a->sleep_us);
    __atomic_add_fetch(&a->ran, 1, __ATOMIC_SEQ_CST);
    if (a->fail) return SKEL_EINVAL;
    p = (uint32_t *)skel_write(d[0]);
    for (i = 0; i < skel_size(d[0]); ++i) p[i] = a->value + (uint32_t)i;
    return SKEL_OK;
}

static int tk_copy(skel_vec *const *d, void *arg)  /* data[1] = data[0], after a nap */
{
    tk_arg *a = (tk_arg *)arg;
    const uint32_t *s;
    uint32_t *o;
    nap_us(a->sleep_us);
    __atomic_add_fetch(&a->ran, 1, __ATOMIC_SEQ_CST);
    s = (const uint32_t *)skel_read(d[0]);
    o = (uint32_t *)skel_write(d[1]);
    memcpy(o, s, skel_size(d[0]) * sizeof *o);
    return SKEL_OK;
}

static void submit_task(int (*fn)(skel_vec *const *, void *), tk_arg *a, skel_vec *d0, int m0, skel_vec *d1, int m1)
{
    ST_OK(skel_task_submit(&(skel_task_desc){ .name = fn == tk_fill ? "fill" : "copy", .cpu = fn,
                                              .data = { d0, d1 }, .mode = { m0, d1 ? m1 : 0 }, .arg = a }));
}

SKEL_TEST(tasks_follow_read_after_write_write_after_read_and_write_after_write)
{
    int p;
    for (p = 0; p < NPOL; ++p) {
        skel_vec *x = uvec(1000, 1), *y = uvec(1000, 2), *z = uvec(1000, 3);
        tk_arg slow = { 20000, 100, 0, 0 }, fast = { 0, 7, 0, 0 }, cp = { 20000, 0, 0, 0 };
        const uint32_t *r;
        uint32_t old0;
        size_t i;
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host", 3);
        /* RAW: the map reads what the slow task wrote */
        submit_task(tk_fill, &slow, x, SKEL_WRITE, NULL, 0);
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { x }, .out = y }));
        ST_CHECK((r = (const uint32_t *)skel_read(y)) != NULL);
        for (i = 0; i < 1000; ++i) ST_EQ_UINT(r[i], 3u * (100u + (uint32_t)i) + 1u);
        /* WAR: the slow copy reads x before the fill after it overwrites it */
        old0 = ((const uint32_t *)skel_read(x))[0];
        submit_task(tk_copy, &cp, x, SKEL_READ, z, SKEL_WRITE);
        submit_task(tk_fill, &fast, x, SKEL_WRITE, NULL, 0);
        ST_CHECK((r = (const uint32_t *)skel_read(z)) != NULL);
        ST_EQ_UINT(r[0], old0);
        ST_EQ_UINT(((const uint32_t *)skel_read(x))[5], 12u);
        /* WAW: the last writer wins, whichever is faster */
        submit_task(tk_fill, &slow, x, SKEL_WRITE, NULL, 0);
        submit_task(tk_fill, &fast, x, SKEL_WRITE, NULL, 0);
        ST_OK(skel_wait(x));
        ST_EQ_UINT(((const uint32_t *)skel_read(x))[9], 16u);
        ST_EQ_INT(slow.ran, 2);
        ST_OK(skel_wait_all());
        skel_free(x); skel_free(y); skel_free(z);
    }
    st_context("");
}

/* Two tasks that each wait for the other to have started: they finish
   only when they really run at the same time. */
typedef struct tk_meet { int started, met; } tk_meet;
static int tk_meet_fn(skel_vec *const *d, void *arg)
{
    tk_meet *m = (tk_meet *)arg;
    double end = _skel_now() + 5;
    (void)d;
    __atomic_add_fetch(&m->started, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&m->started, __ATOMIC_SEQ_CST) < 2 && _skel_now() < end) nap_us(100);
    if (__atomic_load_n(&m->started, __ATOMIC_SEQ_CST) >= 2) __atomic_add_fetch(&m->met, 1, __ATOMIC_SEQ_CST);
    return SKEL_OK;
}

SKEL_TEST(tasks_independent_tasks_really_overlap)
{
    int p;
    for (p = 0; p < NPOL; ++p) {
        tk_meet m = { 0, 0 };
        skel_vec *a = uvec(10, 1), *b = uvec(10, 2);
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host", 2);
        ST_OK(skel_task_submit(&(skel_task_desc){ .name = "meet", .cpu = tk_meet_fn, .data = { a }, .mode = { SKEL_WRITE }, .arg = &m }));
        ST_OK(skel_task_submit(&(skel_task_desc){ .name = "meet", .cpu = tk_meet_fn, .data = { b }, .mode = { SKEL_WRITE }, .arg = &m }));
        ST_OK(skel_wait_all());
        ST_EQ_INT(m.met, 2);
        skel_free(a); skel_free(b);
    }
    st_context("");
}

/* Tasks a worker's finish makes ready, and free tasks, reach idle
   workers with nobody waiting (the waiter would run one itself): three
   readers of what one task wrote, then three free tasks, must each meet
   on three CPU workers.  A worker that finishes a task and takes the next
   at once leaves out one wake-up (skel.h, _skel_rt_kick's defer); the
   others must still be woken.  Workers are pool tasks: the pool gets
   three threads first (it starts with one per CPU but one). */
typedef struct tk_meet3 { int started, met; } tk_meet3;
static int tk_meet3_fn(skel_vec *const *d, void *arg)
{
    tk_meet3 *m = (tk_meet3 *)arg;
    double end = _skel_now() + 5;
    (void)d;
    __atomic_add_fetch(&m->started, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&m->started, __ATOMIC_SEQ_CST) < 3 && _skel_now() < end) nap_us(100);
    if (__atomic_load_n(&m->started, __ATOMIC_SEQ_CST) >= 3) __atomic_add_fetch(&m->met, 1, __ATOMIC_SEQ_CST);
    return SKEL_OK;
}

static void meet3_poll(tk_meet3 *m)
{
    double end = _skel_now() + 10;
    while (__atomic_load_n(&m->met, __ATOMIC_SEQ_CST) < 3 && _skel_now() < end) nap_us(200);
}

SKEL_TEST(tasks_ready_successors_and_free_tasks_reach_idle_workers)
{
    tk_arg w1 = { 0, 5, 0, 0 };
    int p, i;
    _skel_pool_wake(4);
    for (p = 0; p < NPOL; ++p) {
        tk_meet3 m = { 0, 0 }, f = { 0, 0 };
        skel_vec *x = uvec(10, 1);
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host", 3);
        submit_task(tk_fill, &w1, x, SKEL_WRITE, NULL, 0);
        for (i = 0; i < 3; ++i)
            ST_OK(skel_task_submit(&(skel_task_desc){ .name = "meet3", .cpu = tk_meet3_fn, .data = { x }, .mode = { SKEL_READ }, .arg = &m }));
        meet3_poll(&m);
        ST_EQ_INT(__atomic_load_n(&m.met, __ATOMIC_SEQ_CST), 3);
        for (i = 0; i < 3; ++i) ST_OK(skel_task_submit(&(skel_task_desc){ .name = "meet3 free", .cpu = tk_meet3_fn, .arg = &f }));
        meet3_poll(&f);
        ST_EQ_INT(__atomic_load_n(&f.met, __ATOMIC_SEQ_CST), 3);
        ST_OK(skel_wait_all());
        skel_free(x);
    }
    st_context("");
}

/* ---- random programs: asynchronous against sequential ---- */
#define DAG_VECS 8
#define DAG_N 257
static int tk_rot(skel_vec *const *d, void *arg)   /* data[1][i] = data[0][(i + 1) % n] ^ 0x55 */
{
    const uint32_t *s = (const uint32_t *)skel_read(d[0]);
    uint32_t *o, tmp[DAG_N];
    size_t i, n = skel_size(d[0]);
    (void)arg;
    for (i = 0; i < n; ++i) tmp[i] = s[(i + 1) % n] ^ 0x55u;
    o = (uint32_t *)skel_write(d[1]);
    memcpy(o, tmp, n * sizeof *o);
    return SKEL_OK;
}

/* Op k of the program seeded `seed` on vecs; async submits it, else runs it now. */
static void dag_op(skel_vec **v, skel_vec **sums, uint64_t *rng, int async)
{
    int op = (int)st_rand_int(rng, 0, 5), a = (int)st_rand_int(rng, 0, DAG_VECS - 1), b = (int)st_rand_int(rng, 0, DAG_VECS - 1);
    int o = (int)st_rand_int(rng, 0, DAG_VECS - 1), s = (int)st_rand_int(rng, 0, 3);
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = v[a]; c.out = v[o];
    switch (op) {
    case 0: c.in[1] = v[b]; ST_OK(async ? skel_submit(tk_addu, &c) : skel_run(tk_addu, &c)); break;
    case 1: ST_OK(async ? skel_submit(tk_mulu, &c) : skel_run(tk_mulu, &c)); break;
    case 2: c.edge = SKEL_EDGE_CYCLIC; ST_OK(async ? skel_submit(tk_nbu, &c) : skel_run(tk_nbu, &c)); break;
    case 3: ST_OK(async ? skel_submit(tk_scanu, &c) : skel_run(tk_scanu, &c)); break;
    case 4: c.out = sums[s]; ST_OK(async ? skel_submit(tk_sumu, &c) : skel_run(tk_sumu, &c)); break;
    default: {
        skel_task_desc t;
        memset(&t, 0, sizeof t);
        t.name = "rot"; t.cpu = tk_rot; t.data[0] = v[a]; t.mode[0] = SKEL_READ; t.data[1] = v[o];
        t.mode[1] = a == o ? SKEL_READ_WRITE : SKEL_WRITE;
        if (async) ST_OK(skel_task_submit(&t));
        else ST_OK(tk_rot(t.data, NULL));
    }
    }
}

static void dag_run(uint64_t seed, int ops, int async, uint32_t *out)
{
    skel_vec *v[DAG_VECS], *sums[4];
    uint64_t rng = seed;
    int i;
    for (i = 0; i < DAG_VECS; ++i) v[i] = uvec(DAG_N, (uint32_t)i + 1);
    for (i = 0; i < 4; ++i) ST_OK(skel_vec_new(&sums[i], SKEL_UINT32, 1));
    for (i = 0; i < ops; ++i) dag_op(v, sums, &rng, async);
    for (i = 0; i < DAG_VECS; ++i) {
        const uint32_t *r = (const uint32_t *)skel_read(v[i]);
        ST_CHECK(r != NULL);
        memcpy(out + (size_t)i * DAG_N, r, DAG_N * sizeof *out);
    }
    for (i = 0; i < 4; ++i) {
        const uint32_t *r = (const uint32_t *)skel_read(sums[i]);
        ST_CHECK(r != NULL);
        out[(size_t)DAG_VECS * DAG_N + (size_t)i] = r[0];
    }
    for (i = 0; i < DAG_VECS; ++i) skel_free(v[i]);
    for (i = 0; i < 4; ++i) skel_free(sums[i]);
}

SKEL_TEST(tasks_random_programs_of_1000_calls_match_sequential_runs)
{
    static uint32_t ref[DAG_VECS * DAG_N + 4], got[DAG_VECS * DAG_N + 4];
    int p, k;
    for (k = 0; k < 2; ++k) {
        uint64_t seed = st_seed("dag", (size_t)k, 1000);
        dag_run(seed, 1000, 0, ref);
        for (p = 0; p < NPOL; ++p) {
            size_t i;
            st_context("program %d, policy %s", k, POLICIES[p]);
            sched(POLICIES[p], "host", 3);
            dag_run(seed, 1000, 1, got);
            ST_OK(skel_wait_all());
            for (i = 0; i < sizeof ref / sizeof *ref; ++i)
                if (ref[i] != got[i]) ST_FAIL("element %zu: %u, sequentially %u", i, got[i], ref[i]);
        }
    }
    st_context("");
}

SKEL_TEST(tasks_random_programs_on_the_host_and_opencl_match_sequential_runs)
{
    static uint32_t ref[DAG_VECS * DAG_N + 4], got[DAG_VECS * DAG_N + 4];
    int p;
    uint64_t seed = st_seed("dag-cl", 3, 300);
    if (_skel_place_find("opencl") < 0) ST_SKIP("no OpenCL place");
    dag_run(seed, 300, 0, ref);
    for (p = 0; p < NPOL; ++p) {
        size_t i;
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host,opencl", 2);
        dag_run(seed, 300, 1, got);
        ST_OK(skel_wait_all());
        for (i = 0; i < sizeof ref / sizeof *ref; ++i)
            if (ref[i] != got[i]) ST_FAIL("element %zu: %u, sequentially %u", i, got[i], ref[i]);
    }
    st_context("");
}

/* ---- failures ---- */
SKEL_TEST(tasks_failure_is_reported_where_waited_and_dependents_are_not_run)
{
    int p;
    for (p = 0; p < NPOL; ++p) {
        skel_vec *x = uvec(100, 1), *y = uvec(100, 2), *z = uvec(100, 3), *a = uvec(100, 4), *w = uvec(100, 5);
        tk_arg bad = { 1000, 9, 0, 1 }, dep = { 0, 0, 0, 0 };
        const uint32_t *r;
        uint32_t x0 = ((const uint32_t *)skel_read(x))[0];
        size_t i;
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host", 2);
        ST_OK(skel_wait_all());
        submit_task(tk_fill, &bad, x, SKEL_WRITE, NULL, 0);           /* fails */
        submit_task(tk_copy, &dep, x, SKEL_READ, y, SKEL_WRITE);       /* not run */
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { y }, .out = z }));   /* not run */
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { a }, .out = w }));   /* runs */
        ST_EQ_INT(skel_wait(z), SKEL_EDEPEND);
        ST_CHECK(strstr(skel_last_error(), "not run") && strstr(skel_last_error(), "(fill) failed"));
        ST_EQ_INT(skel_wait(x), SKEL_EINVAL);
        ST_CHECK(strstr(skel_last_error(), "task #") && strstr(skel_last_error(), "(fill) failed"));
        ST_CHECK(skel_read(y) == NULL);
        ST_CHECK(strstr(skel_last_error(), "(copy) not run") != NULL);
        ST_OK(skel_wait(w));
        r = (const uint32_t *)skel_read(w);
        ST_CHECK(r != NULL);
        ST_EQ_UINT(r[0], 3u * ((const uint32_t *)skel_read(a))[0] + 1u);
        ST_EQ_INT(dep.ran, 0);
        ST_EQ_INT(bad.ran, 1);
        ST_EQ_INT(skel_wait_all(), SKEL_EINVAL);        /* the first failure, once */
        ST_CHECK(strstr(skel_last_error(), "(fill) failed") != NULL);
        ST_OK(skel_wait_all());
        /* nothing was half-written: x holds what it held; writing it clears the failure */
        r = (const uint32_t *)skel_write(x);
        ST_EQ_UINT(r[0], x0);
        ST_CHECK(skel_read(x) != NULL);
        ST_OK(skel_run(tk_mulu, &(skel_call){ .in = { x }, .out = y }));   /* a successful write clears y */
        ST_CHECK(skel_read(y) != NULL);
        for (i = 0; i < 100; ++i) ST_EQ_UINT(((const uint32_t *)skel_read(y))[i], 3u * ((const uint32_t *)skel_read(x))[i] + 1u);
        ST_EQ_INT(skel_run(tk_mulu, &(skel_call){ .in = { z }, .out = a }), SKEL_EDEPEND);   /* z still failed */
        skel_free(x); skel_free(y); skel_free(z); skel_free(a); skel_free(w);
    }
    st_context("");
}

SKEL_TEST(tasks_bad_submissions_are_refused_at_once)
{
    skel_vec *a = uvec(10, 1), *m;
    sched("dmda", "host", 2);
    ST_OK(skel_mat_new(&m, SKEL_UINT32, 2, 5));
    ST_EQ_INT(skel_submit(NULL, &(skel_call){ .in = { a }, .out = a }), SKEL_EINVAL);
    ST_EQ_INT(skel_submit(tk_mulu, &(skel_call){ .in = { a }, .out = m }), SKEL_ESHAPE);
    ST_EQ_INT(skel_task_submit(NULL), SKEL_EINVAL);
    ST_EQ_INT(skel_task_submit(&(skel_task_desc){ .cpu = tk_rot }), SKEL_EINVAL);
    ST_EQ_INT(skel_task_submit(&(skel_task_desc){ .name = "x" }), SKEL_EINVAL);
    ST_EQ_INT(skel_task_submit(&(skel_task_desc){ .name = "x", .cpu = tk_rot, .data = { a }, .mode = { 7 } }), SKEL_EINVAL);
    ST_EQ_INT(skel_task_submit(&(skel_task_desc){ .name = "x", .cpu = tk_rot, .mode = { SKEL_READ } }), SKEL_EINVAL);
    ST_EQ_INT(skel_task_submit(&(skel_task_desc){ .name = "gpu only", .gpu = tk_rot, .data = { a }, .mode = { SKEL_READ } }), SKEL_EBACKEND);
    ST_EQ_INT(skel_sched_set(&(skel_sched_desc){ .policy = "fastest" }), SKEL_EINVAL);
    ST_EQ_INT(skel_sched_set(&(skel_sched_desc){ .places = "host,mars" }), SKEL_EINVAL);
    ST_EQ_INT(skel_sched_set(&(skel_sched_desc){ .cpu_workers = -1 }), SKEL_EINVAL);
    ST_OK(skel_wait_all());
    skel_free(a);
    skel_free(m);
}

/* ---- waits from many threads ---- */
#define WT_THREADS 8
typedef struct wt_arg { skel_vec *shared; uint32_t expect; int ok; } wt_arg;
static void *wt_main(void *p)
{
    wt_arg *w = (wt_arg *)p;
    skel_vec *v, *t;
    const uint32_t *r;
    uint32_t x = 5;
    int k;
    if (skel_vec_new_fill(&v, SKEL_UINT32, 500, &x) != SKEL_OK || skel_vec_new(&t, SKEL_UINT32, 500) != SKEL_OK) return NULL;
    for (k = 0; k < 40; ++k) {      /* a chain of its own: v = 3v + 1, through t */
        if (skel_submit(tk_mulu, &(skel_call){ .in = { k % 2 ? t : v }, .out = k % 2 ? v : t }) != SKEL_OK) return NULL;
        x = 3u * x + 1u;
    }
    r = (const uint32_t *)skel_read(v);         /* waits for its own chain */
    w->ok = r && r[499] == x && skel_wait(t) == SKEL_OK;
    r = (const uint32_t *)skel_read(w->shared);  /* waits for the main thread's task */
    w->ok = w->ok && r && r[3] == w->expect;
    skel_free(v);
    skel_free(t);
    return NULL;
}

SKEL_TEST(tasks_waits_from_many_threads_see_their_results)
{
    pthread_t th[WT_THREADS];
    wt_arg w[WT_THREADS];
    tk_arg slow = { 30000, 1000, 0, 0 };
    skel_vec *shared = uvec(10, 9);
    int i, p;
    for (p = 0; p < NPOL; ++p) {
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host", 3);
        submit_task(tk_fill, &slow, shared, SKEL_WRITE, NULL, 0);
        for (i = 0; i < WT_THREADS; ++i) {
            w[i].shared = shared; w[i].expect = 1003; w[i].ok = 0;
            ST_CHECK(pthread_create(&th[i], NULL, wt_main, &w[i]) == 0);
        }
        for (i = 0; i < WT_THREADS; ++i) pthread_join(th[i], NULL);
        for (i = 0; i < WT_THREADS; ++i) ST_CHECK(w[i].ok);
        ST_OK(skel_wait_all());
    }
    skel_free(shared);
    st_context("");
}

/* ---- many threads submitting at once ---- */
/* Submitters and workers meet on the scheduler's mutex (taken with a
   spin), idle workers wait for pushes without it, waiters spin on
   finishes, and nodes are reused from a spare ring: eight threads submit
   at once, under every policy, empty tasks without data, a chain of
   read-write tasks on a container of their own, calls whose captured
   scalar changes right after submission (nodes not reused), and waits;
   every task must run exactly once, in its chain's order. */
#define MS_THREADS 8
#define MS_TASKS 600
typedef struct ms_arg { skel_vec *v, *in, *out; int ran, chain_bad, ok; } ms_arg;

static int ms_count(skel_vec *const *d, void *arg)
{
    (void)d;
    __atomic_add_fetch(&((ms_arg *)arg)->ran, 1, __ATOMIC_SEQ_CST);
    return SKEL_OK;
}

static int ms_step(skel_vec *const *d, void *arg)  /* v[0] counts its chain; v[1] is the step it expects */
{
    uint32_t *p = (uint32_t *)skel_write(d[0]);
    ms_arg *a = (ms_arg *)arg;
    if (p[0] != p[1]) a->chain_bad++;       /* only this chain's tasks write it: no race */
    p[0]++;
    p[1]++;
    return SKEL_OK;
}

static void *ms_main(void *p)
{
    ms_arg *a = (ms_arg *)p;
    const uint32_t *r;
    uint32_t init, want = 0;
    size_t j;
    int i, ok = 1;
    for (i = 0; i < MS_TASKS && ok; ++i) {
        ok = skel_task_submit(&(skel_task_desc){ .name = "count", .cpu = ms_count, .arg = a }) == SKEL_OK &&
             skel_task_submit(&(skel_task_desc){ .name = "step", .cpu = ms_step, .arg = a, .data = { a->v },
                                                 .mode = { SKEL_READ_WRITE } }) == SKEL_OK;
        if (ok && i % 50 == 7) {    /* out = init + exclusive prefix sums of in; init captured now */
            init = (uint32_t)i;
            ok = skel_submit(tk_scanu, &(skel_call){ .in = { a->in }, .out = a->out, .exclusive = 1, .init = &init }) == SKEL_OK;
            init = 12345u;
            want = (uint32_t)i;
        }
        if (ok && i % 100 == 99) ok = skel_wait(a->v) == SKEL_OK && skel_wait_all() == SKEL_OK;
    }
    ok = ok && skel_wait_all() == SKEL_OK;
    ok = ok && __atomic_load_n(&a->ran, __ATOMIC_SEQ_CST) == MS_TASKS;     /* every one, once */
    r = ok ? (const uint32_t *)skel_read(a->v) : NULL;
    ok = ok && r && r[0] == MS_TASKS && a->chain_bad == 0;
    r = ok ? (const uint32_t *)skel_read(a->out) : NULL;
    for (j = 0; ok && j < skel_size(a->out); ++j) {
        ok = r[j] == want;
        want += ((const uint32_t *)skel_read(a->in))[j];
    }
    a->ok = ok && r;
    return NULL;
}

SKEL_TEST(tasks_many_threads_submit_at_once_and_every_task_runs_once)
{
    pthread_t th[MS_THREADS];
    ms_arg a[MS_THREADS];
    skel_sched_stats st;
    int i, p;
    for (p = 0; p < NPOL; ++p) {
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host", 4);
        skel_sched_stats_reset();
        for (i = 0; i < MS_THREADS; ++i) {
            memset(&a[i], 0, sizeof a[i]);
            ST_OK(skel_vec_new_fill(&a[i].v, SKEL_UINT32, 2, &(uint32_t){ 0 }));
            a[i].in = uvec(37 + (size_t)i, (uint32_t)i);
            ST_OK(skel_vec_new(&a[i].out, SKEL_UINT32, 37 + (size_t)i));
        }
        for (i = 0; i < MS_THREADS; ++i) ST_CHECK(pthread_create(&th[i], NULL, ms_main, &a[i]) == 0);
        for (i = 0; i < MS_THREADS; ++i) pthread_join(th[i], NULL);
        for (i = 0; i < MS_THREADS; ++i) {
            ST_CHECK(a[i].ok);
            ST_EQ_INT(a[i].ran, MS_TASKS);
            ST_EQ_INT(a[i].chain_bad, 0);
            skel_free(a[i].v); skel_free(a[i].in); skel_free(a[i].out);
        }
        ST_OK(skel_wait_all());
        skel_sched_stats_get(&st);
        ST_EQ_INT((int)st.tasks, MS_THREADS * (2 * MS_TASKS + MS_TASKS / 50));
    }
    st_context("");
}

/* ---- free tasks: the ready ring ---- */
/* Tasks without containers go through a lock-free ring (skel.h,
   _skel_rt_submit_free): eight threads submit them at once under every
   policy, each task marking its own slot (every one must run exactly
   once), more than the ring holds without a wait (the submitter runs the
   oldest meanwhile), every 7th failing, and wait with skel_wait_all:
   each thread's wait must come after every task it submitted, and the
   failures must be reported. */
#define FR_THREADS 8
#define FR_TASKS 3000
typedef struct fr_arg { int slot[FR_TASKS]; int ok, failures, seen_fail; } fr_arg;

static int fr_mark(skel_vec *const *d, void *arg)
{
    (void)d;
    return __atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST) == 1 ? SKEL_OK : SKEL_EINVAL;
}

static int fr_mark_fail(skel_vec *const *d, void *arg)
{
    fr_mark(d, arg);
    return SKEL_EIO;
}

static void *fr_main(void *p)
{
    fr_arg *a = (fr_arg *)p;
    int i, k, ok = 1, rc, from = 0;
    for (i = 0; i < FR_TASKS && ok; ++i) {
        int fail = i % 7 == 3;
        ok = skel_task_submit(&(skel_task_desc){ .name = fail ? "fr fail" : "fr", .cpu = fail ? fr_mark_fail : fr_mark,
                                                 .arg = &a->slot[i] }) == SKEL_OK;
        a->failures += fail;
        if (ok && (i % 500 == 499 || i == FR_TASKS - 1)) {   /* 1500 and more submitted between waits */
            rc = skel_wait_all();
            if (rc == SKEL_EIO) a->seen_fail = 1;      /* the first failure since any thread's last wait */
            else if (rc != SKEL_OK) ok = 0;
            for (k = from; k <= i && ok; ++k) ok = __atomic_load_n(&a->slot[k], __ATOMIC_SEQ_CST) == 1;
            from = i + 1;
        }
    }
    a->ok = ok;
    return NULL;
}

SKEL_TEST(tasks_free_tasks_from_many_threads_run_once_and_report_failures)
{
    static fr_arg a[FR_THREADS];
    pthread_t th[FR_THREADS];
    skel_sched_stats st;
    int i, k, p, failures;
    for (p = 0; p < NPOL; ++p) {
        st_context("policy %s", POLICIES[p]);
        sched(POLICIES[p], "host", 1 + p);
        skel_sched_stats_reset();
        memset(a, 0, sizeof a);
        for (i = 0; i < FR_THREADS; ++i) ST_CHECK(pthread_create(&th[i], NULL, fr_main, &a[i]) == 0);
        for (i = 0, failures = 0; i < FR_THREADS; ++i) {
            pthread_join(th[i], NULL);
            failures += a[i].failures;
        }
        if (skel_wait_all() == SKEL_EIO) a[0].seen_fail = 1;     /* one no thread's wait took */
        for (i = 0, k = 0; i < FR_THREADS; ++i) k += a[i].seen_fail;
        ST_CHECK(k > 0);
        for (i = 0; i < FR_THREADS; ++i) {
            ST_CHECK(a[i].ok);
            for (k = 0; k < FR_TASKS; ++k) ST_EQ_INT(a[i].slot[k], 1);
        }
        ST_OK(skel_wait_all());
        skel_sched_stats_get(&st);
        ST_EQ_INT((int)st.tasks, FR_THREADS * FR_TASKS);
        ST_EQ_INT((int)st.failed, failures);
        ST_EQ_INT((int)(st.by_rule + st.by_model + st.calibrating), FR_THREADS * FR_TASKS);
    }
    /* one thread: wait_all reports the failure (with its task) once */
    sched("dmda", "host", 3);
    memset(&a[0], 0, sizeof a[0]);
    ST_OK(skel_task_submit(&(skel_task_desc){ .name = "fr fail", .cpu = fr_mark_fail, .arg = &a[0].slot[0] }));
    for (k = 1; k < 100; ++k) ST_OK(skel_task_submit(&(skel_task_desc){ .name = "fr", .cpu = fr_mark, .arg = &a[0].slot[k] }));
    ST_EQ_INT(skel_wait_all(), SKEL_EIO);
    ST_CHECK(strstr(skel_last_error(), "(fr fail) failed") != NULL);
    for (k = 0; k < 100; ++k) ST_EQ_INT(a[0].slot[k], 1);
    ST_OK(skel_wait_all());
    st_context("");
}

/* A free task submitted while the CPU workers give their threads back
   (they spin SKEL_POOL_SPIN_US for work, then stop) must still be run by
   a worker, with nobody waiting for it: its submitter starts one, or a
   stopping worker sees it (skel.h, _skel_rt_retire).  Submitted at
   varied delays around the spin, each task is polled for, without a wait,
   for up to 5 s. */
static int fr_flag(skel_vec *const *d, void *arg)
{
    (void)d;
    __atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST);
    return SKEL_OK;
}

SKEL_TEST(tasks_free_task_runs_without_a_wait_while_workers_stop)
{
    int i, k, flag, lost = 0;
    for (k = 0; k < 3; ++k) {
        sched(POLICIES[k], "host", 1 + k);
        for (i = 0; i < 60 && !lost; ++i) {
            double end;
            flag = 0;
            nap_us(40 + 7 * (i % 30));      /* 40 - 243 us: before, during and after the workers' spin */
            ST_OK(skel_task_submit(&(skel_task_desc){ .name = "flag", .cpu = fr_flag, .arg = &flag }));
            for (end = _skel_now() + 5; !__atomic_load_n(&flag, __ATOMIC_SEQ_CST) && _skel_now() < end;) nap_us(20);
            lost = !__atomic_load_n(&flag, __ATOMIC_SEQ_CST);
        }
        ST_CHECK(!lost);
        ST_OK(skel_wait_all());
    }
}

/* ---- the Farm ---- */
SKEL_TEST(tasks_farm_runs_calls_and_tasks_blocking_and_not)
{
    skel_farm *f;
    skel_vec *in[6], *out[6], *tv, *tv2;
    uint32_t sum = 0, want = 0;
    tk_arg fill = { 2000, 40, 0, 0 }, bad = { 0, 0, 0, 1 };
    int i, k, rep;
    size_t j;
    sched("dmda", "host", 3);
    ST_OK(skel_farm_new(&f));
    for (i = 0; i < 6; ++i) {
        in[i] = uvec(300 + 37 * (size_t)i, (uint32_t)i + 1);
        ST_OK(skel_vec_new(&out[i], SKEL_UINT32, 300 + 37 * (size_t)i));
        ST_OK(skel_farm_call(f, tk_mulu, &(skel_call){ .in = { in[i] }, .out = out[i] }));
    }
    ST_OK(skel_farm_call(f, tk_sumu, &(skel_call){ .in = { in[0] }, .result = &sum }));
    tv = uvec(50, 3);
    ST_OK(skel_farm_task(f, &(skel_task_desc){ .name = "fill", .cpu = tk_fill, .data = { tv }, .mode = { SKEL_WRITE }, .arg = &fill }));
    for (j = 0; j < skel_size(in[0]); ++j) want += ((const uint32_t *)skel_read(in[0]))[j];
    for (rep = 0; rep < 2; ++rep) {     /* a farm runs again */
        sum = 0;
        if (rep == 0) ST_OK(skel_farm_run(f));
        else {
            ST_OK(skel_farm_start(f));
            ST_EQ_INT(skel_farm_start(f), SKEL_EINVAL);     /* it runs already */
            ST_OK(skel_farm_join(f));
        }
        ST_EQ_UINT(sum, want);
        for (i = 0; i < 6; ++i)
            for (j = 0; j < skel_size(in[i]); ++j)
                ST_EQ_UINT(((const uint32_t *)skel_read(out[i]))[j], 3u * ((const uint32_t *)skel_read(in[i]))[j] + 1u);
        ST_EQ_UINT(((const uint32_t *)skel_read(tv))[7], 47u);
        ST_EQ_INT(fill.ran, rep + 1);
    }
    /* a failing member: the join says which; the others ran */
    tv2 = uvec(5, 1);
    ST_OK(skel_farm_task(f, &(skel_task_desc){ .name = "broken", .cpu = tk_fill, .data = { tv2 }, .mode = { SKEL_WRITE }, .arg = &bad }));
    ST_EQ_INT(skel_farm_run(f), SKEL_EINVAL);
    ST_CHECK(strstr(skel_last_error(), "farm: task #") && strstr(skel_last_error(), "(broken) failed"));
    ST_EQ_INT(fill.ran, 3);
    ST_EQ_INT(skel_wait_all(), SKEL_EINVAL);
    ST_OK(skel_wait_all());
    skel_farm_free(f);
    skel_farm_free(NULL);
    ST_EQ_INT(skel_farm_run(NULL), SKEL_EINVAL);
    ST_EQ_INT(skel_farm_call(NULL, tk_mulu, NULL), SKEL_EINVAL);
    for (k = 0; k < 6; ++k) { skel_free(in[k]); skel_free(out[k]); }
    skel_free(tv); skel_free(tv2);
}

/* ---- synchronous calls and host access order after submitted work ---- */
SKEL_TEST(tasks_synchronous_calls_follow_submitted_ones)
{
    skel_vec *x = uvec(100, 1), *y = uvec(100, 2);
    tk_arg slow = { 20000, 50, 0, 0 };
    sched("eager", "host", 2);
    submit_task(tk_fill, &slow, x, SKEL_WRITE, NULL, 0);
    ST_OK(skel_run(tk_mulu, &(skel_call){ .in = { x }, .out = y }));
    ST_EQ_UINT(((const uint32_t *)skel_read(y))[10], 3u * 60u + 1u);
    submit_task(tk_fill, &slow, x, SKEL_WRITE, NULL, 0);
    ((uint32_t *)skel_write(x))[0] = 7;     /* waits for the fill, then overwrites */
    ST_EQ_UINT(((const uint32_t *)skel_read(x))[0], 7u);
    ST_EQ_UINT(((const uint32_t *)skel_read(x))[1], 51u);
    submit_task(tk_fill, &slow, y, SKEL_WRITE, NULL, 0);
    skel_free(y);                           /* waits for the task writing it */
    ST_EQ_INT(slow.ran, 3);
    skel_free(x);
    ST_OK(skel_wait_all());
}

/* ---- shutdown ---- */
SKEL_TEST_HIDDEN(child_tasks_exit_with_pending_work)
{
    static tk_arg a = { 2000, 1, 0, 0 };
    static skel_vec *v[50];
    int i;
    sched("ws", "host", 2);
    for (i = 0; i < 50; ++i) {
        v[i] = uvec(100, (uint32_t)i);
        submit_task(tk_fill, &a, v[i], SKEL_WRITE, NULL, 0);
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { v[i] }, .out = v[i] }));
    }
    /* returns with work pending: the process exits through the pool's stop */
}

SKEL_TEST(tasks_process_exits_cleanly_with_pending_work)
{
    ST_CHILD_OK("child_tasks_exit_with_pending_work", NULL, 60);
}

SKEL_TEST(tasks_scheduler_restarts_many_times)
{
    int k, i;
    skel_vec *v = uvec(64, 1);
    uint32_t x = ((const uint32_t *)skel_read(v))[0];
    for (k = 0; k < 40; ++k) {
        sched(POLICIES[k % NPOL], "host", 1 + k % 3);
        for (i = 0; i < 5; ++i) {
            ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { v }, .out = v }));
            x = 3u * x + 1u;
        }
    }
    ST_EQ_UINT(((const uint32_t *)skel_read(v))[0], x);
    skel_free(v);
    ST_OK(skel_wait_all());
}

/* ---- performance models ---- */
double _skel_models_predict(const char *name, const char *place, uint64_t a, uint64_t b);

/* busy for arg->sleep_us microseconds */
static int tk_busy(skel_vec *const *d, void *arg)
{
    tk_arg *a = (tk_arg *)arg;
    double end = _skel_now() + 1e-6 * (double)a->sleep_us;
    (void)d;
    while (_skel_now() < end) {}
    __atomic_add_fetch(&a->ran, 1, __ATOMIC_SEQ_CST);
    return SKEL_OK;
}

static void busy_task(const char *name, tk_arg *a, size_t size)
{
    ST_OK(skel_task_submit(&(skel_task_desc){ .name = name, .cpu = tk_busy, .arg = a, .size = size }));
    ST_OK(skel_wait_all());
}

int _skel_models_add(const char *name, const char *place, uint64_t a, double seconds);

/* Runs teach the model (a busy wait takes at least its time: only the lower
   bound is checked, a loaded machine may stretch it); the rules -- outliers
   left out, lines through trusted sizes -- are checked on given times. */
SKEL_TEST(tasks_models_learn_reject_outliers_and_interpolate)
{
    tk_arg a = { 2000, 0, 0, 0 };
    double t;
    int k;
    ST_OK(skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host", .cpu_workers = 1, .calibrate = 4, .nofile = 1 }));
    ST_CHECK(_skel_models_predict("task learn", "host", 1000, 1) < 0);
    for (k = 0; k < 3; ++k) busy_task("learn", &a, 1000);
    ST_CHECK(_skel_models_predict("task learn", "host", 1000, 1) < 0);    /* 3 < calibrate: not trusted */
    busy_task("learn", &a, 1000);
    t = _skel_models_predict("task learn", "host", 1000, 1);
    ST_CHECK(t >= 0.002 && t < 1);
    ST_EQ_INT(a.ran, 4);

    ST_CHECK(_skel_models_predict("task rule", "host", 1000, 1) < 0);
    for (k = 0; k < 6; ++k) ST_CHECK(_skel_models_add("rule", "host", 1000, 0.002 + 1e-5 * k));
    ST_CHECK(fabs(_skel_models_predict("task rule", "host", 1000, 1) - 0.002025) < 1e-9);   /* the median */
    ST_CHECK(!_skel_models_add("rule", "host", 1000, 0.02));        /* one spike of 10 times: left out */
    ST_CHECK(!_skel_models_add("rule", "host", 1000, 0.0002));      /* and a dip */
    ST_CHECK(fabs(_skel_models_predict("task rule", "host", 1000, 1) - 0.002025) < 1e-9);
    ST_CHECK(_skel_models_add("rule", "host", 1000, 0.002025));     /* a usual one ends the run of outliers */
    for (k = 0; k < 3; ++k) ST_CHECK(!_skel_models_add("rule", "host", 1000, 0.02));
    ST_CHECK(_skel_models_add("rule", "host", 1000, 0.02));         /* the 4th in a row is the new normal */
    for (k = 0; k < 4; ++k) ST_CHECK(_skel_models_add("rule", "host", 3000, 0.006));
    for (k = 0; k < 16; ++k) ST_CHECK(_skel_models_add("rule", "host", 1000, 0.002));   /* the ring forgets */
    ST_CHECK(fabs(_skel_models_predict("task rule", "host", 1000, 1) - 0.002) < 1e-12);
    /* other sizes: the line through the trusted ones, between them and beyond */
    ST_CHECK(fabs(_skel_models_predict("task rule", "host", 2000, 1) - 0.004) < 1e-9);
    ST_CHECK(fabs(_skel_models_predict("task rule", "host", 4000, 1) - 0.008) < 1e-9);
    ST_CHECK(fabs(_skel_models_predict("task rule", "host", 500, 1) - 0.001) < 1e-9);
    ST_CHECK(fabs(_skel_models_predict("task rule", "host", 50, 1) - 0.0002) < 1e-9);    /* at least a tenth */
    ST_CHECK(_skel_models_predict("task rule", "opencl", 1000, 1) < 0);
    ST_CHECK(_skel_models_predict("task rule", "host", 5000, 1) > 0);
    ST_OK(skel_wait_all());
}

static int tk_where(skel_vec *const *d, void *arg)     /* records where it ran: 1 cpu, 2 gpu */
{
    tk_arg *a = (tk_arg *)arg;
    double end = _skel_now() + 1e-6 * (double)a->sleep_us;
    (void)d;
    while (_skel_now() < end) {}
    a->ran = 1;
    return SKEL_OK;
}
static int tk_where_gpu(skel_vec *const *d, void *arg)
{
    tk_arg *a = (tk_arg *)arg;
    double end = _skel_now() + 1e-6 * (double)a->sleep_us * 10;
    (void)d;
    while (_skel_now() < end) {}
    a->ran = 2;
    return SKEL_OK;
}

SKEL_TEST(tasks_models_dmda_calibrates_then_follows_the_models)
{
    tk_arg a = { 1000, 0, 0, 0 };
    skel_sched_stats st;
    int k, host = 0;
    if (_skel_place_find("opencl") < 0) ST_SKIP("no OpenCL place");
    ST_OK(skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host,opencl", .cpu_workers = 1, .calibrate = 3, .nofile = 1 }));
    skel_sched_stats_reset();
    for (k = 0; k < 16; ++k) {
        a.ran = 0;
        ST_OK(skel_task_submit(&(skel_task_desc){ .name = "where", .cpu = tk_where, .gpu = tk_where_gpu, .arg = &a, .size = 10 }));
        ST_OK(skel_wait_all());
        if (k >= 10) host += a.ran == 1;
    }
    skel_sched_stats_get(&st);
    ST_EQ_INT(host, 6);                 /* the host is 10 times faster: after calibration, there */
    ST_EQ_UINT(st.calibrating, 6);      /* 3 samples at each place */
    ST_EQ_UINT(st.by_model, 10);
    ST_EQ_UINT(st.tasks, 16);
    ST_CHECK(strcmp(st.policy, "dmda") == 0);
}

/* A chain of calls on one place copies its input there once and the result
   back once, not per call (StarPU users saw 65 times the bytes). */
SKEL_TEST(tasks_models_chains_move_each_operand_once)
{
    skel_vec *x = uvec(1 << 16, 4), *y;
    skel_sched_stats st;
    int cl = _skel_place_find("opencl"), k, p;
    if (cl < 0) ST_SKIP("no OpenCL place");
    ST_OK(skel_vec_new(&y, SKEL_UINT32, 1 << 16));
    for (p = 0; p < NPOL; ++p) {
        st_context("policy %s", POLICIES[p]);
        ST_OK(skel_write(x) != NULL ? SKEL_OK : SKEL_EINVAL);   /* on the host only */
        ST_OK(skel_sched_set(&(skel_sched_desc){ .policy = POLICIES[p], .places = "opencl", .nofile = 1 }));
        skel_sched_stats_reset();
        for (k = 0; k < 10; ++k) ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { k % 2 ? y : x }, .out = k % 2 ? x : y }));
        ST_CHECK(skel_read(x) != NULL);
        skel_sched_stats_get(&st);
        ST_EQ_UINT(st.bytes[0][cl], (uint64_t)4 << 16);     /* x up once */
        ST_EQ_UINT(st.bytes[cl][0], (uint64_t)4 << 16);     /* x down once */
        ST_EQ_UINT(st.place_tasks[cl], 10);
    }
    st_context("");
    ST_OK(skel_sched_set(NULL));
    skel_free(x);
    skel_free(y);
}

/* dmda looks ahead: a chain whose first call's input is on the host, where
   one call is cheaper than copying the input to the device but the whole
   chain is dearer, goes to the device (greedy: every call on the host).
   The plan's costs come from a model: host calls cost 0.9 of the input's
   copy (one call still stays on the host without the lookahead: the copy
   and the transfer weight cost 2c there), device calls a hundredth of it.
   (At half the copy a chain of 20 gains only about 8 copies on the
   device, little against the noise of link timings on a loaded machine:
   it went all to the host once in CI's ASan shards run side by side,
   2026-12-06, not reproduced alone.) */
static double tk_chain_cost(const skel_variant *v, const size_t *point, double *once, void *user)
{
    double c = *(const double *)user;
    (void)point; (void)once;
    return strcmp(v->backend, "opencl") == 0 ? 0.01 * c : 0.9 * c;
}

/* A user task that holds its data until *arg is set: the calls after it
   are all submitted before the first of them is ready. */
static int tk_gate(skel_vec *const *data, void *arg)
{
    (void)data;
    while (!__atomic_load_n((int *)arg, __ATOMIC_ACQUIRE)) nap_us(100);
    return SKEL_OK;
}

SKEL_TEST(tasks_dmda_looks_ahead_along_chains)
{
    const size_t n = 1 << 16;
    skel_vec *x = uvec(n, 7), *y, *z;
    skel_variant vars[2];
    skel_tune_desc d;
    skel_plan *plan;
    skel_sched_stats st;
    double c;
    int cl = _skel_place_find("opencl"), k, look, gate;
    uint32_t *x0;
    if (cl < 0) ST_SKIP("no OpenCL place");
    x0 = (uint32_t *)malloc(n * 4);
    ST_CHECK(x0 != NULL);
    ST_OK(skel_vec_new(&y, SKEL_UINT32, n));
    ST_OK(skel_vec_new(&z, SKEL_UINT32, n));
    ST_OK(_skel_link_cost(0, cl, n * 4, &c));
    memset(vars, 0, sizeof vars);
    vars[0].backend = "seq";
    vars[1].backend = "opencl";
    memset(&d, 0, sizeof d);
    d.id = "tasks-chain"; d.dims = 1; d.lower[0] = d.upper[0] = n;
    d.cost = tk_chain_cost; d.user = &c; d.variants = vars; d.nvariants = 2; d.nofile = 1; d.quiet = 1;
    ST_OK(skel_tune(&d, &plan));
    ST_OK(skel_set_plan(tk_mulu, plan));
    for (look = 0; look < 2; ++look) {
        st_context("lookahead %s", look ? "on" : "off");
        const uint32_t *px = (const uint32_t *)skel_write(x);      /* on the host only */
        size_t i;
        ST_CHECK(px != NULL);
        memcpy(x0, px, n * 4);
        ST_OK(skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host,opencl", .cpu_workers = 1,
                                                 .lookahead = look ? 0 : -1, .nofile = 1 }));
        skel_sched_stats_reset();
        gate = 0;
        ST_OK(skel_task_submit(&(skel_task_desc){ .name = "gate", .cpu = tk_gate, .arg = &gate, .data = { x },
                                                  .mode = { SKEL_READ_WRITE } }));
        for (k = 0; k < 20; ++k) ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { k % 2 ? y : x }, .out = k % 2 ? x : y }));
        __atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
        ST_OK(skel_run(tk_mulu, &(skel_call){ .in = { x }, .out = z }));    /* follows the chain */
        ST_OK(skel_wait_all());
        skel_sched_stats_get(&st);
        if (look) ST_EQ_UINT(st.place_tasks[cl], 20);
        else ST_EQ_UINT(st.place_tasks[0], 21);     /* the gate too */
        {   /* every call ran, in order: z = f^21(x) */
            const uint32_t *pz = (const uint32_t *)skel_read(z);
            ST_CHECK(pz != NULL);
            for (i = 0; pz && i < n; ++i) {
                uint32_t e = x0[i];
                for (k = 0; k < 21; ++k) e = 3u * e + 1u;
                if (pz[i] != e) ST_FAIL("element %zu: %u, expected %u", i, pz[i], e);
            }
        }
    }
    st_context("");
    skel_set_plan(tk_mulu, NULL);
    skel_plan_free(plan);
    ST_OK(skel_sched_set(NULL));
    skel_free(x); skel_free(y); skel_free(z);
    free(x0);
}

/* ---- deferred placement (dmda's defer_us) ---- */
static void sched_defer(int defer_us)
{
    ST_OK(skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host,opencl", .cpu_workers = 1,
                                             .defer_us = defer_us, .nofile = 1 }));
}

static int tk_flag(skel_vec *const *d, void *arg)       /* a user task both places run: sets *arg */
{
    (void)d;
    __atomic_store_n((int *)arg, 1, __ATOMIC_RELEASE);
    return SKEL_OK;
}

/* Calls ready at submission wait to be placed (a second long here): the
   64th of them places all that wait, a wait places the rest, and every
   call is placed and run exactly once. */
SKEL_TEST(tasks_deferred_placement_places_every_call_once)
{
    enum { N = 100 };
    skel_vec *x = uvec(1000, 3), *o[N], *o2[N];
    skel_sched_stats st;
    const uint32_t *px, *p;
    int i;
    size_t j;
    if (_skel_place_find("opencl") < 0) ST_SKIP("no OpenCL place");
    sched_defer(1000000);
    for (i = 0; i < N; ++i) {
        ST_OK(skel_vec_new(&o[i], SKEL_UINT32, 1000));
        ST_OK(skel_vec_new(&o2[i], SKEL_UINT32, 1000));
    }
    skel_sched_stats_reset();
    for (i = 0; i < N; ++i) ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { x }, .out = o[i] }));      /* ready */
    skel_sched_stats_get(&st);
    ST_EQ_UINT(st.deferred, 64);        /* the 64th placed them; the other 36 still wait */
    for (i = 0; i < N; ++i) ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { o[i] }, .out = o2[i] }));  /* ready if o[i] is done */
    ST_OK(skel_wait_all());
    skel_sched_stats_get(&st);
    ST_EQ_UINT(st.tasks, 2 * N);
    ST_CHECK(st.deferred >= N && st.deferred <= 2 * N);
    ST_EQ_UINT(st.by_model + st.calibrating + st.by_rule, 2 * N);
    ST_EQ_UINT(st.place_tasks[0] + st.place_tasks[_skel_place_find("opencl")], 2 * N);
    px = (const uint32_t *)skel_read(x);
    for (i = 0; i < N && px; ++i) {
        p = (const uint32_t *)skel_read(o2[i]);
        ST_CHECK(p != NULL);
        for (j = 0; p && j < 1000; ++j)
            if (p[j] != 3u * (3u * px[j] + 1u) + 1u) { ST_FAIL("call %d element %zu: %u", i, j, p[j]); break; }
    }
    for (i = 0; i < N; ++i) { skel_free(o[i]); skel_free(o2[i]); }
    skel_free(x);
    ST_OK(skel_sched_set(NULL));
}

/* A chain's first call is placed as soon as the calls after it fill the
   lookahead (64 by default), without a wait or the pause. */
SKEL_TEST(tasks_deferred_call_is_placed_once_its_lookahead_is_full)
{
    skel_vec *x = uvec(512, 4), *y;
    skel_sched_stats st;
    int k;
    if (_skel_place_find("opencl") < 0) ST_SKIP("no OpenCL place");
    ST_OK(skel_vec_new(&y, SKEL_UINT32, 512));
    sched_defer(1000000);
    skel_sched_stats_reset();
    for (k = 0; k < 64; ++k) ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { k % 2 ? y : x }, .out = k % 2 ? x : y }));
    skel_sched_stats_get(&st);
    ST_EQ_UINT(st.deferred, 0);         /* 63 follow the first */
    ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { x }, .out = y }));
    skel_sched_stats_get(&st);
    ST_EQ_UINT(st.deferred, 1);         /* 64: placed */
    ST_OK(skel_wait_all());
    skel_sched_stats_get(&st);
    ST_EQ_UINT(st.tasks, 65);
    ST_OK(skel_sched_set(NULL));
    skel_free(x); skel_free(y);
}

/* Every submission pushes the placement of what waits back by defer_us,
   not only ready ones: a chain's first call waits while the calls that
   follow it (none ready) keep coming, and is placed once they pause
   (before, it was placed defer_us after it came, whatever came since). */
SKEL_TEST(tasks_deferred_call_waits_while_its_chain_keeps_coming)
{
    skel_vec *x = uvec(512, 6), *y;
    skel_sched_stats st;
    const uint32_t *p;
    uint32_t e[512];
    double t0;
    int k, j;
    if (_skel_place_find("opencl") < 0) ST_SKIP("no OpenCL place");
    ST_OK(skel_vec_new(&y, SKEL_UINT32, 512));
    p = (const uint32_t *)skel_read(x);
    ST_CHECK(p != NULL);
    for (j = 0; p && j < 512; ++j) e[j] = p[j];
    sched_defer(100000);        /* 100 ms; a submission every 10 ms for 150 ms */
    skel_sched_stats_reset();
    for (k = 0, t0 = _skel_now(); k < 15; ++k) {
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { k % 2 ? y : x }, .out = k % 2 ? x : y }));
        for (j = 0; j < 512; ++j) e[j] = 3u * e[j] + 1u;
        while (_skel_now() - t0 < 0.01 * (k + 1)) nap_us(500);
    }
    skel_sched_stats_get(&st);
    ST_EQ_UINT(st.deferred, 0);         /* 150 ms after the first: it still waits */
    for (t0 = _skel_now(); (skel_sched_stats_get(&st), st.deferred == 0) && _skel_now() - t0 < 5;) nap_us(1000);
    ST_EQ_UINT(st.deferred, 1);         /* the pause placed it, without a wait */
    ST_OK(skel_wait_all());
    p = (const uint32_t *)skel_read(y);  /* 15 calls: the last (k = 14) wrote y */
    ST_CHECK(p != NULL);
    for (j = 0; p && j < 512; ++j)
        if (p[j] != e[j]) { ST_FAIL("element %d: %u, expected %u", j, p[j], e[j]); break; }
    ST_OK(skel_sched_set(NULL));
    skel_free(x); skel_free(y);
}

/* A wait on a call that waits to be placed places it (skel_read,
   skel_wait, skel_wait_all, a farm), with a second's defer_us; and with
   the default, a call nobody waits for is placed and run within the
   pause (a worker places it). */
SKEL_TEST(tasks_wait_on_an_unplaced_call_places_it)
{
    skel_vec *x = uvec(4096, 5), *y, *z;
    skel_farm *f;
    const uint32_t *px, *py;
    uint32_t x0;
    double t0;
    int flag = 0, k;
    if (_skel_place_find("opencl") < 0) ST_SKIP("no OpenCL place");
    ST_OK(skel_vec_new(&y, SKEL_UINT32, 4096));
    ST_OK(skel_vec_new(&z, SKEL_UINT32, 4096));
    {   /* the OpenCL program built first: a cold PoCL build (a fresh cache, a
           sanitizer's slow run) can take longer than the bound below */
        skel_plan *ocl;
        ST_OK(skel_plan_new(&ocl));
        ST_OK(skel_plan_add(ocl, 0, SIZE_MAX, &(skel_variant){ .backend = "opencl" }));
        ST_OK(skel_set_plan(tk_mulu, ocl));
        ST_OK(skel_run(tk_mulu, &(skel_call){ .in = { x }, .out = y }));
        ST_OK(skel_set_plan(tk_mulu, NULL));
        skel_plan_free(ocl);
    }
    sched_defer(1000000);
    for (k = 0; k < 3; ++k) {
        st_context("wait %d", k);
        px = (const uint32_t *)skel_read(x);
        ST_CHECK(px != NULL);
        x0 = px ? px[7] : 0;
        t0 = _skel_now();
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { x }, .out = y }));
        if (k == 0) ST_CHECK((py = (const uint32_t *)skel_read(y)) != NULL);
        else ST_OK(k == 1 ? skel_wait(y) : skel_wait_all());
        ST_CHECK(_skel_now() - t0 < 0.5);
        py = (const uint32_t *)skel_read(y);
        ST_CHECK(py && py[7] == 3u * x0 + 1u);
    }
    st_context("farm");
    ST_OK(skel_farm_new(&f));
    ST_OK(skel_farm_call(f, tk_mulu, &(skel_call){ .in = { x }, .out = z }));
    t0 = _skel_now();
    ST_OK(skel_farm_run(f));
    ST_CHECK(_skel_now() - t0 < 0.5);
    skel_farm_free(f);
    st_context("nobody waits");
    sched_defer(0);
    ST_OK(skel_task_submit(&(skel_task_desc){ .name = "flag", .cpu = tk_flag, .gpu = tk_flag, .arg = &flag,
                                              .data = { y }, .mode = { SKEL_READ_WRITE } }));
    for (t0 = _skel_now(); !__atomic_load_n(&flag, __ATOMIC_ACQUIRE) && _skel_now() - t0 < 5;) nap_us(50);
    ST_CHECK(__atomic_load_n(&flag, __ATOMIC_ACQUIRE));
    st_context("");
    ST_OK(skel_wait_all());
    ST_OK(skel_sched_set(NULL));
    skel_free(x); skel_free(y); skel_free(z);
}

/* Four threads submit at once, each chains of calls on containers of its
   own, ready calls among them, and waits now and then; the workers place
   what waits (a short defer_us) or the 64 bound does (a long one). */
#define DP_THREADS 4
#define DP_CALLS 300
typedef struct dp_arg { skel_vec *x, *y; uint32_t x0; int ok; } dp_arg;

static void *dp_main(void *p)
{
    dp_arg *a = (dp_arg *)p;
    const uint32_t *r;
    uint32_t e = a->x0;
    int i, ok = 1;
    for (i = 0; i < DP_CALLS && ok; ++i) {    /* x -> y -> x ..: each call reads what the one before wrote */
        ok = skel_submit(tk_mulu, &(skel_call){ .in = { i % 2 ? a->y : a->x }, .out = i % 2 ? a->x : a->y }) == SKEL_OK;
        e = 3u * e + 1u;
        if (ok && i % 37 == 36) ok = skel_wait(i % 2 ? a->x : a->y) == SKEL_OK;
    }
    r = ok ? (const uint32_t *)skel_read(DP_CALLS % 2 ? a->y : a->x) : NULL;
    a->ok = ok && r && r[0] == e;
    return NULL;
}

SKEL_TEST(tasks_deferred_placement_with_many_threads_submitting)
{
    pthread_t th[DP_THREADS];
    dp_arg a[DP_THREADS];
    skel_sched_stats st;
    int i, round, defers[2] = { 20, 1000000 };
    if (_skel_place_find("opencl") < 0) ST_SKIP("no OpenCL place");
    for (round = 0; round < 2; ++round) {
        st_context("defer_us %d", defers[round]);
        sched_defer(defers[round]);
        skel_sched_stats_reset();
        for (i = 0; i < DP_THREADS; ++i) {
            a[i].x = uvec(256, 11 + (uint32_t)i);
            a[i].x0 = ((const uint32_t *)skel_read(a[i].x))[0];
            ST_OK(skel_vec_new(&a[i].y, SKEL_UINT32, 256));
            a[i].ok = 0;
        }
        for (i = 0; i < DP_THREADS; ++i) ST_CHECK(pthread_create(&th[i], NULL, dp_main, &a[i]) == 0);
        for (i = 0; i < DP_THREADS; ++i) pthread_join(th[i], NULL);
        ST_OK(skel_wait_all());
        skel_sched_stats_get(&st);
        for (i = 0; i < DP_THREADS; ++i) {
            ST_CHECK(a[i].ok);
            skel_free(a[i].x); skel_free(a[i].y);
        }
        ST_EQ_UINT(st.tasks, DP_THREADS * DP_CALLS);
        ST_EQ_UINT(st.by_model + st.calibrating + st.by_rule, DP_THREADS * DP_CALLS);
        ST_CHECK(st.deferred >= DP_THREADS && st.deferred <= DP_THREADS * DP_CALLS);
    }
    st_context("");
    ST_OK(skel_sched_set(NULL));
}

/* The blur's pattern: a call ready at submission (its input on the host)
   and the call that reads its result.  Alone, the first is cheaper on the
   host (a device call must bring the input up and its result home); with
   its successor counted the pair is cheaper on the device.  Placed at
   once the first goes to the host and the second follows it there;
   deferred, both go to the device.  Costs from a plan, with u and w the
   link model's copy up and down and D = 0.01 u a device call: dmda's
   fitness is (finish - best finish) + transfer, so the first call alone
   goes to the host iff H < 2u + D + w, and the pair to the device iff
   2H > 2u + 2D + w.  H = 1.51 u + 0.75 w, the middle, leaves each side
   0.5 u + 0.25 w whatever the two links measure (1.2 (u + w) failed once
   under AddressSanitizer beside a compiler: the down link read over 4
   times the up link's cost). */
static double tk_pair_cost(const skel_variant *v, const size_t *point, double *once, void *user)
{
    const double *c = (const double *)user;
    (void)point; (void)once;
    return strcmp(v->backend, "opencl") == 0 ? 0.01 * c[0] : 1.51 * c[0] + 0.75 * c[1];
}

SKEL_TEST(tasks_deferred_placement_sees_the_call_that_follows)
{
    const size_t n = 1 << 16;
    skel_vec *x = uvec(n, 9), *y, *z;
    skel_variant vars[2];
    skel_tune_desc d;
    skel_plan *plan;
    skel_sched_stats st;
    double c[2];
    int cl = _skel_place_find("opencl"), defer;
    uint32_t x0;
    const uint32_t *pz;
    if (cl < 0) ST_SKIP("no OpenCL place");
    ST_OK(skel_vec_new(&y, SKEL_UINT32, n));
    ST_OK(skel_vec_new(&z, SKEL_UINT32, n));
    ST_OK(_skel_link_cost(0, cl, n * 4, &c[0]));
    ST_OK(_skel_link_cost(cl, 0, n * 4, &c[1]));
    memset(vars, 0, sizeof vars);
    vars[0].backend = "seq";
    vars[1].backend = "opencl";
    memset(&d, 0, sizeof d);
    d.id = "tasks-pair"; d.dims = 1; d.lower[0] = d.upper[0] = n;
    d.cost = tk_pair_cost; d.user = c; d.variants = vars; d.nvariants = 2; d.nofile = 1; d.quiet = 1;
    ST_OK(skel_tune(&d, &plan));
    ST_OK(skel_set_plan(tk_mulu, plan));
    for (defer = 0; defer < 2; ++defer) {
        st_context("defer %s", defer ? "on" : "off");
        x0 = ((const uint32_t *)skel_write(x))[5];     /* on the host only */
        sched_defer(defer ? 1000000 : -1);
        skel_sched_stats_reset();
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { x }, .out = y }));
        ST_OK(skel_submit(tk_mulu, &(skel_call){ .in = { y }, .out = z }));
        pz = (const uint32_t *)skel_read(z);
        skel_sched_stats_get(&st);
        ST_EQ_UINT(st.place_tasks[defer ? cl : 0], 2);
        ST_EQ_UINT(st.deferred, defer ? 1 : 0);
        ST_CHECK(pz && pz[5] == 3u * (3u * x0 + 1u) + 1u);
    }
    st_context("");
    skel_set_plan(tk_mulu, NULL);
    skel_plan_free(plan);
    ST_OK(skel_sched_set(NULL));
    skel_free(x); skel_free(y); skel_free(z);
}

SKEL_TEST(tasks_models_file_is_saved_loaded_shown_and_checked)
{
    char dir[128], path[4200], out[256], line[512];
    tk_arg a = { 500, 0, 0, 0 };
    FILE *f;
    int k, found = 0, n;
    unsigned char *buf;
    long len;
    snprintf(dir, sizeof dir, "/tmp/skel_models_test_%d", (int)getpid());
    ST_OK(skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host", .cpu_workers = 1, .model_dir = dir }));
    for (k = 0; k < 3; ++k) busy_task("saved", &a, 77);
    ST_OK(skel_models_save());
    ST_OK(skel_models_path(dir, path, sizeof path));
    ST_CHECK(strstr(path, "/skel.models") != NULL);
    ST_OK(skel_models_dump(path, SKEL_DUMP_TEXT, (snprintf(out, sizeof out, "%s/dump.txt", dir), out)));
    ST_CHECK((f = fopen(out, "r")) != NULL);
    while (fgets(line, sizeof line, f)) found += strstr(line, "task saved at host: 1 sizes") != NULL;
    fclose(f);
    ST_EQ_INT(found, 1);
    ST_OK(skel_models_dump(path, SKEL_DUMP_JSON, out));
    ST_OK(skel_models_dump(path, SKEL_DUMP_SVG, out));
    ST_OK(skel_models_dump(NULL, SKEL_DUMP_TEXT, out));
    /* a corrupted file is refused, not used */
    ST_CHECK((f = fopen(path, "rb")) != NULL);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)malloc((size_t)len);
    ST_CHECK(buf && fread(buf, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    for (n = 0; n < 2; ++n) {
        FILE *g = fopen(out, "wb");
        ST_CHECK(g != NULL);
        if (n == 0) { buf[len / 2] ^= 1; fwrite(buf, 1, (size_t)len, g); buf[len / 2] ^= 1; }
        else fwrite(buf, 1, (size_t)len - 3, g);
        fclose(g);
        ST_EQ_INT(skel_models_dump(out, SKEL_DUMP_TEXT, NULL), SKEL_EFORMAT);
        ST_CHECK(strstr(skel_last_error(), n == 0 ? "checksum" : "truncated") != NULL);
    }
    free(buf);
    ST_EQ_INT(skel_models_dump(path, 9, NULL), SKEL_EINVAL);
    ST_OK(skel_sched_set(&(skel_sched_desc){ .nofile = 1 }));
    unlink(out);
    snprintf(out, sizeof out, "%s/dump.txt", dir);
    unlink(out);
    unlink(path);
    rmdir(dir);
}

void _skel_models_forget(void);

/* Models learned before the file is read (under .nofile) stay when a later
   configuration reads it, and the file's others are added; what this
   process learned wins over the file (the file used to replace them: what
   was learned was lost, and leaked). */
SKEL_TEST(tasks_models_file_read_after_learning_keeps_what_was_learned)
{
    char dir[128], path[4200];
    skel_sched_desc d;
    int k;
    snprintf(dir, sizeof dir, "/tmp/skel_models_merge_%d", (int)getpid());
    memset(&d, 0, sizeof d);
    d.policy = "dmda"; d.places = "host"; d.cpu_workers = 1; d.calibrate = 4; d.model_dir = dir;
    _skel_models_forget();
    ST_OK(skel_sched_set(&d));
    for (k = 0; k < 4; ++k) ST_CHECK(_skel_models_add("filed", "host", 1000, 0.003));
    for (k = 0; k < 4; ++k) ST_CHECK(_skel_models_add("both", "host", 1000, 0.005));
    ST_OK(skel_models_save());
    _skel_models_forget();      /* as a new process starts */
    d.nofile = 1;
    ST_OK(skel_sched_set(&d));
    for (k = 0; k < 4; ++k) ST_CHECK(_skel_models_add("learned", "host", 1000, 0.002));
    for (k = 0; k < 4; ++k) ST_CHECK(_skel_models_add("both", "host", 1000, 0.007));
    ST_CHECK(_skel_models_predict("task filed", "host", 1000, 1) < 0);
    d.nofile = 0;
    ST_OK(skel_sched_set(&d));  /* reads the file */
    ST_CHECK(fabs(_skel_models_predict("task learned", "host", 1000, 1) - 0.002) < 1e-12);
    ST_CHECK(fabs(_skel_models_predict("task filed", "host", 1000, 1) - 0.003) < 1e-12);
    ST_CHECK(fabs(_skel_models_predict("task both", "host", 1000, 1) - 0.007) < 1e-12);
    ST_OK(skel_sched_set(&(skel_sched_desc){ .nofile = 1 }));
    ST_OK(skel_models_path(dir, path, sizeof path));
    unlink(path);
    rmdir(dir);
}

/* A call's second output and its views are dependencies like its first
   output and inputs: the map with two outputs waits for the slow fill of
   its input, and the map that reads its second output as a view waits
   for it (without tracking outs[1] and views it ran at once, on stale
   data). */
SKEL_FUNC(void, tk_split, (uint32_t a, uint32_t *plus, uint32_t *twice), *plus = a + 1; *twice = 2 * a;)
SKEL_MAP_X(tk_split2, tk_split, SKEL_OUTS(uint32_t, uint32_t), SKEL_INS(uint32_t), SKEL_NO_INDEX, SKEL_NO_VIEWS,
           SKEL_NO_UNIFORM)
SKEL_FUNC(uint32_t, tk_addv, (skel_index i, uint32_t a, skel_view_uint32_t v), return a + SKEL_AT(v, i);)
SKEL_MAP_X(tk_addview, tk_addv, SKEL_OUTS(uint32_t), SKEL_INS(uint32_t), SKEL_INDEX, SKEL_VIEWS(uint32_t),
           SKEL_NO_UNIFORM)

SKEL_TEST(tasks_track_every_output_and_view_of_a_call)
{
    int p;
    for (p = 0; p < NPOL; ++p) {
        skel_vec *x = uvec(1000, 1), *y = uvec(1000, 2), *z = uvec(1000, 3), *w = uvec(1000, 4), *q = uvec(1000, 5);
        tk_arg slow = { 20000, 100, 0, 0 };
        const uint32_t *wr = (const uint32_t *)skel_read(w), *r;
        uint32_t w0[1000];
        size_t i;
        st_context("policy %s", POLICIES[p]);
        memcpy(w0, wr, sizeof w0);
        sched(POLICIES[p], "host", 3);
        submit_task(tk_fill, &slow, x, SKEL_WRITE, NULL, 0);
        ST_OK(skel_submit(tk_split2, &(skel_call){ .in = { x }, .outs = { y, z } }));
        ST_OK(skel_submit(tk_addview, &(skel_call){ .in = { w }, .views = { z }, .out = q }));
        ST_CHECK((r = (const uint32_t *)skel_read(q)) != NULL);
        for (i = 0; i < 1000; ++i) ST_EQ_UINT(r[i], w0[i] + 2u * (100u + (uint32_t)i));
        r = (const uint32_t *)skel_read(y);
        for (i = 0; i < 1000; ++i) ST_EQ_UINT(r[i], 101u + (uint32_t)i);
        ST_OK(skel_wait_all());
        skel_free(x); skel_free(y); skel_free(z); skel_free(w); skel_free(q);
    }
    st_context("");
}
