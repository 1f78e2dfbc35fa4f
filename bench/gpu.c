/* gpu.c - skel's CUDA backend against the device's copy bandwidth, CUB and
   hand-written kernels (bench/gpu_base.cu, built with nvcc on the GPU
   machine; bench/device.sh runs both).

   build/bench_gpu [--base base.txt] [--lo 20] [--hi 28] [--backend cuda|opencl]
   build/bench_gpu --jit      JIT compile / disk-cache load time per kernel
   build/bench_gpu --compare opencl   the same workloads on CUDA and OpenCL

   Tables: device-resident data (operands already on the GPU, result left
   there; Reduce/MapReduce return their scalar to the host, or leave it in
   a 1-element vector on the GPU: the "-> vec" rows), host-resident
   data (each call uploads its inputs and downloads its result), the 10-call
   loop, launch overhead.  GB/s counts each input read once and each output
   written once; copy bandwidth counts read + write.  Times are medians of
   repeated runs timed with CUDA events (host clock for OpenCL).  Without a
   GPU it says so and exits 0. */
#include "bench.h"
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#ifndef BENCH_NO_OPENCL
#include "skel_cl.h"
#endif
#include <math.h>
#include <stdio.h>
#include <string.h>

SKEL_FUNC(float, b_axpy, (float x, float y, float a), return a * x + y;)
SKEL_FUNC(float, b_add, (float a, float b), return a + b;)
SKEL_FUNC(float, b_mul, (float a, float b), return a * b;)
SKEL_FUNC(float, b_ov5, (const float *a), return a[-2] + a[-1] + a[0] + a[1] + a[2];)
SKEL_FUNC(float, b_one, (float a), return a + 1.0f;)
SKEL_MAP_EX(saxpy, b_axpy, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float))
SKEL_REDUCE(sum, b_add, float)
SKEL_MAPREDUCE(dot, b_mul, b_add, float, 2)
SKEL_SCAN(psum, b_add, float)
SKEL_OVERLAP(ov1d, b_ov5, float, 2)
SKEL_CONV2D(conv5, float, 2, 2)
SKEL_MAP(inc, b_one, float, 1)

enum { W_MAP, W_REDUCE, W_REDUCE_VEC, W_DOT, W_DOT_VEC, W_SCAN, W_OV1D, W_CONV2D, W_COUNT };
static const char *wname[W_COUNT] = { "Map saxpy", "Reduce sum", "Reduce sum -> vec", "MapReduce dot",
                                      "MapReduce dot -> vec", "Scan incl. sum", "MapOverlap 1D d=2",
                                      "MapOverlap 2D 5x5" };
static const char *wbase[W_COUNT][3] = { { NULL, "hand_saxpy", NULL }, { "cub_reduce", "hand_reduce", "cub_reduce_host" },
                                         { "cub_reduce", "hand_reduce", NULL },
                                         { "cub_dot", "hand_dot", "cub_dot_host" }, { "cub_dot", "hand_dot", NULL },
                                         { "cub_scan", NULL, NULL }, { NULL, "hand_ov1d", NULL },
                                         { NULL, "hand_conv2d", NULL } };
static const int wbytes[W_COUNT] = { 12, 4, 4, 8, 8, 8, 8, 8 };   /* bytes per element moved */

static const char *wkey[W_COUNT] = { "map", "reduce", "reduce_vec", "dot", "dot_vec", "scan", "ov1d", "conv2d" };
static const char *only;        /* --only: comma-separated keys of wkey */
static int wanted(int w)
{
    const char *p = only;
    size_t k = strlen(wkey[w]);
    while (p && *p) {
        if (strncmp(p, wkey[w], k) == 0 && (p[k] == ',' || p[k] == 0)) return 1;
        p = strchr(p, ',');
        if (p) ++p;
    }
    return !only;
}

static const char *backend = "cuda";
static int block;               /* --block: work-items per group (0: the backend's default) */
static int use_events;

/* ---- baselines file: "name n ms" lines ---- */
typedef struct { char name[32]; long n; double ms; } base_t;
static base_t bases[512];
static int nbases;
static double base_ms(const char *name, long n)
{
    int i;
    for (i = 0; name && i < nbases; ++i)
        if (bases[i].n == n && strcmp(bases[i].name, name) == 0) return bases[i].ms;
    return 0;
}

/* ---- timing ---- */
static _skel_CUevent ev0, ev1;
static void t_start(double *t0)
{
    if (use_events) _skel_cu.cuEventRecord(ev0, NULL);
    else *t0 = bench_now();
}
static void sync_all(void)
{
    if (skel_backend_available("cuda")) _skel_cu.cuCtxSynchronize();
#ifndef BENCH_NO_OPENCL
    if (skel_backend_available("opencl")) skel_cl_finish();
#endif
}

/* A scalar result is on the host when the call returns: nothing is left to
   wait for, and a clFinish on the drained queue would add another round
   trip through NVIDIA's OpenCL driver that no program pays (CUDA's
   cuCtxSynchronize on an idle context returns at once). */
static int synced_by_call(int w) { return w == W_REDUCE || w == W_DOT; }

static double t_stop(double t0, int w)
{
    float ms = 0;
    if (!use_events) {
        if (!synced_by_call(w)) sync_all();
        return 1e3 * (bench_now() - t0);
    }
    _skel_cu.cuEventRecord(ev1, NULL);
    _skel_cu.cuEventSynchronize(ev1);
    _skel_cu.cuEventElapsedTime(&ms, ev0, ev1);
    return ms;
}

static skel_plan *plan;
static void use_plan(void)
{
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = backend;
    v.block = block;
    if (plan) {
        skel_set_plan(saxpy, NULL); skel_set_plan(sum, NULL); skel_set_plan(dot, NULL); skel_set_plan(psum, NULL);
        skel_set_plan(ov1d, NULL); skel_set_plan(conv5, NULL); skel_set_plan(inc, NULL);
        skel_plan_free(plan);
    }
    plan = NULL;
    skel_plan_new(&plan);
    if (skel_plan_add(plan, 0, SIZE_MAX, &v) != SKEL_OK) { fprintf(stderr, "%s\n", skel_last_error()); exit(1); }
    skel_set_plan(saxpy, plan); skel_set_plan(sum, plan); skel_set_plan(dot, plan); skel_set_plan(psum, plan);
    skel_set_plan(ov1d, plan); skel_set_plan(conv5, plan); skel_set_plan(inc, plan);
}

static skel_vec *x, *y, *r, *mx, *mr, *rv;    /* rv: a 1-element result left on the GPU */
static float w25[25], res;

static int run(int w)
{
    float a = 2.0f;
    skel_call c;
    memset(&c, 0, sizeof c);
    switch (w) {
    case W_MAP: c.in[0] = x; c.in[1] = y; c.out = r; c.uniform = &a; return skel_run(saxpy, &c);
    case W_REDUCE: return skel_reduce(sum, x, &res);
    case W_REDUCE_VEC: c.in[0] = x; c.out = rv; return skel_run(sum, &c);
    case W_DOT: return skel_mapreduce2(dot, x, y, &res);
    case W_DOT_VEC: c.in[0] = x; c.in[1] = y; c.out = rv; return skel_run(dot, &c);
    case W_SCAN: return skel_scan(psum, r, x);
    case W_OV1D: return skel_overlap(ov1d, r, x, SKEL_EDGE_CONSTANT, NULL);
    default: c.in[0] = mx; c.out = mr; c.weights = w25; return skel_run(conv5, &c);
    }
}

static void check(int rc, const char *what)
{
    if (rc != SKEL_OK) { fprintf(stderr, "%s: %s\n", what, skel_last_error()); exit(1); }
}

static void make_data(long n)
{
    long i, side;
    float *p;
    check(skel_vec_new(&x, SKEL_FLOAT, (size_t)n), "x");
    check(skel_vec_new(&y, SKEL_FLOAT, (size_t)n), "y");
    check(skel_vec_new(&r, SKEL_FLOAT, (size_t)n), "r");
    check(skel_vec_new(&rv, SKEL_FLOAT, 1), "rv");
    p = (float *)skel_write(x);
    for (i = 0; i < n; ++i) p[i] = (float)((i * 7919) % 2001 - 1000) * 1e-3f;
    p = (float *)skel_write(y);
    for (i = 0; i < n; ++i) p[i] = (float)((i * 104729) % 2001 - 1000) * 1e-3f;
    {   /* side = 2^(lg/2) columns, n / side rows, like gpu_base */
        int lg = 0;
        while ((1L << lg) < n) ++lg;
        side = 1L << (lg / 2);
    }
    check(skel_mat_new(&mx, SKEL_FLOAT, (size_t)(n / side), (size_t)side), "mx");
    check(skel_mat_new(&mr, SKEL_FLOAT, (size_t)(n / side), (size_t)side), "mr");
    memcpy(skel_write(mx), skel_read(x), (size_t)n * 4);
}

static void free_data(void)
{
    skel_free(x); skel_free(y); skel_free(r); skel_free(mx); skel_free(mr); skel_free(rv);
}

/* host-resident: make the host copy the only valid one (no copying) */
static void to_host(void)
{
    skel_write(x); skel_write(y); skel_write(mx);
}
static void result_home(int w)
{
    if (w == W_MAP || w == W_SCAN || w == W_OV1D) skel_read(r);
    if (w == W_CONV2D) skel_read(mr);
    if (w == W_REDUCE_VEC || w == W_DOT_VEC) skel_read(rv);
}

static double measure(int w, int host, int reps)
{
    double t[64], t0 = 0;
    int k;
    check(run(w), wname[w]);       /* warm up: compile, upload */
    result_home(w);
    for (k = 0; k < reps; ++k) {
        if (host) to_host();
        t_start(&t0);
        check(run(w), wname[w]);
        if (host) result_home(w);
        t[k] = t_stop(t0, w);
    }
    return bench_median(t, reps);
}

static void jit(void)
{
    skel_cuda_stats s;
    long lg;
    double t0 = bench_now();
    use_plan();
    make_data(1 << 12);
    for (lg = 0; lg < W_COUNT; ++lg) check(run((int)lg), wname[lg]);
    check(skel_map1(inc, r, x), "inc");
    skel_cuda_stats_get(&s);
    printf("jit: %ld kernels compiled, %.1f ms each; %ld loaded from the disk cache, %.2f ms each "
           "(module loads %ld); first calls of %d skeletons took %.1f ms\n",
           s.compiles, s.compiles ? 1e3 * s.compile_seconds / (double)s.compiles : 0.0, s.disk_loads,
           s.disk_loads ? 1e3 * s.load_seconds / (double)(s.disk_loads + s.module_loads) : 0.0, s.module_loads,
           W_COUNT + 1, 1e3 * (bench_now() - t0));
    free_data();
}

int main(int argc, char **argv)
{
    const char *basefile = NULL;
    int lo = 20, hi = 28, i, w, lg, jit_only = 0, device_only = 0;
    const char *compare = NULL;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--base") == 0 && i + 1 < argc) basefile = argv[++i];
        else if (strcmp(argv[i], "--lo") == 0 && i + 1 < argc) lo = atoi(argv[++i]);
        else if (strcmp(argv[i], "--hi") == 0 && i + 1 < argc) hi = atoi(argv[++i]);
        else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc) backend = argv[++i];
        else if (strcmp(argv[i], "--jit") == 0) jit_only = 1;
        else if (strcmp(argv[i], "--compare") == 0 && i + 1 < argc) compare = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else if (strcmp(argv[i], "--device-only") == 0) device_only = 1;
        else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc) block = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--base file] [--lo 20] [--hi 28] [--backend cuda|opencl] [--jit]\n"
                            "       [--compare opencl] [--only map,reduce,reduce_vec,dot,dot_vec,scan,ov1d,conv2d] [--device-only] [--block N]\n", argv[0]);
            return 2;
        }
    }
    if (!skel_backend_available(backend)) {
        printf("bench_gpu: backend %s is not available here; nothing to measure\n", backend);
        return 0;
    }
    use_events = strcmp(backend, "cuda") == 0;
    if (use_events) {
        _skel_cu.cuCtxSetCurrent(_skel_cuda_devs[0].ctx);
        _skel_cu.cuEventCreate(&ev0, 0);
        _skel_cu.cuEventCreate(&ev1, 0);
    }
    if (jit_only) { jit(); return 0; }
    if (compare) {   /* the same workloads on two backends, host clock + full synchronisation for both */
        if (!skel_backend_available(compare)) { printf("bench_gpu: %s not available\n", compare); return 0; }
        use_events = 0;
        for (i = 0; i < 25; ++i) w25[i] = 0.04f;
        printf("## %s vs %s, device-resident data, median ms (host clock, synchronised)\n", compare, backend);
        for (i = 0; i < skel_backend_count(); ++i)
            if (!strcmp(skel_backend_name(i), compare) || !strcmp(skel_backend_name(i), backend))
                printf("# %s: %s\n", skel_backend_name(i), _skel_backends[i].info);
        printf("%-20s %6s %10s %10s %12s\n", "workload", "log2n", backend, compare, "throughput ratio");
        for (w = 0; w < W_COUNT; ++w)
            for (lg = lo; lg <= hi && wanted(w); lg += 2) {
                const char *base_backend = backend;
                double a, b;
                make_data(1L << lg);
                use_plan(); a = measure(w, 0, lg >= 26 ? 10 : 20);
                backend = compare; use_plan(); b = measure(w, 0, lg >= 26 ? 10 : 20);
                backend = base_backend; use_plan();
                printf("%-20s %6d %10.4f %10.4f %11.0f%%\n", wname[w], lg, a, b, 100 * a / b);
                free_data();
            }
        return 0;
    }
    if (basefile) {
        FILE *f = fopen(basefile, "r");
        char line[256];
        while (f && fgets(line, sizeof line, f) && nbases < 512)
            if (line[0] != '#' && sscanf(line, "%31s %ld %lf", bases[nbases].name, &bases[nbases].n, &bases[nbases].ms) == 3)
                ++nbases;
        if (f) fclose(f);
    }
    for (i = 0; i < 25; ++i) w25[i] = 0.04f;
    use_plan();
    for (i = 0; i < skel_backend_count(); ++i)
        if (strcmp(skel_backend_name(i), backend) == 0) printf("# device: %s\n", _skel_backends[i].info);

    printf("\n## device-resident data (GB/s; %% of copy = skel / device-to-device copy, vs CUB / vs hand = time ratio baseline/skel)\n");
    printf("## %%copyB: against a copy that moves the same bytes (saxpy 12 a float, Reduce 4): the L2 cache holds part\n"
           "##   of a working set up to a few 2^22 floats, so a copy of n floats outruns a saxpy's 1.5 times the bytes there\n");
    printf("## vsCUB+h: against CUB plus copying its scalar result to the host, which skel's Reduce does\n");
    printf("%-20s %6s %10s %9s %8s %8s %8s %8s %8s\n", "workload", "log2n", "ms", "GB/s", "%copy", "%copyB", "vsCUB",
           "vsCUB+h", "vsHand");
    for (w = 0; w < W_COUNT; ++w)
        for (lg = lo; lg <= hi && wanted(w); lg += 2) {
            long n = 1L << lg;
            double ms, gbs, copy, copyb, cub, hand, cubh;
            make_data(n);
            ms = measure(w, 0, lg >= 26 ? 10 : 30);
            gbs = (double)wbytes[w] * (double)n / ms / 1e6;
            copy = base_ms("copy_d2d", n);
            copyb = wbytes[w] == 12 ? base_ms("copy_d2d_3half", n) : wbytes[w] == 4 ? base_ms("copy_d2d", n / 2) : copy;
            cub = base_ms(wbase[w][0], n);
            hand = base_ms(wbase[w][1], n);
            cubh = base_ms(wbase[w][2], n);
            printf("%-20s %6d %10.4f %9.1f %7.0f%% ", wname[w], lg, ms, gbs,
                   copy > 0 ? 100.0 * gbs / (8.0 * (double)n / copy / 1e6) : 0.0);
            if (copyb > 0) printf("%7.0f%% ", 100.0 * copyb / ms); else printf("%8s ", "-");
            if (cub > 0) printf("%7.0f%% ", 100 * cub / ms); else printf("%8s ", "-");
            if (cubh > 0) printf("%7.0f%% ", 100 * cubh / ms); else printf("%8s ", "-");
            if (hand > 0) printf("%7.0f%%\n", 100 * hand / ms); else printf("%8s\n", "-");
            free_data();
        }

    if (device_only) return 0;
    printf("\n## host-resident data (each call uploads inputs, downloads the result; GB/s over the bytes moved;\n"
           "##   %%h2d = that rate / measured pageable host-to-device bandwidth)\n");
    printf("%-20s %6s %10s %9s %8s\n", "workload", "log2n", "ms", "GB/s", "%h2d");
    for (w = 0; w < W_COUNT; ++w)
        for (lg = lo; lg <= hi; lg += 4) {
            long n = 1L << lg;
            double ms, h2d = base_ms("copy_h2d", n), bytes = (double)wbytes[w] * (double)n;
            make_data(n);
            ms = measure(w, 1, 5);
            printf("%-20s %6d %10.3f %9.1f %7.0f%%\n", wname[w], lg, ms, bytes / ms / 1e6,
                   h2d > 0 ? 100.0 * (bytes / ms) / (4.0 * (double)n / h2d) : 0.0);
            free_data();
        }

    if (use_events) {   /* the 10-call loop: data moves once */
        skel_cuda_stats s0, s1;
        long n = 1L << 24;
        double t0 = bench_now();
        float a = 0.5f;
        skel_call c;
        make_data(n);
        to_host();
        skel_cuda_stats_get(&s0);
        memset(&c, 0, sizeof c);
        c.in[0] = x; c.in[1] = r; c.out = r; c.uniform = &a;
        for (i = 0; i < 10; ++i) check(skel_run(saxpy, &c), "loop");
        skel_read(r);
        skel_cuda_stats_get(&s1);
        printf("\n## 10 saxpy calls r = a*x + r on host data, n = 2^24, then one read: %.2f ms, %ld uploads (%.0f MB), "
               "%ld downloads (%.0f MB)\n", 1e3 * (bench_now() - t0), s1.uploads - s0.uploads,
               (s1.bytes_up - s0.bytes_up) / 1e6, s1.downloads - s0.downloads, (s1.bytes_down - s0.bytes_down) / 1e6);
        free_data();
    }

    if (use_events) {   /* launch overhead */
        double t[15], t0, bare;
        int k, j;
        _skel_CUmodule m;
        _skel_CUfunction f;
        make_data(1);
        check(skel_map1(inc, r, x), "inc");
        for (k = 0; k < 15; ++k) {
            t0 = bench_now();
            for (j = 0; j < 1000; ++j) skel_map1(inc, r, x);
            _skel_cu.cuCtxSynchronize();
            t[k] = (bench_now() - t0) * 1e3;   /* us per call */
        }
        printf("\n## launch overhead: 1-element Map %.2f us per call", bench_median(t, 15));
        check(_skel_cuda_module(0, "extern \"C\" __global__ void empty_k(void) {}\n", "empty.cu", NULL, &m), "empty");
        _skel_cu.cuModuleGetFunction(&f, m, "empty_k");
        for (k = 0; k < 15; ++k) {
            t0 = bench_now();
            for (j = 0; j < 1000; ++j) _skel_cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL);
            _skel_cu.cuCtxSynchronize();
            t[k] = (bench_now() - t0) * 1e3;
        }
        bare = bench_median(t, 15);
        printf(", bare cuLaunchKernel of an empty kernel %.2f us (runtime <<<>>> launch: %.2f us)\n", bare,
               1e3 * base_ms("empty_launch", 1));
        free_data();
    }
    return 0;
}
