/* demo.c - what skel does on this machine (`make demo`).

   Lists the backends, then runs a few skeletons at a large size on every
   CPU backend present: time per call, speedup against seq, and a check
   against a plain loop.  Last column: the variant skel picks by default
   (no plan) for that call.

   Then the tuner: it tunes the dot product (MapReduce) over 10 .. 5e7
   elements on every backend this machine has (20 s budget), saves the plan
   beside this executable (build/demo.skelplans/dot.plan), runs dot with
   the plan at a few sizes against each backend fixed, and shows the plan
   as `build/skel_plan` prints it.  The next run loads the plan file and
   tunes nothing (SKEL_RETUNE=1 forces a new tuning).

   To add a skeleton, write its setup / check functions and add a row to
   CASES below; to add a backend column, add its name to CPU_BACKENDS. */
#define _POSIX_C_SOURCE 200809L    /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"             /* GPU backends, when their libraries load */
#include "skel_cl.h"

/* ---- skeletons ---- */
SKEL_FUNC(float, mult, (float a, float b), return a * b;)
SKEL_FUNC(float, add, (float a, float b), return a + b;)
SKEL_MAPREDUCE(dot, mult, add, float, 2)
SKEL_SCAN(prefix_sum, add, float)
/* binomial 5-tap Gaussian, applied along rows then columns */
SKEL_FUNC(float, gauss5, (const float *a),
    return (a[-2] + 4.0f * a[-1] + 6.0f * a[0] + 4.0f * a[1] + a[2]) * (1.0f / 16);)
SKEL_OVERLAP(blur, gauss5, float, 2)

#define VEC_N   ((size_t)1 << 24)  /* 16 M floats, 64 MB */
#define SIDE    ((size_t)2048)     /* 2048 x 2048 image */

static float *X, *Y, *OUT;         /* host data the containers wrap */
static float dot_result;
static skel_vec *vx, *vy, *vout, *mimg, *mout;

/* Small random integers keep every float partial sum exact, so a sum in
   skel's blocked order equals the loop's. */
static void fill_random(float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) p[i] = (float)(rand() % 17 - 8);
}

/* ---- checks against plain loops: 0 when skel's result matches ---- */
static int check_dot(void)
{
    float s = 0;
    size_t i;
    for (i = 0; i < VEC_N; ++i) s += X[i] * Y[i];
    return s != dot_result;
}

static int check_scan(void)
{
    const float *r = skel_read(vout);
    float acc = 0;
    size_t i;
    for (i = 0; i < VEC_N; ++i) {
        acc += X[i];
        if (r[i] != acc) return 1;
    }
    return 0;
}

static float blur_at(const float *p, size_t n, size_t i, size_t step)
{
    float v[5];
    int k;
    for (k = -2; k <= 2; ++k) v[k + 2] = i + k < n ? p[(i + k) * step] : 0;
    return (v[0] + 4.0f * v[1] + 6.0f * v[2] + 4.0f * v[3] + v[4]) * (1.0f / 16);
}

static int check_blur(void)
{
    const float *r = skel_read(mout);
    float *tmp = malloc(SIDE * SIDE * sizeof *tmp);
    size_t i, j;
    int bad = 0;
    if (!tmp) return 1;
    for (i = 0; i < SIDE; ++i)
        for (j = 0; j < SIDE; ++j) tmp[i * SIDE + j] = blur_at(X + i * SIDE, SIDE, j, 1);
    for (i = 0; i < SIDE && !bad; ++i)
        for (j = 0; j < SIDE; ++j) {
            float e = blur_at(tmp + j, SIDE, i, SIDE);
            if (fabsf(r[i * SIDE + j] - e) > 1e-5f * (1 + fabsf(e))) { bad = 1; break; }
        }
    free(tmp);
    return bad;
}

/* ---- the table of demo cases ---- */
typedef struct demo_case {
    const char *name, *size;
    skel_skeleton *sk;
    skel_call call;             /* operands, filled in main */
    int (*check)(void);
} demo_case;

static demo_case CASES[] = {
    { .name = "dot product (MapReduce)", .size = "16M floats", .sk = dot, .check = check_dot },
    { .name = "prefix sum (Scan)", .size = "16M floats", .sk = prefix_sum, .check = check_scan },
    { .name = "Gaussian blur (MapOverlap)", .size = "2048x2048 rows+cols", .sk = blur,
      .check = check_blur },
};
#define NCASES (int)(sizeof CASES / sizeof CASES[0])

static const char *CPU_BACKENDS[] = { "seq", "omp" };
#define NCPU (int)(sizeof CPU_BACKENDS / sizeof CPU_BACKENDS[0])

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Median time of 5 calls after one warm-up call; < 0 on failure. */
static double time_call(demo_case *c)
{
    double t[5], tmp;
    int i, j;
    if (skel_run(c->sk, &c->call) != SKEL_OK) return -1;
    for (i = 0; i < 5; ++i) {
        double t0 = wall();
        if (skel_run(c->sk, &c->call) != SKEL_OK) return -1;
        t[i] = wall() - t0;
    }
    for (i = 1; i < 5; ++i)             /* insertion sort */
        for (j = i; j > 0 && t[j] < t[j - 1]; --j) { tmp = t[j]; t[j] = t[j - 1]; t[j - 1] = tmp; }
    return t[2];
}

/* ---- the tuner on the dot product ---- */
#define TUNE_LO 10
#define TUNE_HI 50000000
SKEL_MAPREDUCE(tdot, mult, add, float, 2)   /* its own instance: its own plan */

/* median of 5 timed calls after a warm-up; < 0 on failure */
static double time_dot(skel_vec *x, skel_vec *y, float *r)
{
    double t[5], tmp;
    int i, j;
    if (skel_mapreduce2(tdot, x, y, r) != SKEL_OK) return -1;
    for (i = 0; i < 5; ++i) {
        double t0 = wall();
        if (skel_mapreduce2(tdot, x, y, r) != SKEL_OK) return -1;
        t[i] = wall() - t0;
    }
    for (i = 1; i < 5; ++i)
        for (j = i; j > 0 && t[j] < t[j - 1]; --j) { tmp = t[j]; t[j] = t[j - 1]; t[j - 1] = tmp; }
    return t[2];
}

static int tuner_demo(void)
{
    static const size_t sizes[] = { 10, 1000, 30000, 300000, 3000000, 50000000 };
    skel_plan *plan, *again, *fixed[8];
    skel_plan_stats st;
    skel_variant v;
    char path[1024], cmd[1200];
    float *x, *y;
    int b, nb = skel_backend_count() < 8 ? skel_backend_count() : 8, ok = 1;
    size_t i, k;
    double t0, reload;

    printf("\n== the tuner ==\n");
    if (skel_plan_path("dot", NULL, path, sizeof path) != SKEL_OK) return 0;
    printf("dot product (MapReduce, float) over n = %d .. %d on every backend x its parameters;\n"
           "plan file %s\n", TUNE_LO, TUNE_HI, path);
    t0 = wall();
    if (skel_tune(&(skel_tune_desc){ .id = "dot", .sk = tdot, .lower = { TUNE_LO }, .upper = { TUNE_HI },
                                     .time_budget = 20 }, &plan) != SKEL_OK) {
        printf("tuning failed: %s\n", skel_last_error());
        return 0;
    }
    skel_plan_stats_get(plan, &st);
    if (st.loaded)
        printf("loaded the plan tuned in an earlier run (%.1f s, %d points) in %.3f s: nothing measured\n",
               st.tune_seconds, st.points, wall() - t0);
    else
        printf("tuned in %.1f s: %d points (%.2g%% of the sizes), %d variants (%d pruned), tree of %d nodes, "
               "depth %d; saved\n", st.tune_seconds, st.points, 100 * st.explored, st.variants, st.pruned,
               st.nodes, st.depth);
    t0 = wall();                            /* the same call again: now it loads */
    if (skel_tune(&(skel_tune_desc){ .id = "dot", .sk = tdot, .lower = { TUNE_LO }, .upper = { TUNE_HI },
                                     .time_budget = 20 }, &again) == SKEL_OK) {
        reload = wall() - t0;
        skel_plan_stats_get(again, &st);
        printf("skel_tune with the same description again: %s in %.4f s\n",
               st.loaded ? "loaded from the file" : "tuned again (file not writable?)", reload);
        skel_set_plan(tdot, plan);
        skel_plan_free(again);
    }

    x = malloc(TUNE_HI * sizeof *x);
    y = malloc(TUNE_HI * sizeof *y);
    if (!x || !y) { printf("out of memory\n"); free(x); free(y); return 0; }
    fill_random(x, TUNE_HI);
    fill_random(y, TUNE_HI);
    for (b = 0; b < nb; ++b) {
        skel_plan_new(&fixed[b]);
        skel_plan_add(fixed[b], 0, SIZE_MAX, &(skel_variant){ .backend = skel_backend_name(b) });
    }
    printf("\n%10s  %-16s %10s", "n", "plan chooses", "tuned ms");
    for (b = 0; b < nb; ++b) printf(" %8s ms", skel_backend_name(b));
    printf("  check\n");
    for (k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        size_t n = sizes[k];
        skel_vec *vx, *vy;
        char label[48];
        double ref = 0, mag = 0, t;
        float r = 0;
        int good = 1;
        skel_vec_wrap(&vx, SKEL_FLOAT, n, x);       /* the first n elements, no copy */
        skel_vec_wrap(&vy, SKEL_FLOAT, n, y);
        for (i = 0; i < n; ++i) { ref += (double)x[i] * y[i]; mag += fabs((double)x[i] * y[i]); }
        skel_set_plan(tdot, plan);
        skel_plan_lookup(plan, n, &v);
        snprintf(label, sizeof label, "%s", v.backend);
        if (v.threads) snprintf(label + strlen(label), sizeof label - strlen(label), "/%d", v.threads);
        if (v.block) snprintf(label + strlen(label), sizeof label - strlen(label), "/b%d", v.block);
        t = time_dot(vx, vy, &r);
        good &= t >= 0 && fabs(r - ref) <= 1e-5 * mag + 1e-6;
        printf("%10zu  %-16s %10.3f", n, label, t * 1e3);
        for (b = 0; b < nb; ++b) {
            skel_set_plan(tdot, fixed[b]);
            t = time_dot(vx, vy, &r);
            good &= t >= 0 && fabs(r - ref) <= 1e-5 * mag + 1e-6;
            printf(" %11.3f", t * 1e3);
        }
        printf("  %s\n", good ? "OK" : "WRONG");
        ok &= good;
        skel_free(vx);
        skel_free(vy);
    }
    printf("(omp/N: N threads; fixed backends run with their default parameters, the plan may pick others)\n");
    skel_set_plan(tdot, NULL);
    t0 = wall();
    for (k = 0; k < 1000000; ++k) skel_plan_lookup(plan, 10 + k * 47, &v);
    printf("plan lookup: %.1f ns\n", (wall() - t0) * 1e3);

    printf("\n$ build/skel_plan %s   (the ranges; --json, --svg for more)\n", path);
    fflush(stdout);
    snprintf(cmd, sizeof cmd, "build/skel_plan '%s' | sed -n -e '/^tuning/p' -e '/^variants/,/^points/p' "
             "-e '/^ranges/,$p' | grep -v '^points'", path);
    if (system(cmd) != 0) skel_plan_dump(plan, SKEL_DUMP_TEXT, NULL);
    for (b = 0; b < nb; ++b) skel_plan_free(fixed[b]);
    skel_plan_free(plan);
    free(x);
    free(y);
    return ok;
}

int main(void)
{
    skel_plan *plan[NCPU];
    int present[NCPU], i, b, ok = 1;
    double start = wall();

    printf("skel %s demo\n\nbackends:\n", SKEL_VERSION);
    for (i = 0; i < skel_backend_count(); ++i)
        printf("  %-8s %s\n", skel_backend_name(i),
               skel_backend_available(skel_backend_name(i)) ? "available" : "absent");

    for (b = 0; b < NCPU; ++b) {
        present[b] = skel_backend_available(CPU_BACKENDS[b]);
        skel_plan_new(&plan[b]);
        skel_plan_add(plan[b], 0, SIZE_MAX, &(skel_variant){ .backend = CPU_BACKENDS[b] });
    }

    X = malloc(VEC_N * sizeof *X);
    Y = malloc(VEC_N * sizeof *Y);
    OUT = malloc(VEC_N * sizeof *OUT);
    if (!X || !Y || !OUT) { fprintf(stderr, "out of memory\n"); return 1; }
    srand(1);
    fill_random(X, VEC_N);
    fill_random(Y, VEC_N);
    skel_vec_wrap(&vx, SKEL_FLOAT, VEC_N, X);
    skel_vec_wrap(&vy, SKEL_FLOAT, VEC_N, Y);
    skel_vec_wrap(&vout, SKEL_FLOAT, VEC_N, OUT);
    skel_mat_wrap(&mimg, SKEL_FLOAT, SIDE, SIDE, X);        /* the first 4M of X */
    skel_mat_wrap(&mout, SKEL_FLOAT, SIDE, SIDE, OUT);
    CASES[0].call = (skel_call){ .in = { vx, vy }, .result = &dot_result };
    CASES[1].call = (skel_call){ .in = { vx }, .out = vout };
    CASES[2].call = (skel_call){ .in = { mimg }, .out = mout, .edge = SKEL_EDGE_CONSTANT,
                                 .direction = SKEL_ROWS_COLS };

    printf("\n%-28s %-20s", "skeleton", "size");
    for (b = 0; b < NCPU; ++b)
        if (present[b]) printf(" %8s ms", CPU_BACKENDS[b]);
    printf(" %8s  %-6s %s\n", "speedup", "check", "default choice");

    for (i = 0; i < NCASES; ++i) {
        demo_case *c = &CASES[i];
        double t[NCPU] = { 0 }, last = 0;
        skel_variant v;
        int good = 1;
        printf("%-28s %-20s", c->name, c->size);
        for (b = 0; b < NCPU; ++b) {
            if (!present[b]) continue;
            skel_set_plan(c->sk, plan[b]);
            t[b] = time_call(c);
            if (t[b] < 0) {
                printf("\n%s on %s: %s\n", c->name, CPU_BACKENDS[b], skel_last_error());
                ok = good = 0;
                break;
            }
            printf(" %11.2f", t[b] * 1e3);
            good &= c->check() == 0;      /* the result of this backend's last call */
            last = t[b];
        }
        skel_set_plan(c->sk, NULL);
        if (t[0] > 0 && last > 0) printf(" %8.2fx", t[0] / last);
        else printf(" %9s", "-");
        printf("  %-6s", good ? "OK" : "WRONG");
        if (skel_choose(c->sk, &c->call, &v) == SKEL_OK) {
            printf(" %s", v.backend);
            if (v.threads) printf(" (%d threads)", v.threads);
        }
        printf("\n");
        ok &= good;
    }
    printf("\nspeedup: seq time / time on the last backend listed; "
           "check: the result of every backend against a plain loop\n");

    skel_free(vx); skel_free(vy); skel_free(vout); skel_free(mimg); skel_free(mout);
    for (b = 0; b < NCPU; ++b) skel_plan_free(plan[b]);
    free(X); free(Y); free(OUT);
    ok &= tuner_demo();
    printf("\n(demo took %.1f s)\n", wall() - start);
    return ok ? 0 : 1;
}
