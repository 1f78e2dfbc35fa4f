// bench/overlap3d_variants.cu - the 7-point 3-D stencil at n^3 floats
// (clamped edges) written by hand in several designs, against the device
// copy, each checked against a plain C loop: which design a generic
// MapOverlap3D kernel should take (bench/results/forms.md).  Not built by
// `make bench` (CUDA C++):
//
//     nvcc -O3 -std=c++17 -arch=sm_90 bench/overlap3d_variants.cu -o ov3v && ./ov3v 512 15
//
// naive: a point a thread; naivez<Z>: Z planes a thread, every load first;
// march<U>: a thread marching zrun planes, U planes' loads a step (skel's
// kernel as of 2026-12); *4 variants: 4 columns a thread in float4 loads,
// the columns' neighbours by warp shuffles.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__device__ __forceinline__ int cl(int i, int n) { return min(max(i, 0), n - 1); }
__device__ __forceinline__ float f7(float c, float xm, float xp, float ym, float yp, float zm, float zp)
{ return c + 0.1f * (xm + xp + ym + yp + zm + zp - 6 * c); }

__global__ void copy4(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n4)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}

// V1: one point a thread, 3-D grid
__global__ void naive(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z = blockIdx.z;
    if (x >= n || y >= n) return;
    size_t ps = (size_t)n * n, rs = n;
    const float *p = in + z * ps;
    float c = p[y * rs + x];
    out[z * ps + y * rs + x] = f7(c, p[y * rs + cl(x - 1, n)], p[y * rs + cl(x + 1, n)], p[cl(y - 1, n) * rs + x],
                                  p[cl(y + 1, n) * rs + x], in[cl(z - 1, n) * ps + y * rs + x], in[cl(z + 1, n) * ps + y * rs + x]);
}

// V2: Z consecutive planes a thread, all loads first
template <int Z>
__global__ void naivez(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z0 = blockIdx.z * Z;
    if (x >= n || y >= n) return;
    size_t ps = (size_t)n * n, rs = n;
    int xm = cl(x - 1, n), xp = cl(x + 1, n), ym = cl(y - 1, n), yp = cl(y + 1, n);
    float c[Z + 2], a[Z], b[Z], u[Z], d[Z];
#pragma unroll
    for (int k = 0; k < Z + 2; ++k) c[k] = in[cl(z0 - 1 + k, n) * ps + y * rs + x];
#pragma unroll
    for (int k = 0; k < Z; ++k) {
        const float *p = in + (size_t)(z0 + k) * ps;
        a[k] = p[y * rs + xm]; b[k] = p[y * rs + xp]; u[k] = p[ym * rs + x]; d[k] = p[yp * rs + x];
    }
#pragma unroll
    for (int k = 0; k < Z; ++k)
        if (z0 + k < n) out[(z0 + k) * ps + y * rs + x] = f7(c[k + 1], a[k], b[k], u[k], d[k], c[k], c[k + 2]);
}

// V3: march through zrun planes, U planes' loads in flight a step (skel's design)
template <int U>
__global__ void march(const float *__restrict__ in, float *__restrict__ out, int n, int zrun)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, z0 = blockIdx.z * zrun;
    if (x >= n || y >= n) return;
    int z1 = min(z0 + zrun, n);
    size_t ps = (size_t)n * n, rs = n;
    int xm = cl(x - 1, n), xp = cl(x + 1, n), ym = cl(y - 1, n), yp = cl(y + 1, n);
    size_t oc = y * rs + x, oa = y * rs + xm, ob = y * rs + xp, ou = ym * rs + x, od = yp * rs + x;
    float c[U + 2], a[U], b[U], u[U], d[U];
    c[0] = in[cl(z0 - 1, n) * ps + oc];
    c[1] = in[z0 * ps + oc];
    for (int z = z0; z < z1; z += U) {
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const float *p = in + (size_t)cl(z + k, n) * ps;
            c[k + 2] = in[cl(z + k + 1, n) * ps + oc];
            a[k] = p[oa]; b[k] = p[ob]; u[k] = p[ou]; d[k] = p[od];
        }
#pragma unroll
        for (int k = 0; k < U; ++k)
            if (z + k < z1) out[(z + k) * ps + oc] = f7(c[k + 1], a[k], b[k], u[k], d[k], c[k], c[k + 2]);
        c[0] = c[U]; c[1] = c[U + 1];
    }
}

// V4: four columns a thread (float4), Z planes a thread, x neighbours by shuffles
template <int Z>
__global__ void naivez4(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int lane = threadIdx.x, x = (blockIdx.x * 32 + lane) * 4, y = blockIdx.y * blockDim.y + threadIdx.y, z0 = blockIdx.z * Z;
    bool live = x < n && y < n;
    size_t ps = (size_t)n * n, rs = n;
    int ym = cl(y - 1, n), yp = cl(y + 1, n), yy = min(y, n - 1), xx = min(x, n - 4);
    float4 c[Z + 2], u[Z], d[Z];
    float l[Z], r[Z];
#pragma unroll
    for (int k = 0; k < Z + 2; ++k) c[k] = *(const float4 *)(in + cl(z0 - 1 + k, n) * ps + yy * rs + xx);
#pragma unroll
    for (int k = 0; k < Z; ++k) {
        const float *p = in + (size_t)cl(z0 + k, n) * ps;
        u[k] = *(const float4 *)(p + ym * rs + xx); d[k] = *(const float4 *)(p + yp * rs + xx);
        l[k] = lane == 0 ? p[yy * rs + max(xx - 1, 0)] : 0.f;
        r[k] = lane == 31 ? p[yy * rs + min(xx + 4, n - 1)] : 0.f;
    }
#pragma unroll
    for (int k = 0; k < Z; ++k) {
        float4 m = c[k + 1];
        float lw = __shfl_up_sync(0xffffffffu, m.w, 1), rx = __shfl_down_sync(0xffffffffu, m.x, 1);
        if (lane == 0) lw = l[k];
        if (lane == 31) rx = r[k];
        if (x + 4 > n) rx = m.w;   // (n % 4 == 0 here)
        float4 o;
        o.x = f7(m.x, lw, m.y, u[k].x, d[k].x, c[k].x, c[k + 2].x);
        o.y = f7(m.y, m.x, m.z, u[k].y, d[k].y, c[k].y, c[k + 2].y);
        o.z = f7(m.z, m.y, m.w, u[k].z, d[k].z, c[k].z, c[k + 2].z);
        o.w = f7(m.w, m.z, rx, u[k].w, d[k].w, c[k].w, c[k + 2].w);
        if (live && z0 + k < n) *(float4 *)(out + (size_t)(z0 + k) * ps + y * rs + x) = o;
    }
}

// V5: march with float4 columns, U planes a step
template <int U>
__global__ void march4(const float *__restrict__ in, float *__restrict__ out, int n, int zrun)
{
    int lane = threadIdx.x, x = (blockIdx.x * 32 + lane) * 4, y = blockIdx.y * blockDim.y + threadIdx.y, z0 = blockIdx.z * zrun;
    bool live = x < n && y < n;
    int z1 = min(z0 + zrun, n);
    size_t ps = (size_t)n * n, rs = n;
    int ym = cl(y - 1, n), yp = cl(y + 1, n), yy = min(y, n - 1), xx = min(x, n - 4);
    size_t oc = yy * rs + xx, ou = ym * rs + xx, od = yp * rs + xx, ol = yy * rs + max(xx - 1, 0), orr = yy * rs + min(xx + 4, n - 1);
    float4 c[U + 2], u[U], d[U];
    float l[U], r[U];
    c[0] = *(const float4 *)(in + cl(z0 - 1, n) * ps + oc);
    c[1] = *(const float4 *)(in + z0 * ps + oc);
    for (int z = z0; z < z1; z += U) {
#pragma unroll
        for (int k = 0; k < U; ++k) {
            const float *p = in + (size_t)cl(z + k, n) * ps;
            c[k + 2] = *(const float4 *)(in + cl(z + k + 1, n) * ps + oc);
            u[k] = *(const float4 *)(p + ou); d[k] = *(const float4 *)(p + od);
            l[k] = lane == 0 ? p[ol] : 0.f;
            r[k] = lane == 31 ? p[orr] : 0.f;
        }
#pragma unroll
        for (int k = 0; k < U; ++k) {
            float4 m = c[k + 1];
            float lw = __shfl_up_sync(0xffffffffu, m.w, 1), rx = __shfl_down_sync(0xffffffffu, m.x, 1);
            if (lane == 0) lw = l[k];
            if (lane == 31) rx = r[k];
            if (x + 4 > n) rx = m.w;
            float4 o;
            o.x = f7(m.x, lw, m.y, u[k].x, d[k].x, c[k].x, c[k + 2].x);
            o.y = f7(m.y, m.x, m.z, u[k].y, d[k].y, c[k].y, c[k + 2].y);
            o.z = f7(m.z, m.y, m.w, u[k].z, d[k].z, c[k].z, c[k + 2].z);
            o.w = f7(m.w, m.z, rx, u[k].w, d[k].w, c[k].w, c[k + 2].w);
            if (live && z + k < z1) *(float4 *)(out + (size_t)(z + k) * ps + y * rs + x) = o;
        }
        c[0] = c[U]; c[1] = c[U + 1];
    }
}

static float ms_of(std::vector<float> &t) { std::sort(t.begin(), t.end()); return t[t.size() / 2]; }

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 512, reps = argc > 2 ? atoi(argv[2]) : 15;
    size_t N = (size_t)n * n * n, B = N * 4;
    std::vector<float> h(N), ref(N), got(N);
    unsigned s = 12345;
    for (size_t i = 0; i < N; ++i) { s = s * 1664525u + 1013904223u; h[i] = (s >> 8) * (1.f / 16777216.f); }
    auto C = [&](int i) { return std::min(std::max(i, 0), n - 1); };
    for (int z = 0; z < n; ++z)
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                auto at = [&](int zz, int yy, int xx) { return h[((size_t)C(zz) * n + C(yy)) * n + C(xx)]; };
                float c = at(z, y, x);
                ref[((size_t)z * n + y) * n + x] = c + 0.1f * (at(z, y, x - 1) + at(z, y, x + 1) + at(z, y - 1, x) + at(z, y + 1, x) + at(z - 1, y, x) + at(z + 1, y, x) - 6 * c);
            }
    float *din, *dout;
    CK(cudaMalloc(&din, B)); CK(cudaMalloc(&dout, B));
    CK(cudaMemcpy(din, h.data(), B, cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    int dev; cudaGetDevice(&dev); cudaDeviceProp pr; cudaGetDeviceProperties(&pr, dev);
    printf("%s, %d SMs, n = %d (%.0f MB a grid)\n", pr.name, pr.multiProcessorCount, n, B / 1e6);
    auto timeit = [&](const char *name, auto launch, bool check) {
        CK(cudaMemset(dout, 0xff, B));
        launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        double maxd = 0;
        if (check) {
            CK(cudaMemcpy(got.data(), dout, B, cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < N; ++i) { double dd = fabs((double)got[i] - ref[i]); if (!(dd <= maxd)) maxd = dd; }
        }
        std::vector<float> t;
        for (int r = 0; r < reps; ++r) {
            cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms);
        }
        float m = ms_of(t);
        printf("%-28s %8.4f ms %7.0f GB/s  maxdiff %.2g\n", name, m, 2.0 * B / m / 1e6, maxd);
        return m;
    };
    float cp = timeit("memcpyDtoD", [&] { cudaMemcpyAsync(dout, din, B, cudaMemcpyDeviceToDevice); }, false);
    timeit("copy4 kernel", [&] { copy4<<<pr.multiProcessorCount * 8, 256>>>((const float4 *)din, (float4 *)dout, N / 4); }, false);
    auto rep = [&](const char *name, auto launch) { float m = timeit(name, launch, true); printf("%-28s  -> %.3f of the copy\n", "", cp / m); };
    rep("naive 32x8", [&] { naive<<<dim3(n / 32, n / 8, n), dim3(32, 8)>>>(din, dout, n); });
    rep("naive 32x4", [&] { naive<<<dim3(n / 32, n / 4, n), dim3(32, 4)>>>(din, dout, n); });
    rep("naivez2 32x8", [&] { naivez<2><<<dim3(n / 32, n / 8, n / 2), dim3(32, 8)>>>(din, dout, n); });
    rep("naivez4 32x8", [&] { naivez<4><<<dim3(n / 32, n / 8, n / 4), dim3(32, 8)>>>(din, dout, n); });
    rep("naivez8 32x8", [&] { naivez<8><<<dim3(n / 32, n / 8, n / 8), dim3(32, 8)>>>(din, dout, n); });
    rep("march4 zrun64 32x8", [&] { march<4><<<dim3(n / 32, n / 8, n / 64), dim3(32, 8)>>>(din, dout, n, 64); });
    rep("march4 zrun16 32x8", [&] { march<4><<<dim3(n / 32, n / 8, n / 16), dim3(32, 8)>>>(din, dout, n, 16); });
    rep("march8 zrun32 32x8", [&] { march<8><<<dim3(n / 32, n / 8, n / 32), dim3(32, 8)>>>(din, dout, n, 32); });
    rep("f4 naivez1 128x8", [&] { naivez4<1><<<dim3(n / 128, n / 8, n), dim3(32, 8)>>>(din, dout, n); });
    rep("f4 naivez2 128x8", [&] { naivez4<2><<<dim3(n / 128, n / 8, n / 2), dim3(32, 8)>>>(din, dout, n); });
    rep("f4 naivez4 128x8", [&] { naivez4<4><<<dim3(n / 128, n / 8, n / 4), dim3(32, 8)>>>(din, dout, n); });
    rep("f4 naivez2 128x4", [&] { naivez4<2><<<dim3(n / 128, n / 4, n / 2), dim3(32, 4)>>>(din, dout, n); });
    rep("f4 march2 zrun16", [&] { march4<2><<<dim3(n / 128, n / 8, n / 16), dim3(32, 8)>>>(din, dout, n, 16); });
    rep("f4 march4 zrun32", [&] { march4<4><<<dim3(n / 128, n / 8, n / 32), dim3(32, 8)>>>(din, dout, n, 32); });
    rep("f4 march2 zrun64", [&] { march4<2><<<dim3(n / 128, n / 8, n / 64), dim3(32, 8)>>>(din, dout, n, 64); });
    rep("f4 march4 zrun64 x4", [&] { march4<4><<<dim3(n / 128, n / 4, n / 64), dim3(32, 4)>>>(din, dout, n, 64); });
    return 0;
}
