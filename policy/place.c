#include "place.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../shim/free.h"
#include "../shim/glibc.h"
#include "../shim/thread.h"
#include "chain.h"
#include "claim.h"
#include "dry.h"
#include "out.h"
#include "site.h"
#include "modules.h"
#include "pool.h"
#include "tier.h"

struct place_window place_window = {SIZE_MAX, 0};
bool place_dry_run;
struct place_rule place_rules[PLACE_MAX_RULES];
unsigned place_nrules;

static unsigned site_depth; /* the deepest site search of any rule */

void place_policy_start(const struct place_policy *policy)
{
    size_t lo = SIZE_MAX, hi = 0;
    place_dry_run = policy->dry_run;
    place_nrules = policy->nrules;
    for (unsigned k = 0; k < policy->nrules; k++) {
        const struct place_rule_config *r = &policy->rules[k];
        place_rules[k].config = r;
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
    if (lo <= hi)
        place_window = (struct place_window){lo, hi - lo};
}

int place_match(unsigned api, size_t size, uintptr_t ra)
{
    const uint64_t *cum = NULL;
    unsigned frames = 0;
    for (unsigned k = 0; k < place_nrules; k++) {
        const struct place_rule_config *r = place_rules[k].config;
        if (!(r->api & api) || size < r->min || size > r->max)
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

/* Sites: allocations and bytes per (return address, rule, tier), in a table that never
 * locks; a full neighbourhood counts into the last slot ("other sites"). */
enum { SITE_BITS = 12, SITES = 1 << SITE_BITS, SITE_PROBES = 32 };
_Static_assert(SITES + 1 == PLACE_SITE_SLOTS, "place.h names the table's size");

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

void place_count_rule(int rule, uintptr_t ra, unsigned tier, size_t size)
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
    void *p = rule < 0 ? place_glibc(size, align, call)
                       : place_chain(place_rules[rule].config, size, align, call, tier);
    if (p && rule >= 0)
        place_count_rule(rule, ra, *tier, size);
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
        void *p = place_glibc(size, align, call);
        count_dram(p);
        return p;
    }
    int saved = errno;
    uint8_t was = place_guard_enter();
    unsigned tier;
    void *p = serve(place_match(PLACE_API_MALLOC, size, ra), size, align, call, ra, &tier);
    return done(p, tier, was, saved);
}

/* Moves p's contents (old bytes) into q, which holds size bytes, and frees p. */
static void move(void *q, void *p, size_t size, size_t old)
{
    memcpy(q, p, old < size ? old : size);
    place_free(p);
}

void *place_realloc(void *p, size_t size, uintptr_t ra)
{
    if (place_self.state != PLACE_THREAD_BUSY) {
        int saved = errno;
        uint8_t was = place_guard_enter();
        int rule = place_match(PLACE_API_MALLOC, size, ra);
        if (rule >= 0 && place_chain_first(place_rules[rule].config) != 0) {
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
            place_count_rule(rule, ra, 0, size);
    }
    size_t old = place_glibc_usable(p);
    void *q = __libc_realloc(p, size);
    if (q && place_counting)
        place_count(1, 1, (int64_t)place_glibc_usable(q) - (int64_t)old);
    return q;
}

void *place_realloc_placed(void *p, size_t old, size_t size, uintptr_t ra)
{
    if (size == 0) {
        place_free(p);
        return NULL;
    }
    /* a block that still fits stays, unless it would keep more than twice what it holds
     * charged against its tier */
    if (size <= old && size > old / 2)
        return p;
    /* the policy decides where the block lives now, limits and all */
    void *q = place_alloc(size, 0, PLACE_MALLOC, ra);
    if (q)
        move(q, p, size, old);
    else if (size <= old) /* shrinking cannot fail: it stays as it is */
        return p;
    return q;
}

void place_policy_prefork(void)
{
    place_modules_prefork();
    place_dry_prefork();
    place_pools_prefork();
}

void place_policy_postfork(void)
{
    place_pools_postfork();
    place_dry_postfork();
    place_modules_postfork();
}
