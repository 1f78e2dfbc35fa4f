/* skel_cl.h - the OpenCL backend of skel, loaded at run time.

   Adds the backend "opencl" to skel.h: every skeleton runs on an OpenCL
   device (a GPU, or the CPU through PoCL) with kernels generated from
   skel.h's portable templates plus the user function's source, built with
   clBuildProgram for the selected device.  Nothing of OpenCL is needed to
   build: libOpenCL.so.1 (the ICD loader) is opened with dlopen; where it
   or a device is missing the backend is simply absent and skel runs on
   the CPU backends.

   USE
       In the one .c file that defines SKEL_IMPLEMENTATION:
           #define SKEL_IMPLEMENTATION
           #include "skel.h"
           #include "skel_cl.h"
       (SKEL_CL_IMPLEMENTATION alone also works in a file that implements
       skel.h.)  The backend adds itself to skel's registry before main
       (GCC/Clang constructor; with other compilers call skel_cl_register()
       before the first skeleton call); the OpenCL loader is opened when a
       GPU is first needed (skel.h, BACKENDS), never by a program that runs
       on the CPU.  Link -ldl -lpthread -lm as for skel.h.

       SKEL_FUNC(float, add, (float a, float b), return a + b;)
       SKEL_REDUCE(sum, add, float)
       ...
       skel_plan_add(plan, 0, SIZE_MAX, &(skel_variant){ .backend = "opencl" });
       skel_set_plan(sum, plan);          // or SKEL_BACKEND=opencl
       skel_reduce(sum, v, &r);

   WHAT RUNS WHERE
       Containers get a copy in an OpenCL buffer (a memory space of the
       coherence layer): a call uploads an operand only when the device has
       no valid copy, leaves its result on the device, and the host copy is
       refreshed only when the host reads (skel_read) - so a chain of calls
       moves the data once.  Calls are queued asynchronously (in order);
       skel_read, a scalar result (unless it goes to call.out, a 1-element
       vector), skel_wait / skel_wait_all or skel_cl_finish() waits for
       them.  A
       variant {"opencl", .block} sets the work-group size (64..1024, a power
       of two; 0: 256); a Map or MapArray with fewer than 4 groups a
       compute unit runs in smaller groups (down to 32), as in skel_cuda.h.
       .tiling: a SKEL_CONV2D's register tiling (skel.h, 2D CONVOLUTION);
       NVIDIA's devices report their compute capability and registers
       (cl_nv_device_attribute_query), the rest of the limits are their
       architecture's; other devices get the metric's defaults.
       User functions follow skel.h's rules; pointer
       parameters get their OpenCL address space from the generator.
       double needs cl_khr_fp64 (SKEL_EUNSUPPORTED where the device lacks it).

   PROGRAM CACHE
       Built programs are kept per instance in memory and their binaries
       (CL_PROGRAM_BINARIES) on disk, in the cache directory shared with the
       CUDA backend, keyed by a hash of the generated source, the build
       options, the platform, the device and its driver version: a second
       run of a program builds nothing.  Entries carry a checksum: a
       truncated or corrupted entry is reported (log) and rebuilt, and so
       is one whose load did not return in an earlier process: an entry is
       marked <entry>.loading while the driver loads it, so a binary that
       crashes the driver (PoCL asserts on some) crashes one run, not
       every later one.  Entries are read only when they are regular
       files; writes go to a new temporary file (created exclusively,
       never through a planted link), then rename; an unwritable
       directory only costs build time.

   ENVIRONMENT
       SKEL_OPENCL_DEVICE=p:d   platform p, device d (indices as in
                                skel_cl_device_get), or a substring of the
                                device or platform name; default: the first
                                GPU, else the first device of any type
       SKEL_CACHE_DIR=dir       program cache (else $XDG_CACHE_HOME/skel, else
                                ~/.cache/skel); SKEL_CACHE_DIR=off disables it
       SKEL_VERBOSE=1           logs platforms, the device, builds, cache hits
       SKEL_CL_POOL_MB=n        freed container buffers kept for reuse
                                (default 1024; 0: each one released)
       POCL_AFFINITY            set to 1 before OpenCL is loaded, unless
                                already set: PoCL's CPU device then pins
                                its worker threads one per core.  Unpinned,
                                they often shared one core of a 2-vCPU VM:
                                a Taylor Map of 3492 floats on host data
                                took 217-474 us (medians of 41, five runs)
                                instead of 195-240, one of 50 floats
                                118-190 us instead of 56-134; no change at
                                348846 (bench/pocl_pin.c,
                                bench/results/opencl.md).
                                POCL_AFFINITY=0 keeps PoCL's default.

   ERRORS
       A user function that does not compile: SKEL_ECOMPILE with the build
       log in skel_last_error() (and in full in the log).  Every OpenCL call
       is checked; a failure gives SKEL_EDEVICE (SKEL_ENOMEM for allocations)
       naming the call and the error, e.g. "clCreateBuffer:
       CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)".

   VERSION: see skel.h
*/
#ifndef SKEL_CL_H
#define SKEL_CL_H

#include "skel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Register the OpenCL backend now (idempotent).  SKEL_OK when it is
   usable, SKEL_EBACKEND (with the reason in skel_last_error) when not. */
int skel_cl_register(void);

/* One OpenCL device, as enumerated over all platforms. */
typedef struct skel_cl_device_info {
    char name[128], vendor[128], platform[128];
    char version[64];               /* "OpenCL 3.0 ..." */
    char driver[64];                /* driver version */
    int platform_index, device_index;   /* as SKEL_OPENCL_DEVICE=p:d names it */
    int is_gpu, is_cpu, is_accelerator;
    int compute_units;
    size_t global_mem, local_mem, max_alloc;    /* bytes */
    size_t max_work_group;          /* work-items */
    int fp64;                       /* cl_khr_fp64 (or OpenCL 3.0 __opencl_c_fp64) */
} skel_cl_device_info;

/* Devices on all platforms (0 when OpenCL is absent), and their facts. */
int skel_cl_device_count(void);
int skel_cl_device_get(int index, skel_cl_device_info *out);
/* Index of the device the backend uses, or -1 when it is absent. */
int skel_cl_device_selected(void);
/* Wait until every queued call has finished. */
int skel_cl_finish(void);

/* Counters since the program started (for tests and benchmarks). */
typedef struct skel_cl_stats {
    long builds;                    /* programs built from source */
    long disk_loads;                /* programs built from a cached binary */
    long disk_writes;               /* binaries written to the disk cache */
    long disk_rejects;              /* corrupt or unusable cache entries (rebuilt) */
    long uploads, downloads;        /* host <-> device copies of containers */
    long launches;                  /* kernels enqueued */
    long reuses;                    /* container buffers taken from the freed ones kept */
    double build_seconds;           /* spent in clBuildProgram from source */
    double load_seconds;            /* spent loading cached binaries */
} skel_cl_stats;
void skel_cl_stats_get(skel_cl_stats *out);

/* For tests: forget every built program kept in memory, so the next call
   looks in the disk cache again; pretend the device lacks fp64; and take
   CUDA's 16-byte MapOverlap3D kernel on OpenCL too (off by default:
   NVIDIA's OpenCL ran it slower than its marching kernel; on, the tests
   check the template's results on PoCL).  Both forget the programs. */
void skel_cl_forget_programs(void);
void skel_cl_pretend_no_fp64(int on);
void skel_cl_use_ov3_vec(int on);

#ifdef __cplusplus
}
#endif
#endif /* SKEL_CL_H */

/* ======================================================================
   IMPLEMENTATION
   It lives in the translation unit that implements skel.h and uses that
   half's private functions (coherence, registry, kernel templates).
   ====================================================================== */
#if (defined(SKEL_IMPLEMENTATION) || defined(SKEL_CL_IMPLEMENTATION)) && !defined(_SKEL_CL_IMPL_DONE)
#define _SKEL_CL_IMPL_DONE
#ifndef _SKEL_IMPL_DONE
#error "skel_cl.h: include it after skel.h in the file that defines SKEL_IMPLEMENTATION"
#endif

#include <dlfcn.h>
#include <ctype.h>

/* ---------------------------------------------------------------------
   opencl: the subset of the API we use, declared here (no CL headers)
   --------------------------------------------------------------------- */
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_uint cl_bool;
typedef cl_ulong cl_bitfield;
typedef cl_bitfield cl_device_type, cl_mem_flags, cl_command_queue_properties;
typedef cl_uint cl_platform_info, cl_device_info, cl_program_info, cl_program_build_info,
    cl_kernel_work_group_info;
typedef intptr_t cl_context_properties;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

#define _SKEL_CL_PLATFORM_VERSION 0x0901
#define _SKEL_CL_PLATFORM_NAME 0x0902
#define _SKEL_CL_DEVICE_TYPE_CPU (1 << 1)
#define _SKEL_CL_DEVICE_TYPE_GPU (1 << 2)
#define _SKEL_CL_DEVICE_TYPE_ACCELERATOR (1 << 3)
#define _SKEL_CL_DEVICE_TYPE_ALL 0xFFFFFFFFu
#define _SKEL_CL_DEVICE_TYPE 0x1000
#define _SKEL_CL_DEVICE_MAX_COMPUTE_UNITS 0x1002
#define _SKEL_CL_DEVICE_MAX_WORK_GROUP_SIZE 0x1004
#define _SKEL_CL_DEVICE_MAX_MEM_ALLOC_SIZE 0x1010
#define _SKEL_CL_DEVICE_MAX_PARAMETER_SIZE 0x1017
#define _SKEL_CL_DEVICE_GLOBAL_MEM_SIZE 0x101F
#define _SKEL_CL_DEVICE_LOCAL_MEM_SIZE 0x1023
#define _SKEL_CL_DEVICE_NAME 0x102B
#define _SKEL_CL_DEVICE_VENDOR 0x102C
#define _SKEL_CL_DRIVER_VERSION 0x102D
#define _SKEL_CL_DEVICE_VERSION 0x102F
#define _SKEL_CL_DEVICE_EXTENSIONS 0x1030
#define _SKEL_CL_DEVICE_OPENCL_C_VERSION 0x103D
#define _SKEL_CL_MEM_READ_WRITE (1 << 0)
#define _SKEL_CL_MEM_READ_ONLY (1 << 2)
#define _SKEL_CL_MEM_ALLOC_HOST_PTR (1 << 4)
#define _SKEL_CL_MEM_COPY_HOST_PTR (1 << 5)
#define _SKEL_CL_MAP_WRITE (1 << 1)
#define _SKEL_CL_PROGRAM_BINARY_SIZES 0x1165
#define _SKEL_CL_PROGRAM_BINARIES 0x1166
#define _SKEL_CL_PROGRAM_BUILD_LOG 0x1183
#define _SKEL_CL_KERNEL_WORK_GROUP_SIZE 0x11B0
#define _SKEL_CL_BUILD_PROGRAM_FAILURE (-11)
#define _SKEL_CL_MEM_SIZE 0x1102

/* The entry points, filled by dlsym from the name table below. */
typedef struct _skel_cl_api {
    cl_int (*clGetPlatformIDs)(cl_uint, cl_platform_id *, cl_uint *);
    cl_int (*clGetPlatformInfo)(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
    cl_int (*clGetDeviceIDs)(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
    cl_int (*clGetDeviceInfo)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    cl_context (*clCreateContext)(const cl_context_properties *, cl_uint, const cl_device_id *,
                                  void (*)(const char *, const void *, size_t, void *), void *, cl_int *);
    cl_command_queue (*clCreateCommandQueue)(cl_context, cl_device_id, cl_command_queue_properties, cl_int *);
    cl_mem (*clCreateBuffer)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    cl_int (*clReleaseMemObject)(cl_mem);
    cl_int (*clEnqueueWriteBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint,
                                   const cl_event *, cl_event *);
    cl_int (*clEnqueueReadBuffer)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                                  const cl_event *, cl_event *);
    cl_int (*clEnqueueCopyBuffer)(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint,
                                  const cl_event *, cl_event *);
    cl_int (*clEnqueueFillBuffer)(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t, cl_uint,
                                  const cl_event *, cl_event *);
    cl_program (*clCreateProgramWithSource)(cl_context, cl_uint, const char **, const size_t *, cl_int *);
    cl_program (*clCreateProgramWithBinary)(cl_context, cl_uint, const cl_device_id *, const size_t *,
                                            const unsigned char **, cl_int *, cl_int *);
    cl_int (*clBuildProgram)(cl_program, cl_uint, const cl_device_id *, const char *,
                             void (*)(cl_program, void *), void *);
    cl_int (*clGetProgramBuildInfo)(cl_program, cl_device_id, cl_program_build_info, size_t, void *, size_t *);
    cl_int (*clGetProgramInfo)(cl_program, cl_program_info, size_t, void *, size_t *);
    cl_int (*clReleaseProgram)(cl_program);
    cl_kernel (*clCreateKernel)(cl_program, const char *, cl_int *);
    cl_int (*clReleaseKernel)(cl_kernel);
    cl_int (*clSetKernelArg)(cl_kernel, cl_uint, size_t, const void *);
    cl_int (*clGetKernelWorkGroupInfo)(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t, void *, size_t *);
    cl_int (*clEnqueueNDRangeKernel)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                     const size_t *, cl_uint, const cl_event *, cl_event *);
    cl_int (*clFlush)(cl_command_queue);
    cl_int (*clFinish)(cl_command_queue);
    void *(*clEnqueueMapBuffer)(cl_command_queue, cl_mem, cl_bool, cl_bitfield, size_t, size_t, cl_uint,
                                const cl_event *, cl_event *, cl_int *);
    cl_int (*clGetMemObjectInfo)(cl_mem, cl_uint, size_t, void *, size_t *);
} _skel_cl_api;

static const char *const _skel_cl_names[] = {   /* _skel_cl_api's members, in order */
    "clGetPlatformIDs", "clGetPlatformInfo", "clGetDeviceIDs", "clGetDeviceInfo", "clCreateContext",
    "clCreateCommandQueue", "clCreateBuffer", "clReleaseMemObject", "clEnqueueWriteBuffer",
    "clEnqueueReadBuffer", "clEnqueueCopyBuffer", "clEnqueueFillBuffer", "clCreateProgramWithSource",
    "clCreateProgramWithBinary", "clBuildProgram", "clGetProgramBuildInfo", "clGetProgramInfo",
    "clReleaseProgram", "clCreateKernel", "clReleaseKernel", "clSetKernelArg", "clGetKernelWorkGroupInfo",
    "clEnqueueNDRangeKernel", "clFlush", "clFinish", "clEnqueueMapBuffer", "clGetMemObjectInfo"
};

/* the loader fills _skel_cl_api as an array of pointers: the sizes must agree */
typedef char _skel_cl_api_matches_names[sizeof(_skel_cl_api) == sizeof _skel_cl_names / sizeof *_skel_cl_names *
                                        sizeof(void (*)(void)) ? 1 : -1];

/* ---------------------------------------------------------------------
   opencl: state and error reporting
   --------------------------------------------------------------------- */
#define _SKEL_CL_MAX_DEVICES 32
typedef struct _skel_cl_dev {
    skel_cl_device_info info;
    cl_platform_id platform;
    cl_device_id id;
    char platform_version[64], c_version[64];
    size_t max_param;               /* bytes of arguments a kernel may take */
    int nv_arch, nv_regs;           /* NVIDIA: compute capability (90: sm_90), registers a group (0: not NVIDIA) */
} _skel_cl_dev;

static struct {
    _skel_cl_api api;
    void *lib;
    int probed, available, registered;
    int ndev, sel;                  /* devices; the selected one (-1 none) */
    _skel_cl_dev dev[_SKEL_CL_MAX_DEVICES];
    int ready;                      /* context made: 0 not yet, 1 yes, -1 failed */
    char ready_error[1024];
    cl_context ctx;
    cl_command_queue queue;
    int backend, space;             /* registry index, memory space id */
    cl_mem scratch[3];              /* reused between calls (in-order queue) */
    cl_mem state_buf;               /* _SKEL_BUF_STATE ... */
    _skel_dstate state;             /* ... and what it holds */
    cl_mem weights;                 /* _SKEL_BUF_WEIGHTS, ... */
    _skel_wcache weights_held;      /* ... and the weights it holds */
    cl_mem result_stage;            /* page-locked landing place of scalar results ... */
    void *result_host;              /* ... mapped once for good (NULL: read into call.result) */
    int result_tried;               /* the stage was tried (once: a failure is not retried) */
    size_t scratch_bytes[3];
    int no_fp64, ov3_vec;           /* test knobs */
    skel_cl_stats stats;
    struct _skel_cl_prog *programs; /* every built program, for forgetting */
} _skel_cl;
static pthread_mutex_t _skel_cl_lock = PTHREAD_MUTEX_INITIALIZER;     /* one call at a time on the device */
/* _skel_cl.stats: counted from calls, reads of containers (skel_read in any
   thread) and the buffer pool, so under a lock of their own */
static pthread_mutex_t _skel_cl_stats_lock = PTHREAD_MUTEX_INITIALIZER;
#define _SKEL_CL_COUNT(field, amount) \
    do { pthread_mutex_lock(&_skel_cl_stats_lock); _skel_cl.stats.field += (amount); pthread_mutex_unlock(&_skel_cl_stats_lock); } while (0)

static const char *_skel_cl_error_name(cl_int e)
{
    static const char *const low[] = {   /* 0 .. -19 */
        "CL_SUCCESS", "CL_DEVICE_NOT_FOUND", "CL_DEVICE_NOT_AVAILABLE", "CL_COMPILER_NOT_AVAILABLE",
        "CL_MEM_OBJECT_ALLOCATION_FAILURE", "CL_OUT_OF_RESOURCES", "CL_OUT_OF_HOST_MEMORY",
        "CL_PROFILING_INFO_NOT_AVAILABLE", "CL_MEM_COPY_OVERLAP", "CL_IMAGE_FORMAT_MISMATCH",
        "CL_IMAGE_FORMAT_NOT_SUPPORTED", "CL_BUILD_PROGRAM_FAILURE", "CL_MAP_FAILURE",
        "CL_MISALIGNED_SUB_BUFFER_OFFSET", "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
        "CL_COMPILE_PROGRAM_FAILURE", "CL_LINKER_NOT_AVAILABLE", "CL_LINK_PROGRAM_FAILURE",
        "CL_DEVICE_PARTITION_FAILED", "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"
    };
    static const char *const high[] = {  /* -30 .. -70 */
        "CL_INVALID_VALUE", "CL_INVALID_DEVICE_TYPE", "CL_INVALID_PLATFORM", "CL_INVALID_DEVICE",
        "CL_INVALID_CONTEXT", "CL_INVALID_QUEUE_PROPERTIES", "CL_INVALID_COMMAND_QUEUE", "CL_INVALID_HOST_PTR",
        "CL_INVALID_MEM_OBJECT", "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR", "CL_INVALID_IMAGE_SIZE",
        "CL_INVALID_SAMPLER", "CL_INVALID_BINARY", "CL_INVALID_BUILD_OPTIONS", "CL_INVALID_PROGRAM",
        "CL_INVALID_PROGRAM_EXECUTABLE", "CL_INVALID_KERNEL_NAME", "CL_INVALID_KERNEL_DEFINITION",
        "CL_INVALID_KERNEL", "CL_INVALID_ARG_INDEX", "CL_INVALID_ARG_VALUE", "CL_INVALID_ARG_SIZE",
        "CL_INVALID_KERNEL_ARGS", "CL_INVALID_WORK_DIMENSION", "CL_INVALID_WORK_GROUP_SIZE",
        "CL_INVALID_WORK_ITEM_SIZE", "CL_INVALID_GLOBAL_OFFSET", "CL_INVALID_EVENT_WAIT_LIST",
        "CL_INVALID_EVENT", "CL_INVALID_OPERATION", "CL_INVALID_GL_OBJECT", "CL_INVALID_BUFFER_SIZE",
        "CL_INVALID_MIP_LEVEL", "CL_INVALID_GLOBAL_WORK_SIZE", "CL_INVALID_PROPERTY",
        "CL_INVALID_IMAGE_DESCRIPTOR", "CL_INVALID_COMPILER_OPTIONS", "CL_INVALID_LINKER_OPTIONS",
        "CL_INVALID_DEVICE_PARTITION_COUNT", "CL_INVALID_PIPE_SIZE", "CL_INVALID_DEVICE_QUEUE"
    };
    if (e <= 0 && e >= -19) return low[-e];
    if (e <= -30 && e >= -70) return high[-30 - e];
    if (e == -1001) return "CL_PLATFORM_NOT_FOUND_KHR";
    return "unknown OpenCL error";
}

/* The one place an OpenCL status becomes a skel status. */
static int _skel_cl_check(cl_int err, const char *call)
{
    if (err == 0) return SKEL_OK;
    return _skel_fail(err == -4 || err == -6 || err == -5 ? SKEL_ENOMEM : SKEL_EDEVICE, "opencl: %s: %s (%d)",
                      call, _skel_cl_error_name(err), (int)err);
}
/* Call an entry point that returns cl_int; check it with its name. */
#define _SKEL_CL(fn, ...) _skel_cl_check(_skel_cl.api.fn(__VA_ARGS__), #fn)
/* Check the errcode_ret of an entry point that returns an object. */
#define _SKEL_CL_ERR(err, fn) _skel_cl_check((err), #fn)

/* ---------------------------------------------------------------------
   opencl: loading, platforms and devices
   --------------------------------------------------------------------- */
/* A platform (plat != NULL) or device string, cut to fit buf.  It is read
   whole first: a value longer than the buffer makes the query fail
   outright (PoCL 3.1 on an AVX-512 Xeon reports a 66-character device
   version and a 99-character platform version). */
static void _skel_cl_info_str(cl_platform_id plat, cl_device_id d, cl_uint what, char *buf, size_t size)
{
    size_t n = 0;
    char *tmp;
    int rc;
    buf[0] = 0;
    rc = plat ? _skel_cl.api.clGetPlatformInfo(plat, what, 0, NULL, &n) : _skel_cl.api.clGetDeviceInfo(d, what, 0, NULL, &n);
    if (rc != 0 || !n || !(tmp = (char *)SKEL_MALLOC(n + 1))) return;
    rc = plat ? _skel_cl.api.clGetPlatformInfo(plat, what, n, tmp, NULL) : _skel_cl.api.clGetDeviceInfo(d, what, n, tmp, NULL);
    if (rc == 0) {
        tmp[n] = 0;
        snprintf(buf, size, "%s", tmp);
    }
    SKEL_FREE(tmp);
}

static int _skel_cl_has_ext(cl_device_id d, const char *ext)
{
    size_t n = 0;
    char *buf;
    int has = 0;
    if (_skel_cl.api.clGetDeviceInfo(d, _SKEL_CL_DEVICE_EXTENSIONS, 0, NULL, &n) != 0 || !n) return 0;
    if (!(buf = (char *)SKEL_MALLOC(n + 1))) return 0;
    if (_skel_cl.api.clGetDeviceInfo(d, _SKEL_CL_DEVICE_EXTENSIONS, n, buf, NULL) == 0) {
        buf[n] = 0;
        has = strstr(buf, ext) != NULL;
    }
    SKEL_FREE(buf);
    return has;
}

static void _skel_cl_describe(_skel_cl_dev *d)
{
    skel_cl_device_info *i = &d->info;
    cl_device_type type = 0;
    cl_uint cu = 0;
    cl_ulong gm = 0, lm = 0, ma = 0;
    size_t wg = 0;
    _skel_cl_api *a = &_skel_cl.api;
    _skel_cl_info_str(NULL, d->id, _SKEL_CL_DEVICE_NAME, i->name, sizeof i->name);
    _skel_cl_info_str(NULL, d->id, _SKEL_CL_DEVICE_VENDOR, i->vendor, sizeof i->vendor);
    _skel_cl_info_str(NULL, d->id, _SKEL_CL_DEVICE_VERSION, i->version, sizeof i->version);
    _skel_cl_info_str(NULL, d->id, _SKEL_CL_DRIVER_VERSION, i->driver, sizeof i->driver);
    _skel_cl_info_str(NULL, d->id, _SKEL_CL_DEVICE_OPENCL_C_VERSION, d->c_version, sizeof d->c_version);
    a->clGetDeviceInfo(d->id, _SKEL_CL_DEVICE_TYPE, sizeof type, &type, NULL);
    a->clGetDeviceInfo(d->id, _SKEL_CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    a->clGetDeviceInfo(d->id, _SKEL_CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gm, &gm, NULL);
    a->clGetDeviceInfo(d->id, _SKEL_CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
    a->clGetDeviceInfo(d->id, _SKEL_CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof ma, &ma, NULL);
    a->clGetDeviceInfo(d->id, _SKEL_CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (a->clGetDeviceInfo(d->id, _SKEL_CL_DEVICE_MAX_PARAMETER_SIZE, sizeof d->max_param, &d->max_param, NULL) != 0)
        d->max_param = 0;
    i->is_gpu = (type & _SKEL_CL_DEVICE_TYPE_GPU) != 0;
    i->is_cpu = (type & _SKEL_CL_DEVICE_TYPE_CPU) != 0;
    i->is_accelerator = (type & _SKEL_CL_DEVICE_TYPE_ACCELERATOR) != 0;
    i->compute_units = (int)cu;
    i->global_mem = (size_t)gm;
    i->local_mem = (size_t)lm;
    i->max_alloc = (size_t)ma;
    i->max_work_group = wg;
    i->fp64 = _skel_cl_has_ext(d->id, "cl_khr_fp64") || _skel_cl_has_ext(d->id, "__opencl_c_fp64");
    if (_skel_cl_has_ext(d->id, "cl_nv_device_attribute_query")) {   /* for the 2D overlap's tiling metrics */
        cl_uint ma = 0, mi = 0, regs = 0;
        a->clGetDeviceInfo(d->id, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, sizeof ma, &ma, NULL);
        a->clGetDeviceInfo(d->id, 0x4001 /* CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV */, sizeof mi, &mi, NULL);
        a->clGetDeviceInfo(d->id, 0x4002 /* CL_DEVICE_REGISTERS_PER_BLOCK_NV */, sizeof regs, &regs, NULL);
        d->nv_arch = (int)(ma * 10 + mi);
        d->nv_regs = (int)regs;
    }
}

static int _skel_cl_icase_contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle), i, k;
    for (i = 0; hay[i]; ++i) {
        for (k = 0; k < n && hay[i + k] && tolower((unsigned char)hay[i + k]) == tolower((unsigned char)needle[k]); ++k) {}
        if (k == n) return 1;
    }
    return n == 0;
}

/* SKEL_OPENCL_DEVICE, else the first GPU, else the first device. */
static int _skel_cl_choose(void)
{
    const char *env = getenv("SKEL_OPENCL_DEVICE");
    int i, p, d;
    char tail;
    if (env && *env) {
        if (sscanf(env, "%d:%d%c", &p, &d, &tail) == 2) {
            for (i = 0; i < _skel_cl.ndev; ++i)
                if (_skel_cl.dev[i].info.platform_index == p && _skel_cl.dev[i].info.device_index == d) return i;
        } else {
            for (i = 0; i < _skel_cl.ndev; ++i)
                if (_skel_cl_icase_contains(_skel_cl.dev[i].info.name, env)) return i;
            for (i = 0; i < _skel_cl.ndev; ++i)
                if (_skel_cl_icase_contains(_skel_cl.dev[i].info.platform, env)) return i;
        }
        _skel_log(SKEL_LOG_WARN, "opencl: SKEL_OPENCL_DEVICE=%s names no device; the backend is absent", env);
        return -1;
    }
    for (i = 0; i < _skel_cl.ndev; ++i)
        if (_skel_cl.dev[i].info.is_gpu) return i;
    return _skel_cl.ndev > 0 ? 0 : -1;
}

/* Load the library and enumerate devices, once.  1 when a device is selected. */
static int _skel_cl_probe(void)
{
    cl_platform_id plats[16];
    cl_uint np = 0, p, nd, d;
    size_t k;
    if (_skel_cl.probed) return _skel_cl.available;
    _skel_cl.probed = 1;
    _skel_cl.sel = -1;
#if _SKEL_POSIX2001
    setenv("POCL_AFFINITY", "1", 0);    /* read when PoCL starts its threads; see ENVIRONMENT */
#endif
    _skel_cl.lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!_skel_cl.lib) _skel_cl.lib = dlopen("libOpenCL.so", RTLD_NOW | RTLD_LOCAL);
    if (!_skel_cl.lib) {
        _skel_log(SKEL_LOG_INFO, "opencl: libOpenCL.so.1 not found; the backend is absent");
        return 0;
    }
    for (k = 0; k < sizeof _skel_cl_names / sizeof *_skel_cl_names; ++k) {
        void *f = dlsym(_skel_cl.lib, _skel_cl_names[k]);
        if (!f) {
            _skel_log(SKEL_LOG_WARN, "opencl: %s missing from libOpenCL; the backend is absent", _skel_cl_names[k]);
            return 0;
        }
        memcpy((char *)&_skel_cl.api + k * sizeof f, &f, sizeof f);   /* the struct is that table, in order */
    }
    if (_skel_cl.api.clGetPlatformIDs(16, plats, &np) != 0 || np == 0) {
        _skel_log(SKEL_LOG_INFO, "opencl: no platform; the backend is absent");
        return 0;
    }
    if (np > 16) np = 16;
    for (p = 0; p < np; ++p) {
        cl_device_id ids[_SKEL_CL_MAX_DEVICES];
        char pname[128], pver[64];
        _skel_cl_info_str(plats[p], NULL, _SKEL_CL_PLATFORM_NAME, pname, sizeof pname);
        _skel_cl_info_str(plats[p], NULL, _SKEL_CL_PLATFORM_VERSION, pver, sizeof pver);
        nd = 0;
        if (_skel_cl.api.clGetDeviceIDs(plats[p], _SKEL_CL_DEVICE_TYPE_ALL, _SKEL_CL_MAX_DEVICES, ids, &nd) != 0) continue;
        if (nd > _SKEL_CL_MAX_DEVICES) nd = _SKEL_CL_MAX_DEVICES;
        for (d = 0; d < nd && _skel_cl.ndev < _SKEL_CL_MAX_DEVICES; ++d) {
            _skel_cl_dev *x = &_skel_cl.dev[_skel_cl.ndev++];
            memset(x, 0, sizeof *x);
            x->platform = plats[p];
            x->id = ids[d];
            x->info.platform_index = (int)p;
            x->info.device_index = (int)d;
            snprintf(x->info.platform, sizeof x->info.platform, "%s", pname);
            snprintf(x->platform_version, sizeof x->platform_version, "%s", pver);
            _skel_cl_describe(x);
            _skel_log(SKEL_LOG_INFO, "opencl: device %d:%d %s (%s, %s, driver %s, %d CUs, %zu KiB local%s)", (int)p,
                      (int)d, x->info.name, pname, x->info.version, x->info.driver, x->info.compute_units,
                      x->info.local_mem / 1024, x->info.fp64 ? ", fp64" : "");
        }
    }
    _skel_cl.sel = _skel_cl_choose();
    _skel_cl.available = _skel_cl.sel >= 0;
    if (!_skel_cl.ndev) _skel_log(SKEL_LOG_INFO, "opencl: no device; the backend is absent");
    return _skel_cl.available;
}

/* The context and queue, made on first use.  Calls make it under
   _skel_cl_lock, but the memory space (a container brought to the device
   outside a call, by the tuner) may too: its own lock, and ready read
   without it once set (_SKEL_LOAD). */
static int _skel_cl_ready(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    cl_int err;
    _skel_cl_dev *d;
    int rc = SKEL_EDEVICE;
    if (_SKEL_LOAD(&_skel_cl.ready) == 1) return SKEL_OK;
    pthread_mutex_lock(&lock);
    if (_skel_cl.ready == 1) rc = SKEL_OK;
    else if (_skel_cl.ready == -1) _skel_fail(SKEL_EDEVICE, "%s", _skel_cl.ready_error);
    else {
        d = &_skel_cl.dev[_skel_cl.sel];
        _skel_cl.ctx = _skel_cl.api.clCreateContext(NULL, 1, &d->id, NULL, NULL, &err);
        if (_SKEL_CL_ERR(err, clCreateContext) == SKEL_OK) {
            _skel_cl.queue = _skel_cl.api.clCreateCommandQueue(_skel_cl.ctx, d->id, 0, &err);
            if (_SKEL_CL_ERR(err, clCreateCommandQueue) == SKEL_OK) rc = SKEL_OK;
        }
        if (rc != SKEL_OK) memcpy(_skel_cl.ready_error, skel_last_error(), sizeof _skel_cl.ready_error - 1);
        _SKEL_STORE(&_skel_cl.ready, rc == SKEL_OK ? 1 : -1);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/* ---------------------------------------------------------------------
   opencl: the memory space (buffers for containers)
   --------------------------------------------------------------------- */
static int _skel_cl_fail_allocs;   /* tests: buffers for containers fail as if the device were full */
void _skel_cl_test_fail_allocs(int on) { _skel_cl_fail_allocs = on; }
static int _skel_cl_allocs;        /* tests: buffers handed to containers so far (atomic) */
int _skel_cl_test_allocs(void) { return _SKEL_LOAD(&_skel_cl_allocs); }
/* tests: the scan state's epoch (to cross its wrap) and dirty flag */
void _skel_cl_test_state(unsigned epoch, int dirty)
{
    _skel_cl.state.epoch = epoch;
    _skel_cl.state.dirty = dirty;
}

/* Only our run function acquires containers in this space, so these are
   called with _skel_cl_lock held and the context made (download also from
   skel_read: OpenCL queues are thread-safe). */
/* Freed container buffers are kept for reuse, up to SKEL_CL_POOL_MB
   (default 1024; 0: none) in _SKEL_CL_POOL buffers: NVIDIA's OpenCL gives
   a new buffer its memory at first use, and a call writing a new output
   took 71-107 us on the H100 where one on a kept buffer took 18-19
   (bench/firstcall.c).  The queue is in order, so a new owner's commands
   run after the old owner's.  A buffer is reused for requests of half its
   size up; an allocation that fails gives the kept ones back and tries
   again.  (Own lock: skel_free releases outside the backend's lock.) */
#define _SKEL_CL_POOL 16
typedef struct _skel_cl_kept { cl_mem buf; size_t bytes; } _skel_cl_kept;
static struct {
    pthread_mutex_t lock;
    _skel_cl_kept kept[_SKEL_CL_POOL];  /* oldest first */
    size_t total, limit;
    int n, ready;
} _skel_cl_pool = { PTHREAD_MUTEX_INITIALIZER, { { NULL, 0 } }, 0, 0, 0, 0 };

/* takes entry i out of the pool (lock held) */
static cl_mem _skel_cl_pool_remove(int i)
{
    cl_mem m = _skel_cl_pool.kept[i].buf;
    _skel_cl_pool.total -= _skel_cl_pool.kept[i].bytes;
    _skel_cl_pool.n--;
    memmove(_skel_cl_pool.kept + i, _skel_cl_pool.kept + i + 1, (size_t)(_skel_cl_pool.n - i) * sizeof *_skel_cl_pool.kept);
    return m;
}

static cl_mem _skel_cl_pool_take(size_t bytes)
{
    cl_mem m = NULL;
    int i, best = -1;
    pthread_mutex_lock(&_skel_cl_pool.lock);
    for (i = 0; i < _skel_cl_pool.n; ++i) {
        size_t have = _skel_cl_pool.kept[i].bytes;
        if (have >= bytes && have / 2 <= bytes && (best < 0 || have < _skel_cl_pool.kept[best].bytes)) best = i;
    }
    if (best >= 0) {
        m = _skel_cl_pool_remove(best);
        _SKEL_CL_COUNT(reuses, 1);
    }
    pthread_mutex_unlock(&_skel_cl_pool.lock);
    return m;
}

/* keeps m (the oldest kept buffers make room), or frees it */
static void _skel_cl_pool_give(cl_mem m)
{
    size_t bytes = 0;
    pthread_mutex_lock(&_skel_cl_pool.lock);
    if (!_skel_cl_pool.ready) {
        int mb = _skel_env_int("SKEL_CL_POOL_MB", 1024);
        _skel_cl_pool.limit = (size_t)(mb > 0 ? mb : 0) << 20;
        _skel_cl_pool.ready = 1;
    }
    if (_skel_cl.api.clGetMemObjectInfo(m, _SKEL_CL_MEM_SIZE, sizeof bytes, &bytes, NULL) != 0 ||
        bytes > _skel_cl_pool.limit)
        bytes = 0;
    while (bytes && _skel_cl_pool.n &&
           (_skel_cl_pool.n == _SKEL_CL_POOL || _skel_cl_pool.total + bytes > _skel_cl_pool.limit))
        _skel_cl.api.clReleaseMemObject(_skel_cl_pool_remove(0));
    if (bytes) {
        _skel_cl_pool.kept[_skel_cl_pool.n].buf = m;
        _skel_cl_pool.kept[_skel_cl_pool.n++].bytes = bytes;
        _skel_cl_pool.total += bytes;
    } else
        _skel_cl.api.clReleaseMemObject(m);
    pthread_mutex_unlock(&_skel_cl_pool.lock);
}

/* every kept buffer freed; 1 when there was one */
static int _skel_cl_pool_drain(void)
{
    int had;
    pthread_mutex_lock(&_skel_cl_pool.lock);
    had = _skel_cl_pool.n > 0;
    while (_skel_cl_pool.n) _skel_cl.api.clReleaseMemObject(_skel_cl_pool_remove(_skel_cl_pool.n - 1));
    pthread_mutex_unlock(&_skel_cl_pool.lock);
    return had;
}

static int _skel_cl_alloc(void *ctx, size_t bytes, void **dev)
{
    cl_int err;
    (void)ctx;
    _SKEL_TRY(_skel_cl_ready());
    if (_skel_cl_fail_allocs) return _SKEL_CL_ERR(-4, clCreateBuffer);   /* CL_MEM_OBJECT_ALLOCATION_FAILURE */
    __atomic_add_fetch(&_skel_cl_allocs, 1, __ATOMIC_RELAXED);
    if ((*dev = _skel_cl_pool_take(bytes)) != NULL) return SKEL_OK;
    *dev = _skel_cl.api.clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != 0 && _skel_cl_pool_drain())
        *dev = _skel_cl.api.clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_WRITE, bytes, NULL, &err);
    return _SKEL_CL_ERR(err, clCreateBuffer);
}

static void _skel_cl_release(void *ctx, void *dev)
{
    (void)ctx;
    if (dev) _skel_cl_pool_give((cl_mem)dev);
}

static int _skel_cl_upload(void *ctx, void *dev, size_t off, const void *host, size_t bytes)
{
    (void)ctx;
    _SKEL_CL_COUNT(uploads, 1);
    return _SKEL_CL(clEnqueueWriteBuffer, _skel_cl.queue, (cl_mem)dev, 1, off, bytes, host, 0, NULL, NULL);
}

/* Every read from a device buffer, blocking.  A non-blocking read waited
   for through its event (session 9) cost a Map plus its one-element sync
   read 28 us against 17 us into pageable memory (bench/firstcall.c, H100),
   and gained nothing for scalar results (bench/gpu.c --compare opencl): it
   was reverted in session 10. */
static int _skel_cl_read(cl_mem dev, size_t off, void *host, size_t bytes)
{
    return _SKEL_CL(clEnqueueReadBuffer, _skel_cl.queue, dev, 1, off, bytes, host, 0, NULL, NULL);
}

static int _skel_cl_download(void *ctx, void *host, const void *dev, size_t off, size_t bytes)
{
    (void)ctx;
    _SKEL_CL_COUNT(downloads, 1);
    return _skel_cl_read((cl_mem)dev, off, host, bytes);
}

/* Every call queued so far has finished (skel_wait; the queue is thread-safe). */
static int _skel_cl_wait(void *ctx)
{
    (void)ctx;
    return _SKEL_LOAD(&_skel_cl.ready) == 1 ? _SKEL_CL(clFinish, _skel_cl.queue) : SKEL_OK;
}

/* ---------------------------------------------------------------------
   opencl: programs, in memory per instance and on disk
   A cache file holds one program binary:
       "SKELCLB1"  u64 key  u64 payload bytes  u64 payload hash   payload
   --------------------------------------------------------------------- */
#define _SKEL_CL_KERNELS 4
typedef struct _skel_cl_prog {
    struct _skel_cl_prog *next_inst;    /* the instance's other programs (other block sizes, tilings) */
    struct _skel_cl_prog *next_all;
    int block, tiling;
    cl_program program;                 /* NULL after skel_cl_forget_programs */
    const char *kname[_SKEL_CL_KERNELS];
    cl_kernel kernel[_SKEL_CL_KERNELS];
} _skel_cl_prog;

typedef struct _skel_cl_hdr {
    char magic[8];
    uint64_t key, bytes, check;
} _skel_cl_hdr;

static void _skel_cl_drop(_skel_cl_prog *p)
{
    int k;
    for (k = 0; k < _SKEL_CL_KERNELS; ++k)
        if (p->kernel[k]) { _skel_cl.api.clReleaseKernel(p->kernel[k]); p->kernel[k] = NULL; p->kname[k] = NULL; }
    if (p->program) _skel_cl.api.clReleaseProgram(p->program);
    p->program = NULL;
}

static void _skel_cl_build_log(cl_program prog, char *buf, size_t size)
{
    size_t n = 0;
    buf[0] = 0;
    _skel_cl.api.clGetProgramBuildInfo(prog, _skel_cl.dev[_skel_cl.sel].id, _SKEL_CL_PROGRAM_BUILD_LOG, size - 1, buf, &n);
    buf[size - 1] = 0;
}

static void _skel_cl_cache_path(uint64_t key, char *path, size_t size)
{
    const char *dir = _skel_cache_dir();
    if (!*dir) { path[0] = 0; return; }
    snprintf(path, size, "%s/opencl-%016llx.bin", dir, (unsigned long long)key);
}

/* PoCL (3.1 seen) can hand out a binary without its bitcode when it found
   the build in its own kernel cache while another process was writing it,
   and aborts (assert) when such a binary is loaded.  Its binaries start
   with "poclbin" and carry the bitcode as a file "program.bc": one without
   it is neither stored nor loaded. */
static int _skel_cl_binary_plausible(const unsigned char *bin, size_t bytes)
{
    static const char want[] = "program.bc";
    size_t i, n = sizeof want - 1;
    if (bytes < 8 || memcmp(bin, "poclbin", 8) != 0) return 1;
    for (i = 0; i + n <= bytes; ++i)
        if (memcmp(bin + i, want, n) == 0) return 1;
    return 0;
}

/* A program from a cached binary, or NULL (a bad entry is logged and counted). */
static cl_program _skel_cl_load_cached(const char *path, uint64_t key)
{
    _skel_cl_dev *d = &_skel_cl.dev[_skel_cl.sel];
    size_t size = 0, bytes;
    unsigned char *file;
    const unsigned char *bin;
    _skel_cl_hdr h;
    cl_program prog = NULL;
    cl_int err = 0, status = 0;
    const char *why = NULL;
    double t0 = _skel_now();
    if (!path[0] || !(file = _skel_read_file(path, &size))) return NULL;
    if (size < sizeof h) why = "truncated header";
    else {
        memcpy(&h, file, sizeof h);
        bytes = size - sizeof h;
        bin = file + sizeof h;
        if (memcmp(h.magic, "SKELCLB1", 8) != 0) why = "bad magic";
        else if (h.key != key) why = "key mismatch";
        else if (h.bytes != bytes) why = "truncated payload";
        else if (h.check != _skel_hash(_SKEL_HASH_SEED, bin, bytes)) why = "checksum mismatch";
        else if (!_skel_cl_binary_plausible(bin, bytes)) why = "a PoCL binary without its bitcode";
        else if (_skel_cache_mark(path)) why = "an earlier process died loading it";
        else {  /* a binary can crash the driver here (PoCL asserts): marked until it returns */
            prog = _skel_cl.api.clCreateProgramWithBinary(_skel_cl.ctx, 1, &d->id, &bytes, &bin, &status, &err);
            if (err != 0 || status != 0) { why = "the driver rejected the binary"; prog = NULL; }
            else if (_skel_cl.api.clBuildProgram(prog, 1, &d->id, "", NULL, NULL) != 0) {
                why = "the binary did not build";
                _skel_cl.api.clReleaseProgram(prog);
                prog = NULL;
            }
            _skel_cache_unmark(path);
        }
    }
    SKEL_FREE(file);
    if (why) {
        _SKEL_CL_COUNT(disk_rejects, 1);
        _skel_log(SKEL_LOG_WARN, "opencl: cache entry %s is unusable (%s); rebuilding it", path, why);
        return NULL;
    }
    _SKEL_CL_COUNT(disk_loads, 1);
    _SKEL_CL_COUNT(load_seconds, _skel_now() - t0);
    _skel_log(SKEL_LOG_INFO, "opencl: program loaded from %s", path);
    return prog;
}

static void _skel_cl_store_cached(const char *path, uint64_t key, cl_program prog)
{
    size_t bytes = 0;
    unsigned char *bin;
    _skel_cl_hdr h;
    if (!path[0]) return;
    if (_skel_cl.api.clGetProgramInfo(prog, _SKEL_CL_PROGRAM_BINARY_SIZES, sizeof bytes, &bytes, NULL) != 0 || !bytes)
        return;
    if (!(bin = (unsigned char *)SKEL_MALLOC(bytes))) return;
    if (_skel_cl.api.clGetProgramInfo(prog, _SKEL_CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) != 0)
        _skel_log(SKEL_LOG_INFO, "opencl: no program binary; %s is not cached", path);
    else if (!_skel_cl_binary_plausible(bin, bytes))
        _skel_log(SKEL_LOG_WARN, "opencl: the driver returned a PoCL binary without bitcode; %s is not cached", path);
    else {
        memcpy(h.magic, "SKELCLB1", 8);
        h.key = key;
        h.bytes = bytes;
        h.check = _skel_hash(_SKEL_HASH_SEED, bin, bytes);
        if (_skel_write_atomic(path, &h, sizeof h, bin, bytes, 0) == SKEL_OK) _SKEL_CL_COUNT(disk_writes, 1);
        else _skel_log(SKEL_LOG_INFO, "opencl: the program is not cached (%s)", _skel_errbuf);
    }
    SKEL_FREE(bin);
}

int _skel_uses_double(const skel_skeleton *sk);   /* skel.h's generator */
static int _skel_cl_uses_double(const skel_skeleton *sk) { return _skel_uses_double(sk); }

/* What the generator may assume about the selected device.  NVIDIA's
   reports its compute capability and registers (the other limits of the
   tiling metrics are its architecture's, _skel_gpu_ref_limits); other
   devices get the metrics' defaults. */
static void _skel_cl_opts(int block, int tiling, _skel_kernel_opts *o)
{
    const _skel_cl_dev *d = &_skel_cl.dev[_skel_cl.sel];
    const skel_cl_device_info *i = &d->info;
    memset(o, 0, sizeof *o);
    if (d->nv_arch) _skel_gpu_ref_limits(d->nv_arch, o);
    if (d->nv_regs > 0) o->regs_per_unit = o->regs_per_group = d->nv_regs;
    o->block = block;
    o->tiling = tiling;
    o->compute_units = i->compute_units;
    o->local_mem = i->local_mem > 1024 ? i->local_mem - 1024 : i->local_mem;
    if (o->local_mem > 65536) o->local_mem = 65536;
    o->arg_bytes = _skel_cl.dev[_skel_cl.sel].max_param;
    o->ov3_vec = _skel_cl.ov3_vec;
}

/* The program text of sk for work-groups of `block`, its build options
   (64 bytes) and its cache key. */
static int _skel_cl_source(const skel_skeleton *sk, int block, int tiling, char **src, char *options, uint64_t *key)
{
    _skel_cl_dev *d = &_skel_cl.dev[_skel_cl.sel];
    _skel_kernel_opts o;
    _skel_cl_opts(block, tiling, &o);
    _SKEL_TRY(_skel_kernel_source(sk, _SKEL_DIALECT_OPENCL, &o, src));
    /* OpenCL C 1.2 where the device has it (the templates need nothing newer) */
    snprintf(options, 64, "%s", strstr(d->c_version, "OpenCL C 1.0") || strstr(d->c_version, "OpenCL C 1.1")
                                    ? "" : "-cl-std=CL1.2");
    *key = _skel_hash_str(_SKEL_HASH_SEED, *src);
    *key = _skel_hash_str(*key, options);
    *key = _skel_hash_str(*key, d->info.platform);
    *key = _skel_hash_str(*key, d->platform_version);
    *key = _skel_hash_str(*key, d->info.name);
    *key = _skel_hash_str(*key, d->info.version);
    *key = _skel_hash_str(*key, d->info.driver);
    return SKEL_OK;
}

/* For tests: the disk cache file of sk's program for `block` ("" when the
   cache is off). */
int _skel_cl_cache_file(skel_skeleton *sk, int block, char *path, size_t size)
{
    char *src = NULL, options[64];
    uint64_t key;
    if (!_skel_cl.registered) return _skel_fail(SKEL_EBACKEND, "opencl: backend absent");
    _SKEL_TRY(_skel_cl_source(sk, block, 0, &src, options, &key));
    SKEL_FREE(src);
    _skel_cl_cache_path(key, path, size);
    return SKEL_OK;
}

/* For tests (another translation unit cannot see the template types):
   the program text of sk in dialect 1 (CUDA) or 2 (OpenCL) for a device
   with local_mem bytes of local memory (0: default) and arg_bytes of
   kernel arguments (0: no by-value weights), to free(); and the
   launch plan of a call as text, "kernel:groups kernel:groups result=k". */
int _skel_cl_test_source(const skel_skeleton *sk, int dialect, size_t local_mem, size_t arg_bytes, char **src)
{
    _skel_kernel_opts o;
    memset(&o, 0, sizeof o);
    o.local_mem = local_mem;
    o.arg_bytes = arg_bytes;
    return _skel_kernel_source(sk, dialect, &o, src);
}

int _skel_cl_test_plan(skel_skeleton *sk, const skel_call *c, int compute_units, char *desc, size_t size)
{
    _skel_kernel_opts o;
    _skel_shape sh;
    _skel_kplan p;
    size_t len = 0;
    int i;
    memset(&o, 0, sizeof o);
    o.compute_units = compute_units;
    o.ov3_vec = _skel_cl.ov3_vec;
    _skel_init_gpus();
    _SKEL_TRY(_skel_check(sk, c, &sh));
    _SKEL_TRY(_skel_kernel_plan(sk, c, &sh, &o, &p));
    desc[0] = 0;
    for (i = 0; i < p.nsteps && len < size; ++i)
        len += p.step[i].local ? (size_t)snprintf(desc + len, size - len, "%s:%zux%d ", p.step[i].kernel, p.step[i].groups, p.step[i].local)
                               : (size_t)snprintf(desc + len, size - len, "%s:%zu ", p.step[i].kernel, p.step[i].groups);
    if (len < size) snprintf(desc + len, size - len, "result=%d", p.result);
    return SKEL_OK;
}

/* The built program of sk for work-groups of `block` (under _skel_cl_lock). */
static int _skel_cl_program(skel_skeleton *sk, int block, int tiling, _skel_cl_prog **out)
{
    struct _skel_inst_state *st = _skel_state(sk);
    _skel_cl_dev *d = &_skel_cl.dev[_skel_cl.sel];
    _skel_cl_prog *p;
    char *src = NULL, options[64], path[1200];
    uint64_t key;
    cl_int err;
    int rc, fresh = 0;
    if (!st) return _skel_fail(SKEL_ENOMEM, "opencl: out of memory");
    if (_skel_cl_uses_double(sk) && (!d->info.fp64 || _skel_cl.no_fp64))
        return _skel_fail(SKEL_EUNSUPPORTED, "opencl: %s %s uses double, but device %s has no cl_khr_fp64 (a limit of this device)",
                          _skel_kind_name(sk->kind), sk->name, d->info.name);
    for (p = (_skel_cl_prog *)st->backend_data[_skel_cl.backend]; p; p = p->next_inst)
        if (p->block == block && p->tiling == tiling && p->program) { *out = p; return SKEL_OK; }
    _SKEL_TRY(_skel_cl_source(sk, block, tiling, &src, options, &key));
    for (p = (_skel_cl_prog *)st->backend_data[_skel_cl.backend]; p; p = p->next_inst)
        if (p->block == block && p->tiling == tiling) break;    /* a forgotten entry: reuse it */
    if (!p) {
        if (!(p = (_skel_cl_prog *)SKEL_MALLOC(sizeof *p))) { SKEL_FREE(src); return _skel_fail(SKEL_ENOMEM, "opencl: out of memory"); }
        memset(p, 0, sizeof *p);
        p->block = block;
        p->tiling = tiling;
        fresh = 1;
    }
    _skel_cl_cache_path(key, path, sizeof path);
    p->program = _skel_cl_load_cached(path, key);
    if (!p->program) {
        double t0 = _skel_now();
        const char *text = src;
        p->program = _skel_cl.api.clCreateProgramWithSource(_skel_cl.ctx, 1, &text, NULL, &err);
        if ((rc = _SKEL_CL_ERR(err, clCreateProgramWithSource)) != SKEL_OK) { p->program = NULL; goto fail; }
        err = _skel_cl.api.clBuildProgram(p->program, 1, &d->id, options, NULL, NULL);
        _SKEL_CL_COUNT(builds, 1);
        _SKEL_CL_COUNT(build_seconds, _skel_now() - t0);
        if (err != 0) {
            static char log[16384];
            _skel_cl_build_log(p->program, log, sizeof log);
            _skel_cl.api.clReleaseProgram(p->program);
            p->program = NULL;
            if (err == _SKEL_CL_BUILD_PROGRAM_FAILURE || err == -15) {
                _skel_log(SKEL_LOG_ERROR, "opencl: %s %s did not compile:\n%s\n--- source ---\n%s",
                          _skel_kind_name(sk->kind), sk->name, log, src);
                rc = _skel_fail(SKEL_ECOMPILE, "opencl: %s %s did not compile (clBuildProgram: %s): %s",
                                _skel_kind_name(sk->kind), sk->name, _skel_cl_error_name(err), log);
            } else {
                rc = _SKEL_CL_ERR(err, clBuildProgram);
            }
            goto fail;
        }
        _skel_log(SKEL_LOG_INFO, "opencl: built %s %s (block %d) in %.3f s", _skel_kind_name(sk->kind), sk->name,
                  block, _skel_now() - t0);
        _skel_cl_store_cached(path, key, p->program);
    }
    SKEL_FREE(src);
    if (fresh) {    /* link the new entry into the instance's list and the global one */
        p->next_inst = (_skel_cl_prog *)st->backend_data[_skel_cl.backend];
        st->backend_data[_skel_cl.backend] = p;
        p->next_all = _skel_cl.programs;
        _skel_cl.programs = p;
    }
    *out = p;
    return SKEL_OK;
fail:
    SKEL_FREE(src);
    if (fresh) SKEL_FREE(p);
    return rc;
}

static int _skel_cl_kernel(_skel_cl_prog *p, const char *name, cl_kernel *out)
{
    int k;
    cl_int err;
    for (k = 0; k < _SKEL_CL_KERNELS && p->kname[k]; ++k)
        if (strcmp(p->kname[k], name) == 0) { *out = p->kernel[k]; return SKEL_OK; }
    if (k == _SKEL_CL_KERNELS) return _skel_fail(SKEL_EDEVICE, "opencl: too many kernels in one program");
    p->kernel[k] = _skel_cl.api.clCreateKernel(p->program, name, &err);
    _SKEL_TRY(_SKEL_CL_ERR(err, clCreateKernel));
    p->kname[k] = name;
    *out = p->kernel[k];
    return SKEL_OK;
}

/* ---------------------------------------------------------------------
   opencl: running a call (a launch plan of the kernel templates)
   --------------------------------------------------------------------- */
static int _skel_cl_scratch(int k, size_t bytes)
{
    cl_int err;
    if (_skel_cl.scratch_bytes[k] >= bytes) return SKEL_OK;
    if (_skel_cl.scratch[k]) _skel_cl.api.clReleaseMemObject(_skel_cl.scratch[k]);
    _skel_cl.scratch[k] = NULL;
    _skel_cl.scratch_bytes[k] = 0;
    if (bytes < 4096) bytes = 4096;
    _skel_cl.scratch[k] = _skel_cl.api.clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_WRITE, bytes, NULL, &err);
    _SKEL_TRY(_SKEL_CL_ERR(err, clCreateBuffer));
    _skel_cl.scratch_bytes[k] = bytes;
    return SKEL_OK;
}

/* The state buffer for a plan (_skel_dstate): kept, zeroed or regrown. */
static int _skel_cl_state(const _skel_kplan *p, cl_mem *out)
{
    cl_uint zero = 0;
    int how = _skel_dstate_begin(&_skel_cl.state, p);
    if (how == _SKEL_DSTATE_GROW) {
        cl_int err;
        if (_skel_cl.state_buf) _skel_cl.api.clReleaseMemObject(_skel_cl.state_buf);
        _skel_cl.state_buf = _skel_cl.api.clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_WRITE, _skel_cl.state.bytes,
                                                         NULL, &err);
        if (err != 0) {
            _skel_cl.state_buf = NULL;
            _skel_cl.state.bytes = 0;
            return _SKEL_CL_ERR(err, clCreateBuffer);
        }
    }
    if (how != _SKEL_DSTATE_KEEP)   /* the sizes _skel_dstate_begin picks are multiples of 4 */
        _SKEL_TRY(_SKEL_CL(clEnqueueFillBuffer, _skel_cl.queue, _skel_cl.state_buf, &zero, sizeof zero, 0,
                           _skel_cl.state.bytes, 0, NULL, NULL));
    *out = _skel_cl.state_buf;
    return SKEL_OK;
}

/* A scalar result read into page-locked memory (a buffer the driver
   allocates on the host, mapped once) and copied out: a small read into
   pageable memory is staged by the driver and waits longer. */
static int _skel_cl_read_result(cl_mem from, void *to, size_t esz)
{
    if (!_skel_cl.result_tried) {
        cl_int err;
        _skel_cl.result_tried = 1;
        _skel_cl.result_stage = _skel_cl.api.clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_WRITE | _SKEL_CL_MEM_ALLOC_HOST_PTR,
                                                            64, NULL, &err);
        if (err == 0)
            _skel_cl.result_host = _skel_cl.api.clEnqueueMapBuffer(_skel_cl.queue, _skel_cl.result_stage, 1,
                                                                   _SKEL_CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
        if (err != 0) _skel_cl.result_host = NULL;
    }
    if (!_skel_cl.result_host) return _skel_cl_read(from, 0, to, esz);
    _SKEL_TRY(_skel_cl_read(from, 0, _skel_cl.result_host, esz));
    memcpy(to, _skel_cl.result_host, esz);
    return SKEL_OK;
}

static int _skel_cl_run_locked(const _skel_variant *v, skel_skeleton *sk, const skel_call *call,
                               const _skel_shape *sh)
{
    _skel_kplan plan;
    _skel_kernel_opts o;
    _skel_cl_prog *prog = NULL;
    cl_mem buf[_SKEL_NBUFS];
    size_t esz = sk->out_t[0]()->size;
    int block = v->block ? v->block : 256, i, k, rc = SKEL_OK;
    memset(buf, 0, sizeof buf);
    if (block < 64 || block > 1024 || (block & (block - 1)))
        return _skel_fail(SKEL_EINVAL, "opencl: block %d is not a power of two in 64..1024", block);
    if ((size_t)block > _skel_cl.dev[_skel_cl.sel].info.max_work_group)
        return _skel_fail(SKEL_EINVAL, "opencl: block %d exceeds the device's work-group limit %zu", block,
                          _skel_cl.dev[_skel_cl.sel].info.max_work_group);
    _SKEL_TRY(_skel_cl_ready());
    _SKEL_TRY(_skel_cl_program(sk, block, v->tiling, &prog));
    _skel_cl_opts(block, v->tiling, &o);
    _SKEL_TRY(_skel_kernel_plan(sk, call, sh, &o, &plan));
    {
        _skel_opbufs ops;
        _SKEL_TRY(_skel_part_acquire(sk, call, sh, _skel_cl.space, &ops));
        for (i = 0; i < SKEL_MAX_OUT; ++i) buf[_SKEL_BUF_OUT + i] = (cl_mem)ops.out[i];
        for (i = 0; i < SKEL_MAX_IN; ++i) buf[_SKEL_BUF_IN0 + i] = (cl_mem)ops.in[i];
        for (i = 0; i < SKEL_MAX_VIEWS; ++i) buf[_SKEL_BUF_VIEW0 + i] = (cl_mem)ops.view[i];
    }
    for (k = 0; k < 3; ++k)
        if (plan.scratch[k]) {
            _SKEL_TRY(_skel_cl_scratch(k, plan.scratch[k]));
            buf[_SKEL_BUF_SCRATCH0 + k] = _skel_cl.scratch[k];
        }
    if (plan.state) _SKEL_TRY(_skel_cl_state(&plan, &buf[_SKEL_BUF_STATE]));
    if (plan.copy_in0 >= 0 && call->in[0]->n)
        _SKEL_TRY(_SKEL_CL(clEnqueueCopyBuffer, _skel_cl.queue, buf[_SKEL_BUF_IN0], buf[_SKEL_BUF_SCRATCH0 + plan.copy_in0],
                           0, 0, call->in[0]->n * call->in[0]->esz, 0, NULL, NULL));
    if (plan.weights_bytes && !_skel_wcache_holds(&_skel_cl.weights_held, call->weights, plan.weights_bytes)) {
        /* a new buffer, filled when made (so the caller may change its
           weights at once); the old one is freed once the queue is done
           with it */
        cl_int err;
        if (_skel_cl.weights) _skel_cl.api.clReleaseMemObject(_skel_cl.weights);
        _skel_wcache_forget(&_skel_cl.weights_held);
        _skel_cl.weights = _skel_cl.api.clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_ONLY | _SKEL_CL_MEM_COPY_HOST_PTR,
                                                       plan.weights_bytes, (void *)call->weights, &err);
        if (err != 0) _skel_cl.weights = NULL;
        _SKEL_TRY(_SKEL_CL_ERR(err, clCreateBuffer));
        _skel_wcache_keep(&_skel_cl.weights_held, call->weights, plan.weights_bytes);
    }
    if (plan.weights_bytes) buf[_SKEL_BUF_WEIGHTS] = _skel_cl.weights;
    for (i = 0; i < plan.nsteps && rc == SKEL_OK; ++i) {
        const _skel_kstep *s = &plan.step[i];
        cl_kernel kern = NULL;
        size_t local = (size_t)(s->local ? s->local : block), global = s->groups * local;
        if ((rc = _skel_cl_kernel(prog, s->kernel, &kern)) != SKEL_OK) break;
        for (k = 0; k < s->nargs && rc == SKEL_OK; ++k) {
            const _skel_karg *a = &s->arg[k];
            {
                int64_t i64 = a->value;
                int32_t i32 = (int32_t)a->value;
                switch (a->kind) {
                case _SKEL_ARG_BUF: rc = _SKEL_CL(clSetKernelArg, kern, (cl_uint)k, sizeof(cl_mem), &buf[a->buf]); break;
                case _SKEL_ARG_INDEX: rc = _SKEL_CL(clSetKernelArg, kern, (cl_uint)k, sizeof i64, &i64); break;
                case _SKEL_ARG_INT:
                case _SKEL_ARG_UINT: rc = _SKEL_CL(clSetKernelArg, kern, (cl_uint)k, sizeof i32, &i32); break;
                case _SKEL_ARG_BASE:
                case _SKEL_ARG_EPOCH:
                    i32 = (int32_t)(uint32_t)_skel_karg_value(a, &_skel_cl.state);
                    rc = _SKEL_CL(clSetKernelArg, kern, (cl_uint)k, sizeof i32, &i32);
                    break;
                case _SKEL_ARG_ELEM: rc = _SKEL_CL(clSetKernelArg, kern, (cl_uint)k, (size_t)a->value, a->elem); break;
                case _SKEL_ARG_UNIFORM:
                    rc = _SKEL_CL(clSetKernelArg, kern, (cl_uint)k, sk->uniform_size, call->uniform); break;
                case _SKEL_ARG_WEIGHTS:
                    rc = _SKEL_CL(clSetKernelArg, kern, (cl_uint)k, (size_t)a->value, call->weights); break;
                default: rc = _skel_fail(SKEL_EDEVICE, "opencl: bad launch argument kind %d", a->kind);
                }
            }
        }
        if (rc == SKEL_OK)
            rc = _SKEL_CL(clEnqueueNDRangeKernel, _skel_cl.queue, kern, 1, NULL, &global, &local, 0, NULL, NULL);
        if (rc == SKEL_OK) _SKEL_CL_COUNT(launches, 1);
    }
    /* every step enqueued: the next kernel that uses the state runs after
       them (one in-order queue) */
    if (rc == SKEL_OK && plan.state) _skel_dstate_end(&_skel_cl.state, &plan);
    if (rc == SKEL_OK && plan.result >= 0) rc = _skel_cl_read_result(_skel_cl.scratch[plan.result], call->result, esz);
    if (rc == SKEL_OK) rc = _SKEL_CL(clFlush, _skel_cl.queue);
    return rc;
}

static int _skel_cl_run(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk, const skel_call *call,
                        const _skel_shape *sh)
{
    int rc;
    (void)b;
    pthread_mutex_lock(&_skel_cl_lock);
    rc = _skel_cl_run_locked(v, sk, call, sh);
    pthread_mutex_unlock(&_skel_cl_lock);
    return rc;
}

/* Before a split's parts run: the program, the operands' buffers and the
   plan's scratch buffers of part sh (no data moves). */
static int _skel_cl_prepare(const _skel_backend *b, const _skel_variant *v, skel_skeleton *sk, const skel_call *call,
                            const _skel_shape *sh)
{
    _skel_kplan plan;
    _skel_kernel_opts o;
    _skel_cl_prog *prog = NULL;
    int block = v->block ? v->block : 256, i, rc;
    (void)b;
    pthread_mutex_lock(&_skel_cl_lock);
    rc = _skel_cl_ready();
    if (rc == SKEL_OK) rc = _skel_cl_program(sk, block, v->tiling, &prog);
    _skel_cl_opts(block, v->tiling, &o);
    if (rc == SKEL_OK) rc = _skel_kernel_plan(sk, call, sh, &o, &plan);
    if (rc == SKEL_OK) rc = _skel_part_alloc(sk, call, _skel_cl.space);
    for (i = 0; rc == SKEL_OK && i < 3; ++i)
        if (plan.scratch[i]) rc = _skel_cl_scratch(i, plan.scratch[i]);
    pthread_mutex_unlock(&_skel_cl_lock);
    return rc;
}

static int _skel_cl_candidates(const _skel_backend *b, skel_variant *out, int max)
{
    static const int blocks[] = { 128, 256, 512 };
    int i, n = 0;
    (void)b;
    for (i = 0; i < 3 && n < max; ++i) {
        if ((size_t)blocks[i] > _skel_cl.dev[_skel_cl.sel].info.max_work_group) continue;
        memset(&out[n], 0, sizeof out[n]);
        out[n].backend = "opencl";
        out[n].block = blocks[i];
        ++n;
    }
    return n;
}

/* ---------------------------------------------------------------------
   opencl: registration and the public functions
   --------------------------------------------------------------------- */
static void _skel_cl_provide(void)
{
    _skel_space sp;
    _skel_backend b;
    const skel_cl_device_info *i;
    if (_skel_cl.registered) return;
    if (!_skel_cl_probe()) {
        _skel_backend_absent("opencl", !_skel_cl.lib ? "libOpenCL.so.1 not found" : !_skel_cl.ndev ? "no OpenCL platform or device"
                                                                            : "SKEL_OPENCL_DEVICE names no device");
        return;
    }
    memset(&sp, 0, sizeof sp);
    sp.name = "opencl:0";
    sp.backend = "opencl";
    sp.alloc = _skel_cl_alloc;
    sp.release = _skel_cl_release;
    sp.upload = _skel_cl_upload;
    sp.download = _skel_cl_download;
    sp.wait = _skel_cl_wait;
    if ((_skel_cl.space = _skel_space_register(&sp)) < 0) {
        _skel_log(SKEL_LOG_WARN, "opencl: no memory space left; the backend is absent");
        _skel_cl.available = 0;
        return;
    }
    memset(&b, 0, sizeof b);
    b.name = "opencl";
    b.is_gpu = 1;       /* a device memory space, even when PoCL runs it on the CPU */
    b.space = _skel_cl.space;
    b.run = _skel_cl_run;
    b.prepare = _skel_cl_prepare;
    b.candidates = _skel_cl_candidates;
    i = &_skel_cl.dev[_skel_cl.sel].info;
    snprintf(b.info, sizeof b.info, "%.100s, %.60s, %.40s, driver %.40s", i->name, i->platform, i->version, i->driver);
    if ((_skel_cl.backend = _skel_backend_register(&b)) < 0) {
        _skel_log(SKEL_LOG_WARN, "opencl: the backend registry is full; the backend is absent");
        _skel_cl.available = 0;
        return;
    }
    _skel_cl.registered = 1;
}

#if defined(__GNUC__)
__attribute__((constructor)) static void _skel_cl_ctor(void) { _skel_provider_add(_skel_cl_provide); }
#endif

int skel_cl_register(void)
{
    _skel_provider_add(_skel_cl_provide);   /* a no-op when the constructor added it */
    _skel_init_gpus();
    if (!_skel_cl.registered)
        return _skel_fail(SKEL_EBACKEND, "opencl: backend not available (%s)",
                          !_skel_cl.lib ? "libOpenCL.so.1 not found" : !_skel_cl.ndev ? "no OpenCL device"
                                                                         : "no device selected");
    return SKEL_OK;
}

int skel_cl_device_count(void)
{
    _skel_init_gpus();
    pthread_mutex_lock(&_skel_cl_lock);
    _skel_cl_probe();
    pthread_mutex_unlock(&_skel_cl_lock);
    return _skel_cl.ndev;
}

int skel_cl_device_get(int index, skel_cl_device_info *out)
{
    if (!out) return _skel_fail(SKEL_EINVAL, "skel_cl_device_get: NULL out");
    if (index < 0 || index >= skel_cl_device_count())
        return _skel_fail(SKEL_EINVAL, "skel_cl_device_get: no device %d (%d found)", index, _skel_cl.ndev);
    *out = _skel_cl.dev[index].info;
    return SKEL_OK;
}

int skel_cl_device_selected(void)
{
    _skel_init_gpus();
    return _skel_cl.registered ? _skel_cl.sel : -1;
}

int skel_cl_finish(void)
{
    int rc = SKEL_OK;
    _skel_init_gpus();
    if (_SKEL_LOAD(&_skel_cl.ready) == 1) rc = _SKEL_CL(clFinish, _skel_cl.queue);
    return rc;
}

void skel_cl_stats_get(skel_cl_stats *out)
{
    if (!out) return;
    pthread_mutex_lock(&_skel_cl_stats_lock);
    *out = _skel_cl.stats;
    pthread_mutex_unlock(&_skel_cl_stats_lock);
}

void skel_cl_forget_programs(void)
{
    _skel_cl_prog *p;
    pthread_mutex_lock(&_skel_cl_lock);
    for (p = _skel_cl.programs; p; p = p->next_all) _skel_cl_drop(p);
    pthread_mutex_unlock(&_skel_cl_lock);
}

void skel_cl_pretend_no_fp64(int on)
{
    pthread_mutex_lock(&_skel_cl_lock);
    _skel_cl.no_fp64 = on;
    pthread_mutex_unlock(&_skel_cl_lock);
}

void skel_cl_use_ov3_vec(int on)
{
    pthread_mutex_lock(&_skel_cl_lock);
    _skel_cl.ov3_vec = on;
    pthread_mutex_unlock(&_skel_cl_lock);
    skel_cl_forget_programs();
}

#endif /* SKEL_CL_IMPLEMENTATION */

/*
   LICENSE: MIT or public domain (unlicense), at your choice.
   Copyright (c) 2026 the skel authors.  Permission is hereby granted, free
   of charge, to any person obtaining a copy of this software, to deal in it
   without restriction.  THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY
   OF ANY KIND.
*/
