/* The one translation unit that builds skel (with its GPU backends, which
   register themselves when their libraries and a device are found) and the
   harness; the tests themselves live in test_*.c, one file per area. */
#define _GNU_SOURCE               /* clock_gettime, setenv, execv; the pool's SKEL_PIN */
#include <stddef.h>
/* allocation failures on demand (skel_test.h: st_alloc_fail_after) */
void *st_malloc(size_t n);
void *st_realloc(void *p, size_t n);
#define SKEL_MALLOC(n) st_malloc(n)
#define SKEL_REALLOC(p, n) st_realloc((p), (n))
#define SKEL_FREE(p) free(p)
#define SKEL_IMPLEMENTATION
#include "skel.h"
#ifndef SKEL_TEST_NO_GPU          /* -DSKEL_TEST_NO_GPU: CPU backends only */
#include "skel_cuda.h"
#include "skel_cl.h"
#endif
#define SKEL_TEST_IMPLEMENTATION
#include "skel_test.h"

#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    /* The cases run omp with 3 threads, more than a small CI machine has
       cores; OpenMP's default busy-waiting then costs a scheduler slice at
       every barrier and doubles the run time.  The runtime reads
       OMP_WAIT_POLICY before main, so set it and start again (once: the
       variable is set the second time).  Results do not depend on it. */
    if (!getenv("OMP_WAIT_POLICY") && setenv("OMP_WAIT_POLICY", "passive", 1) == 0)
        execv("/proc/self/exe", argv);   /* returns only on failure: go on */
    return st_main(argc, argv);
}
