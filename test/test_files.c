/* Files skel reads and writes (plan files, the kernel cache): written
   through fresh temporary files that never follow a planted link, never
   interleaved, read only when regular (a FIFO never blocks), one file per
   tuning id however long or odd the id, and every failure named. */
#define _POSIX_C_SOURCE 200809L     /* mkdtemp, mkfifo, symlink, setenv */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "skel.h"
#include "skel_test.h"

/* skel.h's private file helpers (not static: see its base section) */
int _skel_write_atomic(const char *path, const void *a, size_t na, const void *b, size_t nb, int sync);
unsigned char *_skel_read_file(const char *path, size_t *size);
const char *_skel_cache_dir(void);

SKEL_FUNC(float, f_twice, (float a), return 2 * a;)
SKEL_MAP(f_map, f_twice, float, 1)

/* ---- helpers ---- */
static void fresh_dir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/skel-files-XXXXXX");
    if (!mkdtemp(dir)) ST_FAIL("mkdtemp failed");
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) ST_FAIL("%s failed", cmd);
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ST_CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

static int file_holds(const char *path, const char *text)
{
    char buf[256];
    size_t n;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return strcmp(buf, text) == 0;
}

/* files in dir whose name contains needle */
static int count_files(const char *dir, const char *needle)
{
    char cmd[600], line[600];
    int n = 0;
    FILE *f;
    snprintf(cmd, sizeof cmd, "ls -a '%s'", dir);
    ST_CHECK((f = popen(cmd, "r")) != NULL);
    while (fgets(line, sizeof line, f)) n += strstr(line, needle) != NULL;
    pclose(f);
    return n;
}

/* a cost model: A wins below the crossover, B above */
typedef struct cmodel { double cross; int calls; } cmodel;
static double cmodel_cost(const skel_variant *v, const size_t *pt, double *once, void *user)
{
    cmodel *m = (cmodel *)user;
    double n = (double)pt[0];
    (void)once;
    __atomic_add_fetch(&m->calls, 1, __ATOMIC_RELAXED);
    return v->backend[0] == 'A' ? 1e-6 * n : 1e-6 * m->cross + 1e-9 * n;
}
static const skel_variant AB[] = { { .backend = "A" }, { .backend = "B" } };

static skel_tune_desc cdesc(const char *id, const char *dir, cmodel *m)
{
    skel_tune_desc d;
    memset(&d, 0, sizeof d);
    d.id = id;
    d.dims = 1;
    d.lower[0] = 10;
    d.upper[0] = 1000000;
    d.cost = cmodel_cost;
    d.user = m;
    d.variants = AB;
    d.nvariants = 2;
    d.dir = dir;
    d.quiet = 1;
    d.max_depth = 6;
    return d;
}

static char pick(const skel_plan *p, size_t n)
{
    skel_variant v;
    ST_OK(skel_plan_lookup(p, n, &v));
    return v.backend[0];
}

/* log lines collected from skel_set_log */
static char logged[8192];
static void log_keep(int level, const char *msg, void *user)
{
    size_t used = strlen(logged);
    (void)level; (void)user;
    snprintf(logged + used, sizeof logged - used, "%s\n", msg);
}

/* ---- item: temporary files never follow a planted link ---- */
SKEL_TEST(files_plan_save_never_writes_through_a_planted_link)
{
    char dir[64], path[256], victim[256], link[300];
    cmodel m = { 5000, 0 };
    skel_tune_desc d;
    skel_plan *p, *q;
    int k;
    fresh_dir(dir, sizeof dir);
    d = cdesc("linked", dir, &m);
    d.nofile = 1;
    ST_OK(skel_tune(&d, &p));
    snprintf(path, sizeof path, "%s/linked.plan", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    put_file(victim, "secret");
    /* links where skel used to put its temporary files: <path>.tmp.<pid>
       (plans) and <path>.tmp.<pid>.<n> (caches) */
    snprintf(link, sizeof link, "%s.tmp.%ld", path, (long)getpid());
    ST_CHECK(symlink(victim, link) == 0);
    for (k = 0; k < 200; ++k) {
        snprintf(link, sizeof link, "%s.tmp.%ld.%d", path, (long)getpid(), k);
        ST_CHECK(symlink(victim, link) == 0);
    }
    ST_OK(skel_plan_save(p, path));
    ST_CHECK(file_holds(victim, "secret"));
    ST_OK(skel_plan_load(&q, path));
    ST_EQ_INT(pick(q, 10), 'A');
    skel_plan_free(q);
    ST_OK(_skel_write_atomic(path, "entry", 5, NULL, 0, 0));       /* the cache's writer */
    ST_CHECK(file_holds(victim, "secret"));
    ST_CHECK(file_holds(path, "entry"));
    ST_EQ_INT(count_files(dir, ".tmp."), 201);                      /* only the planted links */
    skel_plan_free(p);
    remove_dir(dir);
}

/* ---- item: threads tuning one id never leave a broken file ---- */
typedef struct tune_job { skel_tune_desc d; int rc; } tune_job;
static void *tune_thread(void *p)
{
    tune_job *j = (tune_job *)p;
    skel_plan *plan = NULL;
    j->rc = skel_tune(&j->d, &plan);
    skel_plan_free(plan);
    return NULL;
}

SKEL_TEST(files_eight_threads_tuning_one_id_leave_a_valid_plan_file)
{
    enum { T = 8, ROUNDS = 20 };
    char dir[64], path[256];
    cmodel m[T];
    tune_job jobs[T];
    pthread_t th[T];
    skel_plan *q;
    int r, i;
    fresh_dir(dir, sizeof dir);
    setenv("SKEL_RETUNE", "1", 1);      /* every thread tunes and writes */
    for (r = 0; r < ROUNDS; ++r) {
        for (i = 0; i < T; ++i) {     /* trees of different sizes, as real measurements give */
            m[i].cross = 1000.0 * (i + 1);
            m[i].calls = 0;
            jobs[i].d = cdesc("shared-id", dir, &m[i]);
            jobs[i].d.min_depth = i % 4;
            jobs[i].d.max_depth = 8 + i % 3;
            jobs[i].rc = -100;
            ST_CHECK(pthread_create(&th[i], NULL, tune_thread, &jobs[i]) == 0);
        }
        for (i = 0; i < T; ++i) pthread_join(th[i], NULL);
        for (i = 0; i < T; ++i) ST_OK(jobs[i].rc);
        ST_OK(skel_plan_path("shared-id", dir, path, sizeof path));
        if (skel_plan_load(&q, path) != SKEL_OK) {
            unsetenv("SKEL_RETUNE");
            ST_FAIL("round %d: the plan file does not load: %s", r, skel_last_error());
        }
        ST_EQ_INT(pick(q, 20), 'A');
        skel_plan_free(q);
    }
    unsetenv("SKEL_RETUNE");
    ST_EQ_INT(count_files(dir, ".tmp."), 0);
    remove_dir(dir);
}

/* ---- item: a FIFO (or any non-regular file) never blocks a read ---- */
SKEL_TEST_HIDDEN(child_files_fifo)
{
    char dir[64], path[256], sub[300];
    cmodel m = { 5000, 0 };
    skel_tune_desc d;
    skel_plan *p = NULL, *q;
    size_t n;
    fresh_dir(dir, sizeof dir);
    ST_OK(skel_plan_path("fifo", dir, path, sizeof path));
    ST_CHECK(mkfifo(path, 0600) == 0);
    ST_EQ_INT(skel_plan_load(&q, path), SKEL_EIO);
    ST_CHECK(strstr(skel_last_error(), "not a regular file") != NULL);
    ST_CHECK(_skel_read_file(path, &n) == NULL);                    /* the caches' reader */
    d = cdesc("fifo", dir, &m);
    ST_OK(skel_tune(&d, &p));                                        /* tunes, then replaces it */
    ST_CHECK(m.calls > 0);
    ST_OK(skel_plan_load(&q, path));
    skel_plan_free(q);
    skel_plan_free(p);
    snprintf(sub, sizeof sub, "%s/dir.plan", dir);                   /* a directory */
    ST_CHECK(mkdir(sub, 0700) == 0);
    ST_EQ_INT(skel_plan_load(&q, sub), SKEL_EIO);
    ST_CHECK(strstr(skel_last_error(), "not a regular file") != NULL);
    remove_dir(dir);
}

SKEL_TEST(files_a_fifo_at_a_plan_or_cache_path_is_refused_at_once)
{
    ST_CHILD_OK("child_files_fifo", NULL, 30);
}

/* ---- item: every id gets its own file; the whole id is stored ---- */
SKEL_TEST(files_ids_that_share_a_prefix_or_a_replaced_character_get_their_own_files)
{
    char dir[64], a[256], b[256], la[400], lb[400], id[1100];
    cmodel ma = { 300, 0 }, mb = { 200000, 0 };
    skel_tune_desc d;
    skel_plan *p;
    skel_plan_stats st;
    int k, calls;
    fresh_dir(dir, sizeof dir);
    ST_OK(skel_plan_path("a/b", dir, a, sizeof a));
    ST_OK(skel_plan_path("a_b", dir, b, sizeof b));
    ST_CHECK(strcmp(a, b) != 0);
    ST_OK(skel_plan_path("plain-id.v2", dir, a, sizeof a));            /* unchanged names stay readable */
    ST_CHECK(strstr(a, "/plain-id.v2.plan") != NULL);

    /* two ids of 150 characters that differ only at the end */
    for (k = 0; k < 149; ++k) la[k] = lb[k] = (char)('a' + k % 26);
    la[149] = 'X'; lb[149] = 'Y'; la[150] = lb[150] = 0;
    ST_OK(skel_plan_path(la, dir, a, sizeof a));
    ST_OK(skel_plan_path(lb, dir, b, sizeof b));
    ST_CHECK(strcmp(a, b) != 0);
    ST_CHECK(strlen(strrchr(a, '/')) < 110);
    d = cdesc(la, dir, &ma);
    ST_OK(skel_tune(&d, &p));
    skel_plan_free(p);
    d = cdesc(lb, dir, &mb);
    ST_OK(skel_tune(&d, &p));
    ST_CHECK(mb.calls > 0);                     /* tuned, not the other id's plan */
    ST_EQ_INT(pick(p, 1000), 'A');              /* B's model: A wins up to 200000 */
    skel_plan_free(p);
    calls = ma.calls;
    d = cdesc(la, dir, &ma);
    ST_OK(skel_tune(&d, &p));                   /* its own file, loaded */
    ST_EQ_INT(ma.calls, calls);
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.loaded, 1);
    ST_EQ_INT(pick(p, 1000), 'B');              /* A's model: B wins from 300 */
    skel_plan_free(p);

    memset(id, 'i', sizeof id - 1);             /* the longest id a plan file stores, and one more */
    id[1023] = 0;
    d = cdesc(id, dir, &ma);
    ST_OK(skel_tune(&d, &p));
    skel_plan_free(p);
    ST_OK(skel_tune(&d, &p));
    ST_OK(skel_plan_stats_get(p, &st));
    ST_EQ_INT(st.loaded, 1);
    skel_plan_free(p);
    id[1023] = 'i'; id[1024] = 0;
    d = cdesc(id, dir, &ma);
    ST_EQ_INT(skel_tune(&d, &p), SKEL_EINVAL);
    ST_CHECK(strstr(skel_last_error(), "1024 characters") != NULL);
    remove_dir(dir);
}

/* ---- item: error codes and messages ---- */
SKEL_TEST(files_plan_load_out_of_memory_is_enomem)
{
    char dir[64], path[256];
    cmodel m = { 5000, 0 };
    skel_tune_desc d;
    skel_plan *p;
    long k;
    int rc, failures = 0;
    fresh_dir(dir, sizeof dir);
    d = cdesc("oom", dir, &m);
    ST_OK(skel_tune(&d, &p));
    skel_plan_free(p);
    ST_OK(skel_plan_path("oom", dir, path, sizeof path));
    for (k = 0;; ++k) {
        st_alloc_fail_after(k);
        rc = skel_plan_load(&p, path);
        st_alloc_fail_after(-1);
        if (rc == SKEL_OK) break;
        if (rc != SKEL_ENOMEM) ST_FAIL("allocation %ld failed: %s (%s)", k, skel_error_string(rc), skel_last_error());
        ST_CHECK(p == NULL);
        ++failures;
    }
    ST_CHECK(failures >= 5);
    skel_plan_free(p);
    remove_dir(dir);
}

SKEL_TEST(files_a_plan_folder_that_cannot_be_made_is_logged_with_its_reason)
{
    char dir[64], file[256], sub[300];
    cmodel m = { 5000, 0 };
    skel_tune_desc d;
    skel_plan *p;
    fresh_dir(dir, sizeof dir);
    snprintf(file, sizeof file, "%s/file", dir);
    put_file(file, "x");
    snprintf(sub, sizeof sub, "%s/sub", file);
    d = cdesc("nofolder", sub, &m);
    logged[0] = 0;
    skel_set_log(log_keep, NULL);
    ST_OK(skel_tune(&d, &p));               /* tuned; the file could not be saved */
    skel_set_log(NULL, NULL);
    skel_plan_free(p);
    if (!strstr(logged, "plan not saved") || strstr(logged, "()") ||
        !(strstr(logged, "Not a directory") || strstr(logged, "in the way")))
        ST_FAIL("log: %s", logged);
    remove_dir(dir);
}

SKEL_TEST(files_cache_dir_that_is_a_file_or_too_long_is_refused_by_name)
{
    char dir[64], file[256], saved[1200] = "", *env = getenv("SKEL_CACHE_DIR"), longdir[1200];
    int had = env != NULL;
    fresh_dir(dir, sizeof dir);
    if (env) snprintf(saved, sizeof saved, "%s", env);
    snprintf(file, sizeof file, "%s/file", dir);
    put_file(file, "x");
    logged[0] = 0;
    skel_set_log(log_keep, NULL);
    setenv("SKEL_CACHE_DIR", file, 1);
    ST_CHECK(_skel_cache_dir()[0] == 0);
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[0] = '/';
    longdir[1100] = 0;
    setenv("SKEL_CACHE_DIR", longdir, 1);
    ST_CHECK(_skel_cache_dir()[0] == 0);
    skel_set_log(NULL, NULL);
    if (had) setenv("SKEL_CACHE_DIR", saved, 1);
    else unsetenv("SKEL_CACHE_DIR");
    _skel_cache_dir();
    if (!strstr(logged, "is not a directory") || strstr(logged, "not writable") || !strstr(logged, "1100 characters"))
        ST_FAIL("log: %s", logged);
    remove_dir(dir);
}

SKEL_TEST(files_tuning_without_memory_for_its_operands_says_so)
{
    skel_tune_desc d;
    skel_plan *p;
    memset(&d, 0, sizeof d);
    d.id = "huge";
    d.sk = f_map;
    d.lower[0] = d.upper[0] = (size_t)1 << 50;     /* 4 PiB of floats */
    d.nofile = 1;
    d.quiet = 1;
    ST_EQ_INT(skel_tune(&d, &p), SKEL_ENOMEM);
    if (!strstr(skel_last_error(), "skel_tune huge") || !strstr(skel_last_error(), "synthetic"))
        ST_FAIL("last error: %s", skel_last_error());
}
