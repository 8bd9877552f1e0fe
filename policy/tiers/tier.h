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
    uint64_t untouched; /* of those looked at, never written: the kernel's zero page */
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

/* A tier either lets the engine count its bytes (alloc and free: the engine reserves a
 * block's usable size under the limit first, and releases it after the free), or counts
 * them itself (take and give: an arena's thread caches reserve and release in batches,
 * tiers/cache.h). Exactly one of the two pairs is set. */
struct place_tier_ops {
    void *(*alloc)(struct place_tier *, const struct place_request *r); /* zeroed for calloc */
    /* cu: the program's own free call when a CUDA call frees the block, else NULL */
    void (*free)(struct place_tier *, void *p, size_t usable, struct place_cu_call *cu);
    /* alloc and its accounting in one (force: past the limit); NULL with *limited true
     * when the limit refused, false when the tier's memory did */
    void *(*take)(struct place_tier *, const struct place_request *r, bool force, bool *limited);
    void (*give)(struct place_tier *, void *p); /* free and its accounting in one */
    /* required */
    int (*stats)(struct place_tier *, size_t *total, size_t *free);
    /* optional (NULL when the tier has nothing to offer) */
    int (*init)(struct place_tier *); /* at start: 0, or -1 with unavailable set */
    /* work that must wait for the tier's first use (loading a driver): 0, -1 with the
     * tier's unavailable set, or 1 for "not now" (another thread is at it; try later) */
    int (*prepare)(struct place_tier *);
    /* NULL: good_size's answer; required of a tier with owner ranges (free asks it) */
    size_t (*usable_size)(struct place_tier *, const void *p);
    size_t (*good_size)(size_t size, size_t align);      /* the usable size alloc gives */
    size_t (*reclaim)(struct place_tier *, size_t want); /* release cached memory */
    /* block p made to hold size bytes where it is, its accounting in one (never past the
     * limit): false leaves it as it was. What realloc tries first, as glibc grows a
     * block into the free memory after it. */
    bool (*grow)(struct place_tier *, void *p, size_t size);
    int (*verify)(struct place_tier *, bool all, struct place_verified *); /* see above */
    uintptr_t (*device_ptr)(struct place_tier *, const void *p); /* NULL: p is the GPU's too */
};

struct place_tier {
    const char *name;
    unsigned index;                         /* in place_tiers, and of its node in place_nodes */
    const struct place_tier_ops *ops;       /* NULL for a kind this build cannot place into */
    const struct place_tier_config *config; /* NULL for the default dram tier */
    const char *unavailable;                /* NULL, or why this machine cannot offer the tier */
    char reason[192];                       /* an unavailable naming this machine's details */
    uint64_t limit;                         /* bytes; 0: none */
    uint64_t reclaim_below, reclaim_to;     /* watermarks as free room in bytes; 0: none */
    struct place_node_stats *stats; /* place_nodes[its index] */
    _Atomic bool told;     /* the first skip of an unavailable tier has been reported */
    _Atomic bool refusals; /* the first refusal of its driver has been reported */
    /* on_full = wait: threads waiting for room, and the futex word a free bumps */
    _Atomic uint32_t waiters, wake;
    _Atomic int prepared; /* 0 not yet, 1 under way, 2 done */
    void *state;          /* the tier's own (an arena, a pool) */
    struct place_slabs *slabs; /* an arena's small blocks (tiers/slab.h), for the fast paths */
};

/* The default tier: glibc's allocator. Allocations no rule places are counted here. */
extern PLACE_HIDDEN struct place_tier place_dram;

/* A tier of kind dram that the policy names: an arena of its own (tiers/arena.h), since
 * glibc's blocks cannot be told apart by address. */
extern PLACE_HIDDEN const struct place_tier_ops place_dram_arena_ops;

/* numa: an arena mbind()ed to the tier's nodes (policy/tiers/numa.c). */
extern PLACE_HIDDEN const struct place_tier_ops place_numa_ops;

/* hbw: an arena bound to the nodes memkind finds as HBW (policy/tiers/hbw.c). */
extern PLACE_HIDDEN const struct place_tier_ops place_hbw_ops;

/* The CUDA kinds (policy/tiers/pinned.c, managed.c, device.c): pools of chunks the
 * driver page-locks or allocates, and a GPU's own memory. */
extern PLACE_HIDDEN const struct place_tier_ops place_pinned_ops, place_managed_ops, place_device_ops;

/* symmetric: an OpenSHMEM symmetric heap (policy/tiers/symmetric.c). It only counts:
 * the SHMEM library allocates its blocks, so it has neither alloc nor take. */
extern PLACE_HIDDEN const struct place_tier_ops place_symmetric_ops;

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

/* What block p, asked for as size bytes at align, counts in t: its usable size. */
static inline size_t place_tier_counted(struct place_tier *t, const void *p, size_t size,
                                        size_t align)
{
    if (t->ops->usable_size)
        return t->ops->usable_size(t, p);
    return t->ops->good_size ? t->ops->good_size(size, align) : size;
}

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

static inline bool place_tier_reserve(struct place_tier *t, size_t bytes, bool force)
{
    return place_stats_reserve(t->stats, (int64_t)bytes, force ? 0 : t->limit);
}

/* commit's rare part: watermarks, and the excess of a block forced past the limit */
void place_tier_commit_marks(struct place_tier *t, size_t got, bool force);

static inline void place_tier_commit(struct place_tier *t, size_t got, bool force)
{
    place_stats_count(t->stats, PLACE_EV_ALLOCS, 1);
    if (__builtin_expect(t->reclaim_below || (force && t->limit), 0))
        place_tier_commit_marks(t, got, force);
    place_timeline_tick();
}

/* Frees block p of t's (usable: what it counts; cu: the program's CUDA free, or NULL)
 * and uncharges it; a tier that counts its own bytes gives it back instead. */
static inline void place_tier_free(struct place_tier *t, void *p, size_t usable,
                                   struct place_cu_call *cu)
{
    if (t->ops->give) {
        t->ops->give(t, p);
        place_node_count(t->index, PLACE_EV_FREES);
        return;
    }
    t->ops->free(t, p, usable, cu);
    place_tier_uncharge(t, usable);
}

/* glibc's allocation for a request (the default dram tier's alloc). */
void *place_glibc_alloc(const struct place_request *r);

/* A forked child counts its own events from the fork (its bytes in use are its parent's
 * blocks, which it holds too). */
void place_tiers_restart(void);

/* Sets up the tiers the policy declares (dram alone without one) and initialises each;
 * one that cannot be offered here says why in its `unavailable`. */
struct place_policy;
void place_tiers_init(const struct place_policy *policy);

#endif
