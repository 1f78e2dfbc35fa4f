/* Containers: constructors, accessors, wrapping, bad arguments. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "skel.h"
#include "skel_test.h"

#define CT_TYPES(X)                   \
    X(float, f, SKEL_FLOAT, 4)        \
    X(double, d, SKEL_DOUBLE, 8)      \
    X(int32_t, i32, SKEL_INT32, 4)    \
    X(uint32_t, u32, SKEL_UINT32, 4)  \
    X(int64_t, i64, SKEL_INT64, 8)    \
    X(uint64_t, u64, SKEL_UINT64, 8)

static const size_t csizes[] = { 0, 1, 7, 1025 };
static const size_t cshapes[][2] = { { 1, 1 }, { 1, 9 }, { 9, 1 }, { 7, 13 } };

#define CONTAINER_TESTS(T, S, TY, SZ)                                         \
    SKEL_TEST(type_info_##S) {                                                \
        const skel_type_info *ti = skel_type_get(TY);                         \
        ST_CHECK(ti != NULL);                                                 \
        ST_EQ_UINT(ti->size, sizeof(T));                                      \
        ST_EQ_UINT(ti->size, SZ);                                             \
        ST_CHECK(strcmp(ti->c_name, #T) == 0);                                \
        ST_EQ_INT(ti->is_float, (T)0.5 != 0);                                 \
    }                                                                         \
    SKEL_TEST(vec_new_is_zero_filled_##S) {                                   \
        size_t k, i;                                                          \
        for (k = 0; k < sizeof csizes / sizeof *csizes; ++k) {                \
            skel_vec *v = NULL;                                               \
            const T *p;                                                       \
            st_context("n=%zu", csizes[k]);                                   \
            ST_OK(skel_vec_new(&v, TY, csizes[k]));                           \
            ST_CHECK(v != NULL);                                              \
            ST_EQ_UINT(skel_size(v), csizes[k]);                              \
            ST_EQ_UINT(skel_rows(v), 1);                                      \
            ST_EQ_UINT(skel_cols(v), csizes[k]);                              \
            ST_EQ_INT(skel_elem_type(v), TY);                                 \
            ST_EQ_INT(skel_is_matrix(v), 0);                                  \
            p = (const T *)skel_read(v);                                      \
            ST_CHECK(p != NULL);                                              \
            for (i = 0; i < csizes[k]; ++i) ST_CHECK(p[i] == 0);              \
            skel_free(v);                                                     \
        }                                                                     \
    }                                                                         \
    SKEL_TEST(vec_new_fill_and_copy_##S) {                                    \
        size_t k, i;                                                          \
        for (k = 0; k < sizeof csizes / sizeof *csizes; ++k) {                \
            size_t n = csizes[k];                                             \
            skel_vec *f = NULL, *c = NULL;                                    \
            T val = (T)42, *src = (T *)malloc((n + 1) * sizeof(T));           \
            const T *p;                                                       \
            st_context("n=%zu", n);                                           \
            ST_CHECK(src);                                                    \
            for (i = 0; i < n; ++i) src[i] = (T)(i * 3 + 1);                  \
            ST_OK(skel_vec_new_fill(&f, TY, n, &val));                        \
            ST_OK(skel_vec_new_copy(&c, TY, n, src));                         \
            p = (const T *)skel_read(f);                                      \
            for (i = 0; i < n; ++i) ST_CHECK(p[i] == (T)42);                  \
            for (i = 0; i < n; ++i) src[i] = (T)99;   /* a copy, not a view */ \
            p = (const T *)skel_read(c);                                      \
            for (i = 0; i < n; ++i) ST_CHECK(p[i] == (T)(i * 3 + 1));         \
            ST_EQ_UINT(skel_size(c), n);                                      \
            skel_free(f); skel_free(c); free(src);                            \
        }                                                                     \
    }                                                                         \
    SKEL_TEST(vec_write_then_read_##S) {                                      \
        skel_vec *v = NULL;                                                   \
        T *w;                                                                 \
        size_t i;                                                             \
        ST_OK(skel_vec_new(&v, TY, 100));                                     \
        w = (T *)skel_write(v);                                               \
        ST_CHECK(w != NULL);                                                  \
        for (i = 0; i < 100; ++i) w[i] = (T)(i + 5);                          \
        ST_CHECK(skel_read(v) != NULL);                                       \
        for (i = 0; i < 100; ++i) ST_CHECK(((const T *)skel_read(v))[i] == (T)(i + 5)); \
        ST_OK(skel_flush(v));                                                 \
        ST_CHECK(((const T *)skel_read(v))[99] == (T)104);                    \
        skel_free(v);                                                         \
    }                                                                         \
    SKEL_TEST(vec_wrap_does_not_copy_##S) {                                   \
        T buf[10];                                                            \
        skel_vec *v = NULL;                                                   \
        T *w;                                                                 \
        size_t i;                                                             \
        for (i = 0; i < 10; ++i) buf[i] = (T)i;                               \
        ST_OK(skel_vec_wrap(&v, TY, 10, buf));                                \
        ST_EQ_UINT(skel_size(v), 10);                                         \
        ST_CHECK(((const T *)skel_read(v))[3] == (T)3);                       \
        w = (T *)skel_write(v);                                               \
        ST_CHECK(w != NULL);                                                  \
        w[4] = (T)77;                                                         \
        ST_CHECK(buf[4] == (T)77);        /* writes land in the user buffer */ \
        buf[5] = (T)55;                                                       \
        ST_CHECK(((const T *)skel_read(v))[5] == (T)55);                      \
        skel_free(v);                                                         \
        ST_CHECK(buf[4] == (T)77);        /* free leaves the buffer alone */  \
    }                                                                         \
    SKEL_TEST(mat_new_fill_copy_wrap_##S) {                                   \
        size_t k, i;                                                          \
        for (k = 0; k < sizeof cshapes / sizeof *cshapes; ++k) {              \
            size_t R = cshapes[k][0], C = cshapes[k][1], n = R * C;           \
            skel_mat *z = NULL, *f = NULL, *c = NULL, *w = NULL;              \
            T val = (T)9, *src = (T *)malloc(n * sizeof(T)), *buf = (T *)malloc(n * sizeof(T)); \
            T *wp;                                                            \
            st_context("%zux%zu", R, C);                                      \
            ST_CHECK(src && buf);                                             \
            for (i = 0; i < n; ++i) { src[i] = (T)(i + 1); buf[i] = (T)(2 * i); } \
            ST_OK(skel_mat_new(&z, TY, R, C));                                \
            ST_OK(skel_mat_new_fill(&f, TY, R, C, &val));                     \
            ST_OK(skel_mat_new_copy(&c, TY, R, C, src));                      \
            ST_OK(skel_mat_wrap(&w, TY, R, C, buf));                          \
            ST_EQ_UINT(skel_rows(c), R);                                      \
            ST_EQ_UINT(skel_cols(c), C);                                      \
            ST_EQ_UINT(skel_size(c), n);                                      \
            ST_EQ_INT(skel_is_matrix(c), 1);                                  \
            ST_EQ_INT(skel_elem_type(w), TY);                                 \
            for (i = 0; i < n; ++i) {                                         \
                ST_CHECK(((const T *)skel_read(z))[i] == 0);                  \
                ST_CHECK(((const T *)skel_read(f))[i] == (T)9);               \
                ST_CHECK(((const T *)skel_read(c))[i] == (T)(i + 1));         \
                ST_CHECK(((const T *)skel_read(w))[i] == (T)(2 * i));         \
            }                                                                 \
            wp = (T *)skel_write(w);                                          \
            wp[n - 1] = (T)123;                                               \
            ST_CHECK(buf[n - 1] == (T)123);                                   \
            skel_free(z); skel_free(f); skel_free(c); skel_free(w);           \
            free(src); free(buf);                                             \
        }                                                                     \
    }
CT_TYPES(CONTAINER_TESTS)

SKEL_TEST(free_null_is_fine)
{
    skel_free(NULL);
    ST_EQ_UINT(skel_size(NULL), 0);
}

SKEL_TEST(type_get_rejects_invalid_types)
{
    ST_CHECK(skel_type_get(SKEL_NOTYPE) == NULL);
    ST_CHECK(skel_type_get(SKEL_TYPE_COUNT) == NULL);
    ST_CHECK(skel_type_get((skel_type)99) == NULL);
    ST_CHECK(skel_type_get((skel_type)-1) == NULL);
}

/* a failing constructor returns code and says why; when null_out, it also
   set *out to NULL (the manual does not promise that for every failure: a
   NULL value/src/buffer leaves *out as it was, so those pass 0) */
static void expect_ctor_fail(int rc, int want, skel_vec *v, int null_out, const char *file, int line)
{
    if (rc != want)
        st_fail_(file, line, "returned %d (%s), want %d (%s)", rc, skel_error_string(rc), want,
                 skel_error_string(want));
    if (null_out && v != NULL) st_fail_(file, line, "*out is not NULL after a failure");
    if (!skel_last_error() || !skel_last_error()[0]) st_fail_(file, line, "skel_last_error() is empty");
}
#define CTOR_FAILS(call, want, v)                                             \
    do { int rc_; v = (skel_vec *)&v; rc_ = (call); expect_ctor_fail(rc_, want, v, 1, __FILE__, __LINE__); } while (0)
#define CTOR_FAILS_NULL_ARG(call, want, v)                                    \
    do { int rc_; v = NULL; rc_ = (call); expect_ctor_fail(rc_, want, v, 0, __FILE__, __LINE__); } while (0)

SKEL_TEST(constructors_reject_bad_arguments)
{
    skel_vec *v;
    float x = 1, buf[4] = { 1, 2, 3, 4 };
    ST_EQ_INT(skel_vec_new(NULL, SKEL_FLOAT, 4), SKEL_EINVAL);
    ST_CHECK(skel_last_error()[0] != 0);
    ST_EQ_INT(skel_vec_new_fill(NULL, SKEL_FLOAT, 4, &x), SKEL_EINVAL);
    ST_EQ_INT(skel_vec_new_copy(NULL, SKEL_FLOAT, 4, buf), SKEL_EINVAL);
    ST_EQ_INT(skel_vec_wrap(NULL, SKEL_FLOAT, 4, buf), SKEL_EINVAL);
    ST_EQ_INT(skel_mat_new(NULL, SKEL_FLOAT, 2, 2), SKEL_EINVAL);
    ST_EQ_INT(skel_mat_new_fill(NULL, SKEL_FLOAT, 2, 2, &x), SKEL_EINVAL);
    ST_EQ_INT(skel_mat_new_copy(NULL, SKEL_FLOAT, 2, 2, buf), SKEL_EINVAL);
    ST_EQ_INT(skel_mat_wrap(NULL, SKEL_FLOAT, 2, 2, buf), SKEL_EINVAL);

    CTOR_FAILS(skel_vec_new(&v, SKEL_NOTYPE, 4), SKEL_EINVAL, v);
    CTOR_FAILS(skel_vec_new(&v, SKEL_TYPE_COUNT, 4), SKEL_EINVAL, v);
    CTOR_FAILS(skel_vec_new(&v, (skel_type)42, 4), SKEL_EINVAL, v);
    CTOR_FAILS(skel_mat_new(&v, SKEL_NOTYPE, 2, 2), SKEL_EINVAL, v);
    CTOR_FAILS_NULL_ARG(skel_vec_new_fill(&v, SKEL_FLOAT, 4, NULL), SKEL_EINVAL, v);
    CTOR_FAILS_NULL_ARG(skel_vec_new_copy(&v, SKEL_FLOAT, 4, NULL), SKEL_EINVAL, v);
    CTOR_FAILS_NULL_ARG(skel_vec_wrap(&v, SKEL_FLOAT, 4, NULL), SKEL_EINVAL, v);
    CTOR_FAILS_NULL_ARG(skel_mat_new_fill(&v, SKEL_FLOAT, 2, 2, NULL), SKEL_EINVAL, v);
    CTOR_FAILS_NULL_ARG(skel_mat_new_copy(&v, SKEL_FLOAT, 2, 2, NULL), SKEL_EINVAL, v);
    CTOR_FAILS_NULL_ARG(skel_mat_wrap(&v, SKEL_FLOAT, 2, 2, NULL), SKEL_EINVAL, v);
    /* sizes whose byte count overflows size_t are refused before any allocation */
    CTOR_FAILS(skel_vec_new(&v, SKEL_DOUBLE, SIZE_MAX), SKEL_EINVAL, v);
    CTOR_FAILS(skel_mat_new(&v, SKEL_FLOAT, SIZE_MAX / 2, 3), SKEL_EINVAL, v);
    CTOR_FAILS(skel_mat_new(&v, SKEL_FLOAT, 3, SIZE_MAX / 2), SKEL_EINVAL, v);
}

SKEL_TEST(accessors_reject_null)
{
    ST_CHECK(skel_read(NULL) == NULL);
    ST_CHECK(skel_last_error()[0] != 0);
    ST_CHECK(skel_write(NULL) == NULL);
    ST_EQ_INT(skel_flush(NULL), SKEL_EINVAL);
}
