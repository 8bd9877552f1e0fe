/* The CUDA driver as libplace itself calls it.
 *
 * libcuda.so.1 is dlopened at first need (DESIGN.md section 7): a program that never
 * places memory with CUDA never loads it. The functions libplace calls are the driver's
 * own, looked up by their versioned names in its handle, so they never reach libplace's
 * exported wrappers of the same names. Without a driver, or when it fails to start, the
 * CUDA tiers are unavailable and say why. */
#ifndef PLACE_DRIVER_H
#define PLACE_DRIVER_H

#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/hidden.h"
#include "../base/lib.h"

struct place_driver {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceTotalMem)(size_t *, CUdevice);
    CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*CtxGetCurrent)(CUcontext *);
    CUresult (*CtxGetDevice)(CUdevice *);
    CUresult (*CtxPushCurrent)(CUcontext);
    CUresult (*CtxPopCurrent)(CUcontext *);
    CUresult (*MemGetInfo)(size_t *, size_t *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemAllocManaged)(CUdeviceptr *, size_t, unsigned);
    CUresult (*MemAdvise)(CUdeviceptr, size_t, CUmem_advise, CUmemLocation);
    CUresult (*MemHostRegister)(void *, size_t, unsigned);
    CUresult (*MemHostUnregister)(void *);
    CUresult (*MemHostGetDevicePointer)(CUdeviceptr *, void *, unsigned);
    CUresult (*StreamSynchronize)(CUstream);
    CUresult (*GetErrorName)(CUresult, const char **);
    CUresult (*PointerGetAttribute)(void *, CUpointer_attribute, CUdeviceptr);
    CUresult (*DeviceGetUuid)(CUuuid *, CUdevice);
    CUresult (*DeviceGetDefaultMemPool)(CUmemoryPool *, CUdevice);
    CUresult (*DeviceGetMemPool)(CUmemoryPool *, CUdevice);
    CUresult (*MemPoolGetAttribute)(CUmemoryPool, CUmemPool_attribute, void *);
    CUresult (*MemPoolTrimTo)(CUmemoryPool, size_t);
    int devices;      /* GPUs the driver reports */
    size_t total[64]; /* each GPU's memory, from the driver at start */
};

extern PLACE_HIDDEN struct place_driver place_cu;

/* Initialises the loaded driver (cuInit) and counts its GPUs: NULL, or why not. Run once,
 * by place_cuda_start. */
const char *place_driver_start(void);

/* The driver loaded and initialised (cuInit), its GPUs counted and a tier added for each
 * GPU the policy does not name: NULL, or why not (no driver, cuInit's error). Called on
 * the CUDA tiers' first use; another thread that finds it starting gets place_lib_busy
 * rather than waiting. */
const char *place_cuda_start(void);

/* A CUDA tier's first use: the driver started, else the tier is unavailable with the
 * reason: 0 or -1; 1 while another thread starts the driver. */
struct place_tier;
int place_cuda_prepare(struct place_tier *t);

/* The same for a tier that needs GPU gpu: unavailable when there is no such GPU, with
 * the reason after what ("" or "its location: "). */
int place_cuda_prepare_gpu(struct place_tier *t, int gpu, const char *what);

/* The tier of GPU dev (the policy's deviceN, else one added at start), or NULL. */
struct place_tier *place_cuda_device_tier(int dev);

/* A CUDA allocation or free as the program made it: which driver function it reached
 * (the variant its lookup chose, so that a device tier makes the same call), that call's
 * arguments, and what came of it. */
enum place_cu_how { PLACE_CU_PLAIN, PLACE_CU_PITCH, PLACE_CU_ASYNC };
struct place_cu_call {
    enum place_cu_how how;
    void *next;
    CUstream stream;
    size_t *pitch, width, height;
    unsigned elem;
    bool pitched; /* the driver's pitched call made the block, and set *pitch */
    CUresult rc;  /* the first error other than out of memory a driver call gave */
};

/* The program's own call (c->next) for size bytes: what it would get without libplace. */
CUresult place_cu_call_alloc(struct place_cu_call *c, CUdeviceptr *dptr, size_t size);

/* The program's own free (c->next, on c->stream for the async one). */
CUresult place_cu_call_free(const struct place_cu_call *c, CUdeviceptr d);

/* A driver symbol by its exact (versioned) name, the driver loaded first; NULL without
 * a driver or without that symbol. */
void *place_driver_sym(const char *name);

/* Whether fn is a function of the loaded driver (libcuda.so.1). */
bool place_driver_owns(const void *fn);

/* Whether the program has started the driver (cuInit): asked without starting it, which
 * a query of another library (NVML's) must never do. A program that starts CUDA and then
 * forks has children that cannot use it, and programs that fork workers ask NVML first
 * for that reason (vLLM). */
bool place_driver_running(void);

/* Runs what follows with a context current on GPU dev (-1: any GPU). The calling
 * thread's own context serves when it is on that GPU; otherwise the GPU's primary
 * context (retained once, as the CUDA runtime does) is pushed, and popped by leave. */
struct place_ctx {
    bool pushed;
};
CUresult place_ctx_enter(int dev, struct place_ctx *c);
void place_ctx_leave(struct place_ctx *c);

/* The GPU of the calling thread's context, or -1 without one. */
int place_ctx_device(void);

/* Says once per tier that the driver refused it memory, and why. */
void place_cu_refused(struct place_tier *t, const char *call, size_t size, CUresult rc);


#endif
