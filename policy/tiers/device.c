/* device: a GPU's own memory, for CUDA calls only.
 *
 * No pool: each block is the driver's answer to the call the program made (the same
 * variant, stream and pitch), so the device tier adds a limit and a count, and
 * frameworks that cache device memory themselves keep doing so: the direct allocator
 * (tiers/direct.c) over this source. A block counts its size in whole 512-byte units.
 * When the driver says the GPU is full, its stream-ordered pools are trimmed and the call
 * made once more (tiers/mempools.h). */
#include <stdio.h>

#include "../../config/policy.h"
#include "../base/fmt.h"
#include "../base/out.h"
#include "driver.h"
#include "mempools.h"
#include "tier.h"

static int device_prepare(struct place_tier *t)
{
    int dev = t->config->device, rc = place_cuda_prepare_gpu(t, dev, "");
    char limit[PLACE_SIZE_STR], total[PLACE_SIZE_STR];
    if (rc == 0 && t->limit > place_cu.total[dev] && place_cu.total[dev])
        place_warn("tier %s: limit %s is more than GPU %d has (%s): the GPU's memory is the limit",
                   t->name, place_size_str(limit, (int64_t)t->limit), dev,
                   place_size_str(total, (int64_t)place_cu.total[dev]));
    return rc;
}

/* The program's own call when its context is this GPU's; a pushed context has none of its
 * streams, so a plain allocation serves (and the pitch is computed as for the other
 * tiers). */
static CUresult call(bool pushed, struct place_cu_call *cu, CUdeviceptr *d, size_t size)
{
    return pushed ? place_cu.MemAlloc(d, size) : place_cu_call_alloc(cu, d, size);
}

/* The driver's blocks are aligned for any use; the request's alignment is malloc's. */
static void *device_get(struct place_tier *t, size_t size, const struct place_request *r,
                        uintptr_t *device)
{
    struct place_cu_call *cu = r ? r->cu : NULL;
    if (!cu)
        return NULL;
    struct place_ctx c;
    CUdeviceptr d = 0;
    CUresult rc = place_ctx_enter(t->config->device, &c);
    if (rc == CUDA_SUCCESS) {
        rc = call(c.pushed, cu, &d, size);
        if (rc == CUDA_ERROR_OUT_OF_MEMORY && place_mempools_trim(t->config->device))
            rc = call(c.pushed, cu, &d, size);
        place_ctx_leave(&c);
    }
    if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_OUT_OF_MEMORY) {
        if (!cu->rc)
            cu->rc = rc;
        place_cu_refused(t, "an allocation", size, rc);
    }
    *device = (uintptr_t)d;
    return rc == CUDA_SUCCESS ? (void *)(uintptr_t)d : NULL;
}

/* Every device block is freed by the program's own call (a CUDA free). */
static void device_put(struct place_tier *t, void *p, size_t size, struct place_cu_call *cu)
{
    (void)t, (void)size;
    if (cu)
        cu->rc = place_cu_call_free(cu, (CUdeviceptr)(uintptr_t)p);
}

/* The GPU's memory, and what the tier does not hold of it: asking the driver at exit,
 * when the report is written, could find it shut down. */
static int device_stats(struct place_tier *t, size_t *total, size_t *free)
{
    int dev = t->config->device;
    if (dev >= place_cu.devices || !place_cu.total[dev])
        return -1;
    int64_t used = place_stats_bytes(t->stats);
    *total = place_cu.total[dev];
    *free = used <= 0 ? *total : (uint64_t)used < *total ? *total - (size_t)used : 0;
    return 0;
}

/* Blocks for the direct allocator (tiers/direct.c), each counting whole 512 bytes. */
const struct place_source place_device_source = {
    .prepare = device_prepare,
    .stats = device_stats,
    .get = device_get,
    .put = device_put,
    .unit = 512,
};
