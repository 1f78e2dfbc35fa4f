/* eval2d.c - the tuner on 2-D applications it has never seen (issue 27).

   Six applications written from the manual, none of them in the tuner's
   tests or in bench/eval.c, each one skeleton call on rows x cols data:
       sobel     Sobel edge magnitude (MapOverlap2D, 1 x 1, duplicate edges)
       dilate    5 x 5 grey-level dilation, a running max along the rows
                 then the columns (separable MapOverlap, SKEL_ROWS_COLS)
       julia     Julia set escape counts in Q24 fixed point, the whole view
                 at every size (Map with a (row, col) index and a uniform)
       colsum    column sums of an int32 image (Reduce, SKEL_COLS)
       rowmax    running maximum along each row (Scan, SKEL_ROWS)
       moment    sum of a[r][c] * (r + 1) * (c + 1), int64 (MapReduce with
                 a (row, col) index)
   Each is tuned (desc defaults: inputs on the host, the result back on the
   host, every backend or --cpu's) over its box, then timed at `--points`
   random points (rows and cols log-uniform, none a training point) with
   the tuned plan and with every variant of the plan's table forced; every
   call reads its result back on the host, and each configuration's result
   is checked against plain C at 64 random elements (exact for the integer
   and max applications, 1e-4 relative for Sobel's square root).

   Per application: accuracy = mean over the points of min(1, best / tuned)
   (best: the least over the variants of the median per-round ratio
   variant / tuned), the uncapped mean, the worst point, how many points
   fall below 80%, the tree (points, nodes, depth), the measured tuning
   time and skel_tune's wall time.  A line "split-half" after each row
   gives the mean and the points below 80% again with the best variant
   chosen on the even rounds and measured on the odd ones and the other
   way round (split_half: picking and measuring on the same samples
   favours whichever of several equally fast, noisy variants was lucky).

   Timing at a point, batched to fit a device call: a screening sample of
   every configuration (untimed calls for 0.3 ms first where the call is
   cheaper than 5 ms: see sample()), then rounds, in a fresh random order each, of the tuned
   configuration and every variant whose screening sample was within 3
   times the least: at least 15 rounds, until 0.6 s, at most 63 (or 3 s),
   as bench/eval.c times its points.
   A variant more than 3 times slower than the best in one sample cannot
   be the best unless that sample was a 3-fold stall; dropping it can only
   raise best / tuned if it was the best, so the screen is checked: every
   dropped variant's sample, and the kept ones' medians, are printed with
   EVAL_DUMP=1.  A sample: the operands put back on the host (untimed),
   then the call and the read of its result, timed; where the point's
   fastest configuration takes under 20 us, every configuration's samples
   sum as many such calls as bring it to 20 us (the same count for all).

   Usage: bench_eval2d [--cpu] [--budget S] [--points N] [--only NAME]
                       [--svg-dir DIR] [--seed N]
       --cpu      tune and time the CPU backends only (seq, pool, omp and
                  an OpenCL device that is this CPU, PoCL; the default
                  candidates leave omp out where the pool is there)
       --budget   tuning budget per application in seconds (default 5)
       --points   evaluation points per application (default 20)
   Plots: DIR/eval2d_<app>.svg (the points coloured by accuracy over the
   plan's regions: the tuner's own SVG with the points added). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

/* ---- the applications' skeletons ---- */
SKEL_FUNC(float, sobel_f, (const float *a, skel_index s),
    float gx = (a[-s + 1] + 2.0f * a[1] + a[s + 1]) - (a[-s - 1] + 2.0f * a[-1] + a[s - 1]);
    float gy = (a[s - 1] + 2.0f * a[s] + a[s + 1]) - (a[-s - 1] + 2.0f * a[-s] + a[-s + 1]);
    return sqrtf(gx * gx + gy * gy);)
SKEL_FUNC(float, max5_f, (const float *a),
    float m = a[-2]; int k;
    for (k = -1; k <= 2; ++k) m = a[k] > m ? a[k] : m;
    return m;)
SKEL_STRUCT(jview, int64_t x0; int64_t y0; int64_t dx; int64_t dy;)
SKEL_FUNC(int32_t, julia_f, (skel_index r, skel_index c, jview v),
    int64_t zr = v.x0 + c * v.dx, zi = v.y0 + r * v.dy, t;
    int k = 0;
    while (k < 64 && zr * zr + zi * zi < ((int64_t)4 << 48)) {
        t = ((zr * zr - zi * zi) >> 24) - 13254525;        /* c = -0.79 + 0.15 i, Q24 */
        zi = ((2 * zr * zi) >> 24) + 2516582;
        zr = t;
        ++k;
    }
    return k;)
SKEL_FUNC(int32_t, addi_f, (int32_t a, int32_t b), return a + b;)
SKEL_FUNC(float, maxf_f, (float a, float b), return a > b ? a : b;)
SKEL_FUNC(int64_t, moment_f, (skel_index r, skel_index c, int32_t a), return (int64_t)a * (r + 1) * (c + 1);)
SKEL_FUNC(int64_t, addl_f, (int64_t a, int64_t b), return a + b;)

SKEL_OVERLAP2D(sobel, sobel_f, float, 1, 1)
SKEL_OVERLAP(dilate, max5_f, float, 2)
SKEL_MAP_EX(julia, julia_f, int32_t, int32_t, 0, SKEL_INDEX2D, SKEL_UNIFORM(jview))
SKEL_REDUCE(colsum, addi_f, int32_t)
SKEL_SCAN(rowmax, maxf_f, float)
SKEL_MAPREDUCE_EX(moment, moment_f, addl_f, int64_t, int32_t, 1, SKEL_INDEX2D, SKEL_NO_UNIFORM)

/* ---- operands of the current point ---- */
static skel_mat *A, *Z;             /* input (NULL for julia), output (NULL for moment) */
static size_t ROWS, COLS;
static int64_t MOMENT;
static jview VIEW;

/* the whole view [-1.6, 1.6] x [-1.0, 1.0] at any size, Q24 */
static jview julia_view(size_t rows, size_t cols)
{
    jview v;
    v.x0 = -(int64_t)(1.6 * (1 << 24));
    v.y0 = -(int64_t)(1 << 24);
    v.dx = (int64_t)(3.2 * (1 << 24)) / (int64_t)cols;
    v.dy = (int64_t)(2 << 24) / (int64_t)rows;
    return v;
}

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17;
    return *s;
}

static unsigned SETUPS;              /* points set up so far (the moment's reference is one a point) */
static void setup(const skel_skeleton *sk, size_t rows, size_t cols, uint64_t seed)
{
    size_t i;
    ++SETUPS;
    ROWS = rows;
    COLS = cols;
    if (sk != julia) {
        skel_type t = sk == colsum || sk == moment ? SKEL_INT32 : SKEL_FLOAT;
        void *p;
        skel_mat_new(&A, t, rows, cols);
        p = skel_write(A);
        for (i = 0; i < rows * cols; ++i) {
            uint64_t x = rnd(&seed);
            if (t == SKEL_FLOAT) ((float *)p)[i] = (float)(x >> 40) / (float)(1 << 24);
            else ((int32_t *)p)[i] = (int32_t)(x % 256);
        }
    }
    if (sk == colsum) skel_vec_new(&Z, SKEL_INT32, cols);
    else if (sk == julia) skel_mat_new(&Z, SKEL_INT32, rows, cols);
    else if (sk != moment) skel_mat_new(&Z, SKEL_FLOAT, rows, cols);
    VIEW = julia_view(rows, cols);
}

static void free_operands(void)
{
    skel_free(A);
    skel_free(Z);
    A = Z = NULL;
}

/* One call of the application on the current operands, its result read
   back on the host (a program's call ends where its result is used). */
/* The application's call on the current operands. */
static void app_call(skel_skeleton *sk, skel_call *cp)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = A;
    c.out = Z;
    if (sk == sobel || sk == dilate) c.edge = SKEL_EDGE_DUPLICATE;
    if (sk == dilate) c.direction = SKEL_ROWS_COLS;
    if (sk == colsum) c.direction = SKEL_COLS;
    if (sk == rowmax) c.direction = SKEL_ROWS;
    if (sk == julia) { c.in[0] = NULL; c.uniform = &VIEW; }
    if (sk == moment) { c.out = NULL; c.result = &MOMENT; }
    *cp = c;
}

static int run_app(skel_skeleton *sk)
{
    skel_call c;
    int rc;
    app_call(sk, &c);
    rc = skel_run(sk, &c);
    if (rc == SKEL_OK && Z && !skel_read(Z)) rc = SKEL_EDEVICE;
    return rc;
}

/* ---- plain C references at one output element ---- */
static const float *fa(void) { return (const float *)skel_read(A); }
static const int32_t *ia(void) { return (const int32_t *)skel_read(A); }
static size_t clampz(ptrdiff_t i, size_t n) { return i < 0 ? 0 : (size_t)i >= n ? n - 1 : (size_t)i; }

static double ref_at(const skel_skeleton *sk, size_t r, size_t c)
{
    ptrdiff_t i, j;
    size_t k;
    if (sk == sobel) {
        const float *a = fa();
        double w[3][3], gx, gy;
        for (i = -1; i <= 1; ++i)
            for (j = -1; j <= 1; ++j)
                w[i + 1][j + 1] = a[clampz((ptrdiff_t)r + i, ROWS) * COLS + clampz((ptrdiff_t)c + j, COLS)];
        gx = (w[0][2] + 2 * w[1][2] + w[2][2]) - (w[0][0] + 2 * w[1][0] + w[2][0]);
        gy = (w[2][0] + 2 * w[2][1] + w[2][2]) - (w[0][0] + 2 * w[0][1] + w[0][2]);
        return sqrt(gx * gx + gy * gy);
    }
    if (sk == dilate) {
        const float *a = fa();
        double m = -1;
        for (i = -2; i <= 2; ++i)
            for (j = -2; j <= 2; ++j) {
                double x = a[clampz((ptrdiff_t)r + i, ROWS) * COLS + clampz((ptrdiff_t)c + j, COLS)];
                if (x > m) m = x;
            }
        return m;
    }
    if (sk == julia) return julia_f((skel_index)r, (skel_index)c, VIEW);
    if (sk == colsum) {
        int64_t s = 0;
        for (k = 0; k < ROWS; ++k) s += ia()[k * COLS + c];
        return (double)s;
    }
    if (sk == rowmax) {
        double m = -1;
        for (k = 0; k <= c; ++k)
            if (fa()[r * COLS + k] > m) m = fa()[r * COLS + k];
        return m;
    }
    return 0;
}

static double got_at(const skel_skeleton *sk, size_t r, size_t c)
{
    if (sk == colsum) return ((const int32_t *)skel_read(Z))[c];
    if (sk == julia) return ((const int32_t *)skel_read(Z))[r * COLS + c];
    return ((const float *)skel_read(Z))[r * COLS + c];
}

/* Is the result of the last call right?  64 random elements (the whole
   sum for moment). */
static int check_result(const skel_skeleton *sk, uint64_t *seed)
{
    int k;
    if (sk == moment) {
        static unsigned point;
        static int64_t want;
        size_t r, c;
        if (point != SETUPS) {          /* once per point */
            const int32_t *a = ia();
            want = 0;
            for (r = 0; r < ROWS; ++r)
                for (c = 0; c < COLS; ++c) want += (int64_t)a[r * COLS + c] * (int64_t)(r + 1) * (int64_t)(c + 1);
            point = SETUPS;
        }
        return MOMENT == want;
    }
    for (k = 0; k < 64; ++k) {
        size_t r = k == 0 ? ROWS - 1 : (size_t)(rnd(seed) % ROWS), c = k == 0 ? COLS - 1 : (size_t)(rnd(seed) % COLS);
        double want, got;
        if (sk == colsum) r = 0;
        want = ref_at(sk, r, c);
        got = got_at(sk, r, c);
        if (sk == sobel ? fabs(got - want) > 1e-4 * (1 + fabs(want)) : got != want) {
            fprintf(stderr, "%s %zu x %zu: element (%zu, %zu) is %.9g, plain C says %.9g\n", sk->name, ROWS, COLS,
                    r, c, got, want);
            return 0;
        }
    }
    return 1;
}

typedef struct app {
    const char *name, *what;
    skel_skeleton *sk;
    size_t lo, hi;                  /* rows and cols each in lo..hi */
} app;

static app APPS[] = {
    { "sobel", "Sobel edge magnitude (MapOverlap2D 1x1)", sobel, 16, 4096 },
    { "dilate", "5x5 dilation, rows then columns (MapOverlap, ROWS_COLS)", dilate, 16, 4096 },
    { "julia", "Julia set, Q24 fixed point (Map, 2-D index)", julia, 16, 2048 },
    { "colsum", "column sums, int32 (Reduce, COLS)", colsum, 16, 4096 },
    { "rowmax", "running max along rows (Scan, ROWS)", rowmax, 16, 4096 },
    { "moment", "sum a*(r+1)*(c+1), int64 (MapReduce, 2-D index)", moment, 16, 4096 },
};
#define NAPPS (int)(sizeof APPS / sizeof APPS[0])

/* the tuner's synthetic calls get the view of their size */
static jview tune_view;
static void julia_prepare(skel_call *c, const size_t *pt, void *user)
{
    (void)user;
    tune_view = julia_view(pt[0], pt[1]);
    c->uniform = &tune_view;
}

/* ---- timing ---- */
#define MAXCONF 40
#define MINROUNDS 15
#define MAXROUNDS 63
#define MINSECONDS 0.6
#define MAXSECONDS 3.0

typedef struct conf {
    char label[32];
    skel_plan *plan;
} conf;

/* Inputs valid on the host only, the output's device copy stale, device
   buffers kept (as the tuner's synthetic calls start, _skel_synth_reset:
   a program's loop that writes new data with skel_write).  Untimed. */
static void place_operands(void)
{
    if (A) skel_write(A);
    if (Z) _skel_mark_written(Z, 0);
}

/* Built against `bench/pool_stats.py --per-conf DIR`'s copy of skel.h
   (-DEVAL_POOL_STATS -IDIR), the pool counts its calls per configuration
   (the index in the dump's order, 0: tuned): the timed calls only. */
#ifdef EVAL_POOL_STATS
extern int _exst_conf;
#define POOL_STATS_CONF(i) (_exst_conf = (i))
#else
#define POOL_STATS_CONF(i) ((void)(i))
#endif
static int CONF_INDEX = -1;
/* Over a point's timed calls, per configuration (CONF_INDEX): calls whose
   caller slept on the pool call's end, and pool calls the call-site rule
   ran on the caller alone (the dump's "pool, caller slept" line). */
static unsigned TALLY[MAXCONF][2];

/* Calls a sample sums at a point whose fastest configuration took
   `least` seconds: until 20 us, the same for every configuration of the
   point (a batch per configuration, from its own screening sample, gave
   a slow one single calls and a fast one three, the later ones with the
   pool's workers awake: at moment 168 x 186 on the H100 the tuned plan
   measured 1.5-2.6 times its own variant forced). */
static int batch(double least)
{
    int m = least > 0 && least < 20e-6 ? (int)(20e-6 / least) + 1 : 1;
    return m > 64 ? 64 : m;
}

/* Seconds per call of configuration c, over m calls: where its last
   sample was under 5 ms, untimed calls first for WARM_UP seconds (at
   least one), so that what the previous configuration left behind is not
   charged to this one and c's calls run as in a loop of them: the pool's
   workers, asleep while other configurations ran, come 5-70 us after a
   call wakes them, each waking the next, and a pool/16 call timed right
   after one untimed call ran with some of them (on the H100 machine
   pool/16 measured 1.3-2 times seq's time at dilation points of 20-40 us,
   and the tuned plan, the same variant, 1.3 times pool/16's); then the
   timed calls on freshly placed operands. */
#define WARM_UP 300e-6
static double sample(skel_skeleton *sk, const conf *c, double last, int m, int *bad)
{
    double t0, sum = 0;
    int b;
    skel_set_plan(sk, c->plan);
    for (t0 = bench_now(); last < 5e-3 && bench_now() - t0 < WARM_UP;)
        if (run_app(sk) != SKEL_OK) { *bad = 1; break; }
    for (b = 0; b < m; ++b) {
        unsigned sl0, al0, sl1, al1;
        place_operands();
        POOL_STATS_CONF(CONF_INDEX);
        _skel_pool_tally(&sl0, &al0);
        t0 = bench_now();
        if (run_app(sk) != SKEL_OK) *bad = 1;
        sum += bench_now() - t0;
        _skel_pool_tally(&sl1, &al1);
        if (CONF_INDEX >= 0) { TALLY[CONF_INDEX][0] += sl1 - sl0; TALLY[CONF_INDEX][1] += al1 - al0; }
        POOL_STATS_CONF(-1);
    }
    return sum / m;
}

static unsigned long long ORDER_RNG = 0x9E3779B97F4A7C15ULL;

/* best / tuned with the best variant chosen on one half of the rounds
   (even or odd) and its ratio to tuned taken on the other, both ways,
   averaged.  The least of the variants' median ratios over all rounds
   (*ratio in time_point) picks the best and measures it on the same
   samples: with several variants that are equally fast but noisy (pool/2,
   seq and PoCL sharing two cores with a spinner) it lies below 1 by the
   noise alone (the winner's curse), here it does not. */
static double split_half(double (*s)[MAXROUNDS], const int *kept, int nc, int rounds)
{
    double q[MAXROUNDS], r = 0;
    int h, i, j, n, best;
    for (h = 0; h < 2; ++h) {
        double bm = 1e30, m;
        for (best = -1, i = 1; i < nc; ++i) {
            if (!kept[i]) continue;
            for (n = 0, j = h; j < rounds; j += 2) q[n++] = s[i][j] / s[0][j];
            if ((m = bench_median(q, n)) < bm) { bm = m; best = i; }
        }
        if (best < 0) return 1e30;
        for (n = 0, j = 1 - h; j < rounds; j += 2) q[n++] = s[best][j] / s[0][j];
        r += bench_median(q, n) / 2;
    }
    return r;
}

/* Times every configuration at the current operands (see the top):
   med[i] its median (the screening sample for a dropped one, marked
   kept[i] = 0), *ratio = best / tuned, *half the split-half estimate of
   it; counts wrong results in *wrong. */
static void time_point(skel_skeleton *sk, const conf *cs, int nc, double *med, int *kept, double *ratio, double *half,
                       int *wrong, uint64_t *seed)
{
    static double s[MAXCONF][MAXROUNDS];
    double least = 1e30, start, q[MAXROUNDS];
    int i, j, rounds = 0, ord[MAXCONF], nk = 0, bad;
    memset(TALLY, 0, sizeof TALLY);
    for (i = 0; i < nc; ++i) {          /* screening, with a check of each result */
        bad = 0;
        med[i] = sample(sk, &cs[i], 0, 1, &bad);
        if (bad || !check_result(sk, seed)) {
            fprintf(stderr, "%s: %s gave a wrong result or failed (%s)\n", sk->name, cs[i].label, skel_last_error());
            ++*wrong;
        }
        if (i > 0 && med[i] < least) least = med[i];
    }
    if (med[0] < least) least = med[0];
    for (i = 0; i < nc; ++i)
        if ((kept[i] = i == 0 || med[i] <= 3 * least)) ord[nk++] = i;
    start = bench_now();
    while (rounds < MAXROUNDS && (rounds < MINROUNDS || bench_now() - start < MINSECONDS) &&
           (rounds < MINROUNDS || bench_now() - start < MAXSECONDS)) {
        bench_shuffle(ord, nk, &ORDER_RNG);
        for (j = 0; j < nk; ++j) {
            bad = 0;
            i = ord[j];
            CONF_INDEX = i;
            s[i][rounds] = sample(sk, &cs[i], med[i], batch(least), &bad);
            CONF_INDEX = -1;
            *wrong += bad;
        }
        rounds++;
    }
    *ratio = 1e30;
    for (i = 1; i < nc; ++i) {
        double m;
        if (!kept[i]) continue;
        for (j = 0; j < rounds; ++j) q[j] = s[i][j] / s[0][j];
        if ((m = bench_median(q, rounds)) < *ratio) *ratio = m;
    }
    *half = split_half(s, kept, nc, rounds);
    for (i = 0; i < nc; ++i)
        if (kept[i]) med[i] = bench_median(s[i], rounds);
}

/* ---- plots: the tuner's own SVG of the plan, with the points added ---- */
static void plot(const char *dir, const app *a, skel_plan *p, const size_t (*pts)[2], const double *acc, int np)
{
    char path[600], *buf;
    FILE *f;
    long len;
    int i;
    const double L = 60, T = 40, W = 640, H = 520;   /* the plot box of skel_plan_dump's SVG (x: rows) */
    double span = log((double)(a->hi + 1) / (double)a->lo);
    snprintf(path, sizeof path, "%s/eval2d_%s.svg", dir, a->name);
    if (skel_plan_dump(p, SKEL_DUMP_SVG, path) != SKEL_OK || !(f = fopen(path, "rb"))) return;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (char *)malloc((size_t)len + 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) { fclose(f); free(buf); return; }
    fclose(f);
    buf[len] = 0;
    if (!(f = fopen(path, "wb"))) { free(buf); return; }
    if (len > 7 && strstr(buf, "</svg>")) *strstr(buf, "</svg>") = 0;
    fputs(buf, f);
    for (i = 0; i < np; ++i) {
        double x = L + W * log((double)pts[i][0] / (double)a->lo) / span;
        double y = T + H - H * log((double)pts[i][1] / (double)a->lo) / span;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"black\"><title>%zu x %zu: %.1f%%"
                "</title></circle>\n", x, y, acc[i] >= 0.95 ? "white" : acc[i] >= 0.8 ? "#aaaaaa" : "black",
                pts[i][0], pts[i][1], 100 * acc[i]);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"11\">evaluation points: white >= 95%%, grey 80-95%%, "
               "black < 80%% of the best variant</text>\n</svg>\n", L, T + H + 58);
    fclose(f);
    free(buf);
}

/* ---- one application ---- */
typedef struct result {
    double acc, raw, worst, tune_s, wall_s;
    size_t worst_pt[2];
    int below80, points, nodes, depth, wrong;
    double half_acc;            /* the same with split_half's best */
    int half_below80;
} result;

static const char *CPU_BACKENDS;    /* --cpu: the backend filter */

static int is_training_point(const skel_plan *p, size_t r, size_t c)
{
    int i;
    for (i = 0; i < p->tree->npoints; ++i)
        if (p->tree->points[i].x[0] == r && p->tree->points[i].x[1] == c) return 1;
    return 0;
}

static int eval_app(const app *a, double budget, int npoints, const char *svgdir, uint64_t seed, result *res)
{
    static size_t pts[64][2];
    double acc[64], med[MAXCONF], ratio;
    int kept[MAXCONF], i, k, v, nc = 1;
    conf cs[MAXCONF];
    skel_tune_desc d;
    skel_plan *tuned;
    skel_plan_stats st;
    char id[64];
    uint64_t rng = seed ^ (uint64_t)a->hi * 0x2545F4914F6CDD1DULL ^ (uint64_t)(a->name[0] * 7919 + a->name[1]);
    memset(res, 0, sizeof *res);
    memset(&d, 0, sizeof d);
    snprintf(id, sizeof id, "eval2d-%s", a->name);
    d.id = id;
    d.sk = a->sk;
    d.dims = 2;
    d.lower[0] = d.lower[1] = a->lo;
    d.upper[0] = d.upper[1] = a->hi;
    d.time_budget = budget;
    d.backends = CPU_BACKENDS;
    d.nofile = 1;
    {   /* the template: what the calls set besides their containers */
        static skel_call tmpl;
        memset(&tmpl, 0, sizeof tmpl);
        if (a->sk == sobel || a->sk == dilate) tmpl.edge = SKEL_EDGE_DUPLICATE;
        if (a->sk == dilate) tmpl.direction = SKEL_ROWS_COLS;
        if (a->sk == colsum) tmpl.direction = SKEL_COLS;
        if (a->sk == rowmax) tmpl.direction = SKEL_ROWS;
        d.call = &tmpl;
    }
    if (a->sk == julia) d.prepare = julia_prepare;
    if (skel_tune(&d, &tuned) != SKEL_OK) { fprintf(stderr, "tune %s: %s\n", id, skel_last_error()); return -1; }
    skel_plan_stats_get(tuned, &st);
    if (getenv("EVAL_DUMP")) {
        skel_plan_dump(tuned, SKEL_DUMP_TEXT, NULL);
        printf("second looks: %d (%s)\n", st.rechecks, id);
    }
    res->tune_s = st.tune_seconds;
    res->wall_s = st.wall_seconds;
    res->points = st.points;
    res->nodes = st.nodes;
    res->depth = st.depth;
    memset(cs, 0, sizeof cs);
    snprintf(cs[0].label, sizeof cs[0].label, "tuned");
    cs[0].plan = tuned;
    for (v = 0; v < tuned->tree->nvar && nc < MAXCONF; ++v, ++nc) {
        skel_variant pv;
        _skel_pvar_public(&tuned->tree->vars[v], &pv);
        _skel_pvar_label(&tuned->tree->vars[v], cs[nc].label, sizeof cs[nc].label);
        skel_plan_new(&cs[nc].plan);
        skel_plan_add(cs[nc].plan, 0, SIZE_MAX, &pv);
    }
    for (k = 0; k < npoints;) {         /* log-uniform per axis, not training points */
        for (i = 0; i < 2; ++i) {
            double u = (double)(rnd(&rng) >> 11) / 9007199254740992.0;
            pts[k][i] = (size_t)floor(exp(log((double)a->lo) + u * (log((double)a->hi + 1) - log((double)a->lo))));
            if (pts[k][i] > a->hi) pts[k][i] = a->hi;
        }
        if (!is_training_point(tuned, pts[k][0], pts[k][1])) k++;
    }
    if (getenv("EVAL_AT"))              /* EVAL_AT=R,C: every point at R x C (a look at one shape) */
        for (k = 0; k < npoints; ++k)
            if (sscanf(getenv("EVAL_AT"), "%zu,%zu", &pts[k][0], &pts[k][1]) != 2) pts[k][0] = pts[k][1] = a->lo;
    res->worst = 1e9;
    for (k = 0; k < npoints; ++k) {
        double capped, half;
        setup(a->sk, pts[k][0], pts[k][1], rng + (uint64_t)k);
        time_point(a->sk, cs, nc, med, kept, &ratio, &half, &res->wrong, &rng);
        acc[k] = ratio;
        res->half_acc += (half < 1 ? half : 1) / npoints;
        res->half_below80 += half < 0.8;
        capped = ratio < 1 ? ratio : 1;
        res->acc += capped / npoints;
        res->raw += ratio / npoints;
        res->below80 += ratio < 0.8;
        if (ratio < res->worst) { res->worst = ratio; res->worst_pt[0] = pts[k][0]; res->worst_pt[1] = pts[k][1]; }
        if (getenv("EVAL_DUMP")) {
            skel_call c;
            skel_variant pv;
            char lab[32] = "?";
            app_call(a->sk, &c);        /* what the tuned plan runs for this very call */
            skel_set_plan(a->sk, tuned);
            if (skel_choose(a->sk, &c, &pv) == SKEL_OK)
                snprintf(lab, sizeof lab, "%s/%d/%d/%d", pv.backend, pv.threads, pv.block, pv.grid);
            printf("%zu x %zu (plan: %s):", pts[k][0], pts[k][1], lab);
            for (i = 0; i < nc; ++i) printf(" %s %.3g%s", cs[i].label, med[i], kept[i] ? "" : "(dropped)");
            printf("  ratio %.3f (split-half %.3f)\n", ratio, half);
            printf("  pool, caller slept/ran alone in timed calls:");
            for (i = 0; i < nc; ++i)
                if (TALLY[i][0] || TALLY[i][1]) printf(" %s %u/%u", cs[i].label, TALLY[i][0], TALLY[i][1]);
            printf("\n");
        }
        free_operands();
        fflush(stdout);
    }
    if (svgdir) plot(svgdir, a, tuned, (const size_t(*)[2])pts, acc, npoints);
    skel_set_plan(a->sk, NULL);
    for (v = 0; v < nc; ++v) skel_plan_free(cs[v].plan);
    return 0;
}

int main(int argc, char **argv)
{
    double budget = 5, t0 = bench_now(), sum = 0;
    int i, npoints = 20, done = 0, below = 0, total = 0, wrong = 0;
    const char *only = NULL, *svgdir = "bench/plots";
    uint64_t seed = 27;
    result r;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) budget = atof(argv[++i]);
        else if (strcmp(argv[i], "--points") == 0 && i + 1 < argc) npoints = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--svg-dir") == 0 && i + 1 < argc) svgdir = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = (uint64_t)atoll(argv[++i]);
        else if (strcmp(argv[i], "--cpu") == 0) {
            skel_cl_device_info info;
            int sel = skel_cl_device_selected();
            memset(&info, 0, sizeof info);
            CPU_BACKENDS = sel >= 0 && skel_cl_device_get(sel, &info) == SKEL_OK && info.is_cpu ? "seq,pool,omp,opencl"
                                                                                                : "seq,pool,omp";
        } else {
            printf("usage: bench_eval2d [--cpu] [--budget S] [--points N] [--only NAME] [--svg-dir DIR] [--seed N]\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (npoints < 1 || npoints > 64) npoints = 20;
    printf("skel tuner, 2-D held-out applications: %d random points each, tuning budget %g s; inputs on the host, "
           "every result read back\nbackends:", npoints, budget);
    for (i = 0; i < skel_backend_count(); ++i) printf(" %s", skel_backend_name(i));
    printf("%s%s\n\n| application | box | accuracy (capped) | uncapped | worst point | below 80%% | points | nodes | "
           "depth | tuning s | wall s | wrong |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
           CPU_BACKENDS ? "; tuned over " : "", CPU_BACKENDS ? CPU_BACKENDS : "");
    for (i = 0; i < NAPPS; ++i) {
        const app *a = &APPS[i];
        if (only && strcmp(only, a->name) != 0) continue;
        if (eval_app(a, budget, npoints, svgdir, seed, &r) != 0) return 1;
        printf("| %s | %zu..%zu squared | %.1f%% | %.1f%% | %.1f%% at %zu x %zu | %d | %d | %d | %d | %.1f | %.1f | %d |\n",
               a->what, a->lo, a->hi, 100 * r.acc, 100 * r.raw, 100 * r.worst, r.worst_pt[0], r.worst_pt[1],
               r.below80, r.points, r.nodes, r.depth, r.tune_s, r.wall_s, r.wrong);
        printf("split-half %s: %.1f%%, below 80%%: %d\n", a->name, 100 * r.half_acc, r.half_below80);
        fflush(stdout);
        sum += r.acc;
        below += r.below80;
        total += npoints;
        wrong += r.wrong;
        done++;
    }
    if (done)
        printf("| **all %d** | | **%.1f%%** | | | **%d of %d (%.1f%%)** | | | | | | %d |\n", done, 100 * sum / done,
               below, total, 100.0 * below / total, wrong);
    printf("\n(total %.0f s)\n", bench_now() - t0);
    return wrong ? 3 : 0;
}
