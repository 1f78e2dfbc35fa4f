/* reverse.c - MapArray (thesis listing 3.6): reverse a vector.

   r[i] = arr_f(v1, v2[i]) may read any element of v1; with v2 = 9 8 .. 0
   as indexes it reverses v1 = 1 2 .. 10.  Prints
   Result: 10 9 8 7 6 5 4 3 2 1 */
#include <stdio.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"

SKEL_FUNC(double, arr_f, (const double *a, double b),
    int index = (int)b;
    return a[index];)
SKEL_MAPARRAY(reverse, arr_f, double)

int main(void)
{
    skel_vec *v1, *v2, *r;
    double *a, *b;
    const double *res;
    int i, st;

    skel_vec_new(&v1, SKEL_DOUBLE, 10);
    skel_vec_new(&v2, SKEL_DOUBLE, 10);
    skel_vec_new(&r, SKEL_DOUBLE, 10);
    a = skel_write(v1);
    b = skel_write(v2);
    for (i = 0; i < 10; ++i) {      /* v1 = 1 2 3 ..., v2 = 9 8 7 ... */
        a[i] = i + 1;
        b[i] = 10 - i - 1;
    }

    st = skel_run(reverse, &(skel_call){ .in = { v1, v2 }, .out = r });
    if (st != SKEL_OK) {
        fprintf(stderr, "reverse: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    res = skel_read(r);
    printf("Result:");
    for (i = 0; i < 10; ++i) printf(" %g", res[i]);
    printf("\n");

    skel_free(v1);
    skel_free(v2);
    skel_free(r);
    return 0;
}
