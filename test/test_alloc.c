/* Out of memory: a call that cannot allocate returns SKEL_ENOMEM and
   changes no container and no result, on every skeleton x direction x
   backend.  Each case runs with the k-th allocation of skel failing (and
   every later one), k = 0, 1, ... until the call succeeds; then its result
   must equal a plain run's.  On a GPU backend the device buffers fail too.
   (test/main.c builds skel on st_malloc: skel_test.h, st_alloc_fail_after.) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

void _skel_cl_test_fail_allocs(int on);

SKEL_FUNC(float, a_axpy, (float a, float b), return 2 * a - b;)
SKEL_FUNC(float, a_add, (float a, float b), return a + b;)
SKEL_FUNC(float, a_w, (const float *a), return a[-1] + 2 * a[0] - a[1];)
SKEL_FUNC(float, a_w2, (const float *a, skel_index s), return a[-s] - a[0] + a[s + 1];)
SKEL_FUNC(float, a_get, (const float *v, float e), return v[(skel_index)e] + e;)
SKEL_MAP(a_map, a_axpy, float, 2)
SKEL_REDUCE(a_sum, a_add, float)
SKEL_MAPREDUCE(a_dot, a_axpy, a_add, float, 2)
SKEL_SCAN(a_scan, a_add, float)
SKEL_OVERLAP(a_ov, a_w, float, 1)
SKEL_OVERLAP2D(a_ov2, a_w2, float, 1, 1)
SKEL_CONV2D(a_conv, float, 1, 1)
SKEL_MAPARRAY(a_ma, a_get, float)

/* the operands of one case: small random integers as floats (exact sums) */
enum { VEC, MAT, WIDE };                /* 4099; 67 x 129; 2 x 300000 (few long rows) */
typedef struct acase {
    const char *name;
    skel_skeleton *sk;
    int shape, nin, inplace, direction, exclusive, out1;   /* out1: a 1-element out */
    int result;                         /* writes call.result */
} acase;

static const acase CASES[] = {
    { "map", a_map, VEC, 2, 0, 0, 0, 0, 0 },
    { "map in place", a_map, VEC, 2, 1, 0, 0, 0, 0 },
    { "reduce", a_sum, VEC, 1, 0, 0, 0, 0, 1 },
    { "reduce into out", a_sum, VEC, 1, 0, 0, 0, 1, 0 },
    { "reduce rows", a_sum, MAT, 1, 0, SKEL_ROWS, 0, 0, 0 },
    { "reduce rows, few long", a_sum, WIDE, 1, 0, SKEL_ROWS, 0, 0, 0 },
    { "reduce cols", a_sum, MAT, 1, 0, SKEL_COLS, 0, 0, 0 },
    { "mapreduce", a_dot, VEC, 2, 0, 0, 0, 0, 1 },
    { "scan", a_scan, VEC, 1, 0, 0, 0, 0, 0 },
    { "scan exclusive in place", a_scan, VEC, 1, 1, 0, 1, 0, 0 },
    { "scan rows", a_scan, MAT, 1, 0, SKEL_ROWS, 0, 0, 0 },
    { "scan rows, few long", a_scan, WIDE, 1, 0, SKEL_ROWS, 0, 0, 0 },
    { "overlap", a_ov, VEC, 1, 0, 0, 0, 0, 0 },
    { "overlap in place", a_ov, VEC, 1, 1, 0, 0, 0, 0 },
    { "overlap rows", a_ov, MAT, 1, 0, SKEL_ROWS, 0, 0, 0 },
    { "overlap cols", a_ov, MAT, 1, 0, SKEL_COLS, 0, 0, 0 },
    { "overlap rows+cols", a_ov, MAT, 1, 0, SKEL_ROWS_COLS, 0, 0, 0 },
    { "overlap rows+cols in place", a_ov, MAT, 1, 1, SKEL_ROWS_COLS, 0, 0, 0 },
    { "overlap2d", a_ov2, MAT, 1, 0, 0, 0, 0, 0 },
    { "conv2d in place", a_conv, MAT, 1, 1, 0, 0, 0, 0 },
    { "maparray", a_ma, VEC, 2, 0, 0, 0, 0, 0 },
    { "maparray in place", a_ma, VEC, 2, 1, 0, 0, 0, 0 },
};
#define NCASES ((int)(sizeof CASES / sizeof *CASES))

static skel_vec *new_operand(int shape, uint64_t *rng, int indices)
{
    size_t rows = shape == VEC ? 1 : shape == MAT ? 67 : 2, cols = shape == VEC ? 4099 : shape == MAT ? 129 : 300000, i;
    skel_vec *v = NULL;
    float *p;
    if (shape == VEC) ST_OK(skel_vec_new(&v, SKEL_FLOAT, cols));
    else ST_OK(skel_mat_new(&v, SKEL_FLOAT, rows, cols));
    p = (float *)skel_write(v);
    for (i = 0; i < rows * cols; ++i) p[i] = (float)(indices ? (long long)(st_rand(rng) % (rows * cols)) : st_rand_int(rng, -20, 20));
    return v;
}

/* the case's call on fresh operands (from the same seed each time) */
static void make_call(const acase *k, skel_call *c, float *result, uint64_t seed)
{
    uint64_t rng = seed;
    static const float w[9] = { 1, -2, 3, 0, 1, 2, -1, 1, 1 };
    static const float init = 5;
    memset(c, 0, sizeof *c);
    c->in[0] = new_operand(k->shape, &rng, 0);
    if (k->nin == 2) c->in[1] = new_operand(k->shape, &rng, k->sk == a_ma);
    c->direction = k->direction;
    if (k->exclusive) { c->exclusive = 1; c->init = &init; }
    if (k->sk == a_conv) c->weights = w;
    if (k->sk == a_ov) c->edge = SKEL_EDGE_CYCLIC;
    if (k->result) { c->result = result; *result = -12345; }
    else if (k->inplace) c->out = c->in[0];
    else if (k->out1) ST_OK(skel_vec_new(&c->out, SKEL_FLOAT, 1));
    else if (k->direction == SKEL_ROWS && k->sk == a_sum) ST_OK(skel_vec_new(&c->out, SKEL_FLOAT, skel_rows(c->in[0])));
    else if (k->direction == SKEL_COLS && k->sk == a_sum) ST_OK(skel_vec_new(&c->out, SKEL_FLOAT, skel_cols(c->in[0])));
    else {
        const skel_vec *ref = k->sk == a_ma ? c->in[1] : c->in[0];
        float *p;
        size_t i;
        if (skel_is_matrix(ref)) ST_OK(skel_mat_new(&c->out, SKEL_FLOAT, skel_rows(ref), skel_cols(ref)));
        else ST_OK(skel_vec_new(&c->out, SKEL_FLOAT, skel_size(ref)));
        p = (float *)skel_write(c->out);
        for (i = 0; i < skel_size(ref); ++i) p[i] = -7;   /* not what any case writes */
    }
}

static void free_call(skel_call *c)
{
    int i;
    for (i = 0; i < SKEL_MAX_IN; ++i)
        if (c->in[i] != c->out) skel_free(c->in[i]);
    skel_free(c->out);
}

/* the result bytes of a successful call (out, or call.result) */
static void *result_copy(const skel_call *c, size_t *bytes)
{
    void *r;
    if (c->result) {
        *bytes = sizeof(float);
        r = malloc(*bytes);
        memcpy(r, c->result, *bytes);
        return r;
    }
    *bytes = skel_size(c->out) * sizeof(float);
    r = malloc(*bytes + 1);
    memcpy(r, skel_read(c->out), *bytes);
    return r;
}

/* one case on variant vi (-1: the extra wide omp variant) */
static void run_case(const acase *k, const skel_variant *var, skel_plan *plan, const char *label, const void *want,
                     size_t want_bytes, int gpu)
{
    skel_call c;
    float result;
    long f;
    int rc = -1, dev;
    for (dev = 0; dev <= gpu; ++dev) {   /* GPU: host allocations, then device buffers */
        for (f = 0; f < 400; ++f) {
            st_snap s;
            const char *changed;
            make_call(k, &c, &result, st_seed(k->name, 1, 2));
            ST_OK(skel_set_plan(k->sk, plan));
            st_snap_take(&s, &c, sizeof result);
            if (dev) _skel_cl_test_fail_allocs(1);
            else st_alloc_fail_after(f);
            rc = skel_run(k->sk, &c);
            st_alloc_fail_after(-1);
            if (dev) _skel_cl_test_fail_allocs(0);
            changed = st_snap_changed(&s);
            if (rc == SKEL_OK && !dev) {
                size_t got_bytes;
                void *got = result_copy(&c, &got_bytes);
                int same = got_bytes == want_bytes && memcmp(got, want, want_bytes) == 0;
                free(got);
                free_call(&c);
                if (!same) ST_FAIL("%s on %s: after %ld failing runs the result is wrong", k->name, label, f);
                break;
            }
            if (rc != SKEL_ENOMEM)
                ST_FAIL("%s on %s, %s %ld failing: %s (%s)", k->name, label, dev ? "device buffers" : "allocation", f,
                        skel_error_string(rc), skel_last_error());
            if (changed) ST_FAIL("%s on %s, allocation %ld failing: SKEL_ENOMEM but %s changed", k->name, label, f, changed);
            free_call(&c);
            if (dev) break;
        }
        if (f == 400) ST_FAIL("%s on %s: still failing after 400 allocations", k->name, label);
    }
    (void)var;
}

SKEL_TEST(alloc_failures_leave_every_container_unchanged_on_every_skeleton_and_backend)
{
    int ki, vi;
    skel_plan *wide = NULL;
    skel_variant wv;
    memset(&wv, 0, sizeof wv);      /* over 227 parts: the few-long-rows partials need the heap */
    wv.backend = skel_backend_available("omp") ? "omp" : skel_backend_available("pool") ? "pool" : NULL;
    wv.threads = wv.backend && strcmp(wv.backend, "omp") == 0 ? 300 : 64;
    if (wv.backend) {
        ST_OK(skel_plan_new(&wide));
        ST_OK(skel_plan_add(wide, 0, SIZE_MAX, &wv));
    }
    for (ki = 0; ki < NCASES; ++ki) {
        const acase *k = &CASES[ki];
        skel_call c;
        float result;
        size_t want_bytes;
        void *want;
        make_call(k, &c, &result, st_seed(k->name, 1, 2));     /* the reference: seq, nothing failing */
        ST_OK(skel_set_plan(k->sk, st_variant_get(0)->plan));
        ST_OK(skel_run(k->sk, &c));
        want = result_copy(&c, &want_bytes);
        free_call(&c);
        for (vi = 0; vi < st_variant_count(); ++vi) {
            const st_variant *v = st_variant_get(vi);
            int gpu = strcmp(v->label, "opencl") == 0;
            st_context("%s", v->label);
            if (gpu) {   /* build the program first: a failure mid-build only costs the next try another build */
                make_call(k, &c, &result, st_seed(k->name, 1, 2));
                ST_OK(skel_set_plan(k->sk, v->plan));
                ST_OK(skel_run(k->sk, &c));
                free_call(&c);
            }
            if (strcmp(v->label, "cuda") == 0) continue;        /* its own test: cuda_out_of_memory_leaves_containers_valid */
            run_case(k, &v->v, v->plan, v->label, want, want_bytes, gpu);
        }
        if (wide && k->shape == WIDE) run_case(k, &wv, wide, wv.backend, want, want_bytes, 0);
        ST_OK(skel_set_plan(k->sk, NULL));
        free(want);
    }
    st_context("");
    skel_plan_free(wide);
}
