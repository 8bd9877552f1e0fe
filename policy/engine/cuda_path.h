/* The CUDA request path: the allocation calls as the entry points hand them over.
 *
 * Device allocations (cuMemAlloc, cuMemAllocPitch, cuMemAllocAsync, and cudaMalloc
 * through them) go to the policy with api = cuda: a rule's chain of device, managed and
 * pinned tiers, else the calling context's GPU, whose tier keeps its limit; a chain that
 * runs out answers CUDA_ERROR_OUT_OF_MEMORY. Memory the program asks for as pinned or
 * managed itself (cuMemHostAlloc, cuMemHostRegister, cuMemAllocManaged...) is the
 * driver's, counted in the policy's tier of that kind, and cuMemCreate's in its GPU's
 * (and in that GPU's heap when a library that keeps one, NVSHMEM, made it).
 * cuMemGetInfo answers within a GPU's limit. */
#ifndef PLACE_CUDA_PATH_H
#define PLACE_CUDA_PATH_H

#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/hidden.h"
#include "../tiers/driver.h"

/* Whether libplace takes part in CUDA calls at all: a policy or a report asked for it
 * (set once at start). Off, every call goes straight to the driver. */
extern PLACE_HIDDEN bool place_cuda_on;

/* A device allocation of size bytes (for PITCH: the pitch times the height), the
 * program's own call being c. */
CUresult place_cuda_alloc(CUdeviceptr *dptr, size_t size, struct place_cu_call *c, uintptr_t ra);

/* cuMemFree and cuMemFreeAsync (c->next is the driver's free, c->stream its stream). */
CUresult place_cuda_free(CUdeviceptr d, struct place_cu_call *c);

/* Host memory the driver gave the program of its own accord (managed, pinned): counted
 * in the policy's first tier of kind under key, past any limit. */
void place_cuda_charge(enum place_kind kind, uint64_t key, size_t size);

/* cuMemCreate's block of size bytes on GPU dev, made by the code at ra: counted in GPU
 * dev's tier under its handle, whose limit is kept (false when it is full: the call is
 * then refused), and in the GPU's heap when ra lies in a library that keeps one
 * (modules.h: NVSHMEM, or the policy's `heaps`). */
bool place_cuda_create(int dev, CUmemGenericAllocationHandle h, size_t size, uintptr_t ra);

/* Its free: the count given back. Whether key was counted. */
bool place_cuda_discharge(uint64_t key, bool handle);

/* cuMemGetInfo's answer brought within the calling context's GPU's limit. */
void place_cuda_meminfo(size_t *free, size_t *total);

/* The tier that holds the block a CUDA call handed out as p, or NULL. */
struct place_tier *place_cuda_whose(const void *p);

#endif
