/* pinned: page-locked host memory, which GPUs reach by DMA at full speed.
 *
 * The tier reserves a range of address space as large as the machine's memory at start
 * and registers it with the owner table, so free() knows its blocks by address as for
 * every arena. Chunks are carved from the range and page-locked with cuMemHostRegister
 * (portable to every context, mapped for the GPUs) when the pool needs them; a chunk
 * given back is unregistered and its pages returned to the kernel, and its addresses
 * serve a later chunk. Nothing touches the driver before the tier's first use. */
#include <stdio.h>
#include <sys/mman.h>

#include "../../config/policy.h"
#include "../base/large.h"
#include "../base/pages.h"
#include "arena.h"
#include "driver.h"
#include "owner.h"
#include "pool.h"
#include "tier.h"

enum { SPARE = 64 };

/* A pinned tier's range, by tier index. */
static struct pinned {
    uintptr_t bump, end; /* the range not yet carved */
    struct {
        uintptr_t lo;
        size_t size;
    } spare[SPARE]; /* given back, for later chunks */
    unsigned nspare;
} ranges[PLACE_MAX_TIERS] PLACE_LARGE;

/* Addresses for a chunk: a given-back stretch that holds it, else fresh ones. Called
 * under the pool's lock, as all of the source is. */
static uintptr_t carve(struct pinned *s, size_t size)
{
    for (unsigned k = 0; k < s->nspare; k++)
        if (s->spare[k].size >= size) {
            uintptr_t a = s->spare[k].lo;
            s->spare[k].lo += size;
            s->spare[k].size -= size;
            if (!s->spare[k].size)
                s->spare[k] = s->spare[--s->nspare];
            return a;
        }
    if (s->end - s->bump < size)
        return 0;
    s->bump += size;
    return s->bump - size;
}

static void uncarve(struct pinned *s, uintptr_t a, size_t size)
{
    if (a + size == s->bump)
        s->bump = a;
    else if (s->nspare < SPARE)
        s->spare[s->nspare++] = (typeof(s->spare[0])){a, size};
    /* else those addresses stay unused: the range is the machine's memory, and more */
}

static void *pinned_get(struct place_tier *t, size_t size, const struct place_request *r,
                        uintptr_t *device)
{
    (void)r;
    struct pinned *s = &ranges[t->index];
    uintptr_t a = carve(s, size);
    if (!a)
        return NULL;
    struct place_ctx c;
    CUdeviceptr d = 0;
    CUresult rc = place_ctx_enter(-1, &c);
    if (rc == CUDA_SUCCESS) {
        rc = place_cu.MemHostRegister((void *)a, size,
                                      CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP);
        if (rc == CUDA_SUCCESS && (rc = place_cu.MemHostGetDevicePointer(&d, (void *)a, 0)))
            place_cu.MemHostUnregister((void *)a);
        place_ctx_leave(&c);
    }
    if (rc != CUDA_SUCCESS) {
        place_cu_refused(t, "page-locking a chunk (cuMemHostRegister)", size, rc);
        madvise((void *)a, size, MADV_DONTNEED);
        uncarve(s, a, size);
        return NULL;
    }
    *device = (uintptr_t)d;
    return (void *)a;
}

static void pinned_put(struct place_tier *t, void *p, size_t size, struct place_cu_call *cu)
{
    (void)cu;
    struct place_ctx c;
    if (place_ctx_enter(-1, &c) == CUDA_SUCCESS) {
        place_cu.MemHostUnregister(p);
        place_ctx_leave(&c);
    }
    madvise(p, size, MADV_DONTNEED);
    uncarve(&ranges[t->index], (uintptr_t)p, size);
}

static int pinned_init(struct place_tier *t)
{
    size_t len = place_ram();
    void *p = place_reserve(&len, 64 << 20, MAP_NORESERVE);
    if (!p) {
        t->unavailable = "the kernel refused to reserve address space for it";
        return -1;
    }
    if (place_owner_add(p, len, t) != 0) {
        t->unavailable = "libplace's table of owned ranges is full";
        return -1;
    }
    struct pinned *s = &ranges[t->index];
    s->bump = (uintptr_t)p;
    s->end = (uintptr_t)p + len;
    return place_pool_tier(t);
}

/* A pool's chunks (tiers/pool.h), page-locked. */
const struct place_source place_pinned_source = {
    .init = pinned_init,
    .prepare = place_cuda_prepare,
    .stats = place_host_stats,
    .get = pinned_get,
    .put = pinned_put,
};
