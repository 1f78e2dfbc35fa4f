/* Tasks and scheduling (skel.h, "places", "trace", "tasks"): place
   binding, the trace file, asynchronous calls and their dependencies,
   failures, waits, every policy, user tasks and the Farm.  Everything
   here also runs under ThreadSanitizer (make test-tsan) and ASan. */
#define _GNU_SOURCE                 /* setenv, clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

int _skel_place_count(void);
int _skel_place_backend(int p);
const char *_skel_place_name(int p);
int _skel_place_find(const char *name);
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
    ST_CHECK(_skel_trace_on());
    ST_OK(skel_vec_new_fill(&a, SKEL_FLOAT, 4096, &(float){ 1.5f }));
    ST_OK(skel_vec_new(&r, SKEL_FLOAT, 4096));
    _skel_trace_lane("main %d", 7);
    _skel_trace_event('S', 0, -1, _skel_now(), _skel_now() + 1e-6, 0, 0, "stage with spaces");
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
