/* The CUDA request path: the allocation calls as the entry points hand them over.
 *
 * Device allocations (cuMemAlloc, cuMemAllocPitch, cuMemAllocAsync, and cudaMalloc
 * through them) go to the policy with api = cuda: a rule's chain of device, managed and
 * pinned tiers, else the calling context's GPU, whose tier keeps its limit; a chain that
 * runs out answers CUDA_ERROR_OUT_OF_MEMORY. Memory the program asks for as pinned or
 * managed itself (cuMemHostAlloc, cuMemHostRegister, cuMemAllocManaged...) is the
 * driver's, counted in the policy's tier of that kind; a pool's blocks
 * (cuMemAllocFromPoolAsync) in their GPU's; cuMemCreate's in engine/cuda_vmm.c.
 * cuMemGetInfo and NVML's memory queries answer within a GPU's limit. */
#ifndef PLACE_CUDA_PATH_H
#define PLACE_CUDA_PATH_H

#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/hidden.h"
#include "../tiers/driver.h"
#include "blocks.h"
#include "../tiers/nvml_api.h"

/* Whether libplace takes part in CUDA calls at all: a policy or a report asked for it
 * (set once at start). Off, every call goes straight to the driver. */
extern PLACE_HIDDEN bool place_cuda_on;

/* A device allocation of size bytes (for PITCH: the pitch times the height), the
 * program's own call being c. */
CUresult place_cuda_alloc(CUdeviceptr *dptr, size_t size, struct place_cu_call *c, uintptr_t ra);

/* cuMemFree and cuMemFreeAsync (c->next is the driver's free, c->stream its stream). */
CUresult place_cuda_free(CUdeviceptr d, struct place_cu_call *c);

/* Memory the driver gave the program of its own accord (pinned, managed, a pool's block,
 * cuMemCreate's) counted under key (its pointer or handle) in map m: in the tier of kind
 * (dev: the GPU, for device memory; -1 the calling context's), and in that tier's heap of
 * their owner when the code at ra (0: none to look for) lies in a library that keeps one
 * (modules.h: NVSHMEM, or the policy's `heaps`). False when the GPU's limit refuses them;
 * host memory the program asked for by kind (pinned, managed) is counted past any limit. */
bool place_cuda_charge(enum place_block_map m, enum place_kind kind, int dev, uint64_t key,
                       size_t size, uintptr_t ra);

/* A block's count (as place_blocks_take gives it back) undone. */
void place_cuda_uncount(const struct place_block *b);

/* Its free: the count given back. Whether key was counted. */
bool place_cuda_discharge(uint64_t key);

/* cuMemAllocFromPoolAsync's block d of size bytes from pool: counted on the pool's GPU
 * (tiers/mempools.h); false when that GPU's limit refuses it. Pool blocks never spill: a
 * pool's properties (its GPU, its export for IPC) are the program's choice. */
bool place_cuda_pool_block(CUmemoryPool pool, CUdeviceptr d, size_t size);

/* The driver said GPU dev is out of memory (-1: pool's GPU, else the calling context's):
 * whether trimming that GPU's pools gave memory back, so that the call is worth making
 * once more (tiers/mempools.h). */
bool place_cuda_trim(int dev, CUmemoryPool pool);

/* GPU dev's (-1: the calling context's) memory as the driver or NVML gave it, brought within its tier's limit: total
 * no more than the limit, free no more than what the limit leaves of it beside what the
 * program holds (so free never underflows and free plus held never passes total). False,
 * with nothing changed, when no limit applies (no such GPU, no limit, CUDA off). */
bool place_cuda_fit(int dev, uint64_t *total, uint64_t *free);

/* place_cuda_fit for NVML's device: false, with nothing changed, until the program has
 * started CUDA (libplace never starts it for a query: tiers/driver.h), or when the device
 * is none of this process's CUDA devices. */
bool place_cuda_nvml_fit(nvmlDevice_t device, uint64_t *total, uint64_t *free);

/* The tier that holds the block a CUDA call handed out as p, or NULL. */
struct place_tier *place_cuda_whose(const void *p);

#endif
