/* gaussian_blur.c - separable Gaussian blur (thesis listing 6.3).

   One MapOverlap instance, applied first along the rows and then along
   the columns of a 10 x 10 matrix of value 10, with the constant 0 beyond
   the edges.  The overlap function reads a[-2] .. a[2]; for the column
   pass skel handles the stride, so the same function serves both passes.

   The thesis uses int elements.  Its weights are binomial coefficients of
   order 16 (the blur is left unnormalised, only >> 4), so after the column
   pass the intermediate sum reaches 2.5e10: that overflows a 32-bit int,
   which is undefined behaviour in C.  int64_t keeps the same integer
   arithmetic exact.  The result is checked against a plain loop. */
#include <inttypes.h>
#include <stdio.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"

SKEL_FUNC(int64_t, over_f, (const int64_t *a),
    return (31824 * a[-2] + 43758 * a[-1] + 48620 * a[0]
            + 43758 * a[1] + 31824 * a[2]) >> 4;)
SKEL_OVERLAP(conv, over_f, int64_t, 2)

#define R 10
#define C 10

/* the same blur, by hand: one pass along a line of n elements, step s */
static void blur_line(const int64_t *src, int64_t *dst, int n, int s)
{
    static const int64_t w[5] = { 31824, 43758, 48620, 43758, 31824 };
    int i, k;
    for (i = 0; i < n; ++i) {
        int64_t sum = 0;
        for (k = -2; k <= 2; ++k)
            if (i + k >= 0 && i + k < n) sum += w[k + 2] * src[(i + k) * s];
        dst[i * s] = sum >> 4;
    }
}

int main(void)
{
    skel_mat *m0, *r;
    const int64_t *res;
    int64_t tmp[R * C], expect[R * C];
    int i, j, st, ok = 1;

    skel_mat_new_fill(&m0, SKEL_INT64, R, C, &(int64_t){10});
    skel_mat_new(&r, SKEL_INT64, R, C);

    /* applies the overlap first row-wise, then column-wise */
    st = skel_run(conv, &(skel_call){ .in = { m0 }, .out = r,
                                      .edge = SKEL_EDGE_CONSTANT, .edge_value = &(int64_t){0},
                                      .direction = SKEL_ROWS_COLS });
    if (st != SKEL_OK) {
        fprintf(stderr, "blur: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    res = skel_read(r);
    printf("r:\n");
    for (i = 0; i < R; ++i) {
        for (j = 0; j < C; ++j) printf(" %10" PRId64, res[i * C + j]);
        printf("\n");
    }

    for (i = 0; i < R * C; ++i) tmp[i] = 10;
    for (i = 0; i < R; ++i) blur_line(tmp + i * C, expect + i * C, C, 1);
    for (j = 0; j < C; ++j) blur_line(expect + j, tmp + j, R, C);
    for (i = 0; i < R * C; ++i) ok &= res[i] == tmp[i];
    printf("check against a plain loop: %s\n", ok ? "OK" : "MISMATCH");

    skel_free(m0);
    skel_free(r);
    return ok ? 0 : 1;
}
