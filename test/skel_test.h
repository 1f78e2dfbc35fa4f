/* skel_test.h - a small test harness for skel, stb style.

   USE
       In exactly one .c file (test/main.c):
           #define SKEL_TEST_IMPLEMENTATION
           #include "skel_test.h"
           int main(int argc, char **argv) { return st_main(argc, argv); }
       elsewhere just #include "skel_test.h".  Requires GCC or Clang: tests
       register themselves through __attribute__((constructor)).

   WRITING TESTS
       SKEL_TEST(map_cyclic_edge_reads_other_end) {
           ST_OK(skel_vec_new(&v, SKEL_FLOAT, 10));
           ST_EQ_INT(skel_size(v), 10);
           ...
       }
       SKEL_TEST_HIDDEN(name) registers a test that runs only when the filter
       is exactly its name (used for child processes, see test_errors.c).

   ASSERTIONS (each reports file:line and the values, then ends the test)
       ST_CHECK(cond)
       ST_EQ_INT(a, b)          as long long
       ST_EQ_UINT(a, b)         as unsigned long long
       ST_NEAR(a, b, rel)       |a-b| <= rel * max(|a|, |b|, 1)   (as double)
       ST_NEAR_ABS(a, b, rel, abs)  |a-b| <= rel * max(|a|, |b|) + abs
       ST_OK(status)            status == SKEL_OK, else prints the code's
                                name and skel_last_error()
       ST_FAIL(...)             printf-style failure
       ST_SKIP(...)             printf-style reason; the test counts as skipped
       st_context(fmt, ...)     text printed with every failure of the test
                                until changed ("" clears it), e.g. the type,
                                backend and size of a generated case

   A failed assertion ends the test with longjmp back to the runner, so it
   may sit in a helper function at any depth; what the test allocated is then
   leaked (only ever on failure).  Never assert inside an OpenMP region.

   COMMAND LINE
       skel_tests [-v] [--list] [FILTER]
       FILTER    run the tests whose name contains FILTER
       --list    print the test names and exit
       -v        print every test with its time (also SKEL_TEST_VERBOSE=1)
       SKEL_TEST_BACKENDS=seq,pool   run the per-variant cases only on
                 these backends (the ThreadSanitizer run: OpenMP's runtime
                 is not instrumented)
       SKEL_TEST_SHARD=i/n   run only every n-th of the tests chosen,
                 from the i-th (0 <= i < n): n processes with i = 0..n-1
                 run each test once between them (the NVRTC check runs its
                 child suite so, one process a CPU)
   The last line of output is "N passed, N failed" (", N skipped" when some
   were skipped); the exit status is 1 when a test failed.
*/
#ifndef SKEL_TEST_H
#define SKEL_TEST_H

#if !defined(__GNUC__)
#error "skel_test.h needs GCC or Clang (__attribute__((constructor)))"
#endif

#include <stddef.h>
#include <stdint.h>
#include "skel.h"

typedef void (*st_test_fn)(void);
void st_register(const char *name, st_test_fn fn, int hidden);
int st_main(int argc, char **argv);
const char *st_argv0(void);                   /* argv[0] of the test binary */
void st_context(const char *fmt, ...);        /* context for failure lines */
int st_verbose(void);

/* report helpers; all of them end the current test */
void st_fail_(const char *file, int line, const char *fmt, ...);
void st_skip_(const char *file, int line, const char *fmt, ...);
void st_check_(int ok, const char *file, int line, const char *expr);
void st_eq_int_(long long a, long long b, const char *file, int line, const char *ea, const char *eb);
void st_eq_uint_(unsigned long long a, unsigned long long b, const char *file, int line,
                 const char *ea, const char *eb);
void st_near_(double a, double b, double rel, double abs, const char *file, int line,
              const char *ea, const char *eb);
void st_ok_(int status, const char *file, int line, const char *expr);

/* ---- skel-specific helpers ---- */
/* xorshift64*: deterministic random numbers; seed must be non-zero */
uint64_t st_rand(uint64_t *state);
long long st_rand_int(uint64_t *state, long long lo, long long hi);   /* lo..hi inclusive */
uint64_t st_seed(const char *salt, size_t a, size_t b);               /* a non-zero seed */
/* a float vector of n deterministic values scale * (i*37 % 101) / 100 (ends the test on failure) */
skel_vec *st_fvec(size_t n, float scale);

/* The backend variants every skeleton case runs on: seq, omp with 1, 2 and
   3 threads when omp is available, and each GPU backend that is available.
   st_use_variant attaches a plan that forces variant i for every size. */
typedef struct st_variant {
    char label[32];         /* "seq", "omp/3", ... */
    skel_variant v;
    skel_plan *plan;
    int big;                /* also runs the beyond-the-cache sizes */
} st_variant;
int st_variant_count(void);
const st_variant *st_variant_get(int i);
void st_use_variant(skel_skeleton *sk, int i);
/* Bytes of a working set about twice the last-level cache (capped). */
size_t st_big_bytes(void);

/* Run this test binary again as a child process that runs only `test` (a
   SKEL_TEST_HIDDEN test), with env's "NAME=VALUE" entries added to the
   environment (replacing NAME; a bare "NAME" removes it; env may be NULL
   or end with NULL), killed after timeout_s seconds.  Its stdout and
   stderr go to output (size bytes, 0-terminated).  Returns its exit
   status, or -1 when it was killed or died of a signal.  The child is
   started with fork + execve only, as POSIX allows in a threaded parent. */
int st_child(const char *test, const char *const *env, int timeout_s, char *output, size_t size);
/* The child's output and status as one failure message unless it passed
   ("1 passed, 0 failed" and status 0). */
void st_child_ok_(const char *test, const char *const *env, int timeout_s, const char *file, int line);
#define ST_CHILD_OK(test, env, timeout_s) st_child_ok_((test), (env), (timeout_s), __FILE__, __LINE__)

/* A snapshot of every container of a call (inputs and out, each once) and
   of result_bytes of call.result: st_snap_changed says which changed since
   (NULL: none) and frees the copies. */
typedef struct st_snap {
    skel_vec *v[SKEL_MAX_IN + 1];
    void *copy[SKEL_MAX_IN + 1];
    size_t bytes[SKEL_MAX_IN + 1];
    int n;
    const void *result;
    unsigned char res[16];
    size_t result_bytes;
} st_snap;
void st_snap_take(st_snap *s, const skel_call *c, size_t result_bytes);
const char *st_snap_changed(st_snap *s);

/* Allocation failures on demand: test/main.c builds skel with
   SKEL_MALLOC / SKEL_REALLOC = st_malloc / st_realloc.  After
   st_alloc_fail_after(k), k more allocations succeed and every later one
   fails, until st_alloc_fail_after(-1).  st_alloc_count() counts them all. */
void *st_malloc(size_t n);
void *st_realloc(void *p, size_t n);
void st_alloc_fail_after(long k);
long st_alloc_count(void);

#define SKEL_TEST_(name, hidden)                                              \
    static void st_test_##name(void);                                         \
    __attribute__((constructor)) static void st_reg_##name(void)              \
    { st_register(#name, st_test_##name, hidden); }                           \
    static void st_test_##name(void)
#define SKEL_TEST(name) SKEL_TEST_(name, 0)
#define SKEL_TEST_HIDDEN(name) SKEL_TEST_(name, 1)

#define ST_CHECK(cond) st_check_(!!(cond), __FILE__, __LINE__, #cond)
#define ST_EQ_INT(a, b) st_eq_int_((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)
#define ST_EQ_UINT(a, b)                                                      \
    st_eq_uint_((unsigned long long)(a), (unsigned long long)(b), __FILE__, __LINE__, #a, #b)
#define ST_NEAR(a, b, rel) st_near_((double)(a), (double)(b), (rel), -1.0, __FILE__, __LINE__, #a, #b)
#define ST_NEAR_ABS(a, b, rel, abs)                                           \
    st_near_((double)(a), (double)(b), (rel), (abs), __FILE__, __LINE__, #a, #b)
#define ST_OK(status) st_ok_((status), __FILE__, __LINE__, #status)
#define ST_FAIL(...) st_fail_(__FILE__, __LINE__, __VA_ARGS__)
#define ST_SKIP(...) st_skip_(__FILE__, __LINE__, __VA_ARGS__)

#endif /* SKEL_TEST_H */

/* ====================================================================== */
#ifdef SKEL_TEST_IMPLEMENTATION
#ifndef SKEL_TEST_IMPLEMENTATION_ONCE
#define SKEL_TEST_IMPLEMENTATION_ONCE

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_POSIX_C_SOURCE)
#include <unistd.h>
#endif

typedef struct _st_test {
    const char *name;
    st_test_fn fn;
    int hidden;
} _st_test;

enum { _ST_PASS = 0, _ST_FAILED = 1, _ST_SKIPPED = 2 };

static _st_test *_st_tests;
static int _st_count, _st_cap;
static jmp_buf _st_jump;
static int _st_running;              /* a test is executing */
static const char *_st_current = "";
static char _st_ctx[256];
static const char *_st_arg0 = "skel_tests";
static int _st_verbose_flag;

void st_register(const char *name, st_test_fn fn, int hidden)
{
    if (_st_count == _st_cap) {
        int cap = _st_cap ? 2 * _st_cap : 64;
        _st_test *t = (_st_test *)realloc(_st_tests, (size_t)cap * sizeof *t);
        if (!t) { fprintf(stderr, "skel_test: out of memory\n"); exit(2); }
        _st_tests = t;
        _st_cap = cap;
    }
    _st_tests[_st_count].name = name;
    _st_tests[_st_count].fn = fn;
    _st_tests[_st_count].hidden = hidden;
    ++_st_count;
}

const char *st_argv0(void) { return _st_arg0; }
int st_verbose(void) { return _st_verbose_flag; }

void st_context(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(_st_ctx, sizeof _st_ctx, fmt, ap);
    va_end(ap);
}

static void _st_end(int how)
{
    fflush(stdout);
    if (_st_running) longjmp(_st_jump, how);
    exit(how == _ST_FAILED ? 1 : 0);   /* assertion outside a test: give up */
}

static void _st_vreport(const char *kind, const char *file, int line, const char *fmt, va_list ap)
{
    printf("%s:%d: %s %s", file, line, kind, _st_current);
    if (_st_ctx[0]) printf(" [%s]", _st_ctx);
    printf(": ");
    vprintf(fmt, ap);
    printf("\n");
}

void st_fail_(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    _st_vreport("FAIL", file, line, fmt, ap);
    va_end(ap);
    _st_end(_ST_FAILED);
}

void st_skip_(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    _st_vreport("SKIP", file, line, fmt, ap);
    va_end(ap);
    _st_end(_ST_SKIPPED);
}

void st_check_(int ok, const char *file, int line, const char *expr)
{
    if (!ok) st_fail_(file, line, "ST_CHECK(%s)", expr);
}

void st_eq_int_(long long a, long long b, const char *file, int line, const char *ea, const char *eb)
{
    if (a != b) st_fail_(file, line, "%s == %s: %lld != %lld", ea, eb, a, b);
}

void st_eq_uint_(unsigned long long a, unsigned long long b, const char *file, int line,
                 const char *ea, const char *eb)
{
    if (a != b) st_fail_(file, line, "%s == %s: %llu != %llu", ea, eb, a, b);
}

void st_near_(double a, double b, double rel, double abs, const char *file, int line,
              const char *ea, const char *eb)
{
    double d = fabs(a - b), m = fabs(a) > fabs(b) ? fabs(a) : fabs(b), tol;
    if (abs < 0) tol = rel * (m > 1.0 ? m : 1.0);    /* ST_NEAR: absolute floor = rel */
    else tol = rel * m + abs;
    if (!(d <= tol))   /* also catches NaN */
        st_fail_(file, line, "%s ~= %s: %.17g vs %.17g (diff %.3g > tol %.3g)", ea, eb, a, b, d, tol);
}

void st_ok_(int status, const char *file, int line, const char *expr)
{
    if (status != SKEL_OK) {
        const char *name = skel_error_string(status), *detail = skel_last_error();
        st_fail_(file, line, "%s returned %d (%s): %s", expr, status,
                 name ? name : "?", detail ? detail : "(no detail)");
    }
}

/* wall time when the includer asked for POSIX (test/main.c does), else CPU time */
static double _st_now(void)
{
#if defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 199309L
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* ---- skel-specific helpers ---- */
uint64_t st_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

long long st_rand_int(uint64_t *state, long long lo, long long hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;
    return lo + (long long)(st_rand(state) % span);
}

skel_vec *st_fvec(size_t n, float scale)
{
    skel_vec *v = NULL;
    float *p;
    size_t i;
    ST_OK(skel_vec_new(&v, SKEL_FLOAT, n));
    p = (float *)skel_write(v);
    for (i = 0; i < n; ++i) p[i] = scale * (float)((i * 37) % 101) * 0.01f;
    return v;
}

uint64_t st_seed(const char *salt, size_t a, size_t b)
{
    uint64_t h = 0xcbf29ce484222325ULL;   /* FNV-1a over salt, then mix a, b */
    for (; salt && *salt; ++salt) h = (h ^ (unsigned char)*salt) * 0x100000001b3ULL;
    h ^= (uint64_t)a * 0x9E3779B97F4A7C15ULL;
    h = (h ^ (h >> 31)) * 0xBF58476D1CE4E5B9ULL;
    h ^= (uint64_t)b * 0x94D049BB133111EBULL;
    h ^= h >> 29;
    return h ? h : 1;
}

static st_variant _st_variants[16];
static int _st_nvariants = -1;

static void _st_add_variant(const char *backend, int threads, int big)
{
    st_variant *v = &_st_variants[_st_nvariants];
    const char *only = getenv("SKEL_TEST_BACKENDS");
    int rc;
    if (only && *only) {    /* e.g. "seq,pool": the ThreadSanitizer run leaves out uninstrumented runtimes */
        size_t len = strlen(backend), k;
        for (;; only += k + 1) {
            k = strcspn(only, ",");
            if (k == len && strncmp(only, backend, len) == 0) break;
            if (!only[k]) return;
        }
    }
    memset(v, 0, sizeof *v);
    if (threads) snprintf(v->label, sizeof v->label, "%s/%d", backend, threads);
    else snprintf(v->label, sizeof v->label, "%s", backend);
    v->v.backend = backend;
    v->v.threads = threads;
    v->big = big;
    rc = skel_plan_new(&v->plan);
    if (rc == SKEL_OK) rc = skel_plan_add(v->plan, 0, SIZE_MAX, &v->v);
    if (rc != SKEL_OK) {
        printf("skel_test: cannot build a plan for %s: %s\n", v->label, skel_last_error());
        skel_plan_free(v->plan);   /* plans live to the end; reachable, never freed */
        return;
    }
    ++_st_nvariants;
}

static void _st_make_variants(void)
{
    int i, n;
    _st_nvariants = 0;
    _st_add_variant("seq", 0, 1);
    if (skel_backend_available("omp")) {
        _st_add_variant("omp", 1, 0);
        _st_add_variant("omp", 2, 0);
        _st_add_variant("omp", 3, 1);
    }
    if (skel_backend_available("pool")) {   /* 2: one worker; 4: more threads than CI's cores */
        _st_add_variant("pool", 2, 0);
        _st_add_variant("pool", 4, 1);
    }
    n = skel_backend_count();
    for (i = 0; i < n && _st_nvariants < 15; ++i) {
        const char *name = skel_backend_name(i);
        if (!name || strcmp(name, "seq") == 0 || strcmp(name, "omp") == 0 || strcmp(name, "pool") == 0) continue;
        if (skel_backend_available(name)) _st_add_variant(name, 0, 0);
    }
}

int st_variant_count(void)
{
    if (_st_nvariants < 0) _st_make_variants();
    return _st_nvariants;
}

const st_variant *st_variant_get(int i)
{
    return i >= 0 && i < st_variant_count() ? &_st_variants[i] : NULL;
}

void st_use_variant(skel_skeleton *sk, int i)
{
    const st_variant *v = st_variant_get(i);
    if (!v) st_fail_(__FILE__, __LINE__, "no variant %d", i);
    st_ok_(skel_set_plan(sk, v->plan), __FILE__, __LINE__, "skel_set_plan");
}

size_t st_big_bytes(void)
{
    /* sysfs first: it gives one cache instance; sysconf on some VMs reports
       the sum over all sockets (256 MiB here), which would make the run slow. */
    size_t llc = 0;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (f) {
        unsigned long kb = 0;
        char unit = 0;
        if (fscanf(f, "%lu%c", &kb, &unit) >= 1)
            llc = (size_t)kb * (unit == 'M' ? 1024 * 1024 : unit == 'K' ? 1024 : 1);
        fclose(f);
    }
#if defined(_POSIX_C_SOURCE) && defined(_SC_LEVEL3_CACHE_SIZE)
    if (!llc) {     /* (a VM without the sysfs entry reported 512 MiB: read as 32 at most) */
        long s = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (s > 0) llc = (size_t)s < ((size_t)32 << 20) ? (size_t)s : (size_t)32 << 20;
    }
#endif
    if (!llc) llc = (size_t)32 << 20;
    if (llc > ((size_t)64 << 20)) llc = (size_t)64 << 20;   /* keep the run short */
    return 2 * llc;
}

/* ---- child processes ---- */
#if defined(_POSIX_C_SOURCE)
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
extern char **environ;

/* the environment with env's entries applied (malloc'd array; strings shared) */
static char **_st_child_env(const char *const *env)
{
    size_t n = 0, m = 0, k = 0, i, j;
    char **out;
    while (environ[n]) ++n;
    while (env && env[m]) ++m;
    if (!(out = (char **)malloc((n + m + 1) * sizeof *out))) return NULL;
    for (i = 0; i < n; ++i) {
        int drop = 0;
        for (j = 0; j < m && !drop; ++j) {
            size_t len = strcspn(env[j], "=");
            drop = strncmp(environ[i], env[j], len) == 0 && environ[i][len] == '=';
        }
        if (!drop) out[k++] = environ[i];
    }
    for (j = 0; j < m; ++j)
        if (strchr(env[j], '=')) out[k++] = (char *)env[j];
    out[k] = NULL;
    return out;
}

int st_child(const char *test, const char *const *env, int timeout_s, char *output, size_t size)
{
    const char *exe = access("/proc/self/exe", X_OK) == 0 ? "/proc/self/exe" : _st_arg0;
    char *argv[3], **envp = _st_child_env(env);
    size_t used = 0;
    int fd[2], status = 0, done = 0;
    double t0 = _st_now();
    pid_t pid;
    output[0] = 0;
    if (!envp || pipe(fd) != 0) { free(envp); return -1; }
    argv[0] = (char *)exe; argv[1] = (char *)test; argv[2] = NULL;
    fflush(stdout);
    fflush(stderr);
    if ((pid = fork()) == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        execve(exe, argv, envp);
        _exit(127);
    }
    close(fd[1]);
    free(envp);
    if (pid < 0) { close(fd[0]); return -1; }
    fcntl(fd[0], F_SETFL, O_NONBLOCK);
    for (;;) {
        struct timespec nap = { 0, 5000000 };
        ssize_t got;
        while (used + 1 < size && (got = read(fd[0], output + used, size - 1 - used)) > 0) used += (size_t)got;
        if (used + 1 >= size) {     /* full: drain the rest so the child never blocks */
            char sink[4096];
            while (read(fd[0], sink, sizeof sink) > 0) {}
        }
        if (done) break;
        if (waitpid(pid, &status, WNOHANG) == pid) { done = 1; continue; }   /* one more drain */
        if (_st_now() - t0 > timeout_s) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            if (used + 1 < size) snprintf(output + used, size - used, "\n[killed after %d s]\n", timeout_s);
            close(fd[0]);
            return -1;
        }
        nanosleep(&nap, NULL);
    }
    output[used] = 0;
    close(fd[0]);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void st_child_ok_(const char *test, const char *const *env, int timeout_s, const char *file, int line)
{
    static char out[16384];
    int rc = st_child(test, env, timeout_s, out, sizeof out);
    if (rc != 0 || !strstr(out, "1 passed, 0 failed"))
        st_fail_(file, line, "child %s: status %d:\n%s", test, rc, out);
}
#endif

/* ---- snapshots ---- */
void st_snap_take(st_snap *s, const skel_call *c, size_t result_bytes)
{
    int i, k;
    memset(s, 0, sizeof *s);
    for (i = 0; i <= SKEL_MAX_IN; ++i) {
        skel_vec *v = i < SKEL_MAX_IN ? c->in[i] : c->out;
        const skel_type_info *ti;
        const void *data;
        if (!v) continue;
        for (k = 0; k < s->n && s->v[k] != v; ++k) {}
        if (k < s->n) continue;     /* the same container twice */
        ti = skel_type_get(skel_elem_type(v));
        s->v[s->n] = v;
        s->bytes[s->n] = skel_size(v) * (ti ? ti->size : 1);
        if (!(s->copy[s->n] = malloc(s->bytes[s->n] + 1)) || !(data = skel_read(v)))
            st_fail_(__FILE__, __LINE__, "snapshot: %s", skel_last_error());
        memcpy(s->copy[s->n], data, s->bytes[s->n]);
        ++s->n;
    }
    s->result = c->result;
    s->result_bytes = c->result && result_bytes <= sizeof s->res ? result_bytes : 0;
    if (s->result_bytes) memcpy(s->res, c->result, s->result_bytes);
}

const char *st_snap_changed(st_snap *s)
{
    static const char *names[] = { "container 0", "container 1", "container 2", "container 3", "container 4" };
    const char *what = NULL;
    int i;
    for (i = 0; i < s->n; ++i) {
        const void *now = skel_read(s->v[i]);
        if (!what && (!now || memcmp(s->copy[i], now, s->bytes[i]) != 0)) what = names[i];
        free(s->copy[i]);
        s->copy[i] = NULL;
    }
    if (!what && s->result_bytes && memcmp(s->res, s->result, s->result_bytes) != 0) what = "call.result";
    return what;
}

/* ---- allocation failures on demand ---- */
/* atomics: skel allocates from OpenMP threads too */
static int _st_alloc_armed;
static long _st_alloc_left, _st_alloc_n;

static int _st_alloc_ok(void)
{
    __atomic_add_fetch(&_st_alloc_n, 1, __ATOMIC_RELAXED);
    return !__atomic_load_n(&_st_alloc_armed, __ATOMIC_ACQUIRE) ||
           __atomic_sub_fetch(&_st_alloc_left, 1, __ATOMIC_RELAXED) >= 0;
}
void *st_malloc(size_t n) { return _st_alloc_ok() ? malloc(n) : NULL; }
void *st_realloc(void *p, size_t n) { return _st_alloc_ok() ? realloc(p, n) : NULL; }
void st_alloc_fail_after(long k)
{
    __atomic_store_n(&_st_alloc_left, k, __ATOMIC_RELAXED);
    __atomic_store_n(&_st_alloc_armed, k >= 0, __ATOMIC_RELEASE);
}
long st_alloc_count(void) { return __atomic_load_n(&_st_alloc_n, __ATOMIC_RELAXED); }

/* run one test; returns _ST_PASS, _ST_FAILED or _ST_SKIPPED */
static int _st_run_one(const _st_test *t)
{
    /* volatile: read after longjmp */
    volatile int how;
    double t0 = _st_now();
    _st_current = t->name;
    _st_ctx[0] = 0;
    _st_running = 1;
    how = setjmp(_st_jump);
    if (how == 0) {
        t->fn();
        how = _ST_PASS;
    }
    _st_running = 0;
    if (_st_verbose_flag)
        printf("%-4s %-60s %8.3f s\n", how == _ST_PASS ? "ok" : how == _ST_FAILED ? "FAIL" : "skip",
               t->name, _st_now() - t0);
    fflush(stdout);
    _st_current = "";
    return how;
}

int st_main(int argc, char **argv)
{
    const char *filter = NULL, *env = getenv("SKEL_TEST_VERBOSE"), *shard = getenv("SKEL_TEST_SHARD");
    int i, list = 0, passed = 0, failed = 0, skipped = 0, chosen = 0, part = 0, parts = 1;
    if (argc > 0 && argv[0]) _st_arg0 = argv[0];
    _st_verbose_flag = env && env[0] && strcmp(env, "0") != 0;
    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--list") == 0) list = 1;
        else if (strcmp(argv[i], "-v") == 0) _st_verbose_flag = 1;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [-v] [--list] [FILTER]\n"
                   "  FILTER  run only tests whose name contains FILTER\n"
                   "  --list  list the test names\n"
                   "  -v      print each test and its time\n", _st_arg0);
            return 0;
        } else if (!filter) filter = argv[i];
        else { fprintf(stderr, "%s: one filter only\n", _st_arg0); return 2; }
    }
    if (shard && *shard && (sscanf(shard, "%d/%d", &part, &parts) != 2 || parts < 1 || part < 0 || part >= parts)) {
        fprintf(stderr, "%s: SKEL_TEST_SHARD=%s: want i/n with 0 <= i < n\n", _st_arg0, shard);
        return 2;
    }
    if (shard) unsetenv("SKEL_TEST_SHARD");     /* tests that run this program again run their one test */
    for (i = 0; i < _st_count; ++i) {
        const _st_test *t = &_st_tests[i];
        int match = t->hidden ? filter && strcmp(filter, t->name) == 0
                              : !filter || strstr(t->name, filter) != NULL;
        if (list) {
            if (!t->hidden || match) printf("%s\n", t->name);
            continue;
        }
        if (!match || chosen++ % parts != part) continue;
        switch (_st_run_one(t)) {
        case _ST_PASS: ++passed; break;
        case _ST_FAILED: ++failed; break;
        default: ++skipped; break;
        }
    }
    if (list) return 0;
    if (skipped) printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else printf("%d passed, %d failed\n", passed, failed);
    fflush(stdout);
    free(_st_tests);
    _st_tests = NULL;
    return failed ? 1 : 0;
}

#endif /* SKEL_TEST_IMPLEMENTATION_ONCE */
#endif /* SKEL_TEST_IMPLEMENTATION */
