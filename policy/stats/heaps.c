#include "heaps.h"

#include <stdatomic.h>
#include <string.h>

#include "../../config/policy.h"
#include "../base/large.h"
#include "counters.h"

/* Blocks are made once per heap chunk (hundreds of MiB): atomics, and a name written
 * once by whichever thread claims its slot first. */
static struct slot {
    _Atomic uint64_t blocks;
    _Atomic int64_t bytes, peak;
    _Atomic int named; /* 0: free, 1: its name being written, 2: written */
    char owner[PLACE_HEAP_OWNER_MAX];
} heaps[PLACE_MAX_TIERS][PLACE_HEAP_OWNERS] PLACE_LARGE;

static bool owns(struct slot *s, const char *owner)
{
    while (atomic_load_explicit(&s->named, memory_order_acquire) == 1)
        ; /* another thread's strncpy of at most 63 bytes */
    return strcmp(s->owner, owner) == 0;
}

/* owner's slot in tier: its own, a free one claimed, or the last for every other. */
static unsigned slot_of(unsigned tier, const char *owner)
{
    for (unsigned k = 0;; k++) {
        struct slot *s = &heaps[tier][k];
        int none = 0;
        if (k == PLACE_HEAP_OWNERS - 1)
            owner = PLACE_HEAP_OTHERS;
        if (atomic_compare_exchange_strong(&s->named, &none, 1)) {
            strncpy(s->owner, owner, sizeof s->owner - 1);
            atomic_store_explicit(&s->named, 2, memory_order_release);
            return k;
        }
        if (k == PLACE_HEAP_OWNERS - 1 || owns(s, owner))
            return k;
    }
}

/* A block made (blocks +1) or released (-1) of bytes (signed as blocks). */
static void change(struct slot *s, int blocks, int64_t bytes)
{
    atomic_fetch_add_explicit(&s->blocks, (uint64_t)(int64_t)blocks, memory_order_relaxed);
    int64_t now = atomic_fetch_add_explicit(&s->bytes, bytes, memory_order_relaxed) + bytes;
    place_stats_raise(&s->peak, now);
}

unsigned place_heap_made(unsigned tier, const char *owner, int64_t bytes)
{
    unsigned k = slot_of(tier, owner);
    change(&heaps[tier][k], 1, bytes);
    return k;
}

void place_heap_released(unsigned tier, unsigned slot, int64_t bytes)
{
    change(&heaps[tier][slot], -1, -bytes);
}

unsigned place_heap_snapshot(unsigned tier, struct place_heap_stats *out)
{
    unsigned n = 0;
    for (unsigned k = 0; k < PLACE_HEAP_OWNERS; k++) {
        struct slot *s = &heaps[tier][k];
        /* a name claimed but not yet written is left out, never read torn */
        if (atomic_load_explicit(&s->named, memory_order_acquire) != 2)
            continue;
        struct place_heap_stats *h = &out[n++];
        h->blocks = atomic_load_explicit(&s->blocks, memory_order_relaxed);
        h->bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed);
        h->peak = atomic_load_explicit(&s->peak, memory_order_relaxed);
        if (h->peak < h->bytes) /* read between the bytes' rise and the peak's */
            h->peak = h->bytes;
        memcpy(h->owner, s->owner, sizeof h->owner);
    }
    return n;
}

void place_heaps_restart(void)
{
    for (unsigned t = 0; t < PLACE_MAX_TIERS; t++)
        for (unsigned k = 0; k < PLACE_HEAP_OWNERS; k++)
            atomic_store_explicit(&heaps[t][k].peak,
                                  atomic_load_explicit(&heaps[t][k].bytes, memory_order_relaxed),
                                  memory_order_relaxed);
}
