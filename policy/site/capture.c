/* Site capture: a stack the memo lacks is walked (walk.c), or read by libunwind
 * (unwound.c) where the walk cannot, into an entry of the thread's memo (memo.h). */
#include "site.h"

#include <string.h>

#include "frames.h"
#include "unwound.h"
#include "walk.h"

/* Every pattern the rules name (place_sites_start): once the frames seen match all of
 * them, deeper frames cannot change any rule's answer, so none is read. */
static uint64_t all_patterns;

/* A thread's entry when it has no table (its memo could not be made) */
static __thread struct place_memo spare __attribute__((tls_model("initial-exec")));

/* Key (ra, sp)'s untrusted entry in set, or NULL. */
static struct place_memo *untrusted_of(struct place_memo_set *set, uintptr_t ra, uintptr_t sp)
{
    for (unsigned w = 0; set && w < PLACE_MEMO_WAYS; w++) {
        struct place_memo *e = &set->way[w];
        if (e->ra == ra && e->sp == (sp | 1))
            return e;
    }
    return NULL;
}

/* m, filled, becomes the entry of key (ra, sp), trusted or not. */
static const uint64_t *keep(struct place_memo *m, uintptr_t ra, uintptr_t sp, bool trusted,
                            unsigned *n)
{
    m->ra = ra;
    m->sp = trusted ? sp : sp | 1;
    *n = m->n;
    return m->cum;
}

/* A stack the walker cannot read (a signal frame, code without unwind information),
 * libunwind's: traced (its backtrace: ~80 ns for 12 frames once their layout is known,
 * but no slots) until it has been seen HOT times, then unwound frame by frame (its
 * cursor: two system calls a frame, ~4 us for 12, but the slots that make every later
 * hit a few loads). One key may have several trusted entries (the same call at the same
 * depth from different callers further up) and one untrusted entry, which counts the
 * sightings of every other stack it has. */
static const uint64_t *unwound(struct place_memo_set *set, uintptr_t ra, uintptr_t sp,
                               uint64_t first, unsigned depth, unsigned *n)
{
    struct place_memo *m = untrusted_of(set, ra, sp);
    enum { HOT = 64 };
    bool hot = m && ++m->seen >= HOT;
    if (!m && set) {
        m = &set->way[set->victim];
        set->victim = (set->victim + 1) % PLACE_MEMO_WAYS;
        m->seen = 0;
    } else if (!m) {
        m = &spare;
    }
    bool trusted = hot && place_unwind_frames(m, ra, first, depth, all_patterns);
    if (!hot)
        place_unwind_trace(m, ra, first, depth, all_patterns);
    return keep(m, ra, sp, trusted, n);
}

const uint64_t *place_site_masks_unknown(uintptr_t ra, uintptr_t sp, unsigned depth, unsigned *n,
                                         const struct place_cfi_frame *from)
{
    uint64_t mask = place_site_mask(ra);
    uint64_t tag = place_memo_tag(depth), first = mask & ~PLACE_WRAPPER;
    struct place_memo_set *table = place_memos_own();
    if (table && place_memos_tag != tag) { /* filled for other modules: emptied */
        memset(table, 0, PLACE_MEMO_SETS * sizeof *table);
        place_memos_tag = tag;
    }
    struct place_memo_set *set = table ? place_memo_set_of(table, ra, sp) : NULL;
    /* place_memo_hit found no trusted entry: the stack is walked into the set's next
     * victim, trusted at once */
    struct place_memo *m = set ? &set->way[set->victim] : &spare;
    if (first == all_patterns || (depth <= 1 && !(mask & PLACE_WRAPPER))) {
        /* the caller alone decides (it matches every pattern, or it is the site and the
         * depth is 1): nothing to walk or check */
        place_frames_caller_only(m, ra, first);
    } else if (!place_site_walk(m, ra, depth, all_patterns, from)) {
        return unwound(set, ra, sp, first, depth, n);
    }
    if (set)
        set->victim = (set->victim + 1) % PLACE_MEMO_WAYS;
    m->seen = 0;
    return keep(m, ra, sp, true, n);
}

const uint64_t *place_site_masks(uintptr_t ra, uintptr_t sp, unsigned depth, unsigned *n)
{
    const uint64_t *hit = place_memo_hit(ra, sp, depth, n);
    return hit ? hit : place_site_masks_unknown(ra, sp, depth, n, NULL);
}

unsigned place_site_frames(uintptr_t ra, unsigned depth, uintptr_t *out)
{
    struct place_memo m;
    if (!place_site_walk(&m, ra, depth, PLACE_SITE_NEVER, NULL)) {
        place_unwind_trace(&m, ra, 0, depth, PLACE_SITE_NEVER);
    }
    /* the counted frames are the last read: the wrappers came first */
    for (unsigned k = 0; k < m.n; k++)
        out[k] = m.frame[m.raw - m.n + k].ra;
    return m.n;
}

void place_sites_start(uint64_t patterns)
{
    all_patterns = patterns;
    place_unwinder_start();
}
