#define _POSIX_C_SOURCE 200809L   /* mkdtemp, setenv, popen */
/* The CUDA backend: what works without a GPU (NVRTC compiles every kernel
   the skeleton suite generates, for sm_80 and sm_90; the kernel cache) and,
   on a GPU machine, data movement, partitioned calls and errors.

   GPU tests skip with the reason when no CUDA device is usable, unless
   SKEL_REQUIRE names "cuda": then they fail. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "skel.h"
#include "skel_cuda.h"
#include "skel_test.h"

/* private entry points of skel_cuda.h (defined in the implementation) */
int _skel_cuda_compile_check(const char *src, const char *name, const char *extra, int arch);
int _skel_cuda_instance_check(skel_skeleton *sk, const skel_call *call, int arch, int block);
int _skel_cuda_candidates_get(skel_variant *out, int max);
void _skel_cuda_test_alloc_limit(size_t bytes);
int _skel_cuda_test_marks(size_t bytes, int times, int *early, double *secs, double *wall);
int _skel_cuda_pin_due(int mode, size_t bytes, double rent, double next, double per_byte, size_t pinned, size_t cap);
int _skel_cuda_test_pinning(int mode);

static int required(const char *name)
{
    const char *r = getenv("SKEL_REQUIRE");
    size_t n = strlen(name);
    while (r && *r) {
        while (*r == ',' || *r == ' ') ++r;
        if (strncmp(r, name, n) == 0 && (r[n] == 0 || r[n] == ',' || r[n] == ' ')) return 1;
        while (*r && *r != ',') ++r;
    }
    return 0;
}

/* Skip (or fail under SKEL_REQUIRE=cuda) when there is no usable GPU. */
static void need_gpu(void)
{
    if (skel_cuda_register() == SKEL_OK) return;
    if (required("cuda")) ST_FAIL("SKEL_REQUIRE=cuda but %s", skel_last_error());
    ST_SKIP("no CUDA GPU here: %s", skel_last_error());
}

static int have_nvrtc(void)
{
    return _skel_cuda_compile_check("extern \"C\" __global__ void k(int *a) { a[0] = 1; }\n", "probe.cu", NULL, 80) ==
           SKEL_OK;
}

static void need_nvrtc(void)
{
    if (have_nvrtc()) return;
    if (required("cuda")) ST_FAIL("SKEL_REQUIRE=cuda but NVRTC is missing: %s", skel_last_error());
    ST_SKIP("NVRTC not found (libnvrtc.so.13/.12/.11 or /usr/local/cuda/lib64): %s", skel_last_error());
}

static skel_plan *cuda_plan(int block, int grid, int devices)
{
    skel_plan *p = NULL;
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = "cuda";
    v.block = block;
    v.grid = grid;
    v.devices = devices;
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v));
    return p;
}

SKEL_FUNC(float, t_axpy, (float x, float y, float a), return a * x + y;)
SKEL_FUNC(float, t_add, (float a, float b), return a + b;)
SKEL_FUNC(float, t_mul, (float a, float b), return a * b;)
SKEL_FUNC(float, t_sten, (const float *a), return a[-1] + 2 * a[0] + a[1];)
SKEL_FUNC(int32_t, t_first, (int32_t a, int32_t b), return a == 0 ? b : a;)   /* associative, not commutative */
SKEL_MAP_EX(t_saxpy, t_axpy, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float))
SKEL_REDUCE(t_sum, t_add, float)
SKEL_MAPREDUCE(t_dot, t_mul, t_add, float, 2)
SKEL_SCAN(t_psum, t_add, float)
SKEL_OVERLAP(t_ov, t_sten, float, 1)
SKEL_REDUCE(t_firstnz, t_first, int32_t)
/* valid C99 that is not valid CUDA C++: a variable-length array */
SKEL_FUNC(float, t_vla, (float a), int n = 1 + ((int)a & 3); float t[n]; t[0] = a; return t[0] + (float)n;)
SKEL_MAP(t_bad, t_vla, float, 1)


/* ---- without a GPU ---------------------------------------------------- */

SKEL_TEST(cuda_backend_present_or_skip_says_why)
{
    need_gpu();
    ST_CHECK(skel_backend_available("cuda"));
    ST_CHECK(skel_cuda_device_count() >= 1);
}

SKEL_TEST(cuda_devices_report_limits)
{
    skel_cuda_device_info i;
    need_gpu();
    ST_OK(skel_cuda_device_get(0, &i));
    ST_CHECK(i.name[0] != 0);
    ST_CHECK(i.cc_major >= 3 && i.sms > 0 && i.memory > 0);
    ST_CHECK(i.max_threads_per_block >= 256 && i.shared_per_block >= 16384 && i.regs_per_block > 0);
    ST_EQ_INT(skel_cuda_device_get(99, &i), SKEL_EINVAL);
}

/* Every kernel the skeleton suite makes compiles with NVRTC for sm_80 and
   sm_90: the suite runs again in a child process with SKEL_CUDA_CHECK,
   which adds the backend "cuda-check" (compile every kernel of each call
   for both architectures, then compute on the CPU) to every case. */
SKEL_TEST(cuda_every_suite_kernel_compiles_for_sm80_and_sm90)
{
    char cmd[2048], line[1024], stats[1024] = "";
    const char *archs = getenv("SKEL_TEST_NVRTC_CHECK");
    FILE *f;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int shards = cpus < 1 ? 1 : cpus > 4 ? 4 : (int)cpus, summaries = 0, passed = 0, failed = 0, bad = 0, other = 0;
    int p = -1, q = -1;         /* the summary line a child printed last (its own tests may print some) */
#if defined(__SANITIZE_ADDRESS__)
    ST_SKIP("compile check runs in the uninstrumented build (it reruns the whole suite)");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    ST_SKIP("compile check runs in the uninstrumented build (it reruns the whole suite)");
#endif
#endif
    if (getenv("SKEL_CUDA_CHECK")) ST_SKIP("this is the compile-check child");
    /* SKEL_TEST_NVRTC_CHECK: 0 leaves the check out (CI's second compiler:
       the kernels' text does not depend on the host compiler, and the first
       run compiled every one); a list of architectures replaces sm_80,sm_90 */
    if (archs && strcmp(archs, "0") == 0) ST_SKIP("SKEL_TEST_NVRTC_CHECK=0");
    if (!archs || !*archs || strcmp(archs, "1") == 0) archs = "sm_80,sm_90";
    if (strspn(archs, "sm_0123456789,") != strlen(archs)) ST_FAIL("SKEL_TEST_NVRTC_CHECK=%s: want 0, 1 or a list like sm_90", archs);
    need_nvrtc();
    /* the suite in one process a CPU (up to 4), each a share of the tests:
       NVRTC compiles on one thread, and this check was 2 of CI's 22 minutes */
    snprintf(cmd, sizeof cmd,
             "d=$(mktemp -d) || exit 1; i=0; while [ $i -lt %d ]; do "
             "SKEL_TEST_SHARD=$i/%d SKEL_CUDA_CHECK=%s SKEL_CUDA_STATS=1 SKEL_BACKEND= SKEL_REQUIRE= "
             "OCL_ICD_VENDORS=/nonexistent OCL_ICD_FILENAMES= '%s' _ </dev/null >\"$d/$i\" 2>&1 & i=$((i+1)); done; "
             "wait; for f in \"$d\"/*; do cat \"$f\"; echo '-- end of shard'; done; rm -rf \"$d\"",
             shards, shards, archs, st_argv0());
    f = popen(cmd, "r");
    ST_CHECK(f != NULL);
    while (fgets(line, sizeof line, f)) {
        int np, nf;
        if (strncmp(line, "-- end of shard", 15) == 0) {
            if (p >= 0) { passed += p; failed += q; ++summaries; }
            p = q = -1;
            continue;
        }
        if (strstr(line, "does not compile") || (strstr(line, "FAIL") && strstr(line, "cuda-check"))) {
            ++bad;
            printf("  child: %s", line);
        } else if (strstr(line, "FAIL")) {
            ++other;
        }
        if (strstr(line, "skel cuda:")) snprintf(stats, sizeof stats, "%s", line);
        if (sscanf(line, "%d passed, %d failed", &np, &nf) == 2) { p = np; q = nf; }
    }
    pclose(f);
    if (st_verbose()) printf("  %d children: %d passed, %d failed (%d not on cuda-check)\n  %s",
                             shards, passed, failed, other, stats);
    if (summaries != shards) ST_FAIL("%d of %d compile-check runs ended without a summary (crashed?)", shards - summaries, shards);
    if (bad) ST_FAIL("%d kernel(s) failed on the compile check (lines above)", bad);
    ST_CHECK(strstr(stats, "skel cuda:") != NULL);
}

/* SKEL_CUDA_PINNED's rule: never (0), at the first copy (1), or (2, the
   default: the ski rental's rule) once the pageable copies so far plus the
   one about to be made cost what registering and releasing is estimated
   to (0.2 ms + per_byte a byte); never below 64 KiB nor beyond the cap
   of registered bytes. */
SKEL_TEST(cuda_pin_rule_locks_once_copies_cost_a_registration)
{
    const size_t mb = (size_t)1 << 20, cap = (size_t)1 << 30;
    const double pb = 0.07e-9, est = 200e-6 + pb * (double)(16 * mb);     /* 16 MB: about 1.4 ms */
    ST_EQ_INT(_skel_cuda_pin_due(0, 16 * mb, 1.0, 1.0, pb, 0, cap), 0);
    ST_EQ_INT(_skel_cuda_pin_due(1, 16 * mb, 0.0, 0.0, pb, 0, cap), 1);
    ST_EQ_INT(_skel_cuda_pin_due(1, 65535, 1.0, 1.0, pb, 0, cap), 0);
    ST_EQ_INT(_skel_cuda_pin_due(2, 65535, 1.0, 1.0, pb, 0, cap), 0);
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, 0.0, 0.0, pb, 0, cap), 0);
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, 0.0, 2e-3, pb, 0, cap), 1);        /* one copy saves more than it costs */
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, 0.0, 0.99 * est, pb, 0, cap), 0);
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, 0.5 * est, 0.49 * est, pb, 0, cap), 0);
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, 0.5 * est, 0.5 * est, pb, 0, cap), 1);   /* rent so far + this copy */
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, est, 0.0, 4 * pb, 0, cap), 0);     /* a dearer registration waits longer */
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, est, 0.0, pb, cap - 16 * mb, cap), 1);
    ST_EQ_INT(_skel_cuda_pin_due(2, 16 * mb, est, 0.0, pb, cap - 16 * mb + 1, cap), 0);
    ST_EQ_INT(_skel_cuda_pin_due(1, 16 * mb, est, 0.0, pb, cap + 1, cap), 0);   /* (no wrap-around) */
}

SKEL_TEST(cuda_compile_error_carries_log_and_numbered_source)
{
    skel_vec *a, *o;
    skel_call c;
    int rc;
    need_nvrtc();
    a = st_fvec(10, 1);
    o = st_fvec(10, 0);
    memset(&c, 0, sizeof c);
    c.in[0] = a;
    c.out = o;
    rc = _skel_cuda_instance_check(t_bad, &c, 90, 256);
    ST_EQ_INT(rc, SKEL_ECOMPILE);
    ST_CHECK(strstr(skel_last_error(), "error") != NULL);          /* NVRTC's log */
    ST_CHECK(strstr(skel_last_error(), "t_vla") != NULL);          /* the source ... */
    ST_CHECK(strstr(skel_last_error(), "generated source, lines") != NULL);   /* ... numbered */
    if (st_verbose()) printf("%s\n", skel_last_error());
    skel_free(a);
    skel_free(o);
}

static long file_size(const char *path)
{
    struct stat s;
    return stat(path, &s) == 0 ? (long)s.st_size : -1;
}

/* The single cache file in dir (the test's own directory has one). */
static void cache_file(const char *dir, char *path, size_t size)
{
    char cmd[600];
    FILE *f;
    path[0] = 0;
    snprintf(cmd, sizeof cmd, "ls '%s'/cuda-*.bin 2>/dev/null | head -1", dir);
    if ((f = popen(cmd, "r"))) {
        if (fgets(path, (int)size, f)) path[strcspn(path, "\n")] = 0;
        pclose(f);
    }
}

SKEL_TEST(cuda_disk_cache_reuses_and_rebuilds_corrupt_entries)
{
    char dir[] = "/tmp/skel-cuda-test-XXXXXX", path[700], src[256];
    const char *old = getenv("SKEL_CACHE_DIR");
    char saved[512] = "";
    skel_cuda_stats s0, s1;
    long full;
    FILE *f;
    need_nvrtc();
    if (getenv("SKEL_CUDA_TEST_WARM")) ST_SKIP("SKEL_CUDA_TEST_WARM: this test compiles on purpose");
    if (old) snprintf(saved, sizeof saved, "%s", old);
    ST_CHECK(mkdtemp(dir) != NULL);
    setenv("SKEL_CACHE_DIR", dir, 1);
    snprintf(src, sizeof src, "extern \"C\" __global__ void k(float *a) { a[0] = %d.5f; }\n", (int)getpid());

    skel_cuda_stats_get(&s0);
    ST_OK(_skel_cuda_compile_check(src, "cache.cu", NULL, 90));          /* compiles, writes */
    ST_OK(_skel_cuda_compile_check(src, "cache.cu", NULL, 90));          /* reads */
    skel_cuda_stats_get(&s1);
    ST_EQ_INT(s1.compiles - s0.compiles, 1);
    ST_EQ_INT(s1.disk_writes - s0.disk_writes, 1);
    ST_EQ_INT(s1.disk_loads - s0.disk_loads, 1);
    cache_file(dir, path, sizeof path);
    ST_CHECK(path[0] != 0);
    full = file_size(path);
    ST_CHECK(full > 64);

    /* truncated: detected, rebuilt, rewritten whole */
    ST_CHECK(truncate(path, full / 2) == 0);
    ST_OK(_skel_cuda_compile_check(src, "cache.cu", NULL, 90));
    skel_cuda_stats_get(&s0);
    ST_EQ_INT(s0.disk_rejects - s1.disk_rejects, 1);
    ST_EQ_INT(s0.compiles - s1.compiles, 1);
    ST_EQ_INT(file_size(path), full);

    /* one flipped payload byte: the checksum catches it */
    ST_CHECK((f = fopen(path, "r+b")) != NULL);
    fseek(f, full - 10, SEEK_SET);
    fputc(0x5a ^ fgetc(f), f);
    fseek(f, full - 10, SEEK_SET);
    fclose(f);
    ST_OK(_skel_cuda_compile_check(src, "cache.cu", NULL, 90));
    skel_cuda_stats_get(&s1);
    ST_EQ_INT(s1.disk_rejects - s0.disk_rejects, 1);
    ST_EQ_INT(s1.compiles - s0.compiles, 1);

    /* an entry whose load never returned in an earlier process (its mark
       names a process that is gone) is deleted and rebuilt */
    {
        char mark[800];
        pid_t dead;
        snprintf(mark, sizeof mark, "%s.loading", path);
        ST_CHECK(access(mark, F_OK) != 0);
        ST_CHECK((dead = fork()) >= 0);
        if (dead == 0) _exit(0);
        ST_CHECK(waitpid(dead, NULL, 0) == dead);
        ST_CHECK((f = fopen(mark, "w")) != NULL);
        fprintf(f, "%ld\n", (long)dead);
        fclose(f);
        ST_OK(_skel_cuda_compile_check(src, "cache.cu", NULL, 90));
        skel_cuda_stats_get(&s0);
        ST_EQ_INT(s0.disk_rejects - s1.disk_rejects, 1);
        ST_EQ_INT(s0.compiles - s1.compiles, 1);
        ST_CHECK(access(mark, F_OK) != 0);
        ST_OK(_skel_cuda_compile_check(src, "cache.cu", NULL, 90));     /* the rebuilt entry loads */
        skel_cuda_stats_get(&s1);
        ST_EQ_INT(s1.disk_loads - s0.disk_loads, 1);
    }

    /* an unusable directory only costs speed */
    snprintf(path, sizeof path, "%s/not-a-dir", dir);
    ST_CHECK((f = fopen(path, "w")) != NULL);
    fclose(f);
    strcat(path, "/sub");
    setenv("SKEL_CACHE_DIR", path, 1);
    ST_OK(_skel_cuda_compile_check(src, "cache.cu", NULL, 90));

    if (saved[0]) setenv("SKEL_CACHE_DIR", saved, 1);
    else unsetenv("SKEL_CACHE_DIR");
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    ST_CHECK(system(path) == 0);
}

/* ---- on a GPU ---------------------------------------------------------- */

/* Ten calls on the same data upload each input once and download nothing
   until the host reads; a host write makes the next call upload again. */
SKEL_TEST(cuda_chain_of_calls_moves_data_once)
{
    const size_t n = 1 << 20;
    skel_vec *x, *y, *r;
    skel_plan *p;
    skel_cuda_stats s0, s1;
    float a = 0.5f, want;
    skel_call c;
    int k;
    need_gpu();
    x = st_fvec(n, 1); y = st_fvec(n, 2); r = st_fvec(n, 0);
    p = cuda_plan(0, 0, 0);
    ST_OK(skel_set_plan(t_saxpy, p));
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = r; c.uniform = &a;
    ST_OK(skel_run(t_saxpy, &c));               /* compiles, uploads x and y */
    skel_cuda_stats_get(&s0);
    c.in[1] = r;                                /* r = a*x + r, ten times, on the GPU */
    for (k = 0; k < 10; ++k) ST_OK(skel_run(t_saxpy, &c));
    skel_cuda_stats_get(&s1);
    ST_EQ_INT(s1.uploads - s0.uploads, 0);
    ST_EQ_INT(s1.downloads - s0.downloads, 0);
    ST_EQ_INT(s1.compiles - s0.compiles, 0);
    {
        const float *h = (const float *)skel_read(r), *hx = (const float *)skel_read(x);
        const float *hy = (const float *)skel_read(y);
        ST_CHECK(h != NULL);
        want = a * hx[n - 3] + hy[n - 3];
        for (k = 0; k < 10; ++k) want = a * hx[n - 3] + want;
        ST_NEAR(h[n - 3], want, 1e-5);
    }
    skel_cuda_stats_get(&s0);
    ST_EQ_INT(s0.downloads - s1.downloads, 1);  /* r only: x and y were valid on the host */
    ST_CHECK(skel_write(x) != NULL);            /* host write: the GPU copy is stale */
    ST_OK(skel_run(t_saxpy, &c));
    skel_cuda_stats_get(&s1);
    ST_EQ_INT(s1.uploads - s0.uploads, 1);      /* x again; r and y are still valid there */
    ST_OK(skel_flush(r));
    ST_OK(skel_set_plan(t_saxpy, NULL));
    skel_plan_free(p);
    skel_free(x); skel_free(y); skel_free(r);
}

/* A call that cannot get device memory returns SKEL_ENOMEM and changes
   nothing: the output keeps its old value, the inputs stay readable. */
SKEL_TEST(cuda_out_of_memory_leaves_containers_valid)
{
    const size_t n = 1 << 16;
    skel_vec *x, *y, *r;
    skel_plan *p;
    float a = 2, before;
    skel_call c;
    need_gpu();
    x = st_fvec(n, 1); y = st_fvec(n, 2); r = st_fvec(n, 3);
    before = ((const float *)skel_read(r))[5];
    p = cuda_plan(0, 0, 0);
    ST_OK(skel_set_plan(t_saxpy, p));
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = r; c.uniform = &a;
    _skel_cuda_test_alloc_limit(2 * n * sizeof(float) + 1);   /* room for the two inputs only */
    ST_EQ_INT(skel_run(t_saxpy, &c), SKEL_ENOMEM);
    _skel_cuda_test_alloc_limit(0);
    ST_CHECK(strstr(skel_last_error(), "out of device memory") != NULL);
    ST_NEAR(((const float *)skel_read(r))[5], before, 0);
    ST_NEAR(((const float *)skel_read(x))[5], ((5 * 37) % 101) * 0.01f, 1e-6);
    ST_OK(skel_run(t_saxpy, &c));                         /* and works again */
    ST_NEAR(((const float *)skel_read(r))[5], 2 * ((5 * 37) % 101) * 0.01f + 2 * ((5 * 37) % 101) * 0.01f, 1e-5);
    ST_OK(skel_set_plan(t_saxpy, NULL));
    skel_plan_free(p);
    skel_free(x); skel_free(y); skel_free(r);
}

SKEL_TEST(cuda_compile_error_on_the_gpu_path)
{
    skel_vec *a, *o;
    skel_plan *p;
    need_gpu();
    a = st_fvec(100, 1); o = st_fvec(100, 0);
    p = cuda_plan(0, 0, 0);
    ST_OK(skel_set_plan(t_bad, p));
    ST_EQ_INT(skel_map1(t_bad, o, a), SKEL_ECOMPILE);
    ST_CHECK(strstr(skel_last_error(), "t_vla") != NULL);
    ST_CHECK(((const float *)skel_read(o))[3] == 0);
    ST_OK(skel_set_plan(t_bad, NULL));
    skel_plan_free(p);
    skel_free(a); skel_free(o);
}

/* One call split over parts (variant .devices): with one GPU the parts are
   logical partitions of that GPU; results match one part exactly for
   integers and closely for floats, and the order of a non-commutative
   reduction survives the split. */
SKEL_TEST(cuda_split_over_parts_matches_one_part)
{
    static const size_t sizes[] = { 1, 2, 3, 1000, 65537, 1 << 20 };
    size_t k, i;
    int parts;
    need_gpu();
    for (parts = 2; parts <= 3; ++parts)
        for (k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
            size_t n = sizes[k];
            skel_plan *one = cuda_plan(0, 0, 1), *many = cuda_plan(256, 0, parts);
            skel_vec *x = st_fvec(n, 1), *y = st_fvec(n, -1), *r1 = st_fvec(n, 0), *r2 = st_fvec(n, 0), *iv;
            float a = 3, s1, s2;
            int32_t f1, f2, *ip;
            const float *h1, *h2;
            skel_call c;
            st_context("%d parts, n=%zu", parts, n);
            memset(&c, 0, sizeof c);
            c.in[0] = x; c.in[1] = y; c.uniform = &a;
            /* map */
            c.out = r1; ST_OK(skel_set_plan(t_saxpy, one)); ST_OK(skel_run(t_saxpy, &c));
            c.out = r2; ST_OK(skel_set_plan(t_saxpy, many)); ST_OK(skel_run(t_saxpy, &c));
            h1 = (const float *)skel_read(r1); h2 = (const float *)skel_read(r2);
            for (i = 0; i < n; ++i) ST_NEAR(h1[i], h2[i], 0);
            /* reduce, mapreduce */
            ST_OK(skel_set_plan(t_sum, one)); ST_OK(skel_reduce(t_sum, x, &s1));
            ST_OK(skel_set_plan(t_sum, many)); ST_OK(skel_reduce(t_sum, x, &s2));
            ST_NEAR(s1, s2, 1e-5);
            ST_OK(skel_set_plan(t_dot, one)); ST_OK(skel_mapreduce2(t_dot, x, y, &s1));
            ST_OK(skel_set_plan(t_dot, many)); ST_OK(skel_mapreduce2(t_dot, x, y, &s2));
            ST_NEAR(s1, s2, 1e-5);
            /* scan */
            ST_OK(skel_set_plan(t_psum, one)); ST_OK(skel_scan(t_psum, r1, x));
            ST_OK(skel_set_plan(t_psum, many)); ST_OK(skel_scan(t_psum, r2, x));
            h1 = (const float *)skel_read(r1); h2 = (const float *)skel_read(r2);
            for (i = 0; i < n; ++i) ST_NEAR(h1[i], h2[i], 1e-5);
            /* overlap: the parts read each other's borders */
            ST_OK(skel_set_plan(t_ov, one)); ST_OK(skel_overlap(t_ov, r1, x, SKEL_EDGE_CYCLIC, NULL));
            ST_OK(skel_set_plan(t_ov, many)); ST_OK(skel_overlap(t_ov, r2, x, SKEL_EDGE_CYCLIC, NULL));
            h1 = (const float *)skel_read(r1); h2 = (const float *)skel_read(r2);
            for (i = 0; i < n; ++i) ST_NEAR(h1[i], h2[i], 0);
            {   /* a matrix splits by rows */
                skel_vec *m, *m1, *m2;
                size_t R = 1 + n / 64, C = 64;
                float *mp;
                ST_OK(skel_mat_new(&m, SKEL_FLOAT, R, C));
                mp = (float *)skel_write(m);
                for (i = 0; i < R * C; ++i) mp[i] = (float)((i * 53) % 97) * 0.01f;
                ST_OK(skel_mat_new(&m1, SKEL_FLOAT, R, C));
                ST_OK(skel_mat_new(&m2, SKEL_FLOAT, R, C));
                ST_OK(skel_set_plan(t_ov, one)); ST_OK(skel_overlap(t_ov, m1, m, SKEL_EDGE_CYCLIC, NULL));
                ST_OK(skel_set_plan(t_ov, many)); ST_OK(skel_overlap(t_ov, m2, m, SKEL_EDGE_CYCLIC, NULL));
                h1 = (const float *)skel_read(m1); h2 = (const float *)skel_read(m2);
                for (i = 0; i < R * C; ++i) ST_NEAR(h1[i], h2[i], 0);
                ST_OK(skel_set_plan(t_psum, many)); ST_OK(skel_scan(t_psum, m2, m));   /* row-wise */
                ST_OK(skel_set_plan(t_psum, one)); ST_OK(skel_scan(t_psum, m1, m));
                h1 = (const float *)skel_read(m1); h2 = (const float *)skel_read(m2);
                for (i = 0; i < R * C; ++i) ST_NEAR(h1[i], h2[i], 1e-5);
                skel_free(m); skel_free(m1); skel_free(m2);
            }
            /* order: the first non-zero element, wherever the split falls */
            ST_OK(skel_vec_new(&iv, SKEL_INT32, n));
            ip = (int32_t *)skel_write(iv);
            ip[n - 1] = 7;
            if (n > 2) ip[n / 2 + 1] = 5;
            ST_OK(skel_set_plan(t_firstnz, one)); ST_OK(skel_reduce(t_firstnz, iv, &f1));
            ST_OK(skel_set_plan(t_firstnz, many)); ST_OK(skel_reduce(t_firstnz, iv, &f2));
            ST_EQ_INT(f1, n > 2 ? 5 : 7);
            ST_EQ_INT(f2, f1);
            skel_set_plan(t_saxpy, NULL); skel_set_plan(t_sum, NULL); skel_set_plan(t_dot, NULL);
            skel_set_plan(t_psum, NULL); skel_set_plan(t_ov, NULL); skel_set_plan(t_firstnz, NULL);
            skel_plan_free(one); skel_plan_free(many);
            skel_free(x); skel_free(y); skel_free(r1); skel_free(r2); skel_free(iv);
        }
    st_context("");
}

SKEL_FUNC(int64_t, t_moment, (skel_index r, skel_index c, int32_t a), return (int64_t)a * (r + 1) * (c + 1);)
SKEL_FUNC(int64_t, t_addl, (int64_t a, int64_t b), return a + b;)
SKEL_MAPREDUCE_EX(t_moment_sum, t_moment, t_addl, int64_t, int32_t, 1, SKEL_INDEX2D, SKEL_NO_UNIFORM)

/* sum of a[r][c] (r+1)(c+1) over a random rows x cols int32 matrix: the
   call (on *m, made here) and the plain C answer */
static int64_t moment_case(skel_mat **m, size_t rows, size_t cols, skel_call *c)
{
    uint64_t seed = st_seed("moment", rows, cols);
    int32_t *h = (int32_t *)st_malloc(rows * cols * sizeof *h);
    int64_t ref = 0;
    size_t r, k;
    for (r = 0; r < rows; ++r)
        for (k = 0; k < cols; ++k) {
            h[r * cols + k] = (int32_t)(st_rand(&seed) % 2000001u) - 1000000;
            ref += (int64_t)h[r * cols + k] * (int64_t)(r + 1) * (int64_t)(k + 1);
        }
    ST_OK(skel_mat_new_copy(m, SKEL_INT32, rows, cols, h));
    free(h);
    memset(c, 0, sizeof *c);
    c->in[0] = *m;
    return ref;
}

/* Every block the tuner may pick launches a kernel that needs many
   registers: an int64 MapReduce over a 2-D index took more than 64 a
   thread, and at block 1024 every launch failed with
   CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (bench/eval2d.c's "moment" on the
   H100) until blocks over 256 were compiled with a register cap. */
SKEL_TEST(cuda_every_block_launches_a_register_hungry_mapreduce)
{
    skel_variant v[16];
    skel_mat *m;
    skel_call c;
    int64_t ref, got;
    int k, nv;
    need_gpu();
    ref = moment_case(&m, 301, 517, &c);
    c.result = &got;
    nv = _skel_cuda_candidates_get(v, 16);
    for (k = 0; k < nv; ++k) {
        skel_plan *p = cuda_plan(v[k].block, v[k].grid, v[k].devices);
        st_context("block %d grid %d", v[k].block, v[k].grid);
        ST_OK(skel_set_plan(t_moment_sum, p));
        got = 0;
        ST_OK(skel_run(t_moment_sum, &c));
        ST_CHECK(got == ref);
        skel_set_plan(t_moment_sum, NULL);
        skel_plan_free(p);
    }
    st_context("");
    skel_free(m);
}

/* The compile check builds block-1024 programs the way the GPU path does,
   with the register cap (NVRTC accepts it for sm_80 and sm_90). */
SKEL_TEST(cuda_block_1024_programs_compile_with_a_register_cap)
{
    skel_mat *m;
    skel_call c;
    int64_t got;
    need_nvrtc();
    moment_case(&m, 5, 7, &c);
    c.result = &got;
    ST_OK(_skel_cuda_instance_check(t_moment_sum, &c, 80, 1024));
    ST_OK(_skel_cuda_instance_check(t_moment_sum, &c, 90, 1024));
    skel_free(m);
}

/* Every block size the tuner may pick gives the same answer. */
SKEL_TEST(cuda_tuning_candidates_all_run)
{
    skel_variant v[16];
    const size_t n = 100003;
    int k, nv;
    skel_vec *x;
    float ref, s;
    need_gpu();
    nv = _skel_cuda_candidates_get(v, 16);
    ST_CHECK(nv >= 8);
    x = st_fvec(n, 1);
    ST_OK(skel_set_plan(t_sum, NULL));
    {
        skel_plan *p = cuda_plan(0, 0, 0);
        ST_OK(skel_set_plan(t_sum, p));
        ST_OK(skel_reduce(t_sum, x, &ref));
        skel_set_plan(t_sum, NULL);
        skel_plan_free(p);
    }
    for (k = 0; k < nv; ++k) {
        skel_plan *p = cuda_plan(v[k].block, v[k].grid, v[k].devices);
        st_context("block %d grid %d devices %d", v[k].block, v[k].grid, v[k].devices);
        ST_OK(skel_set_plan(t_sum, p));
        ST_OK(skel_reduce(t_sum, x, &s));
        ST_NEAR(s, ref, 1e-5);
        skel_set_plan(t_sum, NULL);
        skel_plan_free(p);
    }
    skel_free(x);
}

/* A split's GPU part time: a pair of events around work queued on the
   device, timed by the device (they replaced a host function in stream
   order, which fired late while the split's host part held every core).
   40 memsets of 256 MiB (about 5 ms on an H100) are still running right
   after the end mark is queued; after the wait the marks give their time,
   within the host's. */
SKEL_TEST(cuda_time_marks_time_queued_work_on_the_device)
{
    int early = -2;
    double secs = -2, wall = 0;
    need_gpu();
    ST_OK(_skel_cuda_test_marks((size_t)256 << 20, 40, &early, &secs, &wall));
    ST_EQ_INT(early, 0);
    if (!(secs > 1e-4 && secs <= wall + 1e-4)) ST_FAIL("marks: %.6f s, host %.6f s", secs, wall);
}

/* A container written on the host and used on the GPU in a loop gets its
   host copy page-locked by the default rule (a 16 MB one within a few
   copies, a 256 KB one not at its first: its registration's fixed price
   is more than a pageable copy of it takes on any machine), later copies
   move the same values, and freeing or flushing the device copy releases
   the lock; SKEL_CUDA_PINNED=0 never locks, =1 at the first copy. */
static int pinned_after(int mode, size_t n, int calls, int flush)
{
    skel_vec *x = st_fvec(n, 1), *y = st_fvec(n, 2), *r = st_fvec(n, 0);
    skel_plan *p = cuda_plan(0, 0, 0);
    skel_cuda_stats s0, s1;
    float a = 1.5f;
    skel_call c;
    int k, at = 0, old = _skel_cuda_test_pinning(mode);
    uint64_t seed = 11u + (uint64_t)mode;
    ST_OK(skel_set_plan(t_saxpy, p));
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = r; c.uniform = &a;
    skel_cuda_stats_get(&s0);
    for (k = 1; k <= calls; ++k) {
        float *hx = (float *)skel_write(x);
        const float *hr, *hy;
        size_t i = (size_t)st_rand_int(&seed, 0, (long long)n - 1);
        ST_CHECK(hx != NULL);
        hx[i] = (float)k;
        hx[n - 1] = (float)-k;
        ST_OK(skel_run(t_saxpy, &c));
        hr = (const float *)skel_read(r);
        hy = (const float *)skel_read(y);
        ST_NEAR(hr[i], a * (float)k + hy[i], 1e-4);
        ST_NEAR(hr[n - 1], a * (float)-k + hy[n - 1], 1e-4);
        skel_cuda_stats_get(&s1);
        if (!at && s1.pins > s0.pins) at = k;
        if (flush && at == k) {             /* the lock goes with the device copy; it comes back by the rule */
            ST_OK(skel_flush(x));
            flush = 0;
        }
    }
    skel_free(x); skel_free(y); skel_free(r);
    skel_cuda_stats_get(&s1);
    ST_EQ_INT(s1.pins - s0.pins, s1.unpins - s0.unpins);   /* every lock released with its buffer */
    ST_OK(skel_set_plan(t_saxpy, NULL));
    skel_plan_free(p);
    _skel_cuda_test_pinning(old);
    return at;
}

SKEL_TEST(cuda_host_copies_used_in_a_loop_get_page_locked)
{
    const size_t big = (size_t)4 << 20, small = (size_t)64 << 10;     /* 16 MB, 256 KB of floats */
    int at;
    need_gpu();
    ST_EQ_INT(pinned_after(0, big, 6, 0), 0);
    ST_EQ_INT(pinned_after(1, big, 2, 0), 1);
    ST_EQ_INT(pinned_after(1, small, 2, 0), 1);
    at = pinned_after(2, big, 12, 0);
    if (at < 1 || at > 6) ST_FAIL("16 MB: the rule locked at call %d (expected within 6)", at);
    at = pinned_after(2, big, 12, 1);
    if (at < 1 || at > 6) ST_FAIL("16 MB, flushed: the rule locked at call %d (expected within 6)", at);
    at = pinned_after(2, small, 40, 0);
    if (at == 1) ST_FAIL("256 KB: the rule locked at the first copy");
}
