/* The CUDA driver as libplace itself calls it.
 *
 * libcuda.so.1 is dlopened at first need (DESIGN.md section 7): a program that never
 * places memory with CUDA never loads it. The functions libplace calls are the driver's
 * own, looked up by their versioned names in its handle, so they never reach libplace's
 * exported wrappers of the same names. Without a driver, or when it fails to start, the
 * CUDA tiers are unavailable and say why. */
#ifndef PLACE_CUDA_DRIVER_H
#define PLACE_CUDA_DRIVER_H

#include <cuda.h>
#include <stdbool.h>

struct place_driver {
    void *handle;
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
    int devices;      /* GPUs the driver reports */
    size_t total[64]; /* each GPU's memory, from the driver at start */
};

extern struct place_driver place_cu;

/* What load and start answer while another thread is doing it: not a verdict. */
extern const char place_driver_busy[];

/* dlopens libcuda.so.1 and finds what libplace calls. NULL, or why it cannot. */
const char *place_driver_load(void);

/* The driver loaded and initialised (cuInit), its GPUs counted: NULL, or why not (no
 * driver, cuInit's error). Called on the CUDA tiers' first use; another thread that
 * finds it starting gets place_driver_busy rather than waiting. */
const char *place_driver_start(void);

/* A driver symbol by its exact (versioned) name, the driver loaded first; NULL without
 * a driver or without that symbol. */
void *place_driver_sym(const char *name);

/* Whether fn is a function of the loaded driver (libcuda.so.1). */
bool place_driver_owns(const void *fn);

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
struct place_tier;
void place_cu_refused(struct place_tier *t, const char *call, size_t size, CUresult rc);

/* "CUDA_ERROR_OUT_OF_MEMORY (2)" and the like, for messages. */
const char *place_cu_error(CUresult rc, char *buf, size_t len);

#endif
