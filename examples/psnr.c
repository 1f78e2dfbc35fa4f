/* psnr.c - peak signal-to-noise ratio of two 8-bit images.

   The pixels stay uint8_t: one MapReduce maps each pair of pixels to its
   squared difference in double and sums those.  (Without 8-bit element
   types the images had to be widened to int32 first: four times the
   memory and the bandwidth.)  The result is checked against a plain loop.

   SKEL_BACKEND=seq|omp|cuda|opencl ./psnr [width height] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

SKEL_FUNC(double, sq_diff, (uint8_t a, uint8_t b), double d = (double)a - (double)b; return d * d;)
SKEL_FUNC(double, add, (double a, double b), return a + b;)
SKEL_MAPREDUCE_X(sse, sq_diff, add, double, SKEL_INS(uint8_t, uint8_t), SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)

int main(int argc, char **argv)
{
    size_t w = argc > 2 ? (size_t)atol(argv[1]) : 1920, h = argc > 2 ? (size_t)atol(argv[2]) : 1080, i;
    skel_mat *a, *b;
    uint8_t *pa, *pb;
    double s = 0, ref = 0, psnr, rpsnr;
    int st;

    if (skel_mat_new(&a, SKEL_UINT8, h, w) != SKEL_OK || skel_mat_new(&b, SKEL_UINT8, h, w) != SKEL_OK) return 1;
    pa = (uint8_t *)skel_write(a);
    pb = (uint8_t *)skel_write(b);
    srand(2);
    for (i = 0; i < w * h; ++i) {   /* an image and a noisy copy of it */
        int noise = rand() % 9 - 4, v = (int)((i % w) * 255 / (w ? w : 1));
        pa[i] = (uint8_t)v;
        pb[i] = (uint8_t)(v + noise < 0 ? 0 : v + noise > 255 ? 255 : v + noise);
    }
    st = skel_mapreduce2(sse, a, b, &s);
    if (st != SKEL_OK) {
        fprintf(stderr, "psnr: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    psnr = 10 * log10(255.0 * 255.0 / (s / (double)(w * h)));
    for (i = 0; i < w * h; ++i) ref += ((double)pa[i] - pb[i]) * ((double)pa[i] - pb[i]);
    rpsnr = 10 * log10(255.0 * 255.0 / (ref / (double)(w * h)));
    printf("PSNR of two %zu x %zu 8-bit images: %.4f dB\n", w, h, psnr);
    /* integer squares below 2^53: every order of summation is exact */
    printf("check against a plain loop (%.4f dB): %s\n", rpsnr, s == ref ? "OK" : "MISMATCH");
    skel_free(a);
    skel_free(b);
    return s == ref ? 0 : 1;
}
