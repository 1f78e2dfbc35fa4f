/* Every skeleton x container x backend x element type against a plain C
   reference computed here, on seeded random data.

   Each element type gets its own user functions and instances through the
   per-type blocks below (ST_TYPES(X) instantiates X once per type).  Every
   test runs its cases on each backend variant (seq, omp/1, omp/2, omp/3, pool/2, pool/4 and
   any GPU backend present, see st_variant_get), at the vector sizes in
   vsizes and the matrix shapes in mshapes; float and int32 also run a
   vector beyond the last-level cache and a 1031x1031 matrix on seq and
   omp/3, for the skeletons marked BIG.

   References: integers are computed in the element type and must match
   exactly (signed values stay small so nothing overflows; unsigned ones may
   wrap, which is defined).  Floats are computed in double together with the
   magnitude of the terms (sum of |term|), and a result passes when it is
   within rtol * magnitude of the reference. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

/* type, suffix, skel type, reference type, epsilon, kind (0 float, 1 signed,
   2 unsigned), runs the beyond-cache size */
#define ST_TYPES(X)                                           \
    X(float, f, SKEL_FLOAT, double, FLT_EPSILON, 0, 1)        \
    X(double, d, SKEL_DOUBLE, double, DBL_EPSILON, 0, 0)      \
    X(int32_t, i32, SKEL_INT32, int32_t, 0, 1, 1)             \
    X(uint32_t, u32, SKEL_UINT32, uint32_t, 0, 2, 0)          \
    X(int64_t, i64, SKEL_INT64, int64_t, 0, 1, 0)             \
    X(uint64_t, u64, SKEL_UINT64, uint64_t, 0, 2, 0)

static const size_t vsizes[] = { 0, 1, 2, 7, 1023, 1024, 1025, 65537 };
/* 2 x 8209 and 8209 x 2: rows (columns) long enough that omp splits inside
   each one (reduce from 4096, scan from 8192 elements) */
static const size_t mshapes[][2] = { { 1, 1 }, { 1, 1025 }, { 1025, 1 }, { 7, 13 }, { 33, 65 },
                                     { 257, 511 }, { 2, 8209 }, { 8209, 2 } };
#define NVSIZES (sizeof vsizes / sizeof vsizes[0])
#define NMSHAPES (sizeof mshapes / sizeof mshapes[0])

/* A case runs one skeleton flavour `which` on one shape (rows x cols; a
   vector when !mat) on backend variant vi. */
typedef void (*case_fn)(int which, size_t rows, size_t cols, int mat, int vi);

/* Run fn over every variant and shape.  vec/mat: run vector sizes / matrix
   shapes; big: also the beyond-the-cache sizes on the variants marked big. */
static void drive(const char *tname, size_t esz, int big, case_fn fn, int which, int vec, int mat)
{
    int vi, nv = st_variant_count();
    size_t k, bign = st_big_bytes() / esz;
    for (vi = 0; vi < nv; ++vi) {
        const st_variant *v = st_variant_get(vi);
        if (vec) {
            for (k = 0; k < NVSIZES; ++k) {
                st_context("%s %s n=%zu", tname, v->label, vsizes[k]);
                fn(which, 1, vsizes[k], 0, vi);
            }
            if (big && v->big) {
                st_context("%s %s n=%zu (beyond LLC)", tname, v->label, bign);
                fn(which, 1, bign, 0, vi);
            }
        }
        if (mat) {
            for (k = 0; k < NMSHAPES; ++k) {
                st_context("%s %s %zux%zu", tname, v->label, mshapes[k][0], mshapes[k][1]);
                fn(which, mshapes[k][0], mshapes[k][1], 1, vi);
            }
            if (big && v->big) {   /* large, but within the cache: time */
                st_context("%s %s 1031x1031", tname, v->label);
                fn(which, 1031, 1031, 1, vi);
            }
        }
    }
    st_context("");
}

static double rtol_sum(double eps, size_t n)
{
    double t = 64.0 * eps * sqrt((double)n + 1.0);
    return t < 1e-3 ? t : 1e-3;
}

/* ======================================================================
   per-type helpers
   ====================================================================== */
#define HELPERS(T, S, TY, W, EPS, KIND, BIG)                                  \
    static T rnd_##S(uint64_t *s, int range)                                  \
    {                                                                         \
        if (KIND == 0) return (T)((double)st_rand_int(s, -20000, 20000) / 10000.0); \
        if (KIND == 1) return (T)st_rand_int(s, -range, range);               \
        return (T)st_rand_int(s, 0, 2 * range);                               \
    }                                                                         \
    static T *hrand_##S(size_t n, uint64_t *s, int range)                     \
    {                                                                         \
        T *p = (T *)malloc((n ? n : 1) * sizeof(T));                          \
        size_t i;                                                             \
        ST_CHECK(p);                                                          \
        for (i = 0; i < n; ++i) p[i] = rnd_##S(s, range);                     \
        return p;                                                             \
    }                                                                         \
    static skel_vec *cont_##S(const T *p, size_t r, size_t c, int mat)        \
    {                                                                         \
        skel_vec *v = NULL;                                                   \
        if (mat) ST_OK(skel_mat_new_copy(&v, TY, r, c, p));                   \
        else ST_OK(skel_vec_new_copy(&v, TY, r * c, p));                      \
        return v;                                                             \
    }                                                                         \
    static skel_vec *zeros_##S(size_t r, size_t c, int mat)                   \
    {                                                                         \
        skel_vec *v = NULL;                                                   \
        if (mat) ST_OK(skel_mat_new(&v, TY, r, c));                           \
        else ST_OK(skel_vec_new(&v, TY, r * c));                              \
        return v;                                                             \
    }                                                                         \
    static void fmt_##S(char *b, size_t size, W v)                            \
    {                                                                         \
        if (KIND == 0) snprintf(b, size, "%.9g", (double)v);                  \
        else if (KIND == 1) snprintf(b, size, "%lld", (long long)v);          \
        else snprintf(b, size, "%llu", (unsigned long long)v);                \
    }                                                                         \
    /* one element; returns 1 when equal within tolerance */                  \
    static int same_##S(T got, W ref, double mag, double rtol)                \
    {                                                                         \
        if (KIND != 0) return got == (T)ref;                                  \
        return fabs((double)got - (double)ref) <= rtol * mag + 1e-300;        \
    }                                                                         \
    static void cmp_##S(const char *what, const T *got, const W *ref,         \
                        const double *mag, size_t n, double rtol)             \
    {                                                                         \
        size_t i;                                                             \
        ST_CHECK(got != NULL);                                                \
        for (i = 0; i < n; ++i)                                               \
            if (!same_##S(got[i], ref[i], mag ? mag[i] : fabs((double)ref[i]), rtol)) { \
                char g[64], r[64];                                            \
                fmt_##S(g, sizeof g, (W)got[i]);                              \
                fmt_##S(r, sizeof r, ref[i]);                                 \
                ST_FAIL("%s[%zu] of %zu: got %s, want %s", what, i, n, g, r); \
            }                                                                 \
    }                                                                         \
    static void cmp1_##S(const char *what, T got, W ref, double mag, double rtol) \
    {                                                                         \
        if (!same_##S(got, ref, mag, rtol)) {                                 \
            char g[64], r[64];                                                \
            fmt_##S(g, sizeof g, (W)got);                                     \
            fmt_##S(r, sizeof r, ref);                                        \
            ST_FAIL("%s: got %s, want %s", what, g, r);                       \
        }                                                                     \
    }                                                                         \
    static W *wbuf_##S(size_t n) { W *p = (W *)malloc((n ? n : 1) * sizeof(W)); ST_CHECK(p); return p; } \
    static double *dbuf_##S(size_t n) { double *p = (double *)malloc((n ? n : 1) * sizeof(double)); ST_CHECK(p); return p; }
ST_TYPES(HELPERS)

/* integer range for data of n elements: small enough that no signed sum,
   product or stencil overflows */
static int irange(size_t n) { return n > ((size_t)1 << 20) ? 4 : 20; }

/* ======================================================================
   Map
   ====================================================================== */
enum { M1 = 1, M2, M3, M4, MU, MS, MI, MI0, MI2, MI20, MIU, M1_INPLACE, M2_INPLACE_B };

#define MAP_BLOCK(T, S, TY, W, EPS, KIND, BIG)                                \
    SKEL_FUNC(T, m1_##S, (T a), return a * 3 + 1;)                            \
    SKEL_FUNC(T, m2_##S, (T a, T b), return a - 2 * b;)                       \
    SKEL_FUNC(T, m3_##S, (T a, T b, T c), return a * b + c;)                  \
    SKEL_FUNC(T, m4_##S, (T a, T b, T c, T d), return (a - b) * c + 2 * d;)   \
    SKEL_FUNC(T, mu_##S, (T a, T u), return a * u + 1;)                       \
    SKEL_STRUCT(lin_##S, T scale; T offset;)                                  \
    SKEL_FUNC(T, ms_##S, (T a, lin_##S u), return a * u.scale + u.offset;)    \
    SKEL_FUNC(T, mi_##S, (skel_index i, T a), return a + (T)(i % 7);)        \
    SKEL_FUNC(T, mi0_##S, (skel_index i), return (T)(i % 1000) * 2 + 1;)      \
    SKEL_FUNC(T, mi2_##S, (skel_index r, skel_index c, T a),                  \
              return a + (T)((r % 13) * 3) - (T)(c % 11);)                    \
    SKEL_FUNC(T, mi20_##S, (skel_index r, skel_index c),                      \
              return (T)(r % 100) * 1000 + (T)(c % 1000);)                    \
    SKEL_FUNC(T, miu_##S, (skel_index i, T a, T b, T u), return (a - b) * u + (T)(i % 5);) \
    SKEL_MAP(map1_##S, m1_##S, T, 1)                                          \
    SKEL_MAP(map2_##S, m2_##S, T, 2)                                          \
    SKEL_MAP(map3_##S, m3_##S, T, 3)                                          \
    SKEL_MAP(map4_##S, m4_##S, T, 4)                                          \
    SKEL_MAP_EX(mapu_##S, mu_##S, T, T, 1, SKEL_NO_INDEX, SKEL_UNIFORM(T))    \
    SKEL_MAP_EX(maps_##S, ms_##S, T, T, 1, SKEL_NO_INDEX, SKEL_UNIFORM(lin_##S)) \
    SKEL_MAP_EX(mapi_##S, mi_##S, T, T, 1, SKEL_INDEX, SKEL_NO_UNIFORM)       \
    SKEL_MAP_EX(mapi0_##S, mi0_##S, T, T, 0, SKEL_INDEX, SKEL_NO_UNIFORM)     \
    SKEL_MAP_EX(mapi2_##S, mi2_##S, T, T, 1, SKEL_INDEX2D, SKEL_NO_UNIFORM)   \
    SKEL_MAP_EX(mapi20_##S, mi20_##S, T, T, 0, SKEL_INDEX2D, SKEL_NO_UNIFORM) \
    SKEL_MAP_EX(mapiu_##S, miu_##S, T, T, 2, SKEL_INDEX, SKEL_UNIFORM(T))     \
                                                                              \
    static void map_case_##S(int which, size_t R, size_t C, int mat, int vi)  \
    {                                                                         \
        size_t n = R * C, i;                                                  \
        uint64_t seed = st_seed(#S "map", (size_t)which * 1000003u + n, (size_t)vi); \
        int rng = irange(n), k, nin = 1;                                      \
        T *h[4], u = (T)3;                                                    \
        lin_##S ls;                                                           \
        skel_vec *in[4], *out;                                                \
        W *ref = wbuf_##S(n);                                                 \
        double *mag = dbuf_##S(n);                                            \
        skel_skeleton *sk = NULL;                                             \
        skel_call c;                                                          \
        memset(&c, 0, sizeof c);                                              \
        ls.scale = (T)2; ls.offset = (T)5;                                    \
        nin = which == M3 ? 3 : which == M4 ? 4 : which == M2 || which == M2_INPLACE_B || which == MIU ? 2 \
            : which == M1_INPLACE ? 2 : 1;  /* M1_INPLACE: in[1] checks the bystander */ \
        for (k = 0; k < 4; ++k) {                                             \
            size_t nk = k < nin ? n : 0;                                      \
            h[k] = hrand_##S(nk, &seed, rng);                                 \
            in[k] = cont_##S(h[k], nk ? R : 1, nk ? C : 0, mat);              \
        }                                                                     \
        out = which == M1_INPLACE || which == M2_INPLACE_B ? NULL : zeros_##S(R, C, mat); \
        for (i = 0; i < n; ++i) {                                             \
            W a = (W)h[0][i], b = nin > 1 ? (W)h[1][i] : 0, cc = nin > 2 ? (W)h[2][i] : 0, \
              d = nin > 3 ? (W)h[3][i] : 0;                                    \
            double fa = fabs((double)a), fb = fabs((double)b), fc = fabs((double)cc); \
            size_t row = mat ? i / C : 0, col = mat ? i % C : i;              \
            switch (which) {                                                  \
            case M1: case M1_INPLACE: ref[i] = a * 3 + 1; mag[i] = 3 * fa + 1; break; \
            case M2: case M2_INPLACE_B: ref[i] = a - 2 * b; mag[i] = fa + 2 * fb; break; \
            case M3: ref[i] = (W)(T)(a * b) + cc; mag[i] = fa * fb + fc; break; \
            case M4: ref[i] = (W)(T)(a - b) * cc + 2 * d; mag[i] = (fa + fb) * fc + 2 * fabs((double)d); break; \
            case MU: ref[i] = a * (W)u + 1; mag[i] = 3 * fa + 1; break;       \
            case MS: ref[i] = a * (W)ls.scale + (W)ls.offset; mag[i] = 2 * fa + 5; break; \
            case MI: ref[i] = a + (W)(i % 7); mag[i] = fa + 7; break;         \
            case MI0: ref[i] = (W)(i % 1000) * 2 + 1; mag[i] = 2001; break;  \
            case MI2: ref[i] = a + (W)((row % 13) * 3) - (W)(col % 11); mag[i] = fa + 50; break; \
            case MI20: ref[i] = (W)(row % 100) * 1000 + (W)(col % 1000); mag[i] = 1e5; break; \
            case MIU: ref[i] = (W)(T)(a - b) * (W)u + (W)(i % 5); mag[i] = 3 * (fa + fb) + 5; break; \
            }                                                                 \
        }                                                                     \
        switch (which) {                                                      \
        case M1: case M1_INPLACE: sk = map1_##S; nin = 1; break;              \
        case M2: case M2_INPLACE_B: sk = map2_##S; break;                     \
        case M3: sk = map3_##S; break;                                        \
        case M4: sk = map4_##S; break;                                        \
        case MU: sk = mapu_##S; c.uniform = &u; break;                        \
        case MS: sk = maps_##S; c.uniform = &ls; break;                       \
        case MI: sk = mapi_##S; break;                                        \
        case MI0: sk = mapi0_##S; nin = 0; break;                             \
        case MI2: sk = mapi2_##S; break;                                      \
        case MI20: sk = mapi20_##S; nin = 0; break;                           \
        case MIU: sk = mapiu_##S; c.uniform = &u; break;                      \
        }                                                                     \
        for (k = 0; k < nin; ++k) c.in[k] = in[k];                            \
        c.out = which == M1_INPLACE ? in[0] : which == M2_INPLACE_B ? in[1] : out; \
        st_use_variant(sk, vi);                                               \
        ST_OK(skel_run(sk, &c));                                              \
        cmp_##S("map", (const T *)skel_read(c.out), ref, mag, n, 8 * EPS);    \
        /* the operand not written is untouched */                            \
        if (which == M1_INPLACE || which == M2_INPLACE_B) {                   \
            k = which == M1_INPLACE ? 1 : 0;                                  \
            ST_CHECK(n == 0 || memcmp(skel_read(in[k]), h[k], n * sizeof(T)) == 0); \
        }                                                                     \
        for (k = 0; k < 4; ++k) { skel_free(in[k]); free(h[k]); }             \
        skel_free(out);                                                       \
        free(ref); free(mag);                                                 \
    }                                                                         \
    SKEL_TEST(map_one_input_##S) { drive(#T, sizeof(T), BIG, map_case_##S, M1, 1, 1); } \
    SKEL_TEST(map_two_inputs_##S) { drive(#T, sizeof(T), BIG, map_case_##S, M2, 1, 1); } \
    SKEL_TEST(map_three_inputs_##S) { drive(#T, sizeof(T), 0, map_case_##S, M3, 1, 1); } \
    SKEL_TEST(map_four_inputs_##S) { drive(#T, sizeof(T), 0, map_case_##S, M4, 1, 1); } \
    SKEL_TEST(map_scalar_uniform_##S) { drive(#T, sizeof(T), 0, map_case_##S, MU, 1, 1); } \
    SKEL_TEST(map_struct_uniform_##S) { drive(#T, sizeof(T), 0, map_case_##S, MS, 1, 1); } \
    SKEL_TEST(map_index_##S) { drive(#T, sizeof(T), 0, map_case_##S, MI, 1, 1); } \
    SKEL_TEST(map_index_no_inputs_##S) { drive(#T, sizeof(T), 0, map_case_##S, MI0, 1, 1); } \
    SKEL_TEST(map_index2d_##S) { drive(#T, sizeof(T), 0, map_case_##S, MI2, 1, 1); } \
    SKEL_TEST(map_index2d_no_inputs_##S) { drive(#T, sizeof(T), 0, map_case_##S, MI20, 1, 1); } \
    SKEL_TEST(map_index_inputs_uniform_order_##S) { drive(#T, sizeof(T), 0, map_case_##S, MIU, 1, 1); } \
    SKEL_TEST(map_in_place_first_operand_##S) { drive(#T, sizeof(T), 0, map_case_##S, M1_INPLACE, 1, 1); } \
    SKEL_TEST(map_in_place_second_operand_##S) { drive(#T, sizeof(T), 0, map_case_##S, M2_INPLACE_B, 1, 1); }
ST_TYPES(MAP_BLOCK)

/* ======================================================================
   Reduce, MapReduce, Scan
   which = op + 10 * direction (op: 1 add, 2 first, 3 last; a "first" or
   "last" operator is associative but not commutative, so it exposes any
   combination of partial results out of index order; 4 add and 5 max
   declared commutative, which the CPU backends reduce in interleaved
   lanes)
   ====================================================================== */
enum { OP_ADD = 1, OP_FIRST, OP_LAST, OP_CADD, OP_CMAX };

#define RED_BLOCK(T, S, TY, W, EPS, KIND, BIG)                                \
    SKEL_FUNC(T, add_##S, (T a, T b), return a + b;)                          \
    SKEL_FUNC(T, first_##S, (T a, T b), (void)b; return a;)                   \
    SKEL_FUNC(T, last_##S, (T a, T b), (void)a; return b;)                    \
    SKEL_FUNC_COMMUTATIVE(T, cadd_##S, (T a, T b), return a + b;)             \
    SKEL_FUNC_COMMUTATIVE(T, cmax_##S, (T a, T b), return a > b ? a : b;)     \
    SKEL_FUNC(T, mul_##S, (T a, T b), return a * b;)                          \
    SKEL_FUNC(T, mri_f_##S, (skel_index i, T a), return a * (T)(i % 5);)     \
    SKEL_FUNC(T, mru_f_##S, (T a, T b, T u), return a * u + b;)               \
    SKEL_REDUCE(radd_##S, add_##S, T)                                         \
    SKEL_REDUCE(rfirst_##S, first_##S, T)                                     \
    SKEL_REDUCE(rlast_##S, last_##S, T)                                       \
    SKEL_REDUCE(rcadd_##S, cadd_##S, T)                                       \
    SKEL_REDUCE(rcmax_##S, cmax_##S, T)                                       \
    SKEL_MAPREDUCE(mrc2_##S, mul_##S, cadd_##S, T, 2)                         \
    SKEL_MAPREDUCE(mr1_##S, m1_##S, add_##S, T, 1)                            \
    SKEL_MAPREDUCE(mr2_##S, mul_##S, add_##S, T, 2)                           \
    SKEL_MAPREDUCE(mrlast_##S, m1_##S, last_##S, T, 1)                        \
    SKEL_MAPREDUCE_EX(mri_##S, mri_f_##S, add_##S, T, T, 1, SKEL_INDEX, SKEL_NO_UNIFORM) \
    SKEL_MAPREDUCE_EX(mri2_##S, mi2_##S, add_##S, T, T, 1, SKEL_INDEX2D, SKEL_NO_UNIFORM) \
    SKEL_MAPREDUCE_EX(mru_##S, mru_f_##S, add_##S, T, T, 2, SKEL_NO_INDEX, SKEL_UNIFORM(T)) \
    SKEL_SCAN(sadd_##S, add_##S, T)                                           \
    SKEL_SCAN(sfirst_##S, first_##S, T)                                       \
    SKEL_SCAN(slast_##S, last_##S, T)                                         \
                                                                              \
    /* fold x into acc with op (reference side); mag accumulates |x| */       \
    static W fold_##S(int op, int empty, W acc, W x)                          \
    {                                                                         \
        if (empty) return x;                                                  \
        return op == OP_ADD || op == OP_CADD ? acc + x : op == OP_FIRST ? acc \
             : op == OP_CMAX ? (x > acc ? x : acc) : x;                       \
    }                                                                         \
    static void red_case_##S(int which, size_t R, size_t C, int mat, int vi)  \
    {                                                                         \
        int into = which >= 100, op = which % 10, dir = which % 100 / 10;     \
        size_t n = R * C, i, r, cc, L;                                        \
        uint64_t seed = st_seed(#S "red", (size_t)which * 1000003u + n, (size_t)vi); \
        T *h, res = (T)77;                                                    \
        skel_vec *in, *out = NULL;                                            \
        skel_skeleton *sk = op == OP_ADD ? radd_##S : op == OP_FIRST ? rfirst_##S \
                          : op == OP_CADD ? rcadd_##S : op == OP_CMAX ? rcmax_##S : rlast_##S; \
        skel_call c;                                                          \
        W *ref;                                                               \
        double *mag, rt;                                                      \
        int rc;                                                               \
        if (dir && !mat) return;                                              \
        h = hrand_##S(n, &seed, irange(n));                                   \
        in = cont_##S(h, R, C, mat);                                          \
        memset(&c, 0, sizeof c);                                              \
        c.in[0] = in;                                                         \
        c.direction = dir;                                                    \
        st_use_variant(sk, vi);                                               \
        if (dir == SKEL_WHOLE) {                                              \
            W acc = 0;                                                        \
            double m = 0;                                                     \
            if (into) out = cont_##S(&res, 1, 1, 0); /* the value, left where it is made */ \
            c.result = into ? NULL : &res;                                    \
            c.out = out;                                                      \
            rc = skel_run(sk, &c);                                            \
            if (into && rc == SKEL_OK) res = *(const T *)skel_read(out);      \
            if (n == 0) {                                                     \
                ST_EQ_INT(rc, SKEL_EEMPTY);                                   \
                if (into) res = *(const T *)skel_read(out);                   \
                ST_CHECK(res == (T)77);   /* result untouched */              \
            } else {                                                          \
                ST_OK(rc);                                                    \
                for (i = 0; i < n; ++i) { acc = fold_##S(op, i == 0, acc, (W)h[i]); m += fabs((double)h[i]); } \
                cmp1_##S("reduce", res, acc, m, rtol_sum(EPS, n));           \
            }                                                                 \
            skel_free(in); skel_free(out); free(h);                            \
            return;                                                           \
        }                                                                     \
        L = dir == SKEL_ROWS ? R : C;                                         \
        out = zeros_##S(1, L, 0);                                             \
        c.out = out;                                                          \
        ref = wbuf_##S(L); mag = dbuf_##S(L);                                 \
        for (i = 0; i < L; ++i) { ref[i] = 0; mag[i] = 0; }                   \
        for (r = 0; r < R; ++r)                                               \
            for (cc = 0; cc < C; ++cc) {                                      \
                size_t o = dir == SKEL_ROWS ? r : cc;                         \
                int first = dir == SKEL_ROWS ? cc == 0 : r == 0;              \
                ref[o] = fold_##S(op, first, ref[o], (W)h[r * C + cc]);       \
                mag[o] += fabs((double)h[r * C + cc]);                        \
            }                                                                 \
        rt = rtol_sum(EPS, dir == SKEL_ROWS ? C : R);                         \
        ST_OK(skel_run(sk, &c));                                              \
        cmp_##S(dir == SKEL_ROWS ? "row reduce" : "column reduce",            \
                (const T *)skel_read(out), ref, mag, L, rt);                  \
        skel_free(in); skel_free(out); free(h); free(ref); free(mag);         \
    }                                                                         \
                                                                              \
    /* MapReduce: which 1 map a*3+1, 2 dot, 3 last(map), 4 index, 5 index2d, 6 uniform, \
       7 dot with a commutative add */                                        \
    static void mr_case_##S(int which, size_t R, size_t C, int mat, int vi)   \
    {                                                                         \
        size_t n = R * C, i;                                                  \
        uint64_t seed = st_seed(#S "mapred", (size_t)which * 1000003u + n, (size_t)vi); \
        int rng = irange(n), rc;                                              \
        T *a = hrand_##S(n, &seed, rng), *b = hrand_##S(n, &seed, rng), res = (T)77, u = (T)3; \
        skel_vec *va = cont_##S(a, R, C, mat), *vb = cont_##S(b, R, C, mat);  \
        skel_skeleton *sk = NULL;                                             \
        skel_call c;                                                          \
        W acc = 0;                                                            \
        double m = 0;                                                         \
        memset(&c, 0, sizeof c);                                              \
        c.in[0] = va; c.result = &res;                                        \
        switch (which) {                                                      \
        case 1: sk = mr1_##S; break;                                          \
        case 2: sk = mr2_##S; c.in[1] = vb; break;                            \
        case 3: sk = mrlast_##S; break;                                       \
        case 4: sk = mri_##S; break;                                          \
        case 5: sk = mri2_##S; break;                                         \
        case 6: sk = mru_##S; c.in[1] = vb; c.uniform = &u; break;            \
        case 7: sk = mrc2_##S; c.in[1] = vb; break;                           \
        }                                                                     \
        for (i = 0; i < n; ++i) {                                             \
            W x = (W)a[i], y = (W)b[i], v = 0;                                \
            size_t row = mat ? i / C : 0, col = mat ? i % C : i;              \
            switch (which) {                                                  \
            case 1: case 3: v = x * 3 + 1; break;                             \
            case 2: case 7: v = x * y; break;                                 \
            case 4: v = x * (W)(i % 5); break;                                \
            case 5: v = x + (W)((row % 13) * 3) - (W)(col % 11); break;       \
            case 6: v = x * (W)u + y; break;                                  \
            }                                                                 \
            acc = which == 3 ? v : i == 0 ? v : acc + v;                      \
            m += fabs((double)v) + fabs((double)x) * 3;                       \
        }                                                                     \
        st_use_variant(sk, vi);                                               \
        rc = skel_run(sk, &c);                                                \
        if (n == 0) {                                                         \
            ST_EQ_INT(rc, SKEL_EEMPTY);                                       \
            ST_CHECK(res == (T)77);                                           \
        } else {                                                              \
            ST_OK(rc);                                                        \
            cmp1_##S("mapreduce", res, acc, m, rtol_sum(EPS, n));             \
        }                                                                     \
        skel_free(va); skel_free(vb); free(a); free(b);                       \
    }                                                                         \
                                                                              \
    /* Scan: which = op + 10 * exclusive + 100 * in-place (matrices: row by row) */ \
    static void scan_case_##S(int which, size_t R, size_t C, int mat, int vi) \
    {                                                                         \
        int op = which % 10, excl = (which / 10) % 10, inplace = which / 100; \
        size_t n = R * C, i, r;                                               \
        uint64_t seed = st_seed(#S "scan", (size_t)which * 1000003u + n, (size_t)vi); \
        T *h = hrand_##S(n, &seed, irange(n)), init = (T)5;                   \
        skel_vec *in = cont_##S(h, R, C, mat), *out = zeros_##S(R, C, mat);   \
        skel_skeleton *sk = op == OP_ADD ? sadd_##S : op == OP_FIRST ? sfirst_##S : slast_##S; \
        skel_call c;                                                          \
        W *ref = wbuf_##S(n);                                                 \
        double *mag = dbuf_##S(n);                                            \
        memset(&c, 0, sizeof c);                                              \
        c.in[0] = in;                                                         \
        c.out = inplace ? in : out;                                           \
        c.exclusive = excl;                                                   \
        if (excl) c.init = &init;                                             \
        if (mat && inplace) c.direction = SKEL_ROWS;  /* explicit row-wise */  \
        for (r = 0; r < R; ++r) {                                             \
            W acc = (W)init;                                                  \
            double m = excl ? 5 : 0;                                          \
            for (i = r * C; i < (r + 1) * C; ++i) {                           \
                W x = (W)h[i];                                                \
                if (excl) { ref[i] = acc; mag[i] = m; acc = fold_##S(op, 0, acc, x); } \
                else { acc = fold_##S(op, i == r * C, acc, x); ref[i] = acc; mag[i] = m + fabs((double)x); } \
                m += fabs((double)x);                                         \
            }                                                                 \
        }                                                                     \
        st_use_variant(sk, vi);                                               \
        ST_OK(skel_run(sk, &c));                                              \
        {                                                                     \
            const T *got = (const T *)skel_read(c.out);                       \
            ST_CHECK(got);                                                    \
            if (n) {                                                          \
                cmp1_##S("scan first element", got[0], ref[0], mag[0], rtol_sum(EPS, C)); \
                cmp1_##S("scan last element", got[n - 1], ref[n - 1], mag[n - 1], rtol_sum(EPS, C)); \
            }                                                                 \
            cmp_##S("scan", got, ref, mag, n, rtol_sum(EPS, C));              \
        }                                                                     \
        skel_free(in); skel_free(out); free(h); free(ref); free(mag);         \
    }                                                                         \
    SKEL_TEST(reduce_add_##S) { drive(#T, sizeof(T), BIG, red_case_##S, OP_ADD, 1, 1); } \
    SKEL_TEST(reduce_add_into_out_##S) { drive(#T, sizeof(T), BIG, red_case_##S, 100 + OP_ADD, 1, 0); } \
    SKEL_TEST(reduce_keeps_index_order_first_##S) { drive(#T, sizeof(T), 0, red_case_##S, OP_FIRST, 1, 1); } \
    SKEL_TEST(reduce_keeps_index_order_last_##S) { drive(#T, sizeof(T), 0, red_case_##S, OP_LAST, 1, 1); } \
    SKEL_TEST(reduce_rows_##S) {                                              \
        drive(#T, sizeof(T), BIG, red_case_##S, OP_ADD + 10 * SKEL_ROWS, 0, 1); \
        drive(#T, sizeof(T), 0, red_case_##S, OP_LAST + 10 * SKEL_ROWS, 0, 1); \
        drive(#T, sizeof(T), 0, red_case_##S, OP_FIRST + 10 * SKEL_ROWS, 0, 1); } \
    SKEL_TEST(reduce_cols_##S) {                                              \
        drive(#T, sizeof(T), BIG, red_case_##S, OP_ADD + 10 * SKEL_COLS, 0, 1); \
        drive(#T, sizeof(T), 0, red_case_##S, OP_LAST + 10 * SKEL_COLS, 0, 1); \
        drive(#T, sizeof(T), 0, red_case_##S, OP_FIRST + 10 * SKEL_COLS, 0, 1); } \
    SKEL_TEST(mapreduce_one_input_##S) { drive(#T, sizeof(T), 0, mr_case_##S, 1, 1, 1); } \
    SKEL_TEST(mapreduce_two_inputs_##S) { drive(#T, sizeof(T), BIG, mr_case_##S, 2, 1, 1); } \
    SKEL_TEST(mapreduce_keeps_index_order_##S) { drive(#T, sizeof(T), 0, mr_case_##S, 3, 1, 1); } \
    SKEL_TEST(mapreduce_index_##S) { drive(#T, sizeof(T), 0, mr_case_##S, 4, 1, 1); } \
    SKEL_TEST(mapreduce_index2d_##S) { drive(#T, sizeof(T), 0, mr_case_##S, 5, 1, 1); } \
    SKEL_TEST(mapreduce_uniform_##S) { drive(#T, sizeof(T), 0, mr_case_##S, 6, 1, 1); } \
    SKEL_TEST(mapreduce_commutative_dot_##S) { drive(#T, sizeof(T), BIG, mr_case_##S, 7, 1, 1); } \
    SKEL_TEST(reduce_commutative_add_##S) {                                   \
        drive(#T, sizeof(T), BIG, red_case_##S, OP_CADD, 1, 1);               \
        drive(#T, sizeof(T), 0, red_case_##S, OP_CADD + 10 * SKEL_ROWS, 0, 1); \
        drive(#T, sizeof(T), 0, red_case_##S, OP_CADD + 10 * SKEL_COLS, 0, 1); } \
    SKEL_TEST(reduce_commutative_max_##S) { drive(#T, sizeof(T), 0, red_case_##S, OP_CMAX, 1, 1); } \
    SKEL_TEST(scan_inclusive_##S) { drive(#T, sizeof(T), BIG, scan_case_##S, OP_ADD, 1, 1); } \
    SKEL_TEST(scan_exclusive_with_init_##S) { drive(#T, sizeof(T), 0, scan_case_##S, OP_ADD + 10, 1, 1); } \
    SKEL_TEST(scan_in_place_##S) {                                            \
        drive(#T, sizeof(T), 0, scan_case_##S, OP_ADD + 100, 1, 1);           \
        drive(#T, sizeof(T), 0, scan_case_##S, OP_ADD + 110, 1, 1); }         \
    SKEL_TEST(scan_keeps_index_order_##S) {                                   \
        drive(#T, sizeof(T), 0, scan_case_##S, OP_FIRST, 1, 1);               \
        drive(#T, sizeof(T), 0, scan_case_##S, OP_LAST, 1, 1);                \
        drive(#T, sizeof(T), 0, scan_case_##S, OP_FIRST + 10, 1, 1);          \
        drive(#T, sizeof(T), 0, scan_case_##S, OP_LAST + 10, 1, 1); }
ST_TYPES(RED_BLOCK)

/* ======================================================================
   MapOverlap 1D and separable 2D
   which = dcode + 10 * edge + 100 * direction + 1000 * in-place
   dcode: 1, 2, 5 = d with weights k+d+1 on a[k]; 9 = d 2 with a uniform
   edge:  0 constant 7, 1 constant with edge_value NULL (= 0), 2 cyclic,
          3 duplicate
   ====================================================================== */
enum { E_CONST7 = 0, E_CONST0, E_CYCLIC, E_DUP };
static skel_edge edge_policy(int e)
{
    return e == E_CYCLIC ? SKEL_EDGE_CYCLIC : e == E_DUP ? SKEL_EDGE_DUPLICATE : SKEL_EDGE_CONSTANT;
}
static const char *edge_name(int e)
{
    static const char *names[] = { "constant 7", "constant NULL", "cyclic", "duplicate" };
    return names[e];
}
/* index of element i (may be outside 0..n-1) under the policy, or -1 for
   the constant */
static long long edge_at(long long i, size_t n, int e)
{
    long long nn = (long long)n;
    if (i >= 0 && i < nn) return i;
    if (e == E_CYCLIC) return ((i % nn) + nn) % nn;
    if (e == E_DUP) return i < 0 ? 0 : nn - 1;
    return -1;
}

#define OV_BLOCK(T, S, TY, W, EPS, KIND, BIG)                                 \
    SKEL_FUNC(T, o1_##S, (const T *a),                                        \
              T s = 0; int k; for (k = -1; k <= 1; ++k) s += (T)(k + 2) * a[k]; return s;) \
    SKEL_FUNC(T, o2_##S, (const T *a),                                        \
              T s = 0; int k; for (k = -2; k <= 2; ++k) s += (T)(k + 3) * a[k]; return s;) \
    SKEL_FUNC(T, o5_##S, (const T *a),                                        \
              T s = 0; int k; for (k = -5; k <= 5; ++k) s += (T)(k + 6) * a[k]; return s;) \
    SKEL_FUNC(T, ou_##S, (const T *a, T u),                                   \
              T s = 0; int k; for (k = -2; k <= 2; ++k) s += (T)(k + 3) * a[k]; return s + u * a[0];) \
    SKEL_OVERLAP(ov1_##S, o1_##S, T, 1)                                       \
    SKEL_OVERLAP(ov2_##S, o2_##S, T, 2)                                       \
    SKEL_OVERLAP(ov5_##S, o5_##S, T, 5)                                       \
    SKEL_OVERLAP_EX(ovu_##S, ou_##S, T, 2, SKEL_UNIFORM(T))                   \
                                                                              \
    /* one line of n elements at src[0], src[stride], ... into dst likewise */ \
    static void ovline_##S(const W *src, const double *smag, size_t n, size_t stride, int d, \
                           int e, W ev, int uni, W u, W *dst, double *dmag)   \
    {                                                                         \
        size_t i;                                                             \
        int k;                                                                \
        for (i = 0; i < n; ++i) {                                             \
            W s = 0;                                                          \
            double m = 0;                                                     \
            for (k = -d; k <= d; ++k) {                                       \
                long long at = edge_at((long long)i + k, n, e);               \
                W v = at < 0 ? ev : src[(size_t)at * stride];                 \
                double mv = at < 0 ? fabs((double)ev) : smag[(size_t)at * stride]; \
                s += (W)(k + d + 1) * v;                                      \
                m += (k + d + 1) * mv;                                        \
            }                                                                 \
            if (uni) { s += u * src[i * stride]; m += fabs((double)u) * smag[i * stride]; } \
            dst[i * stride] = s;                                              \
            dmag[i * stride] = m;                                             \
        }                                                                     \
    }                                                                         \
    static void ov_case_##S(int which, size_t R, size_t C, int mat, int vi)   \
    {                                                                         \
        int dcode = which % 10, e = (which / 10) % 10, dir = (which / 100) % 10; \
        int inplace = which / 1000, d = dcode == 9 ? 2 : dcode, rc;           \
        size_t n = R * C, i, r;                                               \
        uint64_t seed = st_seed(#S "overlap", (size_t)which * 1000003u + n, (size_t)vi); \
        T *h = hrand_##S(n, &seed, irange(n)), ev = (T)7, u = (T)3;           \
        skel_vec *in = cont_##S(h, R, C, mat), *out = zeros_##S(R, C, mat);   \
        skel_skeleton *sk = dcode == 1 ? ov1_##S : dcode == 2 ? ov2_##S : dcode == 5 ? ov5_##S : ovu_##S; \
        skel_call c;                                                          \
        W *x = wbuf_##S(n), *tmp = wbuf_##S(n), *ref = wbuf_##S(n), evw = e == E_CONST7 ? 7 : 0; \
        double *xm = dbuf_##S(n), *tm = dbuf_##S(n), *mag = dbuf_##S(n), rt = 16 * (2 * d + 2) * EPS; \
        int rows_pass = !mat || dir != SKEL_COLS, cols_pass = mat && (dir == SKEL_COLS || dir == SKEL_ROWS_COLS); \
        int fits = n == 0 || ((!rows_pass || (size_t)d <= C) && (!cols_pass || (size_t)d <= R)); \
        memset(&c, 0, sizeof c);                                              \
        c.in[0] = in;                                                         \
        c.out = inplace ? in : out;                                           \
        c.edge = edge_policy(e);                                              \
        c.edge_value = e == E_CONST7 ? &ev : NULL;                            \
        c.direction = dir;                                                    \
        if (dcode == 9) c.uniform = &u;                                       \
        st_use_variant(sk, vi);                                               \
        rc = skel_run(sk, &c);                                                \
        if (!fits) {   /* the overlap is wider than the data: refused, nothing written */ \
            ST_EQ_INT(rc, SKEL_ESIZE);                                        \
            ST_CHECK(memcmp(skel_read(in), h, n * sizeof(T)) == 0);           \
            for (i = 0; i < n; ++i) ST_CHECK(((const T *)skel_read(out))[i] == 0); \
        } else {                                                              \
            const T *got;                                                     \
            ST_OK(rc);                                                        \
            got = (const T *)skel_read(c.out);                                \
            ST_CHECK(got);                                                    \
            for (i = 0; i < n; ++i) { x[i] = (W)h[i]; xm[i] = fabs((double)h[i]); } \
            if (rows_pass)                                                    \
                for (r = 0; r < R; ++r)                                       \
                    ovline_##S(x + r * C, xm + r * C, C, 1, d, e, evw, dcode == 9, (W)u, \
                               (cols_pass ? tmp : ref) + r * C, (cols_pass ? tm : mag) + r * C); \
            if (cols_pass)                                                    \
                for (i = 0; i < C; ++i)                                       \
                    ovline_##S((rows_pass ? tmp : x) + i, (rows_pass ? tm : xm) + i, R, C, d, e, evw, \
                               dcode == 9, (W)u, ref + i, mag + i);           \
            if (n) {   /* the borders first, by name */                       \
                cmp1_##S("first element (left/top border)", got[0], ref[0], mag[0], rt); \
                cmp1_##S("last element (right/bottom border)", got[n - 1], ref[n - 1], mag[n - 1], rt); \
                cmp1_##S("end of first row", got[C - 1], ref[C - 1], mag[C - 1], rt); \
                cmp1_##S("start of last row", got[n - C], ref[n - C], mag[n - C], rt); \
                if (C > (size_t)d) cmp1_##S("first inner element of row 0", got[d], ref[d], mag[d], rt); \
            }                                                                 \
            cmp_##S("overlap", got, ref, mag, n, rt);                         \
        }                                                                     \
        skel_free(in); skel_free(out); free(h);                               \
        free(x); free(tmp); free(ref); free(xm); free(tm); free(mag);         \
    }                                                                         \
    static void ov_all_edges_##S(int base, int vec, int mat, int big)        \
    {                                                                         \
        int e;                                                                \
        for (e = E_CONST7; e <= E_DUP; ++e) {                                 \
            char name[64];                                                    \
            snprintf(name, sizeof name, "%s %s", #T, edge_name(e));           \
            drive(name, sizeof(T), big && e == E_CYCLIC, ov_case_##S, base + 10 * e, vec, mat); \
        }                                                                     \
    }                                                                         \
    SKEL_TEST(overlap_d1_every_edge_##S) { ov_all_edges_##S(1, 1, 0, 0); }    \
    SKEL_TEST(overlap_d2_every_edge_##S) { ov_all_edges_##S(2, 1, 0, BIG); }  \
    SKEL_TEST(overlap_d5_every_edge_##S) { ov_all_edges_##S(5, 1, 0, 0); }    \
    SKEL_TEST(overlap_uniform_##S) { ov_all_edges_##S(9, 1, 0, 0); }          \
    SKEL_TEST(overlap_in_place_##S) { ov_all_edges_##S(1002, 1, 0, 0); }      \
    SKEL_TEST(overlap_matrix_default_direction_is_rows_##S) { ov_all_edges_##S(2, 0, 1, 0); } \
    SKEL_TEST(overlap_matrix_rows_##S) { ov_all_edges_##S(5 + 100 * SKEL_ROWS, 0, 1, 0); } \
    SKEL_TEST(overlap_matrix_cols_##S) { ov_all_edges_##S(2 + 100 * SKEL_COLS, 0, 1, 0); } \
    SKEL_TEST(overlap_matrix_rows_cols_##S) { ov_all_edges_##S(1 + 100 * SKEL_ROWS_COLS, 0, 1, BIG); } \
    SKEL_TEST(overlap_matrix_rows_cols_in_place_##S) { ov_all_edges_##S(1002 + 100 * SKEL_ROWS_COLS, 0, 1, 0); }
ST_TYPES(OV_BLOCK)

/* ======================================================================
   MapOverlap2D (non-separable)
   which = kind + 10 * edge + 1000 * in-place
   kind: 1 user function dR=1 dC=2 (weights 1..15 by position)
         2 SKEL_CONV2D dR=1 dC=2 with call.weights
         3 user function dR=dC=1 with a uniform
         4 weighted user function dR=dC=1 with a uniform
   ====================================================================== */
#define OV2_BLOCK(T, S, TY, W, EPS, KIND, BIG)                                \
    SKEL_FUNC(T, o2d_##S, (const T *a, skel_index stride),                    \
              T s = 0; int y, x;                                              \
              for (y = -1; y <= 1; ++y) for (x = -2; x <= 2; ++x)             \
                  s += (T)(5 * (y + 1) + (x + 2) + 1) * a[y * stride + x];    \
              return s;)                                                      \
    SKEL_FUNC(T, o2du_##S, (const T *a, skel_index stride, T u),              \
              return a[-stride] * u + a[stride] + 2 * a[-1] - a[1] + a[0] * 3;) \
    SKEL_FUNC(T, o2dwu_##S, (const T *a, skel_index stride, const T *w, T u), \
              T s = u; int y, x;                                              \
              for (y = -1; y <= 1; ++y) for (x = -1; x <= 1; ++x)             \
                  s += w[y * 3 + x] * a[y * stride + x];                      \
              return s;)                                                      \
    SKEL_OVERLAP2D(ov2d_##S, o2d_##S, T, 1, 2)                                \
    SKEL_CONV2D(conv_##S, T, 1, 2)                                            \
    SKEL_OVERLAP2D_EX(ov2du_##S, o2du_##S, T, 1, 1, SKEL_UNWEIGHTED, SKEL_UNIFORM(T)) \
    SKEL_OVERLAP2D_EX(ov2dwu_##S, o2dwu_##S, T, 1, 1, SKEL_WEIGHTED, SKEL_UNIFORM(T)) \
                                                                              \
    static void ov2_case_##S(int which, size_t R, size_t C, int mat, int vi)  \
    {                                                                         \
        int kind = which % 10, e = (which / 10) % 10, inplace = which / 1000, rc; \
        int dr = 1, dc = kind <= 2 ? 2 : 1, y, x, fits;                        \
        size_t n = R * C, i, r, cc;                                           \
        uint64_t seed = st_seed(#S "overlap2d", (size_t)which * 1000003u + n, (size_t)vi); \
        T *h = hrand_##S(n, &seed, irange(n)), ev = (T)7, u = (T)3, wt[15];   \
        skel_vec *in, *out;                                                   \
        skel_skeleton *sk = kind == 1 ? ov2d_##S : kind == 2 ? conv_##S : kind == 3 ? ov2du_##S : ov2dwu_##S; \
        skel_call c;                                                          \
        W *ref = wbuf_##S(n), evw = e == E_CONST7 ? 7 : 0;                    \
        double *mag = dbuf_##S(n), rt = 64 * EPS;                             \
        (void)mat;                                                            \
        for (i = 0; i < 15; ++i) wt[i] = KIND == 0 ? rnd_##S(&seed, 0) : rnd_##S(&seed, 3); \
        in = cont_##S(h, R, C, 1);                                            \
        out = zeros_##S(R, C, 1);                                             \
        memset(&c, 0, sizeof c);                                              \
        c.in[0] = in;                                                         \
        c.out = inplace ? in : out;                                           \
        c.edge = edge_policy(e);                                              \
        c.edge_value = e == E_CONST7 ? &ev : NULL;                            \
        if (kind >= 3) c.uniform = &u;                                        \
        if (kind == 2 || kind == 4) c.weights = wt;                           \
        st_use_variant(sk, vi);                                               \
        rc = skel_run(sk, &c);                                                \
        fits = (size_t)dr <= R && (size_t)dc <= C;                            \
        if (!fits) {                                                          \
            ST_EQ_INT(rc, SKEL_ESIZE);                                        \
            ST_CHECK(memcmp(skel_read(in), h, n * sizeof(T)) == 0);           \
            for (i = 0; i < n; ++i) ST_CHECK(((const T *)skel_read(out))[i] == 0); \
        } else {                                                              \
            const T *got;                                                     \
            ST_OK(rc);                                                        \
            got = (const T *)skel_read(c.out);                                \
            ST_CHECK(got);                                                    \
            for (r = 0; r < R; ++r)                                           \
                for (cc = 0; cc < C; ++cc) {                                  \
                    W s = kind == 4 ? (W)u : 0;                               \
                    double m = kind == 4 ? 3 : 0;                             \
                    for (y = -dr; y <= dr; ++y)                               \
                        for (x = -dc; x <= dc; ++x) {                         \
                            long long ar = edge_at((long long)r + y, R, e), ac = edge_at((long long)cc + x, C, e); \
                            W v = ar < 0 || ac < 0 ? evw : (W)h[(size_t)ar * C + (size_t)ac]; \
                            W w = 0;                                          \
                            switch (kind) {                                   \
                            case 1: w = (W)(5 * (y + 1) + (x + 2) + 1); break; \
                            case 2: w = (W)wt[(y + 1) * 5 + (x + 2)]; break;  \
                            case 3: w = y == -1 && x == 0 ? (W)u : y == 1 && x == 0 ? 1 \
                                      : y == 0 && x == -1 ? 2 : y == 0 && x == 1 ? (W)-1 \
                                      : y == 0 && x == 0 ? 3 : 0; break;      \
                            case 4: w = (W)wt[(y + 1) * 3 + (x + 1)]; break;  \
                            }                                                 \
                            s += w * v;                                       \
                            m += fabs((double)w) * fabs((double)v);           \
                        }                                                     \
                    ref[r * C + cc] = s;                                      \
                    mag[r * C + cc] = m;                                      \
                }                                                             \
            cmp1_##S("top-left corner", got[0], ref[0], mag[0], rt);          \
            cmp1_##S("top-right corner", got[C - 1], ref[C - 1], mag[C - 1], rt); \
            cmp1_##S("bottom-left corner", got[n - C], ref[n - C], mag[n - C], rt); \
            cmp1_##S("bottom-right corner", got[n - 1], ref[n - 1], mag[n - 1], rt); \
            cmp_##S("overlap2d", got, ref, mag, n, rt);                       \
        }                                                                     \
        skel_free(in); skel_free(out); free(h); free(ref); free(mag);         \
    }                                                                         \
    static void ov2_all_edges_##S(int base, int big)                          \
    {                                                                         \
        int e;                                                                \
        for (e = E_CONST7; e <= E_DUP; ++e) {                                 \
            char name[64];                                                    \
            snprintf(name, sizeof name, "%s %s", #T, edge_name(e));           \
            drive(name, sizeof(T), big && e == E_DUP, ov2_case_##S, base + 10 * e, 0, 1); \
        }                                                                     \
    }                                                                         \
    SKEL_TEST(overlap2d_every_edge_##S) { ov2_all_edges_##S(1, BIG); }        \
    SKEL_TEST(overlap2d_conv_weights_##S) { ov2_all_edges_##S(2, 0); }        \
    SKEL_TEST(overlap2d_uniform_##S) { ov2_all_edges_##S(3, 0); }             \
    SKEL_TEST(overlap2d_weighted_uniform_##S) { ov2_all_edges_##S(4, 0); }    \
    SKEL_TEST(overlap2d_in_place_##S) { ov2_all_edges_##S(1001, 0); }         \
    /* rows of whole 16-byte pieces: the GPU kernels' 16-byte loads, with   \
       halos of 2 and 1 columns; tiles inside the matrix (520 x 264) and    \
       matrices where every work-item's window crosses an edge */          \
    SKEL_TEST(overlap2d_interior_tiles_of_16_byte_rows_##S)                   \
    {                                                                         \
        int vi, e, k, m;                                                      \
        static const int kinds[] = { 1, 2, 4 };                               \
        static const size_t shape[][2] = { { 520, 264 }, { 3, 4 }, { 1, 8 }, { 37, 132 }, { 70, 1028 } }; \
        for (vi = 0; vi < st_variant_count(); ++vi)                           \
            for (e = E_CONST7; e <= E_DUP; ++e)                               \
                for (k = 0; k < 3; ++k)                                       \
                    for (m = 0; m < 5; ++m) {                                 \
                        st_context("%s %s %s %zux%zu kind %d", #T, edge_name(e), \
                                   st_variant_get(vi)->label, shape[m][0], shape[m][1], kinds[k]); \
                        ov2_case_##S(kinds[k] + 10 * e, shape[m][0], shape[m][1], 1, vi); \
                    }                                                         \
        st_context("");                                                       \
    }
ST_TYPES(OV2_BLOCK)

/* A (2d+1) x (2d+1) weighted sum of the R x C matrix h with duplicated
   edges, by instance sk on the variant the test forced: no output may
   differ from the plain C reference (small integers: every sum is exact). */
static void check_conv(skel_skeleton *sk, const float *h, const float *w, int R, int C, int d)
{
    skel_vec *in = NULL, *out = NULL;
    skel_call c;
    const float *got;
    int r, cc, y, x, bad = 0;
    ST_OK(skel_mat_new_copy(&in, SKEL_FLOAT, (size_t)R, (size_t)C, h));
    ST_OK(skel_mat_new(&out, SKEL_FLOAT, (size_t)R, (size_t)C));
    memset(&c, 0, sizeof c);
    c.in[0] = in;
    c.out = out;
    c.weights = w;
    c.edge = SKEL_EDGE_DUPLICATE;
    ST_OK(skel_run(sk, &c));
    ST_CHECK((got = (const float *)skel_read(out)) != NULL);
    for (r = 0; r < R && got; ++r)
        for (cc = 0; cc < C; ++cc) {
            float s = 0;
            for (y = -d; y <= d; ++y)
                for (x = -d; x <= d; ++x) {
                    int ar = r + y < 0 ? 0 : r + y >= R ? R - 1 : r + y;
                    int ac = cc + x < 0 ? 0 : cc + x >= C ? C - 1 : cc + x;
                    s += w[(y + d) * (2 * d + 1) + x + d] * h[ar * C + ac];
                }
            bad += got[r * C + cc] != s;
        }
    ST_EQ_INT(bad, 0);
    skel_free(in);
    skel_free(out);
}

/* GPU backends keep the weights they uploaded and skip the upload when a
   call brings the same bytes: new weights in the same array must still
   take effect, on every backend, and the old ones again after them. */
SKEL_CONV2D(conv_reweigh, float, 1, 1)
SKEL_TEST(overlap2d_new_weights_in_the_same_array_take_effect)
{
    enum { R = 37, C = 53 };
    int vi, pass, nv = st_variant_count();
    float w[9], h[R * C];
    uint64_t seed = st_seed("reweigh", 0, 0);
    size_t i;
    for (i = 0; i < R * C; ++i) h[i] = (float)(st_rand(&seed) % 17) - 8;
    for (vi = 0; vi < nv; ++vi) {
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(conv_reweigh, vi);
        for (pass = 0; pass < 4; ++pass) {     /* weights A, B, B, A */
            for (i = 0; i < 9; ++i) w[i] = (float)(pass == 0 || pass == 3 ? (int)i - 4 : 2 * (int)i + 1);
            check_conv(conv_reweigh, h, w, R, C, 1);
        }
    }
    st_context("");
}

/* Two weighted instances take turns with the same weights.  On CUDA each
   has its own __constant__ copy (one per module) and the device remembers
   only the last upload: a cache that compared bytes but not where they
   went would skip the second instance's upload and leave its weights
   unset. */
SKEL_CONV2D(conv_twin, float, 1, 1)
SKEL_TEST(overlap2d_two_instances_with_the_same_weights_both_get_them)
{
    enum { R = 29, C = 67 };
    skel_skeleton *sk[2] = { conv_reweigh, conv_twin };
    int vi, turn, nv = st_variant_count();
    float w[9], h[R * C];
    uint64_t seed = st_seed("twin", 0, 0);
    size_t i;
    for (i = 0; i < R * C; ++i) h[i] = (float)(st_rand(&seed) % 23) - 11;
    for (i = 0; i < 9; ++i) w[i] = (float)(st_rand(&seed) % 9) - 3;
    for (vi = 0; vi < nv; ++vi) {
        st_context("%s", st_variant_get(vi)->label);
        for (turn = 0; turn < 4; ++turn) {
            st_use_variant(sk[turn % 2], vi);
            check_conv(sk[turn % 2], h, w, R, C, 1);
        }
    }
    st_context("");
}

/* Weights travel by value where the device's kernel-argument limit allows
   (OpenCL: PoCL's is 1024 bytes) and through a buffer where not: a 15 x 15
   window of floats (900 bytes) takes the buffer on PoCL, and changing
   weights must still take effect there. */
SKEL_CONV2D(conv_wide, float, 7, 7)
SKEL_TEST(overlap2d_a_15x15_window_and_new_weights)
{
    enum { R = 41, C = 75, NW = 15 * 15 };
    int vi, pass, nv = st_variant_count();
    float w[NW], h[R * C];
    uint64_t seed = st_seed("wide", 0, 0);
    size_t i;
    for (i = 0; i < R * C; ++i) h[i] = (float)(st_rand(&seed) % 13) - 6;
    for (vi = 0; vi < nv; ++vi) {
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(conv_wide, vi);
        for (pass = 0; pass < 3; ++pass) {
            for (i = 0; i < NW; ++i) w[i] = (float)(st_rand(&seed) % 7) - 3;
            check_conv(conv_wide, h, w, R, C, 7);
        }
    }
    st_context("");
}

/* ======================================================================
   MapArray
   which: 1 reverse r[i] = v[v2[i]] with v2[i] = n-1-i (vector)
          2 r[i] = v[idx[i]] * 2 + idx[i], v of 37, idx a vector or matrix
          3 with a uniform: r[i] = v[idx[i]] + u
          4 reverse in place (out == v)
   ====================================================================== */
#define MA_BLOCK(T, S, TY, W, EPS, KIND, BIG)                                 \
    SKEL_FUNC(T, mav_##S, (const T *v, T e), return v[(skel_index)e];)        \
    SKEL_FUNC(T, mam_##S, (const T *v, T e), return v[(skel_index)e] * 2 + e;) \
    SKEL_FUNC(T, mau_##S, (const T *v, T e, T u), return v[(skel_index)e] + u;) \
    SKEL_MAPARRAY(marev_##S, mav_##S, T)                                      \
    SKEL_MAPARRAY(mamat_##S, mam_##S, T)                                        \
    SKEL_MAPARRAY_EX(mauni_##S, mau_##S, T, SKEL_UNIFORM(T))                    \
                                                                              \
    static void ma_case_##S(int which, size_t R, size_t C, int mat, int vi)   \
    {                                                                         \
        size_t n = R * C, i, L = which == 1 || which == 4 ? n : 37;           \
        uint64_t seed = st_seed(#S "maparray", (size_t)which * 1000003u + n, (size_t)vi); \
        T *v = hrand_##S(L, &seed, irange(n)), *idx = (T *)malloc((n ? n : 1) * sizeof(T)), u = (T)3; \
        skel_vec *vv, *vi_, *out;                                             \
        skel_skeleton *sk = which == 1 || which == 4 ? marev_##S : which == 2 ? mamat_##S : mauni_##S; \
        skel_call c;                                                          \
        W *ref = wbuf_##S(n);                                                 \
        double *mag = dbuf_##S(n);                                            \
        ST_CHECK(idx);                                                        \
        if ((which == 1 || which == 4) && mat) { free(v); free(idx); free(ref); free(mag); return; } \
        for (i = 0; i < n; ++i) {                                             \
            size_t k = which == 1 || which == 4 ? n - 1 - i : (size_t)st_rand_int(&seed, 0, (long long)L - 1); \
            idx[i] = (T)k;                                                    \
            ref[i] = which == 2 ? (W)v[k] * 2 + (W)k : which == 3 ? (W)v[k] + (W)u : (W)v[k]; \
            mag[i] = fabs((double)v[k]) * 2 + (double)k + 3;                  \
        }                                                                     \
        vv = cont_##S(v, 1, L, 0);                                            \
        vi_ = cont_##S(idx, R, C, mat);                                       \
        out = zeros_##S(R, C, mat);                                           \
        memset(&c, 0, sizeof c);                                              \
        c.in[0] = vv; c.in[1] = vi_;                                          \
        c.out = which == 4 ? vv : out;                                        \
        if (which == 3) c.uniform = &u;                                       \
        st_use_variant(sk, vi);                                               \
        ST_OK(skel_run(sk, &c));                                              \
        cmp_##S("maparray", (const T *)skel_read(c.out), ref, mag, n, 4 * EPS); \
        skel_free(vv); skel_free(vi_); skel_free(out);                        \
        free(v); free(idx); free(ref); free(mag);                             \
    }                                                                         \
    SKEL_TEST(maparray_reverse_##S) { drive(#T, sizeof(T), 0, ma_case_##S, 1, 1, 0); } \
    SKEL_TEST(maparray_vector_and_matrix_##S) { drive(#T, sizeof(T), 0, ma_case_##S, 2, 1, 1); } \
    SKEL_TEST(maparray_uniform_##S) { drive(#T, sizeof(T), 0, ma_case_##S, 3, 1, 1); } \
    SKEL_TEST(maparray_in_place_##S) { drive(#T, sizeof(T), 0, ma_case_##S, 4, 1, 0); }
ST_TYPES(MA_BLOCK)

/* ======================================================================
   Hand-computed cases: small enough to check by reading
   ====================================================================== */
SKEL_FUNC(int32_t, hw1, (const int32_t *a), return a[-1] + 2 * a[0] + 3 * a[1];)
SKEL_OVERLAP(hov1, hw1, int32_t, 1)

SKEL_TEST(overlap_borders_by_hand)
{
    /* a = 1 2 3 4 5, r[i] = a[i-1] + 2 a[i] + 3 a[i+1] */
    static const int32_t a[5] = { 1, 2, 3, 4, 5 };
    static const struct { int e; int32_t first, last; } want[] = {
        { E_CONST7, 7 + 2 + 6, 4 + 10 + 21 },   /* outside reads 7 */
        { E_CONST0, 0 + 2 + 6, 4 + 10 + 0 },    /* edge_value NULL reads 0 */
        { E_CYCLIC, 5 + 2 + 6, 4 + 10 + 3 },    /* a[-1] = a[4], a[5] = a[0] */
        { E_DUP, 1 + 2 + 6, 4 + 10 + 15 },      /* a[-1] = a[0], a[5] = a[4] */
    };
    int32_t ev = 7;
    size_t k;
    int vi;
    for (vi = 0; vi < st_variant_count(); ++vi)
        for (k = 0; k < sizeof want / sizeof *want; ++k) {
            skel_vec *in = NULL, *out = NULL;
            const int32_t *r;
            st_context("%s %s", st_variant_get(vi)->label, edge_name(want[k].e));
            ST_OK(skel_vec_new_copy(&in, SKEL_INT32, 5, a));
            ST_OK(skel_vec_new(&out, SKEL_INT32, 5));
            st_use_variant(hov1, vi);
            ST_OK(skel_overlap(hov1, out, in, edge_policy(want[k].e), want[k].e == E_CONST7 ? &ev : NULL));
            r = (const int32_t *)skel_read(out);
            ST_EQ_INT(r[0], want[k].first);
            ST_EQ_INT(r[1], 1 + 4 + 9);
            ST_EQ_INT(r[3], 3 + 8 + 15);
            ST_EQ_INT(r[4], want[k].last);
            skel_free(in); skel_free(out);
        }
}

/* A halo wider than the column pass's padding (16 rows) on matrices taller
   than its tiles (256 rows): each part's scratch holds a tile's rows and
   their halo only (cyclic edges: whole columns), and a tile at either end
   reads the edge policy's rows. */
SKEL_FUNC(int32_t, hw40, (const int32_t *a), int32_t s = 0; int k; for (k = -40; k <= 40; ++k) s += (k + 41) * a[k]; return s;)
SKEL_OVERLAP(hov40, hw40, int32_t, 40)

SKEL_TEST(overlap_columns_wide_halo_on_tall_matrices)
{
    static const size_t shapes[][2] = { { 300, 19 }, { 1031, 3 }, { 81, 17 }, { 513, 40 } };
    uint64_t seed = 0x5EED40;
    int32_t ev = 7;
    size_t sh, i, r, c;
    int vi, e, k;
    for (sh = 0; sh < sizeof shapes / sizeof *shapes; ++sh) {
        size_t R = shapes[sh][0], C = shapes[sh][1], n = R * C;
        int32_t *h = (int32_t *)malloc(n * sizeof *h), *ref = (int32_t *)malloc(n * sizeof *ref);
        ST_CHECK(h && ref);
        for (i = 0; i < n; ++i) h[i] = (int32_t)(st_rand(&seed) % 201) - 100;
        for (e = E_CONST7; e <= E_DUP; ++e) {
            for (r = 0; r < R; ++r)
                for (c = 0; c < C; ++c) {
                    int32_t s = 0;
                    for (k = -40; k <= 40; ++k) {
                        long long at = edge_at((long long)r + k, R, e);
                        s += (k + 41) * (at < 0 ? (e == E_CONST7 ? ev : 0) : h[(size_t)at * C + c]);
                    }
                    ref[r * C + c] = s;
                }
            for (vi = 0; vi < st_variant_count(); ++vi) {
                skel_vec *in = NULL, *out = NULL;
                skel_call call;
                const int32_t *got;
                st_context("%zu x %zu %s %s", R, C, edge_name(e), st_variant_get(vi)->label);
                ST_OK(skel_mat_new_copy(&in, SKEL_INT32, R, C, h));
                ST_OK(skel_mat_new(&out, SKEL_INT32, R, C));
                memset(&call, 0, sizeof call);
                call.in[0] = in; call.out = out; call.direction = SKEL_COLS;
                call.edge = edge_policy(e); call.edge_value = e == E_CONST7 ? &ev : NULL;
                st_use_variant(hov40, vi);
                ST_OK(skel_run(hov40, &call));
                got = (const int32_t *)skel_read(out);
                ST_CHECK(got && memcmp(got, ref, n * sizeof *ref) == 0);
                skel_free(in); skel_free(out);
            }
        }
        free(h); free(ref);
    }
}

SKEL_FUNC(int32_t, hadd, (int32_t a, int32_t b), return a + b;)
SKEL_SCAN(hscan, hadd, int32_t)

SKEL_TEST(scan_exclusive_by_hand)
{
    static const int32_t a[4] = { 3, 1, 4, 1 };
    int32_t init = 10;
    skel_vec *in = NULL, *out = NULL;
    skel_call c;
    const int32_t *r;
    ST_OK(skel_vec_new_copy(&in, SKEL_INT32, 4, a));
    ST_OK(skel_vec_new(&out, SKEL_INT32, 4));
    memset(&c, 0, sizeof c);
    c.in[0] = in; c.out = out; c.exclusive = 1; c.init = &init;
    ST_OK(skel_set_plan(hscan, NULL));
    ST_OK(skel_run(hscan, &c));
    r = (const int32_t *)skel_read(out);
    ST_EQ_INT(r[0], 10);
    ST_EQ_INT(r[1], 13);
    ST_EQ_INT(r[2], 14);
    ST_EQ_INT(r[3], 18);
    ST_OK(skel_scan(hscan, out, in));
    r = (const int32_t *)skel_read(out);
    ST_EQ_INT(r[0], 3);
    ST_EQ_INT(r[3], 9);
    skel_free(in); skel_free(out);
}

/* An inclusive scan given init starts from it (the manual): the same on
   every backend and thread count, and equal to init + the plain scan. */
SKEL_TEST(scan_inclusive_with_init_same_on_every_variant)
{
    size_t n = 20000, i;
    int32_t init = 5, *ref = NULL;
    skel_vec *in = NULL, *out = NULL;
    int32_t *p;
    int vi;
    ST_OK(skel_vec_new(&in, SKEL_INT32, n));
    ST_OK(skel_vec_new(&out, SKEL_INT32, n));
    p = (int32_t *)skel_write(in);
    for (i = 0; i < n; ++i) p[i] = (int32_t)(i % 7) - 3;
    ref = (int32_t *)malloc(n * sizeof *ref);
    ST_CHECK(ref);
    for (vi = 0; vi < st_variant_count(); ++vi) {
        skel_call c;
        const int32_t *r;
        memset(&c, 0, sizeof c);
        c.in[0] = in; c.out = out; c.init = &init;
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(hscan, vi);
        ST_OK(skel_run(hscan, &c));
        r = (const int32_t *)skel_read(out);
        if (vi == 0) {
            int32_t acc = init;
            for (i = 0; i < n; ++i) { acc += p[i]; ref[i] = acc; }
        }
        for (i = 0; i < n; ++i)
            if (r[i] != ref[i])
                ST_FAIL("r[%zu] = %d, but init + the plain scan gives %d", i, (int)r[i], (int)ref[i]);
    }
    free(ref);
    skel_free(in); skel_free(out);
}

/* Map and MapReduce whose result type differs from the input type */
SKEL_FUNC(double, hhalf, (int32_t a), return a * 0.5;)
SKEL_FUNC(double, hdadd, (double a, double b), return a + b;)
SKEL_MAP_EX(hmapconv, hhalf, double, int32_t, 1, SKEL_NO_INDEX, SKEL_NO_UNIFORM)
SKEL_MAPREDUCE_EX(hmrconv, hhalf, hdadd, double, int32_t, 1, SKEL_NO_INDEX, SKEL_NO_UNIFORM)

SKEL_TEST(map_and_mapreduce_with_other_result_type)
{
    size_t n = 10001, i;
    skel_vec *in = NULL, *out = NULL, *bad = NULL;
    int32_t *p;
    double sum = 0, res = 0;
    int vi;
    ST_OK(skel_vec_new(&in, SKEL_INT32, n));
    ST_OK(skel_vec_new(&out, SKEL_DOUBLE, n));
    ST_OK(skel_vec_new(&bad, SKEL_INT32, n));
    p = (int32_t *)skel_write(in);
    for (i = 0; i < n; ++i) { p[i] = (int32_t)(i % 11) - 5; sum += p[i] * 0.5; }
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const double *r;
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(hmapconv, vi);
        st_use_variant(hmrconv, vi);
        ST_OK(skel_map1(hmapconv, out, in));
        r = (const double *)skel_read(out);
        for (i = 0; i < n; ++i) ST_CHECK(r[i] == p[i] * 0.5);
        ST_OK(skel_mapreduce1(hmrconv, in, &res));
        ST_CHECK(res == sum);   /* halves of small integers: exact */
        ST_EQ_INT(skel_map1(hmapconv, bad, in), SKEL_ETYPE);   /* out must hold doubles */
    }
    skel_free(in); skel_free(out); skel_free(bad);
}

/* MapReduce with no inputs reduces an index-only map over 0..count-1
   (a Taylor series: sum of x^i / i! for x = 0.5, as exact-ish doubles;
   and an exact integer sum of i*i). */
SKEL_FUNC(int64_t, sq_index, (skel_index i), return (int64_t)(i * i);)
SKEL_FUNC(int64_t, add_i64_count, (int64_t a, int64_t b), return a + b;)
SKEL_MAPREDUCE_EX(sum_sq, sq_index, add_i64_count, int64_t, int64_t, 0, SKEL_INDEX, SKEL_NO_UNIFORM)
SKEL_TEST(mapreduce_index_only_uses_count)
{
    static const size_t counts[] = { 1, 2, 7, 1023, 65537, 300001 };
    size_t k;
    int vi;
    for (vi = 0; vi < st_variant_count(); ++vi)
        for (k = 0; k < sizeof counts / sizeof *counts; ++k) {
            skel_call c;
            int64_t r = -1, n = (int64_t)counts[k];
            memset(&c, 0, sizeof c);
            c.count = counts[k];
            c.result = &r;
            st_context("%s count %zu", st_variant_get(vi)->label, counts[k]);
            st_use_variant(sum_sq, vi);
            ST_OK(skel_run(sum_sq, &c));
            ST_EQ_INT(r, (n - 1) * n * (2 * n - 1) / 6);
        }
    {
        skel_call c;
        int64_t r;
        memset(&c, 0, sizeof c);
        c.result = &r;
        ST_EQ_INT(skel_run(sum_sq, &c), SKEL_EEMPTY);
    }
}

/* skel_wait(out) and skel_wait_all() return once the call that wrote out
   has finished, on every variant (CPU calls: at once); the result is then
   complete. */
SKEL_FUNC(float, w_twice, (float a), return 2 * a + 1;)
SKEL_MAP(w_map, w_twice, float, 1)
SKEL_TEST(wait_for_a_call_on_every_variant)
{
    skel_vec *a = st_fvec(100003, 1), *o = NULL;
    int vi;
    ST_EQ_INT(skel_wait(NULL), SKEL_EINVAL);
    ST_OK(skel_vec_new(&o, SKEL_FLOAT, 100003));
    ST_OK(skel_wait(o));
    for (vi = 0; vi < st_variant_count(); ++vi) {
        const float *r;
        st_context("%s", st_variant_get(vi)->label);
        st_use_variant(w_map, vi);
        ST_OK(skel_map1(w_map, o, a));
        ST_OK(skel_wait(o));
        ST_OK(skel_map1(w_map, o, a));
        ST_OK(skel_wait_all());
        r = (const float *)skel_read(o);
        ST_CHECK(r != NULL);
        ST_EQ_INT(r[100002], 2 * ((const float *)skel_read(a))[100002] + 1);
    }
    ST_OK(skel_set_plan(w_map, NULL));
    skel_free(a);
    skel_free(o);
}

/* ======================================================================
   Commutative operators take interleaved lanes on the CPU
   ====================================================================== */
/* A "last" operator declared commutative (wrongly, on purpose): the
   interleaved lanes show in its result.  Lane k of 32 ends with the last
   element of its stride (64 + k or 96 + k of 0..99), and the lanes
   combine as lane k with lane k + 16, then + 8, ...: "last" keeps lane
   31's 95, where index order gives 99. */
SKEL_FUNC_COMMUTATIVE(int32_t, fake_comm_last, (int32_t a, int32_t b), (void)a; return b;)
SKEL_REDUCE(rfake_comm, fake_comm_last, int32_t)
SKEL_FUNC(int32_t, plain_add, (int32_t a, int32_t b), return a + b;)
SKEL_REDUCE(rplain, plain_add, int32_t)

SKEL_TEST(reduce_declared_commutative_takes_interleaved_lanes)
{
    int32_t v[100], r = -1;
    skel_vec *x = NULL;
    skel_plan *seq = NULL;
    skel_variant only_seq = {0};
    int i;
    for (i = 0; i < 100; ++i) v[i] = i;
    ST_OK(skel_vec_new_copy(&x, SKEL_INT32, 100, v));
    ST_EQ_INT(rfake_comm->commutative, 1);
    ST_EQ_INT(rplain->commutative, 0);
    /* seq by name: st_use_variant(.., 0) is a GPU backend when
       SKEL_TEST_BACKENDS leaves the CPU out, and the GPU reduction is index-ordered */
    only_seq.backend = "seq";
    ST_OK(skel_plan_new(&seq));
    ST_OK(skel_plan_add(seq, 0, SIZE_MAX, &only_seq));
    ST_OK(skel_set_plan(rfake_comm, seq));
    ST_OK(skel_reduce(rfake_comm, x, &r));
    ST_EQ_INT(r, 95);
    skel_free(x);
    ST_OK(skel_vec_new_copy(&x, SKEL_INT32, 63, v));   /* under 2 x 32 lanes: index order */
    ST_OK(skel_reduce(rfake_comm, x, &r));
    ST_EQ_INT(r, 62);
    ST_OK(skel_set_plan(rfake_comm, NULL));
    skel_plan_free(seq);
    skel_free(x);
}

/* The lanes start their vector loop at the first element on a 64-byte
   boundary (aligned loads), so a block's first elements fold in before
   it and the last partial block after it; the documented order must hold
   at every address.  An associative, non-commutative operator declared
   commutative (composition of x -> a x + b mod 2^16, (a, b) packed in 32
   bits; of mod 2^32 in 64 bits) shows every operand's place: seq's result
   must equal the model of the manual's lanes (lane k folds elements k,
   k+L, ... in order, then lane k with lane k + L/2, ...) for every offset
   of the data from a 64-byte boundary, every tail length and sizes
   around the lanes' thresholds; a MapReduce aligns in[0]'s loads, its
   second input at another offset. */
SKEL_FUNC_COMMUTATIVE(uint32_t, aff16, (uint32_t f, uint32_t g),
                      return (((g >> 16) * (f >> 16)) & 0xffffu) << 16 | (((g >> 16) * (f & 0xffffu) + (g & 0xffffu)) & 0xffffu);)
SKEL_FUNC_COMMUTATIVE(uint64_t, aff32, (uint64_t f, uint64_t g),
                      return (((g >> 32) * (f >> 32)) & 0xffffffffu) << 32 | (((g >> 32) * (f & 0xffffffffu) + (g & 0xffffffffu)) & 0xffffffffu);)
SKEL_FUNC(uint32_t, aff16_pick, (uint32_t a, uint32_t b), return a ^ (b & 0xffffu);)
SKEL_REDUCE(raff16, aff16, uint32_t)
SKEL_REDUCE(raff32, aff32, uint64_t)
SKEL_MAPREDUCE(mraff16, aff16_pick, aff16, uint32_t, 2)

static uint32_t aff16_ref(uint32_t f, uint32_t g) { return aff16(f, g); }
static uint64_t aff32_ref(uint64_t f, uint64_t g) { return aff32(f, g); }
/* the manual's lanes over x[0..n), n >= 2L (L = 32 or 16) */
static uint32_t lanes_model16(const uint32_t *x, size_t n)
{
    uint32_t l[32];
    size_t i, w;
    for (i = 0; i < n; ++i) l[i % 32] = i < 32 ? x[i] : aff16_ref(l[i % 32], x[i]);
    for (w = 16; w >= 1; w /= 2)
        for (i = 0; i < w; ++i) l[i] = aff16_ref(l[i], l[i + w]);
    return l[0];
}
static uint64_t lanes_model32(const uint64_t *x, size_t n)
{
    uint64_t l[16];
    size_t i, w;
    for (i = 0; i < n; ++i) l[i % 16] = i < 16 ? x[i] : aff32_ref(l[i % 16], x[i]);
    for (w = 8; w >= 1; w /= 2)
        for (i = 0; i < w; ++i) l[i] = aff32_ref(l[i], l[i + w]);
    return l[0];
}

SKEL_TEST(reduce_lanes_keep_their_order_at_every_alignment)
{
    static const size_t sizes[] = { 64, 65, 79, 95, 96, 97, 127, 128, 131, 200, 1021, 1024, 4099 };
    enum { MAXN = 4128 };       /* >= 4099 + 15, a multiple of 16: every array starts on a 64-byte boundary */
    unsigned char *mem = (unsigned char *)malloc(MAXN * 20 + 64), *a64;
    uint32_t *b32, *c32, *x32, *y32, *m, r32, want32;
    uint64_t *b64, *x64, r64, want64;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    skel_plan *seq = NULL;
    skel_variant only_seq = {0};
    skel_vec *vx = NULL, *vy = NULL;
    size_t i, z, off;
    ST_CHECK(mem != NULL);
    if (!mem) return;
    a64 = mem + (64 - (size_t)((uintptr_t)mem % 64)) % 64;     /* offsets count from a 64-byte boundary */
    b64 = (uint64_t *)a64;
    b32 = (uint32_t *)(a64 + MAXN * 8);
    c32 = b32 + MAXN;
    m = c32 + MAXN;
    for (i = 0; i < MAXN; ++i) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        b32[i] = (uint32_t)s | 1u << 16;    /* odd multipliers: no factor vanishes */
        c32[i] = (uint32_t)(s >> 32);
        b64[i] = s | 1ull << 32;
    }
    only_seq.backend = "seq";
    ST_OK(skel_plan_new(&seq));
    ST_OK(skel_plan_add(seq, 0, SIZE_MAX, &only_seq));
    ST_OK(skel_set_plan(raff16, seq));
    ST_OK(skel_set_plan(raff32, seq));
    ST_OK(skel_set_plan(mraff16, seq));
    for (z = 0; z < sizeof sizes / sizeof sizes[0]; ++z)
        for (off = 0; off < 16; ++off) {
            size_t n = sizes[z];
            st_context("n %zu, offset %zu elements", n, off);
            x32 = b32 + off;
            ST_OK(skel_vec_wrap(&vx, SKEL_UINT32, n, x32));
            ST_OK(skel_reduce(raff16, vx, &r32));
            ST_EQ_UINT(r32, lanes_model16(x32, n));
            /* MapReduce: in[1] at another offset */
            y32 = c32 + (off * 7 + 3) % 16;
            for (i = 0; i < n; ++i) m[i] = aff16_pick(x32[i], y32[i]);
            want32 = lanes_model16(m, n);
            ST_OK(skel_vec_wrap(&vy, SKEL_UINT32, n, y32));
            ST_OK(skel_mapreduce2(mraff16, vx, vy, &r32));
            ST_EQ_UINT(r32, want32);
            skel_free(vx); skel_free(vy); vx = vy = NULL;
            if (off < 8) {
                x64 = b64 + off;
                want64 = lanes_model32(x64, n);
                ST_OK(skel_vec_wrap(&vx, SKEL_UINT64, n, x64));
                ST_OK(skel_reduce(raff32, vx, &r64));
                ST_EQ_UINT(r64, want64);
                skel_free(vx); vx = NULL;
            }
        }
    st_context("");
    ST_OK(skel_set_plan(raff16, NULL));
    ST_OK(skel_set_plan(raff32, NULL));
    ST_OK(skel_set_plan(mraff16, NULL));
    skel_plan_free(seq);
    free(mem);
}
