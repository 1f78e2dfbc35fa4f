// peers_thrust.cpp - Thrust with its OpenMP system, the baseline of bench/peers.c.
// Needs Thrust's headers (the CUDA toolkit's: /usr/local/cuda/include/cccl,
// or /usr/local/cuda/include before CUDA 13; THRUST_INC=dir for others) and
// is built by make bench, when they exist, with
//   g++ -fopenmp -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP
// No GPU is involved: raw host pointers under thrust::device run on OpenMP.
#include <thrust/execution_policy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <omp.h>
#include "peers.h"

static void init(int threads) { omp_set_num_threads(threads); }

static void saxpy(size_t n, float a, const float *x, float *y)
{
    thrust::transform(thrust::device, x, x + n, y, y, [=](float xi, float yi) { return a * xi + yi; });
}

static float sum(size_t n, const float *x) { return thrust::reduce(thrust::device, x, x + n, 0.0f); }

static float dot(size_t n, const float *x, const float *y)
{
    return thrust::inner_product(thrust::device, x, x + n, y, 0.0f);
}

static void scan(size_t n, const float *x, float *r) { thrust::inclusive_scan(thrust::device, x, x + n, r); }

static void stencil(size_t n, const float *x, float *r)
{
    thrust::for_each(thrust::device, thrust::counting_iterator<size_t>(0), thrust::counting_iterator<size_t>(n),
                     [=](size_t i) { r[i] = peer_st_at(x, n, i); });
}

static void conv(size_t rows, size_t cols, const float *x, float *r)
{
    thrust::for_each(thrust::device, thrust::counting_iterator<size_t>(0), thrust::counting_iterator<size_t>(rows),
                     [=](size_t row) { peer_conv_rows(x, r, rows, cols, row, row + 1); });
}

extern "C" const peer_ops *peer_thrust(void)
{
    static const peer_ops ops = { "Thrust-OMP", init, saxpy, sum, dot, scan, stencil, conv };
    return &ops;
}
