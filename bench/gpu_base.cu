// gpu_base.cu - the baselines bench/gpu.c compares skel's CUDA backend with.
// Built with nvcc on the GPU machine only (bench/device.sh); `make bench`
// never sees it (it compiles bench/*.c).
//
//   nvcc -O3 -arch=sm_90 -o build/gpu_base bench/gpu_base.cu
//   build/gpu_base [log2_min log2_max] > base.txt
//
// Prints one line per measurement, "name n ms", times the median of
// repeated runs timed with CUDA events:
//   copy_d2d      cudaMemcpy device to device of n floats
//   copy_d2d_3half  the same of 3n/2 floats: the bytes a saxpy of n moves
//   copy_h2d      n floats from pageable host memory; copy_h2d_pinned likewise pinned
//   copy_d2h      n floats to pageable host memory
//   cub_reduce    cub::DeviceReduce::Sum
//   cub_scan      cub::DeviceScan::InclusiveSum
//   cub_dot       cub::DeviceReduce::Sum over a transform iterator x[i]*y[i]
//   cub_reduce_host, cub_dot_host   the same plus copying the sum to (pinned) host
//                 memory, as skel's Reduce returns it to the host
//   hand_saxpy    r[i] = a*x[i] + y[i], one thread per element
//   hand_reduce   block tree in shared memory + one atomicAdd per block
//   hand_dot      the same over x[i]*y[i]
//   hand_ov1d     r[i] = sum of x[i-2..i+2] (zero outside), one thread per element
//   hand_conv2d   5x5 weighted sum, weights in constant memory, square matrix
//   empty_launch  microseconds per launch of an empty kernel (n = 1)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static cudaEvent_t ev0, ev1;

template <class F> static double time_ms(F f, int reps)
{
    std::vector<float> t;
    f();                                    // warm up
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
        float ms;
        CK(cudaEventRecord(ev0));
        f();
        CK(cudaEventRecord(ev1));
        CK(cudaEventSynchronize(ev1));
        CK(cudaEventElapsedTime(&ms, ev0, ev1));
        t.push_back(ms);
    }
    CK(cudaGetLastError());
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

__global__ void saxpy(float a, const float *x, const float *y, float *r, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) r[i] = a * x[i] + y[i];
}

template <int DOT> __global__ void reduce_k(const float *x, const float *y, float *out, long n)
{
    __shared__ float s[256];
    float acc = 0;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        acc += DOT ? x[i] * y[i] : x[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

__global__ void ov1d(const float *x, float *r, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0;
    for (int k = -2; k <= 2; ++k) {
        long j = i + k;
        s += (j >= 0 && j < n) ? x[j] : 0.0f;
    }
    r[i] = s;
}

__constant__ float w5[25];
__global__ void conv2d(const float *x, float *r, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= cols || row >= rows) return;
    float s = 0;
    for (int y = -2; y <= 2; ++y)
        for (int xx = -2; xx <= 2; ++xx) {
            int rr = row + y, cc = c + xx;
            if (rr >= 0 && rr < rows && cc >= 0 && cc < cols) s += w5[(y + 2) * 5 + xx + 2] * x[(long)rr * cols + cc];
        }
    r[(long)row * cols + c] = s;
}

__global__ void empty_kernel() {}

struct mul_op {
    const float *x, *y;
    __host__ __device__ float operator()(long i) const { return x[i] * y[i]; }
};

int main(int argc, char **argv)
{
    int lo = argc > 2 ? atoi(argv[1]) : 20, hi = argc > 2 ? atoi(argv[2]) : 28;
    long nmax = 1L << hi;
    float *x, *y, *r, *h, *hp, *acc;
    void *tmp = nullptr;
    size_t tmpn = 0;
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("# device %s sm_%d%d, %d SMs\n", p.name, p.major, p.minor, p.multiProcessorCount);
    CK(cudaEventCreate(&ev0));
    CK(cudaEventCreate(&ev1));
    CK(cudaMalloc(&x, nmax * 6));       // room for copy_d2d_3half
    CK(cudaMalloc(&y, nmax * 4));
    CK(cudaMalloc(&r, nmax * 6));
    CK(cudaMalloc(&acc, 64));
    h = (float *)malloc(nmax * 4);
    CK(cudaMallocHost(&hp, nmax * 4));
    for (long i = 0; i < nmax; ++i) h[i] = (float)((i * 7919) % 2001 - 1000) * 1e-3f;
    memcpy(hp, h, nmax * 4);
    CK(cudaMemcpy(x, h, nmax * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, h, nmax * 4, cudaMemcpyHostToDevice));
    float w[25];
    for (int i = 0; i < 25; ++i) w[i] = 0.04f;
    CK(cudaMemcpyToSymbol(w5, w, sizeof w));
    // temporary storage big enough for every CUB call below
    {
        size_t a = 0, b = 0;
        CK(cub::DeviceReduce::Sum(nullptr, a, x, acc, nmax));
        CK(cub::DeviceScan::InclusiveSum(nullptr, b, x, r, nmax));
        tmpn = std::max(a, b) * 2 + (1 << 20);
        CK(cudaMalloc(&tmp, tmpn));
    }
    int grid_red = p.multiProcessorCount * 8;
    for (int lg = lo; lg <= hi; ++lg) {
        long n = 1L << lg;
        int reps = lg >= 26 ? 10 : 30;
        unsigned blocks = (unsigned)((n + 255) / 256);
        size_t tn = tmpn;
        printf("copy_d2d %ld %.6f\n", n, time_ms([&] { CK(cudaMemcpyAsync(r, x, n * 4, cudaMemcpyDeviceToDevice)); }, reps));
        printf("copy_d2d_3half %ld %.6f\n", n, time_ms([&] { CK(cudaMemcpyAsync(r, x, n * 6, cudaMemcpyDeviceToDevice)); }, reps));
        printf("copy_h2d %ld %.6f\n", n, time_ms([&] { CK(cudaMemcpyAsync(r, h, n * 4, cudaMemcpyHostToDevice)); }, 5));
        printf("copy_h2d_pinned %ld %.6f\n", n, time_ms([&] { CK(cudaMemcpyAsync(r, hp, n * 4, cudaMemcpyHostToDevice)); }, 5));
        printf("copy_d2h %ld %.6f\n", n, time_ms([&] { CK(cudaMemcpyAsync(h, r, n * 4, cudaMemcpyDeviceToHost)); }, 5));
        printf("cub_reduce %ld %.6f\n", n, time_ms([&] { tn = tmpn; CK(cub::DeviceReduce::Sum(tmp, tn, x, acc, n)); }, reps));
        printf("cub_reduce_host %ld %.6f\n", n, time_ms([&] { tn = tmpn; CK(cub::DeviceReduce::Sum(tmp, tn, x, acc, n));
                                                             CK(cudaMemcpy(hp, acc, 4, cudaMemcpyDeviceToHost)); }, reps));
        printf("cub_scan %ld %.6f\n", n, time_ms([&] { tn = tmpn; CK(cub::DeviceScan::InclusiveSum(tmp, tn, x, r, n)); }, reps));
        {
            thrust::counting_iterator<long> it(0);
            auto prod = thrust::make_transform_iterator(it, mul_op{x, y});
            printf("cub_dot %ld %.6f\n", n, time_ms([&] { tn = tmpn; CK(cub::DeviceReduce::Sum(tmp, tn, prod, acc, n)); }, reps));
            printf("cub_dot_host %ld %.6f\n", n, time_ms([&] { tn = tmpn; CK(cub::DeviceReduce::Sum(tmp, tn, prod, acc, n));
                                                              CK(cudaMemcpy(hp, acc, 4, cudaMemcpyDeviceToHost)); }, reps));
        }
        printf("hand_saxpy %ld %.6f\n", n, time_ms([&] { saxpy<<<blocks, 256>>>(2.0f, x, y, r, n); }, reps));
        printf("hand_reduce %ld %.6f\n", n, time_ms([&] {
            CK(cudaMemsetAsync(acc, 0, 4)); reduce_k<0><<<grid_red, 256>>>(x, y, acc, n); }, reps));
        printf("hand_dot %ld %.6f\n", n, time_ms([&] {
            CK(cudaMemsetAsync(acc, 0, 4)); reduce_k<1><<<grid_red, 256>>>(x, y, acc, n); }, reps));
        printf("hand_ov1d %ld %.6f\n", n, time_ms([&] { ov1d<<<blocks, 256>>>(x, r, n); }, reps));
        {
            int side = 1 << (lg / 2), rows = (int)(n / side);
            dim3 b(32, 8), g((side + 31) / 32, (rows + 7) / 8);
            printf("hand_conv2d %ld %.6f\n", n, time_ms([&] { conv2d<<<g, b>>>(x, r, rows, side); }, reps));
        }
    }
    {   // launch overhead: 1000 back-to-back launches, per launch
        double ms = time_ms([&] { for (int i = 0; i < 1000; ++i) empty_kernel<<<1, 1>>>(); }, 5);
        printf("empty_launch 1 %.6f\n", ms / 1000);
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
