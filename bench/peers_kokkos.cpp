// peers_kokkos.cpp - Kokkos on its Serial space, the single-core baseline
// of bench/peers.c.  Install: apt-get install -y libtrilinos-kokkos-dev
// (Debian's Trilinos build has the Serial space only; make bench builds
// this file when /usr/include/trilinos/Kokkos_Core.hpp exists).
#include <Kokkos_Core.hpp>
#include <cstdlib>
#include "peers.h"

using policy = Kokkos::RangePolicy<Kokkos::Serial>;

static void init(int threads)
{
    (void)threads;
    Kokkos::initialize();
    std::atexit([] { Kokkos::finalize(); });
}

static void saxpy(size_t n, float a, const float *x, float *y)
{
    Kokkos::parallel_for(policy(0, n), KOKKOS_LAMBDA(size_t i) { y[i] = a * x[i] + y[i]; });
}

static float sum(size_t n, const float *x)
{
    float s = 0;
    Kokkos::parallel_reduce(policy(0, n), KOKKOS_LAMBDA(size_t i, float &acc) { acc += x[i]; }, s);
    return s;
}

static float dot(size_t n, const float *x, const float *y)
{
    float s = 0;
    Kokkos::parallel_reduce(policy(0, n), KOKKOS_LAMBDA(size_t i, float &acc) { acc += x[i] * y[i]; }, s);
    return s;
}

static void scan(size_t n, const float *x, float *r)
{
    Kokkos::parallel_scan(policy(0, n), KOKKOS_LAMBDA(size_t i, float &upd, bool final) {
        upd += x[i];
        if (final) r[i] = upd;
    });
}

static void stencil(size_t n, const float *x, float *r)
{
    Kokkos::parallel_for(policy(0, n), KOKKOS_LAMBDA(size_t i) { r[i] = peer_st_at(x, n, i); });
}

static void conv(size_t rows, size_t cols, const float *x, float *r)
{
    Kokkos::parallel_for(policy(0, rows), KOKKOS_LAMBDA(size_t row) { peer_conv_rows(x, r, rows, cols, row, row + 1); });
}

extern "C" const peer_ops *peer_kokkos(void)
{
    static const peer_ops ops = { "Kokkos serial", init, saxpy, sum, dot, scan, stencil, conv };
    return &ops;
}
