/* The tier interface (DESIGN.md section 5).
 *
 * A tier is one kind of memory libplace can place into. Each non-default tier hands out
 * memory from address ranges it registers with place_owner_add() (tiers/owner.h), so that
 * free() can tell its pointers from glibc's with a range test. */
#ifndef PLACE_TIER_H
#define PLACE_TIER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/futex.h"
#include "../base/hidden.h"
#include "../stats/counters.h"
#include "../stats/threads.h"
#include "../stats/timeline.h"

struct place_tier;
struct place_tier_config;

/* What the kernel says of a tier's pages (move_pages): of `resident` pages looked at
 * (all of them, or a sample spread over them), `placed` are on the tier's nodes. */
struct place_verified {
    uint64_t resident, looked, placed;
    uint64_t untouched;   /* of those looked at, never written: the kernel's zero page */
    uint64_t by_node[64]; /* of those looked at, on each node: a spread the share hides */
    bool all;
};

/* What the shim's entry points ask for: the malloc family's three shapes, memory a GPU
 * can use (the CUDA allocation calls; chains serve it from device, managed and pinned
 * tiers only, and end in NULL rather than dram), or nodes for the pages of a block a
 * SHMEM library allocated (hbw and numa tiers bind them, a symmetric tier or the chain's
 * end leaves them be). */
enum place_call { PLACE_MALLOC, PLACE_CALLOC, PLACE_ALIGNED, PLACE_CUDA, PLACE_SHMEM };

/* One request as it travels down a chain into each tier's alloc. */
struct place_cu_call; /* policy/tiers/driver.h */
struct place_request {
    size_t size;
    size_t align;         /* 0: malloc's; for tiers, a power of two above malloc's own */
    enum place_call call; /* PLACE_CALLOC: the block is zeroed by the tier */
    uintptr_t ra;         /* the return address into the program's code */
    struct place_cu_call *cu; /* PLACE_CUDA: the program's own call, and its result */
    void *block; /* PLACE_SHMEM: the block's first whole page (size: its whole pages) */
    struct place_tier *refused; /* a tier that already turned this request away: not asked
                                 * again (a realloc its own tier refused) */
};

/* A tier is an allocator over a source (DESIGN.md section 5), as UMF puts a pool over a
 * provider. The allocators are written once each: the arena (tiers/arena.h), the chunk
 * pool (tiers/pool.h), the direct allocator (each block the source's own: a GPU's
 * memory) and glibc's (the default dram tier). Every allocator counts its own blocks in
 * the tier's node: an arena's caches reserve and release in batches (tiers/cache.h), the
 * others a block at a time (place_tier_counted). */
struct place_allocator {
    /* A block for r, counted (force: past the limit); NULL with *limited true when the
     * limit refused, false when the memory did. Zeroed for calloc. */
    void *(*alloc)(struct place_tier *, const struct place_request *r, bool force, bool *limited);
    /* Frees block p and uncounts it. usable: what it counts, when the caller knows it (a
     * CUDA block's record; 0: the allocator finds it); cu: the program's own free call
     * when a CUDA call frees the block, else NULL. NULL for glibc's: the shim frees those. */
    void (*release)(struct place_tier *, void *p, size_t usable, struct place_cu_call *cu);
    /* NULL: good_size's answer; required of a tier with owner ranges (free asks it) */
    size_t (*usable_size)(struct place_tier *, const void *p);
    /* NULL: the size asked for */
    size_t (*good_size)(const struct place_tier *, size_t size, size_t align);
    /* optional (NULL when the allocator has nothing to offer) */
    size_t (*reclaim)(struct place_tier *, size_t want); /* release cached memory */
    /* block p made to hold size bytes where it is, its accounting in one (never past the
     * limit): false leaves it as it was. What realloc tries first, as glibc grows a
     * block into the free memory after it. */
    bool (*grow)(struct place_tier *, void *p, size_t size);
    uintptr_t (*device_ptr)(struct place_tier *, const void *p); /* NULL: p is the GPU's too */
};

/* Where a kind's memory comes from: one per kind (dram.c, numa.c, hbw.c, pinned.c,
 * managed.c, device.c, symmetric.c). Adding a kind is writing a source. */
struct place_source {
    /* required: the memory the tier draws on, and how much of it is free */
    int (*stats)(struct place_tier *, size_t *total, size_t *free);
    /* optional (NULL when the source has nothing to offer) */
    /* at start: the allocator set up over the source's memory (an arena's range reserved
     * and bound, a pool made): 0, or -1 with unavailable set */
    int (*init)(struct place_tier *);
    /* work that must wait for the tier's first use (loading a driver, finding its
     * nodes): 0, -1 with the tier's unavailable set, or 1 for "not now" (another thread
     * is at it; try later) */
    int (*prepare)(struct place_tier *);
    int (*verify)(struct place_tier *, bool all, struct place_verified *); /* see above */
    /* Memory in pieces, for a pool (its chunks) or the direct allocator (its blocks):
     * size bytes for request r (NULL for a pool's chunk) and, in *device, the address GPUs
     * use for them, or NULL; and the same given back (cu: the program's free call, or
     * NULL). */
    void *(*get)(struct place_tier *, size_t size, const struct place_request *r, uintptr_t *device);
    void (*put)(struct place_tier *, void *p, size_t size, struct place_cu_call *cu);
    size_t unit; /* the direct allocator: a block counts whole units of this many bytes */
};

struct place_tier {
    const char *name;
    unsigned index; /* in place_tiers, and of its node in place_nodes */
    /* NULL for a kind that only counts (symmetric: the SHMEM library allocates) */
    const struct place_allocator *allocator;
    const struct place_source *source;      /* NULL for a kind this build cannot place into */
    const struct place_tier_config *config; /* NULL for the default dram tier */
    const char *unavailable;                /* NULL, or why this machine cannot offer the tier */
    char reason[192];                       /* an unavailable naming this machine's details */
    uint64_t limit;                         /* bytes; 0: none */
    uint64_t reclaim_below, reclaim_to;     /* watermarks as free room in bytes; 0: none */
    struct place_node_stats *stats; /* place_nodes[its index] */
    _Atomic bool told;     /* the first skip of an unavailable tier has been reported */
    _Atomic bool refusals; /* the first refusal of its driver has been reported */
    struct place_waits waits; /* on_full = wait: threads waiting for room a free makes */
    _Atomic int prepared; /* 0 not yet, 1 under way, 2 done */
    void *state;          /* the allocator's own (an arena, a pool) */
    /* an arena's small blocks (tiers/slab.h), here so that the fast paths reach them from
     * the tier in one load; NULL for every other allocator */
    struct place_slabs *slabs;
    /* scope = node: the limit the machine's processes share (tiers/shared.h); NULL: the
     * limit is this process's */
    struct place_shared *shared;
};

/* The default tier: glibc's allocator. Allocations no rule places are counted here. */
extern PLACE_HIDDEN struct place_tier place_dram;

/* The allocators, each written once: arena (arena.c), chunk pool (pool.c), direct
 * (direct.c) and glibc's (dram.c, the default tier's). */
extern PLACE_HIDDEN const struct place_allocator place_arena_allocator, place_pool_allocator,
    place_direct_allocator, place_glibc_allocator;

/* The sources, one per kind: dram (a tier of kind dram that the policy names: an arena
 * of its own, since glibc's blocks cannot be told apart by address; the default dram
 * tier is glibc's), numa (an arena mbind()ed to the tier's nodes), hbw (an arena bound
 * to the nodes memkind finds as HBW), symmetric (an OpenSHMEM symmetric heap: it only
 * counts, the SHMEM library allocates its blocks), and the CUDA kinds: pinned and
 * managed (chunks the driver page-locks or allocates, for a pool), device (a GPU's own
 * memory, a block per call). */
extern PLACE_HIDDEN const struct place_source place_dram_source, place_numa_source,
    place_hbw_source, place_symmetric_source, place_pinned_source, place_managed_source,
    place_device_source;

/* The policy's symmetric tier, or one named symmetric added at the first call that
 * needs it (NULL when the tier table is full). */
struct place_tier *place_symmetric_tier(void);

/* The machine's memory and how much of it is free: the stats of host memory tiers. */
int place_host_stats(struct place_tier *t, size_t *total, size_t *free);

/* The policy's tiers in its order, dram first, NULL-terminated; then a tier for each
 * GPU the policy does not name, added when the CUDA driver starts. */
extern PLACE_HIDDEN struct place_tier *place_tiers[];

/* Appends tier t, of config c, to place_tiers once the program runs (a GPU's, the
 * symmetric heap's): t whole, or NULL when the table is full. Safe against another
 * thread adding one. */
struct place_tier *place_tiers_add(struct place_tier *t, struct place_tier_config *c);

/* Whether t can serve now: prepared on its first use (a thread that finds another
 * preparing it is told no rather than made to wait) and not unavailable. */
bool place_tier_ready(struct place_tier *t);

/* What a block for size bytes at align will count in t. */
static inline size_t place_tier_good_size(const struct place_tier *t, size_t size, size_t align)
{
    return t->allocator->good_size ? t->allocator->good_size(t, size, align) : size;
}

/* What block p, asked for as size bytes at align, counts in t: its usable size. */
static inline size_t place_tier_usable(struct place_tier *t, const void *p, size_t size,
                                       size_t align)
{
    if (t->allocator->usable_size)
        return t->allocator->usable_size(t, p);
    return place_tier_good_size(t, size, align);
}

/* The accounting of an allocator that counts a block at a time (a pool, the direct
 * allocator), around get(t, r), which gives a block for r or NULL: the block's good size
 * reserved under the limit first (force: past it), corrected to its usable size (more
 * past the limit refused: the block goes back through put(t, p, usable, r)), committed.
 * As place_allocator's alloc answers. */
void *place_tier_counted(struct place_tier *t, const struct place_request *r, bool force,
                         bool *limited, void *(*get)(struct place_tier *, const struct place_request *),
                         void (*put)(struct place_tier *, void *p, size_t usable,
                                     const struct place_request *r));

/* A tier's accounting, in the stats layer's verbs:
 *   reserve   bytes a block will count, under the limit (force: past it); false: refused
 *   commit    a block of got bytes (reserved) is now the tier's: an allocation, the
 *             watermarks, the excess of one forced past the limit
 *   release   reserved bytes given back, waking threads that wait for room
 *   uncharge  a block left the tier (a free): its bytes released, counted as a free
 * charge is reserve then commit, for memory the tier holds without allocating it. */
void place_tier_release(struct place_tier *t, int64_t bytes);
void place_tier_uncharge(struct place_tier *t, size_t usable);
bool place_tier_charge(struct place_tier *t, size_t bytes, bool force);

/* Whether waiting for room in t can serve bytes: they fit its limit at all, and another
 * thread lives, whose frees are the only ones that could make room. */
bool place_tier_may_wait(const struct place_tier *t, size_t bytes);

/* Waits for room in t until deadline (base/clock.h's place_now_ns): room(t, ctx) is asked at
 * once and again each time a release in t wakes its waiters; 1 ends the wait with true,
 * -1 with false (room will never come), 0 waits on. */
bool place_tier_wait(struct place_tier *t, int64_t deadline,
                     int (*room)(struct place_tier *t, void *ctx), void *ctx);

/* A reservation and a release (place_tier_release) are where a tier's bytes change,
 * whichever allocator and path served the block: both tick the timeline. */
bool place_tier_reserve_shared(struct place_tier *t, size_t bytes, bool force);

static inline bool place_tier_reserve(struct place_tier *t, size_t bytes, bool force)
{
    if (__builtin_expect(t->shared != NULL, 0))
        return place_tier_reserve_shared(t, bytes, force);
    if (!place_stats_reserve(t->stats, (int64_t)bytes, force ? 0 : t->limit))
        return false;
    place_timeline_tick();
    return true;
}

/* commit's rare part: watermarks, and the excess of a block forced past the limit */
void place_tier_commit_marks(struct place_tier *t, size_t got, bool force);

static inline void place_tier_commit(struct place_tier *t, size_t got, bool force)
{
    place_stats_count(t->stats, PLACE_EV_ALLOCS, 1);
    if (__builtin_expect(t->reclaim_below || (force && t->limit), 0))
        place_tier_commit_marks(t, got, force);
}

/* glibc's allocation for a request (the default dram tier's alloc). */
void *place_glibc_alloc(const struct place_request *r);

/* A forked child counts its own events from the fork (its bytes in use are its parent's
 * blocks, which it holds too). */
void place_tiers_restart(void);

/* What counts against t's limit now: its bytes, or with scope = node every sharing
 * process's together. */
int64_t place_tier_held(const struct place_tier *t);

/* Sets up the tiers the policy declares (dram alone without one) and initialises each;
 * one that cannot be offered here says why in its `unavailable`. */
struct place_policy;
void place_tiers_init(const struct place_policy *policy);

#endif
