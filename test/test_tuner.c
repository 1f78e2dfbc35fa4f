/* The tuner: dispatch trees on synthetic cost models (no timing noise),
   plan files and their corruption, the dump formats against golden files,
   and a real tuning run on the CPU backends.

   Cost models plug in through skel_tune_desc.cost; their variants have
   made-up backend names ("A", "B", ...) that only lookups see.  Golden
   files live in test/golden/; SKEL_GOLDEN_UPDATE=1 rewrites them. */
#define _POSIX_C_SOURCE 200809L     /* mkdtemp, setenv */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

static const char *test_dir(void);
static unsigned char *read_all(const char *path, size_t *len);

/* ---- cost models ---- */
typedef struct model {
    int calls, stalled, burst;
    double slope[4], base[4];       /* variant k costs base + slope * n (1-D) or * rows * cols (2-D) */
} model;

static double model_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    model *m = (model *)user;
    int k = v->backend[0] - 'A';
    (void)once;
    m->calls++;
    return m->base[k] + m->slope[k] * (double)pt[0] * (double)pt[1];
}

static const skel_variant ABCD[] = { { .backend = "A" }, { .backend = "B" }, { .backend = "C" }, { .backend = "D" } };

/* A: cheap start, steep; B: dear start, flat -> crossover at n = 11000.
   C: dearer still, flatter -> B/C crossover at 1e6. */
static model model_abc(void)
{
    model m;
    memset(&m, 0, sizeof m);
    m.base[0] = 1e-6; m.slope[0] = 1e-8;
    m.base[1] = 1e-4; m.slope[1] = 1e-9;
    m.base[2] = 1e-3; m.slope[2] = 1e-10;
    return m;
}

static skel_tune_desc cost_desc(const char *id, model *m, int nvar)
{
    skel_tune_desc d;
    memset(&d, 0, sizeof d);
    d.id = id;
    d.dims = 1;
    d.lower[0] = 10;
    d.upper[0] = 50000000;
    d.cost = model_cost;
    d.user = m;
    d.variants = ABCD;
    d.nvariants = nvar;
    d.nofile = 1;
    d.quiet = 1;
    d.tolerance = -1;       /* strict: the paper's rule */
    d.prune = -1;
    return d;
}

static int true_best(const model *m, int nvar, double n)
{
    int k, b = 0;
    for (k = 1; k < nvar; ++k)
        if (m->base[k] + m->slope[k] * n < m->base[b] + m->slope[b] * n) b = k;
    return b;
}

static char lookup1(const skel_plan *p, size_t n)
{
    skel_variant v;
    ST_OK(skel_plan_lookup(p, n, &v));
    return v.backend[0];
}

/* Every wrong answer lies within one deepest leaf of a crossover. */
static void check_crossovers(const skel_plan *p, const model *m, int nvar, const double *cross, int ncross)
{
    skel_plan_stats st;
    double leaf, n;
    int i, k, wrong = 0;
    ST_OK(skel_plan_stats_get(p, &st));
    leaf = exp(log(5e7 / 10) / (double)(1 << st.depth));    /* a deepest leaf's ratio hi/lo */
    for (i = 0; i <= 4000; ++i) {
        n = floor(10 * exp(log(5e6) * i / 4000.0));
        if ('A' + true_best(m, nvar, n) == lookup1(p, (size_t)n)) continue;
        wrong++;
        for (k = 0; k < ncross; ++k)
            if (n / cross[k] < leaf * 1.0001 && cross[k] / n < leaf * 1.0001) break;
        if (k == ncross) ST_FAIL("n = %.0f answers %c, the best is %c, and no crossover is within a leaf", n,
                                 lookup1(p, (size_t)n), 'A' + true_best(m, nvar, n));
    }
    ST_CHECK(wrong < 40);
}

SKEL_TEST(tuner_finds_crossover_within_one_leaf)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("ab", &m, 2);
    skel_plan *p;
    skel_plan_stats st;
    double cross = 11000;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.tuned, 1);
    ST_EQ_INT(st.loaded, 0);
    ST_EQ_INT(st.depth, 10);
    ST_CHECK(st.points <= 2 + 2 * 10);      /* one split per level follows the crossover */
    ST_CHECK(st.measurements >= 2 * st.points);   /* each variant at each point, in rounds */
    ST_EQ_INT(lookup1(p, 10), 'A');
    ST_EQ_INT(lookup1(p, 50000000), 'B');
    ST_EQ_INT(lookup1(p, 5), 'A');          /* outside the bounds: clamped */
    ST_EQ_INT(lookup1(p, (size_t)1e9), 'B');
    check_crossovers(p, &m, 2, &cross, 1);
    skel_plan_free(p);
}

SKEL_TEST(tuner_finds_two_crossovers_among_three_variants)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("abc", &m, 3);
    skel_plan *p;
    double cross[2] = { 11000, 1e6 };
    ST_OK(skel_tune(&d, &p));
    ST_EQ_INT(lookup1(p, 1000), 'A');
    ST_EQ_INT(lookup1(p, 100000), 'B');
    ST_EQ_INT(lookup1(p, 10000000), 'C');
    check_crossovers(p, &m, 3, cross, 2);
    skel_plan_free(p);
}

/* C (like omp with many threads: small fixed cost, middling slope) loses
   at the first three points (10, 6325, 4e6) to A (seq) and B (a GPU) but
   wins from n = 22 to 3957: pruning must not drop it. */
SKEL_TEST(tuner_keeps_a_variant_that_wins_only_between_measured_points)
{
    model m;
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    double cross[2] = { 4e-6 / 1.86e-7, 5.5e-5 / 1.39e-8 };
    memset(&m, 0, sizeof m);
    m.base[0] = 1e-6; m.slope[0] = 2e-7;
    m.base[1] = 6e-5; m.slope[1] = 1e-10;
    m.base[2] = 5e-6; m.slope[2] = 1.4e-8;
    d = cost_desc("prune-middle", &m, 3);
    d.upper[0] = 4000000;
    d.prune = 0.25;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.pruned, 0);
    ST_EQ_INT(lookup1(p, 300), 'C');
    ST_EQ_INT(lookup1(p, 10), 'A');
    ST_EQ_INT(lookup1(p, 100000), 'B');
    check_crossovers(p, &m, 3, cross, 2);
    skel_plan_free(p);
}

SKEL_TEST(tuner_linear_split_also_converges)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("ab-linear", &m, 2);
    skel_plan *p;
    d.split = SKEL_SPLIT_LINEAR;
    d.max_depth = 30;
    ST_OK(skel_tune(&d, &p));
    ST_EQ_INT(lookup1(p, 10000), 'A');
    ST_EQ_INT(lookup1(p, 12000), 'B');
    skel_plan_free(p);
}

/* winners flip pseudo-randomly from point to point: the tree never closes */
static double noisy_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    uint64_t h = (uint64_t)pt[0] * 0x9E3779B97F4A7C15ULL ^ (uint64_t)pt[1] * 0xC2B2AE3D27D4EB4FULL;
    (void)once;
    ((model *)user)->calls++;
    h ^= h >> 29;
    h += 1;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return 1e-4 * (1 + (double)((h % 4) != (uint64_t)(v->backend[0] - 'A')));
}

SKEL_TEST(tuner_depth_node_and_time_limits_hold)
{
    model m;
    skel_tune_desc d = cost_desc("limits", &m, 4);
    skel_plan *p;
    skel_plan_stats st;
    memset(&m, 0, sizeof m);
    d.cost = noisy_cost;
    d.max_depth = 3;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.depth, 3);                 /* reached, not passed */
    ST_CHECK(st.nodes <= 15);
    skel_plan_free(p);

    d.max_depth = 0;                        /* default 10 */
    d.max_nodes = 9;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_CHECK(st.nodes <= 9);
    ST_CHECK(st.nodes >= 3);
    skel_plan_free(p);

    /* each point costs 4 variants x 3 reps x 2 calls x 1e-4..2e-4 s <= 4.8 ms */
    d.max_nodes = 0;
    d.time_budget = 0.05;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_CHECK(st.tune_seconds <= 0.05 + 4.8e-3);
    ST_CHECK(st.tune_seconds >= 0.05 - 2 * 4.8e-3);
    ST_CHECK(st.points < 40);
    skel_plan_free(p);

    d.time_budget = 0;                      /* per-measurement timeout drops a variant there */
    d.cost = model_cost;
    d.nvariants = 2;
    m = model_abc();
    d.timeout = 0.1;                        /* A takes longer from n = 1e7 on */
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(lookup1(p, 50000000), 'B');
    {
        char path[600];
        size_t len;
        unsigned char *text;
        snprintf(path, sizeof path, "%s/timeout.txt", test_dir());
        ST_OK(skel_plan_dump(p, SKEL_DUMP_TEXT, path));
        text = read_all(path, &len);
        ST_CHECK(text != NULL);
        text[len] = 0;
        ST_CHECK(strstr((char *)text, " 50000000 [") != NULL);          /* [its measuring time] */
        ST_CHECK(strstr((char *)text, "s]:  A timeout  B 5.01e+04+0*") != NULL);
        free(text);
    }
    skel_plan_free(p);
}

/* A: 10 us a call; B: 1 us a call plus 50 us once per data (a GPU's
   upload).  T(r) = R*r + F: A wins for r < 5.6, B from r = 6 on. */
static double once_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    (void)pt; (void)user;
    if (v->backend[0] == 'A') return 10e-6;
    *once = 50e-6;
    return 1e-6;
}

SKEL_TEST(tuner_ranks_by_r_calls_plus_once)
{
    static const int r[] = { 0, 1, 5, 6, 10 };
    static const char want[] = { 'A', 'A', 'A', 'B', 'B' };    /* 0: the default, r = 1 */
    model m = model_abc();
    skel_tune_desc d = cost_desc("repeats", &m, 2);
    skel_plan *p;
    int i;
    d.cost = once_cost;
    for (i = 0; i < 5; ++i) {
        d.repeats = r[i];
        ST_OK(skel_tune(&d, &p));
        ST_EQ_INT(lookup1(p, 10), want[i]);
        ST_EQ_INT(lookup1(p, 123456), want[i]);
        ST_EQ_INT(lookup1(p, 50000000), want[i]);
        skel_plan_free(p);
    }
}

/* model_abc, but the first three times A is measured at an n in 400 ..
   500 (the split of 10 .. 22361 at 473) it takes 30 times as long, as
   omp/16 once did on the H100 machine (a burst that outlasts most of the
   point's rounds): B looks best there.  A is 30 times cheaper than that at
   larger points measured later, which gives 473 a second look, and the
   plan answers A up to the true crossover. */
static double stall_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    model *m = (model *)user;
    double c = model_cost(v, pt, once, user);
    if (v->backend[0] == 'A' && pt[0] >= 400 && pt[0] <= 500 && m->stalled++ < (m->burst ? m->burst : 3)) c *= 30;
    return c;
}

SKEL_TEST(tuner_looks_again_where_a_time_breaks_the_order_of_sizes)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("stall", &m, 2);
    skel_plan *p;
    skel_plan_stats st;
    double cross = 11000;
    d.cost = stall_cost;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(lookup1(p, 473), 'A');
    ST_EQ_INT(lookup1(p, 2000), 'A');
    check_crossovers(p, &m, 2, &cross, 1);
    ST_CHECK(m.stalled >= 5);               /* the stalls, and a second look there */
    ST_CHECK(st.rechecks >= 1);
    skel_plan_free(p);
    ST_OK(skel_tune(&d, &p));               /* without the stall: no second look */
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.rechecks, 0);
    skel_plan_free(p);
    /* a burst through the rounds and the first second look too: the
       refinement looks again, later */
    m = model_abc();
    m.burst = 7;
    ST_OK(skel_tune(&d, &p));
    ST_EQ_INT(lookup1(p, 473), 'A');
    ST_EQ_INT(lookup1(p, 2000), 'A');
    check_crossovers(p, &m, 2, &cross, 1);
    ST_CHECK(m.stalled > 7);
    skel_plan_free(p);
}

/* A: 100 us + 0.1 ns a element, B: 1 us + 0.12 ns: A wins from 4.95e6 on,
   by 15% at the top corner, 5e7.  A burst of interference makes A's first
   measurement there 1.4 times as long, not enough for the order of sizes
   to call for a second look.  Timed in one go, that one measurement is
   all of A's samples at the corner and the plan answers B there; timed
   in rounds, B's samples come between A's, the burst spoils one of them,
   and the lower median is A's real time. */
static double burst_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    model *m = (model *)user;
    double c = model_cost(v, pt, once, user);
    if (v->backend[0] == 'A' && pt[0] >= 40000000 && !m->stalled++) c *= 1.4;
    return c;
}

SKEL_TEST(tuner_rounds_outlast_a_burst_on_one_variant)
{
    model m;
    skel_tune_desc d = cost_desc("burst", &m, 2);
    skel_plan *p;
    memset(&m, 0, sizeof m);
    m.base[0] = 1e-4; m.slope[0] = 1e-10;
    m.base[1] = 1e-6; m.slope[1] = 1.2e-10;
    d.cost = burst_cost;
    ST_OK(skel_tune(&d, &p));
    ST_EQ_INT(m.stalled > 1, 1);            /* A ran at the corner after the burst too */
    ST_EQ_INT(lookup1(p, 50000000), 'A');
    ST_EQ_INT(lookup1(p, 45000000), 'A');
    ST_EQ_INT(lookup1(p, 1000000), 'B');
    skel_plan_free(p);
}

/* seq, pool/2 and pool/4 on a busy machine: the pool variants' workers
   find no free core, so each costs seq's time plus a little (user: pool/2's
   and pool/4's time over seq's). */
static double busy_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    const double *slow = (const double *)user;
    double seq = 1e-6 + 1e-9 * (double)pt[0] * (double)pt[1];
    (void)once;
    return v->backend[0] == 's' ? seq : (v->threads == 2 ? slow[0] : slow[1]) * seq;
}

/* A tie within tolerance between seq and pool variants goes to the most
   threads (the phase where they find their cores pays up to 4 times);
   a pool variant 10% slower still loses.  1-D (points, 1-D open leaves)
   and 2-D (node agreement, interpolated open leaves). */
SKEL_TEST(tuner_cpu_tie_goes_to_the_pool_variant_with_more_threads)
{
    static const skel_variant cpu[] = { { .backend = "seq" }, { .backend = "pool", .threads = 2 },
                                        { .backend = "pool", .threads = 4 } };
    static const size_t at[4][2] = { { 10, 10 }, { 700, 300 }, { 16, 2048 }, { 3000, 3000 } };
    double slow[2];
    skel_tune_desc d;
    skel_plan *p;
    skel_variant v;
    int dims, k, i;
    for (dims = 1; dims <= 2; ++dims)
        for (k = 0; k < 2; ++k) {
            memset(&d, 0, sizeof d);
            d.id = "tie";
            d.dims = dims;
            d.lower[0] = d.lower[1] = 10;
            d.upper[0] = d.upper[1] = dims == 1 ? 9000000 : 3000;
            d.cost = busy_cost;
            d.user = slow;
            d.variants = cpu;
            d.nvariants = 3;
            d.nofile = 1;
            d.quiet = 1;
            slow[0] = k ? 1.10 : 1.01;      /* k = 0: within the 3% tolerance */
            slow[1] = k ? 1.20 : 1.02;
            ST_OK(skel_tune(&d, &p));
            for (i = 0; i < 4; ++i) {
                size_t pt[2];
                pt[0] = dims == 1 ? at[i][0] * at[i][1] : at[i][0];
                pt[1] = at[i][1];
                ST_OK(skel_plan_lookup_point(p, pt, dims, &v));
                if (k == 0 && (strcmp(v.backend, "pool") != 0 || v.threads != 4))
                    ST_FAIL("%d-D, a tie at %zu x %zu answers %s/%d, not pool/4", dims, at[i][0], at[i][1], v.backend, v.threads);
                if (k == 1 && strcmp(v.backend, "seq") != 0)
                    ST_FAIL("%d-D, at %zu x %zu pool loses by 10%% and the plan answers %s/%d", dims, at[i][0], at[i][1],
                            v.backend, v.threads);
            }
            skel_plan_free(p);
        }
}

SKEL_TEST(tuner_open_leaf_answers_nearest_corner)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("nearest", &m, 2);
    skel_plan *p;
    skel_plan_stats st;
    d.upper[0] = 1000000;
    d.max_nodes = 1;                        /* the root only: an open leaf */
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.nodes, 1);
    ST_EQ_INT(st.open_leaves, 1);
    /* log-space middle of 10 .. 1e6 is sqrt(1e7) = 3162.3 */
    ST_EQ_INT(lookup1(p, 3162), 'A');
    ST_EQ_INT(lookup1(p, 3163), 'B');
    ST_EQ_INT(lookup1(p, 5000), 'B');       /* truly A, but nearer the B corner */
    skel_plan_free(p);
}

/* At n = 10 A beats B by `user` (a share); at the upper end B is twice as fast. */
static double tie_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    double lead = *(const double *)user;
    (void)once;
    if (pt[0] <= 10) return v->backend[0] == 'A' ? 1e-3 : 1e-3 * (1 + lead);
    return v->backend[0] == 'A' ? 2e-3 : 1e-3;
}

SKEL_TEST(tuner_open_leaf_breaks_corner_ties_by_the_other_corners)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("ties", &m, 2);
    skel_plan *p;
    double lead;
    d.cost = tie_cost;
    d.user = &lead;
    d.upper[0] = 1000000;
    d.max_nodes = 1;                        /* the root only: an open leaf */
    d.tolerance = 0.03;
    lead = 0.02;                            /* a tie at n = 10: B, better over the leaf */
    ST_OK(skel_tune(&d, &p));
    ST_EQ_INT(lookup1(p, 11), 'B');
    ST_EQ_INT(lookup1(p, 999999), 'B');
    skel_plan_free(p);
    lead = 0.10;                            /* A clearly wins at n = 10: nearest corner */
    ST_OK(skel_tune(&d, &p));
    ST_EQ_INT(lookup1(p, 11), 'A');
    ST_EQ_INT(lookup1(p, 999999), 'B');
    skel_plan_free(p);
    lead = 0.02;
    d.tolerance = -1;                       /* strict: no ties, the nearest corner */
    ST_OK(skel_tune(&d, &p));
    ST_EQ_INT(lookup1(p, 11), 'A');
    skel_plan_free(p);
}

/* A: 0.1 ms + 10 ns an element, B: 1 ms + 1 ns: A wins below rows * cols =
   1e5, a curve through the root box [1, 10000]^2 whose corners are A, A,
   A and B.  Interpolated bilinearly (exact for such costs), the open root
   answers on the right side of the curve; the nearest corner (seed 000's
   rule) answered B at 150 x 150 and A at 5000 x 30. */
static double area_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    double a = (double)pt[0] * (double)pt[1];
    (void)once; (void)user;
    return v->backend[0] == 'A' ? 1e-4 + 1e-8 * a : 1e-3 + 1e-9 * a;
}

SKEL_TEST(tuner_2d_open_leaf_interpolates_between_corners)
{
    static const size_t pts[][2] = { { 150, 150 }, { 300, 300 }, { 400, 400 }, { 5000, 30 }, { 30, 3000 },
                                     { 9000, 11 }, { 1, 10000 }, { 10000, 10000 } };
    skel_tune_desc d = cost_desc("interp2d", NULL, 2);
    skel_plan *p;
    skel_plan_stats st;
    skel_variant v;
    size_t i;
    d.cost = area_cost;
    d.dims = 2;
    d.lower[0] = d.lower[1] = 1;
    d.upper[0] = d.upper[1] = 10000;
    d.max_nodes = 1;                        /* the root only: an open leaf */
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.open_leaves, 1);
    for (i = 0; i < sizeof pts / sizeof pts[0]; ++i) {
        char want = (double)pts[i][0] * (double)pts[i][1] < 1e5 ? 'A' : 'B';
        ST_OK(skel_plan_lookup_point(p, pts[i], 2, &v));
        if (v.backend[0] != want) ST_FAIL("%zu x %zu answers %c, the best is %c", pts[i][0], pts[i][1], v.backend[0], want);
    }
    ST_CHECK(skel_plan_lookup_point(p, pts[0], 1, &v) == SKEL_EINVAL);
    skel_plan_free(p);
}

void _skel_test_tree_answers(const skel_plan *p, const size_t *point, int *lookup, int *fresh);   /* skel.h */

/* Points for the memo tests: log-uniform in [1, 10000]^2, repeats and
   neighbours included (a direct-mapped memo must never answer for
   another point that shares its slot). */
typedef struct memo_job { const skel_plan *p; unsigned seed; int wrong, lookups; } memo_job;

static void *memo_lookups(void *arg)
{
    memo_job *j = (memo_job *)arg;
    unsigned s = j->seed;
    int k, got, want;
    for (k = 0; k < 20000; ++k) {
        size_t pt[2];
        s = s * 1103515245u + 12345u;
        pt[0] = 1 + (size_t)floor(exp(log(1e4) * (double)((s >> 8) % 1000) / 999.0)) % 10000;
        s = s * 1103515245u + 12345u;
        pt[1] = (k % 7 == 0 ? pt[0] : 1 + (size_t)floor(exp(log(1e4) * (double)((s >> 8) % 1000) / 999.0)) % 10000);
        _skel_test_tree_answers(j->p, pt, &got, &want);
        j->wrong += got != want;
        j->lookups++;
    }
    return NULL;
}

/* A 2-D plan's lookups are remembered per point (_skel_tree_lookup): the
   remembered answer is the computed one at every point, from one thread
   and from eight at once. */
SKEL_TEST(tuner_2d_lookup_memo_answers_as_computed)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("memo2d", &m, 3);
    skel_plan *p;
    skel_plan_stats st;
    memo_job jobs[8];
    pthread_t th[8];
    int t;
    d.dims = 2;
    d.lower[0] = d.lower[1] = 1;
    d.upper[0] = d.upper[1] = 10000;
    d.max_nodes = 40;                       /* open leaves: answers interpolated */
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_CHECK(st.open_leaves > 0);
    memset(jobs, 0, sizeof jobs);
    jobs[0].p = p; jobs[0].seed = 1;
    memo_lookups(&jobs[0]);                 /* one thread, then again: the memo's answers */
    memo_lookups(&jobs[0]);
    ST_EQ_INT(jobs[0].wrong, 0);
    for (t = 0; t < 8; ++t) { jobs[t].p = p; jobs[t].seed = 1 + (unsigned)t % 3; jobs[t].wrong = 0; }
    for (t = 0; t < 8; ++t) ST_CHECK(pthread_create(&th[t], NULL, memo_lookups, &jobs[t]) == 0);
    for (t = 0; t < 8; ++t) pthread_join(th[t], NULL);
    for (t = 0; t < 8; ++t) ST_EQ_INT(jobs[t].wrong, 0);
    skel_plan_free(p);
}

SKEL_TEST(tuner_2d_crossover_is_confined_to_deepest_leaves)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("cross2d", &m, 2);
    skel_plan *p;
    skel_plan_stats st;
    skel_variant v;
    size_t pt[2];
    int i, j, wrong = 0;
    double leaf;
    d.dims = 2;
    d.lower[0] = d.lower[1] = 1;
    d.upper[0] = d.upper[1] = 10000;
    d.max_depth = 6;
    d.max_nodes = 100000;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.dims, 2);
    ST_EQ_INT(st.depth, 6);
    leaf = exp(log(1e4) / 64);              /* a deepest leaf's side ratio */
    for (i = 0; i < 60; ++i)
        for (j = 0; j < 60; ++j) {
            double rc;
            pt[0] = (size_t)floor(exp(log(1e4) * i / 59.0));
            pt[1] = (size_t)floor(exp(log(1e4) * j / 59.0));
            rc = (double)pt[0] * (double)pt[1];
            ST_OK(skel_plan_lookup_point(p, pt, 2, &v));
            if (v.backend[0] == (rc < 11000 ? 'A' : 'B')) continue;
            wrong++;
            ST_CHECK(rc / 11000 < leaf * leaf * 1.01 && 11000 / rc < leaf * leaf * 1.01);
        }
    ST_CHECK(wrong < 60);
    ST_CHECK(st.points < 2000);
    skel_plan_free(p);
}

/* A separable blur on the H100 machine, in seconds at rows x cols = a
   elements, host data: S one core; P/t t threads (imperfect past 8); G
   (CUDA-like: 8 kernel geometries) and H (OpenCL-like: 3) pay an upload
   and a download per first call, the same for every geometry, and differ
   a little in R.  The 4096 x 4096 corner costs about 0.8 s of measuring
   with every variant timed five times. */
static const skel_variant BLUR[] = {
    { .backend = "S", .threads = 0, .block = 0, .grid = 0, .devices = 0 }, { .backend = "P", .threads = 1, .block = 0, .grid = 0, .devices = 0 }, { .backend = "P", .threads = 2, .block = 0, .grid = 0, .devices = 0 }, { .backend = "P", .threads = 4, .block = 0, .grid = 0, .devices = 0 }, { .backend = "P", .threads = 8, .block = 0, .grid = 0, .devices = 0 },
    { .backend = "P", .threads = 16, .block = 0, .grid = 0, .devices = 0 }, { .backend = "G", .threads = 0, .block = 128, .grid = 1, .devices = 0 }, { .backend = "G", .threads = 0, .block = 128, .grid = 4, .devices = 0 }, { .backend = "G", .threads = 0, .block = 256, .grid = 1, .devices = 0 }, { .backend = "G", .threads = 0, .block = 256, .grid = 4, .devices = 0 },
    { .backend = "G", .threads = 0, .block = 512, .grid = 1, .devices = 0 }, { .backend = "G", .threads = 0, .block = 512, .grid = 4, .devices = 0 }, { .backend = "G", .threads = 0, .block = 1024, .grid = 1, .devices = 0 }, { .backend = "G", .threads = 0, .block = 1024, .grid = 4, .devices = 0 },
    { .backend = "H", .threads = 0, .block = 128, .grid = 0, .devices = 0 }, { .backend = "H", .threads = 0, .block = 256, .grid = 0, .devices = 0 }, { .backend = "H", .threads = 0, .block = 512, .grid = 0, .devices = 0 } };
#define NBLUR (int)(sizeof BLUR / sizeof BLUR[0])

static double blur_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    double a = (double)pt[0] * (double)pt[1], geo = 1 + 0.1 * fabs(log2((double)(v->block ? v->block : 256) / 256));
    (void)user;
    switch (v->backend[0]) {
    case 'S': return 1e-6 + 4e-9 * a;
    case 'P': return 4e-6 + 0.3e-6 * v->threads + 4e-9 * a / (v->threads > 8 ? 0.75 * v->threads : v->threads);
    case 'G': *once = 20e-6 + 1.5e-9 * a; return (6e-6 + 4e-11 * a) * geo * (v->grid == 4 ? 1.02 : 1);
    default: *once = 25e-6 + 1.5e-9 * a; return (9e-6 + 5e-11 * a) * geo;
    }
}

static double blur_time(const skel_variant *v, const size_t *pt)
{
    double once = 0, r = blur_cost(v, pt, &once, NULL);
    return r + once;
}

/* The budget buys a tree, not four precise corners: 16 .. 4096 on both
   sides in 5 s reaches depth 2 or more, and the plan is within 20% of the
   best variant at 9 in 10 of a grid of points. */
SKEL_TEST(tuner_2d_budget_reaches_depth_2_at_blur_sizes)
{
    skel_tune_desc d = cost_desc("blur2d", NULL, NBLUR);
    skel_plan *p;
    skel_plan_stats st;
    skel_variant v;
    size_t pt[2];
    int i, j, k, good = 0, all = 0;
    d.cost = blur_cost;
    d.variants = BLUR;
    d.dims = 2;
    d.lower[0] = d.lower[1] = 16;
    d.upper[0] = d.upper[1] = 4096;
    d.time_budget = 5;
    d.tolerance = 0;
    d.prune = 0;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_CHECK(st.depth >= 2);
    ST_CHECK(st.tune_seconds <= 5.5);
    for (i = 0; i < 12; ++i)
        for (j = 0; j < 12; ++j) {
            double best = 1e30, got;
            pt[0] = (size_t)floor(16 * pow(256, (i + 0.5) / 12));
            pt[1] = (size_t)floor(16 * pow(256, (j + 0.5) / 12));
            for (k = 0; k < NBLUR; ++k)
                if (blur_time(&BLUR[k], pt) < best) best = blur_time(&BLUR[k], pt);
            ST_OK(skel_plan_lookup_point(p, pt, 2, &v));
            got = blur_time(&v, pt);
            good += best / got >= 0.8;
            all++;
        }
    if (good < all * 9 / 10) ST_FAIL("depth %d, %d points: %d of %d grid points within 20%% of the best", st.depth,
                                     st.points, good, all);
    skel_plan_free(p);
}

/* ---- plan files ---- */
static char tmpdir[64];

static const char *test_dir(void)
{
    if (!tmpdir[0]) {
        snprintf(tmpdir, sizeof tmpdir, "/tmp/skel_tuner_XXXXXX");
        if (!mkdtemp(tmpdir)) ST_FAIL("mkdtemp failed");
    }
    return tmpdir;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = (unsigned char *)malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); b = NULL; }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void write_all(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    ST_CHECK(f != NULL);
    ST_CHECK(fwrite(b, 1, len, f) == len);
    fclose(f);
}

/* the documented checksum: FNV-1a 64 of every byte before it */
static void fix_checksum(unsigned char *b, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;
    for (i = 0; i < len - 8; ++i) { h ^= b[i]; h *= 0x100000001b3ULL; }
    for (i = 0; i < 8; ++i) b[len - 8 + i] = (unsigned char)(h >> (8 * i));
}

static int files_equal(const char *a, const char *b)
{
    size_t la, lb;
    unsigned char *x = read_all(a, &la), *y = read_all(b, &lb);
    int eq = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return eq;
}

SKEL_TEST(tuner_plan_file_round_trips_and_is_reused)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("roundtrip", &m, 3);
    skel_plan *p, *q;
    skel_plan_stats st;
    char path[512], a[600], b[600];
    size_t n;
    int calls;
    d.nofile = 0;
    d.dir = test_dir();
    d.tolerance = 0;
    ST_OK(skel_tune(&d, &p));
    ST_CHECK(m.calls > 0);
    ST_OK(skel_plan_path("roundtrip", d.dir, path, sizeof path));
    ST_CHECK(access(path, R_OK) == 0);

    /* same configuration, same machine: loaded, nothing measured */
    calls = m.calls;
    ST_OK(skel_tune(&d, &q));
    ST_EQ_INT(m.calls, calls);
    ST_OK(skel_plan_stats_get(q, &st));
    ST_EQ_INT(st.loaded, 1);
    for (n = 10; n < 50000000; n = n * 5 / 4 + 1) ST_EQ_INT(lookup1(p, n), lookup1(q, n));
    snprintf(a, sizeof a, "%s/a.txt", d.dir);
    snprintf(b, sizeof b, "%s/b.txt", d.dir);
    ST_OK(skel_plan_dump(p, SKEL_DUMP_JSON, a));
    ST_OK(skel_plan_dump(q, SKEL_DUMP_JSON, b));
    ST_CHECK(files_equal(a, b));
    skel_plan_free(q);

    /* another configuration re-tunes */
    d.max_depth = 7;
    ST_OK(skel_tune(&d, &q));
    ST_CHECK(m.calls > calls);
    ST_OK(skel_plan_stats_get(q, &st));
    ST_EQ_INT(st.loaded, 0);
    skel_plan_free(q);

    /* SKEL_RETUNE=1 re-tunes even a matching file */
    calls = m.calls;
    setenv("SKEL_RETUNE", "1", 1);
    ST_OK(skel_tune(&d, &q));
    unsetenv("SKEL_RETUNE");
    ST_CHECK(m.calls > calls);
    skel_plan_free(q);
    calls = m.calls;
    ST_OK(skel_tune(&d, &q));
    ST_EQ_INT(m.calls, calls);
    skel_plan_free(q);
    skel_plan_free(p);
}

SKEL_TEST(tuner_plan_file_corruption_is_rejected)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("corrupt", &m, 3);
    skel_plan *p, *q;
    char path[512], bad[600];
    unsigned char *img, *mut;
    size_t len, i, k;
    int calls, rc;
    uint64_t rng = 12345;
    d.nofile = 0;
    d.dir = test_dir();
    d.max_depth = 4;
    ST_OK(skel_tune(&d, &p));
    skel_plan_free(p);
    ST_OK(skel_plan_path("corrupt", d.dir, path, sizeof path));
    img = read_all(path, &len);
    ST_CHECK(img != NULL && len > 100);
    mut = (unsigned char *)malloc(len);
    snprintf(bad, sizeof bad, "%s/bad.plan", d.dir);

    for (i = 0; i < len; ++i) {             /* truncation at every byte */
        write_all(bad, img, i);
        rc = skel_plan_load(&q, bad);
        if (rc != SKEL_EFORMAT) ST_FAIL("truncated to %zu of %zu bytes: %s", i, len, skel_error_string(rc));
        ST_CHECK(q == NULL);
    }
    for (i = 0; i < len; ++i)               /* a flipped bit in every byte */
        for (k = 0; k < (i < 32 ? 8u : 1u); ++k) {
            memcpy(mut, img, len);
            mut[i] ^= (unsigned char)(1u << ((i + k) % 8));
            write_all(bad, mut, len);
            rc = skel_plan_load(&q, bad);
            if (rc != SKEL_EFORMAT) ST_FAIL("bit %zu of byte %zu flipped: %s", (i + k) % 8, i, skel_error_string(rc));
        }
    memcpy(mut, img, len);                  /* wrong magic */
    mut[0] = 'X';
    write_all(bad, mut, len);
    ST_EQ_INT(skel_plan_load(&q, bad), SKEL_EFORMAT);
    ST_CHECK(strstr(skel_last_error(), "magic") != NULL);
    memcpy(mut, img, len);                  /* a future version, checksum intact */
    mut[8] = 5;
    fix_checksum(mut, len);
    write_all(bad, mut, len);
    ST_EQ_INT(skel_plan_load(&q, bad), SKEL_EFORMAT);
    ST_CHECK(strstr(skel_last_error(), "newer") != NULL);
    memcpy(mut, img, len);                  /* flags the format does not define, checksum intact */
    mut[12] = 1;
    fix_checksum(mut, len);
    write_all(bad, mut, len);
    ST_EQ_INT(skel_plan_load(&q, bad), SKEL_EFORMAT);
    ST_CHECK(strstr(skel_last_error(), "flags") != NULL);
    ST_EQ_INT(skel_plan_load(&q, "/nonexistent/x.plan"), SKEL_EIO);

    /* random mutations with a valid checksum reach the structural checks:
       rejected or loaded, never a crash, and a loaded plan answers */
    for (i = 0; i < 3000; ++i) {
        size_t pos;
        memcpy(mut, img, len);
        for (k = 0; k < 1 + i % 4; ++k) {
            rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
            pos = 24 + (size_t)(rng % (len - 32));
            mut[pos] = (unsigned char)(rng >> 40);
        }
        fix_checksum(mut, len);
        write_all(bad, mut, len);
        rc = skel_plan_load(&q, bad);
        ST_CHECK(rc == SKEL_OK || rc == SKEL_EFORMAT);
        if (rc == SKEL_OK) {
            skel_variant v;
            size_t pt[2] = { 1000, 1000 };
            skel_plan_lookup_point(q, pt, 1, &v);
            skel_plan_free(q);
        }
    }

    /* another machine's plan (fingerprint changed, checksum intact) re-tunes */
    memcpy(mut, img, len);
    for (i = 0; i + 5 < len && memcmp(mut + i, "cpu: ", 5) != 0; ++i) {}
    ST_CHECK(i + 5 < len);
    mut[i + 5] ^= 0x20;
    fix_checksum(mut, len);
    write_all(path, mut, len);
    ST_OK(skel_plan_load(&q, path));        /* a valid file ... */
    skel_plan_free(q);
    calls = m.calls;
    ST_OK(skel_tune(&d, &q));               /* ... but not this machine's */
    ST_CHECK(m.calls > calls);
    skel_plan_free(q);
    /* a corrupted file is reported and re-tuned, then replaced */
    memcpy(mut, img, len);
    mut[len / 2] ^= 1;
    write_all(path, mut, len);
    calls = m.calls;
    ST_OK(skel_tune(&d, &q));
    ST_CHECK(m.calls > calls);
    skel_plan_free(q);
    ST_OK(skel_plan_load(&q, path));
    skel_plan_free(q);
    free(mut);
    free(img);
}

/* ---- golden files of the dump formats ---- */
static void golden_dir(char *buf, size_t size)
{
    const char *f = __FILE__, *slash = strrchr(f, '/');
    if (slash) snprintf(buf, size, "%.*s/golden", (int)(slash - f), f);
    else snprintf(buf, size, "golden");
}

static void check_golden(const char *name, skel_tune_desc *d)
{
    char dir[512], plan[700], want[700], got[700];
    const char *ext[3] = { "txt", "json", "svg" };
    skel_plan *p;
    int f;
    golden_dir(dir, sizeof dir);
    snprintf(plan, sizeof plan, "%s/%s.plan", dir, name);
    if (getenv("SKEL_GOLDEN_UPDATE")) {
        ST_OK(skel_tune(d, &p));
        ST_OK(skel_plan_save(p, plan));
        skel_plan_free(p);
    }
    if (access(plan, R_OK) != 0) ST_SKIP("no golden files at %s (run from the repository root)", dir);
    ST_OK(skel_plan_load(&p, plan));
    for (f = 0; f < 3; ++f) {
        snprintf(want, sizeof want, "%s/%s.%s", dir, name, ext[f]);
        snprintf(got, sizeof got, "%s/golden_%s.%s", test_dir(), name, ext[f]);
        ST_OK(skel_plan_dump(p, f, getenv("SKEL_GOLDEN_UPDATE") ? want : got));
        if (!getenv("SKEL_GOLDEN_UPDATE") && !files_equal(want, got))
            ST_FAIL("%s differs from %s (diff them; SKEL_GOLDEN_UPDATE=1 rewrites)", got, want);
    }
    skel_plan_free(p);
}

SKEL_TEST(tuner_dump_matches_golden_files)
{
    model m = model_abc();
    skel_tune_desc d = cost_desc("golden-1d", &m, 3);
    d.max_depth = 5;
    check_golden("plan1d", &d);
    d = cost_desc("golden-2d", &m, 2);
    d.dims = 2;
    d.lower[0] = d.lower[1] = 1;
    d.upper[0] = d.upper[1] = 10000;
    d.max_depth = 3;
    check_golden("plan2d", &d);
}

/* Files of formats 1 and 2 (without the instance's form) load and answer;
   skel_tune tunes their configuration again and then uses the new file. */
static void load_old_format_and_retune(const char *name)
{
    char dir[512], old[700], path[700];
    skel_plan *p, *q;
    skel_plan_stats st;
    skel_variant v;
    size_t x = 100;
    model m = model_abc();
    skel_tune_desc d = cost_desc("golden-1d", &m, 3);
    unsigned char *img;
    size_t len;
    golden_dir(dir, sizeof dir);
    snprintf(old, sizeof old, "%s/%s", dir, name);
    if (access(old, R_OK) != 0) ST_SKIP("no golden files at %s (run from the repository root)", dir);
    st_context("%s", name);
    ST_OK(skel_plan_load(&p, old));
    ST_OK(skel_plan_lookup_point(p, &x, 1, &v));
    ST_EQ_INT(v.tiling, 0);                     /* (no tiling before format 3) */
    skel_plan_free(p);
    ST_CHECK((img = read_all(old, &len)) != NULL);
    d.max_depth = 5;
    d.nofile = 0;
    d.dir = test_dir();
    ST_OK(skel_plan_path(d.id, d.dir, path, sizeof path));
    write_all(path, img, len);
    ST_OK(skel_tune(&d, &q));
    ST_OK(skel_plan_stats_get(q, &st));
    ST_EQ_INT(st.loaded, 0);                    /* tuned again ... */
    skel_plan_free(q);
    ST_OK(skel_tune(&d, &q));
    ST_OK(skel_plan_stats_get(q, &st));
    ST_EQ_INT(st.loaded, 1);                    /* ... and the new file is used */
    skel_plan_free(q);
    free(img);
}

SKEL_TEST(tuner_loads_format_1_and_2_files_and_retunes_them)
{
    load_old_format_and_retune("plan1d_v1.plan");
    load_old_format_and_retune("plan1d_v2.plan");
}

/* Format 3 carries each variant's tiling (a GPU SKEL_CONV2D's register
   tiling): a tiling survives a save and a load.  A format 3 file written
   before the tiling was added (plan1d_v3_pretiling.plan, unreleased) is
   refused, not misread. */
SKEL_TEST(tuner_plan_files_keep_tiling)
{
    static const skel_variant tv[] = { { .backend = "A", .tiling = SKEL_TILING_OCCUPANCY },
                                       { .backend = "B", .tiling = 16 } };
    char dir[512], path[700];
    model m = model_abc();
    skel_tune_desc d = cost_desc("tiling", &m, 2);
    skel_plan *p, *q;
    skel_variant v;
    size_t pt = 10;
    golden_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/plan1d_v3_pretiling.plan", dir);
    if (access(path, R_OK) != 0) ST_SKIP("no golden files at %s (run from the repository root)", dir);
    ST_CHECK(skel_plan_load(&p, path) != SKEL_OK);
    d.variants = tv;
    d.max_depth = 3;
    ST_OK(skel_tune(&d, &p));
    snprintf(path, sizeof path, "%s/tiling.plan", test_dir());
    ST_OK(skel_plan_save(p, path));
    ST_OK(skel_plan_load(&q, path));
    ST_OK(skel_plan_lookup_point(q, &pt, 1, &v));   /* A wins small sizes */
    ST_CHECK(strcmp(v.backend, "A") == 0);
    ST_EQ_INT(v.tiling, SKEL_TILING_OCCUPANCY);
    pt = 40000000;
    ST_OK(skel_plan_lookup_point(q, &pt, 1, &v));
    ST_CHECK(strcmp(v.backend, "B") == 0);
    ST_EQ_INT(v.tiling, 16);
    skel_plan_free(p);
    skel_plan_free(q);
}

SKEL_TEST(tuner_dump_tool_refuses_bad_files)
{
    char cmd[1200], dir[512], bad[600];
    unsigned char junk[64];
    memset(junk, 'x', sizeof junk);
    golden_dir(dir, sizeof dir);
    struct stat tool, header;
    if (stat("build/skel_plan", &tool) != 0 || stat("skel.h", &header) != 0 || tool.st_mtime < header.st_mtime)
        ST_SKIP("build/skel_plan not built, or older than skel.h (make all)");
    snprintf(bad, sizeof bad, "%s/junk.plan", test_dir());
    write_all(bad, junk, sizeof junk);
    snprintf(cmd, sizeof cmd, "build/skel_plan %s >/dev/null 2>&1", bad);
    ST_CHECK(system(cmd) != 0);
    snprintf(cmd, sizeof cmd, "build/skel_plan --json %s/plan1d.plan >/dev/null 2>&1", dir);
    ST_EQ_INT(system(cmd), 0);
    ST_CHECK(system("build/skel_plan --bogus >/dev/null 2>&1") != 0);
}

/* ---- tuning real calls ---- */
SKEL_FUNC(float, tt_add, (float a, float b), return a + b;)
SKEL_MAP(tt_vadd, tt_add, float, 2)
SKEL_MAPREDUCE(tt_dot, tt_add, tt_add, float, 2)
SKEL_FUNC(float, tt_avg, (const float *a, skel_index s), return 0.25f * (a[-1] + a[1] + a[-s] + a[s]);)
SKEL_OVERLAP2D(tt_jacobi, tt_avg, float, 1, 1)
SKEL_FUNC(float, tt_dist, (const float *v, float e), return v[0] - e;)
SKEL_MAPARRAY(tt_marr, tt_dist, float)
SKEL_FUNC(int64_t, tt_ix, (skel_index i), return (int64_t)i;)
SKEL_FUNC(int64_t, tt_addi, (int64_t a, int64_t b), return a + b;)
SKEL_MAPREDUCE_EX(tt_isum, tt_ix, tt_addi, int64_t, int64_t, 0, SKEL_INDEX, SKEL_NO_UNIFORM)

SKEL_TEST(tuner_tunes_real_calls_on_cpu_backends)
{
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    skel_variant v;
    skel_vec *a, *b, *r;
    size_t n, i;
    int k, nc;
    /* the CPU backends only: which backend wins on a machine with a GPU
       is a matter of timing, and a test must not depend on it */
    static const skel_variant cpu[] = { { .backend = "seq" }, { .backend = "omp", .threads = 1 }, { .backend = "omp", .threads = 2 } };
    memset(&d, 0, sizeof d);
    d.id = "test-vadd";
    d.sk = tt_vadd;
    d.variants = cpu;
    d.nvariants = nc = (int)(sizeof cpu / sizeof cpu[0]);
    d.lower[0] = 10;
    d.upper[0] = 200000;
    d.time_budget = 0.5;
    d.nofile = 1;
    d.quiet = 1;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.dims, 1);
    ST_CHECK(st.points >= 2);
    ST_CHECK(st.tune_seconds < 3);
    for (n = 10; n <= 200000; n *= 7) {     /* the instance now runs on the plan */
        float *pa, *pb;
        const float *pr;
        ST_OK(skel_vec_new(&a, SKEL_FLOAT, n));
        ST_OK(skel_vec_new(&b, SKEL_FLOAT, n));
        ST_OK(skel_vec_new(&r, SKEL_FLOAT, n));
        pa = (float *)skel_write(a);
        pb = (float *)skel_write(b);
        for (i = 0; i < n; ++i) { pa[i] = (float)i; pb[i] = 1; }
        ST_OK(skel_map2(tt_vadd, r, a, b));
        pr = (const float *)skel_read(r);
        for (i = 0; i < n; ++i) ST_CHECK(pr[i] == (float)i + 1);
        {
            skel_call c;
            memset(&c, 0, sizeof c);
            c.in[0] = a; c.in[1] = b; c.out = r;
            ST_OK(skel_choose(tt_vadd, &c, &v));
            for (k = 0; k < nc && !(strcmp(v.backend, cpu[k].backend) == 0 && v.threads == cpu[k].threads); ++k) {}
            ST_CHECK(k < nc);               /* one of the tuned variants */
            c.group = 7;                    /* bulk groups: host only here, the same choice */
            ST_OK(skel_run(tt_vadd, &c));
            skel_group_reset(7);
        }
        skel_free(a); skel_free(b); skel_free(r);
    }
    skel_set_plan(tt_vadd, NULL);
    skel_plan_free(p);
}

/* A user function that stalls like a JIT backend compiling: 0.3 s on its
   first call, and again on its first call with more than 1000 elements
   (a kernel needed only for large calls).  CPU only: the GPU backends
   never see it, the tests below force seq. */
static int tt_stalls_left[2];
static void tt_stall(skel_index i)
{
    int k = i >= 1000;
    struct timespec a, b;
    if (!tt_stalls_left[k]) return;
    tt_stalls_left[k] = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec) < 0.3);
}
SKEL_FUNC(float, tt_jit_f, (skel_index i, float a), tt_stall(i); return a + 1.0f;)
SKEL_MAP_EX(tt_jit, tt_jit_f, float, float, 1, SKEL_INDEX, SKEL_NO_UNIFORM)

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Steal time: read from /proc/stat's first line (its 8th number), the
   share over the tuning in skel_plan_stats and the text dump; -1 where
   not known (no such line, a loaded or a range plan). */
SKEL_TEST(tuner_reports_the_steal_time_of_its_tuning)
{
    double steal = -1, total = -1;
    skel_tune_desc d;
    skel_plan *p, *q;
    skel_plan_stats st;
    char path[600];
    size_t len;
    unsigned char *text;
    FILE *f;
    ST_EQ_INT(_skel_steal_parse("cpu  46671 0 4692 336176 524 0 1073 12153 0 0\n", &steal, &total), 0);
    ST_NEAR(steal, 12153, 0);
    ST_NEAR(total, 46671 + 4692 + 336176 + 524 + 1073 + 12153, 0);
    ST_EQ_INT(_skel_steal_parse("cpu  46671 0 4692 336176 524 0 1073\n", &steal, &total), -1);  /* no steal field */
    ST_EQ_INT(_skel_steal_parse("cpu0 46671 0 4692 336176 524 0 1073 12153 0 0\n", &steal, &total), -1);
    ST_EQ_INT(_skel_steal_parse("cpu  1 2 3 4 5 6 7 -8\n", &steal, &total), -1);
    ST_EQ_INT(_skel_steal_parse("", &steal, &total), -1);
    memset(&d, 0, sizeof d);
    d.id = "test-steal";
    d.sk = tt_vadd;
    d.backends = "seq";
    d.lower[0] = 10;
    d.upper[0] = 1000;
    d.time_budget = 0.1;                    /* (the counts move every 10 ms) */
    d.nofile = 1;
    d.quiet = 1;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    st_context("steal %g over %g s", st.steal, st.wall_seconds);
    f = fopen("/proc/stat", "r");
    if (f && st.wall_seconds > 0.05) ST_CHECK(st.steal >= 0 && st.steal <= 1);    /* Linux: known */
    else ST_CHECK(st.steal == -1 || (st.steal >= 0 && st.steal <= 1));   /* (shorter than the counts' tick) */
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/steal.txt", test_dir());
    ST_OK(skel_plan_dump(p, SKEL_DUMP_TEXT, path));
    text = read_all(path, &len);
    ST_CHECK(text != NULL);
    if (text) {
        text[len] = 0;
        ST_EQ_INT(strstr((char *)text, "\nsteal: ") != NULL, st.steal >= 0);
        free(text);
    }
    snprintf(path, sizeof path, "%s/steal.plan", test_dir());
    ST_OK(skel_plan_save(p, path));
    ST_OK(skel_plan_load(&q, path));
    ST_OK(skel_plan_stats_get(q, &st));
    ST_NEAR(st.steal, -1, 0);                               /* not saved */
    skel_plan_free(q);
    skel_plan_free(p);
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_NEAR(st.steal, -1, 0);                               /* a range plan */
    skel_plan_free(p);
}

SKEL_TEST(tuner_keeps_one_off_first_calls_out_of_budget_and_timeouts)
{
    static const skel_variant seq = { .backend = "seq" };
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    double t0, wall;
    char path[600];
    size_t len;
    unsigned char *text;
    memset(&d, 0, sizeof d);
    d.id = "test-jit";
    d.sk = tt_jit;
    d.lower[0] = 10;
    d.upper[0] = 100000;
    d.variants = &seq;
    d.nvariants = 1;
    d.time_budget = 0.2;
    d.timeout = 0.2;                        /* shorter than a stall */
    d.nofile = 1;
    d.quiet = 1;
    tt_stalls_left[0] = tt_stalls_left[1] = 1;
    t0 = wall_now();
    ST_OK(skel_tune(&d, &p));
    wall = wall_now() - t0;
    ST_EQ_INT(tt_stalls_left[0] + tt_stalls_left[1], 0);
    ST_OK(skel_plan_stats_get(p, &st));
    /* the warm-up's stall and the one at the first large point are not budget */
    ST_CHECK(wall - st.tune_seconds > 0.5);
    ST_CHECK(st.tune_seconds < 0.5);
    ST_CHECK(st.wall_seconds > st.tune_seconds + 0.5 && st.wall_seconds <= wall);    /* ... but wall time */
    ST_CHECK(st.points >= 3);
    /* nor did the large point's stall time the variant out there (and above) */
    snprintf(path, sizeof path, "%s/jit.txt", test_dir());
    ST_OK(skel_plan_dump(p, SKEL_DUMP_TEXT, path));
    text = read_all(path, &len);
    ST_CHECK(text != NULL);
    if (text) {
        text[len] = 0;
        ST_CHECK(strstr((char *)text, "  seq timeout") == NULL);
        free(text);
    }
    skel_set_plan(tt_jit, NULL);
    skel_plan_free(p);
}

SKEL_TEST(tuner_reduces_2d_skeletons_to_rows_by_cols)
{
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    skel_mat *m, *o;
    skel_call c;
    skel_variant v;
    memset(&d, 0, sizeof d);
    d.id = "test-jacobi";
    d.sk = tt_jacobi;
    d.lower[0] = d.lower[1] = 4;
    d.upper[0] = d.upper[1] = 300;
    d.time_budget = 0.3;
    d.nofile = 1;
    d.quiet = 1;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.dims, 2);
    ST_CHECK(st.points >= 4);
    ST_OK(skel_mat_new(&m, SKEL_FLOAT, 50, 70));
    ST_OK(skel_mat_new(&o, SKEL_FLOAT, 50, 70));
    memset(&c, 0, sizeof c);
    c.in[0] = m; c.out = o;
    ST_OK(skel_run(tt_jacobi, &c));
    ST_OK(skel_choose(tt_jacobi, &c, &v));
    skel_set_plan(tt_jacobi, NULL);
    skel_plan_free(p);

    d.id = "test-maparray";                 /* MapArray: the two lengths */
    d.sk = tt_marr;
    d.upper[0] = d.upper[1] = 2000;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.dims, 2);
    skel_set_plan(tt_marr, NULL);
    skel_plan_free(p);
    skel_free(m);
    skel_free(o);
}

/* ---- 2-D context points for Map, MapReduce and Scan ---- */
SKEL_FUNC(float, tt_at, (skel_index r, skel_index c), return (float)(r * 3 + c);)
SKEL_MAP_EX(tt_grid, tt_at, float, float, 0, SKEL_INDEX2D, SKEL_NO_UNIFORM)
SKEL_SCAN(tt_scan, tt_add, float)
SKEL_MAPREDUCE_INDEX(tt_gridsum, tt_at, tt_add, float, SKEL_INDEX2D, SKEL_NO_UNIFORM)

/* seq costs a microsecond a row, omp/1 one a column: which wins depends on
   the shape, not on the element count */
static double shape_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    (void)once; (void)user;
    return 1e-6 * (double)(v->backend[0] == 's' ? pt[0] : pt[1]) + 1e-9 * (double)pt[0] * (double)pt[1];
}

static char choose_on(skel_skeleton *sk, size_t rows, size_t cols, int matrix)
{
    skel_call c;
    skel_variant v;
    skel_vec *out;
    memset(&c, 0, sizeof c);
    if (matrix) ST_OK(skel_mat_new(&out, SKEL_FLOAT, rows, cols));
    else ST_OK(skel_vec_new(&out, SKEL_FLOAT, cols));
    c.out = out;
    ST_OK(skel_choose(sk, &c, &v));
    skel_free(out);
    return v.backend[0];
}

SKEL_TEST(tuner_2d_index_map_answers_by_rows_and_cols)
{
    static const skel_variant so[] = { { .backend = "seq" }, { .backend = "omp", .threads = 1 } };
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    if (!skel_backend_available("omp")) ST_SKIP("no omp backend");
    memset(&d, 0, sizeof d);
    d.id = "test-grid";
    d.sk = tt_grid;                         /* a (row, col) index: 2-D by default */
    d.cost = shape_cost;
    d.variants = so;
    d.nvariants = 2;
    d.lower[0] = d.lower[1] = 1;
    d.upper[0] = d.upper[1] = 4096;
    d.nofile = 1;
    d.quiet = 1;
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.dims, 2);
    ST_EQ_INT(choose_on(tt_grid, 16, 2048, 1), 's');     /* 32768 elements either way */
    ST_EQ_INT(choose_on(tt_grid, 2048, 16, 1), 'o');
    ST_EQ_INT(choose_on(tt_grid, 1, 3000, 0), 's');      /* a vector: 1 x n */
    skel_set_plan(tt_grid, NULL);
    skel_plan_free(p);
}

/* Real 2-D tunings of a Map, a MapReduce, a row-wise exclusive Scan on
   matrices and an index-only MapReduce over a (row, col) grid (seq only, a
   few points): the synthetic operands are matrices (or call.rows x
   call.cols) of the point's shape, and the tuned instances then compute
   right. */
SKEL_TEST(tuner_tunes_map_mapreduce_and_scan_on_matrices)
{
    static const float zero = 0;
    skel_skeleton *sks[4];
    skel_call tmpl;
    skel_tune_desc d;
    skel_plan *p[4];
    skel_plan_stats st;
    skel_mat *a, *b, *r;
    float *pa, *pb, dot = 0, gsum = 0;
    const float *pr;
    size_t i, j, R = 37, C = 53;
    int k;
    sks[0] = tt_vadd; sks[1] = tt_dot; sks[2] = tt_scan; sks[3] = tt_gridsum;
    memset(&tmpl, 0, sizeof tmpl);
    tmpl.direction = SKEL_ROWS;
    tmpl.exclusive = 1;
    tmpl.init = &zero;
    for (k = 0; k < 4; ++k) {
        static const char *ids[4] = { "test-map2d", "test-dot2d", "test-scan2d", "test-gridsum2d" };
        memset(&d, 0, sizeof d);
        d.id = ids[k];
        d.sk = sks[k];
        d.dims = k < 2 ? 2 : 0;             /* a row-wise Scan and a (row, col) index are 2-D by default */
        d.call = k == 2 ? &tmpl : NULL;
        d.backends = "seq";
        d.lower[0] = d.lower[1] = 2;
        d.upper[0] = d.upper[1] = 300;
        d.time_budget = 0.05;
        d.max_depth = 1;
        d.nofile = 1;
        d.quiet = 1;
        ST_OK(skel_tune(&d, &p[k]));
        ST_OK(skel_plan_stats_get(p[k], &st));
        ST_EQ_INT(st.dims, 2);
        ST_EQ_INT(st.variants, 1);
        ST_CHECK(st.points >= 4);
    }
    ST_OK(skel_mat_new(&a, SKEL_FLOAT, R, C));
    ST_OK(skel_mat_new(&b, SKEL_FLOAT, R, C));
    ST_OK(skel_mat_new(&r, SKEL_FLOAT, R, C));
    pa = (float *)skel_write(a);
    pb = (float *)skel_write(b);
    for (i = 0; i < R * C; ++i) { pa[i] = (float)(i % 7); pb[i] = (float)(i % 5); dot += pa[i] + pb[i]; }
    ST_OK(skel_map2(tt_vadd, r, a, b));
    pr = (const float *)skel_read(r);
    for (i = 0; i < R * C; ++i) ST_CHECK(pr[i] == (float)(i % 7 + i % 5));
    {
        float got;
        ST_OK(skel_mapreduce2(tt_dot, a, b, &got));
        ST_CHECK(got == dot);
        tmpl.in[0] = a;
        tmpl.out = r;
        ST_OK(skel_run(tt_scan, &tmpl));
        pr = (const float *)skel_read(r);
        for (i = 0; i < R; ++i) {
            float s = 0;
            for (j = 0; j < C; ++j) { ST_CHECK(pr[i * C + j] == s); s += pa[i * C + j]; }
        }
        memset(&tmpl, 0, sizeof tmpl);      /* integers below 2^24: exact in any order */
        tmpl.rows = R;
        tmpl.cols = C;
        tmpl.result = &got;
        for (i = 0; i < R; ++i)
            for (j = 0; j < C; ++j) gsum += (float)(i * 3 + j);
        ST_OK(skel_run(tt_gridsum, &tmpl));
        ST_CHECK(got == gsum);
    }
    for (k = 0; k < 4; ++k) { skel_set_plan(sks[k], NULL); skel_plan_free(p[k]); }
    skel_free(a); skel_free(b); skel_free(r);
}

/* desc.backends keeps one backend's variants; the result's location
   follows the inputs unless the description says; the wall time is
   reported beside the measured time. */
SKEL_TEST(tuner_backend_filter_result_location_and_wall_time)
{
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    char path[600];
    size_t len;
    unsigned char *text;
    int k;
    static const char *want[3] = { "result copied back to the host", "result left where it is made",
                                   "result left where it is made" };
    model m = model_abc();
    d = cost_desc("filter", &m, 4);
    d.backends = "B, C";
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.variants, 2);
    ST_EQ_INT(lookup1(p, 10), 'B');
    ST_EQ_INT(lookup1(p, 50000000), 'C');
    skel_plan_free(p);
    for (k = 0; k < 3; ++k) {
        memset(&d, 0, sizeof d);
        d.id = "test-loc";
        d.sk = tt_vadd;
        d.backends = "seq";
        d.lower[0] = 10;
        d.upper[0] = 1000;
        d.time_budget = 0.02;
        d.nofile = 1;
        d.quiet = 1;
        if (k == 1) d.in_loc[0] = d.in_loc[1] = SKEL_ON_DEVICE;
        if (k == 2) d.out_to_host = -1;
        ST_OK(skel_tune(&d, &p));
        ST_OK(skel_plan_stats_get(p, &st));
        ST_CHECK(st.wall_seconds >= st.tune_seconds);
        snprintf(path, sizeof path, "%s/loc.txt", test_dir());
        ST_OK(skel_plan_dump(p, SKEL_DUMP_TEXT, path));
        text = read_all(path, &len);
        ST_CHECK(text != NULL);
        if (text) {
            text[len] = 0;
            if (!strstr((char *)text, want[k])) ST_FAIL("case %d: no \"%s\" in the dump", k, want[k]);
            free(text);
        }
        skel_set_plan(tt_vadd, NULL);
        skel_plan_free(p);
    }
}

SKEL_TEST(tuner_rejects_bad_descriptions)
{
    skel_tune_desc d;
    skel_plan *p;
    memset(&d, 0, sizeof d);
    ST_EQ_INT(skel_tune(NULL, &p), SKEL_EINVAL);
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);          /* no id */
    d.id = "bad";
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);          /* no instance */
    d.sk = tt_dot;
    d.nofile = 1;
    d.lower[0] = 0;
    d.upper[0] = 100;
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);          /* lower bound 0 */
    d.lower[0] = 200;
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);          /* lower > upper */
    d.lower[0] = 10;
    d.dims = 2;
    d.lower[1] = 1; d.upper[1] = 10;
    d.sk = tt_isum;
    d.dims = 3;
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);          /* 1-D or 2-D only */
    d.sk = tt_jacobi;
    d.dims = 1;
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);          /* MapOverlap2D is 2-D */
    d.sk = tt_dot;
    d.backends = "seq,sqe";
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);          /* a typo in the backend filter */
    ST_CHECK(strstr(skel_last_error(), "\"sqe\"") != NULL);
    d.backends = NULL;
    d.variants = ABCD;                                   /* not backends of this machine */
    d.nvariants = 1;
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EBACKEND);
    ST_CHECK(p == NULL);
}

/* A split wins a point only by more than twice the tolerance over the
   fastest single place (skel.h _skel_split_margin); CPU ties then go to
   the pool variant with the most threads, as before. */
int _skel_test_tie_break(int n, const char *const *backend, const int *threads, const int *nparts, const double *tv,
                         double tolerance);
SKEL_TEST(tuner_split_wins_only_by_more_than_twice_the_tolerance)
{
    const char *const be[4] = { "seq", "pool", "cuda", "split" };
    const int th[4] = { 1, 16, 0, 0 }, np[4] = { 0, 0, 0, 2 };
    double tv[4];
    /* the split 5% ahead of CUDA: within 6%, CUDA answers */
    tv[0] = 9; tv[1] = 2; tv[2] = 1.05; tv[3] = 1.0;
    ST_EQ_INT(_skel_test_tie_break(4, be, th, np, tv, 0.03), 2);
    /* 7% ahead: the split */
    tv[2] = 1.07;
    ST_EQ_INT(_skel_test_tie_break(4, be, th, np, tv, 0.03), 3);
    /* the strict rule (tolerance 0) keeps the fastest */
    tv[2] = 1.01;
    ST_EQ_INT(_skel_test_tie_break(4, be, th, np, tv, 0), 3);
    /* the nearest single place is the pool, then seq within 3% of it:
       the pool (more threads) stays */
    tv[0] = 1.05; tv[1] = 1.04; tv[2] = 3; tv[3] = 1.0;
    ST_EQ_INT(_skel_test_tie_break(4, be, th, np, tv, 0.03), 1);
    /* seq nearest and pool within 3% of seq: the CPU tie goes to the pool */
    tv[0] = 1.02; tv[1] = 1.04;
    ST_EQ_INT(_skel_test_tie_break(4, be, th, np, tv, 0.03), 1);
    /* no single place ran: the split */
    tv[0] = tv[1] = tv[2] = -1;
    ST_EQ_INT(_skel_test_tie_break(4, be, th, np, tv, 0.03), 3);
}

/* In a 2-D open leaf each corner's split (made for that corner, measured
   only there) stands for its family at the other corners: a leaf whose
   four corners all have a split 20% ahead of pool/16 answers the split
   made for the corner that weighs most at the point (before, each split
   counted twice the best at the three other corners and the leaf
   answered pool/16: moment on the H100 machine).  A split over other
   places (OpenCL) is no kin of the CUDA ones; splits only 5% ahead lose
   to the single place (_skel_split_margin). */
int _skel_test_interp_pick(int n, const char *const *backend, const int *threads, const char *const *gpu,
                           const double *times, const size_t *x, double tolerance, int indexed);
SKEL_TEST(tuner_2d_split_family_stands_in_at_corners_it_was_not_made_for)
{
    const char *const be[7] = { "pool", "cuda", "split", "split", "split", "split", "split" };
    const char *const gpu[7] = { NULL, NULL, "cuda", "cuda", "cuda", "cuda", "opencl" };
    const int th[7] = { 16, 0, 16, 16, 16, 16, 16 };
    /* corner k's times: pool/16, cuda, then the split made at corner 0, 1, 2, 3; an OpenCL split at corner 0 */
    double tm[4][7] = { { 10, 12, 8, -1, -1, -1, 7.5 }, { 100, 110, -1, 80, -1, -1, -1 },
                        { 100, 110, -1, -1, 80, -1, -1 }, { 1000, 1000, -1, -1, -1, 800, -1 } };
    static const size_t at[5][2] = { { 20, 20 }, { 4000, 20 }, { 20, 4000 }, { 4000, 4000 }, { 3000, 1000 } };
    static const int want[5] = { 6, 3, 4, 5, 3 };       /* at (20, 20) the OpenCL split, fastest at corner 0 */
    int i, k, indexed;
    for (indexed = 0; indexed < 2; ++indexed) {
        for (i = 0; i < 5; ++i) {
            int got = _skel_test_interp_pick(7, be, th, gpu, &tm[0][0], at[i], 0.03, indexed);
            if (got != want[i]) ST_FAIL("indexed %d: at %zu x %zu variant %d, not %d", indexed, at[i][0], at[i][1], got, want[i]);
        }
        for (k = 0; k < 4; ++k) tm[k][2 + k] = tm[k][0] * 0.95;         /* splits 5% ahead: pool/16 */
        tm[0][6] = -1;
        for (i = 0; i < 5; ++i) ST_EQ_INT(_skel_test_interp_pick(7, be, th, gpu, &tm[0][0], at[i], 0.03, indexed), 0);
        tm[0][2] = 8; tm[1][3] = 80; tm[2][4] = 80; tm[3][5] = 800; tm[0][6] = 7.5;
    }
}

/* A plan's split runs at shares balanced for the call's point, by the
   times the plan predicts there for its parts' variants (cost a + b *
   share from the prediction at the point and at half its rows), not at
   the shares of the corner it was made for: on the H100 machine a
   moment at 870 x 3881 ran a split made for a smaller corner at 0.56 /
   0.44, twice the time of the balanced 0.21 / 0.79. */
int _skel_test_tree_shares(int n, const char *const *backend, const int *threads, const char *const *gpu,
                           const double *times, int v, const size_t *x, double *share);
static double tt_cost(const double *a, double r, double c) { return a[0] + a[1] * r * c; }
SKEL_TEST(tuner_split_shares_balanced_at_the_calls_point)
{
    const char *const be[3] = { "pool", "cuda", "split" };
    const char *const gpu[3] = { NULL, NULL, "cuda" };
    const int th[3] = { 16, 0, 16 };
    double host[2] = { 5, 0.05 }, dev[2] = { 30, 0.02 }, tm[4][3], sh[2];
    static const size_t at[4][2] = { { 870, 3881 }, { 16, 3000 }, { 4000, 16 }, { 8192, 8192 } };
    int i, k;
    for (k = 0; k < 4; ++k) {
        double r = k & 1 ? 4096 : 16, c = k & 2 ? 4096 : 16;
        tm[k][0] = tt_cost(host, r, c);
        tm[k][1] = tt_cost(dev, r, c);
        tm[k][2] = k == 0 ? 4 : -1;         /* the split: made and measured at corner 0 only */
    }
    for (i = 0; i < 4; ++i) {
        double r = (double)at[i][0], c = (double)at[i][1], bh, bg, ah = host[0], ag = dev[0], want;
        if (i < 3) {
            bh = tt_cost(host, r, c) - ah;
            bg = tt_cost(dev, r, c) - ag;
        } else {    /* beyond the box: the corner's times scaled by size, no fixed cost */
            bh = tt_cost(host, 4096, 4096) * 4;
            bg = tt_cost(dev, 4096, 4096) * 4;
            ah = ag = 0;
        }
        want = (bg + ag - ah) / (bh + bg);  /* ah + bh s = ag + bg (1 - s) */
        ST_EQ_INT(_skel_test_tree_shares(3, be, th, gpu, &tm[0][0], 2, at[i], sh), 1);
        if (fabs(sh[0] - want) > 1e-9 || fabs(sh[0] + sh[1] - 1) > 1e-12)
            ST_FAIL("at %zu x %zu: shares %.6f / %.6f, want %.6f", at[i][0], at[i][1], sh[0], sh[1], want);
    }
    /* a GPU whose fixed cost exceeds the host's whole time gets nothing */
    dev[0] = 1e9;
    for (k = 0; k < 4; ++k) tm[k][1] = tt_cost(dev, k & 1 ? 4096 : 16, k & 2 ? 4096 : 16);
    ST_EQ_INT(_skel_test_tree_shares(3, be, th, gpu, &tm[0][0], 2, at[0], sh), 1);
    ST_CHECK(sh[0] == 1 && sh[1] == 0);
    /* a part's variant not measured at a corner: the split keeps its own shares */
    tm[1][1] = -1;
    ST_EQ_INT(_skel_test_tree_shares(3, be, th, gpu, &tm[0][0], 2, at[0], sh), 0);
    ST_CHECK(sh[0] == 0.5 && sh[1] == 0.5);
}
