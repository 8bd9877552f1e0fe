/* Per-thread counting of the pass-through path: each thread counts what glibc served it
 * into a slot of its own (struct place_slot, reached through place_self.counts), and
 * hands its net bytes to the dram node's shared counters in batches. A slot stays
 * readable whatever happens to its thread, even one that exits without its exit hook
 * ever running. */
#ifndef PLACE_THREADS_H
#define PLACE_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/guard.h"
#include "counters.h"

/* One thread's counts not yet handed to the shared ones. Written only by its thread,
 * read by snapshots; a cache line each, so threads never share one. */
struct place_slot {
    struct place_counts dram;
    bool live;
} __attribute__((aligned(64)));

/* Whether the pass-through path counts. Counting costs a few nanoseconds per malloc/free
 * pair, so it is done only when someone will read the counts (a report was asked for).
 * It is on from the first allocation, before the constructor can know, so that memory
 * allocated before it is counted when it is later freed; the constructor switches it
 * off when no report is wanted. */
extern bool place_counting;

void place_count_slow(unsigned n, unsigned m, int64_t delta);
void place_hand_over_bytes(struct place_counts *c);

/* Counts one pass-through event of the calling thread: n allocations and m frees that
 * changed the usable bytes in use by delta. */
static inline void place_count(unsigned n, unsigned m, int64_t delta)
{
    struct place_counts *c = place_self.counts;
    if (__builtin_expect(c == NULL, 0)) {
        place_count_slow(n, m, delta);
        return;
    }
    if (n)
        place_relaxed_store(&c->allocs, c->allocs + n);
    if (m)
        place_relaxed_store(&c->frees, c->frees + m);
    int64_t b = c->bytes + delta;
    place_relaxed_store((uint64_t *)&c->bytes, (uint64_t)b);
    /* |b| > batch, in one compare */
    if (__builtin_expect((uint64_t)b + PLACE_STATS_BATCH > 2 * (uint64_t)PLACE_STATS_BATCH, 0))
        place_hand_over_bytes(c);
}

/* A thread that allocated only placed blocks is one of the threads that allocated too:
 * registered (once, when counting) as its first pass-through count would register it. */
static inline void place_thread_seen(void)
{
    if (__builtin_expect(place_self.state == PLACE_THREAD_NEW, 0) && place_counting)
        place_count_slow(0, 0, 0);
}

/* Called once libplace is ready. With counting, threads register on their next count
 * from then on; without, place_counting goes off and nothing is registered. */
void place_threads_start(bool counting);

/* The dram tier's counts: the shared ones plus what live slots still hold. */
struct place_snapshot place_threads_dram(void);

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
