/* The CUDA allocation calls, as the shim's entry points hand them over (shim/cuda.c).
 *
 * Device allocations (cuMemAlloc, cuMemAllocPitch, cuMemAllocAsync, and cudaMalloc
 * through them) go to the policy with api = cuda: a rule's chain of device, managed and
 * pinned tiers, else the calling context's GPU, whose tier keeps its limit; a chain that
 * runs out answers CUDA_ERROR_OUT_OF_MEMORY. Memory the program asks for as pinned or
 * managed itself (cuMemHostAlloc, cuMemHostRegister, cuMemAllocManaged...) is the
 * driver's, counted in the policy's tier of that kind, and cuMemCreate's in its GPU's.
 * cuMemGetInfo answers within a GPU's limit. */
#ifndef PLACE_CUDA_CALLS_H
#define PLACE_CUDA_CALLS_H

#include <cuda.h>
#include <stdint.h>

#include "../../config/policy.h"

/* One call as the program made it: which driver function it reached (the variant its
 * lookup chose, so that a device tier makes the same call) and that call's arguments. */
enum place_cu_how { PLACE_CU_PLAIN, PLACE_CU_PITCH, PLACE_CU_ASYNC };
struct place_cu_request {
    enum place_cu_how how;
    void *next;
    CUstream stream;
    size_t *pitch, width, height;
    unsigned elem;
    bool pitched; /* the driver's pitched call made the block, and set *pitch */
    CUresult rc;  /* the first error other than out of memory a driver call gave */
};

/* The program's own call (r->next) for size bytes: what it would get without libplace. */
CUresult place_cu_request_alloc(struct place_cu_request *r, CUdeviceptr *dptr, size_t size);

/* The program's own free (r->next, on r->stream for the async one). */
CUresult place_cu_request_free(const struct place_cu_request *r, CUdeviceptr d);

/* The request the calling thread is placing now, for the device tier. */
extern __thread struct place_cu_request *place_cu_request
    __attribute__((tls_model("initial-exec")));

/* The return address of the program's call into the CUDA runtime (cudaMalloc...), so
 * that sites name the program's code rather than the runtime's; 0 outside one. */
extern __thread uintptr_t place_cu_site __attribute__((tls_model("initial-exec")));

/* Whether libplace takes part in CUDA calls at all: a policy or a report asked for it
 * (set once at start). Off, every call goes straight to the driver. */
extern bool place_cuda_on;

/* Loads and starts the driver and adds a tier for each GPU the policy does not name.
 * NULL, or why the CUDA tiers cannot be offered. */
const char *place_cuda_start(void);

/* A CUDA tier's first use: the driver started (place_cuda_start), else the tier is
 * unavailable with the reason: 0 or -1; 1 while another thread starts the driver. */
struct place_tier;
int place_cuda_prepare(struct place_tier *t);

/* The same for a tier that needs GPU gpu: unavailable when there is no such GPU, with
 * the reason after what ("" or "its location: "). */
int place_cuda_prepare_gpu(struct place_tier *t, int gpu, const char *what);

/* A device allocation of size bytes (for PITCH: the pitch times the height). */
CUresult place_cuda_alloc(CUdeviceptr *dptr, size_t size, struct place_cu_request *r, uintptr_t ra);

/* cuMemFree and cuMemFreeAsync (r->next is the driver's free, r->stream its stream). */
CUresult place_cuda_free(CUdeviceptr d, struct place_cu_request *r);

/* Memory the driver gave the program of its own accord: counted in the policy's first
 * tier of kind (for device: GPU dev's tier) under key, past any limit. For device
 * memory a limit is kept: false when it is full (the call is then refused). */
bool place_cuda_charge(enum place_kind kind, int dev, uint64_t key, size_t size, bool handle);

/* Its free: the count given back. Whether key was counted. */
bool place_cuda_discharge(uint64_t key, bool handle);

/* cuMemGetInfo's answer brought within the calling context's GPU's limit. */
void place_cuda_meminfo(size_t *free, size_t *total);

/* The tier of GPU dev, or NULL. */
struct place_tier *place_cuda_device_tier(int dev);

#endif
