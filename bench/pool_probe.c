/* pool_probe.c - a pool call of bench/eval2d.c's "moment" (sum of
   a[r][c] (r+1)(c+1), an int64 MapReduce over a (row, col) index) alone in
   its process, on seq and pool/2..16, in five patterns: back to back,
   after 1.3 ms of sleep, after 1.3 ms of the caller spinning (a CUDA
   wait), after a cuda call and after an opencl call of the same instance
   (as the evaluation's rounds interleave them; each skipped when the
   backend is absent).  41 timed calls each: min, median, p90, max in ms.

   Usage: bench_pool_probe [ROWS COLS]     (default 870 x 3881)
          bench_pool_probe --tuned ROWS COLS [BUDGET]
          bench_pool_probe --threads ROWS COLS
   --tuned: tune moment over 16..4096 squared (every backend, BUDGET s,
   default 5, no plan file), then at ROWS x COLS interleave 61 rounds of
   the tuned plan's call and the call with its chosen variant forced (a
   one-range plan, as bench_eval2d times variants), and time skel_choose
   with each plan (mean of 20000): medians in us.
   --threads: after one call of moment on each backend (seq, pool/16,
   cuda, opencl), the CPU time each thread of the process then takes
   while the caller sleeps 50 ms (/proc/self/task/<tid>/schedstat): which
   threads stay busy after a call returns.

   Why: in bench_eval2d's process on the H100 machine every pool variant of
   moment ran 2-7x slower than this probe measures (results/tuner2d.md). */
#include "bench.h"
#include <stdio.h>
#include <time.h>
#include <dirent.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"
#include "bench_skel.h"
SKEL_FUNC(int64_t, moment_f, (skel_index r, skel_index c, int32_t a), return (int64_t)a * (r + 1) * (c + 1);)
SKEL_FUNC(int64_t, addl_f, (int64_t a, int64_t b), return a + b;)
SKEL_MAPREDUCE_EX(moment, moment_f, addl_f, int64_t, int32_t, 1, SKEL_INDEX2D, SKEL_NO_UNIFORM)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
/* --threads (see the top): run time in ns of each thread of the process */
static int task_times(long tid[], unsigned long long ns[], int cap)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d) return 0;
    while ((e = readdir(d)) && n < cap) {
        char path[300];
        FILE *f;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        if (!(f = fopen(path, "r"))) continue;
        if (fscanf(f, "%llu", &ns[n]) == 1) tid[n++] = atol(e->d_name);
        fclose(f);
    }
    closedir(d);
    return n;
}

static int busy_threads(size_t R, size_t C)
{
    static const char *bk[] = { "seq", "pool", "cuda", "opencl" };
    long t0[256], t1[256];
    unsigned long long a[256], b[256];
    skel_mat *m; skel_call c; int64_t res;
    int k, i, j, n0, n1;
    int32_t *h = malloc(R * C * 4);
    for (i = 0; i < (int)(R * C); ++i) h[i] = i % 1000 - 500;
    skel_mat_new_copy(&m, SKEL_INT32, R, C, h);
    memset(&c, 0, sizeof c); c.in[0] = m; c.result = &res;
    skel_cuda_register(); skel_cl_register();
    for (k = 0; k < 4; ++k) {
        skel_plan *p;
        struct timespec d = { 0, 50000000 };
        unsigned long long busy = 0;
        if (!skel_backend_available(bk[k])) { printf("%s: absent\n", bk[k]); continue; }
        p = bench_fixed_plan(bk[k], k == 1 ? 16 : 0, 0);
        skel_set_plan(moment, p);
        if (skel_run(moment, &c) != SKEL_OK) { printf("%s: %s\n", bk[k], skel_last_error()); continue; }
        skel_run(moment, &c);
        n0 = task_times(t0, a, 256);
        nanosleep(&d, NULL);
        n1 = task_times(t1, b, 256);
        printf("after %s: %d threads;", bk[k], n1);
        for (j = 0; j < n1; ++j)
            for (i = 0; i < n0; ++i)
                if (t0[i] == t1[j] && b[j] - a[i] > 1000000) { printf(" tid %ld %.1f ms", t1[j], 1e-6 * (double)(b[j] - a[i])); busy += b[j] - a[i]; }
        printf("; busy %.1f ms of 50\n", 1e-6 * (double)busy);
        skel_set_plan(moment, NULL); skel_plan_free(p);
    }
    skel_free(m); free(h);
    return 0;
}

/* --tuned (see the top) */
static int tuned_vs_forced(size_t R, size_t C, double budget)
{
    skel_tune_desc d;
    skel_plan *tuned, *forced;
    skel_variant v;
    skel_mat *m;
    skel_call c;
    int64_t res;
    double t[2][61], s;
    int j, k;
    size_t i;
    int32_t *h = malloc(R * C * 4);
    char label[64];
    for (i = 0; i < R * C; ++i) h[i] = (int32_t)(i * 2654435761u % 1000) - 500;
    skel_mat_new_copy(&m, SKEL_INT32, R, C, h);
    memset(&c, 0, sizeof c); c.in[0] = m; c.result = &res;
    skel_cuda_register(); skel_cl_register();
    memset(&d, 0, sizeof d);
    d.id = "probe-moment"; d.sk = moment; d.dims = 2; d.nofile = 1; d.quiet = 1; d.time_budget = budget;
    d.lower[0] = d.lower[1] = 16; d.upper[0] = d.upper[1] = 4096;
    if (skel_tune(&d, &tuned) != SKEL_OK) { fprintf(stderr, "tune: %s\n", skel_last_error()); return 1; }
    if (skel_choose(moment, &c, &v) != SKEL_OK) return 1;
    snprintf(label, sizeof label, "%s/%d/%d/%d", v.backend, v.threads, v.block, v.grid);
    forced = bench_variant_plan(&v);
    for (k = 0; k < 2; ++k) {           /* skel_choose alone */
        skel_set_plan(moment, k ? forced : tuned);
        s = now();
        for (j = 0; j < 20000; ++j) skel_choose(moment, &c, &v);
        printf("skel_choose with the %s plan: %.3f us\n", k ? "forced" : "tuned", 1e6 * (now() - s) / 20000);
    }
    for (j = 0; j < 61; ++j)
        for (k = 0; k < 2; ++k) {
            skel_set_plan(moment, (j + k) % 2 ? forced : tuned);
            skel_run(moment, &c);               /* untimed, as bench_eval2d's sample */
            s = now(); skel_run(moment, &c); t[(j + k) % 2][j] = now() - s;
        }
    for (k = 0; k < 2; ++k) {
        qsort(t[k], 61, sizeof t[k][0], cmp);
        printf("%zu x %zu %s (%s): min %.2f med %.2f p90 %.2f us\n", R, C, k ? "forced" : "tuned ", label,
               1e6 * t[k][0], 1e6 * t[k][30], 1e6 * t[k][54]);
    }
    skel_set_plan(moment, NULL); skel_plan_free(tuned); skel_plan_free(forced); skel_free(m); free(h);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 3 && !strcmp(argv[1], "--threads")) return busy_threads((size_t)atoi(argv[2]), (size_t)atoi(argv[3]));
    if (argc > 3 && !strcmp(argv[1], "--tuned"))
        return tuned_vs_forced((size_t)atoi(argv[2]), (size_t)atoi(argv[3]), argc > 4 ? atof(argv[4]) : 5);
    size_t R = argc > 1 ? (size_t)atoi(argv[1]) : 870, C = argc > 2 ? (size_t)atoi(argv[2]) : 3881, i;
    int th[] = { 1, 2, 4, 8, 16 }, k, mode, j, reps = 41;
    int32_t *h = malloc(R * C * 4);
    skel_mat *m; skel_call c; int64_t res;
    for (i = 0; i < R * C; ++i) h[i] = (int32_t)(i * 2654435761u % 1000) - 500;
    skel_mat_new_copy(&m, SKEL_INT32, R, C, h);
    memset(&c, 0, sizeof c); c.in[0] = m; c.result = &res;
    skel_plan *gp[2]; int haveg[2];
    haveg[0] = skel_cuda_register() == SKEL_OK; haveg[1] = skel_cl_register() == SKEL_OK;
    gp[0] = haveg[0] ? bench_fixed_plan("cuda", 0, 0) : NULL;
    gp[1] = haveg[1] ? bench_fixed_plan("opencl", 0, 0) : NULL;
    printf("cuda %d opencl %d\n", haveg[0], haveg[1]);
    for (mode = 0; mode < 5; ++mode) {
        if (mode >= 3 && !haveg[mode - 3]) continue;
        for (k = 0; k < 5; ++k) {
            skel_plan *p = th[k] == 1 ? bench_fixed_plan("seq", 0, 0) : bench_fixed_plan("pool", th[k], 0);
            double t[64], s;
            skel_set_plan(moment, p);
            skel_run(moment, &c);
            for (j = 0; j < reps; ++j) {
                if (mode == 1) { struct timespec d = { 0, 1300000 }; nanosleep(&d, NULL); }
                if (mode == 2) { double e = now() + 1.3e-3; while (now() < e) {} }
                if (mode >= 3) { skel_set_plan(moment, gp[mode - 3]); skel_run(moment, &c); skel_set_plan(moment, p); }
                s = now(); skel_run(moment, &c); t[j] = now() - s;
            }
            qsort(t, reps, sizeof t[0], cmp);
            printf("%s %s/%d: min %.3f med %.3f p90 %.3f max %.3f ms\n", mode == 0 ? "back-to-back" : mode == 1 ? "after-sleep " : mode == 2 ? "after-spin  " : mode == 3 ? "after-cuda  " : "after-ocl   ",
                   th[k] == 1 ? "seq" : "pool", th[k], 1e3 * t[0], 1e3 * t[reps / 2], 1e3 * t[reps * 9 / 10], 1e3 * t[reps - 1]);
            skel_set_plan(moment, NULL); skel_plan_free(p);
        }
    }
    return 0;
}
