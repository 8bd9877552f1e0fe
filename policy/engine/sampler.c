#include "sampler.h"

#include <errno.h>
#include <string.h>

#include "../base/clock.h"
#include "../base/glibc.h"
#include "../site/site.h"
#include "../stats/threads.h"
#include "tracked.h"

static unsigned depth = 4;
static bool ready; /* libplace's constructor has run */

void place_sampler_start(uint64_t rate, unsigned d, bool on)
{
    depth = d; /* 1..PLACE_MAX_DEPTH: the policy's report_depth */
    place_profile_start(rate);
    /* the interval drawn before start was at the default rate: drawn again at this one
     * (a thread that some library's constructor started before libplace's keeps its own) */
    place_self.sample_left = 0;
    place_self.sample_seed = 0;
    if (on)
        place_unwinder_start();
    ready = true;
}

/* The thread's first draw: seeded from its own address and the clock. */
static void seed(struct place_thread *t)
{
    t->sample_seed = ((uintptr_t)t * 0x9e3779b97f4a7c15ull) ^ (uint64_t)place_now_ns() ^ 1;
    t->sample_left += place_profile_interval(&t->sample_seed);
}

void place_sample(void *p, size_t size, unsigned tier, uintptr_t ra)
{
    struct place_thread *t = &place_self;
    if (!ready) {
        /* before start nothing is sampled: allocations from ld.so's own start-up
         * (AddressSanitizer's, say) come before libm can be called; the constructor
         * starts its thread's count afresh */
        t->sample_left = 1 << 20;
        return;
    }
    if (!place_counting) { /* no report (a thread caught as the constructor decides): never
                            * due again */
        t->sample_left = INT64_MAX;
        return;
    }
    if (!t->sample_seed) {
        seed(t);
        if (t->sample_left > 0)
            return;
    }
    t->sample_left = place_profile_interval(&t->sample_seed);
    if (!p || !size)
        return;
    uint8_t was = place_guard_enter();
    struct place_sample s = {
        .asked = size,
        .held = tier == 0 ? place_glibc_usable(p) : size,
        .tier = tier,
    };
    s.n = place_site_frames(ra, depth, s.frames);
    int64_t dram = place_profile_add(p, &s);
    place_guard_leave(was);
    if (dram)
        place_count(0, 0, dram);
}

/* The weight dram's estimate loses; *tracked says p was a tracked block, which is
 * unmapped here when unmap is true. */
static int64_t unsample(void *p, bool *tracked, bool unmap)
{
    *tracked = false;
    if (place_guarded()) /* a signal handler's free inside libplace: its record stays, and
                          * goes when the address is sampled or freed again */
        return 0;
    unsigned tier;
    int64_t held;
    uint8_t was = place_guard_enter();
    bool found = place_profile_remove(p, &tier, &held, tracked);
    if (*tracked && unmap)
        place_tracked_unmap(p);
    place_guard_leave(was);
    return found && tier == 0 ? held : 0;
}

void place_unsample(void *p)
{
    bool tracked;
    int64_t held = unsample(p, &tracked, true);
    if (held)
        place_count(0, 0, -held);
}

/* libplace's own allocations and frees (with the guard up) are not the program's: not
 * counted, not sampled. Nor is a signal handler's that interrupted libplace (which may
 * hold the profile's lock). A call glibc failed counts, as on the fast path
 * (engine/outside.c); place_sample samples no NULL. */
void place_count_glibc(void *p, size_t size, uintptr_t ra)
{
    if (place_guarded())
        return;
    place_count(1, 0, 0);
    if (place_sample_due(size))
        place_sample(p, size, 0, ra);
}

bool place_uncount_glibc(void *p)
{
    if (place_guarded()) /* libplace's own free */
        return false;
    bool tracked = false;
    place_count(0, 1, place_profile_maybe(p) ? -unsample(p, &tracked, true) : 0);
    return tracked;
}

/* realloc of a tracked block, or of a glibc block to a size the profile tracks: a new
 * block (tracked when big enough), the contents copied, the old one freed; NULL, and p
 * kept, when there is none (a tracked one then no longer tracked: its free unmaps its
 * pages, and leaves its two guard pages' addresses taken). */
static void *moved(void *p, size_t size, uintptr_t ra, bool tracked)
{
    size_t old = place_glibc_usable(p);
    struct place_request r = {.size = size, .call = PLACE_MALLOC, .ra = ra};
    int saved = errno; /* a mapping the kernel refused is no failure of the program's */
    uint8_t was = place_guard_enter();
    void *q = size >= place_tracked_min ? place_tracked_alloc(&r) : NULL;
    bool is_tracked = q != NULL;
    if (!q) {
        errno = saved;
        q = place_libc_malloc(size);
    }
    place_guard_leave(was);
    if (!q)
        return NULL;
    memcpy(q, p, old < size ? old : size);
    if (tracked)
        place_tracked_unmap(p);
    else
        place_libc_free(p);
    place_count(1, 1, is_tracked ? (int64_t)place_glibc_usable(q) : 0);
    if (!is_tracked && place_sample_due(size))
        place_sample(q, size, 0, ra);
    return q;
}

void *place_realloc_counted(void *p, size_t size, uintptr_t ra)
{
    if (place_guarded())
        return place_libc_realloc(p, size);
    /* forgotten before glibc frees it: another thread may be handed the address at once.
     * A realloc that fails keeps its block, no longer sampled. */
    bool tracked = false;
    int64_t held = p && place_profile_maybe(p) ? unsample(p, &tracked, false) : 0;
    if (tracked && size == 0) {
        place_tracked_unmap(p);
        place_count(0, 1, -held);
        return NULL;
    }
    if (tracked && size >= place_tracked_min && size <= place_glibc_usable(p) &&
        size > place_glibc_usable(p) / 2) { /* it still holds size: it stays, as glibc's */
        uint8_t was = place_guard_enter();
        bool kept = place_tracked_keep(p, size, ra);
        place_guard_leave(was);
        if (kept) {
            place_count(1, 1, 0); /* its weight is its usable size, as before */
            return p;
        }
    }
    if (p && size && (tracked || (place_tracked_min && size >= place_tracked_min))) {
        place_count(0, 0, -held);
        return moved(p, size, ra, tracked);
    }
    void *q = place_libc_realloc(p, size);
    bool freed = p && (q || size == 0);
    place_count(q != NULL, freed, -held);
    if (q && place_sample_due(size))
        place_sample(q, size, 0, ra);
    return q;
}
