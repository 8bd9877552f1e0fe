#include "calls.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../../shim/thread.h"
#include "../chain.h"
#include "../place.h"
#include "../pool.h"
#include "../tier.h"
#include "blocks.h"
#include "driver.h"

__thread struct place_cu_request *place_cu_request __attribute__((tls_model("initial-exec")));
__thread uintptr_t place_cu_site __attribute__((tls_model("initial-exec")));

bool place_cuda_on;

enum { MAX_GPUS = 64 };

/* Each GPU's tier (the policy's deviceN, else one added at start), and the one-tier
 * chain an allocation no rule takes follows on it: no fallback, the GPU is the limit. */
static struct place_tier *gpu_tier[MAX_GPUS];
static struct place_rule_config gpu_rule[MAX_GPUS];

struct place_tier *place_cuda_device_tier(int dev)
{
    return dev >= 0 && dev < MAX_GPUS ? gpu_tier[dev] : NULL;
}

/* GPU dev's tier is place_tiers[i]. */
static void use_tier(int dev, unsigned i)
{
    gpu_tier[dev] = place_tiers[i];
    gpu_rule[dev] =
        (struct place_rule_config){.nchain = 1, .chain = {(uint8_t)i}, .on_full = PLACE_FALLBACK};
    strcpy(gpu_rule[dev].name, place_tiers[i]->name);
}

static void add_gpu_tiers(void)
{
    static struct place_tier added[MAX_GPUS];
    static struct place_tier_config config[MAX_GPUS];
    unsigned n = 1;
    for (; place_tiers[n]; n++) {
        const struct place_tier_config *c = place_tiers[n]->config;
        if (c->kind == PLACE_DEVICE && c->device < MAX_GPUS && !gpu_tier[c->device])
            use_tier(c->device, n);
    }
    for (int d = 0; d < place_cu.devices && d < MAX_GPUS && n < PLACE_MAX_TIERS; d++) {
        if (gpu_tier[d])
            continue;
        struct place_tier_config *c = &config[d];
        snprintf(c->name, sizeof c->name, "device%d", d);
        c->kind = PLACE_DEVICE;
        c->device = d;
        added[d] = (struct place_tier){
            .name = c->name, .config = c, .ops = &place_device_ops, .prepared = 2};
        /* the report may be reading the list: the tier is whole before it is in it */
        __atomic_store_n(&place_tiers[n], &added[d], __ATOMIC_RELEASE);
        use_tier(d, n++);
    }
}

const char *place_cuda_start(void)
{
    static _Atomic bool added;
    const char *why = place_driver_start();
    if (!why && !atomic_exchange(&added, true))
        add_gpu_tiers();
    return why;
}

int place_cuda_prepare(struct place_tier *t)
{
    const char *why = place_cuda_start();
    if (why == place_driver_busy)
        return 1;
    return (t->unavailable = why) ? -1 : 0;
}

int place_cuda_prepare_gpu(struct place_tier *t, int gpu, const char *what)
{
    int rc = place_cuda_prepare(t);
    if (rc == 0 && gpu >= place_cu.devices) {
        snprintf(t->reason, sizeof t->reason,
                 "%sGPU %d does not exist (the CUDA driver reports %d)", what, gpu,
                 place_cu.devices);
        t->unavailable = t->reason;
        rc = -1;
    }
    return rc;
}

CUresult place_cu_request_alloc(struct place_cu_request *r, CUdeviceptr *dptr, size_t size)
{
    switch (r->how) {
    case PLACE_CU_PITCH:
        r->pitched = true;
        return ((CUresult(*)(CUdeviceptr *, size_t *, size_t, size_t, unsigned))r->next)(
            dptr, r->pitch, r->width, r->height, r->elem);
    case PLACE_CU_ASYNC:
        return ((CUresult(*)(CUdeviceptr *, size_t, CUstream))r->next)(dptr, size, r->stream);
    default:
        return ((CUresult(*)(CUdeviceptr *, size_t))r->next)(dptr, size);
    }
}

CUresult place_cu_request_free(const struct place_cu_request *r, CUdeviceptr d)
{
    return r->how == PLACE_CU_ASYNC ? ((CUresult(*)(CUdeviceptr, CUstream))r->next)(d, r->stream)
                                    : ((CUresult(*)(CUdeviceptr))r->next)(d);
}

CUresult place_cuda_alloc(CUdeviceptr *dptr, size_t size, struct place_cu_request *r, uintptr_t ra)
{
    if (!r->next)
        return CUDA_ERROR_NOT_INITIALIZED;
    /* libplace's own calls, bad arguments (the driver's to answer) and dry runs, which
     * plan the malloc family only, go straight to the driver */
    bool own = place_self.state == PLACE_THREAD_BUSY;
    uint8_t was = place_guard_enter();
    const struct place_rule_config *chain = NULL;
    int rule = -1;
    if (dptr && size && !own && place_cuda_on && !place_dry_run && !place_cuda_start()) {
        int dev;
        if ((rule = place_match(PLACE_API_CUDA, size, ra)) >= 0)
            chain = place_rules[rule].config;
        else if (place_cuda_device_tier(dev = place_ctx_device()))
            chain = &gpu_rule[dev];
    }
    if (!chain) {
        CUresult rc = place_cu_request_alloc(r, dptr, size);
        place_guard_leave(was);
        return rc;
    }
    struct place_cu_request *outer = place_cu_request;
    place_cu_request = r;
    unsigned i;
    void *p = place_chain(chain, size, 0, PLACE_CUDA, &i);
    place_cu_request = outer;
    CUresult rc = CUDA_SUCCESS;
    if (p) {
        struct place_tier *t = place_tiers[i];
        CUdeviceptr d = t->config->kind == PLACE_PINNED
                            ? (CUdeviceptr)place_pool_device(t->state, p)
                            : (CUdeviceptr)(uintptr_t)p;
        place_cu_blocks_put(PLACE_CU_POINTERS,
                            &(struct place_cu_block){.key = d,
                                                     .tier = t,
                                                     .host = p,
                                                     .usable = place_tier_counted(t, p, size, 0),
                                                     .placed = true});
        if (r->how == PLACE_CU_PITCH && !r->pitched) /* rows as shim/cuda.c sized them */
            *r->pitch = size / r->height;
        if (rule >= 0)
            place_count_rule(rule, ra, i, size);
        *dptr = d;
    } else {
        rc = r->rc ? r->rc : CUDA_ERROR_OUT_OF_MEMORY;
    }
    place_guard_leave(was);
    return rc;
}

CUresult place_cuda_free(CUdeviceptr d, struct place_cu_request *r)
{
    struct place_cu_block b;
    if (!r->next)
        return CUDA_ERROR_NOT_INITIALIZED;
    bool known = d && place_cu_blocks_take(PLACE_CU_POINTERS, d, &b);
    if (!known || !b.placed) { /* the driver's block: a counted one is uncounted if freed */
        CUresult rc = place_cu_request_free(r, d);
        if (known && rc == CUDA_SUCCESS)
            place_tier_forget(b.tier, b.usable);
        else if (known)
            place_cu_blocks_put(PLACE_CU_POINTERS, &b);
        return rc;
    }
    uint8_t was = place_guard_enter();
    /* a pool's block has no stream order: work queued on the stream may still use it */
    if (r->how == PLACE_CU_ASYNC && b.tier->config->kind != PLACE_DEVICE)
        place_cu.StreamSynchronize(r->stream);
    struct place_cu_request *outer = place_cu_request;
    place_cu_request = r;
    place_tier_free_sized(b.tier, b.host, b.usable);
    place_cu_request = outer;
    place_guard_leave(was);
    return r->rc;
}

/* The policy's first tier of kind, for memory the program asked for by kind. */
static struct place_tier *tier_of(enum place_kind kind, int dev)
{
    if (kind == PLACE_DEVICE)
        return place_cuda_device_tier(dev);
    for (struct place_tier **t = place_tiers + 1; *t; t++)
        if ((*t)->config && (*t)->config->kind == kind && !(*t)->unavailable)
            return *t;
    return NULL;
}

bool place_cuda_charge(enum place_kind kind, int dev, uint64_t key, size_t size, bool handle)
{
    struct place_tier *t = !place_cuda_on || place_cuda_start() ? NULL : tier_of(kind, dev);
    if (!t)
        return true;
    /* device memory has nowhere else to go; host memory the program chose is its call */
    if (!place_tier_charge(t, size, kind != PLACE_DEVICE)) {
        atomic_fetch_add(&t->stats.refused, 1);
        atomic_fetch_add(&t->stats.failures, 1);
        return false;
    }
    place_cu_blocks_put(handle ? PLACE_CU_HANDLES : PLACE_CU_POINTERS,
                        &(struct place_cu_block){.key = key, .tier = t, .usable = size});
    return true;
}

bool place_cuda_discharge(uint64_t key, bool handle)
{
    struct place_cu_block b;
    if (!place_cu_blocks_take(handle ? PLACE_CU_HANDLES : PLACE_CU_POINTERS, key, &b))
        return false;
    place_tier_forget(b.tier, b.usable);
    return true;
}

void place_cuda_meminfo(size_t *free, size_t *total)
{
    struct place_tier *t =
        !place_cuda_on || place_cuda_start() ? NULL : place_cuda_device_tier(place_ctx_device());
    if (!t || !t->limit)
        return;
    int64_t used = atomic_load(&t->stats.bytes);
    if (t->limit < *total)
        *total = t->limit;
    /* free plus what the program holds never exceeds total (PyTorch checks this) */
    size_t room = used < 0 ? *total : (uint64_t)used >= *total ? 0 : *total - (size_t)used;
    if (room < *free)
        *free = room;
}
