/* bench/gpu_call_cost.c - where the host's time of a CUDA call on
   device-resident data goes: Pearson (a MapReduce with a struct
   accumulator, its result left on the device) and a float Map at 2^24,
   phase by phase as skel_run takes them (medians of 200 calls, the GPU
   idle before each), beside a bare cuLaunchKernel of an empty kernel;
   then Pearson one call between events against 20 back to back.

       make build/bench_gpu_call_cost && build/bench_gpu_call_cost

   Needs a CUDA GPU (prints "no cuda" and exits 0 without one).  Results:
   bench/results/forms.md. */
#include "bench.h"
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "bench_skel.h"
#include <stdio.h>
#include <string.h>

SKEL_STRUCT(moments, double sx; double sy; double sxx; double syy; double sxy;)
SKEL_FUNC(moments, of_pair, (float x, float y),
    moments m; m.sx = x; m.sy = y; m.sxx = (double)x * x; m.syy = (double)y * y; m.sxy = (double)x * y; return m;)
SKEL_FUNC(moments, add_moments, (moments a, moments b),
    a.sx += b.sx; a.sy += b.sy; a.sxx += b.sxx; a.syy += b.syy; a.sxy += b.sxy; return a;)
SKEL_MAPREDUCE_X(pearson, of_pair, add_moments, moments, SKEL_INS(float, float), SKEL_NO_INDEX, SKEL_NO_VIEWS,
                 SKEL_NO_UNIFORM)
SKEL_FUNC(float, axpy, (float x, float y), return 2.0f * x + y;)
SKEL_MAP(saxpy, axpy, float, 2)

static void ok(int rc, const char *w) { if (rc != SKEL_OK) { fprintf(stderr, "%s: %s\n", w, skel_last_error()); exit(1); } }
static double med(double *t, int n) { return bench_median(t, n); }

#define NPH 10
static const char *ph[NPH] = { "norm", "check", "settle", "choose", "planned", "lock+set", "operands", "exec",
                               "written", "total skel_run" };

static void probe(skel_skeleton *sk, skel_call *call, const char *what)
{
    double t[NPH][200], tt[12];
    int r, k, reps = 200;
    _skel_shape sh;
    _skel_variant v;
    skel_call c;
    for (r = 0; r < reps; ++r) {
        _skel_cuda_kern *kk;
        _skel_kplan plan;
        _skel_CUdeviceptr bufs[_SKEL_NBUFS];
        _skel_cuda_dev *dv;
        _skel_cu.cuCtxSynchronize();
        tt[0] = bench_now();
        ok(_skel_call_norm(sk, call, &c), "norm"); tt[1] = bench_now();
        ok(_skel_check(sk, &c, &sh), "check"); tt[2] = bench_now();
        ok(_skel_tasks_settle_call(sk, &c), "settle"); tt[3] = bench_now();
        ok(_skel_choose(sk, &c, &sh, &v), "choose"); tt[4] = bench_now();
        dv = &_skel_cuda_devs[v.device];
        ok(_skel_cuda_planned(sk, &c, &sh, &v, &kk, &plan), "planned"); tt[5] = bench_now();
        pthread_mutex_lock(&dv->run_lock);
        ok(_skel_cuda_set(dv), "set"); tt[6] = bench_now();
        ok(_skel_cuda_operands(sk, &c, &sh, v.device, bufs), "ops"); tt[7] = bench_now();
        ok(_skel_cuda_exec(v.device, kk, sk, &c, &plan, bufs, v.grid), "exec"); tt[8] = bench_now();
        pthread_mutex_unlock(&dv->run_lock);
        _skel_part_written(sk, &c, &sh, _skel_place_of(v.backend, v.device)); tt[9] = bench_now();
        for (k = 0; k < 9; ++k) t[k][r] = 1e6 * (tt[k + 1] - tt[k]);
        _skel_cu.cuCtxSynchronize();
        tt[10] = bench_now();
        ok(skel_run(sk, call), "run");
        t[9][r] = 1e6 * (bench_now() - tt[10]);
    }
    printf("%s: host microseconds a call (medians of %d):", what, reps);
    for (k = 0; k < NPH; ++k) printf(" %s %.2f%s", ph[k], med(t[k], reps), k < NPH - 1 ? "," : "\n");
}

/* a raw launch of an empty kernel with 8 arguments: the driver's share */
static void raw_launch(void)
{
    static const char src[] = "extern \"C\" __global__ void e(long long a, long long b, long long c, long long d,"
                              " long long e, long long f, long long g, long long h) {}\n";
    _skel_CUmodule mod;
    _skel_CUfunction f;
    long long a[8] = { 0 };
    void *args[8];
    double t[200];
    int r, i;
    for (i = 0; i < 8; ++i) args[i] = &a[i];
    ok(_skel_cuda_module(0, src, "empty.cu", NULL, &mod), "empty");
    ok(_SKEL_CU(cuModuleGetFunction, (&f, mod, "e")), "e");
    for (r = 0; r < 200; ++r) {
        double t0;
        _skel_cu.cuCtxSynchronize();
        t0 = bench_now();
        _skel_cu.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL);
        t[r] = 1e6 * (bench_now() - t0);
    }
    printf("raw cuLaunchKernel of an empty kernel, 8 args: %.2f us\n", med(t, 200));
}

int main(void)
{
    size_t n = (size_t)1 << 24;
    skel_vec *x, *y, *o, *m;
    skel_call c;
    skel_plan *plan;
    if (!skel_backend_available("cuda")) { printf("no cuda\n"); return 0; }
    plan = bench_fixed_plan("cuda", 0, 0);
    skel_set_plan(pearson, plan); skel_set_plan(saxpy, plan);
    ok(skel_vec_new(&x, SKEL_FLOAT, n), "x"); ok(skel_vec_new(&y, SKEL_FLOAT, n), "y");
    ok(skel_vec_new(&o, SKEL_FLOAT, n), "o"); ok(skel_vec_new(&m, SKEL_TYPE(moments), 1), "m");
    memset(skel_write(x), 0, n * 4); memset(skel_write(y), 0, n * 4);
    _skel_cu.cuCtxSetCurrent(_skel_cuda_devs[0].ctx);
    raw_launch();
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = m;
    ok(skel_run(pearson, &c), "warm"); _skel_cu.cuCtxSynchronize();
    probe(pearson, &c, "pearson 2^24 (out on device)");
    {   /* one call between events, and 20 back to back */
        _skel_CUevent e0, e1;
        float ms;
        double one[15], many[15];
        int r, k;
        _skel_cu.cuEventCreate(&e0, 0); _skel_cu.cuEventCreate(&e1, 0);
        for (r = 0; r < 15; ++r) {
            _skel_cu.cuEventRecord(e0, NULL); ok(skel_run(pearson, &c), "p"); _skel_cu.cuEventRecord(e1, NULL);
            _skel_cu.cuEventSynchronize(e1); _skel_cu.cuEventElapsedTime(&ms, e0, e1); one[r] = ms;
            _skel_cu.cuEventRecord(e0, NULL);
            for (k = 0; k < 20; ++k) ok(skel_run(pearson, &c), "p");
            _skel_cu.cuEventRecord(e1, NULL);
            _skel_cu.cuEventSynchronize(e1); _skel_cu.cuEventElapsedTime(&ms, e0, e1); many[r] = ms / 20;
        }
        printf("pearson 2^24: one call %.4f ms, back to back %.4f ms a call (%.0f GB/s read)\n", med(one, 15),
               med(many, 15), 8.0 * n / med(many, 15) / 1e6);
    }
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = o;
    ok(skel_run(saxpy, &c), "warm"); _skel_cu.cuCtxSynchronize();
    probe(saxpy, &c, "saxpy 2^24");
    return 0;
}
