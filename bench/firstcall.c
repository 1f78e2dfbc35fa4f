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
   SKEL_CUDA_POOL_MB=0 in the environment: without the memory pool. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    static const struct { const char *backend; int block; } vs[] = {
        { "cuda", 256 }, { "cuda", 1024 }, { "opencl", 128 }, { "opencl", 512 }, { "omp", 0 }
    };
    size_t sizes[8] = { 238919, 626033 };
    int nsizes = 2, nv = 0, i, v, k;
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
                Z->valid = 1u;
                t[1][k] = timed();
                call();
                skel_flush(Z);                              /* the evaluation's */
                t[2][k] = timed();
                use((v + 1) % nv); call();                  /* another configuration between */
                use(v); call();
                skel_flush(Z);
                t[3][k] = timed();
                call();
                Z->valid = 1u;                              /* stale on the device, buffer kept */
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
