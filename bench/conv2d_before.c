/* conv2d_before.c - SKEL_CONV2D 3x3, 5x5 and 7x7 on CUDA, 4096 x 4096 floats
   on the device, CUDA-event medians of REPS calls (default 31): the same
   program built against the current headers and against those of the
   commit before issue 29 (d68e17a^), run in turn by bench/conv2d_before.sh,
   so that 3x3-7x7 (the shared-memory tile kernel) can be compared with the
   code the issue measured, on the same machine in the same run.

   Usage: bench/conv2d_before.sh [ROUNDS]   (on a machine with a GPU) */
#define SKEL_IMPLEMENTATION
#ifdef OLD
#include "build/before/skel.h"
#include "build/before/skel_cuda.h"
#else
#include "skel.h"
#include "skel_cuda.h"
#endif
#include <stdio.h>
#include <stdlib.h>
SKEL_CONV2D(cv1, float, 1, 1)
SKEL_CONV2D(cv2, float, 2, 2)
SKEL_CONV2D(cv3, float, 3, 3)
static int cmp(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    int n = 4096, reps = argc > 1 ? atoi(argv[1]) : 31, d, k;
    skel_vec *in, *out;
    float *p, w[49 * 4], t[256], ms;
    _skel_CUevent e0, e1;
    skel_skeleton *sk[4] = { NULL, cv1, cv2, cv3 };
    size_t i;
    if (skel_mat_new(&in, SKEL_FLOAT, n, n) != SKEL_OK || skel_mat_new(&out, SKEL_FLOAT, n, n) != SKEL_OK) return 1;
    p = (float *)skel_write(in);
    for (i = 0; i < (size_t)n * n; ++i) p[i] = (float)(rand() % 7);
    for (k = 0; k < 49; ++k) w[k] = (float)(1 + k % 3);
    for (d = 1; d <= 3; ++d) {
        skel_call c = { 0 };
        c.in[0] = in; c.out = out; c.weights = w;
        if (skel_run(sk[d], &c) != SKEL_OK) { fprintf(stderr, "%s\n", skel_last_error()); return 1; }
        _skel_cu.cuCtxSynchronize();
        if (d == 1) { _skel_cu.cuEventCreate(&e0, 0); _skel_cu.cuEventCreate(&e1, 0); }
        for (k = 0; k < reps; ++k) {
            _skel_cu.cuEventRecord(e0, NULL);
            skel_run(sk[d], &c);
            _skel_cu.cuEventRecord(e1, NULL);
            _skel_cu.cuEventSynchronize(e1);
            _skel_cu.cuEventElapsedTime(&ms, e0, e1);
            t[k] = ms;
        }
        {   /* the result at a few interior points against plain C (small integers: exact) */
            const float *o = (const float *)skel_read(out);
            size_t pts[3][2] = { { 7, 9 }, { 2048, 1000 }, { 4000, 4090 } };
            int q, y, x;
            for (q = 0; q < 3; ++q) {
                size_t r = pts[q][0], cc = pts[q][1];
                float ref = 0;
                for (y = -d; y <= d; ++y)
                    for (x = -d; x <= d; ++x) ref += w[(y + d) * (2 * d + 1) + x + d] * p[(r + y) * n + cc + x];
                if (!o || o[r * n + cc] != ref) { fprintf(stderr, "%dx%d: wrong at %zu,%zu\n", 2 * d + 1, 2 * d + 1, r, cc); return 1; }
            }
        }
        qsort(t, reps, sizeof *t, cmp);
        printf("%s %dx%d %.4f ms %.2f TFLOP/s (min %.4f)\n",
#ifdef OLD
               "before",
#else
               "now",
#endif
               2 * d + 1, 2 * d + 1, t[reps / 2], 2.0 * (2 * d + 1) * (2 * d + 1) * n * (double)n / (t[reps / 2] * 1e-3) * 1e-12, t[0]);
    }
    return 0;
}
