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
/* The frames each lookup counts: the deepest rule's depth (place_sites_start). */
static unsigned site_depth;

/* A thread's entry when it has no table (its memo could not be made) */
static __thread struct place_memo spare __attribute__((tls_model("initial-exec")));

/* The way of key (ra, sp)'s untrusted entry in set, or -1. */
static int untrusted_of(const struct place_memo_set *set, uintptr_t ra, uintptr_t sp)
{
    for (unsigned w = 0; set && w < PLACE_MEMO_WAYS; w++)
        if (set->key[w] == (place_memo_key(ra, sp) ^ 1) && set->ra[w] == ra)
            return (int)w;
    return -1;
}

/* The way a stack of key (ra, sp) is read into, its key cleared meanwhile: the key's
 * untrusted way (w >= 0), else the set's next victim. */
static struct place_memo *fill(struct place_memo_set *set, int w)
{
    if (w < 0) {
        w = (int)set->victim;
        set->victim = (set->victim + 1) % PLACE_MEMO_WAYS;
        set->way[w].seen = 0;
    }
    set->ra[w] = 0;
    if (place_self.caller_masks == set->way[w].cum)
        place_self.caller_ra = 0;
    return &set->way[w];
}

/* m, filled (the way of set, or the spare), becomes the entry of key (ra, sp): its masks
 * past the stack's last frame are those of all its frames, so that a rule of any depth
 * reads its own without a test. */
static const uint64_t *keep(struct place_memo_set *set, struct place_memo *m, uintptr_t ra,
                            uintptr_t sp, bool trusted)
{
    for (unsigned k = m->n; k < site_depth; k++)
        m->cum[k] = k ? m->cum[k - 1] : 0;
    if (set) {
        unsigned w = (unsigned)(m - set->way);
        if (trusted)
            place_memo_mark_end(m);
        set->key[w] = place_memo_key(ra, sp) ^ !trusted;
        set->ra[w] = ra;
    }
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
                               uint64_t first, unsigned depth)
{
    enum { HOT = 64 };
    int w = untrusted_of(set, ra, sp);
    bool hot = w >= 0 && ++set->way[w].seen >= HOT;
    struct place_memo *m = set ? fill(set, w) : &spare;
    bool trusted = hot && place_unwind_frames(m, ra, first, depth, all_patterns);
    if (!hot)
        place_unwind_trace(m, ra, first, depth, all_patterns);
    return keep(set, m, ra, sp, trusted);
}

const uint64_t *place_site_masks_unknown(uintptr_t ra, uintptr_t sp,
                                         const struct place_cfi_frame *from)
{
    unsigned depth = site_depth;
    uint32_t gen = place_modules_generation();
    uint64_t mask = place_site_mask(ra), first = mask & ~PLACE_WRAPPER;
    struct place_memo_set *table = place_memos_own();
    if (table && place_self.memos_gen != gen) { /* filled for other modules: emptied */
        memset(table, 0, PLACE_MEMO_SETS * sizeof *table);
        place_self.caller_ra = 0;
        place_self.memos_gen = gen;
    }
    struct place_memo_set *set = table ? place_memo_set_of(table, place_memo_key(ra, sp)) : NULL;
    /* place_memo_masks found no trusted entry: the stack is walked into the set's next
     * victim, trusted at once */
    struct place_memo *m = set ? fill(set, -1) : &spare;
    if (first == all_patterns || (depth <= 1 && !(mask & PLACE_WRAPPER))) {
        /* the caller alone decides (it matches every pattern, or it is the site and the
         * depth is 1): nothing to walk or check */
        place_frames_caller_only(m, ra, first);
        if (set) { /* the next lookup from ra needs no probe (memo.h) */
            place_self.caller_ra = ra;
            place_self.caller_masks = m->cum;
        }
    } else if (!place_site_walk(m, ra, depth, all_patterns, from)) {
        if (set) /* the victim stays free for libunwind's */
            set->victim = (unsigned)(m - set->way);
        return unwound(set, ra, sp, first, depth);
    }
    return keep(set, m, ra, sp, true);
}

const uint64_t *place_site_masks(uintptr_t ra, uintptr_t sp)
{
    const uint64_t *hit = place_memo_masks(ra, place_memo_key(ra, sp));
    return hit ? hit : place_site_masks_unknown(ra, sp, NULL);
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

void place_sites_start(uint64_t patterns, unsigned depth)
{
    all_patterns = patterns;
    site_depth = depth;
    place_unwinder_start();
}
