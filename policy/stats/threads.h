/* Per-thread counting: each thread counts glibc's blocks in its own TLS
 * (place_self.allocs, frees: base/guard.h) and the rest in a slot of its own (struct
 * place_slot, place_self.slot), and hands its net bytes to the dram node's shared
 * counters in batches. A snapshot reads a live thread's TLS counts through its slot;
 * the exit hook hands them over, under the registry's lock, before the thread's TLS
 * goes. A thread that ends without running it (a raw exit system call) leaves its
 * stack, and so its TLS, mapped: still readable. */
#ifndef PLACE_THREADS_H
#define PLACE_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/guard.h"
#include "../base/hidden.h"
#include "counters.h"
#include "profile.h"

/* What a thread counts of placed blocks: allocations and frees per node (0 unused). */
struct place_placed_counts {
    uint64_t allocs[PLACE_MAX_TIERS], frees[PLACE_MAX_TIERS];
};

/* A thread's counts for one call site (policy/stats/sites.h): the site table's key, and
 * what it has not handed over to the table's entry yet. */
enum { PLACE_SLOT_SITES = 64 };
struct place_site_pending {
    uint64_t key, allocs, bytes;
};

/* One thread's counts not yet handed to the shared ones. Written only by its thread,
 * read by snapshots; cache lines of its own, so threads never share one. */
struct place_slot {
    const struct place_thread *thread; /* whose TLS holds the rest: set while live */
    int64_t bytes; /* dram's estimate's change, less than a batch (stats/counters.h) */
    struct place_placed_counts placed;
    struct place_site_pending sites[PLACE_SLOT_SITES]; /* direct-mapped by key */
    uint64_t sites_used; /* a bit for each of those that took a key: the ones handed over */
    bool live;
    bool counted; /* its thread is among the threads seen (it registered at an allocation) */
} __attribute__((aligned(64)));

static inline struct place_placed_counts *place_own_placed(void)
{
    struct place_slot *s = place_self.slot;
    return __builtin_expect(s != NULL, 1) ? &s->placed : NULL;
}

/* Counts an allocation or a free (e) of a placed block in node k into a slot's c. */
static inline void place_placed_count(struct place_placed_counts *c, unsigned k,
                                      enum place_event e)
{
    place_own_add(e == PLACE_EV_ALLOCS ? &c->allocs[k] : &c->frees[k], 1);
}

/* The same in the thread's slot, or in the shared counters when it has none. */
static inline void place_node_count(unsigned k, enum place_event e)
{
    struct place_placed_counts *c = place_own_placed();
    if (__builtin_expect(c == NULL, 0)) {
        place_stats_count(&place_nodes[k], e, 1);
        return;
    }
    place_placed_count(c, k, e);
}

/* Whether the pass-through path counts. Counting costs a few nanoseconds per malloc/free
 * pair, so it is done only when someone will read the counts (a report was asked for).
 * It is on from the first allocation, before the constructor can know, so that memory
 * allocated before it is counted when it is later freed; the constructor switches it
 * off when no report is wanted. */
extern PLACE_HIDDEN bool place_counting;

void place_count_slow(unsigned n, unsigned m, int64_t delta);
void place_hand_over_bytes(struct place_slot *s);

/* Counts one pass-through event of the calling thread: n allocations and m frees that
 * changed dram's estimate of bytes in use by delta. */
static inline void place_count(unsigned n, unsigned m, int64_t delta)
{
    if (__builtin_expect(place_self.state != PLACE_THREAD_ACTIVE, 0)) {
        place_count_slow(n, m, delta);
        return;
    }
    if (n)
        place_own_add(&place_self.allocs, n);
    if (m)
        place_own_add(&place_self.frees, m);
    if (!delta)
        return;
    struct place_slot *s = place_self.slot;
    int64_t b = s->bytes + delta;
    place_relaxed_store((uint64_t *)&s->bytes, (uint64_t)b);
    /* |b| > batch, in one compare */
    if (__builtin_expect((uint64_t)b + PLACE_STATS_BATCH > 2 * (uint64_t)PLACE_STATS_BATCH, 0))
        place_hand_over_bytes(s);
}

/* Counts the free of a glibc block p, when nothing else is to be done: false leaves it
 * to the slow path (p may be sampled or NULL, a thread not registered or inside
 * libplace). */
static inline bool place_count_free(const void *p)
{
    if (__builtin_expect(place_self.state != PLACE_THREAD_ACTIVE || place_profile_maybe(p), 0))
        return false;
    place_own_add(&place_self.frees, 1);
    return true;
}

void place_thread_register(bool allocating);

/* A thread about to place a block, or to free one, registers first (once), so that it
 * counts into a slot of its own: called outside the guard. allocating: a thread that
 * registers at a free is among the threads that allocated once it allocates. */
static inline void place_thread_seen(bool allocating)
{
    if (__builtin_expect(place_self.state == PLACE_THREAD_NEW, 0))
        place_thread_register(allocating);
}

/* Called once libplace is ready: threads register on their next count from then on
 * when counting (a report) or placing; place_counting says whether the pass-through
 * path counts. */
void place_threads_start(bool counting, bool placing);

/* The placed counts that live slots still hold, summed into *sum. Without wait, a busy
 * registry is read unlocked (a signal handler). */
void place_threads_pending(struct place_placed_counts *sum, bool wait);

/* What live slots hold for the site with this key, added to *allocs and *bytes (read as
 * they stand, unlocked). */
void place_threads_site(uint64_t key, uint64_t *allocs, uint64_t *bytes);

/* Node k's counts: the shared ones plus what live slots still hold (placed: their
 * placed counts, from place_threads_pending). */
struct place_snapshot place_threads_node(unsigned k, const struct place_placed_counts *placed,
                                         bool wait);

static inline struct place_snapshot place_threads_dram(void)
{
    return place_threads_node(0, NULL, true);
}

/* How many threads have counted an allocation since start (or since the fork, in a
 * child), and how many of those hold a slot now, that is, have not exited. Without wait,
 * a busy registry is read unlocked. */
void place_threads_census(uint64_t *seen, unsigned *live, bool wait);

/* pthread_atfork handlers, run with the guard up (place_self.before_fork: the state
 * before it went up). */
void place_threads_prefork(void);
void place_threads_postfork_parent(void);
void place_threads_postfork_child(void);

#endif
