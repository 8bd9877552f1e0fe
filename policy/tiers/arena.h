/* An arena: a range of address space libplace reserves and carves blocks out of, those
 * up to 8 KiB from slabs, larger ones as runs of pages (tiers/slab.h, tiers/extent.h),
 * up to 64 KiB behind per-thread caches (tiers/cache.h).
 *
 * The range is what makes ownership an O(1) test: it is registered with the owner
 * table (tiers/owner.h), so free() knows a block is the tier's by its address. A tier
 * that binds memory to NUMA nodes mbinds the whole range before any block is carved, so
 * every page the program touches is placed by the binding. Nothing is ever unmapped or
 * destroyed (DESIGN.md section 7). */
#ifndef PLACE_ARENA_H
#define PLACE_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "binding.h"
#include "cache.h"
#include "extent.h"
#include "slab.h"
#include "tier.h"

struct place_arena {
    void *lo;
    size_t len;
    struct place_slabs slabs;                  /* the first half: blocks up to 8 KiB */
    struct place_extents extents[PLACE_PARTS]; /* the second: larger ones (runs), one per
                                                * part of the slabs (slabs.nparts) */
    void *_Atomic deferred;       /* blocks freed inside libplace (place_arena_defer) */
    struct place_binding binding; /* its pages' NUMA policy; nodes 0: the kernel's choice */
    struct place_stripes stripes; /* weighted interleave: the runs' pages */
    struct place_near near;       /* near = cpu: each part's node, and each CPU's part */
};

/* What an arena's range is: by default (spec NULL, or zero fields) as much address space
 * as the machine has memory, less when the kernel refuses that much (down to 64 MiB),
 * pages on demand. A binding gives the range its NUMA policy before any block is carved,
 * so every page the program later touches is placed by it. len and flags (MAP_HUGETLB...)
 * replace the size and MAP_NORESERVE. */
struct place_arena_spec {
    const struct place_binding *binding;
    size_t len;
    int flags;
    const uint8_t *weights; /* weighted interleave: the runs' pages in stripes */
    unsigned parts;         /* near = cpu: PLACE_PARTS parts, each as long as a whole
                             * arena's range (address space only); 0: one */
};

/* Sets up an arena for tier t (its state), registered as t's range: what the source of
 * an arena tier's init does. Returns 0, or -1 with t->unavailable saying what failed.
 * place_arena_allocator (tier.h) then serves t: alloc and release (the arena counts its
 * own bytes: tiers/cache.h), usable size, grow (a large block, by the pages after it,
 * its extra bytes reserved under the limit), reclaim (the calling thread's cache and the
 * deferred frees, then empty slabs' and free runs' pages back to the kernel). */
int place_arena_tier(struct place_tier *t, const struct place_arena_spec *spec);

/* Binds an arena tier's range as b says, before any block is carved from it (an arena
 * made without a binding), its runs in stripes by weights (NULL: none): NULL, or
 * why the kernel refused. */
const char *place_arena_bind(struct place_tier *t, const struct place_binding *b,
                             const uint8_t *weights);

/* near = cpu, before any block is carved (an arena made in parts, unbound): part k of the
 * range bound to near's node k under the tier's policy, blocks taken from the part of the
 * allocating thread's CPU; b is what the whole stands for (its nodes, for the stats, the
 * check and blocks bound from outside). NULL, or why the kernel refused. */
const char *place_arena_near(struct place_tier *t, const struct place_binding *b,
                             const struct place_near *near);

/* A near = cpu tier's parts, or NULL. */
const struct place_near *place_arena_near_of(const struct place_tier *t);

/* The NUMA policy of an arena tier's range (hbw, numa): what a block bound to the tier
 * from outside the arena takes (engine/shmem_path.c). */
const struct place_binding *place_arena_binding(struct place_tier *t);

/* A weighted interleave's stripes (the weights in use, those of `weights = bandwidth`
 * included), or NULL when the tier has none. */
const struct place_stripes *place_arena_stripes(const struct place_tier *t);

/* The machine's memory in bytes. */
size_t place_ram(void);

/* A free of block p of arena tier t that arrives while its thread is inside libplace (a
 * signal handler's free, which may have interrupted this very thread's bins or the
 * pool's lock): pushed on a lock-free list, its bytes still held, and given back by the
 * next thread that refills from or reclaims the tier. */
void place_arena_defer(struct place_tier *t, void *p);

/* fork: every arena's pool and the caches' registry, held across it. */
void place_arenas_prefork(void);
void place_arenas_postfork_parent(void);
void place_arenas_postfork_child(void);

#endif
