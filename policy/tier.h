/* The tier interface (DESIGN.md section 5).
 *
 * A tier is one kind of memory libplace can place into. Each non-default tier hands out
 * memory from address ranges it registers with place_owner_add() (shim/owner.h), so that
 * free() can tell its pointers from glibc's with a range test. */
#ifndef PLACE_TIER_H
#define PLACE_TIER_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

struct place_tier;
struct place_tier_config;

/* What the kernel says of a tier's pages (move_pages): of `resident` pages looked at
 * (all of them, or a sample spread over them), `placed` are on the tier's nodes. */
struct place_verified {
    uint64_t resident, looked, placed;
    bool all;
};

struct place_tier_ops {
    const char *kind; /* "dram", "hbw", ... */
    /* required */
    int (*init)(struct place_tier *);
    void *(*alloc)(struct place_tier *, size_t size, size_t align); /* align 0: malloc's */
    void (*free)(struct place_tier *, void *p, size_t usable);
    int (*stats)(struct place_tier *, size_t *total, size_t *free);
    /* optional (NULL when the tier has nothing to offer) */
    size_t (*usable_size)(struct place_tier *, const void *p); /* NULL: good_size's answer */
    /* work that must wait for the tier's first use (loading a driver): 0, -1 with the
     * tier's unavailable set, or 1 for "not now" (another thread is at it; try later) */
    int (*prepare)(struct place_tier *);
    size_t (*good_size)(size_t size, size_t align);      /* the usable size alloc gives */
    void *(*zalloc)(struct place_tier *, size_t size);   /* zeroed, cheaper than memset */
    size_t (*reclaim)(struct place_tier *, size_t want); /* release cached memory */
    int (*verify)(struct place_tier *, bool all, struct place_verified *); /* see below */
};

struct place_tier {
    const char *name;
    const struct place_tier_ops *ops;       /* NULL for a kind this build cannot place into */
    const struct place_tier_config *config; /* NULL for the default dram tier */
    const char *unavailable;                /* NULL, or why this machine cannot offer the tier */
    char reason[192];                       /* an unavailable naming this machine's details */
    uint64_t limit;                         /* bytes; 0: none */
    uint64_t reclaim_below, reclaim_to;     /* watermarks as free room in bytes; 0: none */
    struct place_tier_stats stats;
    _Atomic bool told;     /* the first skip of an unavailable tier has been reported */
    _Atomic bool refusals; /* the first refusal of its driver has been reported */
    /* on_full = wait: threads waiting for room, and the futex word a free bumps */
    _Atomic uint32_t waiters, wake;
    _Atomic int prepared; /* 0 not yet, 1 under way, 2 done */
    void *state;          /* the tier's own (an arena, a pool) */
};

/* The default tier: glibc's allocator. Allocations no rule places are counted here. */
extern struct place_tier place_dram;

/* A tier of kind dram that the policy names: an arena of its own (policy/arena.h), since
 * glibc's blocks cannot be told apart by address. */
extern const struct place_tier_ops place_dram_arena_ops;

/* numa: an arena mbind()ed to the tier's nodes (policy/tiers/numa.c). */
extern const struct place_tier_ops place_numa_ops;

/* hbw: an arena bound to the nodes memkind finds as HBW (policy/tiers/hbw.c). */
extern const struct place_tier_ops place_hbw_ops;

/* The CUDA kinds (policy/tiers/pinned.c, managed.c, device.c): pools of chunks the
 * driver page-locks or allocates, and a GPU's own memory. */
extern const struct place_tier_ops place_pinned_ops, place_managed_ops, place_device_ops;

/* The machine's memory and how much of it is free: the stats of host memory tiers. */
int place_host_stats(struct place_tier *t, size_t *total, size_t *free);

/* The policy's tiers in its order, dram first, NULL-terminated; then a tier for each
 * GPU the policy does not name, added when the CUDA driver starts. */
extern struct place_tier *place_tiers[];

/* Whether t can serve now: prepared on its first use (a thread that finds another
 * preparing it is told no rather than made to wait) and not unavailable. */
bool place_tier_ready(struct place_tier *t);

/* free() of a block whose usable size the caller knows. */
void place_tier_free_sized(struct place_tier *t, void *p, size_t usable);

/* Counts the free of a block of t's that someone else gave back (the driver's). */
void place_tier_forget(struct place_tier *t, size_t usable);

/* What block p, asked for as size bytes at align, counts in t: its usable size. */
static inline size_t place_tier_counted(struct place_tier *t, const void *p, size_t size,
                                        size_t align)
{
    if (t->ops->usable_size)
        return t->ops->usable_size(t, p);
    return t->ops->good_size ? t->ops->good_size(size, align) : size;
}

/* free() of a pointer tier t placed (the shim found it in t's ranges): releases its
 * bytes, and wakes threads waiting for room. */
void place_tier_free(struct place_tier *t, void *p);

/* Gives back bytes of t's reservation and wakes threads waiting for room. */
void place_tier_release(struct place_tier *t, int64_t bytes);

/* A forked child counts its own events from the fork (its bytes in use are its parent's
 * blocks, which it holds too). */
void place_tiers_restart(void);

/* Sets up the tiers the policy declares (dram alone without one) and initialises each;
 * one that cannot be offered here says why in its `unavailable`. */
struct place_policy;
void place_tiers_init(const struct place_policy *policy);

#endif
