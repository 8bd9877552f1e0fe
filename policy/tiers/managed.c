/* managed: CUDA managed (unified) memory, which the CPU and every GPU address alike and
 * the driver migrates on demand.
 *
 * Chunks come from cuMemAllocManaged, with the policy's preferred location given to
 * cuMemAdvise. The driver chooses their addresses, so each chunk is registered with the
 * owner table while the pool holds it. Nothing touches the driver before the tier's
 * first use. */
#include <stdio.h>

#include "../../config/policy.h"
#include "driver.h"
#include "owner.h"
#include "pool.h"
#include "tier.h"

/* The preferred location cuMemAdvise is given, as the tier's location key says. */
static CUmemLocation location(const struct place_tier_config *c)
{
    if (c->location == -1)
        return (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_HOST};
    return (CUmemLocation){.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = c->location};
}

static void *managed_get(struct place_tier *t, size_t size, const struct place_request *r,
                         uintptr_t *device)
{
    (void)r;
    struct place_ctx c;
    CUdeviceptr d = 0;
    const char *call = "cuMemAllocManaged";
    CUresult rc = place_ctx_enter(t->config->location >= 0 ? t->config->location : -1, &c);
    if (rc == CUDA_SUCCESS) {
        rc = place_cu.MemAllocManaged(&d, size, CU_MEM_ATTACH_GLOBAL);
        if (rc == CUDA_SUCCESS && t->config->location != -2 &&
            (rc = place_cu.MemAdvise(d, size, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
                                     location(t->config)))) {
            call = "cuMemAdvise";
            place_cu.MemFree(d);
        }
        place_ctx_leave(&c);
    }
    if (rc != CUDA_SUCCESS) {
        char what[64];
        snprintf(what, sizeof what, "a chunk (%s)", call);
        place_cu_refused(t, what, size, rc);
        return NULL;
    }
    if (place_owner_add((void *)(uintptr_t)d, size, t) != 0) {
        place_cu_refused(t, "a chunk (libplace's table of owned ranges is full)", size,
                         CUDA_ERROR_OUT_OF_MEMORY);
        place_cu.MemFree(d);
        return NULL;
    }
    *device = (uintptr_t)d;
    return (void *)(uintptr_t)d;
}

static void managed_put(struct place_tier *t, void *p, size_t size, struct place_cu_call *cu)
{
    (void)t, (void)size, (void)cu;
    place_owner_remove(p);
    struct place_ctx c;
    if (place_ctx_enter(-1, &c) == CUDA_SUCCESS) {
        place_cu.MemFree((CUdeviceptr)(uintptr_t)p);
        place_ctx_leave(&c);
    }
}


static int managed_prepare(struct place_tier *t)
{
    int gpu = t->config->location;
    return gpu >= 0 ? place_cuda_prepare_gpu(t, gpu, "its location: ") : place_cuda_prepare(t);
}

/* A pool's chunks (tiers/pool.h), allocated managed. */
const struct place_source place_managed_source = {
    .init = place_pool_tier,
    .prepare = managed_prepare,
    .stats = place_host_stats,
    .get = managed_get,
    .put = managed_put,
};
