#include "place.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../shim/glibc.h"
#include "../shim/thread.h"
#include "claim.h"
#include "out.h"
#include "site.h"
#include "modules.h"
#include "tier.h"

#define uthash_malloc(sz) __libc_malloc(sz)
#define uthash_free(ptr, sz) __libc_free(ptr)
#include <uthash.h>

struct place_window place_window = {SIZE_MAX, 0};
bool place_dry_run;
struct place_rule place_rules[PLACE_MAX_RULES];
unsigned place_nrules;

static unsigned site_depth; /* the deepest site search of any malloc rule */

void place_policy_start(const struct place_policy *policy)
{
    size_t lo = SIZE_MAX, hi = 0;
    place_dry_run = policy->dry_run;
    place_nrules = policy->nrules;
    for (unsigned k = 0; k < policy->nrules; k++) {
        const struct place_rule_config *r = &policy->rules[k];
        place_rules[k].config = r;
        if (!(r->api & PLACE_API_MALLOC))
            continue;
        if (r->min < lo)
            lo = r->min;
        size_t max = r->max > SIZE_MAX ? SIZE_MAX : (size_t)r->max;
        if (max > hi)
            hi = max;
        if (r->patterns && r->depth > site_depth)
            site_depth = r->depth;
    }
    if (policy->npatterns)
        place_modules_start(policy);
    if (lo <= hi)
        place_window = (struct place_window){lo, hi - lo};
}

/* The first malloc rule that takes this allocation, or -1. */
static int match(size_t size, uintptr_t ra)
{
    const uint64_t *cum = NULL;
    unsigned frames = 0;
    for (unsigned k = 0; k < place_nrules; k++) {
        const struct place_rule_config *r = place_rules[k].config;
        if (!(r->api & PLACE_API_MALLOC) || size < r->min || size > r->max)
            continue;
        if (!r->patterns)
            return (int)k;
        if (!cum)
            cum = place_site_masks(ra, site_depth, &frames);
        unsigned d = r->depth < frames ? r->depth : frames;
        if (d && (cum[d - 1] & r->patterns))
            return (int)k;
    }
    return -1;
}

static void *glibc(size_t size, size_t align, enum place_call call)
{
    switch (call) {
    case PLACE_CALLOC:
        return __libc_calloc(1, size);
    case PLACE_ALIGNED:
        return __libc_memalign(align, size);
    default:
        return __libc_malloc(size);
    }
}

/* Sites: allocations and bytes per (return address, rule, tier), in a table that never
 * locks; a full neighbourhood counts into the last slot ("other sites"). */
enum { SITE_BITS = 12, SITES = 1 << SITE_BITS, SITE_PROBES = 32 };

/* ra | (rule + 1) << 48 | tier << 56: user addresses fit 47 bits */
static _Atomic uint64_t site_keys[SITES];
static struct {
    _Atomic uint64_t allocs, bytes;
} sites[SITES + 1];

static void count_site(uintptr_t ra, int rule, unsigned tier, size_t bytes)
{
    uint64_t key = (uint64_t)ra | (uint64_t)(rule + 1) << 48 | (uint64_t)tier << 56;
    long i = place_claim(site_keys, SITE_BITS, SITE_PROBES, key);
    if (i < 0)
        i = SITES;
    atomic_fetch_add_explicit(&sites[i].allocs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&sites[i].bytes, bytes, memory_order_relaxed);
}

unsigned place_sites_top(struct place_site_count *out, unsigned n, unsigned *total)
{
    unsigned got = 0;
    *total = 0;
    for (unsigned j = 0; j <= SITES; j++) {
        uint64_t key = j < SITES ? atomic_load_explicit(&site_keys[j], memory_order_relaxed) : 0;
        struct place_site_count c = {
            .ra = (uintptr_t)(key & ((1ull << 48) - 1)),
            .rule = (int)((key >> 48) & 0xff) - 1,
            .tier = (int)(key >> 56),
            .allocs = atomic_load_explicit(&sites[j].allocs, memory_order_relaxed),
            .bytes = atomic_load_explicit(&sites[j].bytes, memory_order_relaxed),
        };
        if (!c.allocs)
            continue;
        ++*total;
        if (j == SITES)
            c.ra = 0, c.rule = -1, c.tier = -1;
        unsigned at = got < n ? got++ : n;
        while (at > 0 && out[at - 1].bytes < c.bytes) {
            if (at < n)
                out[at] = out[at - 1];
            at--;
        }
        if (at < n)
            out[at] = c;
    }
    return got;
}

/* Dry runs: which planned tier each pointer went to, by pointer, in 64 locked stripes. */
struct dry {
    void *p;
    unsigned tier;
    size_t bytes;
    UT_hash_handle hh;
};

static struct {
    pthread_mutex_t lock;
    struct dry *map;
} stripes[64];

static unsigned stripe(const void *p)
{
    return (unsigned)(((uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 58);
}

static void *dry_alloc(unsigned tier, size_t size, size_t align, enum place_call call)
{
    struct dry *e = __libc_malloc(sizeof *e);
    void *p = e ? glibc(size, align, call) : NULL;
    if (!p) {
        __libc_free(e);
        return NULL;
    }
    *e = (struct dry){.p = p, .tier = tier, .bytes = size};
    unsigned s = stripe(p);
    pthread_mutex_lock(&stripes[s].lock);
    HASH_ADD_PTR(stripes[s].map, p, e);
    pthread_mutex_unlock(&stripes[s].lock);
    return p;
}

/* Removes p from the dry map and releases it from its planned tier; the entry, or NULL. */
static struct dry *dry_take(void *p)
{
    unsigned s = stripe(p);
    struct dry *e;
    pthread_mutex_lock(&stripes[s].lock);
    HASH_FIND_PTR(stripes[s].map, &p, e);
    if (e)
        HASH_DEL(stripes[s].map, e);
    pthread_mutex_unlock(&stripes[s].lock);
    if (e) {
        struct place_tier_stats *st = &place_tiers[e->tier]->stats;
        atomic_fetch_add_explicit(&st->frees, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&st->bytes, (int64_t)e->bytes, memory_order_relaxed);
    }
    return e;
}

bool place_dry_free(void *p)
{
    struct dry *e = dry_take(p);
    if (!e)
        return false;
    __libc_free(e);
    __libc_free(p);
    return true;
}

/* Tells once per tier that a chain skipped it because this machine lacks it. */
static void skip(struct place_tier *t, const struct place_rule_config *r)
{
    atomic_fetch_add_explicit(&t->stats.skipped, 1, memory_order_relaxed);
    if (!atomic_exchange(&t->told, true))
        place_warn("rule %s skips tier %s: %s", r->name, t->name, t->unavailable);
}

/* Walks the rule's chain; the tier that served goes to *tier. */
static void *chain(const struct place_rule_config *r, size_t size, size_t align,
                   enum place_call call, unsigned *tier)
{
    bool tried_dram = false;
    for (unsigned k = 0; k < r->nchain; k++) {
        unsigned i = r->chain[k];
        struct place_tier *t = place_tiers[i];
        void *p;
        if (i == 0) {
            tried_dram = true;
            if ((p = glibc(size, align, call))) {
                *tier = 0;
                return p;
            }
            continue;
        }
        if (!place_dry_run && t->unavailable) {
            skip(t, r);
            continue;
        }
        /* a planned tier counts the bytes asked for; a real one what it hands out */
        if (!place_stats_reserve(&t->stats, (int64_t)size, t->limit))
            continue;
        if (place_dry_run) {
            p = dry_alloc(i, size, align, call);
        } else {
            p = t->ops->alloc(t, size, call == PLACE_ALIGNED ? align : 0);
            if (p && call == PLACE_CALLOC)
                memset(p, 0, size);
        }
        if (p) {
            *tier = i;
            return p;
        }
        atomic_fetch_sub_explicit(&t->stats.allocs, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&t->stats.bytes, (int64_t)size, memory_order_relaxed);
    }
    if (r->on_full == PLACE_FAIL || tried_dram)
        return NULL;
    *tier = 0;
    return glibc(size, align, call);
}

/* The tier the rule's chain would try first here (0: dram). */
static unsigned first_tier(const struct place_rule_config *r)
{
    for (unsigned k = 0; k < r->nchain; k++) {
        unsigned i = r->chain[k];
        if (i == 0 || place_dry_run || !place_tiers[i]->unavailable)
            return i;
    }
    return 0;
}

static void count_rule(int rule, uintptr_t ra, unsigned tier, size_t size)
{
    struct place_rule_stats *s = &place_rules[rule].stats;
    atomic_fetch_add_explicit(&s->hits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, size, memory_order_relaxed);
    count_site(ra, rule, tier, size);
}

static void count_dram(void *p)
{
    if (p && place_counting)
        place_count(1, 0, (int64_t)place_glibc_usable(p));
}

/* Serves a matched rule (-1: none) with the guard up, and counts it; *tier is where the
 * block went. */
static void *serve(int rule, size_t size, size_t align, enum place_call call, uintptr_t ra,
                   unsigned *tier)
{
    *tier = 0;
    void *p = rule < 0 ? glibc(size, align, call)
                       : chain(place_rules[rule].config, size, align, call, tier);
    if (p && rule >= 0)
        count_rule(rule, ra, *tier, size);
    return p;
}

/* Leaves the guard raised at entry (was) and gives errno glibc's meaning: untouched
 * (saved) on success, ENOMEM on failure. A dram block is counted outside the guard, in
 * the thread's own slot. */
static void *done(void *p, unsigned tier, uint8_t was, int saved)
{
    place_guard_leave(was);
    if (tier == 0)
        count_dram(p);
    errno = p ? saved : ENOMEM;
    return p;
}

void *place_alloc(size_t size, size_t align, enum place_call call, uintptr_t ra)
{
    if (place_self.state == PLACE_THREAD_BUSY) { /* libplace's own allocation */
        void *p = glibc(size, align, call);
        count_dram(p);
        return p;
    }
    int saved = errno;
    uint8_t was = place_guard_enter();
    unsigned tier;
    void *p = serve(match(size, ra), size, align, call, ra, &tier);
    return done(p, tier, was, saved);
}

/* Moves p's contents into q, which holds size bytes, and frees p. */
static void move(void *q, void *p, size_t size, size_t old)
{
    memcpy(q, p, old < size ? old : size);
    if (!place_dry_free(p)) {
        if (place_counting)
            place_count(0, 1, -(int64_t)place_glibc_usable(p));
        __libc_free(p);
    }
}

void *place_realloc(void *p, size_t size, uintptr_t ra)
{
    if (place_self.state != PLACE_THREAD_BUSY) {
        int saved = errno;
        uint8_t was = place_guard_enter();
        int rule = match(size, ra);
        if (rule >= 0 && first_tier(place_rules[rule].config) != 0) {
            size_t old = place_glibc_usable(p);
            unsigned tier;
            void *q = serve(rule, size, 0, PLACE_MALLOC, ra, &tier);
            q = done(q, tier, was, saved);
            if (q)
                move(q, p, size, old);
            return q;
        }
        place_guard_leave(was);
        if (rule >= 0)
            count_rule(rule, ra, 0, size);
    }
    size_t old = place_glibc_usable(p);
    void *q = __libc_realloc(p, size);
    if (q && place_counting)
        place_count(1, 1, (int64_t)place_glibc_usable(q) - (int64_t)old);
    return q;
}

bool place_dry_realloc(void *p, size_t size, uintptr_t ra, void **out)
{
    unsigned s = stripe(p);
    struct dry *e;
    pthread_mutex_lock(&stripes[s].lock);
    HASH_FIND_PTR(stripes[s].map, &p, e);
    size_t old = e ? e->bytes : 0;
    pthread_mutex_unlock(&stripes[s].lock);
    if (!e)
        return false;
    /* the policy decides again; p stays where it is until the new block exists */
    void *q = size ? place_alloc(size, 0, PLACE_MALLOC, ra) : NULL;
    if (q)
        move(q, p, size, old);
    else if (!size)
        place_dry_free(p);
    *out = q;
    return true;
}

void place_policy_prefork(void)
{
    place_modules_prefork();
    for (unsigned s = 0; s < 64; s++)
        pthread_mutex_lock(&stripes[s].lock);
}

void place_policy_postfork(void)
{
    for (unsigned s = 0; s < 64; s++)
        pthread_mutex_unlock(&stripes[s].lock);
    place_modules_postfork();
}
