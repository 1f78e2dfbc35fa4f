// peers_tbb.cpp - the oneTBB baseline of bench/peers.c.
// Install: apt-get install -y libtbb-dev   (make bench builds it when
// /usr/include/oneapi/tbb.h exists; TBB_DIR=prefix for another install)
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/parallel_scan.h>
#include <functional>
#include "peers.h"

using range = tbb::blocked_range<size_t>;
static tbb::global_control *threads_cap;

static void init(int threads)
{
    threads_cap = new tbb::global_control(tbb::global_control::max_allowed_parallelism, (size_t)threads);
}

static void saxpy(size_t n, float a, const float *x, float *y)
{
    tbb::parallel_for(range(0, n), [=](const range &r) { peer_saxpy_range(a, x, y, r.begin(), r.end()); });
}

static float sum(size_t n, const float *x)
{
    return tbb::parallel_reduce(range(0, n), 0.0f,
        [=](const range &r, float s) { return s + peer_sum_range(x, r.begin(), r.end()); }, std::plus<float>());
}

static float dot(size_t n, const float *x, const float *y)
{
    return tbb::parallel_reduce(range(0, n), 0.0f,
        [=](const range &r, float s) { return s + peer_dot_range(x, y, r.begin(), r.end()); }, std::plus<float>());
}

static void scan(size_t n, const float *x, float *r)
{
    tbb::parallel_scan(range(0, n), 0.0f,
        [=](const range &b, float carry, bool final) {
            if (final) return peer_scan_range(x, r, b.begin(), b.end(), carry);
            return carry + peer_sum_range(x, b.begin(), b.end());
        },
        std::plus<float>());
}

static void stencil(size_t n, const float *x, float *r)
{
    tbb::parallel_for(range(0, n), [=](const range &b) { peer_stencil_range(x, r, n, b.begin(), b.end()); });
}

static void conv(size_t rows, size_t cols, const float *x, float *r)
{
    tbb::parallel_for(range(0, rows), [=](const range &b) { peer_conv_rows(x, r, rows, cols, b.begin(), b.end()); });
}

extern "C" const peer_ops *peer_tbb(void)
{
    static const peer_ops ops = { "TBB", init, saxpy, sum, dot, scan, stencil, conv };
    return &ops;
}
