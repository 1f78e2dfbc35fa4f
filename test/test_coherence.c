/* The coherence layer: per-range validity of containers across memory
   spaces (host and OpenCL's device: PoCL in CI), checked against a model
   of what each space should hold, with the transfer counters; the map's
   invariant after every step; several threads reading one container into
   the same space at once.

   The OpenCL space stands in for any device space; tests that need it
   skip when OpenCL is absent (fail under SKEL_REQUIRE=opencl). */
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

/* private entry points (defined in the implementation) */
void *_skel_acquire_range(skel_vec *c, int s, int mode, size_t lo, size_t hi);
size_t _skel_missing(skel_vec *c, int s, size_t lo, size_t hi);
int _skel_test_map_ok(skel_vec *c);
int _skel_test_map_get(skel_vec *c, size_t *lo, unsigned *mask, int max);
int _skel_test_write_range(skel_vec *c, int s, size_t lo, size_t hi, const void *src);
int _skel_test_peek_range(skel_vec *c, int s, size_t lo, size_t hi, void *dst);
int skel_cl_register(void);

/* The memory space of the first OpenCL device, or skip (fail when
   SKEL_REQUIRE names opencl). */
static int cl_space(void)
{
    const char *req = getenv("SKEL_REQUIRE"), *only = getenv("SKEL_TEST_BACKENDS");
    skel_traffic t;
    int s;
    if (only && *only && !strstr(only, "opencl")) ST_SKIP("SKEL_TEST_BACKENDS=%s leaves OpenCL out", only);
    if (skel_cl_register() != SKEL_OK) {
        if (req && strstr(req, "opencl")) ST_FAIL("SKEL_REQUIRE=opencl but %s", skel_last_error());
        ST_SKIP("no OpenCL device here: %s", skel_last_error());
    }
    skel_traffic_get(&t);
    for (s = 1; s < t.spaces; ++s)
        if (strncmp(t.name[s], "opencl", 6) == 0) return s;
    ST_FAIL("no opencl memory space among %d", t.spaces);
    return -1;
}

static uint64_t moved(int from, int to)
{
    skel_traffic t;
    skel_traffic_get(&t);
    return t.bytes[from][to];
}

SKEL_TEST(map_starts_as_one_host_segment_and_reads_move_nothing)
{
    skel_vec *v;
    size_t lo[4];
    unsigned mask[4];
    skel_traffic a, b;
    ST_OK(skel_vec_new(&v, SKEL_FLOAT, 100));
    ST_EQ_INT(_skel_test_map_get(v, lo, mask, 4), 1);
    ST_EQ_UINT(mask[0], 1);
    skel_traffic_get(&a);
    ST_CHECK(skel_read(v) != NULL);
    ST_CHECK(skel_write(v) != NULL);
    skel_traffic_get(&b);
    ST_EQ_UINT(skel_traffic_total(&b), skel_traffic_total(&a));
    ST_CHECK(_skel_test_map_ok(v));
    skel_free(v);
}

SKEL_TEST(map_device_write_of_a_range_moves_only_that_range_back)
{
    int s = cl_space();
    size_t n = 1000, i, lo[8];
    unsigned mask[8];
    float *src = (float *)malloc(n * sizeof *src), part[100];
    const float *h;
    skel_vec *v;
    uint64_t up0, down0;
    for (i = 0; i < n; ++i) src[i] = (float)i * 0.5f + 1;
    ST_OK(skel_vec_new_copy(&v, SKEL_FLOAT, n, src));
    up0 = moved(0, s);
    ST_CHECK(_skel_acquire_range(v, s, 1, 0, n) != NULL);    /* the whole vector up once */
    ST_EQ_UINT(moved(0, s) - up0, n * sizeof(float));
    ST_CHECK(_skel_acquire_range(v, s, 1, 0, n) != NULL);    /* valid there now: nothing moves */
    ST_EQ_UINT(moved(0, s) - up0, n * sizeof(float));
    /* the device computes [100, 200): the host's copy of it is stale */
    for (i = 0; i < 100; ++i) part[i] = -(float)i;
    ST_OK(_skel_test_write_range(v, s, 100, 200, part));
    ST_CHECK(_skel_test_map_ok(v));
    ST_EQ_INT(_skel_test_map_get(v, lo, mask, 8), 3);
    ST_EQ_UINT(lo[1], 100);
    ST_EQ_UINT(lo[2], 200);
    ST_EQ_UINT(mask[0], 1u | (1u << s));
    ST_EQ_UINT(mask[1], 1u << s);
    ST_EQ_UINT(_skel_missing(v, 0, 0, n), 100);
    ST_EQ_UINT(_skel_missing(v, 0, 0, 100), 0);
    ST_EQ_UINT(_skel_missing(v, s, 0, n), 0);
    down0 = moved(s, 0);
    h = (const float *)skel_read(v);
    ST_CHECK(h != NULL);
    ST_EQ_UINT(moved(s, 0) - down0, 100 * sizeof(float));     /* only the range the device wrote */
    for (i = 0; i < n; ++i) ST_CHECK(h[i] == (i >= 100 && i < 200 ? -(float)(i - 100) : src[i]));
    ST_EQ_INT(_skel_test_map_get(v, lo, mask, 8), 1);         /* both hold everything again */
    ST_EQ_UINT(mask[0], 1u | (1u << s));
    skel_free(v);
    free(src);
}

/* A random walk of range reads and writes in both spaces against a model:
   model[i] is element i's newest value, holds[s][i] whether space s has
   it.  After every step: the map's promises, what skel_read sees, and
   that each read moved exactly the elements its space lacked. */
SKEL_TEST(map_random_range_reads_and_writes_follow_the_model)
{
    int s = cl_space(), sp[2], step, k;
    const size_t sizes[] = { 1, 2, 7, 97, 1000 };
    uint64_t rng = st_seed("coherence", 1, 2);
    sp[0] = 0;
    sp[1] = s;
    for (k = 0; k < (int)(sizeof sizes / sizeof *sizes); ++k) {
        size_t n = sizes[k], i;
        int32_t *model = (int32_t *)malloc(n * sizeof *model), *buf = (int32_t *)malloc(n * sizeof *buf);
        unsigned char *holds[2];
        skel_vec *v;
        holds[0] = (unsigned char *)malloc(n);
        holds[1] = (unsigned char *)malloc(n);
        for (i = 0; i < n; ++i) { model[i] = (int32_t)st_rand_int(&rng, -1000, 1000); holds[0][i] = 1; holds[1][i] = 0; }
        ST_OK(skel_vec_new_copy(&v, SKEL_INT32, n, model));
        for (step = 0; step < 60; ++step) {
            int w = (int)st_rand_int(&rng, 0, 1), op = (int)st_rand_int(&rng, 0, 2);
            size_t lo = (size_t)st_rand_int(&rng, 0, (long long)n - 1), hi = (size_t)st_rand_int(&rng, (long long)lo + 1, (long long)n);
            st_context("n=%zu step %d: %s [%zu, %zu) in space %d", n, step, op == 0 ? "write" : "read", lo, hi, sp[w]);
            if (op == 0) {      /* a write of fresh values in space w */
                for (i = lo; i < hi; ++i) buf[i] = model[i] = (int32_t)st_rand_int(&rng, -1000, 1000);
                ST_OK(_skel_test_write_range(v, sp[w], lo, hi, buf + lo));
                for (i = lo; i < hi; ++i) { holds[w][i] = 1; holds[!w][i] = 0; }
            } else {            /* a read: moves what w lacks, from the other space */
                size_t lack = 0;
                uint64_t before = moved(sp[!w], sp[w]);
                for (i = lo; i < hi; ++i) lack += !holds[w][i];
                ST_EQ_UINT(_skel_missing(v, sp[w], lo, hi), lack);
                ST_CHECK(_skel_acquire_range(v, sp[w], 1, lo, hi) != NULL);
                ST_EQ_UINT(moved(sp[!w], sp[w]) - before, lack * sizeof(int32_t));
                for (i = lo; i < hi; ++i) holds[w][i] = 1;
                ST_OK(_skel_test_peek_range(v, sp[w], lo, hi, buf + lo));
                for (i = lo; i < hi; ++i) ST_EQ_INT(buf[i], model[i]);
            }
            ST_CHECK(_skel_test_map_ok(v));
            for (i = 0; i < n; ++i) ST_CHECK(holds[0][i] || holds[1][i]);
        }
        {   /* the host sees the newest data of every element */
            const int32_t *h = (const int32_t *)skel_read(v);
            ST_CHECK(h != NULL);
            for (i = 0; i < n; ++i) ST_EQ_INT(h[i], model[i]);
        }
        skel_free(v);
        free(model); free(buf); free(holds[0]); free(holds[1]);
    }
    st_context("");
}

SKEL_TEST(map_flush_and_write_leave_one_host_segment)
{
    int s = cl_space();
    size_t lo[4];
    unsigned mask[4];
    float x[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    skel_vec *v;
    ST_OK(skel_vec_new(&v, SKEL_FLOAT, 10));
    ST_OK(_skel_test_write_range(v, s, 3, 6, x));
    ST_OK(skel_flush(v));
    ST_EQ_INT(_skel_test_map_get(v, lo, mask, 4), 1);
    ST_EQ_UINT(mask[0], 1);
    ST_CHECK(((const float *)skel_read(v))[4] == 2);
    ST_OK(_skel_test_write_range(v, s, 0, 10, x));
    ST_CHECK(skel_write(v) != NULL);
    ST_EQ_INT(_skel_test_map_get(v, lo, mask, 4), 1);
    ST_EQ_UINT(mask[0], 1);
    ST_CHECK(((const float *)skel_read(v))[9] == 10);
    skel_free(v);
}

/* Several threads read overlapping ranges of one container into the same
   space at once: every range arrives once (no element moves twice) and
   every thread sees the right values. */
typedef struct coh_reader {
    skel_vec *v;
    int space, ok;
    size_t lo, hi;
} coh_reader;

static void *coh_read(void *p)
{
    coh_reader *r = (coh_reader *)p;
    int32_t *buf = (int32_t *)malloc((r->hi - r->lo + 1) * sizeof *buf);
    size_t i;
    r->ok = buf && _skel_acquire_range(r->v, r->space, 1, r->lo, r->hi) &&
            _skel_test_peek_range(r->v, r->space, r->lo, r->hi, buf) == SKEL_OK;
    for (i = r->lo; r->ok && i < r->hi; ++i) r->ok = buf[i - r->lo] == (int32_t)(i * 7 + 3);
    free(buf);
    return NULL;
}

SKEL_TEST(map_threads_reading_ranges_into_one_space_copy_each_element_once)
{
    int s = cl_space(), t, round;
    size_t n = 4096, i;
    for (round = 0; round < 4; ++round) {
        coh_reader r[8];
        pthread_t th[8];
        skel_vec *v;
        int32_t *h;
        uint64_t before;
        ST_OK(skel_vec_new(&v, SKEL_INT32, n));
        h = (int32_t *)skel_write(v);
        for (i = 0; i < n; ++i) h[i] = (int32_t)(i * 7 + 3);
        before = moved(0, s);
        for (t = 0; t < 8; ++t) {
            r[t].v = v;
            r[t].space = s;
            r[t].lo = (size_t)t * 400;
            r[t].hi = r[t].lo + 1200 + (size_t)round * 100;
            if (r[t].hi > n) r[t].hi = n;
            ST_CHECK(pthread_create(&th[t], NULL, coh_read, &r[t]) == 0);
        }
        for (t = 0; t < 8; ++t) pthread_join(th[t], NULL);
        for (t = 0; t < 8; ++t) ST_CHECK(r[t].ok);
        /* the ranges overlap: their union is [0, the last one's end), each element once */
        ST_EQ_UINT(moved(0, s) - before, r[7].hi * sizeof(int32_t));
        ST_CHECK(_skel_test_map_ok(v));
        ST_EQ_UINT(_skel_missing(v, s, 0, n), n - r[7].hi);
        skel_free(v);
    }
}

/* ---- a space's pin op (CUDA's page-locking) through the coherence layer ----
   A stand-in device space (host memory as its "device") whose pin op
   records each ask and answers 1 at a buffer's third: the layer must ask
   before each copy to or from that space, with the container's own host
   pointer (not the copied range's) and the copy's bytes, stop asking once
   the answer is 1, and ask again for the buffer a released one is
   replaced by.  Copies move the same values throughout.  In a child: a
   registered space stays for the process. */
typedef struct { char *mem; int asks; } fake_buf;
static struct { int asks, releases; const void *host[16]; size_t bytes[16]; } fake;
static int fake_alloc(void *ctx, size_t bytes, void **dev)
{
    fake_buf *b = (fake_buf *)calloc(1, sizeof *b);
    (void)ctx;
    if (!b || !(b->mem = (char *)malloc(bytes))) { free(b); return SKEL_ENOMEM; }
    *dev = b;
    return SKEL_OK;
}
static void fake_release(void *ctx, void *dev)
{
    (void)ctx;
    free(((fake_buf *)dev)->mem);
    free(dev);
    fake.releases++;
}
static int fake_upload(void *ctx, void *dev, size_t off, const void *host, size_t bytes)
{
    (void)ctx;
    memcpy(((fake_buf *)dev)->mem + off, host, bytes);
    return SKEL_OK;
}
static int fake_download(void *ctx, void *host, const void *dev, size_t off, size_t bytes)
{
    (void)ctx;
    memcpy(host, ((const fake_buf *)dev)->mem + off, bytes);
    return SKEL_OK;
}
static int fake_wait(void *ctx) { (void)ctx; return SKEL_OK; }
static int fake_pin(void *ctx, void *dev, void *host, size_t bytes)
{
    (void)ctx;
    if (fake.asks < 16) { fake.host[fake.asks] = host; fake.bytes[fake.asks] = bytes; }
    fake.asks++;
    return ++((fake_buf *)dev)->asks >= 3;
}

static void expect_asks(int asks, const void *host, size_t bytes)
{
    ST_EQ_INT(fake.asks, asks);
    ST_CHECK(fake.host[asks - 1] == host);
    ST_EQ_INT((long long)fake.bytes[asks - 1], (long long)bytes);
}

SKEL_TEST_HIDDEN(child_coherence_asks_a_space_to_pin_until_it_answers)
{
    const size_t n = 100003;
    uint64_t rng = st_seed("pin-op", 1, 2);
    _skel_space sp;
    skel_vec *c;
    int32_t *h, got[4000];
    const void *base;
    size_t i;
    int s;
    memset(&sp, 0, sizeof sp);
    sp.name = "fake:0";
    sp.alloc = fake_alloc; sp.release = fake_release;
    sp.upload = fake_upload; sp.download = fake_download;
    sp.wait = fake_wait; sp.pin = fake_pin;
    ST_CHECK((s = _skel_space_register(&sp)) > 0);
    ST_OK(skel_vec_new(&c, SKEL_INT32, n));
    ST_CHECK((h = (int32_t *)skel_write(c)) != NULL);
    for (i = 0; i < n; ++i) h[i] = (int32_t)st_rand_int(&rng, -1000000, 1000000);
    base = h;
    ST_CHECK(_skel_acquire_range(c, s, 1, 1000, 5000) != NULL);   /* (1: read) a range: the container's pointer */
    expect_asks(1, base, 4000 * sizeof(int32_t));
    ST_OK(_skel_test_peek_range(c, s, 1000, 5000, got));
    ST_CHECK(memcmp(got, h + 1000, sizeof got) == 0);
    ST_CHECK(_skel_acquire_range(c, s, 1, 0, n) != NULL);                       /* the rest: two copies */
    ST_EQ_INT(fake.asks, 3);
    ST_CHECK(fake.host[1] == base && fake.host[2] == base);
    ST_EQ_INT((long long)(fake.bytes[1] + fake.bytes[2]), (long long)((n - 4000) * sizeof(int32_t)));
    ST_CHECK((h = (int32_t *)skel_write(c)) != NULL && (const void *)h == base);
    h[7] = 7;
    ST_CHECK(_skel_acquire_range(c, s, 1, 0, n) != NULL);                       /* answered 1: not asked again */
    ST_EQ_INT(fake.asks, 3);
    for (i = 0; i < 4000; ++i) got[i] = -(int32_t)i;
    ST_OK(_skel_test_write_range(c, s, 50000, 54000, got));
    ST_CHECK((h = (int32_t *)skel_read(c)) != NULL);                         /* a download: not asked */
    ST_EQ_INT(fake.asks, 3);
    ST_CHECK(h[7] == 7 && h[50000] == 0 && h[53999] == -3999);
    ST_OK(skel_flush(c));                                                    /* the buffer goes ... */
    ST_EQ_INT(fake.releases, 1);
    ST_CHECK(_skel_acquire_range(c, s, 1, 0, n) != NULL);                       /* ... a new one is asked again */
    expect_asks(4, base, n * sizeof(int32_t));
    ST_OK(_skel_test_peek_range(c, s, 50000, 54000, got));
    ST_CHECK(got[0] == 0 && got[3999] == -3999);
    skel_free(c);
    ST_EQ_INT(fake.releases, 2);
}

SKEL_TEST(coherence_asks_a_space_to_pin_until_it_answers)
{
    ST_CHILD_OK("child_coherence_asks_a_space_to_pin_until_it_answers", NULL, 60);
}

/* Host copies of 64 KiB or more own their pages (page-aligned, no other
   container's data on their last page), so that a space can page-lock
   each one: the driver refuses a lock overlapping another. */
SKEL_TEST(coherence_large_host_copies_own_their_pages)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    skel_vec *v[6];
    const size_t n[6] = { 16384, 16385, 100003, 1 << 20, 16383, 7 };     /* floats: 64 KiB and up, then smaller */
    size_t i, j;
    for (i = 0; i < 6; ++i) ST_OK(skel_vec_new(&v[i], SKEL_FLOAT, n[i]));
    for (i = 0; i < 4; ++i) {
        uintptr_t a = (uintptr_t)skel_read(v[i]), end = a + n[i] * sizeof(float);
        ST_EQ_INT((long long)(a % page), 0);
        for (j = 0; j < 6; ++j) {   /* no other container starts within its pages */
            uintptr_t b = (uintptr_t)skel_read(v[j]);
            if (j != i && b >= a && b < ((end + page - 1) & ~(uintptr_t)(page - 1))) ST_FAIL("%zu inside %zu's pages", j, i);
        }
    }
    for (i = 0; i < 6; ++i) skel_free(v[i]);
}
