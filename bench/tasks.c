/* tasks.c - issue 26's targets for asynchronous calls and the scheduler.

   bench_tasks [--gpu PLACE] [--scale S] [--reps R] [--warm W] [--only NAME[,NAME..]] [--no-overhead]
               [--beta B]   (dmda's weight of transfer time in its fitness; default skel's)

   1. Overhead (host only): N empty user tasks submitted and waited for
      (independent, and as one chain on a container), microseconds a task;
      then tasks of about 100 us of arithmetic (a dependent FMA chain,
      calibrated alone) on C CPU workers: efficiency = the same tasks run
      one after another / (C x the time on C workers).
   2. The thesis ch. 6 applications written with skel_submit: Coulombic
      potential (Map + MapArray per slice), separable Gaussian blur of
      several images (row pass, column pass), iterative SOR (MapOverlap2D
      + Map, a chain), and listing 6.1's ODE-solver-like program; and a
      farm of 64 independent calls of mixed kinds and sizes (skel_farm).
      Each runs under the policies static (every instance on the place
      where its calls are fastest alone: the plan a tuner would make),
      eager, ws, greedy (dmda without its lookahead: StarPU's dmda),
      before (dmda as it was before its defer_us and its copies in a
      place's load), at-once (dmda with the copies, without defer_us) and
      dmda, interleaved, R timed runs after one untimed run
      (the dmda kinds: W, to calibrate: 2 samples a place), every input on the host
      at the start, the makespan ending when every result is back on the
      host.  Reported:
      median makespan, bytes moved (host <-> GPU), and the lower bound:
          LB = max(critical path, area bound)
      from each call's time at each place (4 runs back to back after one
      that brings its inputs: computing only) plus, at the GPU, its share of
      the copies no schedule that computes it there avoids (a program input
      goes up once, shared among its first readers; a program output comes
      home from its last writer; bandwidths measured on 64 MB): the
      critical path is the placed one (placed_path: each call at either
      place, paying the copies of its operands between places and of the
      program inputs it reads at the GPU), at least the unplaced one (each
      call at its better place with its share of the copies); the area bound is the
      least T within which a fractional split of all calls between the
      host (NCPU CPUs, a call holding as many as its variant's threads)
      and the GPU (one call at a time) finishes on both.  Copies between
      calls, the host's idle CPUs and whole calls only add, so LB is a
      lower bound (as far as a call's time alone is what it takes in a
      program: cache and clock effects are not bounded).
      The farm is also run one call after another on the best single place
      (all host, all GPU: the smaller), the baseline the issue names.
   Results are checked: every run's outputs against the same program run
   once with skel_run (synchronous, default placement): largest difference
   relative to each output's largest value, over 1e-3 fails the run. */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

int _skel_place_bind(int p);           /* skel.h "places": run this thread's calls at place p */
int _skel_place_find(const char *name);

/* ---- the skeletons ---- */
SKEL_STRUCT(cslice, float z; float h; int32_t natoms; int32_t width;)
SKEL_FUNC(float, cpos_f, (skel_index i), return (float)i;)
SKEL_FUNC(float, coul_f, (const float *v, float e, cslice u),
    int i = (int)e, k; float x = (float)(i % u.width) * u.h, y = (float)(i / u.width) * u.h, s = 0;
    for (k = 0; k < u.natoms; ++k) {
        float dx = x - v[4 * k], dy = y - v[4 * k + 1], dz = u.z - v[4 * k + 2];
        s += v[4 * k + 3] / sqrtf(dx * dx + dy * dy + dz * dz + 0.01f);
    }
    return s;)
SKEL_MAP_INDEX(cpos, cpos_f, float, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_MAPARRAY_EX(coul, coul_f, float, SKEL_UNIFORM(cslice))

SKEL_FUNC(float, gauss_f, (const float *a), return 0.0625f * (a[-2] + a[2]) + 0.25f * (a[-1] + a[1]) + 0.375f * a[0];)
SKEL_OVERLAP(gblur, gauss_f, float, 2)

SKEL_FUNC(float, jac_f, (const float *a, skel_index s), return 0.25f * (a[-s] + a[s] + a[-1] + a[1]);)
SKEL_FUNC(float, relax_f, (float xbar, float x, float w), return w * xbar + (1.0f - w) * x;)
SKEL_OVERLAP2D(jacobi, jac_f, float, 1, 1)
SKEL_MAP_EX(relax, relax_f, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float))

SKEL_FUNC(float, ode1_f, (const float *v, float e, int32_t n), int k = (int)(e * 997.0f) % n; return e + 0.5f * v[k < 0 ? -k : k];)
SKEL_FUNC(float, ode2_f, (float a),
    float s = 1.0f, t = 1.0f; int k; for (k = 1; k < 24; ++k) { t *= 0.5f * a / (float)k; s += t; } return s;)
SKEL_FUNC(float, ode3_f, (float a), return 0.999f * a + 0.001f;)
SKEL_FUNC(float, ode5_f, (float a, float b), return 0.5f * (a + sinf(b));)
SKEL_FUNC(float, mul_f, (float a, float b), return a * b;)
SKEL_FUNC_COMMUTATIVE(float, add_f, (float a, float b), return a + b;)
SKEL_MAPARRAY_EX(ode1, ode1_f, float, SKEL_UNIFORM(int32_t))
SKEL_MAP(ode2, ode2_f, float, 1)
SKEL_MAP(ode3, ode3_f, float, 1)
SKEL_REDUCE(ode4, add_f, float)
SKEL_MAP(ode5, ode5_f, float, 2)
SKEL_MAPREDUCE(ode6, mul_f, add_f, float, 2)

SKEL_FUNC(float, heavy_f, (float a),
    float s = a; int k; for (k = 0; k < 64; ++k) s = s * 0.999f + sinf(s + (float)k); return s;)
SKEL_FUNC(float, light_f, (float a, float b), return a * 0.5f + b;)
SKEL_MAP(fheavy, heavy_f, float, 1)
SKEL_MAP(flight, light_f, float, 2)
SKEL_MAPREDUCE(fdot, mul_f, add_f, float, 2)
SKEL_OVERLAP(fblur, gauss_f, float, 2)
SKEL_FUNC(float, copy_f, (float a), return a;)
SKEL_MAP(fcopy, copy_f, float, 1)

/* ---- a program's calls: submitted, run at once, or recorded ---- */
enum { M_SUBMIT, M_SYNC, M_RECORD, M_FARM };
#define MAXREC 4096
typedef struct rec {
    skel_skeleton *sk;
    skel_call call;
    int dep[MAXREC / 64], ndep;         /* earlier calls it must follow (some, enough for the path) */
    double t[2];                        /* alone: host, GPU (seconds) */
    double xfer;                        /* GPU: its share of the copies it cannot avoid there */
    int width;                          /* host threads of its host variant */
} rec;
static rec REC[MAXREC];
static int NREC, MODE, GPU = -1, NCPU = 1;
static skel_farm *FARM;
static int FAILED;

static void check_rc(int rc, const char *what)
{
    if (rc != SKEL_OK && !FAILED) {
        fprintf(stderr, "FAILED %s: %s: %s\n", what, skel_error_string(rc), skel_last_error());
        FAILED = 1;
    }
}

static int touches(const skel_call *c, const skel_vec *v, int write)
{
    int k;
    if (c->out == v) return 1;
    for (k = 0; !write && k < SKEL_MAX_IN; ++k)
        if (c->in[k] == v) return 1;
    return 0;
}

static void sub(skel_skeleton *sk, const skel_call *c)
{
    rec *r;
    int j, k;
    if (MODE == M_SUBMIT) { check_rc(skel_submit(sk, c), sk->name); return; }
    if (MODE == M_SYNC) { check_rc(skel_run(sk, c), sk->name); return; }
    if (MODE == M_FARM) { check_rc(skel_farm_call(FARM, sk, c), sk->name); return; }
    if (NREC == MAXREC) { fprintf(stderr, "too many calls\n"); exit(1); }
    r = &REC[NREC];
    memset(r, 0, sizeof *r);
    r->sk = sk;
    r->call = *c;
    for (j = NREC - 1; j >= 0 && r->ndep < (int)(sizeof r->dep / sizeof r->dep[0]); --j) {
        int dep = c->out && touches(&REC[j].call, c->out, 0);   /* WAR, WAW */
        for (k = 0; !dep && k < SKEL_MAX_IN; ++k) dep = c->in[k] && touches(&REC[j].call, c->in[k], 1);  /* RAW */
        if (dep) r->dep[r->ndep++] = j;
    }
    NREC++;
}

/* ---- the applications: containers made once, inputs reset per run ---- */
typedef struct app {
    const char *name;
    void (*init)(void);                 /* containers, reference inputs */
    void (*reset)(void);                /* inputs on the host again */
    void (*run)(void);                  /* its calls, through sub() */
    skel_vec *out[64];                  /* what it computes (checked; read back at the end) */
    int nout;
} app;

static double SCALE = 1;
static size_t scaled(double n, size_t lo) { size_t v = (size_t)(n * SCALE); return v < lo ? lo : v; }
static uint64_t RNG = 88172645463325252ull;
static float frand(void) { RNG ^= RNG << 13; RNG ^= RNG >> 7; RNG ^= RNG << 17; return (float)(RNG >> 40) / (float)(1 << 24); }
static void fill(skel_vec *v, uint64_t seed)
{
    size_t i, n = skel_size(v);
    float *p = (float *)skel_write(v);
    RNG = seed * 2654435761u + 1;
    for (i = 0; i < n; ++i) p[i] = frand();
}
static skel_vec *vnew(size_t n) { skel_vec *v; if (skel_vec_new(&v, SKEL_FLOAT, n) != SKEL_OK) exit(1); return v; }
static skel_mat *mnew(size_t r, size_t c) { skel_mat *m; if (skel_mat_new(&m, SKEL_FLOAT, r, c) != SKEL_OK) exit(1); return m; }

/* Coulombic potential: S slices of W x W points, A atoms */
#define CS 16
static app A_COUL, A_BLUR, A_SOR, A_ODE, A_FARM;
static skel_vec *c_atoms, *c_pts[CS];
static cslice c_u[CS];
static void coul_init(void)
{
    size_t w = scaled(256, 16), s;
    int32_t na = (int32_t)scaled(512, 16);
    c_atoms = vnew(4 * (size_t)na);
    for (s = 0; s < CS; ++s) {
        c_pts[s] = vnew(w * w);
        A_COUL.out[s] = vnew(w * w);
        c_u[s].z = 0.1f * (float)s; c_u[s].h = 1.0f / (float)w; c_u[s].natoms = na; c_u[s].width = (int32_t)w;
    }
    A_COUL.nout = CS;
}
static void coul_reset(void) { fill(c_atoms, 1); }
static void coul_run(void)
{
    int s;
    for (s = 0; s < CS; ++s) {
        sub(cpos, &(skel_call){ .out = c_pts[s] });
        sub(coul, &(skel_call){ .in = { c_atoms, c_pts[s] }, .out = A_COUL.out[s], .uniform = &c_u[s] });
    }
}

/* Separable Gaussian blur of B images: rows, then columns */
#define BB 8
static skel_mat *b_img[BB], *b_tmp[BB];
static void blur_init(void)
{
    size_t m = scaled(2048, 17), b;
    for (b = 0; b < BB; ++b) { b_img[b] = mnew(m, m); b_tmp[b] = mnew(m, m); A_BLUR.out[b] = mnew(m, m); }
    A_BLUR.nout = BB;
}
static void blur_reset(void) { int b; for (b = 0; b < BB; ++b) fill(b_img[b], 10 + (uint64_t)b); }
static void blur_run(void)
{
    int b;
    for (b = 0; b < BB; ++b) {
        sub(gblur, &(skel_call){ .in = { b_img[b] }, .out = b_tmp[b], .direction = SKEL_ROWS });
        sub(gblur, &(skel_call){ .in = { b_tmp[b] }, .out = A_BLUR.out[b], .direction = SKEL_COLS });
    }
}

/* Iterative SOR as the thesis writes it with Map and MapOverlap2D: x' = w *
   jacobi(x) + (1 - w) * x, K times (a chain).  A data-parallel sweep is a
   Jacobi iterate, for which over-relaxation diverges (w = 1.5 doubles the
   checkerboard mode every sweep): w = 0.8. */
#define SK 40
static skel_mat *s_bar;
static const float s_w = 0.8f;
static void sor_init(void)
{
    size_t m = scaled(2048, 9);
    s_bar = mnew(m, m);
    A_SOR.out[0] = mnew(m, m);
    A_SOR.nout = 1;
}
static void sor_reset(void) { fill(A_SOR.out[0], 20); }
static void sor_run(void)
{
    int k;
    for (k = 0; k < SK; ++k) {
        sub(jacobi, &(skel_call){ .in = { A_SOR.out[0] }, .out = s_bar });
        sub(relax, &(skel_call){ .in = { s_bar, A_SOR.out[0] }, .out = A_SOR.out[0], .uniform = &s_w });
    }
}

/* Listing 6.1: s1 (MapArray); loop { s2 (Map); s3 x3 (Map); s4 (Reduce); s5 (Map) }; s6 (MapReduce) */
#define OI 6
static skel_vec *o_v1, *o_v2, *o_v3, *o_v5, *o_out1, *o_out2;
static int32_t o_n;
static float o_res[OI], o_res2;
static void ode_init(void)
{
    size_t n = scaled(1 << 22, 64);
    o_n = (int32_t)n;
    o_v1 = vnew(n); o_v2 = vnew(n); o_v3 = vnew(n); o_v5 = vnew(n); o_out1 = vnew(n); o_out2 = vnew(n);
    A_ODE.out[0] = o_v1; A_ODE.out[1] = o_v3; A_ODE.out[2] = o_out1; A_ODE.out[3] = o_out2;
    A_ODE.nout = 4;
}
static void ode_reset(void) { fill(o_v1, 30); fill(o_v2, 31); fill(o_v5, 32); }
static void ode_run(void)
{
    int it, j;
    sub(ode1, &(skel_call){ .in = { o_v1, o_v2 }, .out = o_out1, .uniform = &o_n });
    for (it = 0; it < OI; ++it) {
        sub(ode2, &(skel_call){ .in = { o_out1 }, .out = o_v1 });
        for (j = 0; j < 3; ++j) sub(ode3, &(skel_call){ .in = { j ? o_v3 : o_v1 }, .out = o_v3 });
        sub(ode4, &(skel_call){ .in = { o_v2 }, .result = &o_res[it] });
        sub(ode5, &(skel_call){ .in = { o_out1, o_v5 }, .out = o_out2 });
        sub(ode3, &(skel_call){ .in = { o_out2 }, .out = o_out1 });
    }
    sub(ode6, &(skel_call){ .in = { o_out1, o_out2 }, .result = &o_res2 });
}

/* A farm of 64 independent calls of four kinds and sizes 2^10 .. 2^22 */
#define FN 64
static skel_vec *f_a[FN], *f_b[FN];
static float f_res[FN];
static void farm_init(void)
{
    int i;
    for (i = 0; i < FN; ++i) {
        size_t n = scaled((double)((size_t)1 << (10 + (i * 5) % 13)), 8);
        f_a[i] = vnew(n); f_b[i] = vnew(n); A_FARM.out[i] = vnew(n);
    }
    A_FARM.nout = FN;
}
static void farm_reset(void) { int i; for (i = 0; i < FN; ++i) { fill(f_a[i], 40 + (uint64_t)i); fill(f_b[i], 140 + (uint64_t)i); } }
static void farm_run(void)
{
    int i;
    for (i = 0; i < FN; ++i)
        switch (i % 4) {
        case 0: sub(fheavy, &(skel_call){ .in = { f_a[i] }, .out = A_FARM.out[i] }); break;
        case 1: sub(flight, &(skel_call){ .in = { f_a[i], f_b[i] }, .out = A_FARM.out[i] }); break;
        case 2: sub(fdot, &(skel_call){ .in = { f_a[i], f_b[i] }, .result = &f_res[i] }); break;
        default: sub(fblur, &(skel_call){ .in = { f_a[i] }, .out = A_FARM.out[i] }); break;
        }
}

static app A_COUL = { "coulomb", coul_init, coul_reset, coul_run, { 0 }, 0 };
static app A_BLUR = { "blur", blur_init, blur_reset, blur_run, { 0 }, 0 };
static app A_SOR = { "sor", sor_init, sor_reset, sor_run, { 0 }, 0 };
static app A_ODE = { "ode", ode_init, ode_reset, ode_run, { 0 }, 0 };
static app A_FARM = { "farm64", farm_init, farm_reset, farm_run, { 0 }, 0 };
static app *const APPS[] = { &A_COUL, &A_BLUR, &A_SOR, &A_ODE, &A_FARM };
#define NAPPS 5

/* ---- reference and checks ---- */
static float *REF[64];
static float *REF_SCALARS;              /* o_res, o_res2, f_res */
static float *scalars(void)
{
    static float s[OI + 1 + FN];
    memcpy(s, o_res, sizeof o_res);
    s[OI] = o_res2;
    memcpy(s + OI + 1, f_res, sizeof f_res);
    return s;
}
/* Every result home (part of the makespan). */
static void results_home(app *a)
{
    int i;
    for (i = 0; i < a->nout; ++i)
        if (!skel_read(a->out[i])) check_rc(SKEL_EDEVICE, "skel_read");
    check_rc(skel_wait_all(), "skel_wait_all");
}
static void keep_reference(app *a)
{
    int i;
    for (i = 0; i < a->nout; ++i) {
        size_t n = skel_size(a->out[i]);
        REF[i] = (float *)realloc(REF[i], n * sizeof(float));
        memcpy(REF[i], skel_read(a->out[i]), n * sizeof(float));
    }
    if (!REF_SCALARS) REF_SCALARS = (float *)malloc(sizeof(float) * (OI + 1 + FN));
    memcpy(REF_SCALARS, scalars(), sizeof(float) * (OI + 1 + FN));
}
static double rel(double a, double b) { double d = fabs(a - b), m = fabs(b) > 1 ? fabs(b) : 1; return d / m; }
/* Largest difference from the reference, relative to the largest value of
   each output (an element near zero among large ones would make an
   element-wise ratio of rounding look like an error). */
static double diff_reference(app *a)
{
    double worst = 0, d, big;
    int i;
    size_t k, n;
    for (i = 0; i < a->nout; ++i) {
        const float *p = (const float *)skel_read(a->out[i]);
        if (!p) return INFINITY;
        n = skel_size(a->out[i]);
        for (k = 0, big = 1e-30; k < n; ++k) if (fabs(REF[i][k]) > big) big = fabs(REF[i][k]);
        for (k = 0; k < n; ++k) {
            d = fabs(p[k] - REF[i][k]) / big;
            if (!(d <= worst)) worst = d == d ? d : INFINITY;
        }
    }
    for (k = 0; k < OI + 1 + FN; ++k)
        if ((d = rel(scalars()[k], REF_SCALARS[k])) > worst) worst = d;
    return worst;
}

/* ---- measuring each call alone: the bound ---- */
/* A call's time at place: 4 runs back to back, then a wait, over 4 (the
   first run before brings its inputs; GPU calls queue, so the wait's
   latency is shared as in a program); the less of two such. */
static double time_alone(rec *r, int place)
{
    double best = INFINITY, t0, t;
    int k, j, n = 4, old = _skel_place_bind(place);
    t0 = bench_now();
    check_rc(skel_run(r->sk, &r->call), "alone");
    check_rc(skel_wait_all(), "alone wait");
    if (bench_now() - t0 > 0.02) n = 1;     /* long: a launch's latency is nothing to it */
    for (k = 0; k < (n > 1 ? 2 : 1); ++k) {
        t0 = bench_now();
        for (j = 0; j < n; ++j) check_rc(skel_run(r->sk, &r->call), "alone");
        check_rc(skel_wait_all(), "alone wait");
        t = (bench_now() - t0) / n;
        if (t < best) best = t;
    }
    if (place == 0) {
        skel_variant v;
        r->width = 1;
        if (skel_choose(r->sk, &r->call, &v) == SKEL_OK && strcmp(v.backend, "seq") != 0)
            r->width = v.threads > 0 ? v.threads : NCPU;
    }
    _skel_place_bind(old);
    return best;
}

typedef struct bound { double cp, area, lb, host_seq, gpu_seq, xfer, placed; } bound;

/* Host <-> GPU bandwidth (bytes/s), from 64 MB: a copy-Map on the GPU with
   its input on the host less the same with it there; a read of its result. */
static double BW_UP = INFINITY, BW_DOWN = INFINITY;
static void measure_links(void)
{
    size_t n = (size_t)16 << 20;
    skel_vec *a = vnew(n), *b = vnew(n);
    double up = INFINITY, down = INFINITY, t0, t1, t2;
    int k, old = _skel_place_bind(GPU);
    for (k = 0; k < 4; ++k) {
        if (!skel_write(a)) check_rc(SKEL_EDEVICE, "links");
        t0 = bench_now();
        check_rc(skel_run(fcopy, &(skel_call){ .in = { a }, .out = b }), "links");
        check_rc(skel_wait(b), "links");
        t1 = bench_now();
        check_rc(skel_run(fcopy, &(skel_call){ .in = { a }, .out = b }), "links");
        check_rc(skel_wait(b), "links");
        t2 = bench_now();
        if (k && (t1 - t0) - (t2 - t1) < up) up = (t1 - t0) - (t2 - t1);
        t0 = bench_now();
        if (!skel_read(b)) check_rc(SKEL_EDEVICE, "links");
        t1 = bench_now();
        if (k && t1 - t0 < down) down = t1 - t0;
    }
    _skel_place_bind(old);
    BW_UP = 4.0 * (double)n / up;
    BW_DOWN = 4.0 * (double)n / down;
    printf("links: host -> GPU %.2f GB/s, GPU -> host %.2f GB/s (64 MB)\n", 1e-9 * BW_UP, 1e-9 * BW_DOWN);
    skel_free(a);
    skel_free(b);
}

static int reads(const skel_call *c, const skel_vec *v)
{
    int k;
    for (k = 0; k < SKEL_MAX_IN; ++k)
        if (c->in[k] == v) return 1;
    return 0;
}

/* The copies a call at the GPU cannot avoid, shared fairly: a program
   input (read before anything writes it: it starts on the host) goes up
   once, 1/k of it to each of its k first readers (whichever share of them
   runs on the GPU, the copy costs at least that share of it); an output
   of the program (read home at the end) comes down from its last writer. */
static void attribute_copies(const app *a)
{
    int i, j, k, o;
    for (i = 0; i < NREC; ++i) REC[i].xfer = 0;
    for (i = 0; i < NREC; ++i)
        for (k = 0; k < SKEL_MAX_IN; ++k) {
            skel_vec *c = REC[i].call.in[k];
            int readers = 0, first = 1;
            if (!c || (k && c == REC[i].call.in[k - 1])) continue;
            for (j = 0; j < NREC && first; ++j) {
                if (j < i && REC[j].call.out == c) first = 0;
                else if (REC[j].call.out == c && !reads(&REC[j].call, c)) break;     /* written first */
                else if (reads(&REC[j].call, c)) readers++;
                if (REC[j].call.out == c) break;
            }
            if (first && readers) REC[i].xfer += 4.0 * (double)skel_size(c) / BW_UP / readers;
        }
    for (o = 0; o < a->nout; ++o)
        for (i = NREC - 1; i >= 0; --i)
            if (REC[i].call.out == a->out[o]) { REC[i].xfer += 4.0 * (double)skel_size(a->out[o]) / BW_DOWN; break; }
}

/* The area bound: the least T within which a fractional split of the
   calls between the host (NCPU CPUs, a call holding `width` of them) and
   the GPU (one call at a time) finishes on both; exact for two
   resources: by cost ratio, the GPU takes the calls it is relatively best
   at until both loads meet. */
static int ratio_cmp(const void *a, const void *b)
{
    const rec *x = &REC[*(const int *)a], *y = &REC[*(const int *)b];
    double rx = (x->t[1] + x->xfer) / (x->t[0] * x->width / NCPU), ry = (y->t[1] + y->xfer) / (y->t[0] * y->width / NCPU);
    return (rx > ry) - (rx < ry);
}
static double lp_bound(void)
{
    int idx[MAXREC], i;
    double h = 0, g = 0;
    for (i = 0; i < NREC; ++i) { idx[i] = i; h += REC[i].t[0] * REC[i].width / NCPU; }
    if (GPU <= 0) return h;
    qsort(idx, (size_t)NREC, sizeof idx[0], ratio_cmp);
    for (i = 0; i < NREC; ++i) {        /* move whole calls while it helps, then a fraction */
        rec *r = &REC[idx[i]];
        double ch = r->t[0] * r->width / NCPU, cg = r->t[1] + r->xfer;
        if (g + cg <= h - ch) { g += cg; h -= ch; continue; }
        {   /* fraction f of this call to the GPU: g + f cg = h - f ch */
            double f = (h - g) / (cg + ch);
            if (f > 0) { g += f * cg; h -= f * ch; }
        }
        break;
    }
    return h > g ? h : g;
}

/* The critical path, placed: L[i][p] = a lower bound on when call i ends
   if it runs at place p (0 host, 1 GPU) in any schedule:
       L[i][p] = t_p(i) + max(up_p(i), max over j that i follows of
                              min over q of L[j][q] + move(j, i, q, p))
   up_1(i): bringing up the program inputs i reads (they start on the host
   alone, and a copy starts at 0 at the earliest); move(j, i, q, p), q !=
   p: the containers i reads that j wrote last, copied from q to p after j
   ends and before i starts (whatever q is, j ended at L[j][q] or later
   there: the min over q is a bound for any schedule, by induction).  The
   makespan is at least min over p of L[i][p], plus bringing home from the
   GPU the program outputs i writes last.  A chain (SOR) then pays its
   input's upload or runs on the host, and a call that moves between places
   pays its operands' copy: the unplaced path (each call at its better
   place, a program input shared among its first readers) charged
   neither. */
static double move_cost(int j, int i, int q, int p)
{
    double t = 0;
    int k, m;
    if (q == p) return 0;
    for (k = 0; k < SKEL_MAX_IN; ++k) {
        skel_vec *c = REC[i].call.in[k];
        if (!c || (k && c == REC[i].call.in[k - 1]) || REC[j].call.out != c) continue;
        for (m = j + 1; m < i && REC[m].call.out != c; ++m) {}
        if (m == i) t += 4.0 * (double)skel_size(c) / (p ? BW_UP : BW_DOWN);     /* j wrote it last */
    }
    return t;
}
static double placed_path(const app *a)
{
    static double L[MAXREC][2];
    double best = 0, up, e, m, h;
    int i, j, k, p, q, o;
    for (i = 0; i < NREC; ++i)
        for (p = 0; p < (GPU > 0 ? 2 : 1); ++p) {
            for (k = 0, up = 0; p && k < SKEL_MAX_IN; ++k) {      /* program inputs it reads */
                skel_vec *c = REC[i].call.in[k];
                if (!c || (k && c == REC[i].call.in[k - 1])) continue;
                for (j = 0; j < i && REC[j].call.out != c; ++j) {}
                if (j == i) up += 4.0 * (double)skel_size(c) / BW_UP;
            }
            for (j = 0, e = up; j < REC[i].ndep; ++j) {
                int d = REC[i].dep[j];
                for (q = 0, m = INFINITY; q < (GPU > 0 ? 2 : 1); ++q)
                    if (L[d][q] + move_cost(d, i, q, p) < m) m = L[d][q] + move_cost(d, i, q, p);
                if (m > e) e = m;
            }
            L[i][p] = e + REC[i].t[p];
        }
    for (i = 0; i < NREC; ++i) {
        for (o = 0, h = 0; o < a->nout; ++o) {      /* it writes a program output last: home from the GPU */
            for (j = i + 1; j < NREC && REC[j].call.out != a->out[o]; ++j) {}
            if (REC[i].call.out == a->out[o] && j == NREC) h += 4.0 * (double)skel_size(a->out[o]) / BW_DOWN;
        }
        m = L[i][0];
        if (GPU > 0 && L[i][1] + h < m) m = L[i][1] + h;
        if (m > best) best = m;
    }
    return best;
}

static bound measure(app *a)
{
    bound b;
    double path[MAXREC];
    int i, j;
    memset(&b, 0, sizeof b);
    NREC = 0;
    MODE = M_RECORD;
    a->run();
    MODE = M_SYNC;
    a->reset();
    for (i = 0; i < NREC; ++i) {
        REC[i].t[0] = time_alone(&REC[i], 0);
        REC[i].t[1] = GPU > 0 ? time_alone(&REC[i], GPU) : INFINITY;
        b.host_seq += REC[i].t[0];
        b.gpu_seq += REC[i].t[1];
    }
    attribute_copies(a);
    for (i = 0, b.cp = 0; i < NREC; ++i) {
        double gpu = REC[i].t[1] + REC[i].xfer;
        b.xfer += REC[i].xfer;
        path[i] = 0;
        for (j = 0; j < REC[i].ndep; ++j)
            if (path[REC[i].dep[j]] > path[i]) path[i] = path[REC[i].dep[j]];
        path[i] += REC[i].t[0] < gpu ? REC[i].t[0] : gpu;
        if (path[i] > b.cp) b.cp = path[i];
    }
    b.area = lp_bound();
    b.placed = placed_path(a);
    if (b.placed > b.cp) b.cp = b.placed;
    b.lb = b.cp > b.area ? b.cp : b.area;
    return b;
}

/* static: each instance on the place where its calls were fastest alone
   (a plan per instance; the farm's instances per size) */
static skel_plan *PLANS[64];
static skel_skeleton *PLANNED[64];
static int NPLANNED;
static void static_plans(int on)
{
    int i, k;
    for (k = 0; k < NPLANNED; ++k) { skel_set_plan(PLANNED[k], NULL); skel_plan_free(PLANS[k]); }
    NPLANNED = 0;
    if (!on) return;
    for (i = 0; i < NREC; ++i) {
        skel_variant v;
        size_t n = skel_size(REC[i].call.out ? REC[i].call.out : REC[i].call.in[0]);
        int gpu = GPU > 0 && REC[i].t[1] < REC[i].t[0];
        memset(&v, 0, sizeof v);
        v.backend = gpu ? (GPU == _skel_place_find("cuda") ? "cuda" : "opencl") : (REC[i].width > 1 ? "pool" : "seq");
        for (k = 0; k < NPLANNED && PLANNED[k] != REC[i].sk; ++k) {}
        if (k == NPLANNED) {            /* every size: the first call's place */
            if (skel_plan_new(&PLANS[k]) != SKEL_OK) exit(1);
            PLANNED[NPLANNED++] = REC[i].sk;
            check_rc(skel_plan_add(PLANS[k], 0, SIZE_MAX, &v), "plan");
        }
        if (!skel_is_matrix(REC[i].call.out ? REC[i].call.out : REC[i].call.in[0]))
            check_rc(skel_plan_add(PLANS[k], n, n, &v), "plan");            /* vectors: each size its own */
    }
    for (k = 0; k < NPLANNED; ++k) check_rc(skel_set_plan(PLANNED[k], PLANS[k]), "set plan");
}

/* ---- one timed run of an app under a policy ---- */
/* For comparison: "greedy": dmda without its lookahead (StarPU's dmda);
   "before": dmda placing a call ready at submission at once (no defer_us),
   without the copies in a place's load (_skel_dmda_load_copies): dmda
   before both; "at-once": dmda with the copies, without defer_us */
static const char *POL[] = { "static", "eager", "ws", "greedy", "before", "at-once", "dmda" };
#define NPOL 7
#define DMDA 6
static uint64_t GPU_CALLS[NPOL];    /* calls and tasks the last run of each policy put on a GPU */
static uint64_t DEFERRED[NPOL];     /* of them, placed later than submitted (dmda's defer_us) */
static char PLACES[64] = "host";

static double run_once(app *a, int pol, uint64_t *bytes, double *worst)
{
    skel_sched_stats st;
    double t0, t;
    int b;
    a->reset();
    check_rc(skel_wait_all(), "reset");
    skel_sched_stats_reset();
    t0 = bench_now();
    if (a == &A_FARM) {
        MODE = M_FARM;
        check_rc(skel_farm_new(&FARM), "farm");
        a->run();
        check_rc(skel_farm_run(FARM), "farm run");
    } else {
        MODE = M_SUBMIT;
        a->run();
    }
    results_home(a);
    t = bench_now() - t0;
    if (a == &A_FARM) { skel_farm_free(FARM); FARM = NULL; }
    skel_sched_stats_get(&st);
    *bytes = 0;
    GPU_CALLS[pol] = 0;
    DEFERRED[pol] = st.deferred;
    for (b = 1; b < st.places && b < 16; ++b) {
        *bytes += st.bytes[0][b] + st.bytes[b][0];
        GPU_CALLS[pol] += st.place_tasks[b];
    }
    *worst = diff_reference(a);
    return t;
}

static double BETA;     /* --beta: dmda's transfer weight (unset: skel's default; the desc's 0 means that, so 0 is passed as 1e-12) */
static int set_policy(int pol)
{
    static_plans(pol == 0);
    int rc = skel_sched_set(&(skel_sched_desc){ .policy = pol >= 3 ? "dmda" : POL[pol], .places = PLACES, .calibrate = 2,
                                                .lookahead = pol == 3 ? -1 : 0, .defer_us = pol == 4 || pol == 5 ? -1 : 0,
                                                .beta = BETA, .nofile = 1 });
    _skel_dmda_load_copies = pol != 3 && pol != 4;      /* set while nothing runs */
    return rc;
}

/* the farm's baseline: one call after another on one place, inputs home first */
static double one_place(app *a, int place)
{
    double t0, t;
    int old = _skel_place_bind(place);
    a->reset();
    check_rc(skel_wait_all(), "reset");
    MODE = M_SYNC;
    t0 = bench_now();
    a->run();
    results_home(a);
    t = bench_now() - t0;
    _skel_place_bind(old);
    return t;
}

static void bench_app(app *a, int reps, int warm)
{
    double t[NPOL][16], worst[NPOL], med[NPOL], ms[16], w, other;
    uint64_t bytes[NPOL], by;
    bound b;
    int r, p, best = 0;
    a->init();
    a->reset();
    MODE = M_SYNC;                      /* the reference: skel_run, default placement */
    a->run();
    results_home(a);
    keep_reference(a);
    b = measure(a);
    printf("\n== %s: %d calls; alone: all host %.3f ms, all GPU %.3f ms computing + %.3f ms of copies it cannot avoid; "
           "critical path %.3f ms (placed %.3f), area bound %.3f ms: LB %.3f ms\n",
           a->name, NREC, 1e3 * b.host_seq, 1e3 * b.gpu_seq, 1e3 * b.xfer, 1e3 * b.cp, 1e3 * b.placed, 1e3 * b.area, 1e3 * b.lb);
    for (p = 0; p < NPOL; ++p) {        /* untimed: dmda's calibration (kernels and buffers are made) */
        worst[p] = 0;
        check_rc(set_policy(p), "policy");
        for (r = 0; r < (p >= 3 ? warm : 1); ++r) run_once(a, p, &by, &w);
    }
    for (r = 0; r < reps; ++r)
        for (p = 0; p < NPOL; ++p) {
            check_rc(set_policy(p), "policy");
            t[p][r] = run_once(a, p, &bytes[p], &w);
            if (w > worst[p]) worst[p] = w;
            if (!(w < 1e-3)) {
                fprintf(stderr, "MISMATCH %s under %s: relative difference %g from the synchronous run\n", a->name, POL[p], w);
                FAILED = 1;
            }
        }
    static_plans(0);
    printf("%-8s %10s %12s %8s %10s %7s %8s %10s\n", "policy", "median ms", "MB moved", "LB/T", "max rel", "on GPU", "deferred", "runs ms");
    for (p = 0; p < NPOL; ++p) {
        memcpy(ms, t[p], sizeof ms);
        med[p] = bench_median(ms, reps);
        if (med[p] < med[best]) best = p;
        printf("%-8s %10.3f %12.2f %8.3f %10.2g %7llu %8llu  ", POL[p], 1e3 * med[p], 1e-6 * (double)bytes[p], b.lb / med[p],
               worst[p], (unsigned long long)GPU_CALLS[p], (unsigned long long)DEFERRED[p]);
        for (r = 0; r < reps; ++r) printf(" %.2f", 1e3 * t[p][r]);
        printf("\n");
    }
    for (p = 0, other = INFINITY; p < 3; ++p)     /* static, eager, ws */
        if (med[p] < other) other = med[p];
    printf("%s: best %s; dmda %.3f ms (greedy %.3f, before %.3f, at-once %.3f), best of the others %.3f ms: ratio %.3f; dmda / LB %.3f\n",
           a->name, POL[best], 1e3 * med[DMDA], 1e3 * med[3], 1e3 * med[4], 1e3 * med[5], 1e3 * other, other / med[DMDA],
           med[DMDA] / b.lb);
    if (a == &A_FARM) {
        double h[16], g[16], mh, mg;
        for (r = 0; r < reps; ++r) {
            h[r] = one_place(a, 0);
            g[r] = GPU > 0 ? one_place(a, GPU) : INFINITY;
        }
        mh = bench_median(h, reps);
        mg = bench_median(g, reps);
        printf("farm64 one after another: host %.3f ms, GPU %.3f ms; dmda farm %.2fx faster than the best single place\n",
               1e3 * mh, 1e3 * mg, (mh < mg ? mh : mg) / med[DMDA]);
    }
}

/* ---- 1. overhead ---- */
static int empty_task(skel_vec *const *d, void *arg) { (void)d; (void)arg; return SKEL_OK; }
static volatile long ITERS = 1000;
static int work_task(skel_vec *const *d, void *arg)
{
    double x = 1.0, y = (double)(size_t)arg * 1e-9;
    long k;
    (void)d;
    for (k = 0; k < ITERS; ++k) x = x * 0.9999999 + y;
    bench_sink(x);
    return SKEL_OK;
}

static void overhead(void)
{
    skel_vec *c = vnew(1);
    double t0, t, s[5];
    int n = 50000, r, k, i, wk[2];
    printf("== overhead (host; %d CPUs)\n", NCPU);
    for (k = 0; k < 2; ++k) {
        int workers = k ? NCPU - 1 : 1;
        check_rc(skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host", .cpu_workers = workers, .nofile = 1 }), "sched");
        for (r = 0; r < 5; ++r) {
            t0 = bench_now();
            for (i = 0; i < n; ++i) check_rc(skel_task_submit(&(skel_task_desc){ .name = "empty", .cpu = empty_task }), "submit");
            check_rc(skel_wait_all(), "wait");
            s[r] = (bench_now() - t0) / n;
        }
        printf("empty tasks, independent, %2d CPU workers: %.3f us a task (median of 5 x %d)\n", workers, 1e6 * bench_median(s, 5), n);
        for (r = 0; r < 5; ++r) {
            t0 = bench_now();
            for (i = 0; i < n; ++i)
                check_rc(skel_task_submit(&(skel_task_desc){ .name = "empty rw", .cpu = empty_task, .data = { c }, .mode = { SKEL_READ_WRITE } }), "submit");
            check_rc(skel_wait_all(), "wait");
            s[r] = (bench_now() - t0) / n;
        }
        printf("empty tasks, one chain,   %2d CPU workers: %.3f us a task\n", workers, 1e6 * bench_median(s, 5));
        for (r = 0; r < 5; ++r) {
            t0 = bench_now();
            for (i = 0; i < n / 10; ++i) {
                check_rc(skel_task_submit(&(skel_task_desc){ .name = "empty", .cpu = empty_task }), "submit");
                check_rc(skel_wait_all(), "wait");
            }
            s[r] = (bench_now() - t0) / (n / 10);
        }
        printf("empty task submitted and waited for, one at a time, %2d CPU workers: %.3f us\n", workers, 1e6 * bench_median(s, 5));
    }
    /* 100 us tasks: calibrate the loop alone (the least of 5 runs: one
       run that lost its CPU made the tasks 2 us long) */
    for (r = 0; r < 3; ++r) {
        for (k = 0, t = INFINITY; k < 5; ++k) {
            t0 = bench_now();
            work_task(NULL, NULL);
            if (bench_now() - t0 < t) t = bench_now() - t0;
        }
        ITERS = (long)((double)ITERS * 100e-6 / t);
    }
    wk[0] = NCPU - 1; wk[1] = NCPU;
    for (k = 0; k < 2; ++k) {
        int m = 200 * NCPU;
        double seq[3], par[5];
        for (r = 0; r < 3; ++r) {
            t0 = bench_now();
            for (i = 0; i < m; ++i) work_task(NULL, (void *)(size_t)i);
            seq[r] = bench_now() - t0;
        }
        check_rc(skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = "host", .cpu_workers = wk[k], .nofile = 1 }), "sched");
        for (r = 0; r < 5; ++r) {
            t0 = bench_now();
            for (i = 0; i < m; ++i) check_rc(skel_task_submit(&(skel_task_desc){ .name = "work", .cpu = work_task, .arg = (void *)(size_t)i }), "submit");
            check_rc(skel_wait_all(), "wait");
            par[r] = bench_now() - t0;
        }
        t = bench_median(seq, 3);
        s[0] = bench_median(par, 5);
        printf("%d tasks of %.1f us on %d CPU workers (+ the waiting caller): %.2f ms, one after another %.2f ms: efficiency %.3f of %d CPUs\n",
               m, 1e6 * t / m, wk[k], 1e3 * s[0], 1e3 * t, t / (NCPU * s[0]), NCPU);
    }
    skel_free(c);
}

int main(int argc, char **argv)
{
    const char *gpu = "cuda", *only = NULL;
    int reps = 5, warm = 4, i, no_overhead = 0;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--gpu") && i + 1 < argc) gpu = argv[++i];
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc) SCALE = atof(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--warm") && i + 1 < argc) warm = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "--no-overhead")) no_overhead = 1;
        else if (!strcmp(argv[i], "--beta") && i + 1 < argc) { BETA = atof(argv[++i]); if (BETA <= 0) BETA = 1e-12; }
        else { fprintf(stderr, "usage: %s [--gpu PLACE] [--scale S] [--reps R<=15] [--warm W] [--only NAME] [--no-overhead] [--beta B]\n", argv[0]); return 2; }
    }
    if (reps < 1 || reps > 15) reps = 5;
    setvbuf(stdout, NULL, _IOLBF, 0);
    NCPU = (int)sysconf(_SC_NPROCESSORS_ONLN);
    GPU = _skel_place_find(gpu);
    if (GPU > 0) snprintf(PLACES, sizeof PLACES, "host,%s", gpu);
    printf("bench_tasks: %d CPUs, GPU place %s (%d), scale %g, %d runs after %d untimed\n", NCPU, gpu, GPU, SCALE, reps, warm);
    if (GPU > 0) measure_links();
    if (!no_overhead && (!only || strstr("overhead", only))) overhead();
    for (i = 0; i < NAPPS; ++i)
        if (!only || strstr(APPS[i]->name, only) || strstr(only, APPS[i]->name)) bench_app(APPS[i], reps, warm);   /* NAME: a part of one, or a list */
    return FAILED;
}
