#include "place.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../base/glibc.h"
#include "../site/memo.h"
#include "../site/modules.h"
#include "../site/site.h"
#include "../stats/sites.h"
#include "../stats/threads.h"
#include "../tiers/cache.h"
#include "chain.h"
#include "dry.h"
#include "sampler.h"
#include "tracked.h"
#include "whose.h"

struct place_window place_window = {SIZE_MAX, 0};
bool place_dry_run;
const struct place_rule_config *place_rules[PLACE_MAX_RULES];
unsigned place_nrules;

static unsigned site_depth; /* the deepest site search of any rule */

/* Rules by size class (tiers/slab.h), for malloc's sizes up to PLACE_SMALL_MAX: the first
 * rule a size of the class can match (place_match's scan starts there). */
static uint8_t class_first[PLACE_CLASSES];
/* The fast path's view of the class's first rule, when that rule's first tier is an
 * arena (served from the thread's cache): the tier, the site key without the return
 * address, the rule's sizes in the class, and its site patterns and the index of its
 * depth's masks in a memo entry's cum (depth - 1). */
static struct fast_class {
    struct place_tier *tier;
    uint64_t key;
    size_t lo, span;
    uint64_t patterns;
    unsigned at;
    bool last;  /* no later malloc rule takes a size of the class: a refusal is glibc's */
    bool plain; /* last, and nothing counted: a refusal is glibc's block, straight */
} __attribute__((aligned(64))) fast[PLACE_CLASSES]; /* a line each: indexed by a shift */

static void index_rules(bool counting)
{
    for (unsigned c = 0; c < PLACE_CLASSES; c++) {
        uint64_t lo = c ? place_class_size[c - 1] + 1 : 0, hi = place_class_size[c];
        class_first[c] = (uint8_t)place_nrules;
        for (unsigned k = 0; k < place_nrules; k++) {
            const struct place_rule_config *r = place_rules[k];
            if ((r->api & PLACE_API_MALLOC) && r->max >= lo && r->min <= hi) {
                class_first[c] = (uint8_t)k;
                break;
            }
        }
        unsigned k = class_first[c];
        struct place_tier *t =
            k < place_nrules && !place_dry_run ? place_tiers[place_rules[k]->chain[0]] : NULL;
        if (t && t->slabs && !t->unavailable) {
            const struct place_rule_config *r = place_rules[k];
            fast[c].tier = t;
            fast[c].key = place_site_key(0, (int)k, t->index);
            fast[c].lo = r->min;
            fast[c].span = (r->max > hi ? hi : (size_t)r->max) - r->min;
            fast[c].patterns = r->patterns;
            fast[c].at = r->depth ? r->depth - 1 : 0;
            fast[c].last = true;
            for (unsigned j = k + 1; j < place_nrules; j++)
                if ((place_rules[j]->api & PLACE_API_MALLOC) && place_rules[j]->max >= lo &&
                    place_rules[j]->min <= hi)
                    fast[c].last = false;
            fast[c].plain = fast[c].last && !counting;
        }
    }
}

void place_policy_start(const struct place_policy *policy, bool counting)
{
    size_t lo = SIZE_MAX, hi = 0;
    uint64_t patterns = 0;
    place_dry_run = policy->dry_run;
    place_dry_start(place_policy_fold_min(policy));
    place_nrules = policy->nrules;
    for (unsigned k = 0; k < policy->nrules; k++) {
        const struct place_rule_config *r = &policy->rules[k];
        place_rules[k] = r;
        patterns |= r->patterns;
        if (r->patterns && r->depth > site_depth)
            site_depth = r->depth;
        if (!(r->api & PLACE_API_MALLOC))
            continue;
        if (r->min < lo)
            lo = r->min;
        size_t max = r->max > SIZE_MAX ? SIZE_MAX : (size_t)r->max;
        if (max > hi)
            hi = max;
    }
    if (policy->npatterns)
        place_modules_start(policy);
    if (site_depth) /* a site past a wrapper is unwound even for a rule of depth 1 */
        place_sites_start(patterns, site_depth);
    index_rules(counting);
    /* last, once the rules are ready; a reader that sees one of its two words new and
     * the other old lets some other sizes in, and the rules send them to glibc */
    if (lo <= hi)
        place_window = (struct place_window){lo, hi - lo};
}

/* The first rule from rule `from` on that takes an allocation of size bytes by api from
 * the code at ra (-1: none). cum: the caller's frames' masks when they were looked up
 * already, else NULL (looked up at the first rule that names sites). */
static int match_from(unsigned api, size_t size, uintptr_t ra, unsigned from, const uint64_t *cum)
{
    for (unsigned k = from; k < place_nrules; k++) {
        const struct place_rule_config *r = place_rules[k];
        if (!(r->api & api) || size < r->min || size > r->max)
            continue;
        if (!r->patterns)
            return (int)k;
        if (!cum)
            cum = place_site_masks(ra, place_stack_pointer());
        if (cum[r->depth - 1] & r->patterns)
            return (int)k;
    }
    return -1;
}

int place_match(unsigned api, size_t size, uintptr_t ra)
{
    unsigned from = api == PLACE_API_MALLOC && size <= PLACE_SMALL_MAX
                        ? class_first[place_size_class(size)]
                        : 0;
    return match_from(api, size, ra, from, NULL);
}

/* Serves r (a matched rule, -1: none) with the guard up, and counts it; *tier is where
 * the block went. */
static void *serve(int rule, struct place_request *r, unsigned *tier)
{
    *tier = 0;
    if (rule < 0) {
        /* the access profile's: its free finds it by the profile's filter */
        if (__builtin_expect(place_tracked_min != 0, 0) && r->size >= place_tracked_min &&
            !place_dry_run) {
            void *p = place_tracked_alloc(r);
            if (p) {
                *tier = PLACE_TRACKED;
                return p;
            }
        }
        void *p = place_glibc_alloc(r);
        if (p && r->refused) /* a realloc its tier refused: glibc took it in */
            place_stats_count(place_dram.stats, PLACE_EV_FALLBACKS_IN, 1);
        return p;
    }
    void *p = place_chain(place_rules[rule], r, tier);
    if (p)
        place_count_rule(rule, r->ra, *tier, r->size);
    return p;
}

/* Leaves the guard raised at entry (was) and gives errno glibc's meaning: untouched
 * (saved) on success, ENOMEM on failure. A dram block (r's) is counted outside the
 * guard, in the thread's own counts; a placed one may be the profile's sample. */
static void *done(void *p, const struct place_request *r, unsigned tier, uint8_t was, int saved)
{
    place_guard_leave(was);
    if (tier == PLACE_TRACKED) /* dram's, counted whole: its weight is 1 */
        place_count(1, 0, (int64_t)place_glibc_usable(p));
    else if (tier == 0) {
        if (place_counting)
            place_count_glibc(p, r->size, r->ra);
    } else {
        place_thread_seen(true);
        if (p && place_counting && place_sample_due(r->size))
            place_sample(p, r->size, tier, r->ra);
    }
    errno = p ? saved : ENOMEM;
    return p;
}

/* A rule not decided yet: place_match decides. */
enum { ASK = -2 };

/* A placed allocation of r, by rule (-1: none; ASK), glibc's semantics. */
static void *alloc_request(struct place_request *r, int rule)
{
    if (place_guarded()) /* libplace's own allocation: not the program's, not counted */
        return place_glibc_alloc(r);
    int saved = errno;
    uint8_t was = place_guard_enter();
    unsigned tier;
    if (rule == ASK)
        rule = place_match(PLACE_API_MALLOC, r->size, r->ra);
    void *p = serve(rule, r, &tier);
    return done(p, r, tier, was, saved);
}

__attribute__((noinline)) static void *alloc_slow(size_t size, size_t align, enum place_call call,
                                                 uintptr_t ra, int rule)
{
    struct place_request r = {.size = size, .align = align, .call = call, .ra = ra};
    return alloc_request(&r, rule);
}


/* The fast path's rare ends with a report, as a tail call (so that the fast path itself
 * saves no register for them): a site the thread's pending entry e does not hold (NULL: it did),
 * a sample due; then the guard down and calloc's zeroes. key holds the tier and return
 * address. */
__attribute__((noinline)) static void *fast_rare(struct place_site_pending *e, uint64_t key,
                                                 size_t size, void *p, enum place_call call)
{
    if (e)
        place_count_site_miss(e, key, size);
    if (!e || place_sample_due(size)) /* with e NULL the caller found it due */
        place_sample(p, size, place_site_key_tier(key), place_site_key_ra(key));
    place_guard_leave(PLACE_THREAD_ACTIVE);
    return call == PLACE_CALLOC ? memset(p, 0, size) : p;
}

/* from_bin's end with a report, the guard up: the block's site counted in the thread's
 * pending sites (fast_rare's when another site holds its entry), a sample taken when
 * due, the guard down. */
static inline __attribute__((always_inline)) void *counted(void *p, size_t size, unsigned c,
                                                           uintptr_t ra, enum place_call call,
                                                           struct place_slot *slot)
{
    uint64_t key = fast[c].key | ra;
    struct place_site_pending *e = place_site_entry(slot, key);
    if (__builtin_expect(!place_site_hit(e, key, size), 0))
        return fast_rare(e, key, size, p, call);
    if (place_sample_due(size))
        return fast_rare(NULL, key, size, p, call);
    place_guard_leave(PLACE_THREAD_ACTIVE);
    return call == PLACE_CALLOC ? memset(p, 0, size) : p;
}

/* counted, out of line: the site path's, which keeps few registers so as to save none. */
__attribute__((noinline)) static void *counted_apart(void *p, size_t size, unsigned c, uintptr_t ra,
                                                     enum place_call call)
{
    return counted(p, size, c, ra, call, place_self.slot);
}

/* With the guard up: a block of class c from the thread's bin for t, which holds one,
 * counted (with a report, inline or apart), and the guard down. Every return is a tail
 * call or a value, so that the fast path saves no register for its rare ends. */
static inline __attribute__((always_inline)) void *from_bin(struct place_bins *b, unsigned c,
                                                            struct place_tier *t, size_t size,
                                                            uintptr_t ra, enum place_call call,
                                                            bool apart)
{
    struct place_bin *bin = &b->bin[c];
    /* the fast path pops without place_bin_pop's test: its caller saw the bin hold one */
    PLACE_ASSERT(bin->n > 0 && bin->n <= bin->cap);
    void *p = bin->item[--bin->n];
    /* its class's, or a larger one's lent (tiers/cache.h) */
    PLACE_ASSERT(place_slabs_block_class(t->slabs, p) >= c);
    struct place_slot *slot = place_self.slot;
    place_placed_count(&slot->placed, t->index, PLACE_EV_ALLOCS);
    if (place_counting) /* only a report reads the sites, and samples */
        return apart ? counted_apart(p, size, c, ra, call) : counted(p, size, c, ra, call, slot);
    place_guard_leave(PLACE_THREAD_ACTIVE);
    return call == PLACE_CALLOC ? memset(p, 0, size) : p;
}

/* The state a site path's thread had before its guard went up: place_alloc lets in a
 * registered thread (it has a slot) and one not registered yet whose bins are not made
 * (it has none), so that a thread whose blocks a site rule looks at and never takes
 * needs no slot. */
static inline uint8_t site_was(void)
{
    return place_self.slot ? PLACE_THREAD_ACTIVE : PLACE_THREAD_NEW;
}

/* Whether the masks of the caller's frames (place_site_masks's) match the patterns of
 * class c's first rule within its depth. */
static inline bool site_takes(const struct fast_class *f, const uint64_t *cum)
{
    return cum[f->at] & f->patterns;
}

/* A site path's block that the bin cannot give (the guard up): its class's first rule
 * with an empty bin (or none yet), else the next rule the caller's frames (cum) match,
 * never looked up again; or no rule, and the block is glibc's: straight from it when
 * nothing is counted (a site rule's misses cost the lookup and nothing more), else
 * counted by the slow path, which knows the caller (the outside table's counted entries
 * take their caller from their return address, which need not be the program's here). */
__attribute__((noinline)) static void *site_refused(size_t size, unsigned c, enum place_call call,
                                                    uintptr_t ra, const uint64_t *cum)
{
    int rule = site_takes(&fast[c], cum) ? class_first[c]
               : !fast[c].last ? match_from(PLACE_API_MALLOC, size, ra, class_first[c] + 1u, cum)
                               : -1;
    place_guard_leave(site_was());
    if (rule < 0 && !place_counting)
        return call == PLACE_CALLOC ? place_libc_calloc(1, size) : place_libc_malloc(size);
    return alloc_slow(size, 0, call, ra, rule);
}

/* site_taken's stack when the thread's bin has no block (or the thread no bins yet): the
 * class's first rule, by the slow path. */
__attribute__((noinline)) static void *site_taken_slow(size_t size, unsigned c,
                                                       enum place_call call, uintptr_t ra)
{
    place_guard_leave(site_was());
    return alloc_slow(size, 0, call, ra, class_first[c]);
}

/* A site path's stack that the class's first rule takes, the guard up: a block from the
 * thread's bin (only a registered thread, which has a slot, has bins of its own), else
 * site_taken_slow's. Inline in fast_site, so that a hit makes no second call (as a
 * function apart, it saved four registers: small pairs 1.39x glibc's time against
 * 1.26x); with a report, the count is counted_apart's, so that it saves none. */
static inline __attribute__((always_inline)) void *
site_taken(size_t size, enum place_call call, uintptr_t ra, const struct fast_class *f)
{
    unsigned c = (unsigned)(f - fast); /* a subtraction and a shift, beside the tier's load */
    struct place_tier *t = f->tier;
    struct place_bins *b = place_cache_bins(t->index);
    if (place_self.slot && b->bin[c].n != 0)
        return from_bin(b, c, t, size, ra, call, true);
    return site_taken_slow(size, c, call, ra);
}

/* The site paths' end, once the caller's frames' masks (cum) are known, the guard up: a
 * stack the rule takes is site_taken's; the most frequent end of a site rule alone in
 * its sizes, a stack it refuses, is glibc's block with nothing to count; the rest is
 * site_refused's: tail calls, so that fast_site saves two registers at most. */
static inline __attribute__((always_inline)) void *site_known(size_t size,
                                                              const struct fast_class *f,
                                                              enum place_call call, uintptr_t ra,
                                                              const uint64_t *cum)
{
    if (site_takes(f, cum))
        return site_taken(size, call, ra, f);
    if (f->plain) {
        place_guard_leave(site_was());
        return call == PLACE_CALLOC ? place_libc_calloc(1, size) : place_libc_malloc(size);
    }
    return site_refused(size, (unsigned)(f - fast), call, ra, cum); /* not a load */
}

/* fast_site's lookup when the thread's memo does not hold the stack: walked (the guard
 * is up), then as fast_site. What the lookup calls may set errno (a table's mapping, the
 * modules read anew), which glibc's malloc would have left alone. */
__attribute__((noinline)) static void *site_unknown(size_t size, enum place_call call, uintptr_t ra,
                                                    const struct fast_class *f, uintptr_t key)
{
    int saved = errno;
    struct place_cfi_frame here; /* reached by tail calls: its caller is the program */
    PLACE_CFI_HERE(here);
    const uint64_t *cum = place_site_masks_unknown(ra, place_memo_sp(ra, key), &here);
    errno = saved;
    return site_known(size, f, call, ra, cum);
}

/* The fast path of a class whose first rule names sites, for a thread registered or not
 * yet: the memo says whether the caller's frames match (a few loads for a stack seen
 * before, inline); when they do, the block comes from the bin as for a size rule, else
 * place_match goes on to the next rules. Tail calls, so that little is saved; the
 * arguments in the registers place_alloc received them in, and the class's entry (f),
 * which place_alloc found, in place of its index. */
__attribute__((noinline)) static void *fast_site(size_t size, enum place_call call, uintptr_t ra,
                                                 const struct fast_class *f)
{
    place_guard_enter();
    uintptr_t key = place_memo_key(ra, place_stack_pointer());
    const uint64_t *cum = place_memo_masks(ra, key);
    if (!cum)
        return site_unknown(size, call, ra, f, key);
    return site_known(size, f, call, ra, cum);
}

/* A small block whose class's first rule takes it, served by the rule's first tier's
 * cache for the calling thread (active: registered, so it has a slot, and outside
 * libplace): no errno to keep, no lock, no shared counter. The bin is read only once the
 * guard is up, so that a signal handler's malloc in between cannot pop the same block.
 * A class whose rule names sites is looked up here for a thread without bins too (none
 * until its first block of the tier), registered or not yet (site_was). */
void *place_alloc(size_t size, enum place_call call, uintptr_t ra)
{
    if (__builtin_expect(size <= PLACE_SMALL_MAX, 1)) {
        unsigned c = place_size_class(size);
        struct place_tier *t = fast[c].tier;
        if (fast[c].patterns) { /* only a class with a tier has them: one test less */
            if (size - fast[c].lo <= fast[c].span && place_self.state <= PLACE_THREAD_ACTIVE)
                return fast_site(size, call, ra, &fast[c]); /* registered or NEW */
        } else if (t && size - fast[c].lo <= fast[c].span) {
            struct place_bins *b = place_cache_bins(t->index);
            if (place_self.state == PLACE_THREAD_ACTIVE) {
                place_guard_enter();
                if (__builtin_expect(b->bin[c].n != 0, 1))
                    return from_bin(b, c, t, size, ra, call, false);
                place_guard_leave(PLACE_THREAD_ACTIVE);
            }
        }
    }
    return alloc_slow(size, 0, call, ra, ASK);
}

void *place_alloc_aligned(size_t size, size_t align, uintptr_t ra)
{
    return alloc_slow(size, align, PLACE_ALIGNED, ra, ASK);
}

/* Moves p's contents (old bytes) into q, which holds size bytes, and frees p. */
static void move(void *q, void *p, size_t size, size_t old)
{
    memcpy(q, p, old < size ? old : size);
    place_free(p);
}

void *place_realloc(void *p, size_t size, uintptr_t ra)
{
    if (!place_guarded()) {
        int saved = errno;
        uint8_t was = place_guard_enter();
        int rule = place_match(PLACE_API_MALLOC, size, ra);
        if (rule >= 0 && place_chain_first(place_rules[rule]) != 0) {
            size_t old = place_glibc_usable(p);
            unsigned tier;
            struct place_request r = {.size = size, .call = PLACE_MALLOC, .ra = ra};
            void *q = serve(rule, &r, &tier);
            q = done(q, &r, tier, was, saved);
            if (q)
                move(q, p, size, old);
            return q;
        }
        place_guard_leave(was);
        if (rule >= 0)
            place_count_rule(rule, ra, 0, size);
    }
    return place_realloc_glibc(p, size, ra);
}

/* Block p of tier t (old bytes) made to hold size bytes in t alone: p itself, or a new
 * block; NULL when t refuses. */
static void *in_tier(struct place_tier *t, void *p, size_t old, size_t size)
{
    if (place_guarded()) /* libplace's own realloc: glibc's business */
        return NULL;
    int saved = errno;
    uint8_t was = place_guard_enter();
    void *q = NULL;
    /* grown where it is when the tier can (the pages after an arena's large block): a
     * buffer doubled again and again is never copied, nor leaves freed copies behind. A
     * dry run's block is glibc's. */
    if (size > old && !place_dry_run && t->allocator->grow && t->allocator->grow(t, p, size))
        q = p;
    if (!q) {
        struct place_request r = {.size = size, .call = PLACE_MALLOC};
        q = place_chain_tier(t, &r);
    }
    place_guard_leave(was);
    errno = saved;
    return q;
}

void *place_realloc_placed(void *p, struct place_tier *t, size_t old, size_t size, uintptr_t ra)
{
    if (size == 0) {
        place_free(p);
        return NULL;
    }
    /* a block that still fits stays, unless it would keep more than twice what it holds
     * charged against its tier */
    if (size <= old && size > old / 2)
        return p;
    /* The block stays in its tier while the tier has room, whoever asks (a block grown
     * from code no rule names keeps its placement, as memkind's hbw_realloc keeps a block
     * in HBW); only a refusal lets the policy decide where it lives now. A shrink its
     * full tier refuses keeps the block as it is: shrinking cannot fail. */
    void *q = in_tier(t, p, old, size);
    if (q == p || (!q && size <= old))
        return p;
    if (!q) {
        struct place_request r = {.size = size, .call = PLACE_MALLOC, .ra = ra, .refused = t};
        place_stats_count(t->stats, PLACE_EV_FALLBACKS_OUT, 1);
        q = alloc_request(&r, ASK);
    }
    if (q)
        move(q, p, size, old);
    return q;
}
