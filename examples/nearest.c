/* nearest.c - pairwise distances and nearest neighbours.

   MapPairs makes the matrix of squared distances between two point sets
   (d[i][j] = |p_i - q_j|^2); MapPairsReduce finds each p_i's nearest q_j
   without making that matrix: it reduces each row of pairs with a
   function that keeps the nearer of two candidates (the first on a tie,
   so the answer does not depend on how the work is split).  Both are
   checked against plain loops.

   SKEL_BACKEND=seq|omp|cuda|opencl ./nearest [np nq] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

SKEL_STRUCT(pt3, float x; float y; float z;)
SKEL_STRUCT(hit, float d; int32_t j;)
SKEL_FUNC(float, dist2, (pt3 a, pt3 b),
    float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return dx * dx + dy * dy + dz * dz;)
/* (the GPU kernels get each function alone: candidate cannot call dist2) */
SKEL_FUNC(hit, candidate, (skel_index i, skel_index j, pt3 a, pt3 b),
    hit h;
    float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    (void)i;
    h.d = dx * dx + dy * dy + dz * dz;
    h.j = (int32_t)j;
    return h;)
SKEL_FUNC(hit, nearer, (hit a, hit b), return b.d < a.d ? b : a;)
SKEL_MAPPAIRS(distances, dist2, float, SKEL_INS(pt3), SKEL_INS(pt3))
SKEL_MAPPAIRSREDUCE_X(nearest, candidate, nearer, hit, SKEL_INS(pt3), SKEL_INS(pt3), SKEL_INDEX2D, SKEL_NO_VIEWS,
                      SKEL_NO_UNIFORM)

static pt3 *random_points(size_t n)
{
    pt3 *p = (pt3 *)malloc(n * sizeof *p);
    size_t i;
    for (i = 0; p && i < n; ++i) {
        p[i].x = (float)rand() / (float)RAND_MAX; p[i].y = (float)rand() / (float)RAND_MAX; p[i].z = (float)rand() / (float)RAND_MAX;
    }
    return p;
}

int main(int argc, char **argv)
{
    size_t np = argc > 2 ? (size_t)atol(argv[1]) : 2000, nq = argc > 2 ? (size_t)atol(argv[2]) : 3000, i, j;
    skel_type tp = SKEL_TYPE(pt3);
    pt3 *p, *q;
    skel_vec *P, *Q, *H;
    skel_mat *D;
    const float *d;
    const hit *h;
    long bad = 0;

    srand(4);
    p = random_points(np);
    q = random_points(nq);
    if (!p || !q) return 1;
    skel_vec_new_copy(&P, tp, np, p);
    skel_vec_new_copy(&Q, tp, nq, q);
    skel_mat_new(&D, SKEL_FLOAT, np, nq);
    skel_vec_new(&H, SKEL_TYPE(hit), np);
    if (skel_run(distances, &(skel_call){ .in = { P, Q }, .out = D }) != SKEL_OK ||
        skel_run(nearest, &(skel_call){ .in = { P, Q }, .out = H, .direction = SKEL_ROWS }) != SKEL_OK) {
        fprintf(stderr, "nearest: %s\n", skel_last_error());
        return 1;
    }
    d = (const float *)skel_read(D);
    h = (const hit *)skel_read(H);
    for (i = 0; i < np; ++i) {   /* the same by hand */
        float best = 0;
        int32_t at = -1;
        for (j = 0; j < nq; ++j) {
            float dx = p[i].x - q[j].x, dy = p[i].y - q[j].y, dz = p[i].z - q[j].z, e = dx * dx + dy * dy + dz * dz;
            float got = d[i * nq + j];
            bad += got < e - 1e-6f || got > e + 1e-6f;
            if (at < 0 || e < best) { best = e; at = (int32_t)j; }
        }
        bad += h[i].j != at;
    }
    printf("%zu x %zu distances; point 0's nearest is q[%d] at distance^2 %.6f\n", np, nq, (int)h[0].j, h[0].d);
    printf("check against plain loops: %s\n", bad ? "MISMATCH" : "OK");
    skel_free(P); skel_free(Q); skel_free(D); skel_free(H);
    free(p); free(q);
    return bad ? 1 : 0;
}
