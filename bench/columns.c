/* columns.c - MapOverlap along columns on the CPU backends: a 5-element
   running max (a dilation's separable half) along the rows, along the
   columns and both, and column sums (Reduce, SKEL_COLS), on matrices of
   2^20 floats (int32 for the sums) from 16 x 65536 to 65536 x 16, on seq
   and on the pool at its default width; the least of 21 calls, in us.
   The rows pass is the reference: the columns pass does the same work
   through a transposition, so rows / columns says what that costs.

   Usage: bench_columns [ROWS COLS ...]    (default: the shapes above)
   (results/cpu.md "Along columns" has the numbers and the history.) */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "bench_skel.h"

SKEL_FUNC(float, max5_f, (const float *a),
    float m = a[-2]; int i;
    for (i = -1; i <= 2; ++i) if (a[i] > m) m = a[i];
    return m;)
SKEL_OVERLAP(run_max, max5_f, float, 2)
SKEL_FUNC(int32_t, add_i, (int32_t a, int32_t b), return a + b;)
SKEL_REDUCE(col_sums, add_i, int32_t)

/* The least of 21 calls of sk with plan p (after one untimed), seconds. */
static double least(skel_skeleton *sk, skel_plan *p, const skel_call *c)
{
    double best = 1e30, t0;
    int r;
    skel_set_plan(sk, p);
    for (r = 0; r < 22; ++r) {
        t0 = bench_now();
        if (skel_run(sk, c) != SKEL_OK) { fprintf(stderr, "bench_columns: %s\n", skel_last_error()); exit(1); }
        t0 = bench_now() - t0;
        if (r && t0 < best) best = t0;
    }
    skel_set_plan(sk, NULL);
    return best;
}

static void shape(size_t R, size_t C, skel_plan *const *plans)
{
    static const int dirs[3] = { SKEL_ROWS, SKEL_COLS, SKEL_ROWS_COLS };
    skel_mat *a, *b, *m;
    skel_vec *sums;
    skel_call c;
    double t[4][2];
    size_t i;
    int d, k;
    float *pa;
    int32_t *pm;
    if (skel_mat_new(&a, SKEL_FLOAT, R, C) != SKEL_OK || skel_mat_new(&b, SKEL_FLOAT, R, C) != SKEL_OK ||
        skel_mat_new(&m, SKEL_INT32, R, C) != SKEL_OK || skel_vec_new(&sums, SKEL_INT32, C) != SKEL_OK) {
        fprintf(stderr, "bench_columns: %s\n", skel_last_error());
        exit(1);
    }
    pa = (float *)skel_write(a);
    pm = (int32_t *)skel_write(m);
    for (i = 0; i < R * C; ++i) {
        pa[i] = (float)(i * 7919 % 1009);
        pm[i] = (int32_t)(i % 97);
    }
    for (k = 0; k < 2; ++k) {
        for (d = 0; d < 3; ++d) {
            memset(&c, 0, sizeof c);
            c.in[0] = a;
            c.out = b;
            c.edge = SKEL_EDGE_DUPLICATE;
            c.direction = dirs[d];
            t[d][k] = least(run_max, plans[k], &c);
        }
        memset(&c, 0, sizeof c);
        c.in[0] = m;
        c.out = sums;
        c.direction = SKEL_COLS;
        t[3][k] = least(col_sums, plans[k], &c);
    }
    printf("| %zu x %zu | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %.2f / %.2f |\n", R, C,
           1e6 * t[0][0], 1e6 * t[0][1], 1e6 * t[1][0], 1e6 * t[1][1], 1e6 * t[2][0], 1e6 * t[2][1],
           1e6 * t[3][0], 1e6 * t[3][1], t[1][0] / t[0][0], t[1][1] / t[0][1]);
    fflush(stdout);
    skel_free(a);
    skel_free(b);
    skel_free(m);
    skel_free(sums);
}

int main(int argc, char **argv)
{
    static const size_t shapes[][2] = { { 16, 65536 }, { 256, 4096 }, { 1024, 1024 }, { 4096, 256 },
                                        { 16384, 64 }, { 65536, 16 } };
    skel_plan *plans[2];
    int i;
    plans[0] = bench_fixed_plan("seq", 0, 0);
    plans[1] = bench_fixed_plan("pool", 0, 0);
    printf("# skel %s, CPU backends: seq / pool (%d threads), least of 21 calls, us\n\n", SKEL_VERSION,
           _skel_pool_default_threads());
    printf("| rows x cols | running max, rows | columns | rows then columns | column sums | columns / rows |\n");
    printf("|---|---|---|---|---|---|\n");
    if (argc > 2)
        for (i = 1; i + 1 < argc; i += 2) shape((size_t)atol(argv[i]), (size_t)atol(argv[i + 1]), plans);
    else
        for (i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); ++i) shape(shapes[i][0], shapes[i][1], plans);
    skel_plan_free(plans[0]);
    skel_plan_free(plans[1]);
    return 0;
}
