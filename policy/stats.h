/* Per-tier accounting.
 *
 * Every counter libplace keeps lives in struct place_stats, one place_tier_stats per
 * tier; the report (policy/gather.c) is what reads them.
 *
 * The pass-through path (an allocation no rule placed, which glibc serves) is the hot
 * one, so it does not touch these atomics per call: each thread counts into its own
 * place_counts (a slot, shim/thread.h) and moves its net bytes here in batches of
 * PLACE_STATS_BATCH, which is what keeps `peak` current to within that much per thread.
 * Counts that a thread has not handed over yet are added in when a snapshot is taken. */
#ifndef PLACE_STATS_H
#define PLACE_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { PLACE_STATS_BATCH = 1024 * 1024 };

/* What one thread has counted and not yet handed to the shared counters. Written only by
 * its thread, read by the reporter: relaxed atomics, which are plain moves on x86-64. */
struct place_counts {
    uint64_t allocs, frees;
    int64_t bytes; /* usable bytes allocated minus usable bytes freed */
};

/* A node's counters (DESIGN.md's "node": one tier of the policy). Bytes are usable sizes.
 * Every field is updated with relaxed atomics on the allocation path; no lock. */
struct place_tier_stats {
    _Atomic uint64_t allocs, frees;
    _Atomic int64_t bytes, peak;     /* in use now, and the most ever in use */
    _Atomic uint64_t refused;        /* requests its limit or its memory turned away */
    _Atomic uint64_t fallbacks_out;  /* refused requests sent on down the chain */
    _Atomic uint64_t fallbacks_in;   /* served here after an earlier tier refused */
    _Atomic uint64_t waits, wait_ns; /* on_full = wait: how often, and how long */
    _Atomic uint64_t overflow_bytes; /* charged past the limit by on_full = overflow */
    _Atomic uint64_t failures;       /* requests that got NULL (on_full = fail) */
    _Atomic uint64_t reclaimed;      /* bytes the tier's reclaim released */
    _Atomic uint64_t skipped;        /* requests a chain sent here while it is unavailable */
};

/* A rule's matches: allocations it decided, and their usable bytes. */
struct place_rule_stats {
    _Atomic uint64_t hits, bytes;
};

struct place_snapshot {
    uint64_t allocs, frees;
    int64_t bytes, peak;
};

/* Adds c to s and raises s->peak if the bytes in use now exceed it. */
void place_stats_add(struct place_tier_stats *s, const struct place_counts *c);

/* Takes `bytes` more unless that would pass limit (0: none); the check and the taking
 * are one atomic step, so threads together never pass the limit. Raises the peak. */
bool place_stats_reserve(struct place_tier_stats *s, int64_t bytes, uint64_t limit);

/* Gives back bytes taken by place_stats_reserve (negative: takes more, past any limit). */
void place_stats_release(struct place_tier_stats *s, int64_t bytes);

/* s as it stands, plus counts not yet handed over (pending may be NULL). */
struct place_snapshot place_stats_snapshot(const struct place_tier_stats *s,
                                           const struct place_counts *pending);

/* A forked child starts its own counts: its heap, and so its bytes in use, are its
 * parent's, but allocations, frees and the peak are counted from the fork. */
void place_stats_restart(struct place_tier_stats *s, int64_t bytes);

static inline uint64_t place_relaxed_load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void place_relaxed_store(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

#endif
