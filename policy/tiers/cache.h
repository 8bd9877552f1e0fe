/* Per-thread caches in front of the arenas' blocks of a size class, up to 64 KiB
 * (tiers/slab.h: slabs' blocks, and runs past 8 KiB).
 *
 * Each thread keeps, per arena tier and size class, a bounded stack of free blocks: a
 * placed malloc pops one, a free pushes one, and neither touches a shared cache line.
 * An empty stack is refilled, a full one half flushed, in a batch under one acquisition
 * of the arena's lock.
 *
 * What a cached block counts: a block counts against its tier's limit from the moment it
 * leaves the shared pool until it goes back, whether a thread holds it live or cached
 * (as StarPU counts its cached buffers). A refill reserves its whole batch under the
 * limit in one step and a flush releases it, so threads together never pass the limit
 * and the hot path never reads it. A tier's report gives the bytes held in caches apart.
 * How much a thread may cache is bounded per class (PLACE_BIN_MAX blocks, and a byte
 * budget that shrinks with a small limit): see place_cache_caps; a bin starts shorter
 * and grows to that bound as its thread keeps asking (cache.c).
 *
 * A bin of a class of 1 KiB or more may also hold blocks of the next classes up, lent by
 * their bins (place_cache_lend): each keeps its own class, which its free goes back to
 * by its address, and the bytes of that class counted against the limit. */
#ifndef PLACE_CACHE_H
#define PLACE_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/assert.h"
#include "../base/guard.h"
#include "slab.h"
#include "tier.h"

struct place_bin {
    uint32_t n, cap; /* cap: its length now, at most its class's bound */
    void *item[PLACE_BIN_MAX];
};

/* One thread's bins for one tier, filled from one part of its pool (tiers/slab.h). */
struct place_bins {
    struct place_bin bin[PLACE_CLASSES];
    unsigned part;
    bool lent[PLACE_CLASSES]; /* the bin got larger classes' blocks since it was last emptied */
};

/* One thread's caches, one set of bins per arena tier (made at its first use; until then
 * the bins of no room). */
struct place_tcache {
    struct place_bins *tier[PLACE_MAX_TIERS];
    struct place_tcache *next;       /* every cache ever made */
    const struct place_thread *owner; /* its thread's state; NULL: free for a new thread */
};

/* The calling thread's caches: until its first bins a cache whose every tier has bins of
 * no room (none of their blocks, no room for one), and after its exit hook another such
 * one; never NULL, so that the fast paths test no pointer on their way to a bin. */
extern __thread struct place_tcache *place_cache_self __attribute__((tls_model("initial-exec")));

/* The bins of the calling thread for tier index k: bins of no room until they are made. */
static inline struct place_bins *place_cache_bins(unsigned k)
{
    return place_cache_self->tier[k];
}

static inline void *place_bin_pop(struct place_bins *b, unsigned c)
{
    struct place_bin *bin = &b->bin[c];
    PLACE_ASSERT(bin->n <= bin->cap && bin->cap <= PLACE_BIN_MAX);
    if (__builtin_expect(bin->n == 0, 0))
        return NULL;
    return bin->item[--bin->n];
}

/* A block is in a bin once: its second push would hand it out twice. */
static inline bool place_bin_holds(const struct place_bin *bin, const void *p)
{
    for (uint32_t k = 0; k < bin->n; k++)
        if (bin->item[k] == p)
            return true;
    return false;
}

static inline bool place_bin_push(struct place_bins *b, unsigned c, void *p)
{
    struct place_bin *bin = &b->bin[c];
    PLACE_ASSERT(bin->n <= bin->cap && bin->cap <= PLACE_BIN_MAX && !place_bin_holds(bin, p));
    if (__builtin_expect(bin->n == bin->cap, 0))
        return false;
    bin->item[bin->n++] = p;
    return true;
}

/* Block p of t's pool, of class c, onto the calling thread's bin, when it has one with
 * room: the one way a free reaches a bin (the engine's fast path and the tier's
 * release). With the guard up. */
static inline bool place_cache_push(struct place_tier *t, unsigned c, void *p)
{
    return place_bin_push(place_cache_bins(t->index), c, p);
}

/* The slow paths, with the guard up. A block of class c aligned to align (a power of
 * two) from b's bin, when it holds one: a block lent to it need not be. */
void *place_bin_pop_aligned(struct place_bins *b, unsigned c, size_t align);

/* When bin c of b (the calling thread's) is empty and a refill from part `part` of s
 * would hand out memory no block has touched yet (place_slabs_fresh): half the blocks of
 * its first bin of a larger class, of at most half as large again, moved to c's bin,
 * and one of them returned; else NULL. Each class keeps the pages its blocks
 * touched for itself, so that a program's peak is the sum of its classes' peaks where
 * glibc's is the peak of their sum: espresso, all placed, peaked at 3448 KiB against
 * glibc's 2430, 3192 with blocks lent. Not below 1 KiB, where the classes lie close
 * (lending there made small pairs 145 -> 177 instructions: each class kept borrowing
 * from the next, its own bin never refilled). */
void *place_cache_lend(struct place_bins *b, const struct place_slabs *s, unsigned c,
                       unsigned part);

/* A block of class c for tier t from part `part` of its pool s, refilling the bin (its
 * batch reserved under the limit; force: past it); NULL with *limited true when the
 * limit refused, false when the part is used up. Bins filled from another part (their
 * thread ran near another node then) go back first, and so does c's bin when it still
 * holds blocks (lent ones, none aligned as asked: place_bin_pop_aligned). */
void *place_cache_refill(struct place_tier *t, struct place_slabs *s, unsigned c, unsigned part,
                         bool force, bool *limited);

/* Takes block p of class c back when its bin is full: half the bin goes back to s. */
void place_cache_overflow(struct place_tier *t, struct place_slabs *s, unsigned c, void *p);

/* Every block the calling thread caches for t goes back to s: the bytes released. */
size_t place_cache_flush(struct place_tier *t, struct place_slabs *s);

/* The bytes every thread's bins hold for tier index k (read as they stand, unlocked). */
int64_t place_cache_held(unsigned k);

/* Each class's bin size for a tier with this limit (0: none): PLACE_BIN_MAX blocks and
 * 64 KiB per class, or limit / 256 per class when that is less. */
void place_cache_caps(uint64_t limit, uint8_t caps[PLACE_CLASSES]);

/* fork: the caches' registry is held across it; the child gives back what the threads
 * that did not follow it cached (a thread that was inside libplace at the fork keeps
 * its blocks out: its cache may be half changed). */
void place_caches_prefork(void);
void place_caches_postfork_parent(void);
void place_caches_postfork_child(void);

#endif
