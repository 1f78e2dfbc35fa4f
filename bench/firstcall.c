/* firstcall.c - what one call on fresh data costs, prepared the tuner's way
   and the evaluation's way (bench/eval.c), per variant.  Written to find
   why the evaluation timed GPU variants of Mandelbrot at about twice the
   tuner's T(1) = R + F at nearby sizes (bench/RESULTS_TUNER.md in git
   history, section 6).

   For each variant and size, medians of 15 samples (microseconds) of:
       R        a repeated call on data already on the device
       tuner    the output's device copy released, no download
                (_skel_synth_reset), then one call
       eval     one untimed call, skel_flush of the output (a download and
                the device copy freed: bench/eval.c's place_operands), then
                one call
       mixed    as eval, after an untimed call of the next variant in the
                list (the evaluation interleaves configurations)
       kept     as tuner, but the device buffer kept (only marked stale):
                tuner - kept is what allocating it costs
   Every timed call ends when its result is complete (_skel_tune_sync).

   Usage: bench_firstcall [n ...]      (default 238919 626033)
   SKEL_CUDA_POOL_MB=0 in the environment: without the memory pool.

   bench_firstcall --startup [samples]   (default 21)
   What skel's first call costs a program that includes all three headers
   and makes one seq call (a Map of 1000 floats, two containers made
   first): the time from its first skel function to the end of that call,
   in a fresh process each sample (this program run again), median and
   range over the samples.  Conditions, taking turns:
       lazy     the default plan (1000 elements run on seq)
       seq      the same with SKEL_BACKEND=seq
       probed   skel_backend_count() first, which opens every GPU library:
                what each first call cost while skel probed the GPUs at
                start-up (the baseline)

   bench_firstcall --wait [n]   (default 2^26)
   What a GPU Map of n floats (a saxpy-like body, data on the device) is
   timed at without waiting for it (the call returns once queued), with
   skel_wait(out) after it, and with skel_read of one element: median us
   of 15, per GPU variant.  Shows why GPU work is timed with skel_wait. */
#include "bench.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

/* an index-only Map writing int32, like bench/eval.c's Mandelbrot (whose
   first calls this measures) but with a cheap body: what differs between
   the preparations is outside the kernel */
SKEL_FUNC(int32_t, index_f, (skel_index i), return (int32_t)(i % 1021);)
SKEL_MAP_EX(idxmap, index_f, int32_t, int32_t, 0, SKEL_INDEX, SKEL_NO_UNIFORM)

#define REPS 15
static skel_vec *Z;
static skel_plan *plans[8];

static void use(int v) { skel_set_plan(idxmap, plans[v]); }
static void call(void)
{
    if (skel_map1(idxmap, Z, NULL) != SKEL_OK || _skel_tune_sync(Z) != SKEL_OK) {
        fprintf(stderr, "idxmap: %s\n", skel_last_error());
        exit(1);
    }
}
static double timed(void)
{
    double t0 = bench_now();
    call();
    return 1e6 * (bench_now() - t0);
}

SKEL_FUNC(float, twice_f, (float a), return 2 * a;)
SKEL_MAP(twice, twice_f, float, 1)

/* one sample, in this (fresh) process: microseconds of skel's first call */
static int startup_child(int probe)
{
    skel_vec *a, *r;
    double t0 = bench_now(), t1;
    if (probe) skel_backend_count();
    if (skel_vec_new_fill(&a, SKEL_FLOAT, 1000, &(float){ 1.5f }) != SKEL_OK || skel_vec_new(&r, SKEL_FLOAT, 1000) != SKEL_OK ||
        skel_map1(twice, r, a) != SKEL_OK) {
        fprintf(stderr, "first call: %s\n", skel_last_error());
        return 1;
    }
    t1 = bench_now();
    if (((const float *)skel_read(r))[999] != 3.0f) { fprintf(stderr, "first call: wrong result\n"); return 1; }
    printf("%.1f\n", 1e6 * (t1 - t0));
    skel_free(a);
    skel_free(r);
    return 0;
}

/* samples of each condition, one fresh process each, conditions taking turns */
static int startup(int samples)
{
    static const char *const names[3] = { "lazy", "seq", "probed" };
    double t[3][256];
    int i, c;
    if (samples > 256) samples = 256;
    printf("skel's first call (a seq Map of 1000 floats and its two containers), all three headers, fresh process each;\n"
           "median [min, max] us of %d\n", samples);
    for (i = 0; i < samples; ++i)
        for (c = 0; c < 3; ++c) {
            char cmd[4200], exe[4096], line[64] = "";
            ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
            FILE *p;
            if (n <= 0) return 1;
            exe[n] = 0;
            snprintf(cmd, sizeof cmd, "%s'%s' --startup-child %d", c == 1 ? "SKEL_BACKEND=seq " : "env -u SKEL_BACKEND ", exe,
                     c == 2);
            if (!(p = popen(cmd, "r")) || !fgets(line, sizeof line, p)) { fprintf(stderr, "%s failed\n", cmd); return 1; }
            if (pclose(p) != 0) return 1;
            t[c][i] = atof(line);
        }
    for (c = 0; c < 3; ++c) {
        double lo = t[c][0], hi = t[c][0];
        for (i = 1; i < samples; ++i) {
            if (t[c][i] < lo) lo = t[c][i];
            if (t[c][i] > hi) hi = t[c][i];
        }
        printf("%-8s %10.1f  [%.1f, %.1f]\n", names[c], bench_median(t[c], samples), lo, hi);
    }
    return 0;
}

#ifndef BENCH_OLD_HEADERS      /* -DBENCH_OLD_HEADERS: built against headers without skel_wait (an A/B) */
/* a GPU Map timed three ways (see the header) */
static int wait_bench(size_t n)
{
    static const char *const gpus[] = { "cuda", "opencl" };
    skel_vec *a, *r;
    int g, k;
    printf("GPU Map of %zu floats on the device: median us of 15\n%-8s %12s %12s %12s\n", n, "variant", "call only",
           "+skel_wait", "+skel_read");
    if (skel_vec_new_fill(&a, SKEL_FLOAT, n, &(float){ 1.0f }) != SKEL_OK || skel_vec_new(&r, SKEL_FLOAT, n) != SKEL_OK) return 1;
    for (g = 0; g < 2; ++g) {
        skel_plan *p;
        double t[3][15];
        if (!skel_backend_available(gpus[g])) continue;
        skel_plan_new(&p);
        skel_plan_add(p, 0, SIZE_MAX, &(skel_variant){ .backend = gpus[g] });
        skel_set_plan(twice, p);
        skel_map1(twice, r, a);         /* compile, upload */
        skel_map1(twice, a, r);
        skel_wait_all();
        for (k = 0; k < 15; ++k) {
            double t0;
            t0 = bench_now();
            skel_map1(twice, r, a);
            t[0][k] = 1e6 * (bench_now() - t0);
            skel_wait_all();            /* untimed: the next sample starts idle */
            t0 = bench_now();
            skel_map1(twice, r, a);
            skel_wait(r);
            t[1][k] = 1e6 * (bench_now() - t0);
            t0 = bench_now();
            skel_map1(twice, r, a);
            _skel_tune_sync(r);         /* one element read back (the tuner's sync) */
            t[2][k] = 1e6 * (bench_now() - t0);
        }
        printf("%-8s %12.1f %12.1f %12.1f\n", gpus[g], bench_median(t[0], 15), bench_median(t[1], 15), bench_median(t[2], 15));
        skel_set_plan(twice, NULL);
        skel_plan_free(p);
    }
    skel_free(a);
    skel_free(r);
    return 0;
}
#else
static int wait_bench(size_t n) { (void)n; printf("--wait: not in this build\n"); return 0; }
#endif

int main(int argc, char **argv)
{
    static const struct { const char *backend; int block; } vs[] = {
        { "cuda", 256 }, { "cuda", 1024 }, { "opencl", 128 }, { "opencl", 512 }, { "omp", 0 }
    };
    size_t sizes[8] = { 238919, 626033 };
    int nsizes = 2, nv = 0, i, v, k;
    if (argc > 1 && strcmp(argv[1], "--startup-child") == 0) return startup_child(argc > 2 && atoi(argv[2]));
    if (argc > 1 && strcmp(argv[1], "--startup") == 0) return startup(argc > 2 ? atoi(argv[2]) : 21);
    if (argc > 1 && strcmp(argv[1], "--wait") == 0) return wait_bench(argc > 2 ? (size_t)atol(argv[2]) : (size_t)1 << 26);
    if (argc > 1) for (nsizes = 0; nsizes < 8 && nsizes + 1 < argc; ++nsizes) sizes[nsizes] = (size_t)atol(argv[nsizes + 1]);
    for (i = 0; i < (int)(sizeof vs / sizeof *vs); ++i) {
        skel_variant var;
        if (!skel_backend_available(vs[i].backend)) continue;
        memset(&var, 0, sizeof var);
        var.backend = vs[i].backend;
        var.block = vs[i].block;
        skel_plan_new(&plans[nv]);
        skel_plan_add(plans[nv], 0, SIZE_MAX, &var);
        ++nv;
    }
    printf("%-10s %8s %9s %9s %9s %9s %9s   (median us of %d)\n", "variant", "n", "R", "tuner", "eval", "mixed",
           "kept", REPS);
    for (i = 0; i < nsizes; ++i) {
        if (skel_vec_new(&Z, SKEL_INT32, sizes[i]) != SKEL_OK) return 1;
        for (v = 0; v < nv; ++v) { use(v); call(); call(); }     /* compile, first touch */
        for (v = 0; v < nv; ++v) {
            double t[5][REPS];
            skel_variant var;
            for (k = 0; k < REPS; ++k) {
                use(v); call();
                t[0][k] = timed();
                _skel_release_devices(Z);                   /* the tuner's reset */
                _skel_mark_written(Z, 0);
                t[1][k] = timed();
                call();
                skel_flush(Z);                              /* the evaluation's */
                t[2][k] = timed();
                use((v + 1) % nv); call();                  /* another configuration between */
                use(v); call();
                skel_flush(Z);
                t[3][k] = timed();
                call();
                _skel_mark_written(Z, 0);                   /* stale on the device, buffer kept */
                t[4][k] = timed();
            }
            skel_plan_lookup(plans[v], sizes[i], &var);
            printf("%-6s/%-4d %8zu %9.1f %9.1f %9.1f %9.1f %9.1f\n", var.backend, var.block, sizes[i],
                   bench_median(t[0], REPS), bench_median(t[1], REPS), bench_median(t[2], REPS), bench_median(t[3], REPS),
                   bench_median(t[4], REPS));
        }
        skel_free(Z);
    }
    return 0;
}
