/* heat3d.c - heat diffusion in a 3-D block (MapOverlap3D, 7 points).

   u' = u + k (u[x-1] + u[x+1] + u[y-1] + u[y+1] + u[z-1] + u[z+1] - 6u)
   on a depth x rows x cols block with insulated walls (the duplicate
   edge policy: a wall reads its own value).  A hot cube in the middle
   spreads out; the total heat stays the same.  The result is checked
   against a plain loop.

   SKEL_BACKEND=seq|omp|cuda|opencl ./heat3d [n steps] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

SKEL_FUNC(float, heat, (const float *u, skel_index rs, skel_index ps),
    return u[0] + 0.1f * (u[-1] + u[1] + u[-rs] + u[rs] + u[-ps] + u[ps] - 6 * u[0]);)
SKEL_OVERLAP3D(diffuse, heat, float, 1, 1, 1)

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 64, steps = argc > 2 ? atoi(argv[2]) : 50, s, z, y, x;
    size_t N = (size_t)n * n * n, i;
    float *u = (float *)calloc(N, sizeof(float)), *t = (float *)malloc(N * sizeof(float));
    skel_ten *U[2];
    const float *got;
    double worst = 0, total = 0, total0 = 0;

    if (!u || !t || n < 1) return 1;
    for (z = 0; z < n; ++z)
        for (y = 0; y < n; ++y)
            for (x = 0; x < n; ++x)
                if (abs(z - n / 2) < n / 8 + 1 && abs(y - n / 2) < n / 8 + 1 && abs(x - n / 2) < n / 8 + 1)
                    u[((size_t)z * n + y) * n + x] = 100;
    for (i = 0; i < N; ++i) total0 += u[i];
    skel_ten_new_copy(&U[0], SKEL_FLOAT, (size_t)n, (size_t)n, (size_t)n, u);
    skel_ten_new(&U[1], SKEL_FLOAT, (size_t)n, (size_t)n, (size_t)n);
    for (s = 0; s < steps; ++s)
        if (skel_run(diffuse, &(skel_call){ .in = { U[s % 2] }, .out = U[1 - s % 2], .edge = SKEL_EDGE_DUPLICATE }) != SKEL_OK) {
            fprintf(stderr, "heat3d: %s\n", skel_last_error());
            return 1;
        }
    for (s = 0; s < steps; ++s) {   /* the same by hand */
        for (z = 0; z < n; ++z)
            for (y = 0; y < n; ++y)
                for (x = 0; x < n; ++x) {
                    size_t c = ((size_t)z * n + y) * n + x;
                    float xm = u[x ? c - 1 : c], xp = u[x + 1 < n ? c + 1 : c];
                    float ym = u[y ? c - n : c], yp = u[y + 1 < n ? c + n : c];
                    float zm = u[z ? c - (size_t)n * n : c], zp = u[z + 1 < n ? c + (size_t)n * n : c];
                    t[c] = u[c] + 0.1f * (xm + xp + ym + yp + zm + zp - 6 * u[c]);
                }
        memcpy(u, t, N * sizeof(float));
    }
    got = (const float *)skel_read(U[steps % 2]);
    for (i = 0; i < N; ++i) {
        if (fabs(got[i] - u[i]) > worst) worst = fabs(got[i] - u[i]);
        total += got[i];
    }
    printf("%d^3 block, %d steps: centre %.4f, total heat %.1f (at the start %.1f)\n", n, steps,
           got[((size_t)(n / 2) * n + n / 2) * n + n / 2], total, total0);
    printf("check against a plain loop (largest difference %.2g): %s\n", worst, worst < 1e-3 ? "OK" : "MISMATCH");
    skel_free(U[0]); skel_free(U[1]);
    free(u); free(t);
    return worst < 1e-3 ? 0 : 1;
}
