/* poisson.c - Jacobi iterations for a Poisson equation with a mask.

   Solves u_xx + u_yy = f on a grid where a mask marks the unknowns: the
   points outside it (the border and an obstacle in the middle) keep their
   values.  One MapOverlap2D step reads u's 3 x 3 window, and the
   right-hand side f and the mask through two views; it takes the row and
   column index too (unused here but for the mask's position):

       u'[r][c] = mask[r][c] ? (u[r][c-1] + u[r][c+1] + u[r-1][c] + u[r+1][c] - h^2 f[r][c]) / 4
                             : u[r][c]

   The result after the iterations is checked against a plain loop.

   SKEL_BACKEND=seq|omp|cuda|opencl ./poisson [n iterations] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

SKEL_FUNC(float, jacobi, (skel_index r, skel_index c, const float *u, skel_index stride,
                          skel_view_float f, skel_view_uint8_t mask, float h2),
    return SKEL_AT2(mask, r, c) ? 0.25f * (u[-1] + u[1] + u[-stride] + u[stride] - h2 * SKEL_AT2(f, r, c)) : u[0];)
SKEL_OVERLAP2D_X(step, jacobi, float, 1, 1, SKEL_UNWEIGHTED, SKEL_INDEX2D, SKEL_VIEWS(float, uint8_t), SKEL_UNIFORM(float))

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 256, iters = argc > 2 ? atoi(argv[2]) : 200, r, c, k;
    size_t N = (size_t)n * (size_t)n;
    float *u = (float *)calloc(N, sizeof(float)), *t = (float *)calloc(N, sizeof(float));
    float *f = (float *)malloc(N * sizeof(float)), h = 1.0f / (float)(n - 1), h2 = h * h;
    uint8_t *mask = (uint8_t *)malloc(N);
    skel_mat *U[2], *F, *M;
    const float *got;
    double worst = 0;

    if (!u || !t || !f || !mask || n < 3) return 1;
    for (r = 0; r < n; ++r)
        for (c = 0; c < n; ++c) {
            int border = r == 0 || c == 0 || r == n - 1 || c == n - 1;
            int obstacle = abs(r - n / 2) < n / 8 && abs(c - n / 2) < n / 8;
            mask[r * n + c] = (uint8_t)!(border || obstacle);
            f[r * n + c] = -1.0f;                       /* a uniform load */
            u[r * n + c] = border ? (float)c * h : 0;   /* a ramp on the border, 0 on the obstacle */
        }
    skel_mat_new_copy(&U[0], SKEL_FLOAT, (size_t)n, (size_t)n, u);
    skel_mat_new(&U[1], SKEL_FLOAT, (size_t)n, (size_t)n);
    skel_mat_new_copy(&F, SKEL_FLOAT, (size_t)n, (size_t)n, f);
    skel_mat_new_copy(&M, SKEL_UINT8, (size_t)n, (size_t)n, mask);
    for (k = 0; k < iters; ++k) {
        skel_call call;
        memset(&call, 0, sizeof call);
        call.in[0] = U[k % 2];
        call.out = U[1 - k % 2];
        call.views[0] = F;
        call.views[1] = M;
        call.uniform = &h2;
        call.edge = SKEL_EDGE_DUPLICATE;
        if (skel_run(step, &call) != SKEL_OK) {
            fprintf(stderr, "poisson: %s\n", skel_last_error());
            return 1;
        }
    }
    for (k = 0; k < iters; ++k) {   /* the same by hand */
        for (r = 0; r < n; ++r)
            for (c = 0; c < n; ++c) {
                size_t i = (size_t)r * n + c;
                t[i] = mask[i] ? 0.25f * (u[i - 1] + u[i + 1] + u[i - n] + u[i + n] - h2 * f[i]) : u[i];
            }
        memcpy(u, t, N * sizeof(float));
    }
    got = (const float *)skel_read(U[iters % 2]);
    for (k = 0; k < (int)N; ++k)
        if (fabs(got[k] - u[k]) > worst) worst = fabs(got[k] - u[k]);
    printf("%d x %d grid, %d Jacobi iterations; u at the centre of the left half: %.6f\n", n, n, iters,
           got[(size_t)(n / 2) * n + n / 4]);
    printf("check against a plain loop (largest difference %.2g): %s\n", worst, worst < 1e-5 ? "OK" : "MISMATCH");
    skel_free(U[0]); skel_free(U[1]); skel_free(F); skel_free(M);
    free(u); free(t); free(f); free(mask);
    return worst < 1e-5 ? 0 : 1;
}
