#define _POSIX_C_SOURCE 200809L   /* truncate, fork */
/* The OpenCL backend: loading and devices, the program cache (in memory
   and on disk, corrupt entries rebuilt), build errors with their log, lazy
   copying through the coherence layer, double without fp64, order of
   non-commutative reductions and scans across many work-groups, and the
   kernel templates' source and launch plans (these need no device).

   Tests that need a device skip with the reason when the backend is
   absent, unless SKEL_REQUIRE names "opencl": then they fail.  The general
   suite (test_skeletons.c) runs every case on the backend too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "skel.h"
#include "skel_cl.h"
#include "skel_test.h"

/* private entry points (defined in the implementation) */
int _skel_cl_cache_file(skel_skeleton *sk, int block, char *path, size_t size);
int _skel_cl_test_source(const skel_skeleton *sk, int dialect, size_t local_mem, size_t arg_bytes, char **src);
int _skel_cl_test_plan(skel_skeleton *sk, const skel_call *c, int compute_units, char *desc, size_t size);
void _skel_cl_test_fail_allocs(int on);
int _skel_cl_test_allocs(void);
void _skel_cl_test_state(unsigned epoch, int dirty);
void _skel_test_fallback(int on);

static int cl_required(void)
{
    const char *r = getenv("SKEL_REQUIRE");
    while (r && *r) {
        while (*r == ',' || *r == ' ') ++r;
        if (strncmp(r, "opencl", 6) == 0 && (r[6] == 0 || r[6] == ',' || r[6] == ' ')) return 1;
        while (*r && *r != ',') ++r;
    }
    return 0;
}

/* Skip (or fail under SKEL_REQUIRE=opencl) when there is no OpenCL device. */
static void need_cl(void)
{
    if (skel_cl_register() == SKEL_OK) return;
    if (cl_required()) ST_FAIL("SKEL_REQUIRE=opencl but %s", skel_last_error());
    ST_SKIP("no OpenCL device here: %s", skel_last_error());
}

static skel_plan *cl_plan(int block)
{
    skel_plan *p = NULL;
    skel_variant v;
    memset(&v, 0, sizeof v);
    v.backend = "opencl";
    v.block = block;
    ST_OK(skel_plan_new(&p));
    ST_OK(skel_plan_add(p, 0, SIZE_MAX, &v));
    return p;
}

SKEL_FUNC(float, c_axpy, (float x, float y, float a), return a * x + y;)
SKEL_FUNC(float, c_add, (float a, float b), return a + b;)
SKEL_FUNC(float, c_mul, (float a, float b), return a * b;)
SKEL_FUNC(float, c_sq, (float a), return a * a;)
SKEL_FUNC(float, c_sten, (const float *a), return a[-1] + 2 * a[0] + a[1];)
SKEL_FUNC(double, c_addd, (double a, double b), return a + b;)
/* associative, not commutative */
SKEL_FUNC(int32_t, c_first, (int32_t a, int32_t b), return a == 0 ? b : a;)
SKEL_FUNC(int32_t, c_last, (int32_t a, int32_t b), return b == 0 ? a : b;)
SKEL_MAP_EX(c_saxpy, c_axpy, float, float, 2, SKEL_NO_INDEX, SKEL_UNIFORM(float))
SKEL_MAP(c_square, c_sq, float, 1)
SKEL_REDUCE(c_sum, c_add, float)
SKEL_REDUCE(c_cache_sum, c_add, float)
SKEL_MAPREDUCE(c_dot, c_mul, c_add, float, 2)
SKEL_SCAN(c_psum, c_add, float)
SKEL_OVERLAP(c_ov, c_sten, float, 1)
SKEL_REDUCE(c_sumd, c_addd, double)
SKEL_REDUCE(c_firstnz, c_first, int32_t)
SKEL_SCAN(c_lastnz, c_last, int32_t)
SKEL_SCAN(c_psumd, c_addd, double)
/* valid C99 but not OpenCL C: a variable-length array */
SKEL_FUNC(float, c_vla, (float a), int n = 1 + ((int)a & 3); float t[n]; t[0] = a; return t[0] + (float)n;)
SKEL_MAP(c_bad, c_vla, float, 1)
/* an overlap far wider than any device's local memory */
SKEL_FUNC(float, c_wide, (const float *a), return a[-20000] + a[20000];)
SKEL_OVERLAP(c_wideov, c_wide, float, 20000)


/* ---- without a device: the kernel templates ----------------------------- */

SKEL_TEST(kernel_templates_generate_both_dialects_for_every_kind)
{
    skel_skeleton *all[] = { c_saxpy, c_sum, c_dot, c_psum, c_ov, c_sumd, c_firstnz };
    size_t i;
    int d;
    for (i = 0; i < sizeof all / sizeof *all; ++i)
        for (d = 1; d <= 2; ++d) {
            char *src = NULL;
            st_context("%s dialect %d", all[i]->name, d);
            ST_OK(_skel_cl_test_source(all[i], d, 0, 0, &src));
            ST_CHECK(strstr(src, d == 1 ? "__global__" : "__kernel") != NULL);
            ST_CHECK(strstr(src, all[i]->red_name ? all[i]->red_name : all[i]->func_name) != NULL);
            free(src);
        }
    st_context("");
}

SKEL_TEST(kernel_templates_qualify_pointer_parameters_for_opencl)
{
    char *src = NULL;
    ST_OK(_skel_cl_test_source(c_ov, 2, 0, 0, &src));
    ST_CHECK(strstr(src, "c_sten(SKEL_LOCAL_PTR const float *a)") != NULL);
    free(src);
}

/* The weights of a 2D convolution travel by value when they and the other
   arguments fit the device's argument limit, else through a __constant
   buffer (and the user function's w is qualified to match). */
SKEL_CONV2D(c_conv5, float, 2, 2)
SKEL_CONV2D(c_conv15, float, 7, 7)
SKEL_TEST(kernel_templates_pass_weights_by_value_when_they_fit)
{
    struct { skel_skeleton *sk; size_t args; int by_value; } k[] = {
        { c_conv5, 1024, 1 },   /* 100 bytes */
        { c_conv5, 0, 0 },      /* no by-value weights (CUDA's default) */
        { c_conv5, 200, 0 },    /* 100 + the uniform + 128 do not fit */
        { c_conv15, 1024, 0 },  /* 900 bytes + 128 */
        { c_conv15, 4352, 1 },  /* NVIDIA's limit */
    };
    size_t i;
    for (i = 0; i < sizeof k / sizeof *k; ++i) {
        char *src = NULL;
        st_context("%s in %zu bytes", k[i].sk->name, k[i].args);
        ST_OK(_skel_cl_test_source(k[i].sk, 2, 0, k[i].args, &src));
        ST_EQ_INT(strstr(src, ", skel_wt skel_w") != NULL, k[i].by_value);
        ST_EQ_INT(strstr(src, ", SKEL_CONSTANT_PTR const skel_to *skel_w") != NULL, !k[i].by_value);
        free(src);
    }
    st_context("");
}

SKEL_TEST(kernel_templates_refuse_tiles_beyond_local_memory)
{
    char *src = NULL;
    ST_EQ_INT(_skel_cl_test_source(c_wideov, 2, 48 * 1024, 0, &src), SKEL_EUNSUPPORTED);
    ST_CHECK(strstr(skel_last_error(), "local memory") != NULL);
    ST_CHECK(strstr(skel_last_error(), "a limit of the GPU backends") != NULL);
    ST_CHECK(src == NULL);
}

SKEL_TEST(kernel_plan_reduce_is_one_ordered_pass)
{
    skel_vec *v = st_fvec(1 << 20, 1), *m;
    skel_call c;
    char desc[256];
    float r;
    memset(&c, 0, sizeof c);
    c.in[0] = v;
    c.result = &r;
    ST_OK(_skel_cl_test_plan(c_sum, &c, 4, desc, sizeof desc));
    ST_CHECK(strcmp(desc, "skel_reduce_part:32 result=1") == 0);
    /* small: one group */
    ST_OK(skel_mat_new(&m, SKEL_FLOAT, 3, 1000));
    c.in[0] = m;
    ST_OK(_skel_cl_test_plan(c_sum, &c, 4, desc, sizeof desc));
    ST_CHECK(strcmp(desc, "skel_reduce_part:1 result=1") == 0);
    skel_free(v);
    skel_free(m);
}

SKEL_TEST(kernel_plan_spreads_a_small_map_over_every_compute_unit)
{
    skel_vec *x = st_fvec(5888, 1), *y = st_fvec(5888, 2), *big = st_fvec(1 << 20, 3);
    skel_call c;
    char desc[256];
    memset(&c, 0, sizeof c);
    c.in[0] = x;
    c.out = y;
    /* 5888 elements, 2 a work-item, 132 compute units: 12 groups of the
       block (256) would leave most units idle; groups are halved down to
       a warp (92 groups of 32), still under 4 a unit */
    ST_OK(_skel_cl_test_plan(c_square, &c, 132, desc, sizeof desc));
    if (strcmp(desc, "skel_map_small:92x32 result=-1")) ST_FAIL("plan %s", desc);
    /* 2 units: 12 groups of 256 are enough */
    ST_OK(_skel_cl_test_plan(c_square, &c, 2, desc, sizeof desc));
    if (strcmp(desc, "skel_map:12 result=-1")) ST_FAIL("plan %s", desc);
    c.in[0] = big;
    c.out = big;
    ST_OK(_skel_cl_test_plan(c_square, &c, 132, desc, sizeof desc));
    if (strcmp(desc, "skel_map:2048 result=-1")) ST_FAIL("plan %s", desc);
    skel_free(x);
    skel_free(y);
    skel_free(big);
}

/* ---- with a device ------------------------------------------------------ */

SKEL_TEST(opencl_backend_present_or_skip_says_why)
{
    need_cl();
    ST_CHECK(skel_backend_available("opencl"));
    ST_CHECK(skel_cl_device_count() >= 1);
    ST_CHECK(skel_cl_device_selected() >= 0);
    ST_OK(skel_cl_register());   /* idempotent */
}

/* skel_cl.h asks PoCL to pin its worker threads before it loads OpenCL
   (unless the environment says otherwise): unpinned, they shared a core
   of a 2-vCPU VM and small calls took twice as long. */
SKEL_TEST(opencl_sets_pocl_affinity_unless_already_set)
{
    const char *a;
    need_cl();
    a = getenv("POCL_AFFINITY");
    ST_CHECK(a != NULL);
}

SKEL_TEST(opencl_devices_report_facts)
{
    skel_cl_device_info i;
    int k;
    need_cl();
    for (k = 0; k < skel_cl_device_count(); ++k) {
        ST_OK(skel_cl_device_get(k, &i));
        st_context("device %d: %s", k, i.name);
        ST_CHECK(i.name[0] != 0 && i.platform[0] != 0 && i.version[0] != 0);
        ST_CHECK(i.is_gpu || i.is_cpu || i.is_accelerator);
        ST_CHECK(i.compute_units > 0 && i.global_mem > 0 && i.local_mem >= 16384 && i.max_work_group >= 1);
    }
    st_context("");
    ST_EQ_INT(skel_cl_device_get(99, &i), SKEL_EINVAL);
}

SKEL_TEST(opencl_program_cache_builds_once_and_rebuilds_corrupt_entries)
{
    skel_plan *p;
    skel_vec *v;
    skel_cl_stats s0, s1;
    char path[1200], mark[1300];
    float r = 0;
    FILE *f;
    pid_t dead;
    need_cl();
    p = cl_plan(128);   /* a block size no other test uses: a program of its own */
    v = st_fvec(5000, 1);
    ST_OK(skel_set_plan(c_cache_sum, p));
    ST_OK(_skel_cl_cache_file(c_cache_sum, 128, path, sizeof path));
    if (!path[0]) ST_SKIP("the program cache is off (SKEL_CACHE_DIR=off or no usable directory)");
    remove(path);
    skel_cl_forget_programs();

    /* cold: built from source and written to disk */
    skel_cl_stats_get(&s0);
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.builds - s0.builds, 1);
    ST_EQ_INT(s1.disk_writes - s0.disk_writes, 1);
    ST_CHECK(access(path, R_OK) == 0);

    /* in memory: nothing at all */
    s0 = s1;
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.builds - s0.builds, 0);
    ST_EQ_INT(s1.disk_loads - s0.disk_loads, 0);

    /* as in a second run: loaded from disk, not built */
    skel_cl_forget_programs();
    s0 = s1;
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.builds - s0.builds, 0);
    ST_EQ_INT(s1.disk_loads - s0.disk_loads, 1);

    /* a flipped byte in the payload: reported, rebuilt, rewritten */
    ST_CHECK((f = fopen(path, "r+b")) != NULL);
    fseek(f, 100, SEEK_SET);
    fputc(fgetc(f) ^ 0x5a, f);
    fclose(f);
    skel_cl_forget_programs();
    s0 = s1;
    r = 0;
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.disk_rejects - s0.disk_rejects, 1);
    ST_EQ_INT(s1.builds - s0.builds, 1);
    ST_NEAR(r, 5000 * 0.4997f, 1e-2);

    /* a truncated file: the same */
    ST_CHECK(truncate(path, 20) == 0);
    skel_cl_forget_programs();
    s0 = s1;
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.disk_rejects - s0.disk_rejects, 1);
    ST_EQ_INT(s1.builds - s0.builds, 1);

    /* and the rewritten entry is good again; its load left no mark */
    skel_cl_forget_programs();
    s0 = s1;
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.disk_loads - s0.disk_loads, 1);
    ST_EQ_INT(s1.builds - s0.builds, 0);
    snprintf(mark, sizeof mark, "%s.loading", path);
    ST_CHECK(access(mark, F_OK) != 0);

    /* an entry whose load never returned in an earlier process (its mark
       names a process that is gone: the driver crashed on it) is deleted
       and rebuilt, not loaded again */
    ST_CHECK((dead = fork()) >= 0);
    if (dead == 0) _exit(0);
    ST_CHECK(waitpid(dead, NULL, 0) == dead);
    ST_CHECK((f = fopen(mark, "w")) != NULL);
    fprintf(f, "%ld\n", (long)dead);
    fclose(f);
    skel_cl_forget_programs();
    s0 = s1;
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.disk_loads - s0.disk_loads, 0);
    ST_EQ_INT(s1.disk_rejects - s0.disk_rejects, 1);
    ST_EQ_INT(s1.builds - s0.builds, 1);
    ST_CHECK(access(mark, F_OK) != 0);
    ST_NEAR(r, 5000 * 0.4997f, 1e-2);
    skel_cl_forget_programs();      /* the rebuilt entry loads */
    s0 = s1;
    ST_OK(skel_reduce(c_cache_sum, v, &r));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.disk_loads - s0.disk_loads, 1);
    ST_OK(skel_set_plan(c_cache_sum, NULL));
    skel_plan_free(p);
    skel_free(v);
}

SKEL_TEST(opencl_compile_error_gives_ecompile_with_the_log)
{
    skel_plan *p;
    skel_vec *a, *r;
    float before;
    need_cl();
    p = cl_plan(0);
    a = st_fvec(100, 1);
    ST_OK(skel_vec_new_fill(&r, SKEL_FLOAT, 100, &(float){7}));
    ST_OK(skel_set_plan(c_bad, p));
    ST_EQ_INT(skel_map1(c_bad, r, a), SKEL_ECOMPILE);
    ST_CHECK(strstr(skel_last_error(), "c_bad") != NULL);
    ST_CHECK(strstr(skel_last_error(), "did not compile") != NULL);
    ST_CHECK(strstr(skel_last_error(), "error") != NULL);   /* the build log */
    before = ((const float *)skel_read(r))[3];
    ST_EQ_INT(before, 7);                                   /* the result is untouched */
    ST_OK(skel_set_plan(c_bad, NULL));
    skel_plan_free(p);
    skel_free(a);
    skel_free(r);
}

/* x, y on the host; z = a*x + y; w = z^2; sum(w), dot(z, w); scan(w) in
   place; overlap: every operand crosses to the device once, and the
   result comes back once, when the host reads it. */
SKEL_TEST(opencl_chain_of_calls_moves_data_once)
{
    const size_t n = 100000;
    skel_plan *p;
    skel_vec *x, *y, *z, *w, *o;
    skel_cl_stats s0, s1;
    float a = 2, r1 = 0, r2 = 0;
    const float *h;
    skel_call c;
    need_cl();
    p = cl_plan(0);
    x = st_fvec(n, 1);
    y = st_fvec(n, 2);
    ST_OK(skel_vec_new(&z, SKEL_FLOAT, n));
    ST_OK(skel_vec_new(&w, SKEL_FLOAT, n));
    ST_OK(skel_vec_new(&o, SKEL_FLOAT, n));
    ST_OK(skel_set_plan(c_saxpy, p));
    ST_OK(skel_set_plan(c_square, p));
    ST_OK(skel_set_plan(c_sum, p));
    ST_OK(skel_set_plan(c_dot, p));
    ST_OK(skel_set_plan(c_psum, p));
    ST_OK(skel_set_plan(c_ov, p));
    skel_cl_stats_get(&s0);
    memset(&c, 0, sizeof c);
    c.out = z; c.in[0] = x; c.in[1] = y; c.uniform = &a;
    ST_OK(skel_run(c_saxpy, &c));
    ST_OK(skel_map1(c_square, w, z));
    ST_OK(skel_reduce(c_sum, w, &r1));
    ST_OK(skel_mapreduce2(c_dot, z, w, &r2));
    ST_OK(skel_overlap(c_ov, o, w, SKEL_EDGE_CYCLIC, NULL));
    ST_OK(skel_scan(c_psum, w, w));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.uploads - s0.uploads, 2);        /* x and y */
    ST_EQ_INT(s1.downloads - s0.downloads, 0);    /* nothing read yet */
    h = (const float *)skel_read(o);
    ST_CHECK(h != NULL);
    {   /* o[5] = w[4] + 2 w[5] + w[6] with w = (2x + y)^2 */
        const float *hx = (const float *)skel_read(x), *hy = (const float *)skel_read(y);
        float wv[3];
        int k;
        for (k = 0; k < 3; ++k) { float zz = 2 * hx[4 + k] + hy[4 + k]; wv[k] = zz * zz; }
        ST_NEAR(h[5], wv[0] + 2 * wv[1] + wv[2], 1e-5);
    }
    skel_read(o);
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.downloads - s0.downloads, 1);    /* o once; x and y were valid on the host */
    /* a host write invalidates the device copy: the next call uploads x again */
    ((float *)skel_write(x))[0] = 1;
    ST_OK(skel_run(c_saxpy, &c));
    skel_cl_stats_get(&s1);
    ST_EQ_INT(s1.uploads - s0.uploads, 3);
    ST_NEAR(((const float *)skel_read(z))[0], 2 * 1 + ((const float *)skel_read(y))[0], 1e-6);
    (void)r1; (void)r2;
    ST_OK(skel_set_plan(c_saxpy, NULL)); ST_OK(skel_set_plan(c_square, NULL)); ST_OK(skel_set_plan(c_sum, NULL));
    ST_OK(skel_set_plan(c_dot, NULL)); ST_OK(skel_set_plan(c_psum, NULL)); ST_OK(skel_set_plan(c_ov, NULL));
    skel_plan_free(p);
    skel_free(x); skel_free(y); skel_free(z); skel_free(w); skel_free(o);
}

SKEL_TEST(opencl_double_without_fp64_is_a_clear_error)
{
    skel_plan *p;
    skel_vec *v;
    double r = 0;
    skel_cl_device_info i;
    need_cl();
    p = cl_plan(0);
    ST_OK(skel_vec_new_fill(&v, SKEL_DOUBLE, 1000, &(double){0.5}));
    ST_OK(skel_set_plan(c_sumd, p));
    skel_cl_pretend_no_fp64(1);
    ST_EQ_INT(skel_reduce(c_sumd, v, &r), SKEL_EUNSUPPORTED);
    skel_cl_pretend_no_fp64(0);
    ST_CHECK(strstr(skel_last_error(), "cl_khr_fp64") != NULL);
    ST_CHECK(strstr(skel_last_error(), "c_sumd") != NULL);
    ST_CHECK(strstr(skel_last_error(), "a limit of this device") != NULL);
    ST_OK(skel_cl_device_get(skel_cl_device_selected(), &i));
    if (i.fp64) {
        ST_OK(skel_reduce(c_sumd, v, &r));
        ST_NEAR(r, 500.0, 1e-12);
    } else {
        ST_EQ_INT(skel_reduce(c_sumd, v, &r), SKEL_EUNSUPPORTED);
    }
    ST_OK(skel_set_plan(c_sumd, NULL));
    skel_plan_free(p);
    skel_free(v);
}

/* Sparse non-zeros over many tiles and work-groups: "first non-zero" and
   "last non-zero so far" only come out right when partial results are
   combined in index order. */
SKEL_TEST(opencl_noncommutative_reduce_and_scan_keep_index_order)
{
    static const int blocks[] = { 64, 256, 1024 };
    const size_t n = 300007;
    skel_vec *v, *out;
    int32_t *h, r, expect_first = 0, last = 0;
    const int32_t *s;
    size_t i;
    int b;
    uint64_t seed = st_seed("cl-order", n, 0);
    need_cl();
    ST_OK(skel_vec_new(&v, SKEL_INT32, n));
    ST_OK(skel_vec_new(&out, SKEL_INT32, n));
    h = (int32_t *)skel_write(v);
    for (i = 0; i < n; ++i) h[i] = st_rand_int(&seed, 0, 99) < 2 ? (int32_t)st_rand_int(&seed, 1, 1000000) : 0;
    for (i = 0; i < n && !expect_first; ++i) expect_first = h[i];
    for (b = 0; b < 3; ++b) {
        skel_plan *p;
        skel_cl_device_info di;
        ST_OK(skel_cl_device_get(skel_cl_device_selected(), &di));
        if ((size_t)blocks[b] > di.max_work_group) continue;
        st_context("block %d", blocks[b]);
        p = cl_plan(blocks[b]);
        ST_OK(skel_set_plan(c_firstnz, p));
        ST_OK(skel_set_plan(c_lastnz, p));
        r = -1;
        ST_OK(skel_reduce(c_firstnz, v, &r));
        ST_EQ_INT(r, expect_first);
        ST_OK(skel_scan(c_lastnz, out, v));
        s = (const int32_t *)skel_read(out);
        h = (int32_t *)skel_read(v);
        for (i = 0, last = 0; i < n; ++i) {
            if (h[i]) last = h[i];
            if (s[i] != last) ST_FAIL("scan[%zu] = %d, expected %d", i, (int)s[i], (int)last);
        }
        ST_OK(skel_set_plan(c_firstnz, NULL));
        ST_OK(skel_set_plan(c_lastnz, NULL));
        skel_plan_free(p);
    }
    st_context("");
    skel_free(v);
    skel_free(out);
}

/* The scan's tile counter and status words are kept between calls, each
   launch tagged with its epoch (_skel_dstate): scans of other sizes and
   types in a row, across the epoch's wrap at 2^30 and after a call left the
   state dirty, each match the reference.  A stale word taken for this
   launch's would show as a wrong prefix. */
SKEL_TEST(opencl_scans_in_a_row_keep_their_state_across_the_epoch_wrap)
{
    static const size_t sizes[] = { 1000003, 5, 300007, 77777, 1 };   /* the largest first */
    skel_cl_device_info di;
    skel_plan *p;
    int round;
    uint64_t seed = st_seed("cl-epoch", 0, 0);
    need_cl();
    ST_OK(skel_cl_device_get(skel_cl_device_selected(), &di));
    p = cl_plan(0);
    ST_OK(skel_set_plan(c_lastnz, p));
    ST_OK(skel_set_plan(c_psumd, p));
    for (round = 0; round < 12; ++round) {
        size_t n = sizes[round % 5], i;
        skel_vec *v, *out;
        st_context("round %d, n %zu", round, n);
        if (round == 1) _skel_cl_test_state(0x3ffffffdu, 0);   /* the state is allocated: 2 launches to the wrap */
        if (round == 8) _skel_cl_test_state(7, 1);              /* as after a call that failed mid-way */
        if (round % 2 == 0) {
            int32_t *h, last = 0;
            const int32_t *s;
            ST_OK(skel_vec_new(&v, SKEL_INT32, n));
            ST_OK(skel_vec_new(&out, SKEL_INT32, n));
            h = (int32_t *)skel_write(v);
            for (i = 0; i < n; ++i) h[i] = st_rand_int(&seed, 0, 9) < 2 ? (int32_t)st_rand_int(&seed, 1, 1000) : 0;
            ST_OK(skel_scan(c_lastnz, out, v));
            s = (const int32_t *)skel_read(out);
            h = (int32_t *)skel_read(v);
            for (i = 0; i < n; ++i) {
                if (h[i]) last = h[i];
                if (s[i] != last) ST_FAIL("scan[%zu] = %d, expected %d", i, (int)s[i], (int)last);
            }
        } else if (di.fp64) {   /* wider than 4 bytes: values in the carries, not the status word */
            double *h, sum = 0;
            const double *s;
            ST_OK(skel_vec_new(&v, SKEL_DOUBLE, n));
            ST_OK(skel_vec_new(&out, SKEL_DOUBLE, n));
            h = (double *)skel_write(v);
            for (i = 0; i < n; ++i) h[i] = (double)st_rand_int(&seed, 1, 9);
            ST_OK(skel_scan(c_psumd, out, v));
            s = (const double *)skel_read(out);
            h = (double *)skel_read(v);
            for (i = 0; i < n; ++i) {
                sum += h[i];
                if (s[i] != sum) ST_FAIL("scan[%zu] = %.1f, expected %.1f", i, s[i], sum);
            }
        } else continue;
        skel_free(v);
        skel_free(out);
    }
    st_context("");
    ST_OK(skel_set_plan(c_lastnz, NULL));
    ST_OK(skel_set_plan(c_psumd, NULL));
    skel_plan_free(p);
}

/* A freed container's buffer is kept and handed to the next container of
   about its size (skel_cl_stats.reuses): each container's results are its
   own, and a flushed container keeps its values on the host. */
SKEL_TEST(opencl_freed_buffers_are_reused_without_mixing_data)
{
    const size_t n = 100003;
    skel_plan *p;
    skel_vec *a, *a3, *r1, *r2, *r3;
    skel_cl_stats s0, s1;
    const float *h;
    size_t i;
    need_cl();
    p = cl_plan(0);
    ST_OK(skel_set_plan(c_square, p));
    a = st_fvec(n, 1);
    ST_OK(skel_vec_new(&r1, SKEL_FLOAT, n));
    ST_OK(skel_map1(c_square, r1, a));
    ST_OK(skel_flush(r1));                  /* its device buffer goes to the pool */
    skel_cl_stats_get(&s0);
    ST_OK(skel_vec_new(&r2, SKEL_FLOAT, n));
    ST_OK(skel_map1(c_square, r2, r1));     /* r1 uploaded again: into the kept buffer */
    ST_OK(skel_flush(r2));
    a3 = st_fvec(n - 7, 1);
    ST_OK(skel_vec_new(&r3, SKEL_FLOAT, n - 7));
    ST_OK(skel_map1(c_square, r3, a3));     /* a3 in r2's old buffer, 7 elements larger */
    skel_cl_stats_get(&s1);
    if (getenv("SKEL_CL_POOL_MB") && atoi(getenv("SKEL_CL_POOL_MB")) <= 0) ST_EQ_INT(s1.reuses - s0.reuses, 0);
    else ST_CHECK(s1.reuses - s0.reuses >= 2);     /* (more when earlier tests left buffers) */
    h = (const float *)skel_read(r1);
    for (i = 0; i < n; ++i) {
        float x = (float)((i * 37) % 101) * 0.01f;
        if (h[i] != x * x) ST_FAIL("r1[%zu] = %g, expected %g", i, h[i], x * x);
    }
    h = (const float *)skel_read(r2);
    for (i = 0; i < n; ++i) {
        float x = (float)((i * 37) % 101) * 0.01f;
        if (h[i] != (x * x) * (x * x)) ST_FAIL("r2[%zu] = %g, expected %g", i, h[i], (x * x) * (x * x));
    }
    h = (const float *)skel_read(r3);
    for (i = 0; i < n - 7; ++i) {
        float x = (float)((i * 37) % 101) * 0.01f;
        if (h[i] != x * x) ST_FAIL("r3[%zu] = %g, expected %g", i, h[i], x * x);
    }
    ST_OK(skel_set_plan(c_square, NULL));
    skel_plan_free(p);
    skel_free(a); skel_free(a3); skel_free(r1); skel_free(r2); skel_free(r3);
}

SKEL_TEST(opencl_overlap_wider_than_local_memory_is_unsupported)
{
    skel_plan *p;
    skel_vec *a, *r;
    need_cl();
    p = cl_plan(0);
    a = st_fvec(50000, 1);
    ST_OK(skel_vec_new(&r, SKEL_FLOAT, 50000));
    ST_OK(skel_set_plan(c_wideov, p));
    ST_EQ_INT(skel_overlap(c_wideov, r, a, SKEL_EDGE_CONSTANT, NULL), SKEL_EUNSUPPORTED);
    ST_CHECK(strstr(skel_last_error(), "local memory") != NULL);
    ST_CHECK(strstr(skel_last_error(), "a limit of the GPU backends") != NULL);
    ST_OK(skel_set_plan(c_wideov, NULL));
    skel_plan_free(p);
    skel_free(a);
    skel_free(r);
}

/* SKEL_FALLBACK: a call the GPU backend cannot run (here: every buffer
   allocation fails as if the device were full) returns the error and leaves
   the data alone without it, and runs on the CPU with it. */
SKEL_TEST(opencl_failed_call_falls_back_to_the_cpu_when_allowed)
{
    const size_t n = 5003;
    skel_plan *p;
    skel_vec *x, *y, *r;
    float a = 2, before = 0, err = 0;
    const float *hx, *hy, *hr;
    skel_call c;
    size_t i;
    int rc;
    need_cl();
    p = cl_plan(0);
    x = st_fvec(n, 1); y = st_fvec(n, 2); r = st_fvec(n, 3);
    before = ((const float *)skel_read(r))[5];
    ST_OK(skel_set_plan(c_saxpy, p));
    memset(&c, 0, sizeof c);
    c.in[0] = x; c.in[1] = y; c.out = r; c.uniform = &a;
    _skel_cl_test_fail_allocs(1);
    rc = skel_run(c_saxpy, &c);
    ST_CHECK(rc == SKEL_EDEVICE || rc == SKEL_ENOMEM);
    ST_NEAR(((const float *)skel_read(r))[5], before, 0);
    _skel_test_fallback(1);
    rc = skel_run(c_saxpy, &c);
    _skel_test_fallback(0);
    _skel_cl_test_fail_allocs(0);
    ST_OK(rc);
    hx = (const float *)skel_read(x); hy = (const float *)skel_read(y); hr = (const float *)skel_read(r);
    for (i = 0; i < n; ++i) {
        float want = a * hx[i] + hy[i], d = hr[i] > want ? hr[i] - want : want - hr[i];
        if (d > err) err = d;
    }
    ST_NEAR(err, 0, 1e-5);
    ST_CHECK(hr[5] != before);
    ST_OK(skel_set_plan(c_saxpy, NULL));
    skel_plan_free(p);
    skel_free(x); skel_free(y); skel_free(r);
}

/* The tuner's samples reuse the device buffers of its synthetic operands
   (marked stale, as a program's loop that writes new data with skel_write
   keeps them): a sample pays the uploads, not a new buffer, nor with
   SKEL_CUDA_PINNED the page-locking that lives as long as the buffer
   (releasing them every sample made the H100's page-locked cuda F 3-4
   times the program's call).  One point, two OpenCL variants. */
SKEL_TEST(opencl_tuner_samples_keep_device_buffers)
{
    skel_tune_desc d;
    skel_variant v[2];
    skel_plan *p;
    skel_plan_stats st;
    int before, tries, allocs = 0;
    need_cl();
    memset(v, 0, sizeof v);
    v[0].backend = v[1].backend = "opencl";
    v[0].block = 64;
    v[1].block = 128;
    memset(&d, 0, sizeof d);
    d.id = "cl-buffers";
    d.sk = c_square;
    d.dims = 1;
    d.lower[0] = d.upper[0] = 100003;
    d.variants = v;
    d.nvariants = 2;
    d.reps = 6;
    d.time_budget = 5;      /* (it takes 0.15 s, all 18 samples) */
    d.nofile = 1;
    d.quiet = 1;
    /* A sample that stalls over 4 ms (a loaded CI machine) ends the point's
       rounds after the first (_skel_contenders: the other variant is no
       contender then): too few samples to tell reuse from none, so such
       a tuning is repeated, up to 5 times. */
    for (tries = 0, st.measurements = 0; tries < 5 && st.measurements < 8; ++tries) {
        before = _skel_cl_test_allocs();
        ST_OK(skel_tune(&d, &p));
        skel_plan_stats_get(p, &st);
        allocs = _skel_cl_test_allocs() - before;
        if (st_verbose()) printf("  %d measurements, %d buffers\n", st.measurements, allocs);
        skel_plan_free(p);
    }
    ST_CHECK(st.measurements >= 8);
    /* a few sets of synthetic operands (the warm-up's, the point's): 6
       buffers for 18 samples here; one per sample before (22 for 18) */
    ST_CHECK(allocs < st.measurements / 2);
}
