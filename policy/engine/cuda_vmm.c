#include "cuda_vmm.h"

#include "../../config/policy.h"
#include "blocks.h"
#include "cuda_path.h"

bool place_vmm_create(const CUmemAllocationProp *prop, CUmemGenericAllocationHandle h,
                      size_t size, uintptr_t ra)
{
    enum place_kind kind;
    switch (prop->location.type) {
    case CU_MEM_LOCATION_TYPE_DEVICE:
        kind = PLACE_DEVICE;
        break;
    case CU_MEM_LOCATION_TYPE_HOST:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA:
    case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
        kind = PLACE_PINNED;
        break;
    default: /* a location newer than libplace: not counted, never refused */
        return true;
    }
    bool device = kind == PLACE_DEVICE;
    return place_cuda_charge(PLACE_BLOCKS_CUDA_HANDLES, kind, device ? prop->location.id : -1, h,
                             size, device ? ra : 0);
}

void place_vmm_release(CUmemGenericAllocationHandle h)
{
    struct place_block gone;
    if (place_blocks_release(h, &gone))
        place_cuda_uncount(&gone);
}

void place_vmm_map(CUdeviceptr va, size_t size, CUmemGenericAllocationHandle h)
{
    struct place_block gone;
    if (place_blocks_map(h, va, size, &gone))
        place_cuda_uncount(&gone);
}

void place_vmm_unmap(CUdeviceptr va, size_t size)
{
    struct place_block gone;
    uint64_t end = va + size < va ? UINT64_MAX : va + size;
    for (uint64_t at = va; at < end;)
        if (place_blocks_unmap(at, end, &at, &gone))
            place_cuda_uncount(&gone);
}
