/* tasks_chain.c - what dmda's lookahead costs a chain of tiny calls: an
   80-call chain of a Map over n x n floats (each call reads the last
   one's output), submitted then skel_wait_all, with lookahead 16 and 64
   alternately, under dmda over PLACES (default "host,opencl"; PoCL will
   do: this times the scheduler, not the device).

   bench_tasks_chain [n [places]]      (n default 128; 41 chains each) */
#include <stdio.h>
#include <stdlib.h>
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cl.h"

SKEL_FUNC(float, relax_f, (float a), return 0.5f * a + 1.0f;)
SKEL_MAP(relax, relax_f, float, 1)

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    enum { REPS = 41, CALLS = 80 };
    int n = argc > 1 ? atoi(argv[1]) : 128, r, k, li, rc = 0;
    const int look[2] = { 16, 64 };
    const char *places = argc > 2 ? argv[2] : "host,opencl";
    double t[2][REPS];
    skel_vec *a, *b;
    float *pa;
    if (n < 1 || skel_vec_new(&a, SKEL_FLOAT, (size_t)n * (size_t)n) != SKEL_OK ||
        skel_vec_new(&b, SKEL_FLOAT, (size_t)n * (size_t)n) != SKEL_OK || !(pa = (float *)skel_write(a))) {
        fprintf(stderr, "usage: %s [n >= 1 [places]]: %s\n", argv[0], skel_last_error());
        return 2;
    }
    for (k = 0; k < n * n; ++k) pa[k] = (float)(k % 7);
    for (r = 0; r < REPS && !rc; ++r)
        for (li = 0; li < 2 && !rc; ++li) {
            double t0;
            rc = skel_sched_set(&(skel_sched_desc){ .policy = "dmda", .places = places, .lookahead = look[li], .nofile = 1 });
            t0 = _skel_now();
            for (k = 0; k < CALLS && !rc; ++k)
                rc = skel_submit(relax, &(skel_call){ .in = { k % 2 ? b : a }, .out = k % 2 ? a : b });
            if (!rc) rc = skel_wait_all();
            t[li][r] = _skel_now() - t0;
        }
    if (rc) { fprintf(stderr, "%s\n", skel_last_error()); return 1; }
    printf("%d-call chain, %d x %d floats, dmda on %s, %d chains each\n", CALLS, n, n, places, REPS);
    for (li = 0; li < 2; ++li) {
        qsort(t[li], REPS, sizeof(double), cmpd);
        printf("lookahead %2d: median %.3f ms (p10 %.3f, p90 %.3f)\n", look[li], 1e3 * t[li][REPS / 2],
               1e3 * t[li][REPS / 10], 1e3 * t[li][REPS * 9 / 10]);
    }
    skel_free(a);
    skel_free(b);
    return 0;
}
