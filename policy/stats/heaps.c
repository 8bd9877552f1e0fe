#include "heaps.h"

#include <stdatomic.h>
#include <string.h>

#include "../../config/policy.h"

/* Blocks are made once per heap chunk (hundreds of MiB): atomics, and a name written
 * once by whichever thread claims it first. */
static struct {
    _Atomic uint64_t blocks;
    _Atomic int64_t bytes, peak;
    _Atomic int named; /* 0: no name yet, 1: being written, 2: written */
    char owner[64];
} heaps[PLACE_MAX_TIERS];

void place_heap_changed(unsigned tier, const char *owner, int64_t bytes)
{
    if (tier >= PLACE_MAX_TIERS)
        return;
    int none = 0;
    if (atomic_compare_exchange_strong(&heaps[tier].named, &none, 1)) {
        strncpy(heaps[tier].owner, owner, sizeof heaps[tier].owner - 1);
        atomic_store_explicit(&heaps[tier].named, 2, memory_order_release);
    }
    atomic_fetch_add_explicit(&heaps[tier].blocks, bytes < 0 ? (uint64_t)-1 : 1,
                              memory_order_relaxed);
    int64_t now = atomic_fetch_add_explicit(&heaps[tier].bytes, bytes, memory_order_relaxed) + bytes;
    int64_t peak = atomic_load_explicit(&heaps[tier].peak, memory_order_relaxed);
    while (now > peak && !atomic_compare_exchange_weak(&heaps[tier].peak, &peak, now))
        ;
}

bool place_heap_snapshot(unsigned tier, struct place_heap_stats *out)
{
    if (tier >= PLACE_MAX_TIERS || !atomic_load_explicit(&heaps[tier].named, memory_order_acquire))
        return false;
    *out = (struct place_heap_stats){
        .blocks = atomic_load_explicit(&heaps[tier].blocks, memory_order_relaxed),
        .bytes = atomic_load_explicit(&heaps[tier].bytes, memory_order_relaxed),
        .peak = atomic_load_explicit(&heaps[tier].peak, memory_order_relaxed),
    };
    /* a name claimed but not yet written reads as empty, never torn */
    if (atomic_load_explicit(&heaps[tier].named, memory_order_acquire) == 2)
        memcpy(out->owner, heaps[tier].owner, sizeof out->owner);
    return true;
}
