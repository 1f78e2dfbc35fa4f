/* prefix_sum.c - Scan (thesis listing 3.7): prefix sums of ten ones.

   Inclusive:           1 2 3 4 5 6 7 8 9 10
   Exclusive, init 0:   0 1 2 3 4 5 6 7 8 9 */
#include <stdio.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"

SKEL_FUNC(int32_t, plus_f, (int32_t a, int32_t b), return a + b;)
SKEL_SCAN(prefix_sum, plus_f, int32_t)

static void print(const char *label, skel_vec *v)
{
    const int32_t *d = skel_read(v);
    size_t i;
    printf("%s:", label);
    for (i = 0; i < skel_size(v); ++i) printf(" %d", (int)d[i]);
    printf("\n");
}

int main(void)
{
    skel_vec *v, *r;
    int32_t zero = 0;
    int st;

    skel_vec_new_fill(&v, SKEL_INT32, 10, &(int32_t){1});
    skel_vec_new(&r, SKEL_INT32, 10);

    if ((st = skel_scan(prefix_sum, r, v)) != SKEL_OK) {
        fprintf(stderr, "scan: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    print("Result", r);

    /* exclusive scan: the general call form with an initial value */
    st = skel_run(prefix_sum, &(skel_call){ .in = { v }, .out = r,
                                            .exclusive = 1, .init = &zero });
    if (st != SKEL_OK) {
        fprintf(stderr, "scan: %s: %s\n", skel_error_string(st), skel_last_error());
        return 1;
    }
    print("Exclusive", r);

    skel_free(v);
    skel_free(r);
    return 0;
}
