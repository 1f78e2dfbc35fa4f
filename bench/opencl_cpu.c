/* opencl_cpu.c - skel's OpenCL backend on a CPU OpenCL (PoCL) against its
   OpenMP backend, in one run; and the program build time, cold and from
   the disk cache.

   For n = 2^16 .. 2^24 (float) it times per skeleton:
       omp     skel forced onto "omp" by a plan (host data)
       opencl  skel forced onto "opencl" by a plan (data resident on the
               device: uploaded before timing, results left there)
   Skeletons:
       map        saxpy y = a*x + y in place, a uniform           12 B/elem
       reduce     sum                                               4 B/elem
       mapreduce  dot product                                       8 B/elem
       scan       inclusive prefix sum                              8 B/elem
       overlap1d  5-tap weighted sum, d = 2, CONSTANT edge          8 B/elem
       overlap2d  5x5 weighted sum (SKEL_CONV2D) on a square matrix of
                  ~n elements, CONSTANT edge                        8 B/elem
   The two results are compared (relative error) before timing.  A sample
   is k back-to-back calls (k so a sample lasts >= 20 ms; the OpenCL queue
   is drained at the end of each sample), the time is the median of 5
   samples / k.  cl/omp = omp time / opencl time: the OpenCL throughput
   relative to OpenMP.  Where the CUDA backend is present (a GPU machine)
   it is timed too, device-resident like OpenCL: cl/cuda = cuda time /
   opencl time (the OpenCL throughput relative to CUDA).

   Build time: the program is run again twice as a child (--build-child)
   with a fresh PoCL kernel cache and skel cache directory: the first child
   builds every program from source (cold), the second finds them in the
   disk cache.  Reported: time of each instance's first call (build or
   load + first launch) and the time inside clBuildProgram / cache loading.

   Usage: bench_opencl_cpu [--quick] [--max K] [--help] */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

SKEL_FUNC(float, saxpy_f, (float x, float y, float a), return a * x + y;)
SKEL_FUNC(float, add_f, (float a, float b), return a + b;)
SKEL_FUNC(float, mul_f, (float a, float b), return a * b;)
SKEL_FUNC(float, ov1_f, (const float *a),
    return a[-2] * 0.1f + a[-1] * 0.2f + a[0] * 0.4f + a[1] * 0.2f + a[2] * 0.1f;)

#define INSTANCES(b)                                                          \
    SKEL_MAP_EX(saxpy_##b, saxpy_f, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float)) \
    SKEL_REDUCE(sum_##b, add_f, float)                                        \
    SKEL_MAPREDUCE(dot_##b, mul_f, add_f, float, 2)                           \
    SKEL_SCAN(scan_##b, add_f, float)                                         \
    SKEL_OVERLAP(ov1_##b, ov1_f, float, 2)                                    \
    SKEL_CONV2D(ov2_##b, float, 2, 2)
INSTANCES(omp)
INSTANCES(cl)
INSTANCES(cu)

enum { MAP, REDUCE, MAPREDUCE, SCAN, OV1, OV2, NSKEL };
static const char *names[NSKEL] = { "map", "reduce", "mapreduce", "scan", "overlap1d", "overlap2d" };
static skel_skeleton *inst[3][NSKEL];
static int have_cuda;
static float alpha = 0.5f, weights[25];

typedef struct operands {
    skel_vec *a, *b, *out;      /* vectors of n, or matrices for overlap2d */
    float r;
} operands;

static int call(int which, operands *o, int b)
{
    skel_call c;
    skel_skeleton *sk = inst[b][which];
    memset(&c, 0, sizeof c);
    switch (which) {
    case MAP: c.out = o->b; c.in[0] = o->a; c.in[1] = o->b; c.uniform = &alpha; break;
    case REDUCE: c.in[0] = o->a; c.result = &o->r; break;
    case MAPREDUCE: c.in[0] = o->a; c.in[1] = o->b; c.result = &o->r; break;
    case SCAN: c.out = o->out; c.in[0] = o->a; break;
    case OV1: c.out = o->out; c.in[0] = o->a; break;
    case OV2: c.out = o->out; c.in[0] = o->a; c.weights = weights; break;
    }
    return skel_run(sk, &c);
}

static void make_operands(operands *o, int which, size_t n)
{
    size_t i, rows = 1, cols = n;
    float *p;
    memset(o, 0, sizeof *o);
    if (which == OV2) {
        rows = (size_t)sqrt((double)n);
        cols = n / rows;
    }
    if (which == OV2) {
        skel_mat_new(&o->a, SKEL_FLOAT, rows, cols);
        skel_mat_new(&o->b, SKEL_FLOAT, rows, cols);
        skel_mat_new(&o->out, SKEL_FLOAT, rows, cols);
    } else {
        skel_vec_new(&o->a, SKEL_FLOAT, n);
        skel_vec_new(&o->b, SKEL_FLOAT, n);
        skel_vec_new(&o->out, SKEL_FLOAT, n);
    }
    p = (float *)skel_write(o->a);
    for (i = 0; i < rows * cols; ++i) p[i] = (float)((int)(i * 7919 % 17) - 8);
    p = (float *)skel_write(o->b);
    for (i = 0; i < rows * cols; ++i) p[i] = (float)((int)(i * 104729 % 13) - 6);
}

static void free_operands(operands *o) { skel_free(o->a); skel_free(o->b); skel_free(o->out); }

/* relative difference of backend b's results from OpenMP's */
static double compare(int which, size_t n, int other)
{
    operands o[2];
    double err = 0, mag = 1e-30;
    size_t i, m;
    int b;
    for (b = 0; b < 2; ++b) {
        make_operands(&o[b], which, n);
        if (call(which, &o[b], b ? other : 0) != SKEL_OK) {
            fprintf(stderr, "%s n=%zu on backend %d: %s\n", names[which], n, b, skel_last_error());
            exit(1);
        }
    }
    if (which == REDUCE || which == MAPREDUCE) {
        err = fabs((double)o[0].r - o[1].r);
        mag = fabs((double)o[0].r) + 1;
    } else {
        skel_vec *r0 = which == MAP ? o[0].b : o[0].out, *r1 = which == MAP ? o[1].b : o[1].out;
        const float *h0 = (const float *)skel_read(r0), *h1 = (const float *)skel_read(r1);
        m = skel_size(r0);
        for (i = 0; i < m; ++i) {
            double d = fabs((double)h0[i] - h1[i]);
            if (d > err) err = d;
            if (fabs(h0[i]) > mag) mag = fabs(h0[i]);
        }
    }
    for (b = 0; b < 2; ++b) free_operands(&o[b]);
    return err / mag;
}

/* Wait for queued CUDA work: a scalar reduction on the same device reads
   its result, which waits for what the stream did before. */
static void cuda_sync(void)
{
    static skel_vec *tiny;
    float r;
    if (!tiny) skel_vec_new_fill(&tiny, SKEL_FLOAT, 16, &(float){1});
    skel_reduce(sum_cu, tiny, &r);
}

static double time_backend(int which, size_t n, int b, int quick)
{
    operands o;
    double s[5], t0, t;
    int k = 1, i, j, ns = quick ? 3 : 5;
    make_operands(&o, which, n);
    for (i = 0; i < 2; ++i) call(which, &o, b);          /* warm: build, upload */
    if (b) { skel_cl_finish(); if (b == 2) skel_read(o.out); }
    for (;;) {                                            /* calibrate */
        t0 = bench_now();
        for (j = 0; j < k; ++j) call(which, &o, b);
        if (b == 1) skel_cl_finish();
        if (b == 2) cuda_sync();
        t = bench_now() - t0;
        if (t >= 0.02 || k >= (1 << 20)) break;
        k *= t < 0.002 ? 8 : 2;
    }
    for (i = 0; i < ns; ++i) {
        t0 = bench_now();
        for (j = 0; j < k; ++j) call(which, &o, b);
        if (b == 1) skel_cl_finish();
        if (b == 2) cuda_sync();
        s[i] = (bench_now() - t0) / k;
    }
    free_operands(&o);
    return bench_median(s, ns);
}

static void plans(void)
{
    static skel_plan *p[3];
    static const char *bk[3] = { "omp", "opencl", "cuda" };
    int b, w;
    skel_variant v;
    inst[0][MAP] = saxpy_omp; inst[0][REDUCE] = sum_omp; inst[0][MAPREDUCE] = dot_omp;
    inst[0][SCAN] = scan_omp; inst[0][OV1] = ov1_omp; inst[0][OV2] = ov2_omp;
    inst[1][MAP] = saxpy_cl; inst[1][REDUCE] = sum_cl; inst[1][MAPREDUCE] = dot_cl;
    inst[1][SCAN] = scan_cl; inst[1][OV1] = ov1_cl; inst[1][OV2] = ov2_cl;
    inst[2][MAP] = saxpy_cu; inst[2][REDUCE] = sum_cu; inst[2][MAPREDUCE] = dot_cu;
    inst[2][SCAN] = scan_cu; inst[2][OV1] = ov1_cu; inst[2][OV2] = ov2_cu;
    have_cuda = skel_backend_available("cuda");
    for (b = 0; b < 2 + have_cuda; ++b) {
        memset(&v, 0, sizeof v);
        v.backend = bk[b];
        skel_plan_new(&p[b]);
        if (skel_plan_add(p[b], 0, SIZE_MAX, &v) != SKEL_OK) {
            fprintf(stderr, "backend %s: %s\n", bk[b], skel_last_error());
            exit(1);
        }
        for (w = 0; w < NSKEL; ++w) skel_set_plan(inst[b][w], p[b]);
    }
    for (w = 0; w < 25; ++w) weights[w] = (float)(w % 5 + 1) / 40.0f;
}

/* One child: the first call of every OpenCL instance, timed. */
static int build_child(void)
{
    skel_cl_stats st;
    double total = 0;
    int w;
    plans();
    for (w = 0; w < NSKEL; ++w) {
        operands o;
        double t0;
        make_operands(&o, w, 4096);
        t0 = bench_now();
        if (call(w, &o, 1) != SKEL_OK) { fprintf(stderr, "%s: %s\n", names[w], skel_last_error()); return 1; }
        skel_cl_finish();
        total += bench_now() - t0;
        printf("  %-10s first call %7.3f s\n", names[w], bench_now() - t0);
        free_operands(&o);
    }
    skel_cl_stats_get(&st);
    printf("  all six: first calls %.3f s; %ld built from source in %.3f s (clBuildProgram), "
           "%ld loaded from the disk cache in %.3f s\n", total, st.builds, st.build_seconds, st.disk_loads,
           st.load_seconds);
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0, maxk = 24, k, w, i;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) maxk = atoi(argv[++i]);
        else if (strcmp(argv[i], "--build-child") == 0) return build_child();
        else {
            printf("usage: %s [--quick] [--max K]\n  OpenCL (device-resident) vs OpenMP throughput for n = 2^16..2^K "
                   "(K <= 24), then program build time cold and from the disk cache\n", argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (!skel_backend_available("opencl")) {
        printf("no OpenCL device: nothing to measure\n");
        return 0;
    }
    plans();
    {
        skel_cl_device_info di;
        skel_cl_device_get(skel_cl_device_selected(), &di);
        printf("OpenCL device: %s (%s, %s, driver %s, %d compute units)\n", di.name, di.platform, di.version, di.driver,
               di.compute_units);
    }
    printf("%-10s %10s %12s %12s %8s %10s", "skeleton", "n", "omp ms", "opencl ms", "cl/omp", "rel.err");
    if (have_cuda) printf(" %12s %8s %10s", "cuda ms", "cl/cuda", "cu.err");
    printf("\n");
    for (w = 0; w < NSKEL; ++w)
        for (k = 16; k <= maxk; k += 2) {
            size_t n = (size_t)1 << k;
            double err = compare(w, n, 1), to = time_backend(w, n, 0, quick), tc = time_backend(w, n, 1, quick);
            printf("%-10s %10zu %12.4f %12.4f %8.2f %10.1e", names[w], n, to * 1e3, tc * 1e3, to / tc, err);
            if (have_cuda) {
                double tu = time_backend(w, n, 2, quick);
                printf(" %12.4f %8.2f %10.1e", tu * 1e3, tu / tc, compare(w, n, 2));
            }
            printf("\n");
            fflush(stdout);
        }
    /* build time: two children sharing fresh cache directories */
    {
        char cmd[2048], dir[] = "/tmp/skel-bench-cache-XXXXXX";
        int pass;
        if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
        for (pass = 0; pass < 2; ++pass) {
            printf("build, %s:\n", pass ? "second run (from the disk cache)" : "cold (fresh PoCL and skel caches)");
            fflush(stdout);
            snprintf(cmd, sizeof cmd, "POCL_CACHE_DIR=%s/pocl SKEL_CACHE_DIR=%s/skel '%s' --build-child", dir, dir,
                     argv[0]);
            if (system(cmd) != 0) return 1;
        }
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) return 1;
    }
    return 0;
}
