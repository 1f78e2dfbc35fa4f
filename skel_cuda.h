/* skel_cuda.h - the CUDA backend of skel, loaded at run time.

   Adds the backend "cuda" to skel.h: every skeleton runs on NVIDIA GPUs
   through the CUDA driver API, with kernels generated from skel.h's
   portable templates plus the user function's source and compiled by NVRTC
   for each device's own architecture.  Nothing of CUDA is needed to build:
   libcuda.so.1 and libnvrtc are opened with dlopen when the program starts;
   where they or a GPU are missing the backend is simply absent and skel
   runs on the CPU.

   USE
       In the one .c file that defines SKEL_IMPLEMENTATION:
           #define SKEL_IMPLEMENTATION
           #include "skel.h"
           #include "skel_cuda.h"
       The backend adds itself to skel's registry before main (GCC/Clang
       constructor; with other compilers call skel_cuda_register() before
       the first skeleton call); libcuda and NVRTC are opened when a GPU is
       first needed (skel.h, BACKENDS), never by a program that runs on the
       CPU.  Link -ldl -lpthread -lm as for skel.h.

   WHAT RUNS WHERE
       Containers get a copy in each GPU's memory (a memory space of the
       coherence layer): a skeleton call on the GPU uploads an operand only
       when the GPU has no valid copy, leaves its result on the GPU, and the
       host copy is refreshed only when the host reads (skel_read) - so a
       chain of calls moves the data once.  skel_flush() brings the data home
       and frees the GPU copies.  Scalar results (Reduce, MapReduce) are
       written by the kernel straight into page-locked host memory and
       copied to call.result once the kernel is done; given call.out (a
       1-element vector) instead, the value stays on the GPU and the call
       returns without waiting, like a Map.

   VARIANTS
       {"cuda", .block, .device, .devices}: threads per block (64..1024, a
       power of two; 0: 256; halved automatically while a kernel's
       shared-memory tile does not fit), the device the call runs on (0:
       the first selected one; each device is a place, "cuda:0",
       "cuda:1", ...), and .devices = k > 1: the call split into k equal
       parts, one per device in turn (two parts on one GPU run as logical
       partitions) - a shorthand for a split variant (skel.h, SPLIT
       CALLS), which keeps each part where it was computed.  .grid sets the
       blocks of the grid-stride kernels (Map, MapArray, row-wise Reduce;
       0: the plan's choice), a Map or MapArray never getting more blocks
       than have work; the other kernels' grids follow from their tiles.
       .block is the most threads a block: a Map or MapArray with fewer
       than 4 blocks an SM runs in smaller blocks (down to 32 threads), so
       that every SM gets some of it.  .tiling: a SKEL_CONV2D's register
       tiling (skel.h, 2D CONVOLUTION), from the device's registers, shared
       memory, threads and blocks per SM.

   KERNEL CACHE
       Compiled kernels are kept in memory and on disk, keyed by a hash of
       the generated source, the NVRTC options, the device architecture and
       the NVRTC and driver versions; a second run of a program compiles
       nothing.  Entries carry a checksum: a truncated or corrupted entry is
       reported (log) and rebuilt, and so is one whose load did not return
       in an earlier process (an entry is marked <entry>.loading while the
       driver loads it: a process killed by the load leaves the mark).
       Entries are read only when they are regular files; writes go to a
       new temporary file (created exclusively, never through a planted
       link), then rename; an unwritable directory only costs speed.

   ENVIRONMENT
       SKEL_CUDA_DEVICES=0,1   use these device ordinals (default: all)
       SKEL_CACHE_DIR=dir      kernel cache (else $XDG_CACHE_HOME/skel, else
                               ~/.cache/skel); SKEL_CACHE_DIR=off disables it
       SKEL_CUDA_PINNED=auto   page-lock a container's host copy before a
                               copy to or from the device once its pageable
                               copies, this one included, cost as much time
                               as registering and releasing it is estimated
                               to (default; at most a quarter of the
                               machine's memory in all); 1: at its first
                               copy; 0: never.  The lock lasts as
                               long as the device copy (skel_flush and
                               skel_free release it).
       SKEL_CUDA_POOL_MB=n     freed device memory the driver's pool keeps
                               for reuse (default 1024; 0: every buffer is
                               cuMemAlloc'd and cuMemFree'd); with one
                               device (several: no pool)
       SKEL_CUDA_CHECK=sm_80,sm_90
                               compile-check mode (CI without a GPU): adds a
                               backend "cuda-check" that compiles every
                               kernel a call would use for these
                               architectures, then runs the call on one CPU
                               core.  Needs only NVRTC.  Each name must be
                               an architecture that NVRTC builds for; a
                               bad list adds no backend, with a warning
                               (and SKEL_BACKEND=cuda-check says why)
       SKEL_VERBOSE=1          logs the driver and NVRTC versions, devices,
                               compilations and cache hits

   ERRORS
       A user function that does not compile: SKEL_ECOMPILE, and
       skel_last_error() holds the NVRTC log and the generated source with
       line numbers.  Out of GPU memory: SKEL_ENOMEM, containers unchanged.
       A failing driver call: SKEL_EDEVICE with the call's name and CUDA's
       error name and string.

   VERSION: see skel.h
*/
#ifndef SKEL_CUDA_H
#define SKEL_CUDA_H

#include "skel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Register the CUDA backend now (idempotent).  SKEL_OK when it is usable,
   SKEL_EBACKEND (with the reason in skel_last_error) when it is not. */
int skel_cuda_register(void);

/* One selected device, as the backend sees it. */
typedef struct skel_cuda_device_info {
    char name[128];
    int ordinal;                    /* CUDA device ordinal */
    int cc_major, cc_minor;         /* compute capability */
    int sms;                        /* multiprocessors */
    int max_threads_per_block, max_threads_per_sm, warp_size;
    int shared_per_block, shared_per_block_optin, shared_per_sm;   /* bytes */
    int regs_per_block, regs_per_sm;
    int max_blocks_per_sm;
    int l2_bytes, const_bytes;
    size_t memory;                  /* bytes of device memory */
} skel_cuda_device_info;

/* Selected devices (0 when the backend is absent). */
int skel_cuda_device_count(void);
int skel_cuda_device_get(int index, skel_cuda_device_info *out);

/* Counters since the program started (for tests and benchmarks). */
typedef struct skel_cuda_stats {
    long compiles;                  /* NVRTC compilations */
    long disk_loads;                /* modules read from the disk cache */
    long disk_writes;               /* modules written to the disk cache */
    long disk_rejects;              /* corrupt or unreadable cache entries */
    long module_loads;              /* cuModuleLoadData calls */
    long uploads, downloads;        /* host <-> device copies */
    double bytes_up, bytes_down;
    double compile_seconds;         /* spent in NVRTC */
    double load_seconds;            /* spent reading the disk cache + loading modules */
    long launches;
    long pins, unpins;              /* host copies page-locked (SKEL_CUDA_PINNED), and released */
    double pin_seconds, unpin_seconds, bytes_pinned;   /* spent registering them, releasing them; their bytes */
} skel_cuda_stats;
void skel_cuda_stats_get(skel_cuda_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* SKEL_CUDA_H */

/* ======================================================================
   IMPLEMENTATION
   It lives in the translation unit that implements skel.h and uses that
   half's private functions (coherence, registry, templates).
   ====================================================================== */
#if (defined(SKEL_IMPLEMENTATION) || defined(SKEL_CUDA_IMPLEMENTATION)) && !defined(_SKEL_CUDA_IMPL_DONE)
#define _SKEL_CUDA_IMPL_DONE
#ifndef _SKEL_IMPL_DONE
#error "skel_cuda.h: include it after skel.h in the file that defines SKEL_IMPLEMENTATION"
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* ---------------------------------------------------------------------
   cuda: the driver API and NVRTC, declared here (no CUDA headers)
   --------------------------------------------------------------------- */
typedef int _skel_CUresult;
typedef int _skel_CUdevice;
typedef struct _skel_CUctx_st *_skel_CUcontext;
typedef struct _skel_CUmod_st *_skel_CUmodule;
typedef struct _skel_CUfunc_st *_skel_CUfunction;
typedef struct _skel_CUstream_st *_skel_CUstream;
typedef struct _skel_CUevent_st *_skel_CUevent;
typedef unsigned long long _skel_CUdeviceptr;
typedef int _skel_nvrtcResult;
typedef struct _skel_nvrtcProgram_st *_skel_nvrtcProgram;

enum {
    _SKEL_CU_SUCCESS = 0, _SKEL_CU_OUT_OF_MEMORY = 2, _SKEL_CU_NO_DEVICE = 100,
    _SKEL_CU_INVALID_IMAGE = 200, _SKEL_CU_NO_BINARY_FOR_GPU = 209, _SKEL_CU_INVALID_PTX = 218,
    _SKEL_CU_UNSUPPORTED_PTX_VERSION = 222, _SKEL_CU_NOT_READY = 600, _SKEL_CU_HOST_MEMORY_ALREADY_REGISTERED = 712,
    _SKEL_CU_ERROR_INVALID_CONTEXT = 201, _SKEL_CU_MEMHOSTREGISTER_PORTABLE = 1
};
enum {  /* CUdevice_attribute */
    _SKEL_CUA_MAX_THREADS_PER_BLOCK = 1, _SKEL_CUA_SHARED_PER_BLOCK = 8, _SKEL_CUA_CONST_BYTES = 9,
    _SKEL_CUA_WARP_SIZE = 10, _SKEL_CUA_REGS_PER_BLOCK = 12, _SKEL_CUA_SMS = 16,
    _SKEL_CUA_L2 = 38, _SKEL_CUA_THREADS_PER_SM = 39, _SKEL_CUA_UNIFIED = 41,
    _SKEL_CUA_CC_MAJOR = 75, _SKEL_CUA_CC_MINOR = 76, _SKEL_CUA_SHARED_PER_SM = 81,
    _SKEL_CUA_REGS_PER_SM = 82, _SKEL_CUA_SHARED_OPTIN = 97, _SKEL_CUA_BLOCKS_PER_SM = 106
};
enum { _SKEL_CUF_NUM_REGS = 4, _SKEL_CUF_MAX_DYN_SHARED = 8 };

/* The driver functions skel uses, by their exported (versioned) names. */
#define _SKEL_CU_FUNCS(X)                                                          \
    X(cuInit, (unsigned flags))                                                    \
    X(cuDriverGetVersion, (int *v))                                                \
    X(cuGetErrorName, (_skel_CUresult e, const char **s))                          \
    X(cuGetErrorString, (_skel_CUresult e, const char **s))                        \
    X(cuDeviceGetCount, (int *n))                                                  \
    X(cuDeviceGet, (_skel_CUdevice *d, int ordinal))                               \
    X(cuDeviceGetName, (char *name, int len, _skel_CUdevice d))                    \
    X(cuDeviceGetAttribute, (int *v, int attr, _skel_CUdevice d))                  \
    X(cuDeviceTotalMem_v2, (size_t *bytes, _skel_CUdevice d))                      \
    X(cuDevicePrimaryCtxRetain, (_skel_CUcontext *c, _skel_CUdevice d))            \
    X(cuCtxSetCurrent, (_skel_CUcontext c))                                        \
    X(cuCtxSynchronize, (void))                                                    \
    X(cuModuleLoadData, (_skel_CUmodule *m, const void *image))                    \
    X(cuModuleGetFunction, (_skel_CUfunction *f, _skel_CUmodule m, const char *name)) \
    X(cuModuleGetGlobal_v2, (_skel_CUdeviceptr *p, size_t *bytes, _skel_CUmodule m, const char *name)) \
    X(cuFuncGetAttribute, (int *v, int attr, _skel_CUfunction f))                  \
    X(cuFuncSetAttribute, (_skel_CUfunction f, int attr, int v))                   \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, (int *n, _skel_CUfunction f, int block, size_t shmem)) \
    X(cuLaunchKernel, (_skel_CUfunction f, unsigned gx, unsigned gy, unsigned gz,  \
                       unsigned bx, unsigned by, unsigned bz, unsigned shmem,      \
                       _skel_CUstream s, void **params, void **extra))             \
    X(cuMemAlloc_v2, (_skel_CUdeviceptr *p, size_t bytes))                         \
    X(cuMemFree_v2, (_skel_CUdeviceptr p))                                         \
    X(cuMemGetInfo_v2, (size_t *free_bytes, size_t *total))                       \
    X(cuMemcpyHtoD_v2, (_skel_CUdeviceptr d, const void *h, size_t bytes))         \
    X(cuMemcpyDtoH_v2, (void *h, _skel_CUdeviceptr d, size_t bytes))              \
    X(cuMemcpyDtoD_v2, (_skel_CUdeviceptr d, _skel_CUdeviceptr s, size_t bytes))   \
    X(cuMemcpyHtoDAsync_v2, (_skel_CUdeviceptr d, const void *h, size_t bytes, _skel_CUstream s)) \
    X(cuMemcpyPeer, (_skel_CUdeviceptr d, _skel_CUcontext dc, _skel_CUdeviceptr s, \
                     _skel_CUcontext sc, size_t bytes))                            \
    X(cuMemsetD8_v2, (_skel_CUdeviceptr d, unsigned char v, size_t n))             \
    X(cuMemHostRegister_v2, (void *p, size_t bytes, unsigned flags))               \
    X(cuMemHostUnregister, (void *p))                                              \
    X(cuMemAllocHost_v2, (void **p, size_t bytes))                                 \
    X(cuMemHostGetDevicePointer_v2, (_skel_CUdeviceptr *d, void *h, unsigned flags)) \
    X(cuEventCreate, (_skel_CUevent *e, unsigned flags))                           \
    X(cuEventRecord, (_skel_CUevent e, _skel_CUstream s))                          \
    X(cuEventSynchronize, (_skel_CUevent e))                                       \
    X(cuEventQuery, (_skel_CUevent e))                                             \
    X(cuEventElapsedTime, (float *ms, _skel_CUevent a, _skel_CUevent b))           \
    X(cuEventDestroy_v2, (_skel_CUevent e))

#define _SKEL_NVRTC_FUNCS(X)                                                       \
    X(nvrtcVersion, (int *major, int *minor))                                      \
    X(nvrtcCreateProgram, (_skel_nvrtcProgram *p, const char *src, const char *name, \
                           int nheaders, const char *const *headers, const char *const *names)) \
    X(nvrtcDestroyProgram, (_skel_nvrtcProgram *p))                                \
    X(nvrtcCompileProgram, (_skel_nvrtcProgram p, int nopt, const char *const *opts)) \
    X(nvrtcGetProgramLogSize, (_skel_nvrtcProgram p, size_t *n))                   \
    X(nvrtcGetProgramLog, (_skel_nvrtcProgram p, char *log))                       \
    X(nvrtcGetPTXSize, (_skel_nvrtcProgram p, size_t *n))                          \
    X(nvrtcGetPTX, (_skel_nvrtcProgram p, char *ptx))                              \
    X(nvrtcGetCUBINSize, (_skel_nvrtcProgram p, size_t *n))                        \
    X(nvrtcGetCUBIN, (_skel_nvrtcProgram p, char *cubin))                          \
    X(nvrtcGetNumSupportedArchs, (int *n))                                         \
    X(nvrtcGetSupportedArchs, (int *archs))

#define _SKEL_CU_MEMBER(name, params) _skel_CUresult (*name) params;
#define _SKEL_NVRTC_MEMBER(name, params) _skel_nvrtcResult (*name) params;
typedef struct _skel_cu_api { _SKEL_CU_FUNCS(_SKEL_CU_MEMBER) } _skel_cu_api;
typedef struct _skel_nvrtc_api {
    _SKEL_NVRTC_FUNCS(_SKEL_NVRTC_MEMBER)
    const char *(*nvrtcGetErrorString)(_skel_nvrtcResult r);
} _skel_nvrtc_api;

typedef struct _skel_sym { const char *name; size_t offset; } _skel_sym;
#define _SKEL_CU_SYM(name, params) { #name, offsetof(_skel_cu_api, name) },
#define _SKEL_NVRTC_SYM(name, params) { #name, offsetof(_skel_nvrtc_api, name) },
static const _skel_sym _skel_cu_syms[] = { _SKEL_CU_FUNCS(_SKEL_CU_SYM) };
static const _skel_sym _skel_nvrtc_syms[] = {
    _SKEL_NVRTC_FUNCS(_SKEL_NVRTC_SYM)
    { "nvrtcGetErrorString", offsetof(_skel_nvrtc_api, nvrtcGetErrorString) }
};

/* Optional (drivers of CUDA 11.2 on): the stream-ordered allocator. */
typedef struct _skel_CUmemPool_st *_skel_CUmemoryPool;
typedef struct _skel_cu_pool_api {
    _skel_CUresult (*cuMemAllocAsync)(_skel_CUdeviceptr *p, size_t bytes, _skel_CUstream s);
    _skel_CUresult (*cuMemFreeAsync)(_skel_CUdeviceptr p, _skel_CUstream s);
    _skel_CUresult (*cuDeviceGetDefaultMemPool)(_skel_CUmemoryPool *pool, _skel_CUdevice d);
    _skel_CUresult (*cuMemPoolSetAttribute)(_skel_CUmemoryPool pool, int attr, void *value);
    _skel_CUresult (*cuMemPoolTrimTo)(_skel_CUmemoryPool pool, size_t keep);
} _skel_cu_pool_api;
static const _skel_sym _skel_cu_pool_syms[] = {
    { "cuMemAllocAsync", offsetof(_skel_cu_pool_api, cuMemAllocAsync) },
    { "cuMemFreeAsync", offsetof(_skel_cu_pool_api, cuMemFreeAsync) },
    { "cuDeviceGetDefaultMemPool", offsetof(_skel_cu_pool_api, cuDeviceGetDefaultMemPool) },
    { "cuMemPoolSetAttribute", offsetof(_skel_cu_pool_api, cuMemPoolSetAttribute) },
    { "cuMemPoolTrimTo", offsetof(_skel_cu_pool_api, cuMemPoolTrimTo) }
};
#define _SKEL_CUA_MEMORY_POOLS 115          /* CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED */
#define _SKEL_CU_POOL_RELEASE_THRESHOLD 4   /* CU_MEMPOOL_ATTR_RELEASE_THRESHOLD */

static _skel_cu_api _skel_cu;
static _skel_cu_pool_api _skel_cu_pool;
static _skel_nvrtc_api _skel_nvrtc;
static void *_skel_cu_lib, *_skel_nvrtc_lib;
static int _skel_cu_driver_version, _skel_nvrtc_major, _skel_nvrtc_minor;

/* Fill a function-pointer table from a library (memcpy: ISO C has no cast
   from the object pointer dlsym returns to a function pointer). */
static int _skel_cuda_bind(void *lib, const _skel_sym *syms, size_t n, void *table, const char **missing)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        void *p = dlsym(lib, syms[i].name);
        if (!p) { *missing = syms[i].name; return 0; }
        memcpy((char *)table + syms[i].offset, &p, sizeof p);
    }
    return 1;
}

/* NVRTC alone (enough to compile without a GPU).  1 when loaded. */
static int _skel_nvrtc_load(void)
{
    static const char *names[] = {
        "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.11", "libnvrtc.so",
        "/usr/local/cuda/lib64/libnvrtc.so.13", "/usr/local/cuda/lib64/libnvrtc.so.12",
        "/usr/local/cuda/lib64/libnvrtc.so.11.2", "/usr/local/cuda/lib64/libnvrtc.so"
    };
    static int state = -1;   /* -1 untried, 0 absent, 1 loaded; set under the registry's once */
    const char *missing = NULL;
    size_t i;
    if (state >= 0) return state;
    state = 0;
    for (i = 0; i < sizeof names / sizeof *names && !_skel_nvrtc_lib; ++i)
        _skel_nvrtc_lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!_skel_nvrtc_lib) {
        _skel_log(SKEL_LOG_INFO, "cuda: NVRTC not found (libnvrtc.so.13/.12/.11, /usr/local/cuda/lib64)");
        return 0;
    }
    if (!_skel_cuda_bind(_skel_nvrtc_lib, _skel_nvrtc_syms, sizeof _skel_nvrtc_syms / sizeof *_skel_nvrtc_syms,
                         &_skel_nvrtc, &missing)) {
        _skel_log(SKEL_LOG_INFO, "cuda: NVRTC lacks %s", missing);
        dlclose(_skel_nvrtc_lib);
        _skel_nvrtc_lib = NULL;
        return 0;
    }
    _skel_nvrtc.nvrtcVersion(&_skel_nvrtc_major, &_skel_nvrtc_minor);
    _skel_log(SKEL_LOG_INFO, "cuda: NVRTC %d.%d loaded", _skel_nvrtc_major, _skel_nvrtc_minor);
    return state = 1;
}

static int _skel_cu_load(void)
{
    const char *missing = NULL;
    _skel_cu_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!_skel_cu_lib) {
        _skel_log(SKEL_LOG_INFO, "cuda: libcuda.so.1 not found: no NVIDIA driver");
        return 0;
    }
    if (!_skel_cuda_bind(_skel_cu_lib, _skel_cu_syms, sizeof _skel_cu_syms / sizeof *_skel_cu_syms, &_skel_cu,
                         &missing)) {
        _skel_log(SKEL_LOG_INFO, "cuda: libcuda.so.1 lacks %s (driver too old)", missing);
        dlclose(_skel_cu_lib);
        _skel_cu_lib = NULL;
        return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------------
   cuda: checked driver calls
   Every driver call goes through _SKEL_CU(fn, (args)): on failure it
   records "fn: CUDA_ERROR_X (text)" for skel_last_error and yields
   SKEL_ENOMEM for out-of-memory, SKEL_EDEVICE otherwise.
   --------------------------------------------------------------------- */
static int _skel_cu_error(_skel_CUresult r, const char *call)
{
    const char *name = NULL, *text = NULL;
    if (_skel_cu.cuGetErrorName) _skel_cu.cuGetErrorName(r, &name);
    if (_skel_cu.cuGetErrorString) _skel_cu.cuGetErrorString(r, &text);
    return _skel_fail(r == _SKEL_CU_OUT_OF_MEMORY ? SKEL_ENOMEM : SKEL_EDEVICE, "cuda: %s failed: %s (%s)", call,
                      name ? name : "CUDA_ERROR_?", text ? text : "no description");
}
#define _SKEL_CU(fn, args)                                                    \
    ((_skel_cu_rc = _skel_cu.fn args) == _SKEL_CU_SUCCESS ? SKEL_OK : _skel_cu_error(_skel_cu_rc, #fn))
static _SKEL_TLS _skel_CUresult _skel_cu_rc;

/* ---------------------------------------------------------------------
   cuda: devices
   --------------------------------------------------------------------- */
#define _SKEL_CUDA_MAX_DEVICES 8

typedef struct _skel_cuda_dev {
    skel_cuda_device_info info;
    _skel_CUdevice dev;
    _skel_CUcontext ctx;
    int space;                  /* coherence-layer memory space id (= its place) */
    char place[16];             /* "cuda:0": the place's name (device index, not ordinal) */
    int backend;                /* registry index of "cuda" */
    char arch[16];              /* "sm_90" */
    int arch_num;               /* 90 */
    pthread_mutex_t run_lock;   /* one call at a time owns the scratch buffers */
    _skel_CUdeviceptr scratch[3];   /* the plan's scratch buffers 0..2 */
    size_t scratch_cap[3];
    _skel_wcache weights;           /* what the weights array weights_at holds */
    _skel_CUdeviceptr weights_at;   /* a module's skel_w (modules are shared by instances) */
    void *pinned_result;            /* page-locked landing place of a scalar result */
    _skel_CUdeviceptr pinned_result_dev;  /* the same memory, as kernels see it (0: copy instead) */
    _skel_CUmemoryPool pool;        /* device memory comes from here (NULL: cuMemAlloc) */
    _skel_CUdeviceptr state_buf;    /* _SKEL_BUF_STATE ... */
    _skel_dstate state;             /* ... and what it holds */
    struct _skel_cuda_tmark *marks;  /* free pairs of split time marks (_skel_cuda_lock) */
} _skel_cuda_dev;

static _skel_cuda_dev _skel_cuda_devs[_SKEL_CUDA_MAX_DEVICES];
static int _skel_cuda_ndevs;
static pthread_mutex_t _skel_cuda_lock = PTHREAD_MUTEX_INITIALIZER;
static skel_cuda_stats _skel_cuda_st;

int skel_cuda_device_count(void) { _skel_init_gpus(); return _skel_cuda_ndevs; }

int skel_cuda_device_get(int index, skel_cuda_device_info *out)
{
    _skel_init_gpus();
    if (!out || index < 0 || index >= _skel_cuda_ndevs)
        return _skel_fail(SKEL_EINVAL, "skel_cuda_device_get: no device %d (%d selected)", index, _skel_cuda_ndevs);
    *out = _skel_cuda_devs[index].info;
    return SKEL_OK;
}

void skel_cuda_stats_get(skel_cuda_stats *out)
{
    if (!out) return;
    pthread_mutex_lock(&_skel_cuda_lock);
    *out = _skel_cuda_st;
    pthread_mutex_unlock(&_skel_cuda_lock);
}

static int _skel_cuda_set(const _skel_cuda_dev *d) { return _SKEL_CU(cuCtxSetCurrent, (d->ctx)); }

/* Is ordinal selected by SKEL_CUDA_DEVICES ("0,1"; unset: all)? */
static int _skel_cuda_selected(int ordinal)
{
    const char *s = getenv("SKEL_CUDA_DEVICES");
    char *end;
    if (!s || !*s) return 1;
    while (*s) {
        long v = strtol(s, &end, 10);
        if (end == s) return 0;
        if (v == ordinal) return 1;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return 0;
    }
    return 0;
}

static int _skel_cuda_attr(_skel_CUdevice d, int attr)
{
    int v = 0;
    if (_skel_cu.cuDeviceGetAttribute(&v, attr, d) != _SKEL_CU_SUCCESS) v = 0;
    return v;
}

/* Probe one ordinal and fill a device entry (no context yet). */
static int _skel_cuda_probe(int ordinal, _skel_cuda_dev *d)
{
    skel_cuda_device_info *i = &d->info;
    memset(d, 0, sizeof *d);
    _SKEL_TRY(_SKEL_CU(cuDeviceGet, (&d->dev, ordinal)));
    _SKEL_TRY(_SKEL_CU(cuDeviceGetName, (i->name, (int)sizeof i->name, d->dev)));
    _SKEL_TRY(_SKEL_CU(cuDeviceTotalMem_v2, (&i->memory, d->dev)));
    i->ordinal = ordinal;
    i->cc_major = _skel_cuda_attr(d->dev, _SKEL_CUA_CC_MAJOR);
    i->cc_minor = _skel_cuda_attr(d->dev, _SKEL_CUA_CC_MINOR);
    i->sms = _skel_cuda_attr(d->dev, _SKEL_CUA_SMS);
    i->max_threads_per_block = _skel_cuda_attr(d->dev, _SKEL_CUA_MAX_THREADS_PER_BLOCK);
    i->max_threads_per_sm = _skel_cuda_attr(d->dev, _SKEL_CUA_THREADS_PER_SM);
    i->warp_size = _skel_cuda_attr(d->dev, _SKEL_CUA_WARP_SIZE);
    i->shared_per_block = _skel_cuda_attr(d->dev, _SKEL_CUA_SHARED_PER_BLOCK);
    i->shared_per_block_optin = _skel_cuda_attr(d->dev, _SKEL_CUA_SHARED_OPTIN);
    i->shared_per_sm = _skel_cuda_attr(d->dev, _SKEL_CUA_SHARED_PER_SM);
    i->regs_per_block = _skel_cuda_attr(d->dev, _SKEL_CUA_REGS_PER_BLOCK);
    i->regs_per_sm = _skel_cuda_attr(d->dev, _SKEL_CUA_REGS_PER_SM);
    i->max_blocks_per_sm = _skel_cuda_attr(d->dev, _SKEL_CUA_BLOCKS_PER_SM);
    i->l2_bytes = _skel_cuda_attr(d->dev, _SKEL_CUA_L2);
    i->const_bytes = _skel_cuda_attr(d->dev, _SKEL_CUA_CONST_BYTES);
    if (i->sms <= 0 || i->max_threads_per_block <= 0 || i->cc_major <= 0)
        return _skel_fail(SKEL_EDEVICE, "cuda: device %d reports no multiprocessors", ordinal);
    snprintf(d->arch, sizeof d->arch, "sm_%d%d", i->cc_major, i->cc_minor);
    d->arch_num = i->cc_major * 10 + i->cc_minor;
    return SKEL_OK;
}

/* ---------------------------------------------------------------------
   cuda: NVRTC compilation and the kernel cache
   A cache file holds one compiled module:
       "SKELCUK1"  u64 key  u64 payload bytes  u64 payload hash
       u32 format (0 cubin, 1 ptx)  u32 0   payload
   --------------------------------------------------------------------- */
typedef struct _skel_cuda_hdr {
    char magic[8];
    uint64_t key, bytes, check;
    uint32_t format, pad;
} _skel_cuda_hdr;
#define _SKEL_CUDA_MAGIC "SKELCUK1"

typedef struct _skel_cuda_mod {
    uint64_t key;
    int dev;
    _skel_CUmodule mod;
} _skel_cuda_mod;
static _skel_cuda_mod *_skel_cuda_mods;
static int _skel_cuda_nmods, _skel_cuda_capmods;

/* Lines first..last of src, numbered, appended to out. */
static void _skel_cuda_numbered(char *out, size_t size, const char *src, int first, int last)
{
    size_t used = strlen(out);
    int line = 1;
    while (*src && used + 16 < size && line <= last) {
        const char *nl = strchr(src, '\n');
        size_t len = nl ? (size_t)(nl - src) : strlen(src);
        if (line >= first) {
            int w = snprintf(out + used, size - used, "%4d| %.*s\n", line, (int)len, src);
            if (w < 0 || (size_t)w >= size - used) break;
            used += (size_t)w;
        }
        ++line;
        src += len + (nl ? 1 : 0);
    }
}

/* The line of the first "name(LINE): error" in an NVRTC log, or 0. */
static int _skel_cuda_error_line(const char *log, const char *name)
{
    const char *p = log;
    size_t n = strlen(name);
    while ((p = strstr(p, name)) != NULL) {
        p += n;
        if (*p == '(') {
            int line = atoi(p + 1);
            const char *q = strchr(p, ')');
            if (line > 0 && q && strncmp(q, "): error", 8) == 0) return line;
        }
    }
    return 0;
}

/* Compile src for arch (e.g. 90) with NVRTC.  ptx: ask for PTX instead of
   a cubin.  *image (SKEL_MALLOC'd) and *size on success; SKEL_ECOMPILE with
   the log and the numbered source otherwise. */
static int _skel_cuda_nvrtc(const char *src, const char *name, int arch, int ptx, const char *extra,
                            unsigned char **image, size_t *size)
{
    _skel_nvrtcProgram prog = NULL;
    _skel_nvrtcResult r;
    char archopt[64];
    const char *opts[8];
    int nopt = 0, rc = SKEL_OK;
    size_t n = 0;
    double t0 = _skel_now();
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s_%d", ptx ? "compute" : "sm", arch);
    opts[nopt++] = archopt;
    opts[nopt++] = "-default-device";
    opts[nopt++] = "--std=c++11";
    opts[nopt++] = "-lineinfo";
    if (extra && *extra) opts[nopt++] = extra;
    *image = NULL;
    if ((r = _skel_nvrtc.nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL)) != 0)
        return _skel_fail(SKEL_ECOMPILE, "cuda: nvrtcCreateProgram: %s", _skel_nvrtc.nvrtcGetErrorString(r));
    r = _skel_nvrtc.nvrtcCompileProgram(prog, nopt, opts);
    if (r != 0) {
        /* the log: everything (log + numbered source); skel_last_error: the
           log's start and the numbered lines around the first error */
        size_t logn = 0, bufn;
        char *log, *buf;
        _skel_nvrtc.nvrtcGetProgramLogSize(prog, &logn);
        bufn = logn + 8 * strlen(src) + 4096;
        log = (char *)SKEL_MALLOC(logn + 1);
        buf = (char *)SKEL_MALLOC(bufn);
        if (log && buf) {
            int line;
            log[0] = 0;
            _skel_nvrtc.nvrtcGetProgramLog(prog, log);
            log[logn] = 0;
            snprintf(buf, bufn, "cuda: %s does not compile for %s_%d (%s):\n%s\ngenerated source:\n", name,
                     ptx ? "compute" : "sm", arch, _skel_nvrtc.nvrtcGetErrorString(r), log);
            _skel_cuda_numbered(buf, bufn, src, 1, 1 << 30);
            _skel_log(SKEL_LOG_ERROR, "%s", buf);
            line = _skel_cuda_error_line(log, name);
            snprintf(buf, bufn, "cuda: %s does not compile for %s_%d: %.500s\n", name, ptx ? "compute" : "sm", arch,
                     log);
            if (line) {
                snprintf(buf + strlen(buf), bufn - strlen(buf), "generated source, lines %d-%d:\n",
                         line > 2 ? line - 2 : 1, line + 2);
                _skel_cuda_numbered(buf, bufn, src, line - 2, line + 2);
            }
            snprintf(_skel_errbuf, sizeof _skel_errbuf, "%s", buf);
        }
        SKEL_FREE(log);
        SKEL_FREE(buf);
        _skel_nvrtc.nvrtcDestroyProgram(&prog);
        return SKEL_ECOMPILE;
    }
    r = ptx ? _skel_nvrtc.nvrtcGetPTXSize(prog, &n) : _skel_nvrtc.nvrtcGetCUBINSize(prog, &n);
    if (r == 0 && (*image = (unsigned char *)SKEL_MALLOC(n + 1)) != NULL)
        r = ptx ? _skel_nvrtc.nvrtcGetPTX(prog, (char *)*image) : _skel_nvrtc.nvrtcGetCUBIN(prog, (char *)*image);
    if (r != 0 || !*image) {
        rc = r ? _skel_fail(SKEL_ECOMPILE, "cuda: nvrtcGet%s: %s", ptx ? "PTX" : "CUBIN", _skel_nvrtc.nvrtcGetErrorString(r))
               : _skel_fail(SKEL_ENOMEM, "cuda: out of memory for a compiled kernel");
        SKEL_FREE(*image);
        *image = NULL;
    } else {
        *size = n;
    }
    _skel_nvrtc.nvrtcDestroyProgram(&prog);
    pthread_mutex_lock(&_skel_cuda_lock);
    _skel_cuda_st.compiles++;
    _skel_cuda_st.compile_seconds += _skel_now() - t0;
    pthread_mutex_unlock(&_skel_cuda_lock);
    _skel_log(SKEL_LOG_INFO, "cuda: compiled %s for %s_%d in %.1f ms", name, ptx ? "compute" : "sm", arch,
              1e3 * (_skel_now() - t0));
    return rc;
}

/* The highest architecture NVRTC can emit machine code for, not above want. */
static int _skel_cuda_nvrtc_arch(int want, int *exact)
{
    int n = 0, best = 0, i, archs[128];
    *exact = 0;
    if (_skel_nvrtc.nvrtcGetNumSupportedArchs(&n) != 0 || n <= 0 || n > 128) return want;
    if (_skel_nvrtc.nvrtcGetSupportedArchs(archs) != 0) return want;
    for (i = 0; i < n; ++i) {
        if (archs[i] == want) *exact = 1;
        if (archs[i] <= want && archs[i] > best) best = archs[i];
    }
    return best ? best : want;
}

/* The NVRTC option that lets a block of `block` threads launch: every
   thread of it gets at most 64K / block registers (all GPUs since sm_30
   have 64K a block).  ptxas does not know the block a kernel will run
   with; a kernel it gave more (a MapReduce over int64 with a 2-D index
   took more than 64 at block 1024) fails every launch with
   CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES.  Blocks of 256 or fewer fit any
   count ptxas uses (255 at most): no option, so their code is unchanged.
   Kernels with __launch_bounds__ of their own keep theirs. */
static const char *_skel_cuda_regcap(int block, char buf[32])
{
    if (block <= 256) return NULL;
    snprintf(buf, 32, "--maxrregcount=%d", 65536 / block);
    return buf;
}

static uint64_t _skel_cuda_key(const char *src, const char *extra, int arch, int ptx)
{
    char ver[96];
    uint64_t h = _SKEL_HASH_SEED;
    snprintf(ver, sizeof ver, "v1 nvrtc %d.%d driver %d arch %d %s", _skel_nvrtc_major, _skel_nvrtc_minor,
             _skel_cu_driver_version, arch, ptx ? "ptx" : "cubin");
    h = _skel_hash_str(h, ver);
    h = _skel_hash_str(h, extra ? extra : "");
    return _skel_hash_str(h, src);
}

/* The disk cache file of key, or "" when the cache is off. */
static void _skel_cuda_disk_path(uint64_t key, char *path, size_t size)
{
    const char *dir = _skel_cache_dir();
    if (*dir) snprintf(path, size, "%s/cuda-%016llx.bin", dir, (unsigned long long)key);
    else path[0] = 0;
}

/* Look key up in the disk cache.  1 with *image when a valid entry exists,
   marked as loading (_skel_cache_mark; _skel_cuda_disk_done unmarks it once
   the driver has loaded it); a corrupt or truncated one, or one an earlier
   process died loading, is reported and removed. */
static int _skel_cuda_disk_get(uint64_t key, unsigned char **image, size_t *size, int *format)
{
    char path[1200];
    const char *why = NULL;
    unsigned char *buf;
    size_t n = 0;
    _skel_cuda_hdr h;
    _skel_cuda_disk_path(key, path, sizeof path);
    if (!path[0] || !(buf = _skel_read_file(path, &n))) return 0;
    if (n < sizeof h) why = "truncated header";
    else {
        memcpy(&h, buf, sizeof h);
        if (memcmp(h.magic, _SKEL_CUDA_MAGIC, 8) != 0) why = "bad magic number";
        else if (h.key != key) why = "key mismatch";
        else if (h.bytes != n - sizeof h) why = "truncated payload";
        else if (h.check != _skel_hash(_SKEL_HASH_SEED, buf + sizeof h, (size_t)h.bytes))
            why = "checksum mismatch";
        else if (_skel_cache_mark(path))
            why = "an earlier process died loading it";
    }
    if (why) {
        _skel_log(SKEL_LOG_WARN, "cuda: kernel cache entry %s is corrupt (%s); rebuilding it", path, why);
        pthread_mutex_lock(&_skel_cuda_lock);
        _skel_cuda_st.disk_rejects++;
        pthread_mutex_unlock(&_skel_cuda_lock);
        remove(path);
        SKEL_FREE(buf);
        return 0;
    }
    memmove(buf, buf + sizeof h, (size_t)h.bytes);
    buf[h.bytes] = 0;
    *image = buf;
    *size = (size_t)h.bytes;
    *format = (int)h.format;
    return 1;
}

/* The driver loaded key's image (or did not need to): clear its load mark. */
static void _skel_cuda_disk_done(uint64_t key)
{
    char path[1200];
    _skel_cuda_disk_path(key, path, sizeof path);
    if (path[0]) _skel_cache_unmark(path);
}

static void _skel_cuda_disk_put(uint64_t key, const unsigned char *image, size_t size, int format)
{
    char path[1200];
    _skel_cuda_hdr h;
    _skel_cuda_disk_path(key, path, sizeof path);
    if (!path[0]) return;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, _SKEL_CUDA_MAGIC, 8);
    h.key = key;
    h.bytes = size;
    h.check = _skel_hash(_SKEL_HASH_SEED, image, size);
    h.format = (uint32_t)format;
    if (_skel_write_atomic(path, &h, sizeof h, image, size, 0) != SKEL_OK) return;   /* logged */
    pthread_mutex_lock(&_skel_cuda_lock);
    _skel_cuda_st.disk_writes++;
    pthread_mutex_unlock(&_skel_cuda_lock);
}

/* A compiled image of src for architecture arch: from the disk cache, else
   NVRTC (cubin; PTX for the newest architecture NVRTC knows when it does not
   know arch), stored back.  *key identifies it. */
static int _skel_cuda_image(const char *src, const char *name, const char *extra, int arch, unsigned char **image,
                            size_t *size, int *format, uint64_t *key)
{
    int exact, use = _skel_cuda_nvrtc_arch(arch, &exact), ptx = !exact, rc;
    double t0 = _skel_now();
    *key = _skel_cuda_key(src, extra, use, ptx);
    if (_skel_cuda_disk_get(*key, image, size, format)) {
        pthread_mutex_lock(&_skel_cuda_lock);
        _skel_cuda_st.disk_loads++;
        _skel_cuda_st.load_seconds += _skel_now() - t0;
        pthread_mutex_unlock(&_skel_cuda_lock);
        return SKEL_OK;
    }
    if (ptx) _skel_log(SKEL_LOG_INFO, "cuda: NVRTC %d.%d cannot build sm_%d code; using PTX for compute_%d",
                       _skel_nvrtc_major, _skel_nvrtc_minor, arch, use);
    rc = _skel_cuda_nvrtc(src, name, use, ptx, extra, image, size);
    if (rc != SKEL_OK) return rc;
    *format = ptx;
    _skel_cuda_disk_put(*key, *image, *size, ptx);
    return SKEL_OK;
}

/* Compile-only entry point (tests, CI): compile src for sm_<arch> without a
   GPU; the image is discarded, the disk cache is used. */
int _skel_cuda_compile_check(const char *src, const char *name, const char *extra, int arch)
{
    unsigned char *image = NULL;
    size_t size = 0;
    int format = 0, rc;
    uint64_t key;
    if (!_skel_nvrtc_load()) return _skel_fail(SKEL_EBACKEND, "cuda: NVRTC is not available");
    rc = _skel_cuda_image(src, name, extra, arch, &image, &size, &format, &key);
    if (rc == SKEL_OK) _skel_cuda_disk_done(key);   /* nothing is loaded here */
    SKEL_FREE(image);
    return rc;
}

/* The module for src on device d: memory cache, disk cache, NVRTC.
   Thread-safe; compiles happen under the lock (rarely contended). */
static int _skel_cuda_module(int d, const char *src, const char *name, const char *extra, _skel_CUmodule *out)
{
    _skel_cuda_dev *dv = &_skel_cuda_devs[d];
    unsigned char *image = NULL;
    size_t size = 0;
    int format = 0, rc, i;
    uint64_t key = _skel_cuda_key(src, extra, dv->arch_num, 0);
    double t0;
    pthread_mutex_lock(&_skel_cuda_lock);
    for (i = 0; i < _skel_cuda_nmods; ++i)
        if (_skel_cuda_mods[i].dev == d && _skel_cuda_mods[i].key == key) {
            *out = _skel_cuda_mods[i].mod;
            pthread_mutex_unlock(&_skel_cuda_lock);
            return SKEL_OK;
        }
    pthread_mutex_unlock(&_skel_cuda_lock);
    rc = _skel_cuda_image(src, name, extra, dv->arch_num, &image, &size, &format, &key);
    if (rc != SKEL_OK) return rc;
    t0 = _skel_now();
    rc = _skel_cuda_set(dv);
    if (rc == SKEL_OK) rc = _SKEL_CU(cuModuleLoadData, (out, image));
    _skel_cuda_disk_done(key);      /* the load returned: the entry did not crash it */
    key = _skel_cuda_key(src, extra, dv->arch_num, 0);
    SKEL_FREE(image);
    if (rc != SKEL_OK && format == 0 && (_skel_cu_rc == _SKEL_CU_NO_BINARY_FOR_GPU || _skel_cu_rc == _SKEL_CU_INVALID_IMAGE)) {
        /* the driver rejects NVRTC's machine code: let it JIT the PTX */
        _skel_log(SKEL_LOG_WARN, "cuda: %s: %s; falling back to PTX", name, _skel_errbuf);
        rc = _skel_cuda_nvrtc(src, name, dv->arch_num, 1, extra, &image, &size);
        if (rc == SKEL_OK) rc = _SKEL_CU(cuModuleLoadData, (out, image));
        SKEL_FREE(image);
    }
    if (rc != SKEL_OK) return rc;
    pthread_mutex_lock(&_skel_cuda_lock);
    _skel_cuda_st.module_loads++;
    _skel_cuda_st.load_seconds += _skel_now() - t0;
    if (_skel_cuda_nmods == _skel_cuda_capmods) {
        int cap = _skel_cuda_capmods ? 2 * _skel_cuda_capmods : 64;
        _skel_cuda_mod *m = (_skel_cuda_mod *)SKEL_REALLOC(_skel_cuda_mods, (size_t)cap * sizeof *m);
        if (!m) { pthread_mutex_unlock(&_skel_cuda_lock); return _skel_fail(SKEL_ENOMEM, "cuda: module table"); }
        _skel_cuda_mods = m;
        _skel_cuda_capmods = cap;
    }
    _skel_cuda_mods[_skel_cuda_nmods].key = key;
    _skel_cuda_mods[_skel_cuda_nmods].dev = d;
    _skel_cuda_mods[_skel_cuda_nmods].mod = *out;
    _skel_cuda_nmods++;
    pthread_mutex_unlock(&_skel_cuda_lock);
    return SKEL_OK;
}

/* ---------------------------------------------------------------------
   cuda: device memory as a memory space of the coherence layer
   A container's device copy is a _skel_cuda_buf (the space's void *).
   --------------------------------------------------------------------- */
typedef struct _skel_cuda_buf {
    _skel_CUdeviceptr ptr;
    size_t bytes;
    void *pinned;               /* the host copy this buffer page-locked (for its lifetime), if any */
    double rent;                /* seconds its pageable copies took (guarded by the container's lock) */
} _skel_cuda_buf;

/* Page-locking a container's host copy (SKEL_CUDA_PINNED; manual: "Page-
   locked host copies").  A pageable copy goes through the driver's
   staging buffers: the calling thread copies every byte once more and
   takes a core (and host memory bandwidth) from a split call's host part;
   on the H100 host (bench_split --pinning) a 16 MB upload took 2.1 ms
   pageable and 0.32 ms page-locked.  Registering the memory
   (cuMemHostRegister) gives every later copy the DMA's speed, at a one-off
   price (0.25 ms for 1 MB, 1.1 ms for 16 MB, 9.2 ms for 256 MB there;
   priced from 0.2 ms + 0.035 ms a MB) and its release when the device
   copy goes.  The default rule is the ski
   rental's: a buffer's host copy is page-locked before a copy once its
   pageable copies so far plus this one (estimated from the pageable speed
   seen) take as long as registering and releasing it is estimated to
   take.  So a large container is locked at its first copy (on the H100
   host from about 4 MB: the registration costs less than one pageable
   copy saves), a 1 MB one at its third, a 64 KB one only after some
   25 copies; and a container never pays much more than the better choice
   in hindsight would have.  The prices start from the H100 host's and
   are learned from each copy, registration and release.  Registered
   memory stays within a quarter of the machine's memory.  skel's own host
   copies of 64 KiB or more have pages of their own, so each can be
   locked (the driver refuses a lock that overlaps another); a wrapped
   buffer that shares a page with a locked one stays pageable.  Modes: 0
   never, 1 at the first copy (the old SKEL_CUDA_PINNED=1), 2 the rule
   (default). */
#define _SKEL_CUDA_PIN_MIN ((size_t)1 << 16)    /* smaller copies gain nothing measurable */
#define _SKEL_CUDA_PIN_FIXED 200e-6             /* a registration's fixed price (seconds) */
static int _skel_cuda_pinning = 2;              /* SKEL_CUDA_PINNED, read when the backend is made */
static struct {                                 /* the learned prices (_skel_cuda_lock) */
    double lock, unlock;                        /* seconds a registered byte costs to register, to release */
    double pageable;                            /* bytes a second of a pageable copy */
} _skel_cuda_price = { 0.035e-9, 0.035e-9, 8e9 };
static size_t _skel_cuda_pinned_bytes, _skel_cuda_pin_cap;     /* (_skel_cuda_lock) */

/* Is registering a host copy of `bytes` due now, before a copy of `next`
   seconds (pageable), whose pageable copies so far took `rent` seconds,
   if registering and releasing it costs `per_byte` a byte on top of the
   fixed price?  (mode as _skel_cuda_pinning; `pinned` bytes already
   registered, at most `cap` in all.)  Exposed for tests. */
int _skel_cuda_pin_due(int mode, size_t bytes, double rent, double next, double per_byte, size_t pinned, size_t cap)
{
    if (mode <= 0 || bytes < _SKEL_CUDA_PIN_MIN || pinned > cap || bytes > cap - pinned) return 0;
    return mode == 1 || rent + next >= _SKEL_CUDA_PIN_FIXED + per_byte * (double)bytes;
}

/* price <- the mean of itself and a new measurement */
static void _skel_cuda_learn(double *price, double seen) { *price = 0.5 * (*price + seen); }

/* Tests, benchmarks: the mode from now on; returns the one before. */
int _skel_cuda_test_pinning(int mode)
{
    int old = _skel_cuda_pinning;
    _skel_cuda_pinning = mode;
    return old;
}

/* SKEL_CUDA_PINNED: "0" never, "1" at the first copy, unset or "auto" the
   rule; anything else is reported and taken as the default. */
static int _skel_cuda_pin_mode(const char *v)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    _skel_cuda_pin_cap = pages > 0 && size > 0 ? (size_t)pages / 4 * (size_t)size : (size_t)1 << 30;
    if (!v || !*v || !strcmp(v, "auto")) return 2;
    if (!strcmp(v, "0") || !strcmp(v, "1")) return *v - '0';
    _skel_env_warn("SKEL_CUDA_PINNED=%s: expected 0, 1 or auto; using auto", v);
    return 2;
}
static size_t _skel_cuda_alloc_limit, _skel_cuda_alloc_used;   /* tests: a budget of device bytes */
static _SKEL_TLS int _skel_cuda_space_rc;   /* status of the last failed space operation */
/* Tests: from now on, device allocations beyond `bytes` in total fail as
   out of memory (0: no limit). */
void _skel_cuda_test_alloc_limit(size_t bytes) { _skel_cuda_alloc_limit = bytes; _skel_cuda_alloc_used = 0; }
static int _skel_cuda_budget(size_t bytes)
{
    if (!_skel_cuda_alloc_limit) return SKEL_OK;
    if (_skel_cuda_alloc_used + bytes > _skel_cuda_alloc_limit)
        return _skel_cu_error(_SKEL_CU_OUT_OF_MEMORY, "cuMemAlloc_v2 (test budget)");
    _skel_cuda_alloc_used += bytes;
    return SKEL_OK;
}

/* Device memory (d's context current).  From the device's memory pool
   where it has one: a buffer freed and allocated again - a skel_flush, a
   new vector per iteration, each of the tuner's calls on fresh data - then
   costs no driver allocation.  Freed memory stays in the pool up to
   SKEL_CUDA_POOL_MB after a synchronisation; an allocation the device
   cannot satisfy first gives the pool's idle memory back and tries again. */
static int _skel_cuda_mem(_skel_cuda_dev *d, size_t bytes, _skel_CUdeviceptr *p)
{
    _skel_CUresult r;
    _SKEL_TRY(_skel_cuda_budget(bytes));
    if (!d->pool) return _SKEL_CU(cuMemAlloc_v2, (p, bytes));
    r = _skel_cu_pool.cuMemAllocAsync(p, bytes, NULL);
    if (r == _SKEL_CU_OUT_OF_MEMORY && _skel_cu.cuCtxSynchronize() == _SKEL_CU_SUCCESS &&
        _skel_cu_pool.cuMemPoolTrimTo(d->pool, 0) == _SKEL_CU_SUCCESS)
        r = _skel_cu_pool.cuMemAllocAsync(p, bytes, NULL);
    return r == _SKEL_CU_SUCCESS ? SKEL_OK : _skel_cu_error(r, "cuMemAllocAsync");
}

/* stream-ordered: kernels queued before still use the memory */
static void _skel_cuda_unmem(_skel_cuda_dev *d, _skel_CUdeviceptr p)
{
    if (d->pool) _skel_cu_pool.cuMemFreeAsync(p, NULL);
    else _skel_cu.cuMemFree_v2(p);
}

static int _skel_cuda_alloc(void *ctx, size_t bytes, void **out)
{
    _skel_cuda_dev *d = (_skel_cuda_dev *)ctx;
    _skel_cuda_buf *b = (_skel_cuda_buf *)SKEL_MALLOC(sizeof *b);
    int rc;
    *out = NULL;
    if (!b) return _skel_fail(SKEL_ENOMEM, "cuda: out of host memory");
    memset(b, 0, sizeof *b);
    rc = _skel_cuda_set(d);
    if (rc == SKEL_OK) rc = _skel_cuda_mem(d, bytes, &b->ptr);
    if (rc != SKEL_OK) {
        SKEL_FREE(b);
        _skel_cuda_space_rc = rc;
        if (rc == SKEL_ENOMEM)
            _skel_fail(SKEL_ENOMEM, "cuda: out of device memory on %s (device %d) allocating %zu bytes",
                       d->info.name, d->info.ordinal, bytes);
        return rc;
    }
    b->bytes = bytes;
    *out = b;
    return SKEL_OK;
}

static void _skel_cuda_release(void *ctx, void *p)
{
    _skel_cuda_dev *d = (_skel_cuda_dev *)ctx;
    _skel_cuda_buf *b = (_skel_cuda_buf *)p;
    double t;
    if (!b) return;
    if (_skel_cuda_set(d) == SKEL_OK) {
        _skel_cuda_unmem(d, b->ptr);
        if (b->pinned) {    /* (its bytes leave the count even if the driver refuses: the lock is gone either way) */
            _skel_CUresult r;
            t = _skel_now();
            r = _skel_cu.cuMemHostUnregister(b->pinned);
            t = _skel_now() - t;
            pthread_mutex_lock(&_skel_cuda_lock);
            _skel_cuda_pinned_bytes -= b->bytes;
            _skel_cuda_st.unpins++;
            _skel_cuda_st.unpin_seconds += t;
            if (r == _SKEL_CU_SUCCESS && b->bytes >= ((size_t)1 << 20))
                _skel_cuda_learn(&_skel_cuda_price.unlock, t / (double)b->bytes);
            pthread_mutex_unlock(&_skel_cuda_lock);
        }
    }
    SKEL_FREE(b);
}

/* The space's pin: the coherence layer asks before each copy of `bytes`
   between `host` (the container's host copy, as long as the buffer) and
   buffer p, until the answer is 1: it is page-locked now, or never will
   be by this buffer (mode 0, too small, or the driver refused: e.g.
   another device's buffer registered it first, which serves this one as
   well). */
static int _skel_cuda_pin(void *ctx, void *p, void *host, size_t bytes)
{
    _skel_cuda_dev *d = (_skel_cuda_dev *)ctx;
    _skel_cuda_buf *b = (_skel_cuda_buf *)p;
    _skel_CUresult r;
    double t;
    int due;
    if (_skel_cuda_pinning <= 0 || b->bytes < _SKEL_CUDA_PIN_MIN) return 1;
    pthread_mutex_lock(&_skel_cuda_lock);
    due = _skel_cuda_pin_due(_skel_cuda_pinning, b->bytes, b->rent, (double)bytes / _skel_cuda_price.pageable,
                             _skel_cuda_price.lock + _skel_cuda_price.unlock, _skel_cuda_pinned_bytes, _skel_cuda_pin_cap);
    if (due) _skel_cuda_pinned_bytes += b->bytes;     /* reserved while registering */
    pthread_mutex_unlock(&_skel_cuda_lock);
    if (!due) return 0;
    t = _skel_now();
    r = _skel_cuda_set(d) != SKEL_OK ? _SKEL_CU_ERROR_INVALID_CONTEXT
                                      : _skel_cu.cuMemHostRegister_v2(host, b->bytes, _SKEL_CU_MEMHOSTREGISTER_PORTABLE);
    t = _skel_now() - t;
    pthread_mutex_lock(&_skel_cuda_lock);
    if (r == _SKEL_CU_SUCCESS) {
        b->pinned = host;
        _skel_cuda_st.pins++;
        _skel_cuda_st.pin_seconds += t;
        _skel_cuda_st.bytes_pinned += (double)b->bytes;
        if (b->bytes >= ((size_t)1 << 20))
            _skel_cuda_learn(&_skel_cuda_price.lock, (t > _SKEL_CUDA_PIN_FIXED ? t - _SKEL_CUDA_PIN_FIXED : 0) / (double)b->bytes);
    } else {
        _skel_cuda_pinned_bytes -= b->bytes;
    }
    pthread_mutex_unlock(&_skel_cuda_lock);
    _skel_log(SKEL_LOG_INFO, "cuda: %s %.1f MB host copy on %s after %.2f ms of pageable copies (%.2f ms%s)",
              r == _SKEL_CU_SUCCESS ? "page-locked a" : "could not page-lock a", (double)b->bytes / 1e6, d->place,
              1e3 * b->rent, 1e3 * t, r == _SKEL_CU_SUCCESS ? "" : ": left pageable");
    return 1;
}

/* A copy of `bytes` from t0 to now: its time is the buffer's rent while
   the buffer is pageable, and teaches the pageable speed (copies of 1 MB
   or more: below, the fixed cost of a copy dominates). */
static void _skel_cuda_rent(_skel_cuda_buf *b, double t0, size_t bytes)
{
    double t;
    if (b->pinned || _skel_cuda_pinning != 2) return;
    t = _skel_now() - t0;
    b->rent += t;
    if (bytes >= ((size_t)1 << 20) && t > 0) {
        pthread_mutex_lock(&_skel_cuda_lock);
        _skel_cuda_learn(&_skel_cuda_price.pageable, (double)bytes / t);
        pthread_mutex_unlock(&_skel_cuda_lock);
    }
}

static int _skel_cuda_upload(void *ctx, void *p, size_t off, const void *host, size_t bytes)
{
    _skel_cuda_dev *d = (_skel_cuda_dev *)ctx;
    _skel_cuda_buf *b = (_skel_cuda_buf *)p;
    double t0 = _skel_now();
    _SKEL_TRY(_skel_cuda_set(d));
    if ((_skel_cuda_space_rc = _SKEL_CU(cuMemcpyHtoD_v2, (b->ptr + off, host, bytes))) != SKEL_OK) return _skel_cuda_space_rc;
    _skel_cuda_rent(b, t0, bytes);
    pthread_mutex_lock(&_skel_cuda_lock);
    _skel_cuda_st.uploads++;
    _skel_cuda_st.bytes_up += (double)bytes;
    pthread_mutex_unlock(&_skel_cuda_lock);
    return SKEL_OK;
}

static int _skel_cuda_download(void *ctx, void *host, const void *p, size_t off, size_t bytes)
{
    _skel_cuda_dev *d = (_skel_cuda_dev *)ctx;
    _skel_cuda_buf *b = (_skel_cuda_buf *)p;
    double t0 = _skel_now();
    _SKEL_TRY(_skel_cuda_set(d));
    if ((_skel_cuda_space_rc = _SKEL_CU(cuMemcpyDtoH_v2, (host, b->ptr + off, bytes))) != SKEL_OK) return _skel_cuda_space_rc;
    _skel_cuda_rent(b, t0, bytes);
    pthread_mutex_lock(&_skel_cuda_lock);
    _skel_cuda_st.downloads++;
    _skel_cuda_st.bytes_down += (double)bytes;
    pthread_mutex_unlock(&_skel_cuda_lock);
    return SKEL_OK;
}

/* Every call queued on device d has finished (skel_wait). */
static int _skel_cuda_wait(void *ctx)
{
    _SKEL_TRY(_skel_cuda_set((_skel_cuda_dev *)ctx));
    return _SKEL_CU(cuCtxSynchronize, ());
}

/* The space's time marks (a split's GPU part times): a pair of events
   in stream order, timed by the device itself.  (A host function in
   stream order did this before: its driver thread waited for a core while
   the split's host part held all of them, and stamped the GPU part up to
   0.35 ms late on the H100 host, so refinement moved work to the CPU.)
   Pairs are reused from a per-device free list. */
typedef struct _skel_cuda_tmark {
    _skel_CUevent ev[2];        /* start, end */
    int ended;                  /* the end was queued */
    struct _skel_cuda_tmark *next;
} _skel_cuda_tmark;

static int _skel_cuda_mark_new(_skel_cuda_dev *d, _skel_cuda_tmark **out)
{
    _skel_cuda_tmark *k;
    pthread_mutex_lock(&_skel_cuda_lock);
    if ((k = d->marks) != NULL) d->marks = k->next;
    pthread_mutex_unlock(&_skel_cuda_lock);
    if (!k) {
        if (!(k = (_skel_cuda_tmark *)SKEL_MALLOC(sizeof *k))) return _skel_fail(SKEL_ENOMEM, "cuda: out of host memory");
        memset(k, 0, sizeof *k);
        if (_SKEL_CU(cuEventCreate, (&k->ev[0], 0)) != SKEL_OK) {
            SKEL_FREE(k);
            return SKEL_EDEVICE;
        }
        if (_SKEL_CU(cuEventCreate, (&k->ev[1], 0)) != SKEL_OK) {
            _skel_cu.cuEventDestroy_v2(k->ev[0]);
            SKEL_FREE(k);
            return SKEL_EDEVICE;
        }
    }
    k->ended = 0;
    *out = k;
    return SKEL_OK;
}

static void _skel_cuda_mark_free(_skel_cuda_dev *d, _skel_cuda_tmark *k)
{
    pthread_mutex_lock(&_skel_cuda_lock);
    k->next = d->marks;
    d->marks = k;
    pthread_mutex_unlock(&_skel_cuda_lock);
}

static int _skel_cuda_mark(void *ctx, void **m)
{
    _skel_cuda_dev *d = (_skel_cuda_dev *)ctx;
    _skel_cuda_tmark *k = (_skel_cuda_tmark *)*m;
    int rc;
    _SKEL_TRY(_skel_cuda_set(d));
    if (k) {
        if ((rc = _SKEL_CU(cuEventRecord, (k->ev[1], NULL))) == SKEL_OK) k->ended = 1;
        return rc;
    }
    _SKEL_TRY(_skel_cuda_mark_new(d, &k));
    if ((rc = _SKEL_CU(cuEventRecord, (k->ev[0], NULL))) != SKEL_OK) {
        _skel_cuda_mark_free(d, k);
        return rc;
    }
    *m = k;
    return SKEL_OK;
}

static int _skel_cuda_marked(void *ctx, void *m, double *secs)
{
    _skel_cuda_dev *d = (_skel_cuda_dev *)ctx;
    _skel_cuda_tmark *k = (_skel_cuda_tmark *)m;
    float ms = 0;
    *secs = -1;
    if (k->ended && _skel_cuda_set(d) == SKEL_OK) {
        _skel_CUresult r = _skel_cu.cuEventQuery(k->ev[1]);
        if (r == _SKEL_CU_NOT_READY) return 0;
        if (r == _SKEL_CU_SUCCESS && _skel_cu.cuEventElapsedTime(&ms, k->ev[0], k->ev[1]) == _SKEL_CU_SUCCESS)
            *secs = 1e-3 * (double)ms;
    }
    _skel_cuda_mark_free(d, k);
    return 1;
}

/* tests: time marks on device 0 around `times` memsets of `bytes`
   queued between them: *early is what marked answered right after the
   end mark (0: the work still ran), *secs what it gave after the wait,
   *wall the host's seconds from before the start mark to the wait's end. */
int _skel_cuda_test_marks(size_t bytes, int times, int *early, double *secs, double *wall)
{
    _skel_cuda_dev *d;
    _skel_CUdeviceptr buf = 0;
    void *m = NULL;
    double t0;
    int i, rc;
    _skel_init_gpus();
    if (_skel_cuda_ndevs < 1) return _skel_fail(SKEL_EBACKEND, "cuda: no device");
    d = &_skel_cuda_devs[0];
    _SKEL_TRY(_skel_cuda_set(d));
    _SKEL_TRY(_SKEL_CU(cuMemAlloc_v2, (&buf, bytes)));
    t0 = _skel_now();
    rc = _skel_cuda_mark(d, &m);
    for (i = 0; rc == SKEL_OK && i < times; ++i) rc = _SKEL_CU(cuMemsetD8_v2, (buf, (unsigned char)i, bytes));
    if (rc == SKEL_OK) rc = _skel_cuda_mark(d, &m);
    *early = m ? _skel_cuda_marked(d, m, secs) : -1;
    if (rc == SKEL_OK) rc = _skel_cuda_wait(d);
    *wall = _skel_now() - t0;
    if (m && *early == 0 && _skel_cuda_marked(d, m, secs) != 1) rc = _skel_fail(SKEL_EDEVICE, "cuda: marked after wait");
    _skel_cu.cuMemFree_v2(buf);
    return rc;
}

/* ---------------------------------------------------------------------
   cuda: launching
   --------------------------------------------------------------------- */
static int _skel_cuda_launch(int d, _skel_CUfunction f, size_t grid, unsigned block, unsigned shmem, void **args)
{
    (void)d;
    if (grid == 0) return SKEL_OK;
    if (grid > 0x7fffffffu) grid = 0x7fffffffu;
    _SKEL_TRY(_SKEL_CU(cuLaunchKernel, (f, (unsigned)grid, 1, 1, block, 1, 1, shmem, NULL, args, NULL)));
    pthread_mutex_lock(&_skel_cuda_lock);    /* calls on other devices run at the same time */
    _skel_cuda_st.launches++;
    pthread_mutex_unlock(&_skel_cuda_lock);
    return SKEL_OK;
}

/* ---------------------------------------------------------------------
   cuda: running a call
   skel.h's kernel templates give one program per instance and a launch
   plan per call; this part compiles the program once per (device, block
   size), keeps the module in the instance's backend_data, and executes the
   plan: operands through the coherence layer, scratch buffers reused per
   device, every launch on the legacy default stream (so launches, copies
   and host reads are ordered without extra synchronisation).
   --------------------------------------------------------------------- */
#define _SKEL_CUDA_NFN 6
typedef struct _skel_cuda_kern {
    int dev, want_block, kind, tiling;  /* cache key: device, requested block, generated kind, tiling */
    int block;                  /* block size the program was generated for */
    _skel_CUmodule mod;
    _skel_CUdeviceptr wsym;     /* the module's skel_w (weighted 2D overlap), once looked up */
    int resident;               /* groups of skel_reduce_part an SM holds (wide MapReduce; 0: not asked yet) */
    const char *names[_SKEL_CUDA_NFN];
    _skel_CUfunction fns[_SKEL_CUDA_NFN];
} _skel_cuda_kern;

typedef struct _skel_cuda_inst {
    int n, cap;
    _skel_cuda_kern **k;        /* stable pointers: entries never move */
} _skel_cuda_inst;

static int _skel_cuda_bindex = -1;  /* registry index of "cuda" */
static int _skel_cuda_check_archs[8], _skel_cuda_ncheck;   /* SKEL_CUDA_CHECK */

/* What the generator may assume: device i's limits, or without a device
   (compile checks) those of the reference device of sm_<arch>. */
static void _skel_cuda_opts(const skel_cuda_device_info *i, int arch, int block, int tiling, _skel_kernel_opts *o)
{
    memset(o, 0, sizeof *o);
    if (!i) _skel_gpu_ref_limits(arch, o);
    o->block = block > 0 ? block : 256;
    if (i && o->block > i->max_threads_per_block) o->block = i->max_threads_per_block;
    o->shuffle = SKEL_GPU_SHUFFLE;
    o->ov3_vec = SKEL_GPU_OV3_VEC;
    o->tiling = tiling;
    if (i) {
        o->compute_units = i->sms;
        o->regs_per_unit = i->regs_per_sm;
        o->regs_per_group = i->regs_per_block;
        o->threads_per_unit = i->max_threads_per_sm;
        o->groups_per_unit = i->max_blocks_per_sm;
        o->local_per_unit = i->shared_per_sm > 0 ? (size_t)i->shared_per_sm : 0;
    }
    if (o->compute_units <= 0) o->compute_units = 132;
    /* statically sized __shared__ arrays: 48 KiB whatever the opt-in limit */
    o->local_mem = i && i->shared_per_block > 0 && i->shared_per_block < 49152 ? (size_t)i->shared_per_block : 49152;
}

/* The program text for gen with opts, halving the block size while a tile
   does not fit in shared memory (wide overlaps, 8-byte types at 1024). */
static int _skel_cuda_source(const skel_skeleton *gen, _skel_kernel_opts *o, char **src)
{
    int rc;
    for (;;) {
        rc = _skel_kernel_source(gen, _SKEL_DIALECT_CUDA, o, src);
        if (rc != SKEL_EUNSUPPORTED || o->block <= 64) return rc;
        o->block /= 2;
    }
}

/* The compiled program of instance sk on device d. */
static int _skel_cuda_kernels(skel_skeleton *sk, int d, int want_block, int tiling, _skel_cuda_kern **out)
{
    int kind = sk->kind;
    struct _skel_inst_state *st = _skel_state(sk);
    _skel_cuda_inst *in;
    _skel_cuda_kern *k;
    skel_skeleton gen;
    _skel_kernel_opts o;
    char *src = NULL, name[160], cap[32];
    int i, rc;
    if (!st) return _skel_fail(SKEL_ENOMEM, "cuda: out of memory");
    pthread_mutex_lock(&_skel_cuda_lock);
    in = (_skel_cuda_inst *)st->backend_data[_skel_cuda_bindex];
    for (i = 0; in && i < in->n; ++i) {
        k = in->k[i];
        if (k->dev == d && k->want_block == want_block && k->kind == kind && k->tiling == tiling) {
            pthread_mutex_unlock(&_skel_cuda_lock);
            *out = k;
            return SKEL_OK;
        }
    }
    pthread_mutex_unlock(&_skel_cuda_lock);
    gen = *sk;
    _skel_cuda_opts(&_skel_cuda_devs[d].info, 0, want_block, tiling, &o);
    _SKEL_TRY(_skel_cuda_source(&gen, &o, &src));
    k = (_skel_cuda_kern *)SKEL_MALLOC(sizeof *k);
    if (!k) { SKEL_FREE(src); return _skel_fail(SKEL_ENOMEM, "cuda: out of memory"); }
    memset(k, 0, sizeof *k);
    k->dev = d;
    k->want_block = want_block;
    k->kind = kind;
    k->tiling = tiling;
    k->block = o.block;
    snprintf(name, sizeof name, "skel_%s_%s_b%d_t%d.cu", _skel_kind_name(kind), sk->name, o.block, tiling);
    rc = _skel_cuda_module(d, src, name, _skel_cuda_regcap(o.block, cap), &k->mod);
    SKEL_FREE(src);
    if (rc != SKEL_OK) { SKEL_FREE(k); return rc; }
    if (kind == SKEL_KIND_OVERLAP2D && sk->conv) {   /* what the tiling metric estimated, as compiled */
        _skel_CUfunction f;
        int regs = 0, groups = 0;
        if (_skel_cu.cuModuleGetFunction(&f, k->mod, "skel_overlap2d") == _SKEL_CU_SUCCESS) {
            _skel_cu.cuFuncGetAttribute(&regs, _SKEL_CUF_NUM_REGS, f);
            _skel_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&groups, f, k->block, 0);
        }
        _skel_log(SKEL_LOG_INFO, "cuda: %s compiled: %d registers, %d groups of %d per multiprocessor", name, regs,
                  groups, k->block);
    }
    pthread_mutex_lock(&_skel_cuda_lock);
    in = (_skel_cuda_inst *)st->backend_data[_skel_cuda_bindex];
    if (!in && (in = (_skel_cuda_inst *)SKEL_MALLOC(sizeof *in)) != NULL) {
        memset(in, 0, sizeof *in);
        st->backend_data[_skel_cuda_bindex] = in;
    }
    if (in && in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 4;
        _skel_cuda_kern **nk = (_skel_cuda_kern **)SKEL_REALLOC(in->k, (size_t)cap * sizeof *nk);
        if (nk) { in->k = nk; in->cap = cap; }
    }
    if (!in || in->n == in->cap) {
        pthread_mutex_unlock(&_skel_cuda_lock);
        SKEL_FREE(k);   /* the module stays in the global table */
        return _skel_fail(SKEL_ENOMEM, "cuda: out of memory");
    }
    in->k[in->n++] = k;
    pthread_mutex_unlock(&_skel_cuda_lock);
    *out = k;
    return SKEL_OK;
}

static int _skel_cuda_fn(_skel_cuda_kern *k, const char *name, _skel_CUfunction *f)
{
    int i;
    for (i = 0; i < _SKEL_CUDA_NFN && k->names[i]; ++i)
        if (k->names[i] == name || strcmp(k->names[i], name) == 0) { *f = k->fns[i]; return SKEL_OK; }
    _SKEL_TRY(_SKEL_CU(cuModuleGetFunction, (f, k->mod, name)));
    if (i < _SKEL_CUDA_NFN) {   /* benign race: two threads store the same value */
        k->fns[i] = *f;
        k->names[i] = name;
    }
    return SKEL_OK;
}

/* Scratch buffer slot of device d with at least bytes (grown, never shrunk). */
static int _skel_cuda_scratch(_skel_cuda_dev *d, int slot, size_t bytes, _skel_CUdeviceptr *out)
{
    if (d->scratch_cap[slot] < bytes) {
        size_t cap = bytes < 4096 ? 4096 : bytes + bytes / 4;
        if (d->scratch[slot]) _skel_cuda_unmem(d, d->scratch[slot]);
        d->scratch[slot] = 0;
        d->scratch_cap[slot] = 0;
        _SKEL_TRY(_skel_cuda_mem(d, cap, &d->scratch[slot]));
        d->scratch_cap[slot] = cap;
    }
    *out = d->scratch[slot];
    return SKEL_OK;
}

/* A weighted 2D MapOverlap's weights into its module's __constant__
   array skel_w, unless that array already holds them (_skel_wcache).  The
   copy is stream-ordered after the kernels that read the old weights, and
   from the cache's copy: pageable memory is staged before the call returns
   (the caller's could be page-locked, and change while the copy waits). */
static int _skel_cuda_weights(_skel_cuda_dev *dv, _skel_cuda_kern *k, const void *w, size_t bytes)
{
    _skel_CUdeviceptr at = k->wsym;
    size_t have = 0;
    const void *src;
    int rc;
    if (!at) {
        _SKEL_TRY(_SKEL_CU(cuModuleGetGlobal_v2, (&at, &have, k->mod, "skel_w")));
        if (have != bytes) return _skel_fail(SKEL_EDEVICE, "cuda: skel_w holds %zu bytes, the call has %zu", have, bytes);
        k->wsym = at;   /* benign race: two threads store the same value */
    }
    if (dv->weights_at == at && _skel_wcache_holds(&dv->weights, w, bytes)) return SKEL_OK;
    _skel_wcache_keep(&dv->weights, w, bytes);
    dv->weights_at = at;
    src = dv->weights.bytes ? dv->weights.bytes : w;
    rc = _SKEL_CU(cuMemcpyHtoDAsync_v2, (at, src, bytes, NULL));
    if (rc != SKEL_OK) _skel_wcache_forget(&dv->weights);
    return rc;
}

static int _skel_cuda_any_grid(const char *kernel)
{
    return !strcmp(kernel, "skel_map") || !strcmp(kernel, "skel_map_small") || !strcmp(kernel, "skel_maparray") ||
           !strcmp(kernel, "skel_reduce_rows");
}

/* Groups to launch for step st: the variant's grid (0: the plan's) for
   the kernels that take any number, but never more groups than a Map or
   MapArray has work for (its plan's count): a grid of 8448 groups for 5888
   elements launched 8400 groups that only returned. */
static size_t _skel_cuda_groups(const _skel_kstep *st, int grid)
{
    if (grid <= 0 || !_skel_cuda_any_grid(st->kernel)) return st->groups;
    if ((size_t)grid > st->groups && strcmp(st->kernel, "skel_reduce_rows") != 0) return st->groups;
    return (size_t)grid;
}

/* Execute plan p on device d (its context current, its run lock held).
   bufs[_SKEL_BUF_OUT .. _SKEL_BUF_VIEW0 + 3] are the operands (whole
   containers: the plan names the part); the scratch and weights slots are
   filled here.  With a result, its element is copied to call->result. */
static int _skel_cuda_exec(int d, _skel_cuda_kern *k, const skel_skeleton *sk, const skel_call *c,
                           const _skel_kplan *p, _skel_CUdeviceptr *bufs, int grid)
{
    _skel_cuda_dev *dv = &_skel_cuda_devs[d];
    size_t esz = sk->out_t[0]()->size;
    int i, j, na;
    for (i = 0; i < 3; ++i)
        if (p->scratch[i]) _SKEL_TRY(_skel_cuda_scratch(dv, i, p->scratch[i], &bufs[_SKEL_BUF_SCRATCH0 + i]));
    if (p->copy_in0 >= 0)
        _SKEL_TRY(_SKEL_CU(cuMemcpyDtoD_v2, (bufs[_SKEL_BUF_SCRATCH0 + p->copy_in0], bufs[_SKEL_BUF_IN0],
                                            p->scratch[p->copy_in0])));
    if (p->weights_bytes) _SKEL_TRY(_skel_cuda_weights(dv, k, c->weights, p->weights_bytes));
    if (p->state) {
        int how = _skel_dstate_begin(&dv->state, p);
        if (how == _SKEL_DSTATE_GROW) {
            int rc;
            if (dv->state_buf) _skel_cuda_unmem(dv, dv->state_buf);
            dv->state_buf = 0;
            if ((rc = _skel_cuda_mem(dv, dv->state.bytes, &dv->state_buf)) != SKEL_OK) {
                dv->state.bytes = 0;
                return rc;
            }
        }
        if (how != _SKEL_DSTATE_KEEP) _SKEL_TRY(_SKEL_CU(cuMemsetD8_v2, (dv->state_buf, 0, dv->state.bytes)));
        bufs[_SKEL_BUF_STATE] = dv->state_buf;
    }
    /* the kernel writes a scalar result straight into page-locked host
       memory: no copy to wait for after the kernel (several microseconds) */
    if (p->result >= 0 && dv->pinned_result_dev)
        bufs[_SKEL_BUF_SCRATCH0 + p->result] = dv->pinned_result_dev;
    for (i = 0; i < p->nsteps; ++i) {
        const _skel_kstep *st = &p->step[i];
        void *args[_SKEL_KARGS];
        int ints[_SKEL_KARGS];
        unsigned uints[_SKEL_KARGS];
        int64_t idx[_SKEL_KARGS];
        _skel_CUfunction f;
        _SKEL_TRY(_skel_cuda_fn(k, st->kernel, &f));
        for (j = 0, na = 0; j < st->nargs; ++j) {
            const _skel_karg *a = &st->arg[j];
            switch (a->kind) {
            case _SKEL_ARG_BUF:
                if (a->buf == _SKEL_BUF_WEIGHTS) continue;     /* the module's skel_w: no parameter */
                args[na] = &bufs[a->buf];
                break;
            case _SKEL_ARG_INDEX: idx[j] = a->value; args[na] = &idx[j]; break;
            case _SKEL_ARG_INT: ints[j] = (int)a->value; args[na] = &ints[j]; break;
            case _SKEL_ARG_UINT:
            case _SKEL_ARG_BASE:
            case _SKEL_ARG_EPOCH: uints[j] = (unsigned)_skel_karg_value(a, &dv->state); args[na] = &uints[j]; break;
            case _SKEL_ARG_ELEM: args[na] = (void *)a->elem; break;
            case _SKEL_ARG_WEIGHTS: args[na] = (void *)c->weights; break;   /* only with opts.arg_bytes */
            default: args[na] = (void *)c->uniform; break;
            }
            na++;
        }
        _SKEL_TRY(_skel_cuda_launch(d, f, _skel_cuda_groups(st, grid), (unsigned)(st->local ? st->local : k->block), 0,
                                    args));
    }
    /* every step launched: the next kernel that uses the state runs after
       them (one stream; a kernel that faults poisons the context for every
       later call anyway) */
    if (p->state) _skel_dstate_end(&dv->state, p);
    if (p->result >= 0) {
        if (dv->pinned_result_dev) {
            _SKEL_TRY(_SKEL_CU(cuCtxSynchronize, ()));
            memcpy(c->result, dv->pinned_result, esz);
        } else
            _SKEL_TRY(_SKEL_CU(cuMemcpyDtoH_v2, (c->result, bufs[_SKEL_BUF_SCRATCH0 + p->result], esz)));
    }
    return SKEL_OK;
}

/* The device pointers of the operands part sh of call c uses on device d,
   its ranges brought there (run lock held, context current). */
static int _skel_cuda_operands(const skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, int d,
                               _skel_CUdeviceptr *bufs)
{
    _skel_opbufs ops;
    int i;
    memset(bufs, 0, sizeof(_skel_CUdeviceptr) * _SKEL_NBUFS);
    _SKEL_TRY(_skel_part_acquire(sk, c, sh, _skel_cuda_devs[d].space, &ops));
    for (i = 0; i < SKEL_MAX_OUT; ++i)
        if (ops.out[i]) bufs[_SKEL_BUF_OUT + i] = ((_skel_cuda_buf *)ops.out[i])->ptr;
    for (i = 0; i < SKEL_MAX_IN; ++i)
        if (ops.in[i]) bufs[_SKEL_BUF_IN0 + i] = ((_skel_cuda_buf *)ops.in[i])->ptr;
    for (i = 0; i < SKEL_MAX_VIEWS; ++i)
        if (ops.view[i]) bufs[_SKEL_BUF_VIEW0 + i] = ((_skel_cuda_buf *)ops.view[i])->ptr;
    return SKEL_OK;
}

/* The kernels of sk on device v->device and the launches part sh of
   call c needs there. */
static int _skel_cuda_planned(skel_skeleton *sk, const skel_call *c, const _skel_shape *sh, const _skel_variant *v,
                              _skel_cuda_kern **k, _skel_kplan *plan)
{
    _skel_kernel_opts o;
    _SKEL_TRY(_skel_cuda_kernels(sk, v->device, v->block, v->tiling, k));
    _skel_cuda_opts(&_skel_cuda_devs[v->device].info, 0, (*k)->block, v->tiling, &o);
    if (_skel_reduce_wide(sk)) {    /* the grid is what the SMs hold of the compiled kernel */
        if (!(*k)->resident) {      /* (benign race: two threads store the same value) */
            _skel_CUfunction f;
            int n = 0;
            if (_skel_cuda_fn(*k, "skel_reduce_part", &f) == SKEL_OK)
                _skel_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, (*k)->block, 0);
            (*k)->resident = n > 0 ? n : -1;
        }
        o.reduce_resident = (*k)->resident;
    }
    return _skel_kernel_plan(sk, c, sh, &o, plan);
}

/* Part sh of call c on device v->device (a whole call, or one part of a
   split): the kernels queued on the device's stream, nothing waited for
   but a scalar result. */
static int _skel_cuda_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk, const skel_call *c,
                          const _skel_shape *sh)
{
    int d = v->device;
    _skel_cuda_dev *dv = &_skel_cuda_devs[d];
    _skel_cuda_kern *k;
    _skel_kplan plan;
    _skel_CUdeviceptr bufs[_SKEL_NBUFS];
    int rc;
    (void)b;
    _SKEL_TRY(_skel_cuda_planned(sk, c, sh, v, &k, &plan));
    pthread_mutex_lock(&dv->run_lock);
    rc = _skel_cuda_set(dv);
    if (rc == SKEL_OK) rc = _skel_cuda_operands(sk, c, sh, d, bufs);
    if (rc == SKEL_OK) rc = _skel_cuda_exec(d, k, sk, c, &plan, bufs, v->grid);
    pthread_mutex_unlock(&dv->run_lock);
    return rc;
}

/* Before a split's parts run: the kernels, the operands' device copies
   and the plan's scratch buffers of part sh on device v->device (no data
   moves). */
static int _skel_cuda_prepare(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk, const skel_call *c,
                              const _skel_shape *sh)
{
    int i, rc;
    _skel_cuda_dev *dv = &_skel_cuda_devs[v->device];
    _skel_cuda_kern *k;
    _skel_kplan plan;
    _skel_CUdeviceptr scratch;
    (void)b;
    _SKEL_TRY(_skel_cuda_planned(sk, c, sh, v, &k, &plan));
    pthread_mutex_lock(&dv->run_lock);
    rc = _skel_cuda_set(dv);
    if (rc == SKEL_OK) rc = _skel_part_alloc(sk, c, dv->space);
    for (i = 0; rc == SKEL_OK && i < 3; ++i)
        if (plan.scratch[i]) rc = _skel_cuda_scratch(dv, i, plan.scratch[i], &scratch);
    pthread_mutex_unlock(&dv->run_lock);
    return rc;
}

/* ---- compile checks (no GPU needed) ---- */
typedef struct _skel_cuda_job {
    const char *src, *name, *extra;
    int arch, rc;
    char err[1024];
} _skel_cuda_job;

static int _skel_cuda_job_run(void *p)
{
    _skel_cuda_job *j = (_skel_cuda_job *)p;
    j->rc = _skel_cuda_compile_check(j->src, j->name, j->extra, j->arch);
    if (j->rc != SKEL_OK) snprintf(j->err, sizeof j->err, "%s", _skel_errbuf);
    return j->rc;
}

/* Generate every kernel call c of sk needs with block `block` and tiling
   for each of the archs (with the limits of that architecture's reference
   device: the tiling metrics depend on them) and compile each,
   concurrently (pool tasks: skel starts no threads of its own outside the
   pool); also check that each kernel the plan launches is in the program.
   A program already compiled for an arch is not compiled again. */
static int _skel_cuda_check_call(skel_skeleton *sk, const skel_call *c, int block, int tiling, const int *archs,
                                 int narchs)
{
    static uint64_t seen[4096];
    static int nseen;
    _skel_cuda_job jobs[8];
    _skel_task tasks[8];
    int submitted[8] = { 0 }, unseen[8] = { 0 };   /* unseen: not yet compiled for that arch */
    char *srcs[8] = { NULL }, names[8][160], caps[8][32];
    uint64_t keys[8];
    _skel_kernel_opts o;
    _skel_kplan plan;
    _skel_shape sh;
    int i, k, rc = SKEL_OK;
    _SKEL_TRY(_skel_check(sk, c, &sh));
    if (narchs > 8) narchs = 8;
    for (i = 0; i < narchs && rc == SKEL_OK; ++i) {
        _skel_cuda_opts(NULL, archs[i], block, tiling, &o);
        if ((rc = _skel_cuda_source(sk, &o, &srcs[i])) != SKEL_OK) break;
        _skel_cuda_opts(NULL, archs[i], o.block, tiling, &o);
        rc = _skel_kernel_plan(sk, c, &sh, &o, &plan);
        for (k = 0; rc == SKEL_OK && k < plan.nsteps; ++k)
            if (!strstr(srcs[i], plan.step[k].kernel))
                rc = _skel_fail(SKEL_ECOMPILE, "cuda: %s: the plan launches %s, which its program lacks", sk->name,
                                plan.step[k].kernel);
        keys[i] = _skel_hash_str(_SKEL_HASH_SEED + (uint64_t)archs[i], srcs[i]);
        pthread_mutex_lock(&_skel_cuda_lock);
        for (k = 0; k < nseen && seen[k] != keys[i]; ++k) {}
        unseen[i] = k == nseen;
        pthread_mutex_unlock(&_skel_cuda_lock);
        snprintf(names[i], sizeof names[i], "skel_%s_%s_b%d.cu", _skel_kind_name(sk->kind), sk->name, o.block);
        jobs[i].src = srcs[i];
        jobs[i].name = names[i];
        jobs[i].arch = archs[i];
        jobs[i].extra = _skel_cuda_regcap(o.block, caps[i]);
        jobs[i].rc = SKEL_OK;
    }
    for (i = 1; rc == SKEL_OK && i < narchs; ++i)
        if (unseen[i]) {
            _skel_pool_submit(&tasks[i], _skel_cuda_job_run, &jobs[i]);
            submitted[i] = 1;
        }
    if (rc == SKEL_OK && narchs > 0 && unseen[0]) _skel_cuda_job_run(&jobs[0]);
    for (i = 0; i < narchs; ++i) {
        if (submitted[i]) _skel_task_wait(&tasks[i]);     /* runs it here if no worker took it yet */
        if (rc == SKEL_OK && unseen[i] && jobs[i].rc != SKEL_OK) {
            rc = jobs[i].rc;
            snprintf(_skel_errbuf, sizeof _skel_errbuf, "%s", jobs[i].err);
        }
    }
    for (i = 0; i < narchs; ++i) {
        if (rc == SKEL_OK && unseen[i]) {
            pthread_mutex_lock(&_skel_cuda_lock);
            if (nseen < 4096) seen[nseen++] = keys[i];
            pthread_mutex_unlock(&_skel_cuda_lock);
        }
        SKEL_FREE(srcs[i]);
    }
    return rc;
}

/* Tests: compile what call c of sk would run with `block`, for sm_<arch>, no GPU needed. */
int _skel_cuda_instance_check(skel_skeleton *sk, const skel_call *call, int arch, int block)
{
    _skel_init_gpus();
    if (!_skel_nvrtc_load()) return _skel_fail(SKEL_EBACKEND, "cuda: NVRTC is not available");
    return _skel_cuda_check_call(sk, call, block, 0, &arch, 1);
}

/* The "cuda-check" backend: compile, then compute on one CPU core. */
static int _skel_cuda_check_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                                const skel_call *c, const _skel_shape *sh)
{
    (void)b;
    _SKEL_TRY(_skel_cuda_check_call(sk, c, v->block, v->tiling, _skel_cuda_check_archs, _skel_cuda_ncheck));
    return _skel_backends[0].run(&_skel_backends[0], v, sk, c, sh);
}

/* ---------------------------------------------------------------------
   cuda: registration
   --------------------------------------------------------------------- */
static int _skel_cuda_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk, const skel_call *c,
                          const _skel_shape *sh);
static int _skel_cuda_prepare(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk, const skel_call *c,
                              const _skel_shape *sh);
static int _skel_cuda_candidates(const _skel_backend *b, skel_variant *out, int max);
static int _skel_cuda_check_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk,
                                const skel_call *c, const _skel_shape *sh);
static char _skel_cuda_absent[256] = "cuda backend not registered yet";

/* SKEL_CUDA_CHECK=sm_80,sm_90: the compile-check backend (no GPU needed).
   Every name must be an architecture this NVRTC builds for (sm_9999 would
   otherwise be compiled for the nearest one it knows); a bad value is
   refused whole, and the backend's absence says why. */
static void _skel_cuda_register_check(void)
{
    const char *env = getenv("SKEL_CUDA_CHECK"), *s = env;
    char why[256] = "";
    int known[128], nknown = 0, i, a;
    _skel_backend b;
    if (!s || !*s) {
        _skel_backend_absent("cuda-check", "SKEL_CUDA_CHECK is not set (e.g. SKEL_CUDA_CHECK=sm_80,sm_90)");
        return;
    }
    if (!_skel_nvrtc_load()) {
        _skel_backend_absent("cuda-check", "NVRTC not found (libnvrtc.so.13/.12/.11, /usr/local/cuda/lib64)");
        _skel_env_warn("SKEL_CUDA_CHECK=%s: NVRTC not found; no cuda-check backend", env);
        return;
    }
    if (_skel_nvrtc.nvrtcGetNumSupportedArchs(&nknown) != 0 || nknown <= 0 || nknown > 128 ||
        _skel_nvrtc.nvrtcGetSupportedArchs(known) != 0)
        nknown = 0;
    while (*s && !why[0]) {
        int digits = 0;
        if (strncmp(s, "sm_", 3) == 0) s += 3;
        for (a = 0; *s >= '0' && *s <= '9' && digits < 5; ++digits) a = a * 10 + (*s++ - '0');
        if (digits < 2 || digits > 4 || (*s && *s != ',')) {
            snprintf(why, sizeof why, "SKEL_CUDA_CHECK=%s: not a list of sm_XY names", env);
            break;
        }
        for (i = 0; i < nknown && known[i] != a; ++i) {}
        if (nknown && i == nknown)
            snprintf(why, sizeof why, "SKEL_CUDA_CHECK=%s: NVRTC %d.%d does not build sm_%d (it knows sm_%d .. sm_%d)", env,
                     _skel_nvrtc_major, _skel_nvrtc_minor, a, known[0], known[nknown - 1]);
        else if (_skel_cuda_ncheck < 8) _skel_cuda_check_archs[_skel_cuda_ncheck++] = a;
        if (*s == ',') ++s;
    }
    if (why[0]) {
        _skel_cuda_ncheck = 0;
        _skel_backend_absent("cuda-check", why);
        _skel_env_warn("%s; no cuda-check backend", why);
        return;
    }
    memset(&b, 0, sizeof b);
    b.name = "cuda-check";
    b.run = _skel_cuda_check_run;
    snprintf(b.info, sizeof b.info, "NVRTC %d.%d compile check, CPU execution", _skel_nvrtc_major, _skel_nvrtc_minor);
    _skel_backend_register(&b);
}

/* SKEL_CUDA_STATS=1: the counters on stderr at exit. */
static void _skel_cuda_print_stats(void)
{
    skel_cuda_stats s;
    skel_cuda_stats_get(&s);
    fprintf(stderr, "skel cuda: %ld compilations (%.1f ms each), %ld disk-cache loads, %ld module loads "
            "(%.2f ms each), %ld cache writes, %ld rejected; %ld uploads (%.1f MB), %ld downloads (%.1f MB), "
            "%ld launches; %ld host copies page-locked (%.1f MB, %.2f ms), %ld released (%.2f ms)\n", s.compiles, s.compiles ? 1e3 * s.compile_seconds / (double)s.compiles : 0.0,
            s.disk_loads, s.module_loads, (s.disk_loads + s.module_loads) ? 1e3 * s.load_seconds / (double)(s.disk_loads + s.module_loads) : 0.0,
            s.disk_writes, s.disk_rejects, s.uploads, s.bytes_up / 1e6, s.downloads, s.bytes_down / 1e6, s.launches,
            s.pins, s.bytes_pinned / 1e6, 1e3 * s.pin_seconds, s.unpins, 1e3 * s.unpin_seconds);
}

/* Load the libraries, open the selected devices, register their memory
   spaces and the backend.  Runs once, from the registry's initialisation. */
/* Memory pools for one device (the split calls of several copy between
   devices with cuMemcpyPeer, which pool memory would need access grants
   for): its default pool, keeping SKEL_CUDA_POOL_MB (default 1024; 0: no
   pool) of freed memory. */
static void _skel_cuda_pools(void)
{
    const char *missing = NULL;
    _skel_cuda_dev *d = &_skel_cuda_devs[0];
    int mb = _skel_env_int("SKEL_CUDA_POOL_MB", 1024);
    uint64_t keep = (uint64_t)(mb > 0 ? mb : 0) << 20;
    if (_skel_cuda_ndevs != 1 || !keep || _skel_cuda_attr(d->dev, _SKEL_CUA_MEMORY_POOLS) != 1 ||
        !_skel_cuda_bind(_skel_cu_lib, _skel_cu_pool_syms, sizeof _skel_cu_pool_syms / sizeof *_skel_cu_pool_syms,
                         &_skel_cu_pool, &missing))
        return;
    if (_skel_cu_pool.cuDeviceGetDefaultMemPool(&d->pool, d->dev) != _SKEL_CU_SUCCESS ||
        _skel_cu_pool.cuMemPoolSetAttribute(d->pool, _SKEL_CU_POOL_RELEASE_THRESHOLD, &keep) != _SKEL_CU_SUCCESS) {
        d->pool = NULL;
        return;
    }
    _skel_log(SKEL_LOG_INFO, "cuda: device memory from the default pool, keeping up to %llu MiB freed",
              (unsigned long long)(keep >> 20));
}

static void _skel_cuda_provide(void)
{
    static int done;
    int n = 0, i, rc;
    _skel_backend b;
    char more[48] = "";
    if (done++) return;
    if (_skel_env_int("SKEL_CUDA_STATS", 0) > 0) atexit(_skel_cuda_print_stats);
    _skel_cuda_pinning = _skel_cuda_pin_mode(getenv("SKEL_CUDA_PINNED"));
    _skel_cuda_register_check();
    if (!_skel_nvrtc_load()) snprintf(_skel_cuda_absent, sizeof _skel_cuda_absent, "NVRTC not found");
    else if (!_skel_cu_load()) snprintf(_skel_cuda_absent, sizeof _skel_cuda_absent, "libcuda.so.1 not found");
    else if ((rc = _SKEL_CU(cuInit, (0))) != SKEL_OK || (rc = _SKEL_CU(cuDeviceGetCount, (&n))) != SKEL_OK || n <= 0) {
        snprintf(_skel_cuda_absent, sizeof _skel_cuda_absent, "no CUDA device (%.200s)",
                 rc != SKEL_OK ? _skel_errbuf : "cuDeviceGetCount: 0");
        _skel_log(SKEL_LOG_INFO, "cuda: %s", _skel_cuda_absent);
    }
    if (n <= 0) {
        _skel_backend_absent("cuda", _skel_cuda_absent);
        return;
    }
    _skel_cu.cuDriverGetVersion(&_skel_cu_driver_version);
    for (i = 0; i < n && _skel_cuda_ndevs < _SKEL_CUDA_MAX_DEVICES; ++i) {
        _skel_cuda_dev *d = &_skel_cuda_devs[_skel_cuda_ndevs];
        _skel_space sp;
        if (!_skel_cuda_selected(i)) continue;
        if (_skel_cuda_probe(i, d) != SKEL_OK || _SKEL_CU(cuDevicePrimaryCtxRetain, (&d->ctx, d->dev)) != SKEL_OK) {
            _skel_log(SKEL_LOG_WARN, "cuda: skipping device %d: %s", i, _skel_errbuf);
            continue;
        }
        pthread_mutex_init(&d->run_lock, NULL);
        if (_skel_cuda_set(d) != SKEL_OK || _skel_cu.cuMemAllocHost_v2(&d->pinned_result, 64) != _SKEL_CU_SUCCESS)
            d->pinned_result = NULL;
        else if (_skel_cu.cuMemHostGetDevicePointer_v2(&d->pinned_result_dev, d->pinned_result, 0) != _SKEL_CU_SUCCESS)
            d->pinned_result_dev = 0;
        memset(&sp, 0, sizeof sp);
        snprintf(d->place, sizeof d->place, "cuda:%d", _skel_cuda_ndevs);
        sp.name = d->place;
        sp.backend = "cuda";
        sp.device = _skel_cuda_ndevs;
        sp.ctx = d;
        sp.alloc = _skel_cuda_alloc;
        sp.release = _skel_cuda_release;
        sp.upload = _skel_cuda_upload;
        sp.download = _skel_cuda_download;
        sp.pin = _skel_cuda_pin;
        sp.wait = _skel_cuda_wait;
        sp.mark = _skel_cuda_mark;
        sp.marked = _skel_cuda_marked;
        if ((d->space = _skel_space_register(&sp)) < 0) break;
        _skel_log(SKEL_LOG_INFO, "cuda: device %d: %s, %s, %d SMs, %.1f GiB, %d KiB shared/block (%d opt-in), %d regs/block",
                  i, d->info.name, d->arch, d->info.sms, (double)d->info.memory / (1 << 30),
                  d->info.shared_per_block >> 10, d->info.shared_per_block_optin >> 10, d->info.regs_per_block);
        _skel_cuda_ndevs++;
    }
    if (!_skel_cuda_ndevs) {
        snprintf(_skel_cuda_absent, sizeof _skel_cuda_absent, "no usable CUDA device (SKEL_CUDA_DEVICES=%s)",
                 getenv("SKEL_CUDA_DEVICES") ? getenv("SKEL_CUDA_DEVICES") : "");
        _skel_backend_absent("cuda", _skel_cuda_absent);
        return;
    }
    _skel_cuda_pools();
    memset(&b, 0, sizeof b);
    b.name = "cuda";
    b.is_gpu = 1;
    b.space = _skel_cuda_devs[0].space;
    b.run = _skel_cuda_run;
    b.prepare = _skel_cuda_prepare;
    b.candidates = _skel_cuda_candidates;
    if (_skel_cuda_ndevs > 1) snprintf(more, sizeof more, " (+%d more)", _skel_cuda_ndevs - 1);
    snprintf(b.info, sizeof b.info, "%s%s, %s, %d SMs, driver %d.%d, NVRTC %d.%d", _skel_cuda_devs[0].info.name, more,
             _skel_cuda_devs[0].arch, _skel_cuda_devs[0].info.sms, _skel_cu_driver_version / 1000,
             _skel_cu_driver_version % 1000 / 10, _skel_nvrtc_major, _skel_nvrtc_minor);
    _skel_log(SKEL_LOG_INFO, "cuda: driver %d.%d, NVRTC %d.%d", _skel_cu_driver_version / 1000,
              _skel_cu_driver_version % 1000 / 10, _skel_nvrtc_major, _skel_nvrtc_minor);
    rc = _skel_backend_register(&b);
    for (i = 0; i < _skel_cuda_ndevs; ++i) _skel_cuda_devs[i].backend = rc;
    _skel_cuda_bindex = rc;
    _skel_cuda_absent[0] = 0;
}

int _skel_cuda_candidates_get(skel_variant *out, int max)
{
    _skel_init_gpus();
    return _skel_cuda_ndevs ? _skel_cuda_candidates(NULL, out, max) : 0;
}

int skel_cuda_register(void)
{
    _skel_provider_add(_skel_cuda_provide);     /* a no-op when the constructor added it */
    _skel_init_gpus();
    if (_skel_cuda_ndevs == 0) return _skel_fail(SKEL_EBACKEND, "cuda: backend unavailable: %s", _skel_cuda_absent);
    return SKEL_OK;
}

#if defined(__GNUC__)
__attribute__((constructor)) static void _skel_cuda_ctor(void) { _skel_provider_add(_skel_cuda_provide); }
#endif

/* Tuning candidates: 128..1024 threads per block x two grid sizes (one
   full wave of resident blocks, and 4 waves), plus the split over every
   selected device when there are several. */
static int _skel_cuda_candidates(const _skel_backend *b, skel_variant *out, int max)
{
    static const int blocks[] = { 128, 256, 512, 1024 };
    const skel_cuda_device_info *i = &_skel_cuda_devs[0].info;
    int k, g, n = 0;
    (void)b;
    for (k = 0; k < 4; ++k) {
        int wave = i->sms * (i->max_threads_per_sm / blocks[k] > 0 ? i->max_threads_per_sm / blocks[k] : 1);
        if (blocks[k] > i->max_threads_per_block) continue;
        for (g = 0; g < 2 && n < max; ++g) {
            memset(&out[n], 0, sizeof out[n]);
            out[n].backend = "cuda";
            out[n].block = blocks[k];
            out[n].grid = g ? 4 * wave : wave;
            ++n;
        }
    }
    if (_skel_cuda_ndevs > 1 && n < max) {
        memset(&out[n], 0, sizeof out[n]);
        out[n].backend = "cuda";
        out[n].devices = _skel_cuda_ndevs;
        ++n;
    }
    return n;
}

#endif /* SKEL_CUDA implementation */
