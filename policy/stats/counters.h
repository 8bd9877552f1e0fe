/* Per-node accounting: the only place a node's counter changes.
 *
 * A node (DESIGN.md's accounting unit: one tier of the policy) has its bytes in use, its
 * peak, and a count per event. They change through four verbs and nothing else:
 *   place_stats_reserve  bytes taken, bounded by a limit in one atomic step
 *   place_stats_release  bytes given back (negative: taken past any limit)
 *   place_stats_count    an event happened n times (an allocation, a refusal, ...)
 *   place_stats_add      a thread's batch of pass-through counts merged in
 * and are read as one snapshot. Relaxed atomics on the allocation path, no lock.
 *
 * The pass-through path (an allocation no rule placed, which glibc serves) is the hot
 * one, so it does not touch these atomics per call: each thread counts in its own TLS
 * and slot (policy/stats/threads.h) and moves its net bytes here in batches
 * of PLACE_STATS_BATCH, which is what keeps `peak` current to within that much per
 * thread. Counts that a thread has not handed over yet are added in when a snapshot is
 * taken. */
#ifndef PLACE_COUNTERS_H
#define PLACE_COUNTERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/hidden.h"

enum { PLACE_STATS_BATCH = 1024 * 1024 };

/* What one thread has counted and not yet handed to the shared counters. Written only by
 * its thread, read by the reporter: relaxed atomics, which are plain moves on x86-64. */
struct place_counts {
    uint64_t allocs, frees;
    int64_t bytes; /* bytes in use gained minus lost: for dram, the samples' weights
                    * (engine/sampler.h), since glibc's blocks are not all seen */
};

/* What a node counts besides its bytes. */
enum place_event {
    PLACE_EV_ALLOCS,
    PLACE_EV_FREES,
    PLACE_EV_REFUSED,       /* requests its limit or its memory turned away */
    PLACE_EV_FALLBACKS_OUT, /* refused requests sent on down the chain */
    PLACE_EV_FALLBACKS_IN,  /* served here after an earlier tier refused */
    PLACE_EV_WAITS,         /* on_full = wait: how often */
    PLACE_EV_WAIT_NS,       /* ... and how long */
    PLACE_EV_OVERFLOW,      /* allocations on_full = overflow charged past the limit */
    PLACE_EV_FAILURES,      /* requests that got NULL (on_full = fail) */
    PLACE_EV_RECLAIMED,     /* bytes the tier's reclaim released */
    PLACE_EV_SKIPPED,       /* requests a chain sent here while it is unavailable */
    PLACE_EVENTS
};

/* A node's counters. Bytes are usable sizes (dram's: estimated from samples). Cache
 * lines of their own: threads placing into one node must not slow down those that read
 * their neighbours. */
struct place_node_stats {
    _Atomic int64_t bytes, peak; /* in use now, and the most ever in use */
    _Atomic int64_t hi, lo;      /* the most and least in use since the timeline's last point */
    _Atomic uint64_t events[PLACE_EVENTS];
} __attribute__((aligned(64)));

/* Every node's counters, by the index of its tier in the policy (0: the default dram). */
extern PLACE_HIDDEN struct place_node_stats place_nodes[PLACE_MAX_TIERS];

/* A node's counters as they stand. */
struct place_snapshot {
    int64_t bytes, peak;
    uint64_t events[PLACE_EVENTS];
};

/* Takes `bytes` more unless that would pass limit (0: none); the check and the taking
 * are one atomic step, so threads together never pass the limit. Raises the peak. */
bool place_stats_reserve(struct place_node_stats *s, int64_t bytes, uint64_t limit);

/* Gives back bytes taken by place_stats_reserve (negative: takes more, past any limit). */
void place_stats_release(struct place_node_stats *s, int64_t bytes);

/* Counts n occurrences of event e. */
static inline void place_stats_count(struct place_node_stats *s, enum place_event e, uint64_t n)
{
    atomic_fetch_add_explicit(&s->events[e], n, memory_order_relaxed);
}

/* Raises *v to now if now is more: a peak. */
static inline void place_stats_raise(_Atomic int64_t *v, int64_t now)
{
    int64_t was = atomic_load_explicit(v, memory_order_relaxed);
    while (now > was && !atomic_compare_exchange_weak_explicit(v, &was, now, memory_order_relaxed,
                                                               memory_order_relaxed))
        ;
}

/* Merges a thread's counts c into s and raises the peak if the bytes in use now exceed it. */
void place_stats_add(struct place_node_stats *s, const struct place_counts *c);

/* s as it stands, plus counts not yet handed over (pending may be NULL). */
struct place_snapshot place_stats_snapshot(const struct place_node_stats *s,
                                           const struct place_counts *pending);

/* The bytes s holds now (no pending counts). */
static inline int64_t place_stats_bytes(const struct place_node_stats *s)
{
    return atomic_load_explicit(&s->bytes, memory_order_relaxed);
}

/* A forked child starts its own counts: its heap, and so its bytes in use, are its
 * parent's, but events and the peak are counted from the fork. */
void place_stats_restart(struct place_node_stats *s);

static inline uint64_t place_relaxed_load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void place_relaxed_store(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* Adds d to a counter that only the calling thread writes and other threads read. On
 * x86-64 one unlocked add to memory: its store is one aligned word, which a reader sees
 * whole, and a signal handler on this thread sees it done or not begun. The relaxed load
 * and store the compiler would emit instead are three instructions on every counted
 * call. */
static inline void place_own_add(uint64_t *n, uint64_t d)
{
#if defined(__x86_64__)
    __asm__("addq %1, %0" : "+m"(*n) : "er"(d));
#else
    place_relaxed_store(n, *n + d);
#endif
}

#endif
