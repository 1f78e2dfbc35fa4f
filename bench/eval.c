/* eval.c - how well the tuner picks: seed 000's Figure 3 method.

   For each application (written with skel) it tunes every skeleton
   instance the application calls over a size range, then at 30 random
   sizes (log-uniform in the range, none of them a training point) times
   the application with the tuned plans and with every variant forced on
   all its calls.  Per application it reports:
       accuracy   mean over the sizes of best variant time / tuned time
                  (the best variant at that size, measured in the same run,
                  paired by round: see Timing)
       worst      the smallest of those ratios, and its size
       explored   distinct training points / integer points of the range
                  (2-D: of the box), summed over the application's instances
       tuning     seconds the tuner spent (all instances)
   and writes bench/plots/eval_<app>.svg: time vs size per variant and tuned.
   Then it times plan lookups, and runs the SPH-like chain of seed 000
   listing 3 tuned per call and with bulk selection (call.group).

   Timing at a size: one untimed call of every configuration, then rounds
   in which each configuration (in a fresh random order each round, so
   drift and what one configuration leaves behind hit all of them) takes
   one sample, at least 15 rounds and until 0.6 s (63 at most); the median
   sample is reported and plotted, and best / tuned is the least over the
   variants of the median of the per-round ratios (time_confs says why).  A sample (time_sample) is: one untimed call of the
   same configuration, then the operands placed where the tuning assumed
   them (untimed), then r calls in a row on the same data, timed until the
   last result is complete, divided by r.  So the evaluation times what
   the tuner ranks by, T(r)/r = R + F/r (skel.h TUNER):
       default      r = 1, inputs on the host before each call
                    (skel_write: a GPU variant pays its uploads every call,
                    its device buffers kept, as the tuner's samples)
       --r R        tune with desc.repeats = R, time bursts of R calls
                    (a GPU variant pays its uploads once per R calls)
   An application that makes several calls on the same inputs per run
   (Pearson: five) tunes its instances with repeats = r times that count
   and runs them as one bulk group (call.group): they share one memory
   space, so the data move once per run, as T(r) = R r + F models.
       --on-device  tune with in_loc = SKEL_ON_DEVICE, and put the inputs
                    only in the first GPU's memory before each burst
                    (host variants pay the download)

   Usage: bench_eval [--quick] [--cpu | --cpu-omp] [--budget S] [--r R] [--on-device]
                     [--only NAME] [--svg-dir DIR] [--linear] [--help]
       --cpu      tune over seq, pool (2, 4, .. threads and the core count)
                  and an OpenCL device that is this CPU (PoCL) only
       --cpu-omp  the same with omp (1, 2, 4, .. threads) instead of pool
       --quick    5 sizes per application, 3 s tuning budget (a smoke run)
       --budget   tuning budget per instance in seconds (default 15)
       --only     run only the application NAME (e.g. dot) */
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
SKEL_FUNC(float, mul_f, (float a, float b), return a * b;)
SKEL_FUNC(float, add_f, (float a, float b), return a + b;)
SKEL_FUNC(float, sqdiff_f, (float a, float b), float d = a - b; return d * d;)
SKEL_FUNC(int64_t, sqdiff_i, (int32_t a, int32_t b), int64_t d = (int64_t)a - b; return d * d;)
SKEL_FUNC(int64_t, add_i, (int64_t a, int64_t b), return a + b;)
/* Mandelbrot on a 1024-wide image, flat pixel index i */
SKEL_FUNC(int32_t, mandel_f, (skel_index i),
    float cr = -2.0f + 2.5f * (float)(i % 1024) / 1024.0f;
    float ci = -1.25f + 2.5f * (float)((i / 1024) % 1024) / 1024.0f;
    float zr = 0, zi = 0; int k = 0;
    while (k < 100 && zr * zr + zi * zi < 4.0f) { float t = zr * zr - zi * zi + cr; zi = 2.0f * zr * zi + ci; zr = t; ++k; }
    return k;)
/* exp(x) by its Taylor series, 32 terms */
SKEL_FUNC(float, taylor_f, (float x),
    float s = 1.0f, term = 1.0f; int k;
    for (k = 1; k < 32; ++k) { term *= x / (float)k; s += term; }
    return s;)
/* N-body: |acceleration| of particle e (an index) from all n particles,
   positions packed x,y,z in v */
SKEL_FUNC(float, nbody_f, (const float *v, float e, int32_t n),
    int i = (int)e, k; float ax = 0, ay = 0, az = 0;
    for (k = 0; k < n; ++k) {
        float dx = v[3 * k] - v[3 * i], dy = v[3 * k + 1] - v[3 * i + 1], dz = v[3 * k + 2] - v[3 * i + 2];
        float r2 = dx * dx + dy * dy + dz * dz + 1e-3f, inv = 1.0f / (r2 * sqrtf(r2));
        ax += dx * inv; ay += dy * inv; az += dz * inv;
    }
    return sqrtf(ax * ax + ay * ay + az * az);)
/* SPH-like chain: a cheap, a dear and a cheap call on the same data */
SKEL_FUNC(float, sph1_f, (float a, float b), return 0.5f * (a + b);)
SKEL_FUNC(float, sph2_f, (float a, float b),
    float s = 0; int k; for (k = 0; k < 16; ++k) s += sinf(a * (float)k + b); return s * 0.0625f;)
SKEL_FUNC(float, sph3_f, (float a), return a * 0.99f + 0.01f;)

SKEL_MAPREDUCE(dot, mul_f, add_f, float, 2)
SKEL_REDUCE(vsum, add_f, float)
SKEL_MAPREDUCE(mse, sqdiff_f, add_f, float, 2)
SKEL_MAPREDUCE_EX(psnr, sqdiff_i, add_i, int64_t, int32_t, 2, SKEL_NO_INDEX, SKEL_NO_UNIFORM)
SKEL_MAPREDUCE(pdot, mul_f, add_f, float, 2)
SKEL_REDUCE(psum, add_f, float)
SKEL_MAP_INDEX(mandel, mandel_f, int32_t, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_MAP(taylor, taylor_f, float, 1)
SKEL_MAPARRAY_EX(nbody, nbody_f, float, SKEL_UNIFORM(int32_t))
SKEL_MAP(sph1, sph1_f, float, 2)
SKEL_MAP(sph2, sph2_f, float, 2)
SKEL_MAP(sph3, sph3_f, float, 1)

/* ---- operands of the current size ---- */
static skel_vec *X, *Y, *Z, *IX, *IY;
static size_t N;
static int32_t NB_N;
static double sink;

static void fill(skel_vec *v, uint64_t seed)
{
    size_t i, n = skel_size(v);
    void *p = skel_write(v);
    for (i = 0; i < n; ++i) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        if (skel_elem_type(v) == SKEL_FLOAT) ((float *)p)[i] = (float)(seed >> 40) / (float)(1 << 24);
        else ((int32_t *)p)[i] = (int32_t)(seed % 256);
    }
}

/* How the evaluation calls the applications (and tunes them): r calls in
   a row on the same data (--r), inputs on the host before the first of
   them or only in the first GPU's memory (--on-device). */
static int REPEATS = 1, ON_DEVICE, DEV_SPACE = -1;

/* Operands where the tuning assumed them before a timed burst of r calls,
   as the tuner's synthetic calls start (_skel_synth_reset): every input
   valid on the host only, its device buffers kept (a GPU variant pays its
   uploads, not an allocation), or with --on-device only on the GPU (a host
   variant pays the download); the output's device copy marked stale
   without a download, as the tuner's calls start too: after a download NVIDIA's OpenCL ran the next call on that
   buffer 8 us slower (bench/firstcall.c), a cost neither the tuning nor a
   program that keeps its result on the GPU pays.  (Run I dropped it
   without first waiting for the call that wrote it: OpenCL variants took
   6x as long.  time_sample now waits.)  EVAL_FLUSH_OUT=1: download it
   (the harness of runs J-M).  Untimed. */
static void place_operands(void)
{
    static int flush_out = -1;
    skel_vec *in[4];
    int i;
    if (flush_out < 0) flush_out = getenv("EVAL_FLUSH_OUT") && atoi(getenv("EVAL_FLUSH_OUT"));
    in[0] = X; in[1] = Y; in[2] = IX; in[3] = IY;
    if (Z && flush_out) skel_flush(Z);
    else if (Z) _skel_mark_written(Z, 0);   /* stale on the devices (its host data are never read) */
    for (i = 0; i < 4; ++i) {
        if (!in[i]) continue;
        skel_write(in[i]);
        if (ON_DEVICE && DEV_SPACE > 0 && _skel_acquire(in[i], DEV_SPACE, _SKEL_READ))
            _skel_map_reset(in[i], DEV_SPACE);
    }
}

static void free_operands(void)
{
    skel_free(X); skel_free(Y); skel_free(Z); skel_free(IX); skel_free(IY);
    X = Y = Z = IX = IY = NULL;
}

/* ---- applications ---- */
typedef struct app {
    const char *name, *what;
    skel_skeleton *sk[3];           /* instances it calls (tuned each) */
    int nsk, dims;
    size_t lo, hi;                  /* range of n */
    void (*setup)(size_t n);
    int (*run)(void);
    int calls;                      /* calls per run on the same inputs, see eval_app */
} app;

static void setup_xy(size_t n)
{
    skel_vec_new(&X, SKEL_FLOAT, n); skel_vec_new(&Y, SKEL_FLOAT, n);
    fill(X, 1); fill(Y, 2);
}
static void setup_x(size_t n) { skel_vec_new(&X, SKEL_FLOAT, n); fill(X, 1); }
static void setup_ixy(size_t n)
{
    skel_vec_new(&IX, SKEL_INT32, n); skel_vec_new(&IY, SKEL_INT32, n);
    fill(IX, 3); fill(IY, 4);
}
static void setup_out(size_t n) { skel_vec_new(&Z, SKEL_INT32, n); }
static void setup_xz(size_t n)
{
    size_t i;
    float *p;
    setup_x(n);
    skel_vec_new(&Z, SKEL_FLOAT, n);
    p = (float *)skel_write(X);
    for (i = 0; i < n; ++i) p[i] = 2 * p[i] - 1;
}
static void setup_nbody(size_t n)
{
    size_t i;
    float *p;
    skel_vec_new(&X, SKEL_FLOAT, 3 * n); fill(X, 5);
    skel_vec_new(&Y, SKEL_FLOAT, n);
    skel_vec_new(&Z, SKEL_FLOAT, n);
    p = (float *)skel_write(Y);
    for (i = 0; i < n; ++i) p[i] = (float)i;
    NB_N = (int32_t)n;
}

static int run_dot(void) { float r; int rc = skel_mapreduce2(dot, X, Y, &r); sink += r; return rc; }
static int run_sum(void) { float r; int rc = skel_reduce(vsum, X, &r); sink += r; return rc; }
static int run_mse(void)
{
    float r;
    int rc = skel_mapreduce2(mse, X, Y, &r);
    sink += r / (float)N;
    return rc;
}
static int run_psnr(void)
{
    int64_t r;
    int rc = skel_mapreduce2(psnr, IX, IY, &r);
    sink += 10 * log10(255.0 * 255.0 / ((double)r / (double)N + 1e-9));
    return rc;
}
/* One call of Pearson's group: the five calls read the same two vectors and
   run in the memory space the first one's plan chooses (bulk selection,
   seed 000 §4.2), so that what moves the vectors is paid once per run. */
#define PEARSON_GROUP 7
static int pearson_call(skel_skeleton *sk, skel_vec *a, skel_vec *b, float *result)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.result = result; c.group = PEARSON_GROUP;
    return skel_run(sk, &c);
}
static int run_pearson(void)
{
    float sxy, sxx, syy, sx, sy;
    double n = (double)N, num, den;
    int rc;
    skel_group_reset(PEARSON_GROUP);      /* each run's first call chooses afresh */
    rc = pearson_call(pdot, X, Y, &sxy);
    rc |= pearson_call(pdot, X, X, &sxx);
    rc |= pearson_call(pdot, Y, Y, &syy);
    rc |= pearson_call(psum, X, NULL, &sx);
    rc |= pearson_call(psum, Y, NULL, &sy);
    num = n * sxy - (double)sx * sy;
    den = sqrt(n * sxx - (double)sx * sx) * sqrt(n * syy - (double)sy * sy);
    sink += den > 0 ? num / den : 0;
    return rc;
}
static int run_mandel(void) { return skel_map1(mandel, Z, NULL) ; }
static int run_taylor(void) { return skel_map1(taylor, Z, X); }
static int run_nbody(void)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = X; c.in[1] = Y; c.out = Z; c.uniform = &NB_N;
    return skel_run(nbody, &c);
}

static app APPS[] = {
    { "dot", "dot product (MapReduce)", { dot }, 1, 1, 10, 20000000, setup_xy, run_dot, 1 },
    { "vsum", "vector sum (Reduce)", { vsum }, 1, 1, 10, 20000000, setup_x, run_sum, 1 },
    { "mse", "mean squared error (MapReduce)", { mse }, 1, 1, 10, 20000000, setup_xy, run_mse, 1 },
    { "psnr", "PSNR, int32 pixels (MapReduce, int64 sums)", { psnr }, 1, 1, 10, 20000000, setup_ixy, run_psnr, 1 },
    { "pearson", "Pearson correlation (3 MapReduce + 2 Reduce)", { pdot, psum }, 2, 1, 10, 10000000, setup_xy, run_pearson, 5 },
    { "mandelbrot", "Mandelbrot, 100 iterations (index Map)", { mandel }, 1, 1, 10, 1000000, setup_out, run_mandel, 1 },
    { "taylor", "Taylor series of exp, 32 terms (Map)", { taylor }, 1, 1, 10, 4000000, setup_xz, run_taylor, 1 },
    { "nbody", "N-body accelerations, O(n^2) (MapArray, 2-D)", { nbody }, 1, 2, 10, 3000, setup_nbody, run_nbody, 1 },
};
#define NAPPS (int)(sizeof APPS / sizeof APPS[0])

/* mandel has no input: the Map shorthand with a NULL input is not allowed */
static int run_mandel_call(void)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.out = Z;
    return skel_run(mandel, &c);
}

/* N-body's synthetic calls: particle indices and the count fit the point */
static int32_t nb_tune_n;
static void nbody_prepare(skel_call *c, const size_t *pt, void *user)
{
    size_t i, n = pt[0] / 3;
    float *e = (float *)skel_write(c->in[1]);
    (void)user;
    if (n < 1) n = 1;
    for (i = 0; i < pt[1]; ++i) e[i] = (float)(i % n);
    nb_tune_n = (int32_t)n;
    c->uniform = &nb_tune_n;
}

/* ---- timing ---- */
#define MAXCONF 16
typedef struct conf {
    char label[32];
    skel_plan *plan[3];             /* per instance */
} conf;

static void use_conf(const app *a, const conf *c)
{
    int i;
    for (i = 0; i < a->nsk; ++i) skel_set_plan(a->sk[i], c->plan[i]);
}

/* One sample of configuration c: seconds per call over bursts of r calls.
   The configuration first runs once untimed, so that what the previous
   one left behind is not charged to it: at n < 100 sleeping OpenMP
   threads and output lines in the other core's cache cost a few hundred
   ns, as much as the call; at n ~ 1e7 a call right after PoCL's took 40%
   longer.  The tuner's measurements start the same way (each variant
   right after its own previous call).  Bursts shorter than 20 us are
   repeated (operands placed anew, untimed, before each) and their times
   summed: one clock read resolves ~10 ns here, a tenth of a call at
   n = 16, and a sum averages that rounding out where a median of single
   reads keeps it. */
static double time_sample(const app *a, const conf *c, double last)
{
    double t0, sum = 0, burst = last * REPEATS;
    int k, b, m = burst > 0 && burst < 20e-6 ? (int)(20e-6 / burst) + 1 : 1;
    if (m > 64) m = 64;
    use_conf(a, c);
    a->run();
    _skel_tune_sync(Z);                 /* before place_operands marks its buffer stale */
    for (b = 0; b < m; ++b) {
        place_operands();
        t0 = bench_now();
        for (k = 0; k < REPEATS; ++k) a->run();
        _skel_tune_sync(Z);             /* a GPU Map has finished, as the tuner waits */
        sum += bench_now() - t0;
    }
    return sum / m / REPEATS;
}

/* Median time per call of every configuration at the current operands,
   and *ratio = best / tuned as the least over the variants of the median
   per-round ratio (variant's sample / tuned sample of the same round).
   Rounds: each configuration takes one sample, in a fresh random order; at
   least MINROUNDS and until MINSECONDS, at most MAXROUNDS.  The ratio is
   paired by round because the samples of one round lie within a fraction
   of a millisecond: when another process slows this one down for a while
   (other people's builds and test runs come and go on a 2-vCPU VM and
   share its caches, memory bandwidth and scheduler), every configuration
   of that round is slowed alike, where medians taken apart can each
   catch a different phase.  With configuration 0 the tuned one.
   At n ~ 1e7 with host data a round takes ~0.2 s (the GPU variants'
   uploads), longer than that pairing covers, and on the H100 machine
   omp/16 ran several times its usual time for a second or more at a time
   (bench/RESULTS_TUNER.md in git history, sections 10-11), so seven
   rounds (until 0.3 s, up to session 9) could all fall in one such phase.  15 rounds and 0.6 s
   span twice as long. */
#define MINROUNDS 15
#define MINSECONDS 0.6
#define MAXROUNDS 63
static int time_confs(const app *a, conf *cs, int nc, double *med, double *ratio)
{
    double s[MAXCONF][MAXROUNDS], last[MAXCONF], start;
    int rounds = 0, i, j, ord[MAXCONF];
    static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
    for (i = 0; i < nc; ++i) {
        use_conf(a, &cs[i]);
        start = bench_now();
        if (a->run() != SKEL_OK) { fprintf(stderr, "%s: %s\n", a->name, skel_last_error()); return -1; }
        _skel_tune_sync(Z);
        last[i] = bench_now() - start;
        ord[i] = i;
    }
    start = bench_now();
    while (rounds < MAXROUNDS && (rounds < MINROUNDS || bench_now() - start < MINSECONDS)) {
        bench_shuffle(ord, nc, &rng);
        for (j = 0; j < nc; ++j) {
            i = ord[j];
            last[i] = s[i][rounds] = time_sample(a, &cs[i], last[i]);
        }
        rounds++;
    }
    *ratio = 1e30;
    for (i = 1; i < nc; ++i) {
        double q[MAXROUNDS], m;
        for (j = 0; j < rounds; ++j) q[j] = s[i][j] / s[0][j];
        if ((m = bench_median(q, rounds)) < *ratio) *ratio = m;
    }
    for (i = 0; i < nc; ++i) med[i] = bench_median(s[i], rounds);
    return 0;
}

/* ---- SVG plot: time vs size, log-log ---- */
static void plot(const char *path, const app *a, const conf *cs, int nc, const size_t *sz, double (*t)[MAXCONF], int np)
{
    static const char *col[] = { "black", "#2ca02c", "#1f77b4", "#9467bd", "#8c564b", "#e377c2", "#17becf" };
    FILE *f = fopen(path, "w");
    double tmin = 1e30, tmax = 0, L = 70, T = 40, W = 620, H = 380;
    int i, k, c;
    if (!f) return;
    for (i = 0; i < np; ++i)
        for (c = 0; c < nc; ++c) { if (t[i][c] < tmin) tmin = t[i][c]; if (t[i][c] > tmax) tmax = t[i][c]; }
    tmin /= 1.5; tmax *= 1.5;
#define PX(n) (L + W * (log((double)(n)) - log((double)a->lo)) / (log((double)a->hi) - log((double)a->lo)))
#define PY(v) (T + H - H * (log(v) - log(tmin)) / (log(tmax) - log(tmin)))
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"860\" height=\"480\" font-family=\"sans-serif\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%.0f\" y=\"22\" font-size=\"14\">%s: time per call vs size (log-log)</text>\n", L, a->what);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n", L, T, W, H);
    for (k = 0; k < 12; ++k) {
        double dec = pow(10, floor(log10((double)a->lo)) + k);
        if (dec >= (double)a->lo && dec <= (double)a->hi)
            fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">%g</text>\n", PX(dec), T + H + 16, dec);
    }
    for (k = -9; k < 3; ++k) {
        double dec = pow(10, k);
        if (dec >= tmin && dec <= tmax)
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g s</text>\n", L - 4, PY(dec) + 4, dec);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">size n%s</text>\n", L + W / 2,
            T + H + 34, a->dims == 2 ? " (particles; context point 3n x n)" : "");
    for (c = 0; c < nc; ++c) {
        const char *colour = c == 0 ? "red" : col[(c - 1) % 7];
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", colour, c == 0 ? "2" : "1");
        for (i = 0; i < np; ++i) fprintf(f, "%.1f,%.1f ", PX(sz[i]), PY(t[i][c]));
        fprintf(f, "\"/>\n");
        for (i = 0; i < np; ++i)
            fprintf(f, c == 0 ? "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"none\" stroke=\"red\"/>\n"
                              : "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n",
                    PX(sz[i]) - (c == 0 ? 3 : 0), PY(t[i][c]) - (c == 0 ? 3 : 0), colour);
        fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" fill=\"%s\">%s</text>\n", L + W + 15, T + 14.0 + 18 * c,
                colour, cs[c].label);
    }
    fprintf(f, "</svg>\n");
#undef PX
#undef PY
    fclose(f);
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return (a > b) - (a < b);
}

static int is_training_point(const skel_plan *p, size_t n, int dims)
{
    const _skel_tree *t = p->tree;
    int i;
    for (i = 0; i < t->npoints; ++i)
        if (t->points[i].x[0] == (dims == 2 ? 3 * n : n) && (dims == 1 || t->points[i].x[1] == n)) return 1;
    return 0;
}

typedef struct result {
    double acc, worst, explored, tune_s;
    size_t worst_n;
    int points, nodes, depth;
} result;

static skel_variant CPU_VARIANTS[16];
static int NCPU_VARIANTS;

/* --cpu keeps an OpenCL device that is the host CPU (PoCL), with the
   block-size candidates the backend lists for the tuner. */
static void add_cpu_opencl(void)
{
    skel_cl_device_info info;
    int sel = skel_cl_device_selected(), b, m, k;
    memset(&info, 0, sizeof info);
    if (sel < 0 || skel_cl_device_get(sel, &info) != SKEL_OK || !info.is_cpu) return;
    for (b = 0; b < _skel_nbackends; ++b) {
        const _skel_backend *be = &_skel_backends[b];
        if (strcmp(be->name, "opencl") != 0 || !be->candidates) continue;
        m = be->candidates(be, CPU_VARIANTS + NCPU_VARIANTS, 16 - NCPU_VARIANTS);
        for (k = 0; k < m; ++k) CPU_VARIANTS[NCPU_VARIANTS + k].backend = "opencl";
        NCPU_VARIANTS += m > 0 ? m : 0;
    }
}

static int eval_app(app *a, double budget, int nsizes, const char *svgdir, int split, result *res)
{
    skel_plan *tuned[3];
    conf cs[MAXCONF];
    size_t sz[64];
    double t[64][MAXCONF], space, sum = 0;
    int i, k, v, nc = 1, points = 0;
    uint64_t rng = 0x1234567 + (uint64_t)a->lo;
    char svg[512];
    memset(res, 0, sizeof *res);
    memset(cs, 0, sizeof cs);
    res->worst = 1e9;
    /* tune every instance */
    for (i = 0; i < a->nsk; ++i) {
        skel_tune_desc d;
        skel_plan_stats st;
        char id[64];
        memset(&d, 0, sizeof d);
        snprintf(id, sizeof id, "eval-%s-%d", a->name, i);
        d.id = id;
        d.sk = a->sk[i];
        d.lower[0] = a->dims == 2 ? 3 * a->lo : a->lo;
        d.upper[0] = a->dims == 2 ? 3 * a->hi : a->hi;
        d.lower[1] = a->lo;
        d.upper[1] = a->hi;
        d.time_budget = budget;
        d.nofile = 1;
        d.split = split;
        d.variants = NCPU_VARIANTS ? CPU_VARIANTS : NULL;
        d.nvariants = NCPU_VARIANTS;
        /* rank by what time_sample times: r runs on the same data, each of
           `calls` calls (Pearson's five calls read the same two vectors, so
           what moves them, an upload or a download, is paid once per run:
           T(r calls) = R r + F is the tuner's model of exactly that) */
        d.repeats = REPEATS * a->calls;
        for (k = 0; k < SKEL_MAX_IN; ++k) d.in_loc[k] = ON_DEVICE ? SKEL_ON_DEVICE : SKEL_ON_HOST;
        if (a->sk[i] == nbody) d.prepare = nbody_prepare;
        if (skel_tune(&d, &tuned[i]) != SKEL_OK) { fprintf(stderr, "tune %s: %s\n", id, skel_last_error()); return -1; }
        skel_plan_stats_get(tuned[i], &st);
        if (getenv("EVAL_DUMP")) {
            skel_plan_dump(tuned[i], SKEL_DUMP_TEXT, NULL);
            printf("second looks: %d (%s)\n", st.rechecks, id);
        }
        res->tune_s += st.tune_seconds;
        points += st.points;
        res->nodes += st.nodes;
        if (st.depth > res->depth) res->depth = st.depth;
    }
    res->points = points;
    space = a->dims == 2 ? (double)(3 * (a->hi - a->lo) + 1) * (double)(a->hi - a->lo + 1) : (double)(a->hi - a->lo + 1);
    res->explored = points / space;
    /* configurations: tuned, then every variant of the first instance's table on all calls */
    snprintf(cs[0].label, sizeof cs[0].label, "tuned");
    for (i = 0; i < a->nsk; ++i) cs[0].plan[i] = tuned[i];
    for (v = 0; v < tuned[0]->tree->nvar && nc < MAXCONF; ++v, ++nc) {
        skel_variant pv;
        _skel_pvar_public(&tuned[0]->tree->vars[v], &pv);
        _skel_pvar_label(&tuned[0]->tree->vars[v], cs[nc].label, sizeof cs[nc].label);
        for (i = 0; i < a->nsk; ++i) {
            skel_plan_new(&cs[nc].plan[i]);
            skel_plan_add(cs[nc].plan[i], 0, SIZE_MAX, &pv);
        }
    }
    /* random sizes, log-uniform, not training points */
    for (k = 0; k < nsizes;) {
        double u;
        size_t n;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        u = (double)(rng >> 11) / 9007199254740992.0;
        n = (size_t)floor(exp(log((double)a->lo) + u * (log((double)a->hi) - log((double)a->lo))));
        for (i = 0; i < a->nsk && !is_training_point(tuned[i], n, a->dims); ++i) {}
        if (i < a->nsk || n < a->lo || n > a->hi) continue;
        sz[k++] = n;
    }
    qsort(sz, (size_t)nsizes, sizeof sz[0], cmp_size);
    for (k = 0; k < nsizes; ++k) {
        double ratio;
        N = sz[k];
        a->setup(N);
        if (time_confs(a, cs, nc, t[k], &ratio) != 0) return -1;
        free_operands();
        if (getenv("EVAL_DUMP")) {
            size_t pt[2];
            skel_variant pv;
            char lab[32] = "?";
            pt[0] = a->dims == 2 ? 3 * N : N;
            pt[1] = N;
            if (skel_plan_lookup_point(tuned[0], pt, a->dims, &pv) == SKEL_OK)
                snprintf(lab, sizeof lab, "%s/%d/%d", pv.backend, pv.threads, pv.block);
            printf("n=%zu (plan: %s):", N, lab);
            for (i = 0; i < nc; ++i) printf(" %s %.3g", cs[i].label, t[k][i]);
            printf("  ratio %.3f\n", ratio);
        }
        sum += ratio;
        if (ratio < res->worst) { res->worst = ratio; res->worst_n = N; }
    }
    res->acc = sum / nsizes;
    if (svgdir) {
        snprintf(svg, sizeof svg, "%s/eval_%s%s.svg", svgdir, a->name, split ? "_linear" : "");
        plot(svg, a, cs, nc, sz, t, nsizes);
    }
    for (i = 0; i < a->nsk; ++i) {
        skel_set_plan(a->sk[i], NULL);
        skel_plan_free(tuned[i]);
    }
    for (v = 1; v < nc; ++v)
        for (i = 0; i < a->nsk; ++i) skel_plan_free(cs[v].plan[i]);
    return 0;
}

/* ---- plan lookup cost ---- */
/* a cost model with crossovers at 11000 and 1e6: the tree goes to depth 10 there */
static double model_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    static const double base[3] = { 1e-6, 1e-4, 1e-3 }, slope[3] = { 1e-8, 1e-9, 1e-10 };
    int k = v->threads % 3;
    (void)once; (void)user;
    return base[k] + slope[k] * (double)pt[0];
}

/* ns per skel_plan_lookup_point over m random sizes of 10 .. 2e7 */
static double time_lookups(skel_plan *p, int m, uint64_t *rng)
{
    skel_variant v;
    size_t pt[2] = { 0, 1 };
    double t0 = bench_now();
    int i, acc = 0;
    memset(&v, 0, sizeof v);
    for (i = 0; i < m; ++i) {
        *rng ^= *rng << 13; *rng ^= *rng >> 7; *rng ^= *rng << 17;
        pt[0] = 10 + (size_t)(*rng % 20000000);
        skel_plan_lookup_point(p, pt, 1, &v);
        acc += v.threads;
    }
    if (acc == -1) printf(" ");     /* keeps the loop from being optimised away */
    return 1e9 * (bench_now() - t0) / m;
}

static void lookup_cost(double budget)
{
    skel_plan *p;
    skel_plan_stats st;
    skel_tune_desc d;
    uint64_t rng = 99;
    int m = 2000000;
    memset(&d, 0, sizeof d);
    d.id = "eval-lookup";
    d.cost = model_cost;
    d.dims = 1;
    d.variants = (const skel_variant[]){ { .backend = "omp", .threads = 3 }, { .backend = "omp", .threads = 1 },
                                         { .backend = "omp", .threads = 2 } };
    d.nvariants = 3;
    d.lower[0] = 10;
    d.upper[0] = 20000000;
    d.time_budget = budget;
    d.nofile = 1;
    d.quiet = 1;
    if (skel_tune(&d, &p) != SKEL_OK) return;
    skel_plan_stats_get(p, &st);
    printf("\nplan lookup (skel_plan_lookup_point, %d-node tree of depth %d, random sizes): %.1f ns per lookup\n",
           st.nodes, st.depth, time_lookups(p, m, &rng));
    {   /* the same tree walked node by node (2-D plans and bulk groups do this) */
        _skel_tree *t = p->tree;
        int nreg = t->nreg;
        double ns;
        t->nreg = 0;
        ns = time_lookups(p, m, &rng);
        t->nreg = nreg;
        printf("tree walk instead of the flattened ranges: %.1f ns per lookup\n", ns);
    }
    skel_plan_free(p);
}

/* ---- bulk selection on the SPH-like chain (seed 000 listing 3) ---- */
static double sph_chain(int group, size_t n, int iters)
{
    skel_call c1, c2, c3;
    double t0;
    int it;
    memset(&c1, 0, sizeof c1); memset(&c2, 0, sizeof c2); memset(&c3, 0, sizeof c3);
    c1.in[0] = X; c1.in[1] = Y; c1.out = Y; c1.group = group;   /* skeleton_1(v0, v1, v1) */
    c2.in[0] = Y; c2.in[1] = X; c2.out = X; c2.group = group;   /* skeleton_2(v1, v0, v0) */
    c3.in[0] = X; c3.out = X; c3.group = group;                 /* skeleton_3(v0, v0) */
    (void)n;
    skel_group_reset(0);
    t0 = bench_now();
    for (it = 0; it < iters; ++it) {
        skel_run(sph1, &c1);
        skel_run(sph2, &c2);
        skel_run(sph3, &c3);
    }
    skel_read(X);
    return (bench_now() - t0) / iters;
}

static void bulk(double budget)
{
    skel_skeleton *sks[3] = { sph1, sph2, sph3 };
    skel_plan *p[3];
    size_t sizes[3] = { 1000, 100000, 4000000 }, n;
    int i, k, b;
    printf("\nSPH-like chain (seed 000 listing 3: three Maps on the same data in a loop), seconds per iteration:\n");
    printf("| n | tuned per call | bulk (group 1) | choices per call | ");
    for (b = 0; b < skel_backend_count(); ++b) printf("%s | ", skel_backend_name(b));
    printf("\n|---|---|---|---|");
    for (b = 0; b < skel_backend_count(); ++b) printf("---|");
    printf("\n");
    for (i = 0; i < 3; ++i) {
        skel_tune_desc d;
        char id[32];
        memset(&d, 0, sizeof d);
        snprintf(id, sizeof id, "eval-sph%d", i + 1);
        d.id = id;
        d.sk = sks[i];
        d.lower[0] = 100;
        d.upper[0] = 10000000;
        d.time_budget = budget;
        d.repeats = 10;
        d.variants = NCPU_VARIANTS ? CPU_VARIANTS : NULL;
        d.nvariants = NCPU_VARIANTS;
        d.nofile = 1;
        d.quiet = 1;
        if (skel_tune(&d, &p[i]) != SKEL_OK) { fprintf(stderr, "%s\n", skel_last_error()); return; }
    }
    for (k = 0; k < 3; ++k) {
        double tl, tb, tf[8];
        char choice[128] = "";
        n = sizes[k];
        setup_xy(n);
        for (i = 0; i < 3; ++i) {
            skel_call c;
            skel_variant v;
            char lab[32];
            memset(&c, 0, sizeof c);
            c.in[0] = X; c.in[1] = i < 2 ? Y : NULL; c.out = X;
            if (skel_choose(sks[i], &c, &v) == SKEL_OK) {
                if (v.threads) snprintf(lab, sizeof lab, "%s/%d", v.backend, v.threads);
                else snprintf(lab, sizeof lab, "%s", v.backend);
                strcat(choice, i ? ", " : "");
                strcat(choice, lab);
            }
        }
        sph_chain(0, n, 2);
        tl = sph_chain(0, n, n > 1000000 ? 5 : 50);
        tb = sph_chain(1, n, n > 1000000 ? 5 : 50);
        for (b = 0; b < skel_backend_count() && b < 8; ++b) {
            skel_plan *f;
            skel_plan_new(&f);
            skel_plan_add(f, 0, SIZE_MAX, &(skel_variant){ .backend = skel_backend_name(b) });
            for (i = 0; i < 3; ++i) skel_set_plan(sks[i], f);
            tf[b] = sph_chain(0, n, n > 1000000 ? 5 : 50);
            for (i = 0; i < 3; ++i) skel_set_plan(sks[i], p[i]);
            skel_plan_free(f);
        }
        printf("| %zu | %.3g | %.3g | %s | ", n, tl, tb, choice);
        for (b = 0; b < skel_backend_count() && b < 8; ++b) printf("%.3g | ", tf[b]);
        printf("\n");
        free_operands();
    }
    for (i = 0; i < 3; ++i) { skel_set_plan(sks[i], NULL); skel_plan_free(p[i]); }
}

int main(int argc, char **argv)
{
    double budget = 15, t0 = bench_now(), macc = 0, mworst = 1e9, mexp = 0;
    int i, nsizes = 30, quick = 0, done = 0, linear = 0;
    const char *only = NULL, *svgdir = "bench/plots";
    result r;
    APPS[5].run = run_mandel_call;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) { quick = 1; nsizes = 5; budget = 3; }
        else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) budget = atof(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--svg-dir") == 0 && i + 1 < argc) svgdir = argv[++i];
        else if (strcmp(argv[i], "--linear") == 0) linear = 1;
        else if (strcmp(argv[i], "--cpu") == 0 || strcmp(argv[i], "--cpu-omp") == 0) {
            int th, cores = (int)sysconf(_SC_NPROCESSORS_ONLN), cpu_omp = argv[i][5] != 0;
            const char *par = skel_backend_available("pool") && !cpu_omp ? "pool" : "omp";
            CPU_VARIANTS[NCPU_VARIANTS++] = (skel_variant){ .backend = "seq" };
            if (skel_backend_available(par)) {   /* (pool/1 would be seq) */
                for (th = strcmp(par, "pool") == 0 ? 2 : 1; th < cores && NCPU_VARIANTS < 15; th *= 2)
                    CPU_VARIANTS[NCPU_VARIANTS++] = (skel_variant){ .backend = par, .threads = th };
                CPU_VARIANTS[NCPU_VARIANTS++] = (skel_variant){ .backend = par, .threads = cores };
            }
            add_cpu_opencl();
        }
        else if (strcmp(argv[i], "--r") == 0 && i + 1 < argc) REPEATS = atoi(argv[++i]) > 0 ? atoi(argv[i]) : 1;
        else if (strcmp(argv[i], "--on-device") == 0) ON_DEVICE = 1;
        else {
            printf("usage: bench_eval [--quick] [--cpu | --cpu-omp] [--budget S] [--r R] [--on-device] [--only NAME]\n"
                   "                  [--svg-dir DIR] [--linear]\n"
                   "  --r R        tune for and time R calls in a row on the same data (default 1)\n"
                   "  --on-device  inputs start in the first GPU's memory (tuning and timing)\n"
                   "  --linear     also tune dot with linear (arithmetic-middle) splits\n");
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    for (i = 0; i < skel_backend_count(); ++i)
        if (_skel_backends[i].is_gpu) { DEV_SPACE = _skel_backends[i].space; break; }
    printf("skel tuner evaluation (seed 000 Figure 3 method): %d random sizes per application, "
           "tuning budget %g s per instance%s; r = %d, inputs on the %s%s\n\n", nsizes, budget,
           quick ? " (quick)" : "", REPEATS, ON_DEVICE ? "device" : "host",
           ON_DEVICE && DEV_SPACE < 0 ? " (no GPU: host)" : "");
    printf("backends:");
    for (i = 0; i < skel_backend_count(); ++i) printf(" %s", skel_backend_name(i));
    printf("\n\n| application | range | accuracy | worst point | explored | points | tuning s |\n"
           "|---|---|---|---|---|---|---|\n");
    for (i = 0; i < NAPPS; ++i) {
        app *a = &APPS[i];
        if (only && strcmp(only, a->name) != 0) continue;
        if (eval_app(a, budget, nsizes, svgdir, SKEL_SPLIT_GEOMETRIC, &r) != 0) return 1;
        printf("| %s | %zu..%zu%s | %.1f%% | %.1f%% at n=%zu | %.5f%% | %d | %.1f |\n", a->what, a->lo, a->hi,
               a->dims == 2 ? " (3n x n)" : "", 100 * r.acc, 100 * r.worst, r.worst_n, 100 * r.explored, r.points,
               r.tune_s);
        fflush(stdout);
        macc += r.acc;
        mexp += r.explored;
        if (r.worst < mworst) mworst = r.worst;
        done++;
    }
    if (done) printf("| **mean of %d** | | **%.1f%%** | %.1f%% (min) | %.5f%% | | |\n", done, 100 * macc / done,
                     100 * mworst, 100 * mexp / done);
    if (linear && (!only || strcmp(only, "dot") == 0)) {
        if (eval_app(&APPS[0], budget, nsizes, svgdir, SKEL_SPLIT_LINEAR, &r) != 0) return 1;
        printf("\nlinear splits, dot product: accuracy %.1f%%, worst %.1f%% at n=%zu, explored %.5f%%, %d points, "
               "%.1f s tuning\n", 100 * r.acc, 100 * r.worst, r.worst_n, 100 * r.explored, r.points, r.tune_s);
    }
    if (!only || strcmp(only, "lookup") == 0) {
        lookup_cost(quick ? 1 : 5);
        bulk(quick ? 1 : 5);
    }
    printf("\n(total %.0f s; checksum %g)\n", bench_now() - t0, sink);
    return 0;
}
