#include "whose.h"

#include "../tiers/arena.h"
#include "../tiers/cache.h"
#include "outside.h"

#ifdef PLACE_HAVE_CUDA
#include "cuda_path.h"
#endif

/* The guard is up while the tier holds its lock (an arena's slab or extent lock, a pool's mutex):
 * a signal handler that allocates meanwhile is served by glibc instead of waiting for a
 * lock its own thread holds. */
__attribute__((noinline)) static void free_slow(void *p, struct place_tier *t)
{
    /* a thread that frees placed blocks (what others allocated: a consumer) registers as
     * one that places them does, so that its next frees take the bin's fast path and
     * count in its slot, not in the tier's shared counters, one atomic add each */
    place_thread_seen(false);
    uint8_t was = place_guard_enter();
    if (was == PLACE_THREAD_BUSY && t->slabs) /* inside libplace: no bin, no lock */
        place_arena_defer(t, p);
    else
        t->allocator->release(t, p, 0, NULL);
    place_guard_leave(was);
}

/* An arena's block of a size class (a slab's, or a run's) goes on the calling thread's
 * bin when there is room: a few loads and stores, no call (active: registered, so it
 * has a slot, and outside libplace). Every other end is a tail call, so that nothing is
 * saved. */
static inline __attribute__((always_inline)) void free_placed(void *p, struct place_tier *t)
{
    struct place_slabs *s = t->slabs;
    unsigned c;
    if (s && place_self.state == PLACE_THREAD_ACTIVE &&
        (c = place_slabs_block_class(s, p)) != PLACE_CLASSES) {
        /* the bin is read only once the guard is up (see place_alloc) */
        place_guard_enter();
        if (__builtin_expect(place_cache_push(t, c, p), 1)) {
            place_placed_count(&place_self.slot->placed, t->index, PLACE_EV_FREES);
            place_guard_leave(PLACE_THREAD_ACTIVE);
            return;
        }
        place_guard_leave(PLACE_THREAD_ACTIVE);
    }
    free_slow(p, t);
}

/* With a report: the block may be the profile's sample. */
__attribute__((noinline)) static void free_counted(void *p, struct place_tier *t)
{
    place_sample_free(p);
    free_placed(p, t);
}

void place_free_placed(void *p, struct place_tier *t)
{
    if (place_counting) /* only a report samples: without one, no load of the filter */
        free_counted(p, t);
    else
        free_placed(p, t);
}

/* A pointer inside the ranges' interval outside the first range: another tier's block,
 * or glibc's between two ranges (outside every range, as if outside the gate). */
__attribute__((noinline)) static void free_looked_up(void *p)
{
    struct place_tier *t = place_owner_lookup((uintptr_t)p);
    if (t)
        place_free_placed(p, t);
    else
        place_outside.free(p);
}

void place_free_gated(void *p)
{
    struct place_tier *t = place_owner_first(p);
    if (__builtin_expect(t == NULL, 0))
        free_looked_up(p);
    else
        place_free_placed(p, t);
}

size_t place_whose_usable_placed(const void *p, struct place_tier *t)
{
    uint8_t was = place_guard_enter(); /* as for a free: the tier may lock */
    size_t n = t->allocator->usable_size(t, p);
    place_guard_leave(was);
    return n;
}

struct place_tier *place_whose_any(const void *p)
{
    bool planned;
    struct place_tier *t = place_whose(p, &planned);
#ifdef PLACE_HAVE_CUDA
    if (!t && place_cuda_on)
        t = place_cuda_whose(p);
#endif
    return t;
}
