#include "cuda_path.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../base/guard.h"
#include "../base/large.h"
#include "../site/modules.h"
#include "../stats/heaps.h"
#include "../stats/sites.h"
#include "../stats/threads.h"
#include "../tiers/driver.h"
#include "../tiers/mempools.h"
#include "../tiers/nvml.h"
#include "blocks.h"
#include "chain.h"
#include "place.h"

bool place_cuda_on;

enum { MAX_GPUS = 64 };

/* The one-tier chain an allocation no rule takes follows on its GPU: no fallback, the
 * GPU is the limit. */
static struct place_rule_config gpu_rules[MAX_GPUS] PLACE_LARGE;

static const char *build_gpu_rules(void *arg)
{
    (void)arg;
    for (int dev = 0; dev < MAX_GPUS; dev++) {
        struct place_tier *t = place_cuda_device_tier(dev);
        if (!t)
            continue;
        struct place_rule_config *r = &gpu_rules[dev];
        snprintf(r->name, sizeof r->name, "%s", t->name);
        r->on_full = PLACE_FALLBACK;
        r->chain[0] = (uint8_t)t->index;
        r->nchain = 1;
    }
    return NULL;
}

/* GPU dev's rule, once the driver has started (its tiers are all known then). */
static const struct place_rule_config *gpu_rule(int dev)
{
    static struct place_once built;
    /* another thread building them is done in a moment: it takes no lock */
    while (place_once(&built, build_gpu_rules, NULL) == place_lib_busy)
        sched_yield();
    return dev >= 0 && dev < MAX_GPUS && gpu_rules[dev].nchain ? &gpu_rules[dev] : NULL;
}

CUresult place_cuda_alloc(CUdeviceptr *dptr, size_t size, struct place_cu_call *c, uintptr_t ra)
{
    if (!c->next)
        return CUDA_ERROR_NOT_INITIALIZED;
    /* libplace's own calls, bad arguments (the driver's to answer) and dry runs, which
     * plan the malloc family only, go straight to the driver */
    bool own = place_guarded();
    uint8_t was = place_guard_enter();
    const struct place_rule_config *chain = NULL;
    int rule = -1;
    if (dptr && size && !own && place_cuda_on && !place_dry_run && !place_cuda_start()) {
        if ((rule = place_match(PLACE_API_CUDA, size, ra)) >= 0)
            chain = place_rules[rule];
        else
            chain = gpu_rule(place_ctx_device());
    }
    if (!chain) {
        CUresult rc = place_cu_call_alloc(c, dptr, size);
        place_guard_leave(was);
        return rc;
    }
    struct place_request r = {.size = size, .call = PLACE_CUDA, .ra = ra, .cu = c};
    unsigned i;
    void *p = place_chain(chain, &r, &i);
    CUresult rc = CUDA_SUCCESS;
    if (p) {
        struct place_tier *t = place_tiers[i];
        CUdeviceptr d = t->allocator->device_ptr ? (CUdeviceptr)t->allocator->device_ptr(t, p)
                                                 : (CUdeviceptr)(uintptr_t)p;
        place_blocks_put(PLACE_BLOCKS_CUDA,
                            &(struct place_block){.key = d,
                                                     .tier = t,
                                                     .host = p,
                                                     .usable = place_tier_usable(t, p, size, 0),
                                                     .placed = true});
        if (c->how == PLACE_CU_PITCH && !c->pitched) /* rows as the entry point sized them */
            *c->pitch = size / c->height;
        if (rule >= 0)
            place_count_rule(rule, ra, i, size);
        *dptr = d;
    } else {
        rc = c->rc ? c->rc : CUDA_ERROR_OUT_OF_MEMORY;
    }
    place_guard_leave(was);
    return rc;
}

CUresult place_cuda_free(CUdeviceptr d, struct place_cu_call *c)
{
    struct place_block b;
    if (!c->next)
        return CUDA_ERROR_NOT_INITIALIZED;
    bool known = d && place_blocks_take(PLACE_BLOCKS_CUDA, d, &b);
    if (!known || !b.placed) { /* the driver's block: a counted one is uncounted if freed */
        CUresult rc = place_cu_call_free(c, d);
        if (known && rc == CUDA_SUCCESS)
            place_tier_uncharge(b.tier, b.usable);
        else if (known)
            place_blocks_put(PLACE_BLOCKS_CUDA, &b);
        return rc;
    }
    uint8_t was = place_guard_enter();
    /* a pool's block has no stream order: work queued on the stream may still use it */
    if (c->how == PLACE_CU_ASYNC && b.tier->config->kind != PLACE_DEVICE)
        place_cu.StreamSynchronize(c->stream);
    b.tier->allocator->release(b.tier, b.host, b.usable, c);
    place_guard_leave(was);
    return c->rc;
}

/* GPU dev, or with dev < 0 the current context's. */
static int device_of(int dev)
{
    return dev < 0 ? place_ctx_device() : dev;
}

/* The policy's first tier of kind, for memory the program asked for by kind. */
static struct place_tier *tier_of(enum place_kind kind, int dev)
{
    if (kind == PLACE_DEVICE)
        return place_cuda_device_tier(device_of(dev));
    for (struct place_tier **t = place_tiers + 1; *t; t++)
        if ((*t)->config && (*t)->config->kind == kind && !(*t)->unavailable)
            return *t;
    return NULL;
}

/* place_cuda_charge's count, into *b (tier NULL: no tier counts it). */
static bool count(enum place_kind kind, int dev, size_t size, uintptr_t ra, struct place_block *b)
{
    *b = (struct place_block){.usable = size};
    struct place_tier *t = !place_cuda_on || place_cuda_start() ? NULL : tier_of(kind, dev);
    if (!t)
        return true;
    /* device memory has nowhere else to go; host memory the program chose is its call */
    if (!place_tier_charge(t, size, kind != PLACE_DEVICE)) {
        place_stats_count(t->stats, PLACE_EV_REFUSED, 1);
        place_stats_count(t->stats, PLACE_EV_FAILURES, 1);
        return false;
    }
    b->tier = t;
    /* only the report tells heaps apart: without one, no symbol table is read */
    char owner[PLACE_HEAP_OWNER_MAX];
    if (ra && place_counting && place_modules_heap_owner(ra, owner, sizeof owner))
        b->heap = (uint8_t)(1 + place_heap_made(t->index, owner, (int64_t)size));
    return true;
}

void place_cuda_uncount(const struct place_block *b)
{
    if (!b->tier)
        return;
    if (b->heap)
        place_heap_released(b->tier->index, b->heap - 1u, (int64_t)b->usable);
    place_tier_uncharge(b->tier, b->usable);
}

bool place_cuda_charge(enum place_block_map m, enum place_kind kind, int dev, uint64_t key,
                       size_t size, uintptr_t ra)
{
    struct place_block b;
    if (!count(kind, dev, size, ra, &b))
        return false;
    b.key = key;
    if (b.tier)
        place_blocks_put(m, &b);
    return true;
}

bool place_cuda_discharge(uint64_t key)
{
    struct place_block b;
    if (!place_blocks_take(PLACE_BLOCKS_CUDA, key, &b))
        return false;
    place_cuda_uncount(&b);
    return true;
}

bool place_cuda_fit(int dev, uint64_t *total, uint64_t *free)
{
    struct place_tier *t =
        !place_cuda_on || place_cuda_start() ? NULL : place_cuda_device_tier(device_of(dev));
    if (!t || !t->limit)
        return false;
    int64_t used = place_tier_held(t);
    if (t->limit < *total)
        *total = t->limit;
    /* free plus what the program holds never exceeds total (PyTorch checks this) */
    uint64_t room = used < 0 ? *total : (uint64_t)used >= *total ? 0 : *total - (uint64_t)used;
    if (room < *free)
        *free = room;
    return true;
}

struct place_tier *place_cuda_whose(const void *p)
{
    struct place_block b;
    return place_blocks_find(PLACE_BLOCKS_CUDA, (uintptr_t)p, &b) ? b.tier : NULL;
}

bool place_cuda_pool_block(CUmemoryPool pool, CUdeviceptr d, size_t size)
{
    if (!place_cuda_on || place_cuda_start())
        return true;
    return place_cuda_charge(PLACE_BLOCKS_CUDA, PLACE_DEVICE, place_mempool_device(pool, d), d,
                             size, 0);
}

bool place_cuda_trim(int dev, CUmemoryPool pool)
{
    if (!place_cuda_on || place_cuda_start())
        return false;
    if (dev < 0 && pool)
        dev = place_mempool_device(pool, 0);
    return place_mempools_trim(device_of(dev));
}

bool place_cuda_nvml_fit(nvmlDevice_t device, uint64_t *total, uint64_t *free)
{
    if (!place_cuda_on || !place_driver_running() || place_cuda_start())
        return false;
    int dev = place_nvml_cuda_device(device);
    return dev >= 0 && place_cuda_fit(dev, total, free);
}
