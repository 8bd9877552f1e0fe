/* CUDA's virtual memory management calls (PyTorch's expandable segments, NVSHMEM's
 * symmetric heap): cuMemCreate's physical blocks counted by where they lie, their
 * mappings, and their end.
 *
 * A block on a GPU counts in that GPU's tier, whose limit refuses it as the GPU would: it
 * has no other place to go (a physical handle cannot be managed memory). A block in host
 * memory (CU_MEM_LOCATION_TYPE_HOST, HOST_NUMA, HOST_NUMA_CURRENT) counts in the policy's
 * pinned tier and never in a GPU's. Mapping a block (cuMemMap, once or many times) counts
 * nothing more; its bytes count until the handle is released and its last mapping
 * unmapped, as the driver keeps them. */
#ifndef PLACE_CUDA_VMM_H
#define PLACE_CUDA_VMM_H

#include <cuda.h>
#include <stdbool.h>
#include <stdint.h>

/* cuMemCreate's block h of size bytes as prop places it, made by the code at ra (a GPU's
 * heap when ra lies in a library that keeps one): false when its GPU's limit refuses it
 * (the caller releases it and answers CUDA_ERROR_OUT_OF_MEMORY). */
bool place_vmm_create(const CUmemAllocationProp *prop, CUmemGenericAllocationHandle h,
                      size_t size, uintptr_t ra);

/* cuMemRelease of h. */
void place_vmm_release(CUmemGenericAllocationHandle h);

/* cuMemMap of h at [va, va + size). */
void place_vmm_map(CUdeviceptr va, size_t size, CUmemGenericAllocationHandle h);

/* cuMemUnmap of [va, va + size): every mapping in it. */
void place_vmm_unmap(CUdeviceptr va, size_t size);

#endif
