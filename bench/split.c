/* split.c - one call split over the CPU and a GPU (skel.h SPLIT CALLS).

   Let T_cpu and T_gpu be the single-place times of a call (each with the
   transfers its data's location requires) and T* = 1 / (1/T_cpu + 1/T_gpu)
   the ideal combined time.  Every figure is a median of interleaved rounds
   (each round times every configuration once, in turn).

   --sweep   a Map whose arithmetic per element (k multiply-adds) varies so
             that T_gpu/T_cpu runs from about 1/30 to the most the machine
             gives; inputs on the host (the GPU uploads what it computes)
             and on the GPU (the CPU downloads what it computes); results
             stay where they are computed.  Per k: T_cpu (pool, every
             thread), T_gpu (cuda), T*, the split (pool | cuda, shares from
             T_cpu and T_gpu, refined by the calls before the timed ones),
             and what a plan tuned at that size (pool, cuda and the splits
             the tuner makes) chooses and how long that takes.  Also the
             split with the host part started only after the GPU's uploads
             (SKEL_SPLIT_OVERLAP=0's order): what overlapping the transfers
             with the CPU's work buys.  --svg FILE: T_cpu, T_gpu, T*, split
             against T_gpu/T_cpu.
   --apps    Mandelbrot, Coulombic potential, N-body (MapArray), 5x5
             convolution, dot product, data on the host: the split against
             the best single place and T*, and a tuned plan's choice.
   --chain   20 MapOverlap2D sweeps (5x5 convolution) on 8192 x 8192 floats
             split between the CPU and the GPU: the bytes moved between
             places (transfer counters) against one distribution + 20 halo
             exchanges + one gather, and the time per sweep against the
             single-place sweep and T*.
   --quick   small sizes, few rounds (a smoke run).
   --n LOG2  the sweep's Map over 2^LOG2 floats (10..28; default 22).
   --loc L   the sweep at one input location only: host (pageable:
             SKEL_CUDA_PINNED=0), device, pinned (page-locked at the first
             upload: =1) or auto (the default rule); each location on fresh
             containers.
   --pinning what page-locking a container's host copy costs and buys
             (CUDA): per size, the registration's time, upload and
             download times pageable and page-locked, and a loop of 20
             write-on-the-host + upload cycles under each SKEL_CUDA_PINNED
             mode (never, first copy, the default rule: the copy at which
             it locked).

   Usage: bench_split [--sweep] [--apps] [--chain] [--pinning] [--quick] [--svg FILE] [--gpu cuda|opencl] [--loc L]
                      [--n LOG2]
   (--gpu opencl: OpenCL's device as the second place, e.g. PoCL for a smoke run)
   (no section: all three).
   BENCH_SPLIT_DUMP=FILE: the tuner's progress and each tuned plan's table
   on stderr (FILE: a scratch file for skel_plan_dump). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"          /* --gpu opencl: PoCL as the second place, a smoke run without a GPU */

#include "split_sweep.h"       /* sweep_map: the synthetic Map of the sweep */

SKEL_FUNC(int32_t, mandel_f, (skel_index r, skel_index c),
    float cr = -2.0f + 2.5f * (float)c / 4096.0f, ci = -1.25f + 2.5f * (float)r / 4096.0f;
    float zr = 0, zi = 0; int k = 0;
    while (k < 256 && zr * zr + zi * zi < 4.0f) { float t = zr * zr - zi * zi + cr; zi = 2.0f * zr * zi + ci; zr = t; ++k; }
    return k;)
SKEL_MAP_EX(mandel, mandel_f, int32_t, int32_t, 0, SKEL_INDEX2D, SKEL_NO_UNIFORM)
/* Coulombic potential on a 2-D grid slice (thesis ch. 6): atoms x, y, z, q
   in v; e is the grid point's index */
SKEL_FUNC(float, coulomb_f, (const float *v, float e, int32_t n),
    float gx = 0.1f * (float)((int)e % 1024), gy = 0.1f * (float)((int)e / 1024), s = 0; int k;
    for (k = 0; k < n; ++k) {
        float dx = gx - v[4 * k], dy = gy - v[4 * k + 1], dz = v[4 * k + 2];
        s += v[4 * k + 3] / sqrtf(dx * dx + dy * dy + dz * dz + 1e-2f);
    }
    return s;)
SKEL_MAPARRAY_EX(coulomb, coulomb_f, float, SKEL_UNIFORM(int32_t))
SKEL_FUNC(float, nbody_f, (const float *v, float e, int32_t n),
    int i = (int)e, k; float ax = 0, ay = 0, az = 0;
    for (k = 0; k < n; ++k) {
        float dx = v[3 * k] - v[3 * i], dy = v[3 * k + 1] - v[3 * i + 1], dz = v[3 * k + 2] - v[3 * i + 2];
        float r2 = dx * dx + dy * dy + dz * dz + 1e-3f, inv = 1.0f / (r2 * sqrtf(r2));
        ax += dx * inv; ay += dy * inv; az += dz * inv;
    }
    return sqrtf(ax * ax + ay * ay + az * az);)
SKEL_MAPARRAY_EX(nbody, nbody_f, float, SKEL_UNIFORM(int32_t))
SKEL_CONV2D(conv5, float, 2, 2)
SKEL_FUNC(float, mul_f, (float a, float b), return a * b;)
SKEL_FUNC(float, add_f, (float a, float b), return a + b;)
SKEL_MAPREDUCE(dot, mul_f, add_f, float, 2)

static int QUICK, GPU_SPACE = -1, SWEEP_LOC = -1, SWEEP_LOG2 = 22;   /* --loc: the sweep's one input location (-1: all) */
/* the sweep's input locations (--loc NAME) and the CUDA page-locking mode of each */
#define NLOC 4
static const char *LOC_NAME[NLOC] = { "host", "device", "pinned", "auto" };
static const char *where[NLOC] = { "host, pageable (SKEL_CUDA_PINNED=0)", "GPU",
                                   "host, page-locked at the first upload (SKEL_CUDA_PINNED=1)",
                                   "host, page-locked by the default rule (SKEL_CUDA_PINNED unset)" };
static const char *LOC_SHORT[NLOC] = { "host (pageable)", "GPU", "host (page-locked)", "host (default rule)" };
static const char *tag[NLOC] = { "_host", "_device", "_pinned", "_auto" };
static const int LOC_PINNING[NLOC] = { 0, 0, 1, 2 };
static const char *GPU = "cuda";      /* the GPU place's backend (--gpu) */
static float WEIGHTS[25];

static void fill(skel_vec *v, uint64_t seed, float scale)
{
    size_t i, n = skel_size(v);
    float *p = (float *)skel_write(v);
    for (i = 0; i < n; ++i) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        p[i] = scale * (float)(seed >> 40) / (float)(1 << 24);
    }
}

static skel_plan *fixed(const skel_variant *v)
{
    skel_plan *p;
    if (skel_plan_new(&p) != SKEL_OK || skel_plan_add(p, 0, SIZE_MAX, v) != SKEL_OK) {
        fprintf(stderr, "bench_split: plan: %s\n", skel_last_error());
        exit(1);
    }
    return p;
}

static skel_variant one(const char *backend)
{
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = backend;
    return v;
}

static skel_variant split2(double cpu_share)
{
    skel_variant v = one("split");
    v.parts[0].backend = "pool";
    v.parts[0].share = cpu_share;
    v.parts[1].backend = GPU;
    v.parts[1].share = 1 - cpu_share;
    return v;
}

/* The CPU's share that makes both parts end together, from the whole
   calls' times (the tuner does better with its cost lines; refinement
   corrects the rest). */
static double balance(double tc, double tg) { return tg / (tc + tg); }

/* Inputs where the scenario keeps them before each call: the host alone
   (a GPU part uploads what it reads) or the GPU alone (a host part
   downloads); untimed. */
static void place(skel_vec **in, int nin, int on_gpu)
{
    int i;
    for (i = 0; i < nin; ++i) {
        if (!on_gpu) { skel_write(in[i]); continue; }
        if (!_skel_acquire(in[i], GPU_SPACE, _SKEL_READ)) { fprintf(stderr, "bench_split: upload failed\n"); exit(1); }
        _skel_map_reset(in[i], GPU_SPACE);
    }
}

/* Wait until out's last writer is done (GPU calls return once queued). */
static void sync_out(skel_vec *out)
{
    if (out && !_skel_map_valid(out, 0)) _skel_tune_sync(out);
}

/* One timed call of sk with plan p on call c. */
static double time_call(skel_skeleton *sk, skel_plan *p, const skel_call *c, skel_vec **in, int nin, int on_gpu)
{
    double t0;
    int rc;
    place(in, nin, on_gpu);
    skel_set_plan(sk, p);
    t0 = bench_now();
    rc = skel_run(sk, c);
    sync_out(c->out);
    t0 = bench_now() - t0;
    if (rc != SKEL_OK) { fprintf(stderr, "bench_split: %s: %s\n", sk->name, skel_last_error()); exit(1); }
    return t0;
}

#define MAXC 6
/* Median times of configurations plans[0..n) in interleaved rounds (after
   `warm` untimed calls of each, which also let a split refine its shares). */
static void measure(skel_skeleton *sk, skel_plan **plans, int n, const skel_call *c, skel_vec **in, int nin, int on_gpu,
                    int rounds, int warm, double *med)
{
    static unsigned long long order_rng = 0x9E3779B97F4A7C15ull;
    double s[MAXC][64];
    int r, k, ord[MAXC];
    for (k = 0; k < n; ++k) {
        ord[k] = k;
        for (r = 0; r < warm; ++r) time_call(sk, plans[k], c, in, nin, on_gpu);
    }
    for (r = 0; r < rounds; ++r) {
        bench_shuffle(ord, n, &order_rng);      /* (bench.h: why each round anew) */
        for (k = 0; k < n; ++k) s[ord[k]][r] = time_call(sk, plans[ord[k]], c, in, nin, on_gpu);
    }
    for (k = 0; k < n; ++k) med[k] = bench_median(s[k], rounds);
    skel_set_plan(sk, NULL);
}

/* A plan tuned at this one context point (pool, cuda and the tuner's
   splits); the label of what it chooses there. */
static skel_plan *tune_here(skel_skeleton *sk, const skel_call *c, const size_t *pt, int dims, int on_gpu, char *label,
                            size_t size)
{
    skel_variant vars[2];
    skel_tune_desc d;
    skel_plan *p = NULL;
    skel_variant ch;
    char id[64];
    int k;
    vars[0] = one("pool");
    vars[1] = one(GPU);
    memset(&d, 0, sizeof d);
    snprintf(id, sizeof id, "bench-split-%s-%zu-%d", sk->name, pt[0], on_gpu);
    d.id = id;
    d.sk = sk;
    d.call = c;
    d.dims = dims;
    d.lower[0] = d.upper[0] = pt[0];
    d.lower[1] = d.upper[1] = dims == 2 ? pt[1] : 0;
    d.variants = vars;
    d.nvariants = 2;
    d.splits = 1;
    d.nofile = 1;
    d.reps = 3;
    d.time_budget = QUICK ? 0.5 : 1.5;
    d.timeout = 5;
    for (k = 0; k < SKEL_MAX_IN; ++k) d.in_loc[k] = on_gpu ? SKEL_ON_DEVICE : SKEL_ON_HOST;
    d.out_to_host = -1;     /* as every configuration here is timed: the result stays where it is made */
    d.quiet = !getenv("BENCH_SPLIT_DUMP");
    if (skel_tune(&d, &p) != SKEL_OK) { fprintf(stderr, "bench_split: tune: %s\n", skel_last_error()); exit(1); }
    skel_set_plan(sk, NULL);
    if (getenv("BENCH_SPLIT_DUMP")) {     /* the tuner's table on stderr: what it measured, what it chose */
        char line[512];
        FILE *f;
        fprintf(stderr, "== plan %s\n", id);
        if (skel_plan_dump(p, SKEL_DUMP_TEXT, getenv("BENCH_SPLIT_DUMP")) == SKEL_OK &&
            (f = fopen(getenv("BENCH_SPLIT_DUMP"), "r")) != NULL) {
            while (fgets(line, sizeof line, f)) fputs(line, stderr);
            fclose(f);
        }
    }
    snprintf(label, size, "?");
    if (skel_plan_lookup_point(p, pt, dims, &ch) == SKEL_OK) {
        if (strcmp(ch.backend, "split") == 0)
            snprintf(label, size, "split %s %.3f|%s %.3f", ch.parts[0].backend, ch.parts[0].share, ch.parts[1].backend,
                     ch.parts[1].share);
        else
            snprintf(label, size, "%s", ch.backend);
    }
    return p;
}

/* ---- the sweep ---- */
typedef struct sweep_row { double ratio, tc, tg, ts, tp, tn; char choice[96]; } sweep_row;

static void svg_sweep(const char *path, const sweep_row *rows, int n, const char *title)
{
    FILE *f = fopen(path, "w");
    double xlo = 1e30, xhi = 0, ylo = 1e30, yhi = 0, W = 640, H = 420, L = 70, T = 40;
    int i, k;
    const char *names[4] = { "T_cpu", "T_gpu", "T* (ideal)", "split" }, *col[4] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759" };
    if (!f) return;
    for (i = 0; i < n; ++i) {
        double y[4] = { rows[i].tc, rows[i].tg, 1 / (1 / rows[i].tc + 1 / rows[i].tg), rows[i].ts };
        if (rows[i].ratio < xlo) xlo = rows[i].ratio;
        if (rows[i].ratio > xhi) xhi = rows[i].ratio;
        for (k = 0; k < 4; ++k) { if (y[k] < ylo) ylo = y[k]; if (y[k] > yhi) yhi = y[k]; }
    }
    xlo /= 1.3; xhi *= 1.3; ylo /= 1.3; yhi *= 1.3;
#define SX(x) (L + (log(x) - log(xlo)) / (log(xhi) - log(xlo)) * W)
#define SY(y) (T + H - (log(y) - log(ylo)) / (log(yhi) - log(ylo)) * H)
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\">\n", L + W + 170, T + H + 60);
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"22\" font-size=\"14\">%s</text>\n", L, title);
    fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n", L, T, W, H);
    for (k = 0; k < 4; ++k) {
        fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" points=\"", col[k], k == 3 ? "2.5" : "1.5");
        for (i = 0; i < n; ++i) {
            double y[4] = { rows[i].tc, rows[i].tg, 1 / (1 / rows[i].tc + 1 / rows[i].tg), rows[i].ts };
            fprintf(f, "%.1f,%.1f ", SX(rows[i].ratio), SY(y[k]));
        }
        fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" fill=\"%s\">%s</text>\n", L + W + 10, T + 20 + 18.0 * k, col[k], names[k]);
    }
    for (i = 0; i < n; ++i) {
        double y = rows[i].ts;
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", SX(rows[i].ratio), SY(y), col[3]);
    }
    {
        double d;
        for (d = pow(10, ceil(log10(xlo))); d <= xhi; d *= 10)
            fprintf(f, "<text x=\"%.1f\" y=\"%.0f\" font-size=\"11\" text-anchor=\"middle\">%g</text>\n", SX(d), T + H + 16, d);
        for (d = pow(10, ceil(log10(ylo))); d <= yhi; d *= 10)
            fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g ms</text>\n", L - 4, SY(d) + 4, d * 1e3);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ccc\" stroke-dasharray=\"4\"/>\n", SX(1), T, SX(1), T + H);
    }
    fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"12\" text-anchor=\"middle\">T_gpu / T_cpu (log)</text>\n", L + W / 2, T + H + 38);
    fprintf(f, "</svg>\n");
#undef SX
#undef SY
    fclose(f);
}

static void sweep(const char *svg)
{
    static const int ks[] = { 0, 1, 2, 4, 8, 16, 32, 64, 128 };
    size_t n = QUICK ? (size_t)1 << 18 : (size_t)1 << SWEEP_LOG2;
    int nk = QUICK ? 4 : (int)(sizeof ks / sizeof *ks), loc, i, rounds = QUICK ? 5 : 9;
    skel_vec *x, *r;
    sweep_row rows[NLOC][16];
    for (loc = 0; loc < (strcmp(GPU, "cuda") ? 2 : NLOC); ++loc) {
        if (SWEEP_LOC >= 0 && loc != SWEEP_LOC) continue;
        /* fresh containers for each location: a page-locked host copy
           stays so for its device copy's lifetime */
        skel_vec_new(&x, SKEL_FLOAT, n);
        skel_vec_new(&r, SKEL_FLOAT, n);
        fill(x, 7, 1);
        if (!strcmp(GPU, "cuda")) _skel_cuda_test_pinning(LOC_PINNING[loc]);
        printf("\n## sweep: Map of %zu floats, k multiply-add pairs per element, inputs on the %s\n\n", n, where[loc]);
        printf("| k | T_cpu ms | T_gpu ms | T_gpu/T_cpu | T* ms | split ms | split/T* | split/min | shares cpu|gpu | no overlap ms | plan's choice | plan/min |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (i = 0; i < nk; ++i) {
            int32_t k = ks[i];
            skel_call c;
            skel_plan *pl[3], *tuned;
            skel_variant vc = one("pool"), vg = one(GPU), vs;
            double med[4], tc, tg, ts, tstar, s;
            sweep_row *row = &rows[loc][i];
            size_t pt = n;
            memset(&c, 0, sizeof c);
            c.out = r; c.in[0] = x; c.uniform = &k;
            pl[0] = fixed(&vc);
            pl[1] = fixed(&vg);
            measure(sweep_map, pl, 2, &c, &x, 1, loc == 1, 5, 2, med);
            tc = med[0]; tg = med[1];
            s = balance(tc, tg);
            vs = split2(s);
            pl[2] = fixed(&vs);
            tuned = tune_here(sweep_map, &c, &pt, 1, loc == 1, row->choice, sizeof row->choice);
            {   /* interleaved: cpu, gpu, split, tuned plan; then the split without overlap */
                skel_plan *all[4];
                double m4[4];
                all[0] = pl[0]; all[1] = pl[1]; all[2] = pl[2]; all[3] = tuned;
                measure(sweep_map, all, 4, &c, &x, 1, loc == 1, rounds, 4, m4);
                tc = m4[0]; tg = m4[1]; ts = m4[2]; row->tp = m4[3];
                _skel_test_split_overlap(0);
                measure(sweep_map, &pl[2], 1, &c, &x, 1, loc == 1, rounds, 2, m4);
                _skel_test_split_overlap(1);
                row->tn = m4[0];
            }
            tstar = 1 / (1 / tc + 1 / tg);
            row->ratio = tg / tc; row->tc = tc; row->tg = tg; row->ts = ts;
            printf("| %d | %.3f | %.3f | %.3g | %.3f | %.3f | %.3f | %.3f | %.3f / %.3f | %.3f | %s | %.3f |\n", (int)k,
                   1e3 * tc, 1e3 * tg, tg / tc, 1e3 * tstar, 1e3 * ts, ts / tstar, ts / (tc < tg ? tc : tg), s, 1 - s,
                   1e3 * row->tn, row->choice, row->tp / (tc < tg ? tc : tg));
            fflush(stdout);
            skel_plan_free(pl[0]); skel_plan_free(pl[1]); skel_plan_free(pl[2]);
            skel_plan_free(tuned);
        }
        if (svg) {
            char path[512], title[192];
            snprintf(path, sizeof path, "%s%s.svg", svg, tag[loc]);
            snprintf(title, sizeof title, "split Map, %zu floats, inputs on the %s: time vs T_gpu/T_cpu", n,
                     LOC_SHORT[loc]);
            svg_sweep(path, rows[loc], nk, title);
        }
        skel_free(x); skel_free(r);
    }
    if (!strcmp(GPU, "cuda")) _skel_cuda_test_pinning(2);
}

/* ---- real workloads, data on the host ---- */
static void app(const char *name, skel_skeleton *sk, skel_call *c, skel_vec **in, int nin, const size_t *pt, int dims)
{
    skel_variant vc = one("pool"), vg = one(GPU), vs;
    skel_plan *pl[4];
    double med[4], tc, tg, ts, s;
    char choice[96];
    int rounds = QUICK ? 3 : 9;
    pl[0] = fixed(&vc);
    pl[1] = fixed(&vg);
    measure(sk, pl, 2, c, in, nin, 0, 3, 1, med);
    s = balance(med[0], med[1]);
    vs = split2(s);
    pl[2] = fixed(&vs);
    pl[3] = tune_here(sk, c, pt, dims, 0, choice, sizeof choice);
    measure(sk, pl, 4, c, in, nin, 0, rounds, 4, med);
    tc = med[0]; tg = med[1]; ts = med[2];
    printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %.3f |\n", name, 1e3 * tc, 1e3 * tg,
           1e3 / (1 / tc + 1 / tg), 1e3 * ts, ts * (1 / tc + 1 / tg), ts / (tc < tg ? tc : tg), choice,
           med[3] / (tc < tg ? tc : tg));
    fflush(stdout);
    skel_plan_free(pl[0]); skel_plan_free(pl[1]); skel_plan_free(pl[2]); skel_plan_free(pl[3]);
}

static void apps(void)
{
    size_t side = QUICK ? 512 : 4096, n = QUICK ? (size_t)1 << 18 : (size_t)1 << 24, i, pt[2];
    int32_t na = QUICK ? 64 : 256, nb = QUICK ? 2048 : 32768;
    skel_vec *img, *atoms, *grid, *pot, *pos, *idx, *acc, *a, *b, *m, *mo, *in[2];
    skel_call c;
    float *p, res;
    printf("\n## real workloads, data on the host\n\n");
    printf("| workload | T_cpu ms | T_gpu ms | T* ms | split ms | split/T* | split/min | tuned plan's choice | plan/min |\n");
    printf("|---|---|---|---|---|---|---|---|---|\n");
    /* Mandelbrot: no inputs, side x side pixels */
    skel_mat_new(&img, SKEL_INT32, side, side);
    memset(&c, 0, sizeof c);
    c.out = img;
    pt[0] = side; pt[1] = side;    /* rows x cols: a (row, col) index tunes in 2-D, on matrices */
    app("Mandelbrot 4096^2, 256 iterations", mandel, &c, NULL, 0, pt, 2);
    /* Coulombic potential: grid points x atoms (MapArray: the atoms whole on each place) */
    skel_vec_new(&atoms, SKEL_FLOAT, 4 * (size_t)na);
    fill(atoms, 11, 100);
    skel_vec_new(&grid, SKEL_FLOAT, (size_t)1 << (QUICK ? 16 : 22));
    p = (float *)skel_write(grid);
    for (i = 0; i < skel_size(grid); ++i) p[i] = (float)i;
    skel_vec_new(&pot, SKEL_FLOAT, skel_size(grid));
    memset(&c, 0, sizeof c);
    c.out = pot; c.in[0] = atoms; c.in[1] = grid; c.uniform = &na;
    in[0] = atoms; in[1] = grid;
    pt[0] = skel_size(atoms); pt[1] = skel_size(grid);
    app("Coulombic potential 2^22 points x 256 atoms", coulomb, &c, in, 2, pt, 2);
    /* N-body: every particle against all */
    skel_vec_new(&pos, SKEL_FLOAT, 3 * (size_t)nb);
    fill(pos, 13, 10);
    skel_vec_new(&idx, SKEL_FLOAT, (size_t)nb);
    p = (float *)skel_write(idx);
    for (i = 0; i < (size_t)nb; ++i) p[i] = (float)i;
    skel_vec_new(&acc, SKEL_FLOAT, (size_t)nb);
    memset(&c, 0, sizeof c);
    c.out = acc; c.in[0] = pos; c.in[1] = idx; c.uniform = &nb;
    in[0] = pos; in[1] = idx;
    pt[0] = skel_size(pos); pt[1] = (size_t)nb;
    app("N-body 32768 particles (MapArray)", nbody, &c, in, 2, pt, 2);
    /* 5x5 convolution */
    skel_mat_new(&m, SKEL_FLOAT, side, side);
    skel_mat_new(&mo, SKEL_FLOAT, side, side);
    fill(m, 17, 1);
    memset(&c, 0, sizeof c);
    c.out = mo; c.in[0] = m; c.weights = WEIGHTS;
    in[0] = m;
    pt[0] = side; pt[1] = side;
    app("5x5 convolution 4096^2 floats", conv5, &c, in, 1, pt, 2);
    /* dot product */
    skel_vec_new(&a, SKEL_FLOAT, n);
    skel_vec_new(&b, SKEL_FLOAT, n);
    fill(a, 19, 1);
    fill(b, 23, 1);
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.result = &res;
    in[0] = a; in[1] = b;
    pt[0] = n;
    app("dot product 2^24 floats", dot, &c, in, 2, pt, 1);
    skel_free(img); skel_free(atoms); skel_free(grid); skel_free(pot); skel_free(pos); skel_free(idx);
    skel_free(acc); skel_free(m); skel_free(mo); skel_free(a); skel_free(b);
}

/* ---- a chain of split sweeps ---- */
typedef struct chain_res { double first, per; uint64_t bytes, up, down, cup, cdown, most; } chain_res;

/* 20 sweeps of the split (cpu share s) from the host, then the host reads
   the result; refine: shares refined between calls (SKEL_SPLIT_REFINE's
   default) or kept where s put them. */
static chain_res chain_split(skel_mat *x, skel_mat *y, skel_call *c, double s, int sweeps, int refine)
{
    skel_variant vs = split2(s);
    skel_plan *ps = fixed(&vs);
    skel_mat *cur = x, *nxt = y, *t;
    skel_traffic tr;
    chain_res res;
    double t0;
    uint64_t before = 0, now, up0 = 0, down0 = 0;
    int k;
    memset(&res, 0, sizeof res);
    _skel_test_split_refine(refine);
    skel_set_plan(conv5, ps);
    fill(x, 31, 1);
    skel_write(y);
    skel_traffic_reset();
    for (k = 0; k < sweeps; ++k) {
        double dt;
        t0 = bench_now();
        c->in[0] = cur; c->out = nxt;
        skel_run(conv5, c);
        dt = bench_now() - t0;
        if (k == 0) res.first = dt;
        else res.per += dt;
        t = cur; cur = nxt; nxt = t;
        skel_traffic_get(&tr);
        now = skel_traffic_total(&tr);
        fprintf(stderr, "chain (%s) sweep %d: %.3f ms, up %llu, down %llu bytes\n", refine ? "refined" : "kept", k, 1e3 * dt,
                (unsigned long long)(tr.bytes[0][GPU_SPACE] - up0), (unsigned long long)(tr.bytes[GPU_SPACE][0] - down0));
        up0 = tr.bytes[0][GPU_SPACE];
        down0 = tr.bytes[GPU_SPACE][0];
        if (k > 0 && now - before > res.most) res.most = now - before;      /* the most one later sweep moved */
        before = now;
    }
    sync_out(cur);
    res.per /= sweeps - 1;
    skel_read(cur);
    skel_traffic_get(&tr);
    res.bytes = skel_traffic_total(&tr);
    res.up = tr.bytes[0][GPU_SPACE]; res.down = tr.bytes[GPU_SPACE][0];
    res.cup = tr.copies[0][GPU_SPACE]; res.cdown = tr.copies[GPU_SPACE][0];
    skel_set_plan(conv5, NULL);
    _skel_test_split_refine(-1);
    skel_plan_free(ps);
    return res;
}

static void chain(void)
{
    size_t R = QUICK ? 1024 : 8192, C = R, row = C * sizeof(float), r1;
    int sweeps = 20, k, cpu_sweeps = QUICK ? 2 : 3, i;
    skel_mat *x, *y, *cur, *nxt, *t;
    skel_plan *pc, *pg;
    skel_variant vc = one("pool"), vg = one(GPU);
    skel_call c;
    double t0, tcpu, tgpu, s, tstar;
    uint64_t bound;
    chain_res res[2];
    skel_mat_new(&x, SKEL_FLOAT, R, C);
    skel_mat_new(&y, SKEL_FLOAT, R, C);
    fill(x, 29, 1);
    memset(&c, 0, sizeof c);
    c.weights = WEIGHTS;
    pc = fixed(&vc); pg = fixed(&vg);
    /* single places, data resident where they compute: per sweep */
    cur = x; nxt = y;
    skel_set_plan(conv5, pg);
    c.in[0] = cur; c.out = nxt; skel_run(conv5, &c); sync_out(nxt);    /* the data on the GPU */
    t0 = bench_now();
    for (k = 0; k < sweeps; ++k) { c.in[0] = cur; c.out = nxt; skel_run(conv5, &c); t = cur; cur = nxt; nxt = t; }
    sync_out(cur);
    tgpu = (bench_now() - t0) / sweeps;
    skel_set_plan(conv5, pc);
    skel_read(cur); skel_write(cur); skel_write(nxt);
    t0 = bench_now();
    for (k = 0; k < cpu_sweeps; ++k) { c.in[0] = cur; c.out = nxt; skel_run(conv5, &c); t = cur; cur = nxt; nxt = t; }
    tcpu = (bench_now() - t0) / cpu_sweeps;
    skel_set_plan(conv5, NULL);
    tstar = 1 / (1 / tcpu + 1 / tgpu);
    /* the split chains: shares from the single-place sweeps, kept; then refined */
    s = balance(tcpu, tgpu);
    for (i = 0; i < 2; ++i) res[i] = chain_split(x, y, &c, s, sweeps, i);
    /* the bound: the GPU's rows (the second part) and their halo up once,
       2 halo rows each way per later sweep (dR = 2 at one border), the
       GPU's rows home once */
    r1 = R - (size_t)floor(s * (double)R + 0.5);
    bound = (uint64_t)((r1 + 2) * row + (size_t)sweeps * 4 * row + r1 * row);
    printf("\n## chain: %d MapOverlap2D sweeps (5x5 convolution, constant edge), %zu x %zu floats\n\n", sweeps, R, C);
    printf("GPU sweep (data on the GPU) %.3f ms; CPU sweep (data on the host) %.3f ms; T* %.3f ms; shares cpu / gpu "
           "%.4f / %.4f (CPU rows 0..%zu, GPU rows %zu..%zu); bound on the bytes moved (distribution + %d halo "
           "exchanges + gather): %llu\n\n", 1e3 * tgpu, 1e3 * tcpu, 1e3 * tstar, s, 1 - s, R - r1 - 1, R - r1, R - 1,
           sweeps, (unsigned long long)bound);
    printf("| split chain | first sweep ms | later sweeps ms | / T* | / GPU sweep | bytes moved | / bound | most one later sweep moved | host->GPU bytes (copies) | GPU->host bytes (copies) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < 2; ++i)
        printf("| %s | %.3f | %.3f | %.2f | %.2f | %llu | %.3f %s | %llu | %llu (%llu) | %llu (%llu) |\n",
               i ? "shares refined" : "shares kept", 1e3 * res[i].first, 1e3 * res[i].per, res[i].per / tstar,
               res[i].per / tgpu, (unsigned long long)res[i].bytes, (double)res[i].bytes / (double)bound,
               res[i].bytes <= bound ? "met" : "NOT met", (unsigned long long)res[i].most, (unsigned long long)res[i].up,
               (unsigned long long)res[i].cup, (unsigned long long)res[i].down, (unsigned long long)res[i].cdown);
    skel_plan_free(pc); skel_plan_free(pg);
    skel_free(x); skel_free(y);
}

/* ---- page-locking a container's host copy: what it costs and buys ---- */
static double up_once(skel_vec *x)      /* written on the host, then copied to the GPU */
{
    double t0;
    skel_write(x);
    t0 = bench_now();
    if (!_skel_acquire(x, GPU_SPACE, _SKEL_READ)) { fprintf(stderr, "bench_split: upload failed\n"); exit(1); }
    return bench_now() - t0;
}

static double down_once(skel_vec *x)    /* valid on the GPU only, then read on the host */
{
    double t0;
    _skel_map_reset(x, GPU_SPACE);
    t0 = bench_now();
    if (!skel_read(x)) { fprintf(stderr, "bench_split: download failed\n"); exit(1); }
    return bench_now() - t0;
}

/* A fresh container of n floats under page-locking mode m (freed after). */
static skel_vec *pin_vec(int m, size_t n)
{
    skel_vec *x;
    _skel_cuda_test_pinning(m);
    skel_vec_new(&x, SKEL_FLOAT, n);
    fill(x, 5, 1);
    return x;
}

/* x freed, the default mode back; the seconds its lock's release took. */
static double pin_free(skel_vec *x)
{
    skel_cuda_stats s0, s1;
    skel_cuda_stats_get(&s0);
    skel_free(x);
    skel_cuda_stats_get(&s1);
    _skel_cuda_test_pinning(2);
    return s1.unpin_seconds - s0.unpin_seconds;
}

/* Mode m, n floats: the registration's time (the stats' delta over the
   first copy), its release's, and the medians of 5 uploads and 5
   downloads after it. */
static void pin_costs(int m, size_t n, double *reg, double *unreg, double *up, double *down)
{
    skel_vec *x = pin_vec(m, n);
    skel_cuda_stats s0, s1;
    double u[5], d[5];
    int k;
    skel_cuda_stats_get(&s0);
    up_once(x);
    skel_cuda_stats_get(&s1);
    *reg = s1.pin_seconds - s0.pin_seconds;
    for (k = 0; k < 5; ++k) { u[k] = up_once(x); d[k] = down_once(x); }
    *up = bench_median(u, 5);
    *down = bench_median(d, 5);
    *unreg = pin_free(x);
}

/* Mode m, n floats: the total of `cycles` write + upload cycles; *at the
   cycle at which the host copy was locked (0: never). */
static double pin_loop(int m, size_t n, int cycles, int *at)
{
    skel_vec *x = pin_vec(m, n);
    skel_cuda_stats s0, s1;
    double total = 0;
    int k;
    skel_cuda_stats_get(&s0);
    for (*at = 0, k = 1; k <= cycles; ++k) {
        total += up_once(x);
        skel_cuda_stats_get(&s1);
        if (!*at && s1.pins > s0.pins) *at = k;
    }
    pin_free(x);
    return total;
}

static void pinning(void)
{
    static const double mbs[] = { 0.25, 1, 4, 16, 64, 256 };
    int i, r, m;
    if (strcmp(GPU, "cuda")) { printf("\n## pinning: CUDA only\n"); return; }
    printf("\n## page-locking a container's host copy (medians of 5 copies; 3 rounds each, modes alternately)\n\n");
    printf("| MB | register ms | release ms | upload ms: pageable | page-locked | download ms: pageable | page-locked | "
           "copies that pay for both |\n|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < (int)(sizeof mbs / sizeof *mbs); ++i) {
        size_t n = (size_t)(mbs[i] * (1 << 18));
        double reg[3], unreg[3], u0[3], d0[3], u1[3], d1[3], x, g, price;
        for (r = 0; r < 3; ++r) {
            pin_costs(0, n, &x, &x, &u0[r], &d0[r]);
            pin_costs(1, n, &reg[r], &unreg[r], &u1[r], &d1[r]);
        }
        g = (bench_median(u0, 3) - bench_median(u1, 3) + bench_median(d0, 3) - bench_median(d1, 3)) / 2;
        price = bench_median(reg, 3) + bench_median(unreg, 3);
        printf("| %g | %.2f | %.2f | %.3f | %.3f | %.3f | %.3f | %.1f |\n", mbs[i], 1e3 * bench_median(reg, 3),
               1e3 * bench_median(unreg, 3), 1e3 * bench_median(u0, 3), 1e3 * bench_median(u1, 3),
               1e3 * bench_median(d0, 3), 1e3 * bench_median(d1, 3), g > 0 ? price / g : -1.0);
        fflush(stdout);
    }
    printf("\n20 cycles of a host write and an upload, a fresh container per run (its first upload allocates), "
           "medians of 3 runs, modes alternately:\n\n| MB | never (0) ms | at the first copy (1) ms | "
           "default rule ms | rule / best | the rule locked at copy |\n|---|---|---|---|---|---|\n");
    for (i = 0; i < (int)(sizeof mbs / sizeof *mbs); ++i) {
        size_t n = (size_t)(mbs[i] * (1 << 18));
        double tot[3][3], med[3], best;
        int at[3], a = 0;
        for (r = 0; r < 3; ++r)
            for (m = 0; m < 3; ++m) tot[m][r] = pin_loop(m, n, 20, &at[m]);
        a = at[2];      /* the rule's, in the last run */
        for (m = 0; m < 3; ++m) med[m] = bench_median(tot[m], 3);
        best = med[0] < med[1] ? med[0] : med[1];
        printf("| %g | %.2f | %.2f | %.2f | %.2f | %d |\n", mbs[i], 1e3 * med[0], 1e3 * med[1], 1e3 * med[2],
               med[2] / best, a);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    int i, do_sweep = 0, do_apps = 0, do_chain = 0, do_pin = 0;
    const char *svg = NULL;
    skel_cuda_device_info info;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--sweep")) do_sweep = 1;
        else if (!strcmp(argv[i], "--apps")) do_apps = 1;
        else if (!strcmp(argv[i], "--chain")) do_chain = 1;
        else if (!strcmp(argv[i], "--pinning")) do_pin = 1;
        else if (!strcmp(argv[i], "--quick")) QUICK = 1;
        else if (!strcmp(argv[i], "--svg") && i + 1 < argc) svg = argv[++i];
        else if (!strcmp(argv[i], "--n") && i + 1 < argc && atoi(argv[i + 1]) >= 10 && atoi(argv[i + 1]) <= 28)
            SWEEP_LOG2 = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--gpu") && i + 1 < argc) GPU = argv[++i];
        else if (!strcmp(argv[i], "--loc") && i + 1 < argc) {
            const char *l = argv[++i];
            for (SWEEP_LOC = NLOC - 1; SWEEP_LOC >= 0 && strcmp(l, LOC_NAME[SWEEP_LOC]); --SWEEP_LOC) {}
            if (SWEEP_LOC < 0) { printf("bench_split --loc: host, device, pinned or auto, not %s\n", l); return 2; }
        } else {
            printf("usage: bench_split [--sweep] [--apps] [--chain] [--quick] [--svg FILE] [--gpu cuda|opencl] "
                   "[--loc host|device|pinned|auto] [--n LOG2] [--pinning]\n");
            return 2;
        }
    }
    if (!do_sweep && !do_apps && !do_chain && !do_pin) do_sweep = do_apps = do_chain = 1;
    if (!strcmp(GPU, "opencl")) {
        if (skel_cl_register() != SKEL_OK) { printf("bench_split --gpu opencl: %s\n", skel_last_error()); return 1; }
        snprintf(info.name, sizeof info.name, "OpenCL device 0");
    } else if (skel_cuda_register() != SKEL_OK || skel_cuda_device_get(0, &info) != SKEL_OK) {
        printf("bench_split needs a CUDA GPU: %s\n", skel_last_error());
        return 1;
    }
    GPU_SPACE = _skel_place_of(_skel_backend_find(GPU), 0);
    for (i = 0; i < 25; ++i) WEIGHTS[i] = (float)(i % 5 + 1) / 40.0f;
    printf("# %s; CPU: %d threads (pool); %s\n", info.name, _skel_pool_default_threads(), QUICK ? "quick" : "full");
    if (do_sweep) sweep(svg);
    if (do_apps) apps();
    if (do_chain) chain();
    if (do_pin) pinning();
    return 0;
}
