#include "arena.h"

#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include <unistd.h>

#include "../../config/policy.h"
#include "../base/assert.h"
#include "../base/guard.h"
#include "../base/kernel.h"
#include "../base/large.h"
#include "../base/pages.h"
#include "cache.h"
#include "owner.h"
#include "tier.h"

enum { ARENA_MIN = 64 << 20 };

/* A weighted interleave: the large blocks' pages in stripes, bound as the extents' top
 * first reaches them (the range's interleave stays the small blocks'). */
static void stripe(struct place_arena *a, const uint8_t *weights)
{
    a->stripes.origin = a->extents[0].lo;
    memcpy(a->stripes.weights, weights, sizeof a->stripes.weights);
    a->extents[0].fresh = place_numa_stripe;
    a->extents[0].fresh_arg = &a->stripes;
}

static int create(struct place_arena *a, struct place_tier *t, size_t want,
                  const struct place_arena_spec *spec, const char **why)
{
    /* MAP_NORESERVE: address space only; pages cost memory when the program touches them.
     * Under strict overcommit the kernel may refuse a large reservation, so halve. Huge
     * pages are reserved as mapped instead, so that a fault never finds none (SIGBUS). */
    int flags = spec && spec->flags ? spec->flags : MAP_NORESERVE;
    unsigned parts = spec && spec->parts ? spec->parts : 1;
    size_t len = spec && spec->len ? spec->len : want < ARENA_MIN ? ARENA_MIN : want * parts;
    void *p = place_reserve(&len, spec && spec->len ? spec->len : ARENA_MIN, flags);
    if (!p) {
        *why = spec && spec->flags ? "the kernel refused to map the huge pages it needs"
                                   : "the kernel refused to reserve address space for it";
        return -1;
    }
    if (spec && spec->binding && (*why = place_numa_bind(p, len, spec->binding, false)))
        return -1;
    if (spec && spec->binding)
        a->binding = *spec->binding;
    /* the first half for small blocks, the second for large ones (whole huge pages each),
     * each cut in parts */
    const size_t huge_page = (size_t)2 << 20;
    size_t half = (len / 2) & ~(huge_page - 1);
    size_t piece = parts == 1 ? len - half : ((len - half) / parts) & ~(huge_page - 1);
    bool huge = flags & MAP_HUGETLB;
    *why = "the bookkeeping of its blocks could not be mapped";
    if (place_slabs_init(&a->slabs, p, half, parts, huge) != 0)
        return -1;
    for (unsigned k = 0; k < parts; k++)
        if (place_extents_init(&a->extents[k], (char *)p + half + k * piece, piece,
                               huge ? huge_page : (size_t)getpagesize(), huge) != 0)
            return -1;
    a->slabs.runs = a->extents;
    if (spec && spec->weights)
        stripe(a, spec->weights);
    place_cache_caps(t->limit, a->slabs.caps);
    if (place_owner_add(p, len, t) != 0) {
        *why = "libplace's table of owned ranges is full";
        return -1;
    }
    a->lo = p;
    a->len = len;
    return 0;
}

/* The part the calling thread takes from: near = cpu's of its CPU, else the one. */
static unsigned caller_part(const struct place_arena *a)
{
    return a->near.nparts ? place_near_part(&a->near) : 0;
}

size_t place_ram(void)
{
    size_t total, avail;
    return place_kernel_ram(&total, &avail) ? total : (size_t)1 << 34;
}

static struct place_arena arenas[PLACE_MAX_TIERS] PLACE_LARGE;
static unsigned narenas;

int place_arena_tier(struct place_tier *t, const struct place_arena_spec *spec)
{
    size_t total = place_ram();
    if (narenas == PLACE_MAX_TIERS)
        return -1;
    const char *why;
    uint8_t was = place_guard_enter();
    int rc = create(&arenas[narenas], t, total, spec, &why);
    place_guard_leave(was);
    if (rc != 0) {
        t->unavailable = why;
        return -1;
    }
    t->slabs = &arenas[narenas].slabs;
    t->state = &arenas[narenas++];
    return 0;
}

/* A block past the small classes: whole pages, reserved under the limit first.
 * calloc: a run the kernel zeroed needs no memset (which would make every page of a big
 * block resident). */
static void *take_large(struct place_tier *t, struct place_arena *a, const struct place_request *r,
                        bool force, bool *limited)
{
    struct place_extents *e = &a->extents[caller_part(a)];
    size_t want = place_extents_size(e, r->size, r->align);
    if (!want)
        return NULL;
    if (!place_tier_reserve(t, want, force)) {
        *limited = true;
        return NULL;
    }
    void *p = place_extents_take(e, want, r->align, r->call == PLACE_CALLOC);
    if (!p) {
        place_tier_release(t, (int64_t)want);
        return NULL;
    }
    if (__builtin_expect(t->reclaim_below || (force && t->limit), 0))
        place_tier_commit_marks(t, want, force);
    return p;
}

void place_arena_defer(struct place_tier *t, void *p)
{
    struct place_arena *a = t->state;
    void *head = atomic_load_explicit(&a->deferred, memory_order_relaxed);
    do
        *(void **)p = head;
    while (!atomic_compare_exchange_weak_explicit(&a->deferred, &head, p, memory_order_release,
                                                  memory_order_relaxed));
    place_stats_count(t->stats, PLACE_EV_FREES, 1); /* the slot may be mid-update */
}

/* Block p back to t's pool (its slab, or its run of pages), its bytes released: how many. */
static size_t to_pool(struct place_tier *t, struct place_arena *a, void *p)
{
    size_t n;
    if (place_slabs_own(&a->slabs, p)) {
        unsigned c = place_slabs_class(&a->slabs, p);
        n = place_class_size[c];
        place_slabs_give(&a->slabs, c, &p, 1);
    } else {
        n = place_extents_give(place_slabs_runs_of(&a->slabs, p), p);
    }
    place_tier_release(t, (int64_t)n);
    return n;
}

/* The deferred frees given back (by a thread outside the guard's nesting): the bytes. */
static size_t drain(struct place_tier *t, struct place_arena *a)
{
    if (__builtin_expect(atomic_load_explicit(&a->deferred, memory_order_relaxed) == NULL, 1))
        return 0;
    size_t bytes = 0;
    void *p = atomic_exchange_explicit(&a->deferred, NULL, memory_order_acquire);
    while (p) {
        void *next = *(void **)p;
        bytes += to_pool(t, a, p);
        p = next;
    }
    return bytes;
}

/* A block for r, counted as an allocation of the tier's (its bytes were counted when its
 * batch or run was taken: tiers/cache.h). */
static void *arena_alloc(struct place_tier *t, const struct place_request *r, bool force,
                         bool *limited)
{
    struct place_arena *a = t->state;
    *limited = false;
    unsigned c = r->align                     ? place_aligned_class(&a->slabs, r->size, r->align)
                 : r->size <= PLACE_SMALL_MAX ? place_size_class(r->size)
                                              : PLACE_CLASSES;
    void *p;
    if (c == PLACE_CLASSES) {
        p = take_large(t, a, r, force, limited);
    } else {
        struct place_bins *b = place_cache_bins(t->index);
        p = r->align ? place_bin_pop_aligned(b, c, r->align) : place_bin_pop(b, c);
        /* its class's, or a larger one's lent (tiers/cache.h) */
        PLACE_ASSERT(!p || place_slabs_block_class(&a->slabs, p) >= c);
        if (!p) {
            unsigned part = caller_part(a);
            if (!r->align) /* a lent block need not be aligned as asked */
                p = place_cache_lend(b, &a->slabs, c, part);
            if (!p) {
                drain(t, a);
                p = place_cache_refill(t, &a->slabs, c, part, force, limited);
            }
        }
        if (p && r->call == PLACE_CALLOC)
            memset(p, 0, r->size);
    }
    if (p)
        place_node_count(t->index, PLACE_EV_ALLOCS);
    return p;
}

static bool arena_grow(struct place_tier *t, void *p, size_t size)
{
    struct place_arena *a = t->state;
    if (place_slabs_own(&a->slabs, p))
        return false;
    struct place_extents *e = place_slabs_runs_of(&a->slabs, p);
    size_t old = place_extents_usable(e, p);
    size_t want = place_extents_size(e, size, 0);
    if (want <= old)
        return want != 0;
    if (!place_tier_reserve(t, want - old, false))
        return false;
    if (!place_extents_grow(e, p, want)) {
        place_tier_release(t, (int64_t)(want - old));
        return false;
    }
    if (__builtin_expect(t->reclaim_below != 0, 0))
        place_tier_commit_marks(t, want - old, false);
    return true;
}

/* The block's bytes stay counted while its thread's bin holds it (tiers/cache.h). */
static void arena_release(struct place_tier *t, void *p, size_t usable, struct place_cu_call *cu)
{
    (void)usable, (void)cu;
    struct place_arena *a = t->state;
    unsigned c = place_slabs_block_class(&a->slabs, p);
    if (c == PLACE_CLASSES)
        to_pool(t, a, p);
    else if (!place_cache_push(t, c, p))
        place_cache_overflow(t, &a->slabs, c, p);
    place_node_count(t->index, PLACE_EV_FREES);
}

const char *place_arena_bind(struct place_tier *t, const struct place_binding *b,
                             const uint8_t *weights)
{
    struct place_arena *a = t->state;
    const char *why = place_numa_bind(a->lo, a->len, b, false);
    if (why)
        return why;
    a->binding = *b;
    if (weights)
        stripe(a, weights);
    return NULL;
}

const char *place_arena_near(struct place_tier *t, const struct place_binding *b,
                             const struct place_near *near)
{
    struct place_arena *a = t->state;
    PLACE_ASSERT(a->slabs.nparts >= near->nparts);
    for (unsigned k = 0; k < near->nparts; k++) {
        const struct place_extents *e = &a->extents[k];
        struct place_binding one = place_numa_one(b, near->node[k]);
        const char *why =
            place_numa_bind(place_slabs_part(&a->slabs, k), a->slabs.part_len, &one, false);
        if (why || (why = place_numa_bind(e->lo, (size_t)e->npages * e->unit, &one, false)))
            return why;
    }
    a->binding = *b;
    a->near = *near;
    return NULL;
}

const struct place_near *place_arena_near_of(const struct place_tier *t)
{
    const struct place_arena *a = t->state;
    return t->allocator == &place_arena_allocator && a && a->near.nparts ? &a->near : NULL;
}

const struct place_binding *place_arena_binding(struct place_tier *t)
{
    return &((struct place_arena *)t->state)->binding;
}

static size_t arena_usable(struct place_tier *t, const void *p)
{
    struct place_arena *a = t->state;
    if (place_slabs_own(&a->slabs, p))
        return place_class_size[place_slabs_class(&a->slabs, p)];
    return place_extents_usable(place_slabs_runs_of(&a->slabs, p), p);
}

static size_t arena_reclaim(struct place_tier *t, size_t want)
{
    (void)want;
    struct place_arena *a = t->state;
    size_t given = drain(t, a) + place_cache_flush(t, &a->slabs) + place_slabs_trim(&a->slabs);
    for (unsigned k = 0; k < a->slabs.nparts; k++)
        given += place_extents_trim(&a->extents[k]);
    return given;
}

const struct place_allocator place_arena_allocator = {
    .alloc = arena_alloc,
    .release = arena_release,
    .usable_size = arena_usable,
    .reclaim = arena_reclaim,
    .grow = arena_grow,
};

void place_arenas_prefork(void)
{
    place_caches_prefork();
    for (unsigned k = 0; k < narenas; k++) {
        place_slabs_prefork(&arenas[k].slabs);
        for (unsigned j = 0; j < arenas[k].slabs.nparts; j++)
            place_extents_prefork(&arenas[k].extents[j]);
    }
}

/* Every arena's locks, released in the reverse of prefork's order (both sides of fork). */
static void arenas_postfork(void)
{
    for (unsigned k = narenas; k-- > 0;) {
        for (unsigned j = arenas[k].slabs.nparts; j-- > 0;)
            place_extents_postfork(&arenas[k].extents[j]);
        place_slabs_postfork(&arenas[k].slabs);
    }
}

void place_arenas_postfork_parent(void)
{
    arenas_postfork();
    place_caches_postfork_parent();
}

void place_arenas_postfork_child(void)
{
    arenas_postfork();
    place_caches_postfork_child();
}

const struct place_stripes *place_arena_stripes(const struct place_tier *t)
{
    const struct place_arena *a = t->state;
    return t->allocator == &place_arena_allocator && a && a->extents[0].fresh ? &a->stripes : NULL;
}
