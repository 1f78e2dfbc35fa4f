/* vector_sum.c - global sum with Reduce (thesis listing 4.1).

   A vector of 1000 doubles of value 2 sums to 2000.  Then a vector of a
   million pseudo-random doubles, checked against a plain loop: the
   operator is declared commutative, so skel sums interleaved lanes of
   contiguous blocks and combines them pairwise; the two may differ in the
   last bits, and must agree to a relative 1e-12. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"

SKEL_FUNC_COMMUTATIVE(double, plus_f, (double a, double b), return a + b;)
SKEL_REDUCE(global_sum, plus_f, double)

#define N 1000000

int main(void)
{
    skel_vec *v0, *v1;
    double r, expect = 0, *d;
    int i, st, ok;

    skel_vec_new_fill(&v0, SKEL_DOUBLE, 1000, &(double){2});
    if ((st = skel_reduce(global_sum, v0, &r)) != SKEL_OK) {
        fprintf(stderr, "reduce: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    printf("Result: %g\n", r);              /* 2000 */

    skel_vec_new(&v1, SKEL_DOUBLE, N);
    d = skel_write(v1);
    srand(1);
    for (i = 0; i < N; ++i) {
        d[i] = (double)rand() / RAND_MAX;
        expect += d[i];
    }
    if ((st = skel_reduce(global_sum, v1, &r)) != SKEL_OK) {
        fprintf(stderr, "reduce: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    ok = fabs(r - expect) <= 1e-12 * expect;
    printf("random: skel %.10g, loop %.10g: %s\n", r, expect, ok ? "OK" : "MISMATCH");
    skel_free(v0);
    skel_free(v1);
    return ok ? 0 : 1;
}
