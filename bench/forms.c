/* forms.c - the expressive forms against hand-written code and the
   machine's limits, in one run (bench/results/forms.md).

   build/bench_forms cpu [--reps N]
       seq (and omp):   Pearson's correlation in one pass (a MapReduce
                        with a struct of five double sums) against the
                        fused C loop; a Map over struct elements (AoS)
                        against the same Map over four separate arrays
                        (SoA: four inputs, four outputs) and both by hand.
   build/bench_forms gpu [--backend cuda|opencl] [--reps N] [--only LIST]
       (LIST: some of pearson,pairs,nearest,heat,aos; all by default;
        pearson24: Pearson at 2^24 only)
       device-resident data (operands on the GPU before the timed calls,
       results left there), CUDA events around each call (host clock and
       a finish on OpenCL), medians of interleaved repetitions:
         Pearson one pass           vs the device copy bandwidth (reading
                                    both vectors once)
         MapPairs distances R x C   vs writing the R x C floats (memset)
         MapPairsReduce nearest     vs a hand-written kernel doing the
                                    same (thread per row, shared-memory
                                    tiles), compiled by NVRTC as skel's are
         MapOverlap3D 7 points      vs the device copy of the block
         AoS vs SoA Map             the same bytes as structs and as four
                                    arrays
   Bandwidths count each input read once and each output written once;
   the copy's counts read + write. */
#include "bench.h"
#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cuda.h"
#ifndef BENCH_NO_OPENCL
#include "skel_cl.h"
#endif
#include "bench_skel.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- the workloads ---- */
SKEL_STRUCT(moments, double sx; double sy; double sxx; double syy; double sxy;)
SKEL_FUNC(moments, of_pair, (float x, float y),
    moments m; m.sx = x; m.sy = y; m.sxx = (double)x * x; m.syy = (double)y * y; m.sxy = (double)x * y; return m;)
SKEL_FUNC(moments, add_moments, (moments a, moments b),
    a.sx += b.sx; a.sy += b.sy; a.sxx += b.sxx; a.syy += b.syy; a.sxy += b.sxy; return a;)
SKEL_MAPREDUCE_X(pearson, of_pair, add_moments, moments, SKEL_INS(float, float), SKEL_NO_INDEX, SKEL_NO_VIEWS,
                 SKEL_NO_UNIFORM)
/* the same sums declared commutative (as examples/pearson.c does): any order */
SKEL_FUNC_COMMUTATIVE(moments, add_moments_c, (moments a, moments b),
    a.sx += b.sx; a.sy += b.sy; a.sxx += b.sxx; a.syy += b.syy; a.sxy += b.sxy; return a;)
SKEL_MAPREDUCE_X(pearson_c, of_pair, add_moments_c, moments, SKEL_INS(float, float), SKEL_NO_INDEX, SKEL_NO_VIEWS,
                 SKEL_NO_UNIFORM)

SKEL_STRUCT(particle, float x; float y; float vx; float vy;)
SKEL_FUNC(particle, move_aos, (particle p, float dt),
    p.x += p.vx * dt; p.y += p.vy * dt; p.vx *= 0.999f; p.vy -= 9.81f * dt; return p;)
SKEL_FUNC(void, move_soa, (float x, float y, float vx, float vy, float dt, float *nx, float *ny, float *nvx, float *nvy),
    *nx = x + vx * dt; *ny = y + vy * dt; *nvx = vx * 0.999f; *nvy = vy - 9.81f * dt;)
SKEL_MAP_X(step_aos, move_aos, SKEL_OUTS(particle), SKEL_INS(particle), SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_UNIFORM(float))
SKEL_MAP_X(step_soa, move_soa, SKEL_OUTS(float, float, float, float), SKEL_INS(float, float, float, float),
           SKEL_NO_INDEX, SKEL_NO_VIEWS, SKEL_UNIFORM(float))

SKEL_STRUCT(p3, float x; float y; float z;)
SKEL_STRUCT(hit, float d; int32_t j;)
SKEL_FUNC(float, dist2, (p3 a, p3 b),
    float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z; return dx * dx + dy * dy + dz * dz;)
SKEL_FUNC(hit, candidate, (skel_index i, skel_index j, p3 a, p3 b),
    hit h; float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    (void)i; h.d = dx * dx + dy * dy + dz * dz; h.j = (int32_t)j; return h;)
SKEL_FUNC(hit, nearer, (hit a, hit b), return b.d < a.d ? b : a;)
SKEL_MAPPAIRS(distances, dist2, float, SKEL_INS(p3), SKEL_INS(p3))
SKEL_MAPPAIRSREDUCE_X(nearest, candidate, nearer, hit, SKEL_INS(p3), SKEL_INS(p3), SKEL_INDEX2D, SKEL_NO_VIEWS,
                      SKEL_NO_UNIFORM)

SKEL_FUNC(float, heat7, (const float *u, skel_index rs, skel_index ps),
    return u[0] + 0.1f * (u[-1] + u[1] + u[-rs] + u[rs] + u[-ps] + u[ps] - 6 * u[0]);)
SKEL_OVERLAP3D(heat, heat7, float, 1, 1, 1)

/* the hand-written nearest-neighbour kernel (CUDA C++, compiled by NVRTC) */
static const char hand_nn_src[] =
    "struct p3 { float x, y, z; };\n"
    "struct hit { float d; int j; };\n"
    "extern \"C\" __global__ void hand_nn(const p3 *p, const p3 *q, hit *out, long long R, long long C)\n"
    "{\n"
    "    __shared__ p3 s[256];\n"
    "    long long i = blockIdx.x * 256LL + threadIdx.x;\n"
    "    p3 a = p[i < R ? i : 0];\n"
    "    float best = 3.4e38f;\n"
    "    int bj = 0;\n"
    "    for (long long t0 = 0; t0 < C; t0 += 256) {\n"
    "        int cnt = C - t0 < 256 ? (int)(C - t0) : 256;\n"
    "        __syncthreads();\n"
    "        if (threadIdx.x < cnt) s[threadIdx.x] = q[t0 + threadIdx.x];\n"
    "        __syncthreads();\n"
    "        #pragma unroll 4\n"
    "        for (int k = 0; k < cnt; ++k) {\n"
    "            float dx = a.x - s[k].x, dy = a.y - s[k].y, dz = a.z - s[k].z, d = dx * dx + dy * dy + dz * dz;\n"
    "            if (d < best) { best = d; bj = (int)(t0 + k); }\n"
    "        }\n"
    "    }\n"
    "    if (i < R) { out[i].d = best; out[i].j = bj; }\n"
    "}\n";

/* Pearson's five sums by hand (CUDA C++, compiled by NVRTC): a
   resident grid, each thread folding float4 pairs two at a time in any
   order (sums are commutative), the block's sums through shuffles, and
   the last block to finish folding the blocks' partials.  What the GPU
   gives a one-pass Pearson that need not keep skel's index order; with
   n4 = 0 and one block it is a call's least cost (a launch writing the
   40-byte result). */
static const char hand_pearson_src[] =
    "struct m5 { double a, b, c, d, e; };\n"
    "__device__ __forceinline__ void add(m5 &s, float x, float y)\n"
    "{ double u = x, v = y; s.a += u; s.b += v; s.c += u * u; s.d += v * v; s.e += u * v; }\n"
    "__device__ __forceinline__ void add4(m5 &s, float4 x, float4 y)\n"
    "{ add(s, x.x, y.x); add(s, x.y, y.y); add(s, x.z, y.z); add(s, x.w, y.w); }\n"
    "__device__ m5 block_sum(m5 s, double (*sh)[5])\n"
    "{\n"
    "    double v[5] = { s.a, s.b, s.c, s.d, s.e };\n"
    "    int w = threadIdx.x / 32, l = threadIdx.x % 32, k, o;\n"
    "    for (k = 0; k < 5; ++k) {\n"
    "        for (o = 16; o; o >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], o);\n"
    "        if (l == 0) sh[w][k] = v[k];\n"
    "    }\n"
    "    __syncthreads();\n"
    "    m5 t = { 0, 0, 0, 0, 0 };\n"
    "    if (threadIdx.x == 0)\n"
    "        for (w = 0; w < 8; ++w) { t.a += sh[w][0]; t.b += sh[w][1]; t.c += sh[w][2]; t.d += sh[w][3]; t.e += sh[w][4]; }\n"
    "    return t;\n"
    "}\n"
    "extern \"C\" __global__ void __launch_bounds__(256) hand_pearson(const float4 *x, const float4 *y, m5 *part,\n"
    "                                                         unsigned *count, m5 *out, long long n4)\n"
    "{\n"
    "    __shared__ double sh[8][5];\n"
    "    __shared__ int last;\n"
    "    m5 s = { 0, 0, 0, 0, 0 };\n"
    "    long long st = (long long)gridDim.x * 256, i = blockIdx.x * 256LL + threadIdx.x;\n"
    "    for (; i + st < n4; i += 2 * st) {\n"
    "        float4 a = x[i], b = y[i], c = x[i + st], d = y[i + st];\n"
    "        add4(s, a, b); add4(s, c, d);\n"
    "    }\n"
    "    if (i < n4) add4(s, x[i], y[i]);\n"
    "    s = block_sum(s, sh);\n"
    "    if (threadIdx.x == 0) {\n"
    "        part[blockIdx.x] = s;\n"
    "        __threadfence();\n"
    "        last = atomicInc(count, gridDim.x - 1) == gridDim.x - 1;   /* (wraps to 0 for the next launch) */\n"
    "    }\n"
    "    __syncthreads();\n"
    "    if (last) {\n"
    "        m5 t = { 0, 0, 0, 0, 0 };\n"
    "        __threadfence();\n"
    "        for (unsigned j = threadIdx.x; j < gridDim.x; j += 256) {\n"
    "            volatile m5 *q = part + j;\n"
    "            t.a += q->a; t.b += q->b; t.c += q->c; t.d += q->d; t.e += q->e;\n"
    "        }\n"
    "        __syncthreads();\n"
    "        t = block_sum(t, sh);\n"
    "        if (threadIdx.x == 0) out[0] = t;\n"
    "    }\n"
    "}\n";

/* The 7-point step by hand (CUDA C++, NVRTC), duplicated edges, n a
   multiple of 32: the textbook 2.5-D kernel, as skel's but written for
   this one case (32-bit offsets, no edge policy but clamping, no user
   function): a 32 x 32 tile a group, 4 rows a thread, the current plane
   and its halo in shared memory, the z neighbours in registers, the
   plane after next in flight; zrun planes a group. */
static const char hand_heat_src[] =
    "#define LW 34\n"
    "extern \"C\" __global__ void __launch_bounds__(256) hand_heat(const float *__restrict__ in, float *__restrict__ out,\n"
    "                                                      int n, int zrun)\n"
    "{\n"
    "    __shared__ float s[34 * LW];\n"
    "    int lid = threadIdx.x, tx = lid & 31, ty = (lid >> 5) * 4, nt = n / 32, k;\n"
    "    int gx = blockIdx.x % nt, gy = (blockIdx.x / nt) % nt, z0 = blockIdx.x / (nt * nt) * zrun;\n"
    "    int z1 = min(z0 + zrun, n), x = gx * 32 + tx, y0 = gy * 32 + ty, hy = -2, hx = 0, hoff, own[4];\n"
    "    size_t ps = (size_t)n * n;\n"
    "    float prev[4], cur[4], nxt[4], nn[4], h = 0, hn = 0, hnn = 0;\n"
    "    if (lid < 64) { hy = lid < 32 ? -1 : 32; hx = tx; }\n"
    "    else if (lid < 64 + 68) { hy = (lid - 64) / 2 - 1; hx = (lid & 1) ? 32 : -1; }\n"
    "    hoff = min(max(gy * 32 + hy, 0), n - 1) * n + min(max(gx * 32 + hx, 0), n - 1);\n"
    "    for (k = 0; k < 4; ++k) own[k] = min(y0 + k, n - 1) * n + x;\n"
    "#define PLANE(z) (in + (size_t)min(max((z), 0), n - 1) * ps)\n"
    "    for (k = 0; k < 4; ++k) { prev[k] = PLANE(z0 - 1)[own[k]]; cur[k] = PLANE(z0)[own[k]]; nxt[k] = PLANE(z0 + 1)[own[k]]; }\n"
    "    if (hy != -2) { h = PLANE(z0)[hoff]; hn = PLANE(z0 + 1)[hoff]; }\n"
    "    for (int z = z0; z < z1; ++z) {\n"
    "        const float *pn = PLANE(z + 2);\n"
    "        for (k = 0; k < 4; ++k) s[(ty + k + 1) * LW + tx + 1] = cur[k];\n"
    "        if (hy != -2) s[(hy + 1) * LW + hx + 1] = h;\n"
    "        __syncthreads();\n"
    "        for (k = 0; k < 4; ++k) nn[k] = pn[own[k]];\n"
    "        if (hy != -2) hnn = pn[hoff];\n"
    "        for (k = 0; k < 4; ++k) {\n"
    "            const float *r = s + (ty + k + 1) * LW + tx + 1;\n"
    "            float c = cur[k], up = k ? cur[k - 1] : r[-LW], dn = k < 3 ? cur[k + 1] : r[LW];\n"
    "            out[z * ps + (size_t)(y0 + k) * n + x] = c + 0.1f * (r[-1] + r[1] + up + dn + prev[k] + nxt[k] - 6 * c);\n"
    "        }\n"
    "        __syncthreads();\n"
    "        for (k = 0; k < 4; ++k) { prev[k] = cur[k]; cur[k] = nxt[k]; nxt[k] = nn[k]; }\n"
    "        h = hn; hn = hnn;\n"
    "    }\n"
    "}\n";

static int reps = 15;

static double median_of(double *t, int n) { return bench_median(t, n); }

static void fill(float *p, size_t n, unsigned seed)
{
    size_t i;
    uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (i = 0; i < n; ++i) {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        p[i] = (float)((s * 0x2545F4914F6CDD1DULL) >> 40) / (float)(1 << 24);
    }
}

static skel_vec *vec_fill(skel_type t, size_t n, unsigned seed)
{
    skel_vec *v;
    size_t esz = skel_type_get(t)->size;
    if (skel_vec_new(&v, t, n) != SKEL_OK) { fprintf(stderr, "%s\n", skel_last_error()); exit(1); }
    fill((float *)skel_write(v), n * esz / 4, seed);
    return v;
}

static void ok(int rc, const char *what)
{
    if (rc != SKEL_OK) { fprintf(stderr, "%s: %s\n", what, skel_last_error()); exit(1); }
}

/* ======================================================================
   CPU
   ====================================================================== */
static moments hand_pearson(const float *x, const float *y, size_t n)
{
    moments m = { 0, 0, 0, 0, 0 };
    size_t i;
    for (i = 0; i < n; ++i) {
        double a = x[i], b = y[i];
        m.sx += a; m.sy += b; m.sxx += a * a; m.syy += b * b; m.sxy += a * b;
    }
    return m;
}

static void hand_aos(const particle *p, particle *q, size_t n, float dt)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        particle a = p[i];
        a.x += a.vx * dt; a.y += a.vy * dt; a.vx *= 0.999f; a.vy -= 9.81f * dt;
        q[i] = a;
    }
}

/* restrict parameters, as skel's own Map chunks have: with the arrays
   behind two pointer arrays gcc 12 does not vectorise (eight pointers to
   check for overlap) and the scalar loop ran 4-6 times slower. */
static void hand_soa_r(const float *restrict x, const float *restrict y, const float *restrict vx,
                       const float *restrict vy, float *restrict nx, float *restrict ny, float *restrict nvx,
                       float *restrict nvy, size_t n, float dt)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        nx[i] = x[i] + vx[i] * dt; ny[i] = y[i] + vy[i] * dt;
        nvx[i] = vx[i] * 0.999f; nvy[i] = vy[i] - 9.81f * dt;
    }
}
static void hand_soa(const float *const *in, float *const *out, size_t n, float dt)
{
    hand_soa_r(in[0], in[1], in[2], in[3], out[0], out[1], out[2], out[3], n, dt);
}

/* Pearson's instance sk (ordered or commutative: what) on a CPU variant
   against the fused C loop, interleaved */
static void cpu_pearson(skel_skeleton *sk, const char *what, size_t n, const char *backend, int threads)
{
    skel_vec *x = vec_fill(SKEL_FLOAT, n, 1), *y = vec_fill(SKEL_FLOAT, n, 2);
    const float *px = (const float *)skel_read(x), *py = (const float *)skel_read(y);
    double ts[64], th[64], t0;
    moments m, h = { 0, 0, 0, 0, 0 };   /* (reps >= 1 sets it: gcc -O1 cannot tell) */
    int r;
    skel_set_plan(sk, bench_fixed_plan(backend, threads, 0));
    for (r = 0; r < reps; ++r) {   /* interleaved */
        t0 = bench_now();
        ok(skel_mapreduce2(sk, x, y, &m), "pearson");
        ts[r] = bench_now() - t0;
        t0 = bench_now();
        h = hand_pearson(px, py, n);
        bench_barrier();
        th[r] = bench_now() - t0;
        bench_sink(h.sxy + m.sxy);
    }
    printf("| Pearson one pass, %s | %s/%d | 2^%d | %.3f | %.3f | %.1e | %.2f |\n", what, backend, threads,
           (int)log2((double)n), 1e3 * median_of(ts, reps), 1e3 * median_of(th, reps), fabs(m.sxy - h.sxy) / fabs(h.sxy),
           median_of(th, reps) / median_of(ts, reps));
    skel_free(x);
    skel_free(y);
}

/* Where the buffers' pages land moves a 2^24 Map by up to 25% on the
   development VM (skel's loop and the hand loop over the same two
   containers: 22.5-23.5 ms; over a second output container allocated just
   after: 18-19.5), more than AoS against SoA.  So the hand loops write the
   very containers skel's calls write, and the run is repeated over fresh
   allocations (trials); medians over trials x repetitions, interleaved. */
static void cpu_aos_soa(size_t n, const char *backend, int threads)
{
    enum { TRIALS = 5 };
    skel_type tp = SKEL_TYPE(particle);
    float dt = 1e-3f;
    double t[4][TRIALS * 64], t0;
    int r, k, trial, per = reps < 64 ? reps : 64;
    skel_set_plan(step_aos, bench_fixed_plan(backend, threads, 0));
    skel_set_plan(step_soa, bench_fixed_plan(backend, threads, 0));
    for (trial = 0; trial < TRIALS; ++trial) {
        skel_vec *a = vec_fill(tp, n, 3 + (unsigned)trial), *b, *s[4], *o[4];
        const float *hs[4];
        float *hop[4];
        skel_call ca, cs;
        ok(skel_vec_new(&b, tp, n), "aos");
        memset(&ca, 0, sizeof ca);
        ca.in[0] = a; ca.out = b; ca.uniform = &dt;
        memset(&cs, 0, sizeof cs);
        cs.uniform = &dt;
        for (k = 0; k < 4; ++k) {
            s[k] = vec_fill(SKEL_FLOAT, n, 10 + (unsigned)(k + 4 * trial));
            ok(skel_vec_new(&o[k], SKEL_FLOAT, n), "soa");
            cs.in[k] = s[k]; cs.outs[k] = o[k];
        }
        for (r = 0; r < per; ++r) {
            int v;
            for (v = 0; v < 4; ++v) {   /* each variant first in turn: no one always follows the same one */
                int which = (v + r + trial) % 4;
                const particle *pa = (const particle *)skel_read(a);
                particle *pb = (particle *)skel_write(b);
                for (k = 0; k < 4; ++k) { hs[k] = (const float *)skel_read(s[k]); hop[k] = (float *)skel_write(o[k]); }
                t0 = bench_now();
                if (which == 0) ok(skel_run(step_aos, &ca), "aos");
                else if (which == 1) ok(skel_run(step_soa, &cs), "soa");
                else if (which == 2) hand_aos(pa, pb, n, dt);
                else hand_soa(hs, hop, n, dt);
                bench_barrier();
                t[which][trial * per + r] = bench_now() - t0;
                bench_sink(pb[n / 2].x + hop[0][n / 2]);
            }
        }
        skel_free(a); skel_free(b);
        for (k = 0; k < 4; ++k) { skel_free(s[k]); skel_free(o[k]); }
    }
    for (k = 0; k < 4; ++k) t[k][0] = median_of(t[k], TRIALS * per);
    printf("| %s/%d | 2^%d | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f |\n",
           backend, threads, (int)log2((double)n), 1e3 * t[0][0], 1e3 * t[1][0], 1e3 * t[2][0], 1e3 * t[3][0],
           t[1][0] / t[0][0], t[3][0] / t[0][0], t[2][0] / t[0][0]);
}

static void cpu(void)
{
    static const int lg[] = { 20, 24 };
    int i;
    printf("## CPU: %s\n", _skel_backends[0].info);
    printf("| workload | variant | n | skel ms | hand ms | rel. diff | skel speed / hand |\n|---|---|---|---|---|---|---|\n");
    for (i = 0; i < 2; ++i) {
        cpu_pearson(pearson, "ordered", (size_t)1 << lg[i], "seq", 0);
        cpu_pearson(pearson_c, "commutative", (size_t)1 << lg[i], "seq", 0);
    }
    if (skel_backend_available("omp"))
        for (i = 0; i < 2; ++i) {
            cpu_pearson(pearson, "ordered", (size_t)1 << lg[i], "omp", _skel_omp_default_threads());
            cpu_pearson(pearson_c, "commutative", (size_t)1 << lg[i], "omp", _skel_omp_default_threads());
        }
    printf("\n| Map over particles | n | skel AoS ms | skel SoA ms | hand AoS ms | hand SoA ms"
           " | skel AoS speed / skel SoA | / hand SoA | / hand AoS |\n|---|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < 2; ++i) cpu_aos_soa((size_t)1 << lg[i], "seq", 0);
    if (skel_backend_available("omp"))
        for (i = 0; i < 2; ++i) cpu_aos_soa((size_t)1 << lg[i], "omp", _skel_omp_default_threads());
}

/* ======================================================================
   GPU (device-resident data)
   ====================================================================== */
static const char *backend = "cuda";
static const char *only;   /* --only a,b: the GPU workloads named (pearson pairs nearest heat aos) */
static int use_events;

static int wanted(const char *name)
{
    return !only || strstr(only, name) != NULL;
}
static _skel_CUevent ev0, ev1;

static void gsync(void)
{
    if (skel_backend_available("cuda")) _skel_cu.cuCtxSynchronize();
#ifndef BENCH_NO_OPENCL
    if (skel_backend_available("opencl")) skel_cl_finish();
#endif
}

typedef void (*work_fn)(void *ctx);

/* median milliseconds of fn over reps runs (after a warm-up run) */
static double gtime(work_fn fn, void *ctx, int events)
{
    double t[64], t0 = 0;
    int r;
    fn(ctx);
    gsync();
    for (r = 0; r < reps; ++r) {
        float ms = 0;
        if (events) _skel_cu.cuEventRecord(ev0, NULL);
        else t0 = bench_now();
        fn(ctx);
        if (events) {
            _skel_cu.cuEventRecord(ev1, NULL);
            _skel_cu.cuEventSynchronize(ev1);
            _skel_cu.cuEventElapsedTime(&ms, ev0, ev1);
            t[r] = ms;
        } else {
            gsync();
            t[r] = 1e3 * (bench_now() - t0);
        }
    }
    return median_of(t, reps);
}

typedef struct { skel_skeleton *sk; skel_call c; } run_ctx;
static void run_call(void *p)
{
    run_ctx *r = (run_ctx *)p;
    ok(skel_run(r->sk, &r->c), r->sk->name);
}

typedef struct { _skel_CUdeviceptr a, b; size_t bytes; int memset; } copy_ctx;
static void run_copy(void *p)
{
    copy_ctx *c = (copy_ctx *)p;
    if (c->memset) _skel_cu.cuMemsetD8_v2(c->b, 0, c->bytes);
    else _skel_cu.cuMemcpyDtoD_v2(c->b, c->a, c->bytes);
}

/* milliseconds of a device copy (memset: a write) of bytes */
static double copy_ms(size_t bytes, int memset_only)
{
    copy_ctx c;
    double ms;
    c.bytes = bytes;
    c.memset = memset_only;
    if (_skel_cu.cuMemAlloc_v2(&c.a, bytes) != 0 || _skel_cu.cuMemAlloc_v2(&c.b, bytes) != 0) {
        fprintf(stderr, "copy baseline: out of device memory\n");
        exit(1);
    }
    ms = gtime(run_copy, &c, 1);
    _skel_cu.cuMemFree_v2(c.a);
    _skel_cu.cuMemFree_v2(c.b);
    return ms;
}

/* operands on the GPU before timing: one call of anything moves them */
static void on_device(skel_vec *v)
{
    int b = _skel_backend_find(backend);
    if (!_skel_acquire(v, _skel_backends[b].space, _SKEL_READ)) { fprintf(stderr, "upload: %s\n", skel_last_error()); exit(1); }
    _skel_map_reset(v, _skel_backends[b].space);     /* valid there only, as a GPU call leaves it */
}

typedef struct { _skel_CUfunction f; _skel_CUdeviceptr x, y, part, count, out; long long n4; size_t grid; } hp_ctx;
static void run_hand_pearson(void *v)
{
    hp_ctx *h = (hp_ctx *)v;
    void *args[6];
    args[0] = &h->x; args[1] = &h->y; args[2] = &h->part; args[3] = &h->count; args[4] = &h->out; args[5] = &h->n4;
    if (_skel_cuda_launch(0, h->f, h->grid, 256, 0, args) != SKEL_OK) {
        fprintf(stderr, "hand_pearson: %s\n", skel_last_error());
        exit(1);
    }
}

/* The hand-written Pearson kernel over x and y (on the device): its
   median ms, the sum of x * y it made (*sxy), and with one_block the
   median ms of one block over no data (*least). */
static double hand_pearson_ms(skel_vec *x, skel_vec *y, size_t n, double *sxy, double *least)
{
    static _skel_CUfunction f;
    int sp = _skel_cuda_devs[0].space, per = 0;
    hp_ctx h;
    moments m;
    double ms;
    if (!f) {
        _skel_CUmodule mod;
        ok(_skel_cuda_module(0, hand_pearson_src, "hand_pearson.cu", NULL, &mod), "hand_pearson compile");
        ok(_SKEL_CU(cuModuleGetFunction, (&f, mod, "hand_pearson")), "hand_pearson");
    }
    _skel_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per, f, 256, 0);
    h.f = f;
    h.grid = (size_t)(per > 0 ? per : 1) * (size_t)_skel_cuda_devs[0].info.sms;
    h.x = ((_skel_cuda_buf *)_skel_acquire(x, sp, _SKEL_READ))->ptr;
    h.y = ((_skel_cuda_buf *)_skel_acquire(y, sp, _SKEL_READ))->ptr;
    if (_skel_cu.cuMemAlloc_v2(&h.part, h.grid * sizeof m) != 0 || _skel_cu.cuMemAlloc_v2(&h.count, 64) != 0 ||
        _skel_cu.cuMemAlloc_v2(&h.out, sizeof m) != 0) {
        fprintf(stderr, "hand_pearson: out of device memory\n");
        exit(1);
    }
    _skel_cu.cuMemsetD8_v2(h.count, 0, 64);
    h.n4 = (long long)(n / 4);
    ms = gtime(run_hand_pearson, &h, 1);
    _skel_cu.cuMemcpyDtoH_v2(&m, h.out, sizeof m);
    *sxy = m.sxy;
    h.n4 = 0; h.grid = 1;
    *least = gtime(run_hand_pearson, &h, 1);
    _skel_cu.cuMemFree_v2(h.part); _skel_cu.cuMemFree_v2(h.count); _skel_cu.cuMemFree_v2(h.out);
    return ms;
}

static void run_call10(void *p)
{
    int k;
    for (k = 0; k < 10; ++k) run_call(p);
}

/* Pearson at 2^lg on the GPU, ordered and commutative: one call between
   events (the host's time to queue it counts where the GPU waits for it),
   10 calls back to back (a call's share of a stream of them: the queueing
   overlaps the calls before), against the copy and the hand kernel */
static void gpu_pearson(int lg)
{
    size_t n = (size_t)1 << lg;
    run_ctx r;
    skel_vec *x = vec_fill(SKEL_FLOAT, n, 1), *y = vec_fill(SKEL_FLOAT, n, 2), *out;
    double ms, ms10, cms = copy_ms(8 * n, 0), bw, cbw = 2 * 8.0 * (double)n / cms / 1e6, hms = 0, hsxy = 0, least = 0,
           host[64];
    skel_skeleton *sk[2] = { pearson, pearson_c };
    const char *what[2] = { "ordered", "commutative" };
    int k, v;
    ok(skel_vec_new(&out, SKEL_TYPE(moments), 1), "out");
    on_device(x); on_device(y);
    if (skel_backend_available("cuda")) hms = hand_pearson_ms(x, y, n, &hsxy, &least);
    for (v = 0; v < 2; ++v) {
        memset(&r, 0, sizeof r);
        r.sk = sk[v]; r.c.in[0] = x; r.c.in[1] = y; r.c.out = out;   /* the sums stay on the device */
        ms = gtime(run_call, &r, use_events);
        ms10 = gtime(run_call10, &r, use_events) / 10;
        for (k = 0; k < reps; ++k) {   /* the host's time to queue the call */
            double t0;
            gsync();
            t0 = bench_now();
            run_call(&r);
            host[k] = 1e6 * (bench_now() - t0);
        }
        gsync();
        bw = 8.0 * (double)n / ms / 1e6;
        printf("| Pearson one pass, %s (reads 8 bytes/element) | 2^%d | %.4f | %.0f GB/s | copy %.0f GB/s | %.2f |"
               " 10 back to back: %.4f ms a call, %.2f of the copy; hand %.4f ms (%.2f of the copy, sxy rel. diff %.1e);"
               " one block %.4f ms; host queues in %.1f us\n",
               what[v], lg, ms, bw, cbw, bw / cbw, ms10, 8.0 * (double)n / ms10 / 1e6 / cbw, hms,
               hms > 0 ? 8.0 * (double)n / hms / 1e6 / cbw : 0,
               fabs(hsxy - ((const moments *)skel_read(out))->sxy) / fabs(hsxy), least, median_of(host, reps));
        on_device(out);
    }
    skel_free(x); skel_free(y); skel_free(out);
}

/* registers and groups a multiprocessor of sk's CUDA kernel `name` */
static void kernel_info(skel_skeleton *sk, const char *name)
{
    _skel_cuda_kern *k;
    _skel_CUfunction f;
    int regs = 0, groups = 0;
    if (strcmp(backend, "cuda") != 0 || _skel_cuda_kernels(sk, 0, 0, 0, &k) != SKEL_OK || _skel_cuda_fn(k, name, &f) != SKEL_OK)
        return;
    _skel_cu.cuFuncGetAttribute(&regs, _SKEL_CUF_NUM_REGS, f);
    _skel_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&groups, f, k->block, 0);
    printf("(%s: %d registers, %d groups of %d a multiprocessor)\n", name, regs, groups, k->block);
}

static void gpu_pairs(size_t R, size_t C)
{
    run_ctx r;
    skel_type t3 = SKEL_TYPE(p3);
    skel_vec *p = vec_fill(t3, R, 4), *q = vec_fill(t3, C, 5);
    skel_mat *d;
    double ms, wms = copy_ms(R * C * 4, 1);
    ok(skel_mat_new(&d, SKEL_FLOAT, R, C), "d");
    on_device(p); on_device(q);
    memset(&r, 0, sizeof r);
    r.sk = distances; r.c.in[0] = p; r.c.in[1] = q; r.c.out = d;
    ms = gtime(run_call, &r, use_events);
    printf("| MapPairs distances %zu x %zu (writes %.0f MB) | %.4f | %.0f GB/s | memset %.4f ms, %.0f GB/s | %.2f |\n", R, C,
           (double)R * C * 4 / 1e6, ms, (double)R * C * 4 / ms / 1e6, wms, (double)R * C * 4 / wms / 1e6, wms / ms);
    skel_free(p); skel_free(q); skel_free(d);
}

typedef struct { _skel_CUfunction f; _skel_CUdeviceptr p, q, out; long long R, C; } hand_ctx;
static void run_hand_nn(void *v)
{
    hand_ctx *h = (hand_ctx *)v;
    void *args[5];
    args[0] = &h->p; args[1] = &h->q; args[2] = &h->out; args[3] = &h->R; args[4] = &h->C;
    if (_skel_cuda_launch(0, h->f, (size_t)((h->R + 255) / 256), 256, 0, args) != SKEL_OK) {
        fprintf(stderr, "hand_nn: %s\n", skel_last_error());
        exit(1);
    }
}

static void gpu_nearest(size_t R, size_t C)
{
    run_ctx r;
    skel_type t3 = SKEL_TYPE(p3), th = SKEL_TYPE(hit);
    skel_vec *p = vec_fill(t3, R, 6), *q = vec_fill(t3, C, 7), *o, *ho;
    double ms, hms = 0;
    long bad = 0;
    size_t i;
    ok(skel_vec_new(&o, th, R), "o");
    ok(skel_vec_new(&ho, th, R), "ho");
    on_device(p); on_device(q);
    memset(&r, 0, sizeof r);
    r.sk = nearest; r.c.in[0] = p; r.c.in[1] = q; r.c.out = o; r.c.direction = SKEL_ROWS;
    ms = gtime(run_call, &r, use_events);
    if (skel_backend_available("cuda")) {
        int sp = _skel_cuda_devs[0].space;
        hand_ctx h;
        _skel_CUmodule mod;
        ok(_skel_cuda_module(0, hand_nn_src, "hand_nn.cu", NULL, &mod), "hand_nn compile");
        ok(_SKEL_CU(cuModuleGetFunction, (&h.f, mod, "hand_nn")), "hand_nn");
        h.p = ((_skel_cuda_buf *)_skel_acquire(p, sp, _SKEL_READ))->ptr;
        h.q = ((_skel_cuda_buf *)_skel_acquire(q, sp, _SKEL_READ))->ptr;
        h.out = ((_skel_cuda_buf *)_skel_acquire(ho, sp, _SKEL_WRITE))->ptr;
        _skel_mark_written(ho, sp);
        h.R = (long long)R; h.C = (long long)C;
        hms = gtime(run_hand_nn, &h, 1);
        for (i = 0; i < R; ++i)   /* the same answers */
            bad += ((const hit *)skel_read(o))[i].j != ((const hit *)skel_read(ho))[i].j;
    }
    printf("| MapPairsReduce nearest %zu x %zu (%.2g pairs) | %.4f | %.1f Gpairs/s | hand kernel %.4f ms | %.2f |%s\n", R, C,
           (double)R * C, ms, (double)R * C / ms / 1e6, hms, hms > 0 ? hms / ms : 0, bad ? " DIFFERENT ANSWERS" : "");
    skel_free(p); skel_free(q); skel_free(o); skel_free(ho);
}

typedef struct { _skel_CUfunction f; _skel_CUdeviceptr in, out; int n, zrun; size_t grid; } hh_ctx;
static void run_hand_heat(void *p)
{
    hh_ctx *h = (hh_ctx *)p;
    void *args[4];
    args[0] = &h->in; args[1] = &h->out; args[2] = &h->n; args[3] = &h->zrun;
    if (_skel_cuda_launch(0, h->f, h->grid, 256, 0, args) != SKEL_OK) {
        fprintf(stderr, "hand_heat: %s\n", skel_last_error());
        exit(1);
    }
}

/* The hand-written 7-point kernel from u into a scratch block: its median
   ms; *bad: how many outputs differ from skel's in v by more than 1e-5. */
static double hand_heat_ms(skel_ten *u, skel_ten *v, size_t n, long *bad)
{
    static _skel_CUfunction f;
    int sp = _skel_cuda_devs[0].space;
    size_t N = n * n * n, i, tiles = (n / 32) * (n / 32);
    hh_ctx h;
    double ms;
    float *got = (float *)malloc(N * sizeof(float));
    const float *want;
    if (!f) {
        _skel_CUmodule mod;
        ok(_skel_cuda_module(0, hand_heat_src, "hand_heat.cu", NULL, &mod), "hand_heat compile");
        ok(_SKEL_CU(cuModuleGetFunction, (&f, mod, "hand_heat")), "hand_heat");
    }
    h.f = f;
    h.n = (int)n;
    h.zrun = 64;
    while (h.zrun > 4 && tiles * ((n + (size_t)h.zrun - 1) / (size_t)h.zrun) < (size_t)_skel_cuda_devs[0].info.sms * 8)
        h.zrun /= 2;
    h.grid = tiles * ((n + (size_t)h.zrun - 1) / (size_t)h.zrun);
    h.in = ((_skel_cuda_buf *)_skel_acquire(u, sp, _SKEL_READ))->ptr;
    if (!got || _skel_cu.cuMemAlloc_v2(&h.out, N * sizeof(float)) != 0) {
        fprintf(stderr, "hand_heat: out of memory\n");
        exit(1);
    }
    ms = gtime(run_hand_heat, &h, 1);
    _skel_cu.cuMemcpyDtoH_v2(got, h.out, N * sizeof(float));
    want = (const float *)skel_read(v);
    for (*bad = 0, i = 0; i < N; ++i) *bad += fabsf(got[i] - want[i]) > 1e-5f * (1 + fabsf(want[i]));
    _skel_cu.cuMemFree_v2(h.out);
    free(got);
    return ms;
}

static void gpu_heat(size_t n)
{
    run_ctx r;
    skel_ten *u, *v;
    size_t N = n * n * n;
    long bad = 0;
    double ms, cms = copy_ms(N * 4, 0), hms = 0;
    ok(skel_ten_new(&u, SKEL_FLOAT, n, n, n), "u");
    ok(skel_ten_new(&v, SKEL_FLOAT, n, n, n), "v");
    fill((float *)skel_write(u), N, 8);
    on_device(u);
    memset(&r, 0, sizeof r);
    r.sk = heat; r.c.in[0] = u; r.c.out = v; r.c.edge = SKEL_EDGE_DUPLICATE;
    ms = gtime(run_call, &r, use_events);
    if (skel_backend_available("cuda")) hms = hand_heat_ms(u, v, n, &bad);
    printf("| MapOverlap3D 7 points %zu^3 floats | %.4f | %.0f GB/s | copy %.4f ms, %.0f GB/s | %.2f |"
           " hand %.4f ms (%.2f of the copy%s)\n", n, ms, 2.0 * (double)N * 4 / ms / 1e6, cms,
           2.0 * (double)N * 4 / cms / 1e6, cms / ms, hms, hms > 0 ? cms / hms : 0, bad ? ", DIFFERENT ANSWERS" : "");
    skel_free(u); skel_free(v);
}

static void gpu_aos_soa(int lg)
{
    size_t n = (size_t)1 << lg;
    run_ctx a, s;
    skel_vec *pa = vec_fill(SKEL_TYPE(particle), n, 9), *pb, *in[4], *out[4];
    float dt = 1e-3f;
    double ta, ts;
    int k;
    ok(skel_vec_new(&pb, SKEL_TYPE(particle), n), "pb");
    on_device(pa);
    memset(&a, 0, sizeof a);
    memset(&s, 0, sizeof s);
    a.sk = step_aos; a.c.in[0] = pa; a.c.out = pb; a.c.uniform = &dt;
    s.sk = step_soa; s.c.uniform = &dt;
    for (k = 0; k < 4; ++k) {
        in[k] = vec_fill(SKEL_FLOAT, n, 20 + (unsigned)k);
        ok(skel_vec_new(&out[k], SKEL_FLOAT, n), "soa");
        on_device(in[k]);
        s.c.in[k] = in[k]; s.c.outs[k] = out[k];
    }
    ta = gtime(run_call, &a, use_events);
    ts = gtime(run_call, &s, use_events);
    printf("| AoS vs SoA Map, 2^%d particles of 16 bytes | AoS %.4f | SoA %.4f | %.0f vs %.0f GB/s | %.2f |\n", lg, ta, ts,
           32.0 * (double)n / ta / 1e6, 32.0 * (double)n / ts / 1e6, ts / ta);
    skel_free(pa); skel_free(pb);
    for (k = 0; k < 4; ++k) { skel_free(in[k]); skel_free(out[k]); }
}

static void gpu(void)
{
    static skel_plan *plan;
    int i;
    if (!skel_backend_available(backend)) {
        printf("bench_forms: backend %s is not available here; nothing to measure\n", backend);
        return;
    }
    if (!skel_backend_available("cuda")) {
        printf("bench_forms: the baselines (copy, memset, the hand kernel) need CUDA\n");
        return;
    }
    _skel_cu.cuCtxSetCurrent(_skel_cuda_devs[0].ctx);
    _skel_cu.cuEventCreate(&ev0, 0);
    _skel_cu.cuEventCreate(&ev1, 0);
    use_events = strcmp(backend, "cuda") == 0;
    plan = bench_fixed_plan(backend, 0, 0);
    skel_set_plan(pearson, plan); skel_set_plan(pearson_c, plan); skel_set_plan(distances, plan);
    skel_set_plan(nearest, plan);
    skel_set_plan(heat, plan); skel_set_plan(step_aos, plan); skel_set_plan(step_soa, plan);
    for (i = 0; i < skel_backend_count(); ++i)
        if (!strcmp(skel_backend_name(i), backend)) printf("## %s: %s, device-resident data\n", backend, _skel_backends[i].info);
    printf("| workload | ms | skel | baseline | ratio |\n|---|---|---|---|---|\n");
    for (i = 24; i <= (wanted("pearson24") ? 24 : 28) && wanted("pearson"); i += 2) gpu_pearson(i);
    if (wanted("pearson")) { kernel_info(pearson, "skel_reduce_part"); kernel_info(pearson_c, "skel_reduce_part"); }
    if (wanted("pairs")) {
        gpu_pairs(4096, 4096);
        gpu_pairs(8192, 8192);
        gpu_pairs(16384, 16384);
    }
    if (wanted("nearest")) {
        gpu_nearest(16384, 16384);
        gpu_nearest(32768, 32768);
        gpu_nearest(131072, 8192);
    }
    if (wanted("heat")) {
        gpu_heat(256);
        gpu_heat(512);
        kernel_info(heat, "skel_overlap3d");
    }
    if (wanted("aos")) {
        gpu_aos_soa(24);
        gpu_aos_soa(26);
    }
}

int main(int argc, char **argv)
{
    int i, mode = 0;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "cpu")) mode = 1;
        else if (!strcmp(argv[i], "gpu")) mode = 2;
        else if (!strcmp(argv[i], "--backend") && i + 1 < argc) backend = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: %s cpu|gpu [--backend cuda|opencl] [--reps N] [--only LIST]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    if (mode == 1) cpu();
    else if (mode == 2) gpu();
    else { fprintf(stderr, "usage: %s cpu|gpu [--backend cuda|opencl] [--reps N] [--only LIST]\n", argv[0]); return 2; }
    return 0;
}
