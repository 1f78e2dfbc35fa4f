/* skel.h - skeleton programming for CPUs and GPUs, one header, C99.

   skel runs a data-parallel computation written once as a *skeleton* (Map,
   Reduce, MapReduce, Scan, MapOverlap, MapArray) parameterised by a small
   user function, on one core, on all cores through OpenMP, or on a GPU
   through skel_cuda.h / skel_cl.h.  It picks the backend per call from an
   execution plan (a manual one, or one the tuner learned) and keeps data
   where it was last written, copying only when a different memory space
   needs it.

   USE
       In exactly one .c file:
           #define SKEL_IMPLEMENTATION
           #include "skel.h"
       elsewhere just #include "skel.h".  Include skel.h before any system
       header in the implementation file (it asks for POSIX), or build
       with -D_POSIX_C_SOURCE=200809L.  Build with -fopenmp for the "omp"
       backend (without it the backend is simply absent); link -ldl -lpthread -lm.

   EXAMPLE (dot product)
       SKEL_FUNC(float, mult, (float a, float b), return a * b;)
       SKEL_FUNC(float, add,  (float a, float b), return a + b;)
       SKEL_MAPREDUCE(dot, mult, add, float, 2)

       int main(void) {
           skel_vec *x, *y; float r;
           skel_vec_new_fill(&x, SKEL_FLOAT, 1000, &(float){2});
           skel_vec_new_fill(&y, SKEL_FLOAT, 1000, &(float){3});
           if (skel_mapreduce2(dot, x, y, &r) != SKEL_OK)
               fprintf(stderr, "dot: %s\n", skel_last_error());
           printf("%g\n", r);              // 6000
           skel_free(x); skel_free(y);
       }

   USER FUNCTIONS
       SKEL_FUNC(ret, name, (params), body...) defines `static inline ret
       name(params) { body }` for the CPU backends (the compiler inlines it
       into the loop skel generates for each skeleton instance) and keeps
       the same text as a string for the GPU backends.  The body must be
       plain C that also compiles as CUDA and OpenCL C: no library calls
       other than math functions, no globals.  Element parameters come in
       this order:
           Map / MapReduce map:  [index] a0 .. a(k-1) [uniform]
               index = `skel_index i` (SKEL_INDEX) or
                       `skel_index row, skel_index col` (SKEL_INDEX2D)
           Reduce / Scan:        (T a, T b)   - must be associative
           MapOverlap 1D:        (const T *a [, uniform])  reads a[-d] .. a[d]
           MapOverlap 2D:        (const T *a, skel_index stride [, const T *w] [, uniform])
                                 reads a[i*stride + j], |i| <= dR, |j| <= dC;
                                 w (weighted form) is the weight matrix
                                 centred like a, row stride 2*dC+1
           MapArray:             (const T *v, T e [, uniform])  may read any v[k]
       A uniform argument is a scalar or small struct passed by value to
       every element call; declare struct types with SKEL_STRUCT so the GPU
       backends get their definition too.

   SKELETON INSTANCES (each defines `static skel_skeleton name[1]`)
       SKEL_MAP(name, func, T, nin)                       r[i] = func(a0[i]..)
       SKEL_MAP_EX(name, func, Tout, Tin, nin, index, uniform)
       SKEL_REDUCE(name, func, T)
       SKEL_MAPREDUCE(name, mapfunc, redfunc, T, nin)
       SKEL_MAPREDUCE_EX(name, mapfunc, redfunc, Tout, Tin, nin, index, uniform)
       SKEL_SCAN(name, func, T)
       SKEL_OVERLAP(name, func, T, d)                     1D and separable 2D
       SKEL_OVERLAP_EX(name, func, T, d, uniform)
       SKEL_OVERLAP2D(name, func, T, dR, dC)              non-separable 2D
       SKEL_OVERLAP2D_EX(name, func, T, dR, dC, weighted, uniform)
       SKEL_CONV2D(name, T, dR, dC)                       weighted sum, no user function
       SKEL_MAPARRAY(name, func, T)
       SKEL_MAPARRAY_EX(name, func, T, uniform)
       index:   SKEL_NO_INDEX, SKEL_INDEX, SKEL_INDEX2D
       uniform: SKEL_NO_UNIFORM, SKEL_UNIFORM(type)
       weighted: SKEL_WEIGHTED, SKEL_UNWEIGHTED
       Element types are the C types float, double, int32_t, uint32_t,
       int64_t and uint64_t, written as those single tokens.  nin is 1..4
       (0 with an index: the function computes from the index alone).

   SEMANTICS (thesis ch. 3, Dastgeer 2011)
       Reduce/MapReduce/Scan need an associative operator; skel never
       assumes it is commutative (partial results are combined in index
       order).  Integer results are therefore exact; floating-point results
       may differ from a sequential left-to-right loop by rounding, because
       the CPU backends sum contiguous blocks separately before combining.
       Reducing an empty container is an error (SKEL_EEMPTY): there is no
       identity to return.  MapOverlap reads outside the data through the
       edge policy: SKEL_EDGE_CONSTANT (the call's edge_value, default 0),
       SKEL_EDGE_CYCLIC (wrap around) or SKEL_EDGE_DUPLICATE (nearest
       element); the overlap may not exceed the length it runs along.
       Map and Scan may write in place (out == input); MapOverlap and
       MapArray may too (skel copies the input first).

   BACKENDS AND ENVIRONMENT
       seq      one core, always present
       omp      OpenMP, present when compiled with -fopenmp (variant: threads)
       cuda     skel_cuda.h, when libcuda and NVRTC load and a GPU is there
       opencl   skel_cl.h, when libOpenCL loads and a device is there
       Default without a plan: a GPU backend when the first operand already
       lives on that GPU, else omp from SKEL_OMP_THRESHOLD elements (default
       32768) and seq below.
       SKEL_BACKEND=name     run every call on that backend (an unknown or
                             absent name makes every call fail, clearly)
       SKEL_OMP_THREADS=n    default OpenMP thread count (else OpenMP's)
       SKEL_OMP_THRESHOLD=n  size from which the default picks omp
       SKEL_VERBOSE=1|2      log backend choices (2: and every call) on stderr

   CONFIGURATION MACROS (define before the implementation include)
       SKEL_MALLOC(n), SKEL_REALLOC(p, n), SKEL_FREE(p), SKEL_ASSERT(c),
       SKEL_NO_OPENMP (leave the omp backend out even with -fopenmp)

   VERSION 0.1.0
       0.1.0  containers with coherence state, all data-parallel skeletons on
              seq and omp, manual execution plans.
*/
#ifndef SKEL_H
#define SKEL_H

/* The implementation uses POSIX (clock_gettime, dlopen, pthreads); ask for
   it when this is the first header of the implementation file. */
#if defined(SKEL_IMPLEMENTATION) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKEL_VERSION "0.1.0"

/* ---- status codes ----------------------------------------------------- */
enum {
    SKEL_OK = 0,
    SKEL_EINVAL = -1,       /* a NULL or out-of-range argument */
    SKEL_ESIZE = -2,        /* operand sizes do not match */
    SKEL_ETYPE = -3,        /* element type does not match the instance */
    SKEL_ESHAPE = -4,       /* a matrix where a vector is needed, or the reverse */
    SKEL_ENOMEM = -5,       /* out of host or device memory */
    SKEL_EBACKEND = -6,     /* unknown or unavailable backend */
    SKEL_EEMPTY = -7,       /* reduction of an empty container */
    SKEL_ECOMPILE = -8,     /* a generated kernel did not compile */
    SKEL_EDEVICE = -9,      /* a GPU driver call failed */
    SKEL_EIO = -10,         /* a file could not be read or written */
    SKEL_EFORMAT = -11,     /* a file is truncated, corrupted or of another version */
    SKEL_EUNSUPPORTED = -12 /* the backend cannot run this skeleton */
};
const char *skel_error_string(int status);  /* the code's name and meaning */
const char *skel_last_error(void);          /* detail of this thread's last failure */

/* ---- logging ---------------------------------------------------------- */
enum { SKEL_LOG_ERROR = 0, SKEL_LOG_WARN = 1, SKEL_LOG_INFO = 2, SKEL_LOG_DEBUG = 3 };
typedef void (*skel_log_fn)(int level, const char *message, void *user);
/* Replace the log sink (NULL restores the default: stderr when SKEL_VERBOSE is set). */
void skel_set_log(skel_log_fn fn, void *user);

/* ---- element types ---------------------------------------------------- */
typedef enum skel_type {
    SKEL_NOTYPE = 0, SKEL_FLOAT, SKEL_DOUBLE, SKEL_INT32, SKEL_UINT32,
    SKEL_INT64, SKEL_UINT64, SKEL_TYPE_COUNT
} skel_type;
typedef struct skel_type_info {
    const char *name;       /* "float", "int32", ... */
    const char *c_name;     /* spelling in C and in generated kernels: "int32_t" */
    size_t size;            /* bytes */
    int is_float, is_signed;
} skel_type_info;
/* The type table entry for t, or NULL for an invalid t. */
const skel_type_info *skel_type_get(skel_type t);
typedef int64_t skel_index;  /* element index passed to index-aware functions */

/* ---- containers ------------------------------------------------------- */
/* One opaque container type; skel_vec and skel_mat name its two shapes.
   Data is row-major and contiguous.  A container remembers which memory
   spaces (host, each GPU) hold its newest data and copies lazily. */
typedef struct skel_array skel_vec;
typedef struct skel_array skel_mat;

int skel_vec_new(skel_vec **v, skel_type t, size_t n);                          /* zero-filled */
int skel_vec_new_fill(skel_vec **v, skel_type t, size_t n, const void *value);  /* every element = *value */
int skel_vec_new_copy(skel_vec **v, skel_type t, size_t n, const void *src);    /* copies n elements */
/* Wrap a user buffer without copying.  The buffer must outlive the
   container; after a GPU write it is stale until skel_read/skel_flush. */
int skel_vec_wrap(skel_vec **v, skel_type t, size_t n, void *buffer);
int skel_mat_new(skel_mat **m, skel_type t, size_t rows, size_t cols);
int skel_mat_new_fill(skel_mat **m, skel_type t, size_t rows, size_t cols, const void *value);
int skel_mat_new_copy(skel_mat **m, skel_type t, size_t rows, size_t cols, const void *src);
int skel_mat_wrap(skel_mat **m, skel_type t, size_t rows, size_t cols, void *buffer);
void skel_free(skel_vec *c);              /* frees host and device copies; NULL is fine */

size_t skel_size(const skel_vec *c);      /* elements (rows * cols for a matrix) */
size_t skel_rows(const skel_vec *c);      /* 1 for a vector */
size_t skel_cols(const skel_vec *c);      /* n for a vector */
skel_type skel_elem_type(const skel_vec *c);
int skel_is_matrix(const skel_vec *c);
/* Host pointer to the newest data, for reading (copies from a device if
   needed).  NULL on failure (see skel_last_error). Valid until the next
   skeleton call that writes the container, or skel_free. */
const void *skel_read(skel_vec *c);
/* Host pointer for reading and writing: like skel_read, and marks the host
   copy as the only valid one (device copies are re-sent when next needed). */
void *skel_write(skel_vec *c);
/* Make the host copy valid and release device copies. */
int skel_flush(skel_vec *c);

/* ---- skeleton calls --------------------------------------------------- */
typedef enum skel_edge { SKEL_EDGE_CONSTANT = 0, SKEL_EDGE_CYCLIC, SKEL_EDGE_DUPLICATE } skel_edge;
enum { SKEL_WHOLE = 0, SKEL_ROWS = 1, SKEL_COLS = 2, SKEL_ROWS_COLS = 3 };
#define SKEL_MAX_IN 4

/* The operands of one call.  Zero fields take the documented default. */
typedef struct skel_call {
    skel_vec *in[SKEL_MAX_IN];  /* inputs in order (MapArray: in[0] = v, in[1] = v2 or matrix) */
    skel_vec *out;              /* result container; NULL for a scalar result */
    void *result;               /* Reduce/MapReduce scalar result (one element of the result type) */
    const void *uniform;        /* uniform argument, required iff the instance declares one */
    int direction;              /* Reduce: SKEL_WHOLE (scalar), SKEL_ROWS or SKEL_COLS (vector result).
                                   matrix MapOverlap: SKEL_ROWS (default), SKEL_COLS, SKEL_ROWS_COLS */
    skel_edge edge;             /* MapOverlap edge policy (default SKEL_EDGE_CONSTANT) */
    const void *edge_value;     /* SKEL_EDGE_CONSTANT value (default 0) */
    int exclusive;              /* Scan: 0 inclusive, 1 exclusive (init required) */
    const void *init;           /* Scan exclusive: initial value */
    const void *weights;        /* weighted MapOverlap2D: (2dR+1) x (2dC+1) elements, row-major */
    int group;                  /* bulk selection group (tuner), 0 = none */
} skel_call;

typedef struct skel_skeleton skel_skeleton;
/* Run one skeleton call.  On failure no container is changed. */
int skel_run(skel_skeleton *sk, const skel_call *call);
/* Shorthands for the common calls. */
int skel_map1(skel_skeleton *sk, skel_vec *out, skel_vec *a);
int skel_map2(skel_skeleton *sk, skel_vec *out, skel_vec *a, skel_vec *b);
int skel_reduce(skel_skeleton *sk, skel_vec *in, void *result);
int skel_mapreduce1(skel_skeleton *sk, skel_vec *a, void *result);
int skel_mapreduce2(skel_skeleton *sk, skel_vec *a, skel_vec *b, void *result);
int skel_scan(skel_skeleton *sk, skel_vec *out, skel_vec *in);
int skel_overlap(skel_skeleton *sk, skel_vec *out, skel_vec *in, skel_edge edge, const void *edge_value);

/* ---- variants and execution plans -------------------------------------- */
/* A variant is a backend plus its parameters.  Zero parameters take the
   backend's default. */
typedef struct skel_variant {
    const char *backend;    /* "seq", "omp", "cuda", "opencl" */
    int threads;            /* omp: thread count (0: SKEL_OMP_THREADS or OpenMP's default) */
    int block, grid;        /* GPU: threads per block, blocks */
    int devices;            /* GPU: devices to split one call over (0: 1) */
} skel_variant;

/* An execution plan maps a context point (the reduced size of a call: its
   element count for range plans) to a variant (thesis Fig. 4.3). */
typedef struct skel_plan skel_plan;
int skel_plan_new(skel_plan **p);
void skel_plan_free(skel_plan *p);
/* Sizes lo..hi (inclusive) run on variant v; later ranges win on overlap. */
int skel_plan_add(skel_plan *p, size_t lo, size_t hi, const skel_variant *v);
/* The variant the plan chooses for a call of n elements; SKEL_EINVAL if no range covers n. */
int skel_plan_lookup(const skel_plan *p, size_t n, skel_variant *out);
/* Attach a plan to an instance (NULL detaches).  The instance does not own it. */
int skel_set_plan(skel_skeleton *sk, skel_plan *p);
/* The variant the next call of sk with these operands would run. */
int skel_choose(skel_skeleton *sk, const skel_call *call, skel_variant *out);

/* ---- backends ----------------------------------------------------------- */
int skel_backend_count(void);                  /* registered backends */
const char *skel_backend_name(int index);      /* NULL past the end */
int skel_backend_available(const char *name);  /* 1 if present on this machine */

/* ======================================================================
   Code generation.  Everything below builds the per-instance loops; users
   only need the macros documented at the top.
   ====================================================================== */

/* The private job one CPU chunk function works on. */
typedef struct _skel_job {
    void *out;
    const void *in[SKEL_MAX_IN];
    const void *uniform;
    const void *weights;
    const void *edge_value;
    int edge;
    size_t rows, cols;      /* shape of the data the chunk indexes (vector: 1 x n) */
} _skel_job;

/* Per-instance CPU entry points; each processes a range with the user
   function inlined. */
typedef struct _skel_cpu {
    void (*map)(const _skel_job *j, size_t lo, size_t hi);
    void (*reduce)(const _skel_job *j, size_t lo, size_t hi, void *acc);      /* hi > lo */
    void (*mapreduce)(const _skel_job *j, size_t lo, size_t hi, void *acc);   /* hi > lo */
    void (*reduce_cols)(const _skel_job *j, size_t row_lo, size_t row_hi, void *acc, int have_acc);
    void (*scan)(const _skel_job *j, size_t lo, size_t hi, const void *carry, int exclusive);
    void (*overlap)(const _skel_job *j, const void *src, void *dst, size_t n, size_t lo, size_t hi);
    void (*overlap2d)(const _skel_job *j, size_t row_lo, size_t row_hi);
} _skel_cpu;

enum { SKEL_KIND_MAP = 1, SKEL_KIND_REDUCE, SKEL_KIND_MAPREDUCE, SKEL_KIND_SCAN,
       SKEL_KIND_OVERLAP, SKEL_KIND_OVERLAP2D, SKEL_KIND_MAPARRAY };

struct _skel_inst_state;
struct skel_skeleton {
    int kind;
    const char *name;
    skel_type out_type, in_type;
    int nin, index_mode;            /* index_mode: 0 none, 1 flat, 2 (row, col) */
    int has_uniform;
    size_t uniform_size;
    const char *uniform_type;       /* C spelling of the uniform type */
    const char *(*uniform_src)(void);
    int dr, dc, weighted;           /* MapOverlap */
    const char *func_name;          /* element function */
    const char *(*func_src)(void);
    const char *red_name;           /* reduce function */
    const char *(*red_src)(void);
    _skel_cpu cpu;
    struct _skel_inst_state *state; /* plan and kernel caches, made on first use */
};

/* ---- macro plumbing ---- */
#define _SKEL_CAT(a, b) _SKEL_CAT_(a, b)
#define _SKEL_CAT_(a, b) a##b
#define _SKEL_FIRST(a, b) a
#define _SKEL_SECOND(a, b) b
#define _SKEL_CALLF(f, ...) _SKEL_CALLF_(f, __VA_ARGS__)
#define _SKEL_CALLF_(f, dummy, ...) f(__VA_ARGS__)

#define _SKEL_TYPEID(t) _SKEL_CAT(_SKEL_TYPEID_, t)
#define _SKEL_TYPEID_float SKEL_FLOAT
#define _SKEL_TYPEID_double SKEL_DOUBLE
#define _SKEL_TYPEID_int32_t SKEL_INT32
#define _SKEL_TYPEID_uint32_t SKEL_UINT32
#define _SKEL_TYPEID_int64_t SKEL_INT64
#define _SKEL_TYPEID_uint64_t SKEL_UINT64

#define SKEL_NO_INDEX 0
#define SKEL_INDEX 1
#define SKEL_INDEX2D 2
#define SKEL_UNWEIGHTED 0
#define SKEL_WEIGHTED 1
#define SKEL_NO_UNIFORM (0, char)
#define SKEL_UNIFORM(type) (1, type)
#define _SKEL_UMODE(u) _SKEL_FIRST u
#define _SKEL_UTYPE(u) _SKEL_SECOND u

/* A user function: inlinable C plus its source text. */
#define SKEL_FUNC(ret, name, params, ...)                                     \
    static inline ret name params { __VA_ARGS__ }                             \
    static inline const char *_skel_src_##name(void)                          \
    { return #ret " " #name #params " { " #__VA_ARGS__ " }\n"; }

/* A struct type usable as a uniform argument on every backend. */
#define SKEL_STRUCT(name, ...)                                                \
    typedef struct name { __VA_ARGS__ } name;                                 \
    static inline const char *_skel_src_##name(void)                          \
    { return "typedef struct " #name " { " #__VA_ARGS__ " } " #name ";\n"; }

static inline const char *_skel_src_char(void) { return ""; }
static inline const char *_skel_src_float(void) { return ""; }
static inline const char *_skel_src_double(void) { return ""; }
static inline const char *_skel_src_int32_t(void) { return ""; }
static inline const char *_skel_src_uint32_t(void) { return ""; }
static inline const char *_skel_src_int64_t(void) { return ""; }
static inline const char *_skel_src_uint64_t(void) { return ""; }

/* input declarations and element arguments for nin = 0..4 */
#define _SKEL_DECL_IN_0(T)
#define _SKEL_DECL_IN_1(T) const T *a0 = (const T *)j->in[0];
#define _SKEL_DECL_IN_2(T) _SKEL_DECL_IN_1(T) const T *a1 = (const T *)j->in[1];
#define _SKEL_DECL_IN_3(T) _SKEL_DECL_IN_2(T) const T *a2 = (const T *)j->in[2];
#define _SKEL_DECL_IN_4(T) _SKEL_DECL_IN_3(T) const T *a3 = (const T *)j->in[3];
#define _SKEL_ELEMS_0(i)
#define _SKEL_ELEMS_1(i) , a0[i]
#define _SKEL_ELEMS_2(i) , a0[i], a1[i]
#define _SKEL_ELEMS_3(i) , a0[i], a1[i], a2[i]
#define _SKEL_ELEMS_4(i) , a0[i], a1[i], a2[i], a3[i]
#define _SKEL_UDECL_0(t)
#define _SKEL_UDECL_1(t) const t u_ = *(const t *)j->uniform;
#define _SKEL_UDECL(u) _SKEL_CAT(_SKEL_UDECL_, _SKEL_UMODE(u))(_SKEL_UTYPE(u))
#define _SKEL_UARG_0
#define _SKEL_UARG_1 , u_
#define _SKEL_UARG(u) _SKEL_CAT(_SKEL_UARG_, _SKEL_UMODE(u))
#define _SKEL_IXARG_0(i)
#define _SKEL_IXARG_1(i) , (skel_index)(i)
/* value of the map function at flat index i (ix is 0 or 1) */
#define _SKEL_MAPV(func, nin, ix, u, i)                                       \
    _SKEL_CALLF(func, ~ _SKEL_CAT(_SKEL_IXARG_, ix)(i)                        \
                _SKEL_CAT(_SKEL_ELEMS_, nin)(i) _SKEL_UARG(u))
#define _SKEL_MAPV2D(func, nin, u, i, row, col)                               \
    _SKEL_CALLF(func, ~, (skel_index)(row), (skel_index)(col)                 \
                _SKEL_CAT(_SKEL_ELEMS_, nin)(i) _SKEL_UARG(u))

/* Order-preserving blocked reduction of V(j, i) over [lo, hi): 8 contiguous
   blocks accumulate side by side (8 independent dependency chains instead
   of one) and are combined left to right, so only associativity is used. */
#define _SKEL_REDUCE_BODY(T, red, V, lo, hi, acc_out)                         \
    {                                                                         \
        size_t n_ = (hi) - (lo), m_ = n_ / 8, i_, q_;                         \
        T s_[8], t_;                                                          \
        if (m_ < 4) {                                                         \
            t_ = V(j, lo);                                                    \
            for (i_ = (lo) + 1; i_ < (hi); ++i_) t_ = red(t_, V(j, i_));      \
        } else {                                                              \
            for (q_ = 0; q_ < 8; ++q_) s_[q_] = V(j, (lo) + q_ * m_);         \
            for (i_ = 1; i_ < m_; ++i_)                                       \
                for (q_ = 0; q_ < 8; ++q_)                                    \
                    s_[q_] = red(s_[q_], V(j, (lo) + q_ * m_ + i_));          \
            for (i_ = (lo) + 8 * m_; i_ < (hi); ++i_) s_[7] = red(s_[7], V(j, i_)); \
            t_ = s_[0];                                                       \
            for (q_ = 1; q_ < 8; ++q_) t_ = red(t_, s_[q_]);                  \
        }                                                                     \
        *(T *)(acc_out) = t_;                                                 \
    }

/* ---- Map ---- */
#define _SKEL_MAP_LOOP_0(func, To, nin, u)                                    \
    for (i = lo; i < hi; ++i) r[i] = _SKEL_MAPV(func, nin, 0, u, i);
#define _SKEL_MAP_LOOP_1(func, To, nin, u)                                    \
    for (i = lo; i < hi; ++i) r[i] = _SKEL_MAPV(func, nin, 1, u, i);
#define _SKEL_MAP_LOOP_2(func, To, nin, u)                                    \
    for (i = lo; i < hi;) {                                                   \
        size_t row = i / j->cols, col = i % j->cols;                          \
        size_t end = i - col + j->cols < hi ? i - col + j->cols : hi;         \
        for (; i < end; ++i, ++col) r[i] = _SKEL_MAPV2D(func, nin, u, i, row, col); \
    }

#define _SKEL_MAP_FN(name, func, To, Ti, nin, ix, u)                          \
    static void _skel_map_##name(const _skel_job *j, size_t lo, size_t hi)    \
    {                                                                         \
        To *r = (To *)j->out;                                                 \
        size_t i;                                                             \
        _SKEL_CAT(_SKEL_DECL_IN_, nin)(Ti)                                    \
        _SKEL_UDECL(u)                                                        \
        _SKEL_CAT(_SKEL_MAP_LOOP_, ix)(func, To, nin, u)                      \
    }

#define _SKEL_INST_COMMON(nm_, kind_, To_, Ti_, nin_, ix_, u_)                \
    .kind = kind_, .name = #nm_, .out_type = _SKEL_TYPEID(To_),               \
    .in_type = _SKEL_TYPEID(Ti_), .nin = nin_, .index_mode = ix_,             \
    .has_uniform = _SKEL_UMODE(u_), .uniform_size = sizeof(_SKEL_UTYPE(u_)),  \
    .uniform_type = _SKEL_STR(_SKEL_UTYPE(u_)),                               \
    .uniform_src = _SKEL_CAT(_skel_src_, _SKEL_UTYPE(u_))
#define _SKEL_STR(x) _SKEL_STR_(x)
#define _SKEL_STR_(x) #x

#define SKEL_MAP_EX(name, func, Tout, Tin, nin, index, uniform)               \
    _SKEL_MAP_FN(name, func, Tout, Tin, nin, index, uniform)                  \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST_COMMON(name, SKEL_KIND_MAP, Tout, Tin, nin, index, uniform), \
        .func_name = #func, .func_src = _skel_src_##func,                     \
        .cpu = { .map = _skel_map_##name } }};
#define SKEL_MAP(name, func, T, nin) SKEL_MAP_EX(name, func, T, T, nin, SKEL_NO_INDEX, SKEL_NO_UNIFORM)

/* ---- Reduce ---- */
#define _SKEL_REDUCE_FNS(name, red, T)                                        \
    static inline T _skel_rv_##name(const _skel_job *j, size_t i)            \
    { return ((const T *)j->in[0])[i]; }                                      \
    static void _skel_red_##name(const _skel_job *j, size_t lo, size_t hi, void *acc) \
    _SKEL_REDUCE_BODY(T, red, _skel_rv_##name, lo, hi, acc)
#define _SKEL_REDUCE_COLS_FN(name, red, T)                                    \
    static void _skel_redc_##name(const _skel_job *j, size_t rlo, size_t rhi, void *accv, int have) \
    {                                                                         \
        const T *a0 = (const T *)j->in[0];                                    \
        T *acc = (T *)accv;                                                   \
        size_t c, rr, nc = j->cols;                                           \
        if (rlo >= rhi) return;                                               \
        if (!have) { for (c = 0; c < nc; ++c) acc[c] = a0[rlo * nc + c]; ++rlo; } \
        for (rr = rlo; rr < rhi; ++rr)                                        \
            for (c = 0; c < nc; ++c) acc[c] = red(acc[c], a0[rr * nc + c]);   \
    }

#define SKEL_REDUCE(name, func, T)                                            \
    _SKEL_REDUCE_FNS(name, func, T)                                           \
    _SKEL_REDUCE_COLS_FN(name, func, T)                                       \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST_COMMON(name, SKEL_KIND_REDUCE, T, T, 1, 0, SKEL_NO_UNIFORM), \
        .red_name = #func, .red_src = _skel_src_##func,                       \
        .cpu = { .reduce = _skel_red_##name, .reduce_cols = _skel_redc_##name } }};

/* ---- MapReduce ---- */
#define _SKEL_MRV_0(f, nin, u) _SKEL_MAPV(f, nin, 0, u, i)
#define _SKEL_MRV_1(f, nin, u) _SKEL_MAPV(f, nin, 1, u, i)
#define _SKEL_MRV_2(f, nin, u) _SKEL_MAPV2D(f, nin, u, i, i / j->cols, i % j->cols)
#define SKEL_MAPREDUCE_EX(name, mapf, redf, Tout, Tin, nin, index, uniform)   \
    static inline Tout _skel_mrv_##name(const _skel_job *j, size_t i)         \
    {                                                                         \
        _SKEL_CAT(_SKEL_DECL_IN_, nin)(Tin)                                   \
        _SKEL_UDECL(uniform)                                                  \
        return _SKEL_CAT(_SKEL_MRV_, index)(mapf, nin, uniform);              \
    }                                                                         \
    static void _skel_mr_##name(const _skel_job *j, size_t lo, size_t hi, void *acc) \
    _SKEL_REDUCE_BODY(Tout, redf, _skel_mrv_##name, lo, hi, acc)              \
    _SKEL_REDUCE_FNS(name, redf, Tout)                                        \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST_COMMON(name, SKEL_KIND_MAPREDUCE, Tout, Tin, nin, index, uniform), \
        .func_name = #mapf, .func_src = _skel_src_##mapf,                     \
        .red_name = #redf, .red_src = _skel_src_##redf,                       \
        .cpu = { .reduce = _skel_red_##name, .mapreduce = _skel_mr_##name } }};
#define SKEL_MAPREDUCE(name, mapf, redf, T, nin)                              \
    SKEL_MAPREDUCE_EX(name, mapf, redf, T, T, nin, SKEL_NO_INDEX, SKEL_NO_UNIFORM)

/* ---- Scan ---- */
#define SKEL_SCAN(name, func, T)                                              \
    _SKEL_REDUCE_FNS(name, func, T)                                           \
    static void _skel_scan_##name(const _skel_job *j, size_t lo, size_t hi,   \
                                  const void *carry, int exclusive)           \
    {                                                                         \
        const T *a = (const T *)j->in[0];                                     \
        T *r = (T *)j->out, acc, x;                                           \
        size_t i = lo;                                                        \
        if (lo >= hi) return;                                                 \
        if (exclusive) {                                                      \
            acc = *(const T *)carry;                                          \
            for (; i < hi; ++i) { x = a[i]; r[i] = acc; acc = func(acc, x); } \
            return;                                                           \
        }                                                                     \
        if (carry) acc = *(const T *)carry;                                   \
        else { acc = a[i]; r[i] = acc; ++i; }                                 \
        for (; i < hi; ++i) { acc = func(acc, a[i]); r[i] = acc; }            \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST_COMMON(name, SKEL_KIND_SCAN, T, T, 1, 0, SKEL_NO_UNIFORM), \
        .red_name = #func, .red_src = _skel_src_##func,                       \
        .cpu = { .reduce = _skel_red_##name, .scan = _skel_scan_##name } }};

/* ---- MapOverlap 1D (vectors, matrix rows, matrix columns) ---- */
void _skel_window_1d(const void *src, size_t n, size_t i, int d, size_t esz,
                     int edge, const void *edge_value, void *win);
#define SKEL_OVERLAP_EX(name, func, T, d, uniform)                            \
    static void _skel_ov_##name(const _skel_job *j, const void *src, void *dst, \
                                size_t n, size_t lo, size_t hi)               \
    {                                                                         \
        const T *s = (const T *)src;                                          \
        T *r = (T *)dst, win[2 * (d) + 1];                                    \
        size_t i = lo, e, first = (size_t)(d) < n ? (size_t)(d) : n;          \
        size_t last = n > (size_t)(d) ? n - (size_t)(d) : 0;                  \
        _SKEL_UDECL(uniform)                                                  \
        for (; i < hi && i < first; ++i) {                                    \
            _skel_window_1d(s, n, i, d, sizeof(T), j->edge, j->edge_value, win); \
            r[i] = _SKEL_CALLF(func, ~, win + (d) _SKEL_UARG(uniform));       \
        }                                                                     \
        e = hi < last ? hi : last;                                            \
        for (; i < e; ++i) r[i] = _SKEL_CALLF(func, ~, s + i _SKEL_UARG(uniform)); \
        for (; i < hi; ++i) {                                                 \
            _skel_window_1d(s, n, i, d, sizeof(T), j->edge, j->edge_value, win); \
            r[i] = _SKEL_CALLF(func, ~, win + (d) _SKEL_UARG(uniform));       \
        }                                                                     \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST_COMMON(name, SKEL_KIND_OVERLAP, T, T, 1, 0, uniform),      \
        .dr = (d), .dc = (d), .func_name = #func, .func_src = _skel_src_##func,   \
        .cpu = { .overlap = _skel_ov_##name } }};
#define SKEL_OVERLAP(name, func, T, d) SKEL_OVERLAP_EX(name, func, T, d, SKEL_NO_UNIFORM)

/* ---- MapOverlap 2D non-separable ---- */
void _skel_window_2d(const void *src, size_t rows, size_t cols, size_t r, size_t c,
                     int dr, int dc, size_t esz, int edge, const void *edge_value, void *win);
#define _SKEL_WARG_0(T, dr, dc)
#define _SKEL_WARG_1(T, dr, dc) , (const T *)j->weights + (dr) * (2 * (dc) + 1) + (dc)
#define SKEL_OVERLAP2D_EX(name, func, T, dR, dC, wmode, uniform)           \
    static void _skel_ov2_##name(const _skel_job *j, size_t rlo, size_t rhi)  \
    {                                                                         \
        const T *s = (const T *)j->in[0];                                     \
        T *r = (T *)j->out, win[(2 * (dR) + 1) * (2 * (dC) + 1)];             \
        const size_t R = j->rows, C = j->cols, W = 2 * (dC) + 1;              \
        const skel_index S = (skel_index)C;                                   \
        size_t row, c, cfirst = (size_t)(dC) < C ? (size_t)(dC) : C;          \
        size_t clast = C > (size_t)(dC) ? C - (size_t)(dC) : 0;               \
        _SKEL_UDECL(uniform)                                                  \
        for (row = rlo; row < rhi; ++row) {                                   \
            int inner = row >= (size_t)(dR) && row + (size_t)(dR) < R;        \
            for (c = 0; c < C; ++c) {                                         \
                if (inner && c >= cfirst && c < clast) {                      \
                    for (; c < clast; ++c)                                    \
                        r[row * C + c] = _SKEL_CALLF(func, ~, s + row * C + c, S \
                            _SKEL_CAT(_SKEL_WARG_, wmode)(T, dR, dC) _SKEL_UARG(uniform)); \
                    if (c >= C) break;                                        \
                }                                                             \
                _skel_window_2d(s, R, C, row, c, dR, dC, sizeof(T), j->edge,  \
                                j->edge_value, win);                          \
                r[row * C + c] = _SKEL_CALLF(func, ~, win + (dR) * W + (dC), (skel_index)W \
                    _SKEL_CAT(_SKEL_WARG_, wmode)(T, dR, dC) _SKEL_UARG(uniform)); \
            }                                                                 \
        }                                                                     \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST_COMMON(name, SKEL_KIND_OVERLAP2D, T, T, 1, 0, uniform),    \
        .dr = (dR), .dc = (dC), .weighted = (wmode),                             \
        .func_name = #func, .func_src = _skel_src_##func,                     \
        .cpu = { .overlap2d = _skel_ov2_##name } }};
#define SKEL_OVERLAP2D(name, func, T, dR, dC)                                 \
    SKEL_OVERLAP2D_EX(name, func, T, dR, dC, SKEL_UNWEIGHTED, SKEL_NO_UNIFORM)
/* 2D convolution: r[i,j] = sum over the neighbourhood of w * a. */
#define SKEL_CONV2D(name, T, dR, dC)                                          \
    SKEL_FUNC(T, _skel_conv_##name, (const T *a, skel_index stride, const T *w), \
        T s = 0; int y, x;                                                    \
        for (y = -(dR); y <= (dR); ++y)                                       \
            for (x = -(dC); x <= (dC); ++x)                                   \
                s += w[y * (2 * (dC) + 1) + x] * a[y * stride + x];           \
        return s;)                                                            \
    SKEL_OVERLAP2D_EX(name, _skel_conv_##name, T, dR, dC, SKEL_WEIGHTED, SKEL_NO_UNIFORM)

/* ---- MapArray ---- */
#define SKEL_MAPARRAY_EX(name, func, T, uniform)                              \
    static void _skel_ma_##name(const _skel_job *j, size_t lo, size_t hi)     \
    {                                                                         \
        const T *v = (const T *)j->in[0], *a1 = (const T *)j->in[1];          \
        T *r = (T *)j->out;                                                   \
        size_t i;                                                             \
        _SKEL_UDECL(uniform)                                                  \
        for (i = lo; i < hi; ++i) r[i] = _SKEL_CALLF(func, ~, v, a1[i] _SKEL_UARG(uniform)); \
    }                                                                         \
    static skel_skeleton name[1] = {{                                         \
        _SKEL_INST_COMMON(name, SKEL_KIND_MAPARRAY, T, T, 2, 0, uniform),     \
        .func_name = #func, .func_src = _skel_src_##func,                     \
        .cpu = { .map = _skel_ma_##name } }};
#define SKEL_MAPARRAY(name, func, T) SKEL_MAPARRAY_EX(name, func, T, SKEL_NO_UNIFORM)

#ifdef __cplusplus
}
#endif
#endif /* SKEL_H */

/* ======================================================================
   IMPLEMENTATION
   ====================================================================== */
#if defined(SKEL_IMPLEMENTATION) && !defined(_SKEL_IMPL_DONE)
#define _SKEL_IMPL_DONE

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

#if defined(_OPENMP) && !defined(SKEL_NO_OPENMP)
#include <omp.h>
#define _SKEL_OMP 1
#else
#define _SKEL_OMP 0
#endif

#ifndef SKEL_MALLOC
#define SKEL_MALLOC(n) malloc(n)
#define SKEL_REALLOC(p, n) realloc(p, n)
#define SKEL_FREE(p) free(p)
#endif
#ifndef SKEL_ASSERT
#include <assert.h>
#define SKEL_ASSERT(c) assert(c)
#endif

#if defined(__GNUC__) || defined(__clang__)
#define _SKEL_TLS __thread
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define _SKEL_TLS _Thread_local
#else
#define _SKEL_TLS
#endif

#define _SKEL_MAX_SPACES 16
#define _SKEL_MAX_BACKENDS 16

/* ---------------------------------------------------------------------
   base: errors, logging, environment, time
   --------------------------------------------------------------------- */
static _SKEL_TLS char _skel_errbuf[1024];
static skel_log_fn _skel_log_sink;
static void *_skel_log_user;
static int _skel_verbose = -1;      /* SKEL_VERBOSE, read once */

const char *skel_error_string(int status)
{
    switch (status) {
    case SKEL_OK: return "SKEL_OK: success";
    case SKEL_EINVAL: return "SKEL_EINVAL: invalid argument";
    case SKEL_ESIZE: return "SKEL_ESIZE: operand sizes do not match";
    case SKEL_ETYPE: return "SKEL_ETYPE: element type does not match";
    case SKEL_ESHAPE: return "SKEL_ESHAPE: wrong container shape (matrix vs vector)";
    case SKEL_ENOMEM: return "SKEL_ENOMEM: out of memory";
    case SKEL_EBACKEND: return "SKEL_EBACKEND: unknown or unavailable backend";
    case SKEL_EEMPTY: return "SKEL_EEMPTY: reduction of an empty container";
    case SKEL_ECOMPILE: return "SKEL_ECOMPILE: kernel compilation failed";
    case SKEL_EDEVICE: return "SKEL_EDEVICE: GPU driver call failed";
    case SKEL_EIO: return "SKEL_EIO: file input/output failed";
    case SKEL_EFORMAT: return "SKEL_EFORMAT: bad file format";
    case SKEL_EUNSUPPORTED: return "SKEL_EUNSUPPORTED: not supported by this backend";
    default: return "unknown skel status";
    }
}

const char *skel_last_error(void) { return _skel_errbuf; }

void skel_set_log(skel_log_fn fn, void *user)
{
    _skel_log_sink = fn;
    _skel_log_user = user;
}

static int _skel_env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    char *end;
    long x;
    if (!v || !*v) return fallback;
    x = strtol(v, &end, 10);
    return (*end == 0 && x >= 0 && x < (1L << 30)) ? (int)x : fallback;
}

static void _skel_log(int level, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    if (_skel_verbose < 0) _skel_verbose = _skel_env_int("SKEL_VERBOSE", 0);
    if (!_skel_log_sink && (_skel_verbose <= 0 || level > _skel_verbose + 1)) return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (_skel_log_sink) _skel_log_sink(level, msg, _skel_log_user);
    else fprintf(stderr, "skel: %s\n", msg);
}

/* Record a failure for skel_last_error() and return its code. */
static int _skel_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(_skel_errbuf, sizeof _skel_errbuf, fmt, ap);
    va_end(ap);
    _skel_log(SKEL_LOG_WARN, "%s (%s)", _skel_errbuf, skel_error_string(code));
    return code;
}

/* Seconds on a monotonic clock. */
double _skel_now(void)
{
#ifdef CLOCK_MONOTONIC
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else   /* system headers were included before skel.h without POSIX */
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* ---------------------------------------------------------------------
   types
   --------------------------------------------------------------------- */
static const skel_type_info _skel_types[SKEL_TYPE_COUNT] = {
    { "none", "void", 0, 0, 0 },
    { "float", "float", 4, 1, 1 },
    { "double", "double", 8, 1, 1 },
    { "int32", "int32_t", 4, 0, 1 },
    { "uint32", "uint32_t", 4, 0, 0 },
    { "int64", "int64_t", 8, 0, 1 },
    { "uint64", "uint64_t", 8, 0, 0 },
};

const skel_type_info *skel_type_get(skel_type t)
{
    return (t > SKEL_NOTYPE && t < SKEL_TYPE_COUNT) ? &_skel_types[t] : NULL;
}

/* ---------------------------------------------------------------------
   memory spaces and containers (the coherence layer)
   Space 0 is host memory and always holds an allocation.  `valid` has bit
   s set when space s holds the newest data; a write leaves exactly one bit.
   --------------------------------------------------------------------- */
typedef struct _skel_space {
    const char *name;
    void *ctx;
    int (*alloc)(void *ctx, size_t bytes, void **dev);
    void (*release)(void *ctx, void *dev);
    int (*upload)(void *ctx, void *dev, const void *host, size_t bytes);
    int (*download)(void *ctx, void *host, const void *dev, size_t bytes);
} _skel_space;

static _skel_space _skel_spaces[_SKEL_MAX_SPACES] = { { "host", 0, 0, 0, 0, 0 } };
static int _skel_nspaces = 1;

/* Register a device memory space (GPU backends); returns its id or -1. */
int _skel_space_register(const _skel_space *s)
{
    if (_skel_nspaces >= _SKEL_MAX_SPACES) return -1;
    _skel_spaces[_skel_nspaces] = *s;
    return _skel_nspaces++;
}

struct skel_array {
    skel_type type;
    int is_matrix, wrapped;
    size_t rows, cols, n, esz;
    void *host;
    unsigned valid;
    void *dev[_SKEL_MAX_SPACES];
};

enum { _SKEL_READ = 1, _SKEL_WRITE = 2, _SKEL_READWRITE = 3 };

static int _skel_array_new(skel_vec **out, int is_matrix, skel_type t, size_t rows,
                           size_t cols, const void *fill, const void *src, void *wrap)
{
    const skel_type_info *ti = skel_type_get(t);
    skel_vec *a;
    size_t n, i;
    if (!out) return _skel_fail(SKEL_EINVAL, "container constructor: NULL result pointer");
    *out = NULL;
    if (!ti) return _skel_fail(SKEL_EINVAL, "container constructor: invalid element type %d", (int)t);
    if (cols && rows > SIZE_MAX / cols / ti->size)
        return _skel_fail(SKEL_EINVAL, "container constructor: %zu x %zu elements overflow", rows, cols);
    n = rows * cols;
    a = (skel_vec *)SKEL_MALLOC(sizeof *a);
    if (!a) return _skel_fail(SKEL_ENOMEM, "container constructor: out of host memory");
    memset(a, 0, sizeof *a);
    a->type = t; a->is_matrix = is_matrix; a->rows = rows; a->cols = cols;
    a->n = n; a->esz = ti->size; a->valid = 1;
    if (wrap) {
        a->host = wrap;
        a->wrapped = 1;
    } else {
        a->host = SKEL_MALLOC(n ? n * a->esz : 1);
        if (!a->host) {
            SKEL_FREE(a);
            return _skel_fail(SKEL_ENOMEM, "container constructor: cannot allocate %zu bytes", n * ti->size);
        }
        if (src && n) memcpy(a->host, src, n * a->esz);
        if (!src && !fill) memset(a->host, 0, n * a->esz);
        if (fill)
            for (i = 0; i < n; ++i) memcpy((char *)a->host + i * a->esz, fill, a->esz);
    }
    *out = a;
    return SKEL_OK;
}

#define _SKEL_NEED(p, what) if (!(p)) return _skel_fail(SKEL_EINVAL, what ": NULL %s", #p)
int skel_vec_new(skel_vec **v, skel_type t, size_t n) { return _skel_array_new(v, 0, t, 1, n, NULL, NULL, NULL); }
int skel_vec_new_fill(skel_vec **v, skel_type t, size_t n, const void *value)
{ _SKEL_NEED(value, "skel_vec_new_fill"); return _skel_array_new(v, 0, t, 1, n, value, NULL, NULL); }
int skel_vec_new_copy(skel_vec **v, skel_type t, size_t n, const void *src)
{ _SKEL_NEED(src, "skel_vec_new_copy"); return _skel_array_new(v, 0, t, 1, n, NULL, src, NULL); }
int skel_vec_wrap(skel_vec **v, skel_type t, size_t n, void *buffer)
{ _SKEL_NEED(buffer, "skel_vec_wrap"); return _skel_array_new(v, 0, t, 1, n, NULL, NULL, buffer); }
int skel_mat_new(skel_mat **m, skel_type t, size_t rows, size_t cols)
{ return _skel_array_new(m, 1, t, rows, cols, NULL, NULL, NULL); }
int skel_mat_new_fill(skel_mat **m, skel_type t, size_t rows, size_t cols, const void *value)
{ _SKEL_NEED(value, "skel_mat_new_fill"); return _skel_array_new(m, 1, t, rows, cols, value, NULL, NULL); }
int skel_mat_new_copy(skel_mat **m, skel_type t, size_t rows, size_t cols, const void *src)
{ _SKEL_NEED(src, "skel_mat_new_copy"); return _skel_array_new(m, 1, t, rows, cols, NULL, src, NULL); }
int skel_mat_wrap(skel_mat **m, skel_type t, size_t rows, size_t cols, void *buffer)
{ _SKEL_NEED(buffer, "skel_mat_wrap"); return _skel_array_new(m, 1, t, rows, cols, NULL, NULL, buffer); }

static void _skel_release_devices(skel_vec *c)
{
    int s;
    for (s = 1; s < _skel_nspaces; ++s)
        if (c->dev[s]) {
            _skel_spaces[s].release(_skel_spaces[s].ctx, c->dev[s]);
            c->dev[s] = NULL;
        }
}

void skel_free(skel_vec *c)
{
    if (!c) return;
    _skel_release_devices(c);
    if (!c->wrapped) SKEL_FREE(c->host);
    SKEL_FREE(c);
}

size_t skel_size(const skel_vec *c) { return c ? c->n : 0; }
size_t skel_rows(const skel_vec *c) { return c ? c->rows : 0; }
size_t skel_cols(const skel_vec *c) { return c ? c->cols : 0; }
skel_type skel_elem_type(const skel_vec *c) { return c ? c->type : SKEL_NOTYPE; }
int skel_is_matrix(const skel_vec *c) { return c ? c->is_matrix : 0; }

/* Make space s hold the newest data of c (copying if needed) and return its
   pointer there.  _SKEL_WRITE alone skips the copy: the caller overwrites
   everything.  The valid mask is updated by _skel_mark_written after the
   write has succeeded, so a failed call leaves the container as it was. */
static void *_skel_acquire(skel_vec *c, int s, int mode)
{
    size_t bytes = c->n * c->esz;
    int src, rc;
    if (s == 0) {
        if (!(c->valid & 1u) && (mode & _SKEL_READ) && bytes) {
            for (src = 1; src < _skel_nspaces && !(c->valid & (1u << src)); ++src) {}
            SKEL_ASSERT(src < _skel_nspaces);
            rc = _skel_spaces[src].download(_skel_spaces[src].ctx, c->host, c->dev[src], bytes);
            if (rc != SKEL_OK) return NULL;
            c->valid |= 1u;
        }
        return c->host;
    }
    if (!c->dev[s]) {
        rc = _skel_spaces[s].alloc(_skel_spaces[s].ctx, bytes ? bytes : 16, &c->dev[s]);
        if (rc != SKEL_OK) { c->dev[s] = NULL; return NULL; }
    }
    if (!(c->valid & (1u << s)) && (mode & _SKEL_READ) && bytes) {
        if (!_skel_acquire(c, 0, _SKEL_READ)) return NULL;
        rc = _skel_spaces[s].upload(_skel_spaces[s].ctx, c->dev[s], c->host, bytes);
        if (rc != SKEL_OK) return NULL;
        c->valid |= 1u << s;
    }
    return c->dev[s];
}

static void _skel_mark_written(skel_vec *c, int s) { c->valid = 1u << s; }

const void *skel_read(skel_vec *c)
{
    if (!c) { _skel_fail(SKEL_EINVAL, "skel_read: NULL container"); return NULL; }
    return _skel_acquire(c, 0, _SKEL_READ);
}

void *skel_write(skel_vec *c)
{
    void *p;
    if (!c) { _skel_fail(SKEL_EINVAL, "skel_write: NULL container"); return NULL; }
    p = _skel_acquire(c, 0, _SKEL_READWRITE);
    if (p) _skel_mark_written(c, 0);
    return p;
}

int skel_flush(skel_vec *c)
{
    if (!c) return _skel_fail(SKEL_EINVAL, "skel_flush: NULL container");
    if (!_skel_acquire(c, 0, _SKEL_READ)) return SKEL_EDEVICE;
    _skel_release_devices(c);
    c->valid = 1u;
    return SKEL_OK;
}

/* ---------------------------------------------------------------------
   backends: the interface, the registry, and the environment
   --------------------------------------------------------------------- */
typedef struct _skel_variant {
    int backend;                /* registry index */
    int threads, block, grid, devices;
} _skel_variant;

/* What dispatch learned about one call's operands. */
typedef struct _skel_shape {
    size_t n, rows, cols;       /* the data a call runs over */
    size_t point[2];            /* context point */
    int dims;
} _skel_shape;

/* A backend is a value: the core knows it only through this struct. */
typedef struct _skel_backend {
    const char *name;
    int is_gpu;
    int space;                  /* memory space its kernels read (0 = host) */
    void *ctx;
    /* Run one checked call with variant v. */
    int (*run)(const struct _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
               const skel_call *c, const _skel_shape *sh);
    /* Fill up to max tuning candidates (parameter sets) for this backend and
       return how many; NULL means the default variant only. */
    int (*candidates)(const struct _skel_backend *b, skel_variant *out, int max);
    /* What it runs on, for logs and the machine fingerprint
       (e.g. "NVIDIA H100 80GB HBM3, sm_90, driver 13000, NVRTC 13.0"). */
    char info[256];
} _skel_backend;

static _skel_backend _skel_backends[_SKEL_MAX_BACKENDS];
static int _skel_nbackends;
static pthread_once_t _skel_once = PTHREAD_ONCE_INIT;
static void (*_skel_providers[8])(void);   /* GPU headers' registration hooks */
static int _skel_nproviders;
static struct {
    int forced;                 /* SKEL_BACKEND: -1 none, -2 unknown, else index */
    char forced_name[64];
    int omp_threads, omp_threshold;
} _skel_env;

/* Called by a GPU header's constructor, before the registry is built. */
void _skel_provider_add(void (*fn)(void))
{
    if (_skel_nproviders < 8) _skel_providers[_skel_nproviders++] = fn;
}

static int _skel_backend_register(const _skel_backend *b)
{
    if (_skel_nbackends >= _SKEL_MAX_BACKENDS) return -1;
    _skel_backends[_skel_nbackends] = *b;
    _skel_log(SKEL_LOG_INFO, "backend %s registered", b->name);
    return _skel_nbackends++;
}

static int _skel_backend_find(const char *name)
{
    int i;
    for (i = 0; name && i < _skel_nbackends; ++i)
        if (strcmp(_skel_backends[i].name, name) == 0) return i;
    return -1;
}

static int _skel_cpu_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                         const skel_call *c, const _skel_shape *sh);

static void _skel_init_once(void)
{
    _skel_backend seq = { "seq", 0, 0, NULL, _skel_cpu_run, NULL, "one CPU core" };
    const char *forced = getenv("SKEL_BACKEND");
    int i;
    _skel_backend_register(&seq);
#if _SKEL_OMP
    {
        _skel_backend omp = { "omp", 0, 0, NULL, _skel_cpu_run, NULL, "" };
        snprintf(omp.info, sizeof omp.info, "OpenMP, %d threads", omp_get_max_threads());
        _skel_backend_register(&omp);
    }
#endif
    for (i = 0; i < _skel_nproviders; ++i) _skel_providers[i]();
    _skel_env.omp_threads = _skel_env_int("SKEL_OMP_THREADS", 0);
    _skel_env.omp_threshold = _skel_env_int("SKEL_OMP_THRESHOLD", 32768);
    _skel_env.forced = -1;
    if (forced && *forced) {
        snprintf(_skel_env.forced_name, sizeof _skel_env.forced_name, "%s", forced);
        _skel_env.forced = _skel_backend_find(forced);
        if (_skel_env.forced < 0) {
            _skel_env.forced = -2;
            _skel_log(SKEL_LOG_ERROR, "SKEL_BACKEND=%s names no available backend", forced);
        }
    }
}

static void _skel_init(void) { pthread_once(&_skel_once, _skel_init_once); }

int skel_backend_count(void) { _skel_init(); return _skel_nbackends; }
const char *skel_backend_name(int index)
{
    _skel_init();
    return index >= 0 && index < _skel_nbackends ? _skel_backends[index].name : NULL;
}
int skel_backend_available(const char *name) { _skel_init(); return _skel_backend_find(name) >= 0; }

static int _skel_known_backend(const char *name)
{
    static const char *known[] = { "seq", "omp", "cuda", "opencl" };
    size_t i;
    for (i = 0; i < sizeof known / sizeof *known; ++i)
        if (strcmp(name, known[i]) == 0) return 1;
    return 0;
}

/* Resolve a public variant to a registry index, with a clear error. */
static int _skel_variant_resolve(const skel_variant *v, _skel_variant *out)
{
    int b;
    _skel_init();
    if (!v || !v->backend) return _skel_fail(SKEL_EINVAL, "variant: NULL backend name");
    b = _skel_backend_find(v->backend);
    if (b < 0)
        return _skel_fail(SKEL_EBACKEND, "variant: backend '%s' is %s", v->backend,
                          _skel_known_backend(v->backend) ? "not available on this machine"
                                                           : "unknown (known: seq, omp, cuda, opencl)");
    if (v->threads < 0 || v->block < 0 || v->grid < 0 || v->devices < 0)
        return _skel_fail(SKEL_EINVAL, "variant %s: negative parameter", v->backend);
    out->backend = b;
    out->threads = v->threads; out->block = v->block;
    out->grid = v->grid; out->devices = v->devices;
    return SKEL_OK;
}

static void _skel_variant_public(const _skel_variant *v, skel_variant *out)
{
    out->backend = _skel_backends[v->backend].name;
    out->threads = v->threads; out->block = v->block;
    out->grid = v->grid; out->devices = v->devices;
}

/* ---------------------------------------------------------------------
   CPU backends: seq and omp share this code; seq is omp with one thread
   and no parallel region.  Each range below calls a chunk function the
   instance macro generated, with the user function inlined in its loop.
   --------------------------------------------------------------------- */
typedef void (*_skel_body)(void *ctx, int t, size_t lo, size_t hi);

/* Split [0, n) into `parts` contiguous ranges, in order, run in parallel.
   The split depends only on parts and n (not on how many threads OpenMP
   grants), so multi-phase algorithms see the same ranges every phase. */
static void _skel_parallel(int parts, size_t n, _skel_body body, void *ctx)
{
    if (parts <= 1 || n < 2) { body(ctx, 0, 0, n); return; }
    if ((size_t)parts > n) parts = (int)n;
#if _SKEL_OMP
    #pragma omp parallel num_threads(parts)
    {
        size_t np = (size_t)parts, p, q = n / np, rem = n % np;
        for (p = (size_t)omp_get_thread_num(); p < np; p += (size_t)omp_get_num_threads())
            body(ctx, (int)p, q * p + (p < rem ? p : rem), q * (p + 1) + (p + 1 < rem ? p + 1 : rem));
    }
#else
    {
        size_t np = (size_t)parts, p, q = n / np, rem = n % np;
        for (p = 0; p < np; ++p)
            body(ctx, (int)p, q * p + (p < rem ? p : rem), q * (p + 1) + (p + 1 < rem ? p + 1 : rem));
    }
#endif
}

typedef struct _skel_cpu_ctx {
    const skel_skeleton *sk;
    _skel_job job;
    size_t esz, n, rows, cols;
    int exclusive;
    unsigned char *partial;     /* one partial result per thread */
    unsigned char *have;        /* partial[t] was written */
    const void *carry;          /* per-thread carries for scans */
    const unsigned char *src;   /* MapOverlap source and destination */
    unsigned char *dst;
    int failed;                 /* a thread could not allocate */
} _skel_cpu_ctx;

static void _skel_body_map(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    (void)t;
    c->sk->cpu.map(&c->job, lo, hi);
}

static void _skel_body_reduce(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    if (lo >= hi) return;
    if (c->sk->kind == SKEL_KIND_MAPREDUCE) c->sk->cpu.mapreduce(&c->job, lo, hi, c->partial + (size_t)t * c->esz);
    else c->sk->cpu.reduce(&c->job, lo, hi, c->partial + (size_t)t * c->esz);
    c->have[t] = 1;
}

/* Combine the written partials in thread (= index) order into result. */
static void _skel_combine(const _skel_cpu_ctx *c, int threads, void *result)
{
    _skel_job j;
    int t, k = 0;
    memset(&j, 0, sizeof j);
    for (t = 0; t < threads; ++t)
        if (c->have[t]) memmove(c->partial + (size_t)k++ * c->esz, c->partial + (size_t)t * c->esz, c->esz);
    j.in[0] = c->partial;
    c->sk->cpu.reduce(&j, 0, (size_t)k, result);
}

#define _SKEL_STACK_THREADS 64
typedef struct _skel_partials {
    unsigned char stack[_SKEL_STACK_THREADS * 8], have_stack[_SKEL_STACK_THREADS];
    unsigned char *heap;
} _skel_partials;

static int _skel_partials_get(_skel_partials *p, _skel_cpu_ctx *c, int threads)
{
    p->heap = NULL;
    if (threads <= _SKEL_STACK_THREADS) {
        c->partial = p->stack;
        c->have = p->have_stack;
    } else {
        p->heap = (unsigned char *)SKEL_MALLOC((size_t)threads * 9);
        if (!p->heap) return _skel_fail(SKEL_ENOMEM, "out of memory for %d partial results", threads);
        c->partial = p->heap;
        c->have = p->heap + (size_t)threads * 8;
    }
    memset(c->have, 0, (size_t)threads);
    return SKEL_OK;
}

/* Reduce [0, n) of c->job to result, in parallel, preserving order. */
static int _skel_reduce_range(_skel_cpu_ctx *c, int threads, size_t n, void *result)
{
    _skel_partials p;
    int rc;
    if (threads <= 1 || n < 4096) {
        if (c->sk->kind == SKEL_KIND_MAPREDUCE) c->sk->cpu.mapreduce(&c->job, 0, n, result);
        else c->sk->cpu.reduce(&c->job, 0, n, result);
        return SKEL_OK;
    }
    if ((rc = _skel_partials_get(&p, c, threads)) != SKEL_OK) return rc;
    _skel_parallel(threads, n, _skel_body_reduce, c);
    _skel_combine(c, threads, result);
    SKEL_FREE(p.heap);
    return SKEL_OK;
}

static void _skel_body_reduce_rows(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    _skel_job j = c->job;
    size_t r;
    (void)t;
    for (r = lo; r < hi; ++r) {
        j.in[0] = c->src + r * c->cols * c->esz;
        c->sk->cpu.reduce(&j, 0, c->cols, c->dst + r * c->esz);
    }
}

static void _skel_body_reduce_cols(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    if (lo >= hi) return;
    c->sk->cpu.reduce_cols(&c->job, lo, hi, c->dst + (size_t)t * c->cols * c->esz, 0);
    c->have[t] = 1;
}

static int _skel_cpu_reduce(_skel_cpu_ctx *c, int threads, const skel_call *call, skel_vec *in, void *out)
{
    if (call->direction == SKEL_WHOLE || c->sk->kind == SKEL_KIND_MAPREDUCE)
        return _skel_reduce_range(c, threads, in->n, call->result);
    c->src = (const unsigned char *)c->job.in[0];
    c->cols = in->cols;
    if (call->direction == SKEL_ROWS) {
        size_t r;
        c->dst = (unsigned char *)out;
        if (in->rows >= (size_t)threads || threads <= 1) {
            _skel_parallel(threads, in->rows, _skel_body_reduce_rows, c);
            return SKEL_OK;
        }
        for (r = 0; r < in->rows; ++r) {    /* few long rows: parallelise within each */
            _skel_cpu_ctx rc = *c;
            int st;
            rc.job.in[0] = c->src + r * in->cols * c->esz;
            if ((st = _skel_reduce_range(&rc, threads, in->cols, (unsigned char *)out + r * c->esz)) != SKEL_OK)
                return st;
        }
        return SKEL_OK;
    }
    /* columns: each thread folds a block of rows into a partial row; the
       partial rows are then folded in order. */
    {
        int nt = threads < 1 ? 1 : threads, t, k = 0;
        unsigned char have[_SKEL_STACK_THREADS];
        _skel_job j;
        if (nt > _SKEL_STACK_THREADS) nt = _SKEL_STACK_THREADS;
        if ((size_t)nt > in->rows) nt = (int)in->rows;
        c->dst = (unsigned char *)SKEL_MALLOC((size_t)nt * in->cols * c->esz + 1);
        if (!c->dst) return _skel_fail(SKEL_ENOMEM, "column reduce: out of memory");
        c->have = have;
        memset(have, 0, sizeof have);
        _skel_parallel(nt, in->rows, _skel_body_reduce_cols, c);
        for (t = 0; t < nt; ++t)
            if (have[t]) memmove(c->dst + (size_t)k++ * in->cols * c->esz,
                                 c->dst + (size_t)t * in->cols * c->esz, in->cols * c->esz);
        memset(&j, 0, sizeof j);
        j.in[0] = c->dst;
        j.cols = in->cols;
        c->sk->cpu.reduce_cols(&j, 0, (size_t)k, out, 0);
        SKEL_FREE(c->dst);
        return SKEL_OK;
    }
}

static void _skel_body_scan_sums(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    if (lo >= hi) return;
    c->sk->cpu.reduce(&c->job, lo, hi, c->partial + (size_t)t * c->esz);
    c->have[t] = 1;
}

static void _skel_body_scan(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    const unsigned char *carry = (const unsigned char *)c->carry;
    const void *mine = (t == 0 && !c->exclusive) ? NULL : carry + (size_t)t * c->esz;
    c->sk->cpu.scan(&c->job, lo, hi, mine, c->exclusive);
}

/* Scan [0, n) of c->job: one pass on one thread, else three phases:
   block sums, a scan of the sums, then each block scanned from its carry. */
static int _skel_scan_range(_skel_cpu_ctx *c, int threads, size_t n, const void *init)
{
    _skel_partials p;
    unsigned char carries[_SKEL_STACK_THREADS * 8];
    _skel_job j;
    int rc, t;
    if (threads <= 1 || n < 8192) {
        c->sk->cpu.scan(&c->job, 0, n, init, c->exclusive);
        return SKEL_OK;
    }
    if (threads > _SKEL_STACK_THREADS) threads = _SKEL_STACK_THREADS;
    if ((rc = _skel_partials_get(&p, c, threads)) != SKEL_OK) return rc;
    _skel_parallel(threads, n, _skel_body_scan_sums, c);
    for (t = 0; t < threads; ++t) SKEL_ASSERT(c->have[t]);   /* n >= threads */
    memset(&j, 0, sizeof j);
    j.in[0] = c->partial;
    j.out = c->exclusive ? carries : carries + c->esz;
    /* carry[t] = init (+) sum[0] (+) .. (+) sum[t-1]; carry[0] is init or none */
    c->sk->cpu.scan(&j, 0, (size_t)threads - (c->exclusive ? 0 : 1), init, c->exclusive);
    c->carry = carries;
    _skel_parallel(threads, n, _skel_body_scan, c);
    return SKEL_OK;
}

/* Row-wise scan of rows [lo, hi), each row on one thread. */
static void _skel_body_scan_rows(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    _skel_job j = c->job;
    size_t r, rb = c->cols * c->esz;
    (void)t;
    for (r = lo; r < hi; ++r) {
        j.in[0] = (const unsigned char *)c->job.in[0] + r * rb;
        j.out = (unsigned char *)c->job.out + r * rb;
        c->sk->cpu.scan(&j, 0, c->cols, c->carry, c->exclusive);
    }
}

/* MapOverlap along rows: a flat range of elements, split at row ends. */
static void _skel_body_overlap_rows(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    size_t row, off, end, C = c->cols, rb = C * c->esz;
    (void)t;
    while (lo < hi) {
        row = lo / C; off = lo % C;
        end = hi - lo < C - off ? off + (hi - lo) : C;
        c->sk->cpu.overlap(&c->job, c->src + row * rb, c->dst + row * rb, C, off, end);
        lo += end - off;
    }
}

/* Copy w columns starting at col c0 of a rows x cols matrix into w
   contiguous rows (a transpose), or back. */
static void _skel_transpose_block(const unsigned char *src, unsigned char *dst, size_t rows,
                                  size_t cols, size_t c0, size_t w, size_t esz, int back)
{
    size_t r, k;
    for (r = 0; r < rows; ++r)
        for (k = 0; k < w; ++k) {
            unsigned char *m = (unsigned char *)(back ? dst : src) + (r * cols + c0 + k) * esz;
            unsigned char *t = (unsigned char *)(back ? src : dst) + (k * rows + r) * esz;
            if (esz == 4) { if (back) memcpy(m, t, 4); else memcpy(t, m, 4); }
            else { if (back) memcpy(m, t, 8); else memcpy(t, m, 8); }
        }
}

#define _SKEL_COL_BLOCK 16
/* MapOverlap along columns: blocks of columns are transposed into
   contiguous rows, run through the row function, and transposed back. */
static void _skel_body_overlap_cols(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    size_t R = c->rows, C = c->cols, b, k, w;
    unsigned char *tin, *tout;
    (void)t;
    if (lo >= hi) return;
    tin = (unsigned char *)SKEL_MALLOC(2 * _SKEL_COL_BLOCK * R * c->esz + 1);
    if (!tin) { c->failed = 1; return; }
    tout = tin + _SKEL_COL_BLOCK * R * c->esz;
    for (b = lo; b < hi; ++b) {
        size_t c0 = b * _SKEL_COL_BLOCK;
        w = C - c0 < _SKEL_COL_BLOCK ? C - c0 : _SKEL_COL_BLOCK;
        _skel_transpose_block(c->src, tin, R, C, c0, w, c->esz, 0);
        for (k = 0; k < w; ++k)
            c->sk->cpu.overlap(&c->job, tin + k * R * c->esz, tout + k * R * c->esz, R, 0, R);
        _skel_transpose_block(tout, c->dst, R, C, c0, w, c->esz, 1);
    }
    SKEL_FREE(tin);
}

static void _skel_body_overlap2d(void *p, int t, size_t lo, size_t hi)
{
    _skel_cpu_ctx *c = (_skel_cpu_ctx *)p;
    (void)t;
    if (lo < hi) c->sk->cpu.overlap2d(&c->job, lo, hi);
}

static int _skel_cpu_overlap(_skel_cpu_ctx *c, int threads, const skel_call *call, skel_vec *in,
                             const void *src, void *dst)
{
    int dir = call->direction ? call->direction : SKEL_ROWS;
    c->src = (const unsigned char *)src;
    c->dst = (unsigned char *)dst;
    c->rows = in->rows;
    c->cols = in->cols;
    if (!in->is_matrix || dir == SKEL_ROWS) {
        _skel_parallel(threads, in->n, _skel_body_overlap_rows, c);
        return SKEL_OK;
    }
    if (dir == SKEL_COLS) {
        _skel_parallel(threads, (in->cols + _SKEL_COL_BLOCK - 1) / _SKEL_COL_BLOCK, _skel_body_overlap_cols, c);
        return c->failed ? _skel_fail(SKEL_ENOMEM, "MapOverlap columns: out of memory") : SKEL_OK;
    }
    {   /* rows then columns, through a temporary */
        unsigned char *tmp = (unsigned char *)SKEL_MALLOC(in->n * c->esz + 1);
        int rc;
        if (!tmp) return _skel_fail(SKEL_ENOMEM, "MapOverlap rows+columns: out of memory");
        c->dst = tmp;
        _skel_parallel(threads, in->n, _skel_body_overlap_rows, c);
        c->src = tmp;
        c->dst = (unsigned char *)dst;
        _skel_parallel(threads, (in->cols + _SKEL_COL_BLOCK - 1) / _SKEL_COL_BLOCK, _skel_body_overlap_cols, c);
        rc = c->failed ? _skel_fail(SKEL_ENOMEM, "MapOverlap columns: out of memory") : SKEL_OK;
        SKEL_FREE(tmp);
        return rc;
    }
}

static int _skel_threads(const _skel_variant *v, const _skel_backend *b)
{
    if (strcmp(b->name, "seq") == 0) return 1;
    if (v->threads > 0) return v->threads;
    if (_skel_env.omp_threads > 0) return _skel_env.omp_threads;
#if _SKEL_OMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* The run entry of the seq and omp backends. */
static int _skel_cpu_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                         const skel_call *call, const _skel_shape *sh)
{
    _skel_cpu_ctx c;
    skel_vec *in0 = call->in[0];
    void *out = NULL, *copy = NULL;
    const void *src;
    int threads = _skel_threads(v, b), i, rc = SKEL_OK;
    memset(&c, 0, sizeof c);
    c.sk = sk;
    c.esz = _skel_types[sk->out_type].size;
    c.exclusive = call->exclusive;
    for (i = 0; i < sk->nin; ++i)
        if (!(c.job.in[i] = _skel_acquire(call->in[i], 0, _SKEL_READ)))
            return _skel_fail(SKEL_EDEVICE, "%s: cannot bring in[%d] to the host: %s", sk->name, i, _skel_errbuf);
    if (call->out && !(out = _skel_acquire(call->out, 0, _SKEL_WRITE)))
        return _skel_fail(SKEL_EDEVICE, "%s: cannot allocate the result on the host", sk->name);
    c.job.out = out;
    c.job.uniform = call->uniform;
    c.job.weights = call->weights;
    c.job.edge = (int)call->edge;
    c.job.edge_value = call->edge_value;
    c.job.rows = sh->rows;
    c.job.cols = sh->cols;
    /* MapOverlap and MapArray read neighbours / any element: an in-place
       call gets a private copy of the input first. */
    src = c.job.in[0];
    if (call->out && call->out == in0 && (sk->kind == SKEL_KIND_OVERLAP || sk->kind == SKEL_KIND_OVERLAP2D ||
                                         sk->kind == SKEL_KIND_MAPARRAY)) {
        if (!(copy = SKEL_MALLOC(in0->n * in0->esz + 1)))
            return _skel_fail(SKEL_ENOMEM, "%s: out of memory for the in-place copy", sk->name);
        memcpy(copy, src, in0->n * in0->esz);
        c.job.in[0] = src = copy;
    }
    switch (sk->kind) {
    case SKEL_KIND_MAP:
    case SKEL_KIND_MAPARRAY:
        _skel_parallel(threads, sh->n, _skel_body_map, &c);
        break;
    case SKEL_KIND_REDUCE:
    case SKEL_KIND_MAPREDUCE:
        rc = _skel_cpu_reduce(&c, threads, call, in0, out);
        break;
    case SKEL_KIND_SCAN: {
        size_t r, C = sh->cols;
        _skel_job whole = c.job;
        if (sh->rows >= (size_t)threads && threads > 1) {   /* many rows: one thread per block of rows */
            c.carry = call->init;
            c.cols = C;
            _skel_parallel(threads, sh->rows, _skel_body_scan_rows, &c);
            break;
        }
        for (r = 0; r < sh->rows && rc == SKEL_OK; ++r) {   /* few rows: parallel within each */
            c.job.in[0] = (const unsigned char *)whole.in[0] + r * C * c.esz;
            c.job.out = (unsigned char *)whole.out + r * C * c.esz;
            rc = _skel_scan_range(&c, threads, C, call->init);
        }
        break;
    }
    case SKEL_KIND_OVERLAP:
        rc = _skel_cpu_overlap(&c, threads, call, in0, src, out);
        break;
    case SKEL_KIND_OVERLAP2D:
        c.rows = sh->rows;
        _skel_parallel(threads, sh->rows, _skel_body_overlap2d, &c);
        break;
    default:
        rc = _skel_fail(SKEL_EUNSUPPORTED, "%s: unknown skeleton kind %d", sk->name, sk->kind);
    }
    SKEL_FREE(copy);
    if (rc == SKEL_OK && call->out) _skel_mark_written(call->out, 0);
    return rc;
}

/* Edge-policy windows for the border elements of MapOverlap. */
static size_t _skel_edge_index(ptrdiff_t i, size_t n, int edge, int *outside)
{
    *outside = 0;
    if (i >= 0 && (size_t)i < n) return (size_t)i;
    if (edge == SKEL_EDGE_CYCLIC) return (size_t)((i % (ptrdiff_t)n + (ptrdiff_t)n) % (ptrdiff_t)n);
    if (edge == SKEL_EDGE_DUPLICATE) return i < 0 ? 0 : n - 1;
    *outside = 1;
    return 0;
}

void _skel_window_1d(const void *src, size_t n, size_t i, int d, size_t esz,
                     int edge, const void *edge_value, void *win)
{
    int k, outside;
    for (k = -d; k <= d; ++k) {
        size_t at = _skel_edge_index((ptrdiff_t)i + k, n, edge, &outside);
        unsigned char *w = (unsigned char *)win + (size_t)(k + d) * esz;
        if (!outside) memcpy(w, (const unsigned char *)src + at * esz, esz);
        else if (edge_value) memcpy(w, edge_value, esz);
        else memset(w, 0, esz);
    }
}

void _skel_window_2d(const void *src, size_t rows, size_t cols, size_t r, size_t c,
                     int dr, int dc, size_t esz, int edge, const void *edge_value, void *win)
{
    int y, x, out_r, out_c;
    size_t W = (size_t)(2 * dc + 1);
    for (y = -dr; y <= dr; ++y) {
        size_t rr = _skel_edge_index((ptrdiff_t)r + y, rows, edge, &out_r);
        for (x = -dc; x <= dc; ++x) {
            size_t cc = _skel_edge_index((ptrdiff_t)c + x, cols, edge, &out_c);
            unsigned char *w = (unsigned char *)win + ((size_t)(y + dr) * W + (size_t)(x + dc)) * esz;
            if (!out_r && !out_c) memcpy(w, (const unsigned char *)src + (rr * cols + cc) * esz, esz);
            else if (edge_value) memcpy(w, edge_value, esz);
            else memset(w, 0, esz);
        }
    }
}

/* ---------------------------------------------------------------------
   skeletons and dispatch: check the operands once, at the public
   boundary, then choose a variant and run it.
   --------------------------------------------------------------------- */
struct _skel_inst_state {
    skel_plan *plan;
    void *backend_data[_SKEL_MAX_BACKENDS];   /* e.g. compiled kernels, per backend */
};
static pthread_mutex_t _skel_state_lock = PTHREAD_MUTEX_INITIALIZER;

/* The instance's mutable state, made on first use (NULL when out of memory). */
static struct _skel_inst_state *_skel_state(skel_skeleton *sk)
{
    pthread_mutex_lock(&_skel_state_lock);
    if (!sk->state) {
        sk->state = (struct _skel_inst_state *)SKEL_MALLOC(sizeof *sk->state);
        if (sk->state) memset(sk->state, 0, sizeof *sk->state);
    }
    pthread_mutex_unlock(&_skel_state_lock);
    return sk->state;
}

static const char *_skel_kind_name(int kind)
{
    static const char *names[] = { "?", "Map", "Reduce", "MapReduce", "Scan", "MapOverlap",
                                   "MapOverlap2D", "MapArray" };
    return kind >= SKEL_KIND_MAP && kind <= SKEL_KIND_MAPARRAY ? names[kind] : names[0];
}

static const char *_skel_shape_str(const skel_vec *v, char *buf, size_t size)
{
    if (v->is_matrix) snprintf(buf, size, "a %zu x %zu matrix", v->rows, v->cols);
    else snprintf(buf, size, "a vector of %zu", v->n);
    return buf;
}

/* operand `what` must have type t and, if ref is given, ref's shape */
static int _skel_check_operand(const skel_skeleton *sk, const char *what, const skel_vec *v,
                               skel_type t, const skel_vec *ref)
{
    char a[64], b[64];
    if (!v) return _skel_fail(SKEL_EINVAL, "%s %s: %s is NULL", _skel_kind_name(sk->kind), sk->name, what);
    if (v->type != t)
        return _skel_fail(SKEL_ETYPE, "%s %s: %s holds %s, the instance needs %s", _skel_kind_name(sk->kind),
                          sk->name, what, _skel_types[v->type].name, _skel_types[t].name);
    if (ref && ref->is_matrix != v->is_matrix)
        return _skel_fail(SKEL_ESHAPE, "%s %s: %s is %s but in[0] is %s", _skel_kind_name(sk->kind), sk->name,
                          what, _skel_shape_str(v, a, sizeof a), _skel_shape_str(ref, b, sizeof b));
    if (ref && (ref->rows != v->rows || ref->cols != v->cols))
        return _skel_fail(SKEL_ESIZE, "%s %s: %s is %s but in[0] is %s", _skel_kind_name(sk->kind), sk->name,
                          what, _skel_shape_str(v, a, sizeof a), _skel_shape_str(ref, b, sizeof b));
    return SKEL_OK;
}

#define _SKEL_TRY(x) do { int rc_ = (x); if (rc_ != SKEL_OK) return rc_; } while (0)
#define _SKEL_BAD(code, ...) return _skel_fail(code, __VA_ARGS__)

static int _skel_check_overlap(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    const skel_vec *in = c->in[0];
    int dir = c->direction;
    const char *kn = _skel_kind_name(sk->kind);
    if ((unsigned)c->edge > SKEL_EDGE_DUPLICATE) _SKEL_BAD(SKEL_EINVAL, "%s %s: unknown edge policy %d", kn, sk->name, (int)c->edge);
    if (sk->kind == SKEL_KIND_OVERLAP2D) {
        if (!in->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "%s %s: in[0] must be a matrix, got a vector", kn, sk->name);
        if (in->n && ((size_t)sk->dr > in->rows || (size_t)sk->dc > in->cols))
            _SKEL_BAD(SKEL_ESIZE, "%s %s: overlap %d x %d is wider than the %zu x %zu matrix", kn, sk->name,
                      sk->dr, sk->dc, in->rows, in->cols);
        if (sk->weighted && !c->weights) _SKEL_BAD(SKEL_EINVAL, "%s %s: weighted instance needs call.weights", kn, sk->name);
        sh->dims = 2; sh->point[0] = in->rows; sh->point[1] = in->cols;
        return SKEL_OK;
    }
    if (!in->is_matrix && dir != SKEL_WHOLE)
        _SKEL_BAD(SKEL_ESHAPE, "%s %s: direction %d needs a matrix, in[0] is a vector", kn, sk->name, dir);
    if (dir < SKEL_WHOLE || dir > SKEL_ROWS_COLS) _SKEL_BAD(SKEL_EINVAL, "%s %s: unknown direction %d", kn, sk->name, dir);
    if (in->n && (dir != SKEL_COLS) && (size_t)sk->dr > in->cols)
        _SKEL_BAD(SKEL_ESIZE, "%s %s: overlap %d is wider than the %zu elements it runs along", kn, sk->name, sk->dr, in->cols);
    if (in->n && (dir == SKEL_COLS || dir == SKEL_ROWS_COLS) && (size_t)sk->dr > in->rows)
        _SKEL_BAD(SKEL_ESIZE, "%s %s: overlap %d is taller than the %zu rows it runs along", kn, sk->name, sk->dr, in->rows);
    if (in->is_matrix) { sh->dims = 2; sh->point[0] = in->rows; sh->point[1] = in->cols; }
    return SKEL_OK;
}

static int _skel_check_reduce(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    const skel_vec *in = c->in[0];
    const char *kn = _skel_kind_name(sk->kind);
    int dir = c->direction;
    if (sk->kind == SKEL_KIND_MAPREDUCE && dir != SKEL_WHOLE)
        _SKEL_BAD(SKEL_EUNSUPPORTED, "%s %s: only whole reductions (direction 0)", kn, sk->name);
    if (dir == SKEL_WHOLE) {
        if (!c->result) _SKEL_BAD(SKEL_EINVAL, "%s %s: call.result is NULL", kn, sk->name);
        if (c->out) _SKEL_BAD(SKEL_EINVAL, "%s %s: a whole reduction writes call.result, not call.out", kn, sk->name);
        if (in->n == 0) _SKEL_BAD(SKEL_EEMPTY, "%s %s: reduction of an empty container has no value", kn, sk->name);
        return SKEL_OK;
    }
    if (dir != SKEL_ROWS && dir != SKEL_COLS) _SKEL_BAD(SKEL_EINVAL, "%s %s: unknown direction %d", kn, sk->name, dir);
    if (!in->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "%s %s: row/column reduction needs a matrix, in[0] is a vector", kn, sk->name);
    if (!c->out) _SKEL_BAD(SKEL_EINVAL, "%s %s: row/column reduction needs call.out", kn, sk->name);
    _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_type, NULL));
    if (c->out->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "%s %s: call.out must be a vector, got a matrix", kn, sk->name);
    if (c->out->n != (dir == SKEL_ROWS ? in->rows : in->cols))
        _SKEL_BAD(SKEL_ESIZE, "%s %s: call.out has %zu elements, needs %zu", kn, sk->name, c->out->n,
                  dir == SKEL_ROWS ? in->rows : in->cols);
    if (c->out->n && (dir == SKEL_ROWS ? in->cols : in->rows) == 0)
        _SKEL_BAD(SKEL_EEMPTY, "%s %s: the %s to reduce are empty", kn, sk->name, dir == SKEL_ROWS ? "rows" : "columns");
    sh->dims = 2; sh->point[0] = in->rows; sh->point[1] = in->cols;
    return SKEL_OK;
}

/* Check every operand of a call; fill the shape. No container is touched. */
static int _skel_check(const skel_skeleton *sk, const skel_call *c, _skel_shape *sh)
{
    const char *kn;
    const skel_vec *ref;
    int i;
    if (!sk) return _skel_fail(SKEL_EINVAL, "skel_run: NULL skeleton instance");
    kn = _skel_kind_name(sk->kind);
    if (!c) return _skel_fail(SKEL_EINVAL, "%s %s: NULL call", kn, sk->name);
    if (sk->has_uniform && !c->uniform) _SKEL_BAD(SKEL_EINVAL, "%s %s: needs a uniform argument (%s)", kn, sk->name, sk->uniform_type);
    if (!sk->has_uniform && c->uniform) _SKEL_BAD(SKEL_EINVAL, "%s %s: takes no uniform argument", kn, sk->name);
    for (i = sk->nin; i < SKEL_MAX_IN; ++i)
        if (c->in[i]) _SKEL_BAD(SKEL_EINVAL, "%s %s: takes %d input(s), in[%d] is set", kn, sk->name, sk->nin, i);
    memset(sh, 0, sizeof *sh);
    if (sk->kind == SKEL_KIND_MAPARRAY) {
        _SKEL_TRY(_skel_check_operand(sk, "in[0]", c->in[0], sk->in_type, NULL));
        _SKEL_TRY(_skel_check_operand(sk, "in[1]", c->in[1], sk->in_type, NULL));
        if (c->in[0]->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "MapArray %s: in[0] must be a vector, got a matrix", sk->name);
        ref = c->in[1];
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_type, ref));
        sh->dims = 2; sh->point[0] = c->in[0]->n; sh->point[1] = ref->n;
    } else if (sk->nin == 0) {
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_type, NULL));
        ref = c->out;
    } else {
        static const char *names[SKEL_MAX_IN] = { "in[0]", "in[1]", "in[2]", "in[3]" };
        ref = c->in[0];
        for (i = 0; i < sk->nin; ++i)
            _SKEL_TRY(_skel_check_operand(sk, names[i], c->in[i], sk->in_type, i ? ref : NULL));
    }
    sh->n = ref->n; sh->rows = ref->rows; sh->cols = ref->cols;
    sh->dims = sh->dims ? sh->dims : 1;
    if (sh->dims == 1) sh->point[0] = ref->n;
    switch (sk->kind) {
    case SKEL_KIND_MAP:
        if (sk->nin) _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_type, ref));
        return SKEL_OK;
    case SKEL_KIND_MAPARRAY:
        return SKEL_OK;
    case SKEL_KIND_REDUCE:
    case SKEL_KIND_MAPREDUCE:
        return _skel_check_reduce(sk, c, sh);
    case SKEL_KIND_SCAN:
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_type, ref));
        if (c->direction != SKEL_WHOLE && c->direction != SKEL_ROWS)
            _SKEL_BAD(c->direction == SKEL_COLS ? SKEL_EUNSUPPORTED : SKEL_EINVAL,
                      "Scan %s: direction %d: a matrix scans row-wise only", sk->name, c->direction);
        if (c->direction == SKEL_ROWS && !ref->is_matrix) _SKEL_BAD(SKEL_ESHAPE, "Scan %s: SKEL_ROWS needs a matrix", sk->name);
        if (c->exclusive && !c->init) _SKEL_BAD(SKEL_EINVAL, "Scan %s: an exclusive scan needs call.init", sk->name);
        return SKEL_OK;
    case SKEL_KIND_OVERLAP:
    case SKEL_KIND_OVERLAP2D:
        _SKEL_TRY(_skel_check_operand(sk, "out", c->out, sk->out_type, ref));
        return _skel_check_overlap(sk, c, sh);
    default:
        _SKEL_BAD(SKEL_EINVAL, "skel_run: %s is not a skeleton instance (kind %d)", sk->name ? sk->name : "?", sk->kind);
    }
}

/* Which variant runs this call: SKEL_BACKEND, else the plan, else the default. */
static int _skel_choose(skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, _skel_variant *v)
{
    int i, s;
    size_t size = sh->dims == 1 ? sh->point[0] : sh->point[0] * sh->point[1];
    memset(v, 0, sizeof *v);
    if (_skel_env.forced == -2)
        return _skel_fail(SKEL_EBACKEND, "SKEL_BACKEND=%s: %s", _skel_env.forced_name,
                          _skel_known_backend(_skel_env.forced_name) ? "backend not available on this machine"
                                                                   : "unknown backend (known: seq, omp, cuda, opencl)");
    if (_skel_env.forced >= 0) { v->backend = _skel_env.forced; return SKEL_OK; }
    if (sk->state && sk->state->plan && skel_plan_lookup(sk->state->plan, size, NULL) == SKEL_OK) {
        skel_variant pv;
        skel_plan_lookup(sk->state->plan, size, &pv);
        return _skel_variant_resolve(&pv, v);
    }
    /* data already on a GPU stays there */
    for (i = 0; i < SKEL_MAX_IN && c->in[i]; ++i)
        if (!(c->in[i]->valid & 1u))
            for (s = 0; s < _skel_nbackends; ++s)
                if (_skel_backends[s].is_gpu && (c->in[i]->valid & (1u << _skel_backends[s].space))) {
                    v->backend = s;
                    return SKEL_OK;
                }
    v->backend = 0;
    if (size >= (size_t)_skel_env.omp_threshold && _skel_nbackends > 1 && strcmp(_skel_backends[1].name, "omp") == 0)
        v->backend = 1;
    return SKEL_OK;
}

int skel_choose(skel_skeleton *sk, const skel_call *call, skel_variant *out)
{
    _skel_shape sh;
    _skel_variant v;
    _skel_init();
    if (!out) return _skel_fail(SKEL_EINVAL, "skel_choose: NULL out");
    _SKEL_TRY(_skel_check(sk, call, &sh));
    _SKEL_TRY(_skel_choose(sk, call, &sh, &v));
    _skel_variant_public(&v, out);
    return SKEL_OK;
}

int skel_run(skel_skeleton *sk, const skel_call *call)
{
    _skel_shape sh;
    _skel_variant v;
    const _skel_backend *b;
    _skel_init();
    _SKEL_TRY(_skel_check(sk, call, &sh));
    _SKEL_TRY(_skel_choose(sk, call, &sh, &v));
    b = &_skel_backends[v.backend];
    if (_skel_verbose >= 2)
        _skel_log(SKEL_LOG_DEBUG, "%s %s: %zu elements on %s", _skel_kind_name(sk->kind), sk->name, sh.n, b->name);
    return b->run(b, &v, sk, call, &sh);
}

int skel_map1(skel_skeleton *sk, skel_vec *out, skel_vec *a)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.out = out; c.in[0] = a;
    return skel_run(sk, &c);
}
int skel_map2(skel_skeleton *sk, skel_vec *out, skel_vec *a, skel_vec *b)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.out = out; c.in[0] = a; c.in[1] = b;
    return skel_run(sk, &c);
}
int skel_reduce(skel_skeleton *sk, skel_vec *in, void *result) { return skel_mapreduce1(sk, in, result); }
int skel_mapreduce1(skel_skeleton *sk, skel_vec *a, void *result)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.result = result;
    return skel_run(sk, &c);
}
int skel_mapreduce2(skel_skeleton *sk, skel_vec *a, skel_vec *b, void *result)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.in[0] = a; c.in[1] = b; c.result = result;
    return skel_run(sk, &c);
}
int skel_scan(skel_skeleton *sk, skel_vec *out, skel_vec *in) { return skel_map1(sk, out, in); }
int skel_overlap(skel_skeleton *sk, skel_vec *out, skel_vec *in, skel_edge edge, const void *edge_value)
{
    skel_call c;
    memset(&c, 0, sizeof c);
    c.out = out; c.in[0] = in; c.edge = edge; c.edge_value = edge_value;
    return skel_run(sk, &c);
}

/* ---------------------------------------------------------------------
   execution plans (manual ranges; the tuner adds dispatch trees)
   --------------------------------------------------------------------- */
typedef struct _skel_range {
    size_t lo, hi;
    _skel_variant v;
} _skel_range;

struct skel_plan {
    _skel_range *ranges;
    int count, cap;
};

int skel_plan_new(skel_plan **p)
{
    if (!p) return _skel_fail(SKEL_EINVAL, "skel_plan_new: NULL result pointer");
    *p = (skel_plan *)SKEL_MALLOC(sizeof **p);
    if (!*p) return _skel_fail(SKEL_ENOMEM, "skel_plan_new: out of memory");
    memset(*p, 0, sizeof **p);
    return SKEL_OK;
}

void skel_plan_free(skel_plan *p)
{
    if (!p) return;
    SKEL_FREE(p->ranges);
    SKEL_FREE(p);
}

int skel_plan_add(skel_plan *p, size_t lo, size_t hi, const skel_variant *v)
{
    _skel_variant rv;
    if (!p) return _skel_fail(SKEL_EINVAL, "skel_plan_add: NULL plan");
    if (lo > hi) return _skel_fail(SKEL_EINVAL, "skel_plan_add: range %zu..%zu is empty", lo, hi);
    _SKEL_TRY(_skel_variant_resolve(v, &rv));
    if (p->count == p->cap) {
        int cap = p->cap ? 2 * p->cap : 4;
        _skel_range *r = (_skel_range *)SKEL_REALLOC(p->ranges, (size_t)cap * sizeof *r);
        if (!r) return _skel_fail(SKEL_ENOMEM, "skel_plan_add: out of memory");
        p->ranges = r;
        p->cap = cap;
    }
    p->ranges[p->count].lo = lo;
    p->ranges[p->count].hi = hi;
    p->ranges[p->count].v = rv;
    p->count++;
    return SKEL_OK;
}

int skel_plan_lookup(const skel_plan *p, size_t n, skel_variant *out)
{
    int i;
    if (!p) return _skel_fail(SKEL_EINVAL, "skel_plan_lookup: NULL plan");
    for (i = p->count - 1; i >= 0; --i)
        if (n >= p->ranges[i].lo && n <= p->ranges[i].hi) {
            if (out) _skel_variant_public(&p->ranges[i].v, out);
            return SKEL_OK;
        }
    return _skel_fail(SKEL_EINVAL, "skel_plan_lookup: no range covers size %zu", n);
}

int skel_set_plan(skel_skeleton *sk, skel_plan *p)
{
    if (!sk) return _skel_fail(SKEL_EINVAL, "skel_set_plan: NULL skeleton instance");
    if (!_skel_state(sk)) return _skel_fail(SKEL_ENOMEM, "skel_set_plan: out of memory");
    sk->state->plan = p;
    return SKEL_OK;
}

#endif /* SKEL_IMPLEMENTATION */

/*
   LICENSE: MIT or public domain (unlicense), at your choice.
   Copyright (c) 2026 the skel authors.  Permission is hereby granted, free
   of charge, to any person obtaining a copy of this software, to deal in it
   without restriction.  THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY
   OF ANY KIND.
*/
