/* dot.c - dot product with MapReduce: map with mult, reduce with add.

   Prints the manual's example (2 * 3 over 1000 elements = 6000) and a
   dot product of two pseudo-random vectors checked against a plain loop.
   The random elements are small integers, so every partial sum is exact
   in float and skel's blocked summation order gives the loop's result. */
#include <stdio.h>
#include <stdlib.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"

SKEL_FUNC(float, mult, (float a, float b), return a * b;)
SKEL_FUNC_COMMUTATIVE(float, add, (float a, float b), return a + b;)
SKEL_MAPREDUCE(dot, mult, add, float, 2)

#define N 100000

int main(void)
{
    static float xs[N], ys[N];
    skel_vec *x, *y;
    float r, expect = 0;
    int i, st;

    /* the manual's example */
    skel_vec_new_fill(&x, SKEL_FLOAT, 1000, &(float){2});
    skel_vec_new_fill(&y, SKEL_FLOAT, 1000, &(float){3});
    if ((st = skel_mapreduce2(dot, x, y, &r)) != SKEL_OK) {
        fprintf(stderr, "dot: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    printf("Result: %g\n", r);              /* 6000 */
    skel_free(x);
    skel_free(y);

    /* random vectors, checked against a loop */
    srand(1);
    for (i = 0; i < N; ++i) {
        xs[i] = (float)(rand() % 17 - 8);
        ys[i] = (float)(rand() % 17 - 8);
        expect += xs[i] * ys[i];
    }
    skel_vec_new_copy(&x, SKEL_FLOAT, N, xs);
    skel_vec_new_copy(&y, SKEL_FLOAT, N, ys);
    if ((st = skel_mapreduce2(dot, x, y, &r)) != SKEL_OK) {
        fprintf(stderr, "dot: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    printf("random: skel %g, loop %g: %s\n", r, expect, r == expect ? "OK" : "MISMATCH");
    skel_free(x);
    skel_free(y);
    return r == expect ? 0 : 1;
}
