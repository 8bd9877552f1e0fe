#include "sites.h"

#include "../base/claim.h"

struct place_rule_stats place_rule_stats[PLACE_MAX_RULES];

/* Sites: allocations and bytes per (return address, rule, tier), in a table that never
 * locks; a full neighbourhood counts into the last slot ("other sites"). */
enum { SITE_BITS = 12, SITES = 1 << SITE_BITS, SITE_PROBES = 32 };
_Static_assert(SITES + 1 == PLACE_SITE_SLOTS, "sites.h names the table's size");

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
    struct place_rule_stats *s = &place_rule_stats[rule];
    atomic_fetch_add_explicit(&s->hits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&s->bytes, size, memory_order_relaxed);
    count_site(ra, rule, tier, size);
}

