/* tasks_placement.c - where dmda places the blur's and SOR's calls when
   the performance models say what an H100 machine measured, on any
   machine with a second place (PoCL's OpenCL device will do): a check of
   placement decisions, not of time.

   bench_tasks_placement [BLUR_HOST [SOR_HOST [BETA]]]   (BETA: dmda's transfer weight, default skel's)

   The models are tuned plans from cost functions, in units of this
   machine's measured copy of one operand to the device (c): a blur pass
   costs BLUR_HOST c on the host (default 0.75: 1.42 ms against 1.9 ms for
   16.8 MB on the H100 machine) and 0.026 c on the device; an SOR sweep
   SOR_HOST c (default 0.12) and 0.013 c.  Programs: 8 images x (row pass,
   column pass) with results home (the blur's pattern: a call ready at
   submission and the call that reads its result), and a chain of 80
   calls (SOR's).  Policies: dmda as before (calls placed at submission,
   copies not in a place's load), at-once (copies in the load) and dmda
   (deferred placement).  Printed per run: calls on the device, MB moved,
   calls whose placement was deferred. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cl.h"

SKEL_FUNC(float, pass_f, (float a), return 0.5f * a + 1.0f;)
SKEL_FUNC(float, sweep_f, (float a), return 0.25f * a + 2.0f;)
SKEL_MAP(pass, pass_f, float, 1)
SKEL_MAP(sweep, sweep_f, float, 1)

int _skel_link_cost(int from, int to, size_t bytes, double *t);    /* skel.h: the transfer model */
int _skel_place_find(const char *name);

typedef struct costs { double host, dev; } costs;
static const char *DEV = "opencl";

static double cost_fn(const skel_variant *v, const size_t *point, double *once, void *user)
{
    const costs *c = (const costs *)user;
    (void)point; (void)once;
    return strcmp(v->backend, DEV) == 0 ? c->dev : c->host;
}

static void plan_for(skel_skeleton *sk, const char *id, size_t n, costs *c)
{
    skel_variant vars[2];
    skel_tune_desc d;
    skel_plan *plan;
    memset(vars, 0, sizeof vars);
    vars[0].backend = "pool"; vars[0].threads = 2;      /* a host call holds the 2 lanes of 1 CPU worker + caller */
    vars[1].backend = DEV;
    memset(&d, 0, sizeof d);
    d.id = id; d.dims = 1; d.lower[0] = d.upper[0] = n;
    d.cost = cost_fn; d.user = c; d.variants = vars; d.nvariants = 2; d.nofile = 1; d.quiet = 1;
    if (skel_tune(&d, &plan) != SKEL_OK || skel_set_plan(sk, plan) != SKEL_OK) {
        fprintf(stderr, "plan: %s\n", skel_last_error());
        exit(1);
    }
}

static void report(const char *prog, const char *pol, int r, int calls, int dev)
{
    skel_sched_stats st;
    skel_sched_stats_get(&st);
    printf("%-5s %-8s run %d: %2llu of %d on the device, %6.1f MB moved, %2llu deferred\n", prog, pol, r,
           (unsigned long long)st.place_tasks[dev], calls, 1e-6 * (double)(st.bytes[0][dev] + st.bytes[dev][0]),
           (unsigned long long)st.deferred);
}

extern int _skel_dmda_load_copies;

int main(int argc, char **argv)
{
    const size_t n = 1 << 18;
    const char *name[3] = { "before", "at-once", "dmda" };
    skel_vec *x[8], *t[8], *o[8], *a, *b;
    costs cp, cs;
    double cu, beta = argc > 3 ? atof(argv[3]) : 0;     /* dmda's transfer weight; 0 here: skel's default */
    int dev = _skel_place_find(DEV), pol, r, i, k;
    if (argc > 3 && beta <= 0) beta = 1e-12;            /* (the desc's 0 means the default) */
    if (dev < 0) { printf("no %s place here\n", DEV); return 0; }
    for (i = 0; i < 8; ++i)
        if (skel_vec_new(&x[i], SKEL_FLOAT, n) || skel_vec_new(&t[i], SKEL_FLOAT, n) || skel_vec_new(&o[i], SKEL_FLOAT, n)) return 1;
    if (skel_vec_new(&a, SKEL_FLOAT, n) || skel_vec_new(&b, SKEL_FLOAT, n)) return 1;
    if (skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host,opencl", .nofile = 1 }) != SKEL_OK ||
        _skel_link_cost(0, dev, n * 4, &cu) != SKEL_OK) return 1;
    cp.host = (argc > 1 ? atof(argv[1]) : 0.75) * cu; cp.dev = 0.026 * cu;
    cs.host = (argc > 2 ? atof(argv[2]) : 0.12) * cu; cs.dev = 0.013 * cu;
    plan_for(pass, "placement-pass", n, &cp);
    plan_for(sweep, "placement-sweep", n, &cs);
    printf("c = %.3f ms (%zu floats up); blur pass host %.2f c, SOR sweep host %.2f c\n", 1e3 * cu, n, cp.host / cu, cs.host / cu);
    for (pol = 0; pol < 3; ++pol) {
        _skel_dmda_load_copies = pol > 0;
        if (skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host,opencl", .cpu_workers = 1,
                                               .defer_us = pol < 2 ? -1 : 0, .beta = beta, .nofile = 1 }) != SKEL_OK) return 1;
        for (r = 0; r < 3; ++r) {
            for (i = 0; i < 8; ++i) memset(skel_write(x[i]), 0, n * 4);
            skel_wait_all();
            skel_sched_stats_reset();
            for (i = 0; i < 8; ++i) {
                skel_submit(pass, &(skel_call){ .in = { x[i] }, .out = t[i] });
                skel_submit(pass, &(skel_call){ .in = { t[i] }, .out = o[i] });
            }
            for (i = 0; i < 8; ++i) skel_read(o[i]);
            if (skel_wait_all() != SKEL_OK) return 1;
            report("blur", name[pol], r, 16, dev);
        }
        for (r = 0; r < 3; ++r) {
            memset(skel_write(a), 0, n * 4);
            skel_wait_all();
            skel_sched_stats_reset();
            for (k = 0; k < 80; ++k) skel_submit(sweep, &(skel_call){ .in = { k % 2 ? b : a }, .out = k % 2 ? a : b });
            skel_read(a);
            if (skel_wait_all() != SKEL_OK) return 1;
            report("sor", name[pol], r, 80, dev);
        }
    }
    _skel_dmda_load_copies = 1;
    return 0;
}
