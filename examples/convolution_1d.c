/* convolution_1d.c - MapOverlap on a vector (thesis listing 3.5).

   A 5-tap weighted sum over 15 floats of value 10; reads past either end
   see the constant 1.  Prints
   Result: 7.6 9.4 13 13 13 13 13 13 13 13 13 13 13 9.4 7.6 */
#include <stdio.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"

/* a points at the element computed; a[-2] .. a[2] are its neighbours */
SKEL_FUNC(float, over_f, (const float *a),
    return a[-2] * 0.4f + a[-1] * 0.2f + a[0] * 0.1f + a[1] * 0.2f + a[2] * 0.4f;)
SKEL_OVERLAP(conv, over_f, float, 2)

int main(void)
{
    skel_vec *v, *r;
    const float *res;
    size_t i;
    int st;

    skel_vec_new_fill(&v, SKEL_FLOAT, 15, &(float){10});
    skel_vec_new(&r, SKEL_FLOAT, 15);

    if ((st = skel_overlap(conv, r, v, SKEL_EDGE_CONSTANT, &(float){1})) != SKEL_OK) {
        fprintf(stderr, "overlap: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    res = skel_read(r);
    printf("Result:");
    for (i = 0; i < skel_size(r); ++i) printf(" %g", res[i]);
    printf("\n");

    skel_free(v);
    skel_free(r);
    return 0;
}
