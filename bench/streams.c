/* streams.c - seed 001's image-convolution benchmark on skel's streams.

   A stream of images (default 64 of 4096 x 4096 floats).  Stage r makes
   each image on the CPU (a pattern plus hashed noise: "read"); stage p
   filters it with a 5x5 and then an 11x11 convolution (SKEL_CONV2D, edges
   0), on a CPU worker (its calls run on its own core: seq) or on a GPU
   worker (its calls run on its GPU, the result read back to the host).
   Configurations, worker counts chosen by hand (seed 001, Fig. 5-8):
       Farm(r) | Farm(p)    r on CPU workers, p on GPU workers
       Farm(r) | p          p one GPU worker (a farm of one)
       Farm(r | p)          copies of r | p, p on the GPU
   The baseline is the sequential program: r, then p as plain C loops
   (padded rows, the taps' loop outside the columns' so the compiler
   vectorises it), on one core, timed on --seq images and scaled to the
   stream's length.  Speedup = that time / the stream's time.  Each
   configuration runs once untimed (kernels compiled, image buffers and
   device memory made), then --reps times interleaved with the others;
   medians.  Checks: the first --seq images of every run against the
   sequential program's (max abs difference, relative to the image's
   largest value), and every image's checksum against the first run's.

   usage: bench_streams [--images N] [--size S] [--seq K] [--reps R]
                        [--gpus PLACES] [--only NAME] [--stats]
       --gpus    the GPU places GPU workers own (default "cuda")
       --only    run the configurations whose label contains NAME
       --stats   print each configuration's stream statistics (last run)
       --no-warmup  no untimed run first (a trace of one run: --reps 1)
       --seq 0   no sequential program (no speedups, no reference check)

   bench_streams --overhead [items]      (default 200000)
   What a stream costs an item: empty stages (an item is a counter), as a
   pipeline of 3 stages and as a farm of 4 workers, on 1 thread and on the
   default (one per worker); median of 5 runs, nanoseconds per item and
   per stage run, against a plain loop calling the same functions. */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"
#include "bench_skel.h"

SKEL_CONV2D(conv5, float, 2, 2)
SKEL_CONV2D(conv11, float, 5, 5)

static size_t N = 4096;         /* image side */
static float W5[25], W11[121];

/* ---- stage r: an image made on the CPU ---- */
static void make_image(float *a, long seq)
{
    size_t i, j;
    for (i = 0; i < N; ++i)
        for (j = 0; j < N; ++j) {
            uint32_t h = (uint32_t)(i * 2654435761u) ^ (uint32_t)(j * 40503u) ^ (uint32_t)(seq * 97u);
            h ^= h >> 15; h *= 0x2c1b3c6dU; h ^= h >> 12;
            a[i * N + j] = (float)((i / 64 + j / 64 + (size_t)seq) & 1) + (float)(h & 0xffff) * (1.0f / 65536);
        }
}

/* ---- the sequential program's p: plain loops ---- */
/* out = w (2d+1 x 2d+1) over in, outside the image 0, through a padded copy. */
static void hand_conv(const float *in, float *out, float *pad, const float *w, int d)
{
    size_t P = N + 2 * (size_t)d, i, j;
    int di, dj;
    memset(pad, 0, P * P * sizeof *pad);
    for (i = 0; i < N; ++i) memcpy(pad + (i + (size_t)d) * P + d, in + i * N, N * sizeof *in);
    for (i = 0; i < N; ++i) {
        float *o = out + i * N;
        for (j = 0; j < N; ++j) o[j] = 0;
        for (di = 0; di <= 2 * d; ++di)
            for (dj = 0; dj <= 2 * d; ++dj) {
                const float *r = pad + (i + (size_t)di) * P + dj, c = w[di * (2 * d + 1) + dj];
                for (j = 0; j < N; ++j) o[j] += c * r[j];
            }
    }
}

/* ---- items: images with their containers, reused ---- */
typedef struct img {
    long seq;
    skel_mat *in, *tmp, *out;
    double sum;                 /* the sink's checksum of out */
    struct img *next;           /* the free list */
} img;

static pthread_mutex_t free_mu = PTHREAD_MUTEX_INITIALIZER;
static img *free_list;          /* free_mu */
static int nimg;                /* free_mu: images made */

static img *img_get(void)
{
    img *m;
    pthread_mutex_lock(&free_mu);
    if ((m = free_list)) free_list = m->next;
    else ++nimg;
    pthread_mutex_unlock(&free_mu);
    if (m) return m;
    if (!(m = (img *)calloc(1, sizeof *m)) || skel_mat_new(&m->in, SKEL_FLOAT, N, N) ||
        skel_mat_new(&m->tmp, SKEL_FLOAT, N, N) || skel_mat_new(&m->out, SKEL_FLOAT, N, N)) {
        fprintf(stderr, "out of memory for an image: %s\n", skel_last_error());
        exit(1);
    }
    return m;
}

static void img_put(img *m)
{
    pthread_mutex_lock(&free_mu);
    m->next = free_list;
    free_list = m;
    pthread_mutex_unlock(&free_mu);
}

/* ---- one run ---- */
typedef struct job {
    long n, next;
    int nref;                   /* images with a sequential result */
    float **ref;                /* their outputs */
    double *sums;               /* per image: checksum (0: not seen) */
    double err;                 /* largest relative difference to ref */
    long bad;                   /* checksums off the first run's */
    const double *want;         /* the first run's checksums (NULL: this is it) */
} job;

static int source(void *user, void **item)
{
    job *j = (job *)user;
    img *m;
    if (j->next >= j->n) return 0;
    m = img_get();
    m->seq = j->next++;
    *item = m;
    return 1;
}

static int stage_r(skel_stream_worker *w, void *item, void **out)
{
    img *m = (img *)item;
    float *a = (float *)skel_write(m->in);
    (void)w; (void)out;
    if (!a) return SKEL_ENOMEM;
    make_image(a, m->seq);
    return SKEL_OK;
}

/* p: the two convolutions where this worker's calls run, the result
   brought to the host */
static int stage_p(skel_stream_worker *w, void *item, void **out)
{
    img *m = (img *)item;
    skel_call c;
    int rc;
    (void)w; (void)out;
    memset(&c, 0, sizeof c);
    c.in[0] = m->in; c.out = m->tmp; c.weights = W5;
    if ((rc = skel_run(conv5, &c)) != SKEL_OK) return rc;
    c.in[0] = m->tmp; c.out = m->out; c.weights = W11;
    if ((rc = skel_run(conv11, &c)) != SKEL_OK) return rc;
    return skel_read(m->out) ? SKEL_OK : SKEL_EDEVICE;
}

static int sink(void *user, void *item)
{
    job *j = (job *)user;
    img *m = (img *)item;
    const float *o = (const float *)skel_read(m->out);
    double s = 0;
    size_t k;
    if (!o) return SKEL_EDEVICE;
    for (k = 0; k < N * N; k += 61) s += o[k];
    j->sums[m->seq] = s;
    if (j->want && fabs(s - j->want[m->seq]) > 1e-4 * fabs(j->want[m->seq]) + 1e-3) j->bad++;
    if (m->seq < j->nref) {
        const float *r = j->ref[m->seq];
        double big = 0, d = 0;
        for (k = 0; k < N * N; ++k) {
            if (fabs(r[k]) > big) big = fabs(r[k]);
            if (fabs(r[k] - o[k]) > d) d = fabs(r[k] - o[k]);
        }
        if (d / (big > 0 ? big : 1) > j->err) j->err = d / (big > 0 ? big : 1);
    }
    img_put(m);
    return SKEL_OK;
}

/* ---- configurations ---- */
typedef struct config {
    const char *label;
    int shape;                  /* 0: Farm(r)|Farm(p), 1: Farm(r)|p, 2: Farm(r|p) */
    int rcpu, pgpu, pcpu;       /* r's CPU workers (shape 2: all-CPU copies), p's GPU (and CPU) workers */
    double t[16];
    int nt;
    skel_stream *s;
    int root, r, p;             /* nodes */
} config;

/* Farm(r) | p is Farm(r) | Farm(p) with one GPU worker: a lone stage runs
   on the GPU as a farm of one GPU worker, the same workers and queues. */
static config configs[] = {
    { "Farm(r:12) | p (1 GPU worker)", 1, 12, 1, 0, { 0 }, 0, NULL, 0, 0, 0 },
    { "Farm(r:6) | p (1 GPU worker)", 1, 6, 1, 0, { 0 }, 0, NULL, 0, 0, 0 },
    { "Farm(r:12) | Farm(p:2 GPU)", 0, 12, 2, 0, { 0 }, 0, NULL, 0, 0, 0 },
    { "Farm(r:12) | Farm(p:3 GPU)", 0, 12, 3, 0, { 0 }, 0, NULL, 0, 0, 0 },
    { "Farm(r | p) 4 copies, p on GPU", 2, 0, 4, 0, { 0 }, 0, NULL, 0, 0, 0 },
    { "Farm(r | p) 8 copies, p on GPU", 2, 0, 8, 0, { 0 }, 0, NULL, 0, 0, 0 },
};
#define NCONFIG ((int)(sizeof configs / sizeof *configs))

static const char *gpus = "cuda";

/* ---- the overhead of a stream (--overhead) ---- */
static long ov_next, ov_n;
static int ov_source(void *user, void **item)
{
    (void)user;
    if (ov_next >= ov_n) return 0;
    *item = (void *)(intptr_t)++ov_next;
    return 1;
}
static int ov_stage(skel_stream_worker *w, void *item, void **out)
{
    (void)w;
    *out = (void *)((intptr_t)item + 1);
    return SKEL_OK;
}
static long ov_sum;
static int ov_sink(void *user, void *item)
{
    (void)user;
    ov_sum += (intptr_t)item;
    return SKEL_OK;
}

static int overhead(long n)
{
    static const char *shapes[] = { "pipeline of 3 stages", "farm of 4 workers" };
    int shape, th, k;
    ov_n = n;
    for (shape = 0; shape < 2; ++shape)
        for (th = 0; th < 2; ++th) {
            skel_stream *s;
            double t[5], tl[5], m;
            int root, a, b, c;
            long stages = shape == 0 ? 3 : 1;
            skel_stream_new(&s);
            a = skel_stream_stage(s, &(skel_stage_desc){ .name = "a", .cpu = ov_stage });
            if (shape == 0) {
                b = skel_stream_stage(s, &(skel_stage_desc){ .name = "b", .cpu = ov_stage });
                c = skel_stream_stage(s, &(skel_stage_desc){ .name = "c", .cpu = ov_stage });
                root = skel_stream_pipeline(s, 3, (int[]){ a, b, c });
            } else root = skel_stream_farm(s, a, &(skel_farm_desc){ .cpu_workers = 4 });
            for (k = 0; k < 5; ++k) {
                long i;
                void *x = NULL, *y = NULL;
                ov_next = 0;
                ov_sum = 0;
                t[k] = bench_now();
                if (skel_stream_run(s, root, &(skel_stream_desc){ .source = ov_source, .sink = ov_sink,
                                                                   .threads = th ? 0 : 1 }) != SKEL_OK ||
                    ov_sum != n * (n + 1) / 2 + n * stages) {
                    fprintf(stderr, "overhead: %s (sum %ld)\n", skel_last_error(), ov_sum);
                    return 1;
                }
                t[k] = bench_now() - t[k];
                ov_next = 0;        /* the same functions in a plain loop */
                ov_sum = 0;
                tl[k] = bench_now();
                for (i = 0; i < n; ++i) {
                    int st;
                    ov_source(NULL, &x);
                    for (st = 0; st < stages; ++st) { ov_stage(NULL, x, &y); x = y; }
                    ov_sink(NULL, x);
                }
                tl[k] = bench_now() - tl[k];
            }
            m = bench_median(t, 5);
            printf("%-22s %-16s %8.0f ns an item, %6.0f ns a stage run (plain loop: %.1f ns an item)\n", shapes[shape],
                   th ? "default threads" : "1 thread", 1e9 * m / (double)n, 1e9 * m / (double)(n * (stages + 2)),
                   1e9 * bench_median(tl, 5) / (double)n);
            skel_stream_free(s);
        }
    return 0;
}

static int build(config *c)
{
    int r, p;
    if (skel_stream_new(&c->s)) return -1;
    c->r = r = skel_stream_stage(c->s, &(skel_stage_desc){ .name = "r", .cpu = stage_r });
    c->p = p = skel_stream_stage(c->s, &(skel_stage_desc){ .name = "p", .cpu = stage_p, .gpu = stage_p });
    if (c->shape == 2)
        return c->root = skel_stream_farm(c->s, skel_stream_pipeline(c->s, 2, (int[]){ r, p }),
                                          &(skel_farm_desc){ .cpu_workers = c->rcpu, .gpu_workers = c->pgpu, .gpus = gpus });
    r = skel_stream_farm(c->s, r, &(skel_farm_desc){ .cpu_workers = c->rcpu });
    p = skel_stream_farm(c->s, p, &(skel_farm_desc){ .cpu_workers = c->pcpu, .gpu_workers = c->pgpu, .gpus = gpus });
    return c->root = skel_stream_pipeline(c->s, 2, (int[]){ r, p });
}

static double run(config *c, job *j, long n)
{
    double t0;
    int rc;
    j->n = n;
    j->next = 0;
    t0 = bench_now();
    rc = skel_stream_run(c->s, c->root, &(skel_stream_desc){ .source = source, .sink = sink, .user = j, .queue = 2 });
    t0 = bench_now() - t0;
    if (rc != SKEL_OK) {
        fprintf(stderr, "%s: %s\n", c->label, skel_last_error());
        exit(1);
    }
    return t0;
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    long images = 64;
    int nseq = 2, reps = 3, stats = 0, warmup = 1, i, k, a, ran = 0;
    double tseq, tr = 0, tp = 0, *first = NULL;
    float *pad, *tmp, *img0;
    job j;
    if (argc > 1 && !strcmp(argv[1], "--overhead")) return overhead(argc > 2 ? atol(argv[2]) : 200000);
    for (a = 1; a < argc; ++a) {
        if (!strcmp(argv[a], "--images") && a + 1 < argc) images = atol(argv[++a]);
        else if (!strcmp(argv[a], "--size") && a + 1 < argc) N = (size_t)atol(argv[++a]);
        else if (!strcmp(argv[a], "--seq") && a + 1 < argc) nseq = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--gpus") && a + 1 < argc) gpus = argv[++a];
        else if (!strcmp(argv[a], "--only") && a + 1 < argc) only = argv[++a];
        else if (!strcmp(argv[a], "--stats")) stats = 1;
        else if (!strcmp(argv[a], "--no-warmup")) warmup = 0;
        else { fprintf(stderr, "usage: %s [--images N] [--size S] [--seq K] [--reps R] [--gpus P] [--only NAME] [--stats]\n", argv[0]); return 2; }
    }
    if (images < 1 || N < 16 || nseq < 0 || nseq > images || reps < 1 || reps > 16) { fprintf(stderr, "bad arguments\n"); return 2; }
    for (i = 0; i < 25; ++i) W5[i] = (float)(1 + i % 5) / 75.0f;
    for (i = 0; i < 121; ++i) W11[i] = (float)(1 + (i * 7) % 11) / 726.0f;
    /* CPU workers' calls run on their own core */
    skel_set_plan(conv5, bench_fixed_plan("seq", 0, 0));
    skel_set_plan(conv11, bench_fixed_plan("seq", 0, 0));

    /* the sequential program on nseq images; its outputs are the reference */
    memset(&j, 0, sizeof j);
    j.nref = nseq;
    j.ref = (float **)calloc((size_t)nseq + 1, sizeof *j.ref);
    j.sums = (double *)calloc((size_t)images, sizeof *j.sums);
    first = (double *)calloc((size_t)images, sizeof *first);
    pad = (float *)malloc((N + 10) * (N + 10) * sizeof *pad);
    tmp = (float *)malloc(N * N * sizeof *tmp);
    img0 = (float *)malloc(N * N * sizeof *img0);
    if (!j.ref || !j.sums || !first || !pad || !tmp || !img0) return 1;
    /* buffers touched before the clock runs: the stream's images are
       reused too (the run of 2026-11-24 in results/streams.md had the
       first touches inside the sequential time) */
    memset(pad, 0, (N + 10) * (N + 10) * sizeof *pad);
    memset(tmp, 0, N * N * sizeof *tmp);
    memset(img0, 0, N * N * sizeof *img0);
    for (k = 0; k < nseq; ++k)
        if (!(j.ref[k] = (float *)calloc(N * N, sizeof(float)))) return 1;
        else memset(j.ref[k], 0, N * N * sizeof(float));
    for (k = 0; k < nseq; ++k) {
        double t0 = bench_now(), t1;
        make_image(img0, k);
        t1 = bench_now();
        hand_conv(img0, tmp, pad, W5, 2);
        hand_conv(tmp, j.ref[k], pad, W11, 5);
        tr += t1 - t0;
        tp += bench_now() - t1;
    }
    tseq = nseq ? (tr + tp) / nseq * (double)images : 0;
    if (nseq) printf("images %ld of %zu x %zu floats; sequential program (one core, plain C): r %.1f ms, p %.1f ms an image "
           "(%d images), %ld images: %.2f s\n", images, N, N, 1e3 * tr / nseq, 1e3 * tp / nseq, nseq, images, tseq);
    free(pad); free(tmp); free(img0);

    for (i = 0; i < NCONFIG; ++i) {
        config *c = &configs[i];
        if (only && !strstr(c->label, only)) continue;
        if (build(c) < 0) { fprintf(stderr, "%s: %s\n", c->label, skel_last_error()); return 1; }
        j.want = NULL;
        if (warmup) run(c, &j, images < 16 ? images : 16);     /* untimed: kernels, buffers, device memory */
    }
    for (k = 0; k < reps; ++k)
        for (i = 0; i < NCONFIG; ++i) {
            config *c = &configs[i];
            if (!c->s) continue;
            j.err = 0;
            j.bad = 0;
            j.want = ran ? first : NULL;
            memset(j.sums, 0, (size_t)images * sizeof *j.sums);
            c->t[c->nt++] = run(c, &j, images);
            if (!ran++) memcpy(first, j.sums, (size_t)images * sizeof *first);
            if (j.err > 1e-5 || j.bad) {
                printf("%s: WRONG results: max relative difference %.3g to the sequential program, %ld checksums off\n",
                       c->label, j.err, j.bad);
                return 1;
            }
        }
    printf("%-32s %8s %8s %8s %8s %8s %8s %8s\n", "configuration", "seconds", "speedup", "images/s", "r ms",
           "p ms", "util r", "util p");
    for (i = 0; i < NCONFIG; ++i) {
        config *c = &configs[i];
        skel_stream_node_stats rs, ps;
        double m;
        if (!c->s) continue;
        m = bench_median(c->t, c->nt);
        skel_stream_node_stats_get(c->s, c->r, &rs);
        skel_stream_node_stats_get(c->s, c->p, &ps);
        printf("%-32s %8.3f %8.2f %8.1f %8.2f %8.2f %8.2f %8.2f\n", c->label, m, tseq / m, (double)images / m,
               1e3 * rs.model, 1e3 * ps.model, rs.util_mean, ps.util_mean);
    }
    printf("(%d runs each, interleaved, median seconds; speedup: the sequential program's time / the run's; r ms, p ms:\n"
           " a stage's mean time an image on its workers, util: their mean busy share, both from the last run)\n"
           "images made: %d (the most in flight)\n", reps, nimg);
    for (i = 0; stats && i < NCONFIG; ++i)
        if (configs[i].s) {
            printf("\n== %s: the last run's statistics\n", configs[i].label);
            skel_stream_dump(configs[i].s, SKEL_DUMP_TEXT, NULL);
        }
    for (i = 0; i < NCONFIG; ++i) skel_stream_free(configs[i].s);
    for (k = 0; k < nseq; ++k) free(j.ref[k]);
    free(j.ref); free(j.sums); free(first);
    return 0;
}
