/* nbody.c - gravitational N-body steps: struct bodies, two outputs, a view.

   A body is its position with its mass (struct point) and its velocity
   (struct vec3), two containers.  One Map per time step reads body i's
   point and velocity, sums the pull of every body through a view of all
   the points (a read-only random-access operand), and writes the new
   velocity and the new position, its two outputs, in one pass.  The
   steps swap the containers.  The result is checked against a plain
   loop.

   SKEL_BACKEND=seq|omp|cuda|opencl ./nbody [n steps] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#include "skel_cl.h"

SKEL_STRUCT(point, float x; float y; float z; float m;)
SKEL_STRUCT(vec3, float x; float y; float z;)

/* velocity then position (semi-implicit Euler); softening 1e-2 */
SKEL_FUNC(void, step, (skel_index i, point p, vec3 v, skel_view_point all, float dt, point *np, vec3 *nv),
    float ax = 0, ay = 0, az = 0;
    skel_index j;
    for (j = 0; j < all.size; ++j) {
        point q = SKEL_AT(all, j);
        float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
        float d2 = dx * dx + dy * dy + dz * dz + 1e-2f;
        float f = j == i ? 0.0f : q.m / (d2 * sqrtf(d2));
        ax += f * dx; ay += f * dy; az += f * dz;
    }
    nv->x = v.x + dt * ax; nv->y = v.y + dt * ay; nv->z = v.z + dt * az;
    np->x = p.x + dt * nv->x; np->y = p.y + dt * nv->y; np->z = p.z + dt * nv->z; np->m = p.m;)
SKEL_MAP_X(nbody_step, step, SKEL_OUTS(point, vec3), SKEL_INS(point, vec3), SKEL_INDEX, SKEL_VIEWS(point),
           SKEL_UNIFORM(float))

/* the same step by hand */
static void step_ref(const point *p, const vec3 *v, point *np, vec3 *nv, int n, float dt)
{
    int i, j;
    for (i = 0; i < n; ++i) {
        float ax = 0, ay = 0, az = 0;
        for (j = 0; j < n; ++j) {
            float dx = p[j].x - p[i].x, dy = p[j].y - p[i].y, dz = p[j].z - p[i].z;
            float d2 = dx * dx + dy * dy + dz * dz + 1e-2f;
            float f = j == i ? 0.0f : p[j].m / (d2 * sqrtf(d2));
            ax += f * dx; ay += f * dy; az += f * dz;
        }
        nv[i].x = v[i].x + dt * ax; nv[i].y = v[i].y + dt * ay; nv[i].z = v[i].z + dt * az;
        np[i].x = p[i].x + dt * nv[i].x; np[i].y = p[i].y + dt * nv[i].y; np[i].z = p[i].z + dt * nv[i].z;
        np[i].m = p[i].m;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 2 ? atoi(argv[1]) : 2048, steps = argc > 2 ? atoi(argv[2]) : 10, s, i;
    skel_type tp = SKEL_TYPE(point), tv = SKEL_TYPE(vec3);
    skel_vec *pos[2], *vel[2];
    point *p0 = (point *)malloc((size_t)n * sizeof(point)), *p1 = (point *)malloc((size_t)n * sizeof(point));
    vec3 *v0 = (vec3 *)malloc((size_t)n * sizeof(vec3)), *v1 = (vec3 *)malloc((size_t)n * sizeof(vec3));
    const point *got;
    float dt = 1e-3f;
    double worst = 0;

    if (!p0 || !p1 || !v0 || !v1 || n < 1) return 1;
    srand(3);
    for (i = 0; i < n; ++i) {
        p0[i].x = (float)rand() / (float)RAND_MAX - 0.5f; p0[i].y = (float)rand() / (float)RAND_MAX - 0.5f;
        p0[i].z = (float)rand() / (float)RAND_MAX - 0.5f; p0[i].m = 1.0f / (float)n;
        v0[i].x = v0[i].y = v0[i].z = 0;
    }
    skel_vec_new_copy(&pos[0], tp, (size_t)n, p0);
    skel_vec_new(&pos[1], tp, (size_t)n);
    skel_vec_new_copy(&vel[0], tv, (size_t)n, v0);
    skel_vec_new(&vel[1], tv, (size_t)n);
    for (s = 0; s < steps; ++s) {
        int a = s % 2, b = 1 - a;
        skel_call c;
        memset(&c, 0, sizeof c);
        c.in[0] = pos[a]; c.in[1] = vel[a];
        c.views[0] = pos[a];
        c.uniform = &dt;
        c.outs[0] = pos[b]; c.outs[1] = vel[b];
        if (skel_run(nbody_step, &c) != SKEL_OK) {
            fprintf(stderr, "nbody: %s\n", skel_last_error());
            return 1;
        }
        step_ref(p0, v0, p1, v1, n, dt);
        memcpy(p0, p1, (size_t)n * sizeof(point));
        memcpy(v0, v1, (size_t)n * sizeof(vec3));
    }
    got = (const point *)skel_read(pos[steps % 2]);
    for (i = 0; i < n; ++i) {   /* the GPUs may fuse multiply-adds: compare to 1e-4 */
        double e = fabs(got[i].x - p0[i].x) + fabs(got[i].y - p0[i].y) + fabs(got[i].z - p0[i].z);
        if (e > worst) worst = e;
    }
    printf("%d bodies, %d steps; body 0 at (%.6f, %.6f, %.6f)\n", n, steps, got[0].x, got[0].y, got[0].z);
    printf("check against a plain loop (largest difference %.2g): %s\n", worst, worst < 1e-4 ? "OK" : "MISMATCH");
    for (i = 0; i < 2; ++i) { skel_free(pos[i]); skel_free(vel[i]); }
    free(p0); free(p1); free(v0); free(v1);
    return worst < 1e-4 ? 0 : 1;
}
