/* cl_sync.c - what waiting for one small OpenCL result costs, by method.

   A Reduce returning a scalar ends with: kernel, wait, 4 bytes to the
   host.  On the H100 with NVIDIA's OpenCL that end costs ~10 us more than
   on CUDA.  This times a one-work-item kernel that writes one float,
   followed by each way of getting it to the host, and counts the calls
   whose value was stale (such a method cannot deliver a result at all):
     read_pinned   blocking clEnqueueReadBuffer into mapped ALLOC_HOST_PTR memory
     read_pageable blocking clEnqueueReadBuffer into malloc'ed memory
     finish_only   clFinish (no copy: the floor of waiting)
     nb_read_finish  non-blocking read into pinned memory, then clFinish
     map_unmap     kernel writes an ALLOC_HOST_PTR buffer; blocking map, read, unmap
     direct_finish kernel writes the mapped ALLOC_HOST_PTR buffer; clFinish; read
     direct_spin   the same, but clFlush and spin on the host copy (2 ms cap)
     event_wait    non-blocking read into pinned memory with an event, clWaitForEvents
     event_spin    the same, but clFlush and spin on the event's status

   build/bench_cl_sync [reps]   (needs an OpenCL GPU: OCL_ICD_VENDORS) */
#include "bench.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#define SKEL_IMPLEMENTATION
#include "skel.h"
#include "skel_cl.h"

static const char *src = "__kernel void put(__global float *r, float v) { if (get_global_id(0) == 0) r[0] = v; }\n";

enum { READ_PINNED, READ_PAGEABLE, FINISH_ONLY, NB_READ_FINISH, MAP_UNMAP, DIRECT_FINISH, DIRECT_SPIN,
       EVENT_WAIT, EVENT_SPIN, NMETHODS };
static const char *mname[NMETHODS] = { "read_pinned", "read_pageable", "finish_only", "nb_read_finish",
                                       "map_unmap", "direct_finish", "direct_spin", "event_wait", "event_spin" };

#define CK(x) do { cl_int e_ = (x); if (e_ != 0) { fprintf(stderr, "%s: %d\n", #x, e_); exit(1); } } while (0)

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 300, m, r;
    cl_int err;
    cl_program prog;
    cl_kernel k;
    cl_mem dev, host_buf;
    float *pinned, pageable[1];
    size_t one = 1;
    _skel_cl_api *a = &_skel_cl.api;
    cl_int (*unmap)(cl_command_queue, cl_mem, void *, cl_uint, const cl_event *, cl_event *);
    cl_int (*wait)(cl_uint, const cl_event *);
    cl_int (*einfo)(cl_event, cl_uint, size_t, void *, size_t *);
    cl_int (*erelease)(cl_event);
    if (!_skel_cl_probe() || _skel_cl_ready() != SKEL_OK) {
        printf("no OpenCL device (%d found): %s\n", _skel_cl.ndev, skel_last_error());
        return 0;
    }
    *(void **)&unmap = dlsym(_skel_cl.lib, "clEnqueueUnmapMemObject");
    *(void **)&wait = dlsym(_skel_cl.lib, "clWaitForEvents");
    *(void **)&einfo = dlsym(_skel_cl.lib, "clGetEventInfo");
    *(void **)&erelease = dlsym(_skel_cl.lib, "clReleaseEvent");
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("device: %s\n", _skel_cl.dev[_skel_cl.sel].info.name);
    prog = a->clCreateProgramWithSource(_skel_cl.ctx, 1, &src, NULL, &err);
    CK(err);
    CK(a->clBuildProgram(prog, 0, NULL, "", NULL, NULL));
    k = a->clCreateKernel(prog, "put", &err);
    CK(err);
    dev = a->clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_WRITE, 64, NULL, &err);
    CK(err);
    host_buf = a->clCreateBuffer(_skel_cl.ctx, _SKEL_CL_MEM_READ_WRITE | _SKEL_CL_MEM_ALLOC_HOST_PTR, 64, NULL, &err);
    CK(err);
    pinned = (float *)a->clEnqueueMapBuffer(_skel_cl.queue, host_buf, 1, _SKEL_CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
    CK(err);
    for (m = 0; m < NMETHODS; ++m) {
        double t[1000], t0;
        int wrong = 0, n = reps > 1000 ? 1000 : reps;
        cl_mem target = m == MAP_UNMAP || m == DIRECT_FINISH || m == DIRECT_SPIN ? host_buf : dev;
        for (r = -5; r < n; ++r) {
            float v = (float)(r + 7 + 1000 * m), got = -1;
            volatile float *spin = pinned;
            CK(a->clSetKernelArg(k, 0, sizeof(cl_mem), &target));
            CK(a->clSetKernelArg(k, 1, sizeof v, &v));
            t0 = bench_now();
            CK(a->clEnqueueNDRangeKernel(_skel_cl.queue, k, 1, NULL, &one, &one, 0, NULL, NULL));
            switch (m) {
            case READ_PINNED: CK(a->clEnqueueReadBuffer(_skel_cl.queue, dev, 1, 0, 4, pinned, 0, NULL, NULL)); got = *pinned; break;
            case READ_PAGEABLE: CK(a->clEnqueueReadBuffer(_skel_cl.queue, dev, 1, 0, 4, pageable, 0, NULL, NULL)); got = pageable[0]; break;
            case FINISH_ONLY: CK(a->clFinish(_skel_cl.queue)); got = v; break;
            case NB_READ_FINISH:
                CK(a->clEnqueueReadBuffer(_skel_cl.queue, dev, 0, 0, 4, pinned, 0, NULL, NULL));
                CK(a->clFinish(_skel_cl.queue));
                got = *pinned;
                break;
            case MAP_UNMAP: {
                float *p;
                CK(unmap(_skel_cl.queue, host_buf, pinned, 0, NULL, NULL));
                p = (float *)a->clEnqueueMapBuffer(_skel_cl.queue, host_buf, 1, 1 /* READ */ | _SKEL_CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
                CK(err);
                got = *p;
                pinned = p;
                break;
            }
            case DIRECT_FINISH: CK(a->clFinish(_skel_cl.queue)); got = *spin; break;
            case EVENT_WAIT:
            case EVENT_SPIN: {
                cl_event ev;
                cl_int st = 1;
                CK(a->clEnqueueReadBuffer(_skel_cl.queue, dev, 0, 0, 4, pinned, 0, NULL, &ev));
                if (m == EVENT_WAIT) CK(wait(1, &ev));
                else {
                    CK(a->clFlush(_skel_cl.queue));
                    while (st > 0) CK(einfo(ev, 0x11D3 /* CL_EVENT_COMMAND_EXECUTION_STATUS */, sizeof st, &st, NULL));
                    CK(st);
                }
                CK(erelease(ev));
                got = *pinned;
                break;
            }
            case DIRECT_SPIN: {
                double lim = bench_now() + 0.002;
                CK(a->clFlush(_skel_cl.queue));
                while (*spin != v && bench_now() < lim) {}
                got = *spin;
                CK(a->clFinish(_skel_cl.queue));
                break;
            }
            }
            if (r >= 0) t[r] = bench_now() - t0;
            if (got != v) wrong++;
        }
        printf("%-15s median %7.2f us  (%d of %d values wrong)\n", mname[m], 1e6 * bench_median(t, n), wrong, n + 5);
    }
    return 0;
}
