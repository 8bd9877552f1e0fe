/* The GPUs as tiers: the driver started on the CUDA tiers' first use, and a device tier
 * for every GPU, the policy's deviceN or one added when the driver starts, so that the
 * report shows every GPU and a GPU keeps its limit on allocations no rule takes. */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../../config/policy.h"
#include "../base/large.h"
#include "driver.h"
#include "tier.h"

enum { MAX_GPUS = 64 };

static struct place_tier *gpu_tier[MAX_GPUS];

struct place_tier *place_cuda_device_tier(int dev)
{
    return dev >= 0 && dev < MAX_GPUS ? gpu_tier[dev] : NULL;
}

static void add_gpu_tiers(void)
{
    static struct place_tier added[MAX_GPUS] PLACE_LARGE;
    static struct place_tier_config config[MAX_GPUS] PLACE_LARGE;
    for (unsigned n = 1; place_tiers[n]; n++) {
        const struct place_tier_config *c = place_tiers[n]->config;
        if (c->kind == PLACE_DEVICE && c->device < MAX_GPUS && !gpu_tier[c->device])
            gpu_tier[c->device] = place_tiers[n];
    }
    for (int d = 0; d < place_cu.devices && d < MAX_GPUS; d++) {
        if (gpu_tier[d])
            continue;
        struct place_tier_config *c = &config[d];
        snprintf(c->name, sizeof c->name, "device%d", d);
        c->kind = PLACE_DEVICE;
        c->device = d;
        added[d].allocator = &place_direct_allocator;
        added[d].source = &place_device_source;
        if (!(gpu_tier[d] = place_tiers_add(&added[d], c)))
            return; /* the table is full: the rest go uncounted */
    }
}

static const char *start(void *arg)
{
    (void)arg;
    const char *why = place_driver_start();
    if (!why)
        add_gpu_tiers();
    return why;
}

const char *place_cuda_start(void)
{
    static struct place_once started;
    return place_once(&started, start, NULL);
}

int place_cuda_prepare(struct place_tier *t)
{
    const char *why = place_cuda_start();
    if (why == place_lib_busy)
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
