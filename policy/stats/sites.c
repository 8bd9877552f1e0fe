#include "sites.h"

#include <string.h>

#include "../base/claim.h"
#include "../base/large.h"

/* A full neighbourhood counts into its rule's "other sites" entry, after the table. */
enum { SITE_BITS = 12, SITES = 1 << SITE_BITS, SITE_PROBES = 32 };
_Static_assert(SITES + 1 == PLACE_SITE_SLOTS, "sites.h names the table's size");
_Static_assert(SITES + PLACE_MAX_RULES + 1 == PLACE_SITE_ENTRIES, "sites.h names the entries");
_Static_assert(PLACE_SLOT_SITES <= 64, "a bit each in a slot's sites_used");

static _Atomic uint64_t site_keys[SITES] PLACE_LARGE;
/* the sites, then "other sites" of rule -1 (none), 0, 1, ... */
static struct {
    _Atomic uint64_t allocs, bytes;
} sites[SITES + PLACE_MAX_RULES + 1] PLACE_LARGE;

/* The table's entry for key (claimed if new), or its rule's "other sites". */
static long entry(uint64_t key)
{
    long i = place_claim(site_keys, SITE_BITS, SITE_PROBES, key);
    return i < 0 ? SITES + 1 + place_site_key_rule(key) : i;
}

static void add_site(long i, uint64_t allocs, uint64_t bytes)
{
    atomic_fetch_add_explicit(&sites[i].allocs, allocs, memory_order_relaxed);
    atomic_fetch_add_explicit(&sites[i].bytes, bytes, memory_order_relaxed);
}

void place_count_site_shared(uint64_t key, size_t size)
{
    add_site(entry(key), 1, size);
}

void place_sites_hand_over(struct place_slot *s)
{
    /* only the entries that took a key: an exiting thread's are mostly empty */
    for (uint64_t used = s->sites_used; used; used &= used - 1) {
        struct place_site_pending *e = &s->sites[__builtin_ctzll(used)];
        if (e->key && e->allocs)
            add_site(entry(e->key), e->allocs, e->bytes);
        memset(e, 0, sizeof *e);
    }
    s->sites_used = 0;
}

/* A site the thread's pending entry e does not hold: e's counts go to the table, and e
 * takes the new site if the table has an entry of its own for it. */
void place_count_site_miss(struct place_site_pending *e, uint64_t key, size_t bytes)
{
    if (e->key && e->allocs)
        add_site(entry(e->key), e->allocs, e->bytes);
    long i = entry(key);
    if (i >= SITES) { /* no entry of its own: straight into "other sites" */
        __atomic_store_n(&e->key, 0, __ATOMIC_RELEASE);
        add_site(i, 1, bytes);
        return;
    }
    place_relaxed_store(&e->allocs, 0);
    place_relaxed_store(&e->bytes, 0);
    struct place_slot *s = place_self.slot; /* e's: only a thread's own slot counts here */
    s->sites_used |= 1ull << (e - s->sites);
    __atomic_store_n(&e->key, key, __ATOMIC_RELEASE);
    place_relaxed_store(&e->allocs, 1);
    place_relaxed_store(&e->bytes, bytes);
}

struct place_site_count place_sites_entry(unsigned j)
{
    uint64_t key = j < SITES ? atomic_load_explicit(&site_keys[j], memory_order_relaxed) : 0;
    return (struct place_site_count){
        .ra = place_site_key_ra(key),
        .rule = j < SITES ? place_site_key_rule(key) : (int)(j - SITES) - 1,
        .tier = (int)place_site_key_tier(key),
        .key = key,
        .allocs = atomic_load_explicit(&sites[j].allocs, memory_order_relaxed),
        .bytes = atomic_load_explicit(&sites[j].bytes, memory_order_relaxed),
    };
}
