/* pearson.c - Pearson's correlation of two float vectors in one pass.

   One MapReduce with a struct accumulator: the map turns the pair
   (x[i], y[i]) into the five sums of one element (x, y, x*x, y*y, x*y, in
   double), the reduce adds two of them field by field.  Five passes (one
   MapReduce per sum) become one.  Adding sums is commutative, and saying
   so (SKEL_FUNC_COMMUTATIVE) lets every backend fold them in the order
   that suits it (vector lanes on the CPU, a grid's stride on the GPU).
   The result is checked against a plain loop.

   Run it on any backend: SKEL_BACKEND=seq|omp|cuda|opencl ./pearson [n] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

SKEL_STRUCT(moments, double sx; double sy; double sxx; double syy; double sxy;)
SKEL_FUNC(moments, of_pair, (float x, float y),
    moments m;
    m.sx = x; m.sy = y;
    m.sxx = (double)x * x; m.syy = (double)y * y; m.sxy = (double)x * y;
    return m;)
SKEL_FUNC_COMMUTATIVE(moments, add_moments, (moments a, moments b),
    a.sx += b.sx; a.sy += b.sy; a.sxx += b.sxx; a.syy += b.syy; a.sxy += b.sxy;
    return a;)
SKEL_MAPREDUCE_X(pearson, of_pair, add_moments, moments, SKEL_INS(float, float),
                 SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_NO_UNIFORM)

static double correlation(const moments *m, double n)
{
    double cov = m->sxy - m->sx * m->sy / n;
    double vx = m->sxx - m->sx * m->sx / n, vy = m->syy - m->sy * m->sy / n;
    return cov / sqrt(vx * vy);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000000, i;
    skel_vec *x, *y;
    float *px, *py;
    moments m, ref = { 0, 0, 0, 0, 0 };
    double r, rr;
    int st;

    if (skel_vec_new(&x, SKEL_FLOAT, n) != SKEL_OK || skel_vec_new(&y, SKEL_FLOAT, n) != SKEL_OK) return 1;
    px = (float *)skel_write(x);
    py = (float *)skel_write(y);
    srand(1);
    for (i = 0; i < n; ++i) {   /* y follows x, with noise */
        px[i] = (float)rand() / (float)RAND_MAX;
        py[i] = 0.5f * px[i] + 0.5f * (float)rand() / (float)RAND_MAX;
    }
    st = skel_mapreduce2(pearson, x, y, &m);
    if (st != SKEL_OK) {
        fprintf(stderr, "pearson: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    r = correlation(&m, (double)n);

    for (i = 0; i < n; ++i) {   /* the same by hand */
        ref.sx += px[i]; ref.sy += py[i];
        ref.sxx += (double)px[i] * px[i]; ref.syy += (double)py[i] * py[i]; ref.sxy += (double)px[i] * py[i];
    }
    rr = correlation(&ref, (double)n);
    printf("pearson r = %.9f over %zu pairs (one pass)\n", r, n);
    printf("check against a plain loop (r = %.9f): %s\n", rr, fabs(r - rr) < 1e-9 ? "OK" : "MISMATCH");
    skel_free(x);
    skel_free(y);
    return fabs(r - rr) < 1e-9 ? 0 : 1;
}
