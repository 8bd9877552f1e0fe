#include "counters.h"

#include <string.h>

#include "../base/assert.h"
#include "timeline.h"

struct place_node_stats place_nodes[PLACE_MAX_TIERS];

static void lower_to(_Atomic int64_t *v, int64_t now)
{
    int64_t was = atomic_load_explicit(v, memory_order_relaxed);
    while (now < was && !atomic_compare_exchange_weak_explicit(v, &was, now, memory_order_relaxed,
                                                               memory_order_relaxed))
        ;
}

/* The bytes in use moved by delta to now: the peak, and the band of the timeline's
 * interval (policy/stats/timeline.c resets it at each point, so a burst between two
 * points shows in it; kept only while there is a timeline). A rise can only raise, a
 * fall only lower. */
static void moved(struct place_node_stats *s, int64_t now, int64_t delta)
{
    if (delta > 0) {
        place_stats_raise(&s->peak, now);
        if (place_timeline_on)
            place_stats_raise(&s->hi, now);
    } else if (place_timeline_on) {
        lower_to(&s->lo, now);
    }
}

void place_stats_add(struct place_node_stats *s, const struct place_counts *c)
{
    if (c->allocs)
        place_stats_count(s, PLACE_EV_ALLOCS, c->allocs);
    if (c->frees)
        place_stats_count(s, PLACE_EV_FREES, c->frees);
    if (c->bytes) {
        int64_t now =
            atomic_fetch_add_explicit(&s->bytes, c->bytes, memory_order_relaxed) + c->bytes;
        moved(s, now, c->bytes);
    }
}

struct place_snapshot place_stats_snapshot(const struct place_node_stats *s,
                                           const struct place_counts *pending)
{
    struct place_snapshot snap = {
        .bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed),
        .peak = atomic_load_explicit(&s->peak, memory_order_relaxed),
    };
    for (unsigned e = 0; e < PLACE_EVENTS; e++)
        snap.events[e] = atomic_load_explicit(&s->events[e], memory_order_relaxed);
    if (pending) {
        snap.events[PLACE_EV_ALLOCS] += place_relaxed_load(&pending->allocs);
        snap.events[PLACE_EV_FREES] += place_relaxed_load(&pending->frees);
        snap.bytes += (int64_t)place_relaxed_load((const uint64_t *)&pending->bytes);
    }
    if (snap.bytes > snap.peak)
        snap.peak = snap.bytes;
    return snap;
}

void place_stats_restart(struct place_node_stats *s)
{
    int64_t bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed);
    memset(s, 0, sizeof *s); /* in a forked child, which has one thread */
    atomic_store_explicit(&s->bytes, bytes, memory_order_relaxed);
    atomic_store_explicit(&s->peak, bytes, memory_order_relaxed);
    atomic_store_explicit(&s->hi, bytes, memory_order_relaxed);
    atomic_store_explicit(&s->lo, bytes, memory_order_relaxed);
}

bool place_stats_reserve(struct place_node_stats *s, int64_t bytes, uint64_t limit)
{
    /* seq_cst even when it only reads: a waiter's failed check must be ordered after its
     * registration as a waiter (policy/engine/chain.c) */
    int64_t now = atomic_load_explicit(&s->bytes, memory_order_seq_cst), after;
    /* no node holds 8 EiB: a size past that (realloc to SIZE_MAX / 2; a size_t of 2^63 or
     * more arrives negative) is refused, even where there is no limit */
    if (bytes < 0)
        return false;
    do {
        if ((limit && (uint64_t)now + (uint64_t)bytes > limit) ||
            __builtin_add_overflow(now, bytes, &after))
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&s->bytes, &now, after, memory_order_seq_cst,
                                                    memory_order_relaxed));
    moved(s, after, bytes);
    return true;
}

void place_stats_release(struct place_node_stats *s, int64_t bytes)
{
    /* seq_cst: a waiter that read the counter before this must see the wake-up after it
     * (policy/engine/chain.c) */
    int64_t now = atomic_fetch_sub_explicit(&s->bytes, bytes, memory_order_seq_cst) - bytes;
    /* a placed node gives back only what it took (dram's, node 0, is an estimate that
     * counts frees of blocks allocated before libplace started) */
    PLACE_ASSERT(now >= 0 || s == &place_nodes[0]);
    moved(s, now, -bytes);
}
