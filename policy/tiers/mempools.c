#include "mempools.h"

#include <stdatomic.h>

#include "../base/large.h"
#include "../stats/counters.h"
#include "driver.h"
#include "tier.h"

bool place_mempools_trimming;

enum { MAX_POOLS = 256 };

/* Pools by first use; a slot freed by a destroyed pool is taken again. A slot is claimed
 * by its pool first and given its GPU after: until then (and for a slot being freed) its
 * GPU reads -1, unknown, never another pool's. */
static struct {
    _Atomic(CUmemoryPool) pool;
    _Atomic int dev; /* + 1: a slot never written reads 0, unknown */
} pools[MAX_POOLS] PLACE_LARGE;

static int dev_of(int i)
{
    return atomic_load(&pools[i].dev) - 1;
}

static void remember(CUmemoryPool pool, int dev)
{
    for (int i = 0; i < MAX_POOLS; i++) {
        CUmemoryPool none = NULL;
        if (atomic_load(&pools[i].pool) == pool)
            return;
        if (atomic_compare_exchange_strong(&pools[i].pool, &none, pool)) {
            atomic_store(&pools[i].dev, dev + 1);
            return;
        }
    }
    /* a full table: the pool's blocks are asked of the driver each time */
}

int place_mempool_device(CUmemoryPool pool, CUdeviceptr d)
{
    for (int i = 0; i < MAX_POOLS; i++)
        if (atomic_load(&pools[i].pool) == pool && dev_of(i) >= 0)
            return dev_of(i);
    int dev = -1;
    if (!d || place_cu.PointerGetAttribute(&dev, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d) !=
                  CUDA_SUCCESS)
        return -1;
    remember(pool, dev);
    return dev;
}

void place_mempool_destroyed(CUmemoryPool pool)
{
    for (int i = 0; i < MAX_POOLS; i++) {
        if (atomic_load(&pools[i].pool) != pool)
            continue;
        atomic_store(&pools[i].dev, 0);
        atomic_store(&pools[i].pool, NULL);
    }
}

static uint64_t reserved(CUmemoryPool pool)
{
    cuuint64_t n = 0;
    return place_cu.MemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &n) ==
                   CUDA_SUCCESS
               ? n
               : 0;
}

/* What trimming pool gave back. */
static uint64_t trim(CUmemoryPool pool)
{
    uint64_t before = reserved(pool);
    if (!before || place_cu.MemPoolTrimTo(pool, 0) != CUDA_SUCCESS)
        return 0;
    uint64_t after = reserved(pool);
    return after < before ? before - after : 0;
}

bool place_mempools_trim(int dev)
{
    CUdevice d;
    CUmemoryPool def = NULL, cur = NULL;
    if (!place_mempools_trimming || dev < 0 || place_cu.DeviceGet(&d, dev) != CUDA_SUCCESS)
        return false;
    uint64_t back = 0;
    if (place_cu.DeviceGetDefaultMemPool(&def, d) == CUDA_SUCCESS && def)
        back += trim(def);
    if (place_cu.DeviceGetMemPool(&cur, d) == CUDA_SUCCESS && cur && cur != def)
        back += trim(cur);
    for (int i = 0; i < MAX_POOLS; i++) {
        CUmemoryPool p = atomic_load(&pools[i].pool);
        if (p && p != def && p != cur && dev_of(i) == dev)
            back += trim(p);
    }
    struct place_tier *t = place_cuda_device_tier(dev);
    if (back && t)
        place_stats_count(t->stats, PLACE_EV_RECLAIMED, back);
    return back > 0;
}
