/* image_stream.c - a stream of images through Farm(r) | Farm(p) (seed 001).

   The source names 24 images; stage r makes each one (a 256 x 256 float
   pattern; a real program would read a file), stage p blurs it with a 5x5
   convolution.  r runs on 4 CPU workers; p on 2 CPU workers, and on a GPU
   worker too when this program is built with skel_cuda.h or skel_cl.h and
   a GPU is there (-DWITH_GPU): its convolution then runs on that GPU.
   The run is ordered (desc.ordered: every farm keeps the order items
   came in), so the sink sees the images in the source's order; ordering
   the p farm alone would keep the order in which r's farm, which
   finishes images as it can, handed them over.  Each image's sum is checked against the same blur by hand; then
   the stream's measurements are printed (service times, utilisation,
   queue occupancy). */
#define SKEL_IMPLEMENTATION
#include "skel.h"                   /* first: it asks for POSIX */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_GPU
#include "skel_cuda.h"
#include "skel_cl.h"
#define GPU_WORKERS 1
#else
#define GPU_WORKERS 0
#endif

SKEL_CONV2D(blur5, float, 2, 2)

#define N 256
#define IMAGES 24
static const float W[25] = { 1, 2, 3, 2, 1, 2, 4, 6, 4, 2, 3, 6, 9, 6, 3, 2, 4, 6, 4, 2, 1, 2, 3, 2, 1 };

typedef struct image { int id; skel_mat *pixels, *blurred; } image;
typedef struct job { int next, seen, wrong; } job;

static float pixel(int id, int i, int j) { return (float)((i * 7 + j * 3 + id) % 17); }

static int next_image(void *user, void **item)
{
    job *jb = (job *)user;
    image *im;
    if (jb->next == IMAGES) return 0;
    if (!(im = (image *)calloc(1, sizeof *im))) return SKEL_ENOMEM;
    im->id = jb->next++;
    *item = im;
    return 1;
}

/* r: make the image (on a CPU worker) */
static int make(skel_stream_worker *w, void *item, void **out)
{
    image *im = (image *)item;
    float *p;
    int i, j;
    (void)w; (void)out;
    if (skel_mat_new(&im->pixels, SKEL_FLOAT, N, N) != SKEL_OK || !(p = (float *)skel_write(im->pixels)))
        return SKEL_ENOMEM;
    for (i = 0; i < N; ++i)
        for (j = 0; j < N; ++j) p[i * N + j] = pixel(im->id, i, j);
    return SKEL_OK;
}

/* p: blur it where this worker's calls run (the host, or its GPU) */
static int blur(skel_stream_worker *w, void *item, void **out)
{
    image *im = (image *)item;
    skel_call c;
    (void)w; (void)out;
    memset(&c, 0, sizeof c);
    if (skel_mat_new(&im->blurred, SKEL_FLOAT, N, N) != SKEL_OK) return SKEL_ENOMEM;
    c.in[0] = im->pixels;
    c.out = im->blurred;
    c.weights = W;
    return skel_run(blur5, &c);
}

static void image_free(image *im)
{
    skel_free(im->pixels);
    skel_free(im->blurred);
    free(im);
}

/* the sink: check the image against a blur by hand, in order */
static int save(void *user, void *item)
{
    job *jb = (job *)user;
    image *im = (image *)item;
    const float *b = (const float *)skel_read(im->blurred);
    double got = 0, want = 0;
    int i, j, di, dj;
    if (!b) return SKEL_EDEVICE;
    for (i = 0; i < N; ++i)
        for (j = 0; j < N; ++j) {
            got += b[i * N + j];
            for (di = -2; di <= 2; ++di)
                for (dj = -2; dj <= 2; ++dj)
                    if (i + di >= 0 && i + di < N && j + dj >= 0 && j + dj < N)
                        want += W[(di + 2) * 5 + dj + 2] * pixel(im->id, i + di, j + dj);
        }
    if (im->id != jb->seen++ || fabs(got - want) > 1e-4 * want) jb->wrong++;
    image_free(im);
    return SKEL_OK;
}

static void drop(void *user, void *item) { (void)user; image_free((image *)item); }

int main(void)
{
    job jb = { 0, 0, 0 };
    skel_stream *s;
    int r, p, root, rc;
    skel_stream_new(&s);
    r = skel_stream_stage(s, &(skel_stage_desc){ .name = "make", .cpu = make });
    p = skel_stream_stage(s, &(skel_stage_desc){ .name = "blur", .cpu = blur, .gpu = blur });
    root = skel_stream_pipeline(s, 2, (int[]){
        skel_stream_farm(s, r, &(skel_farm_desc){ .cpu_workers = 4 }),
        skel_stream_farm(s, p, &(skel_farm_desc){ .cpu_workers = 2, .gpu_workers = GPU_WORKERS }) });
    rc = skel_stream_run(s, root, &(skel_stream_desc){ .source = next_image, .sink = save, .drop = drop, .user = &jb,
                                                            .ordered = 1 });
    if (rc != SKEL_OK) {
        fprintf(stderr, "stream: %s\n", skel_last_error());
        skel_stream_free(s);
        return 1;
    }
    printf("%d images blurred, %d in order and right\n", jb.seen, jb.seen - jb.wrong);
    skel_stream_dump(s, SKEL_DUMP_TEXT, NULL);
    skel_stream_free(s);
    return jb.wrong != 0;
}
