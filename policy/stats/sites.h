/* Per-site counters: where each call site's blocks went, per (return address, rule,
 * tier), in a table that never locks; each rule's matches are the sum of its sites.
 *
 * A thread counts into pending entries of its own slot (stats/threads.h), direct-mapped
 * by key, and hands an entry over to the table when another site takes its place, when
 * it exits and across fork; a snapshot adds what live slots still hold. So a placed
 * allocation from a site the thread saw last time touches no shared cache line. */
#ifndef PLACE_SITES_H
#define PLACE_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "threads.h"

/* A site's key in the table: ra | (rule + 1) << 48 | tier << 56 (user addresses fit 47
 * bits). */
static inline uint64_t place_site_key(uintptr_t ra, int rule, unsigned tier)
{
    return (uint64_t)ra | (uint64_t)(rule + 1) << 48 | (uint64_t)tier << 56;
}

/* A key's parts: its return address, rule (-1: none) and tier. */
static inline uintptr_t place_site_key_ra(uint64_t key)
{
    return (uintptr_t)(key & ((1ull << 48) - 1));
}

static inline int place_site_key_rule(uint64_t key)
{
    return (int)((key >> 48) & 0xff) - 1;
}

static inline unsigned place_site_key_tier(uint64_t key)
{
    return (unsigned)(key >> 56);
}

/* Where a site's key sits in a thread's pending sites. */
static inline unsigned place_site_slot(uint64_t key)
{
    return (unsigned)((key ^ key >> 6 ^ key >> 14) & (PLACE_SLOT_SITES - 1));
}

/* Slot s's pending site counts handed over to the table (emptied). */
void place_sites_hand_over(struct place_slot *s);

void place_count_site_shared(uint64_t key, size_t size);
void place_count_site_miss(struct place_site_pending *e, uint64_t key, size_t bytes);

/* Slot s's pending entry for key. */
static inline struct place_site_pending *place_site_entry(struct place_slot *s, uint64_t key)
{
    return &s->sites[place_site_slot(key)];
}

/* Counts an allocation of size bytes in e when e holds key; false leaves it to
 * place_count_site_miss (the engine's fast path makes that a tail call). */
static inline bool place_site_hit(struct place_site_pending *e, uint64_t key, size_t size)
{
    if (__atomic_load_n(&e->key, __ATOMIC_RELAXED) != key)
        return false;
    place_own_add(&e->allocs, 1);
    place_own_add(&e->bytes, size);
    return true;
}

/* Counts an allocation of size bytes at the site with this key (place_site_key). */
static inline void place_count_site(uint64_t key, size_t size)
{
    struct place_slot *s = place_self.slot;
    if (__builtin_expect(s == NULL, 0)) {
        place_count_site_shared(key, size);
        return;
    }
    struct place_site_pending *e = place_site_entry(s, key);
    if (__builtin_expect(!place_site_hit(e, key, size), 0))
        place_count_site_miss(e, key, size);
}

/* Counts an allocation of size bytes that rule placed in tier, asked for from the return
 * address ra: the site's share, and so the rule's. Only a report reads them: without one,
 * nothing is counted. */
static inline void place_count_rule(int rule, uintptr_t ra, unsigned tier, size_t size)
{
    if (place_counting)
        place_count_site(place_site_key(ra, rule, tier), size);
}

/* One site's share: allocations from the return address ra that rule (-1: none) placed
 * in tier. */
struct place_site_count {
    uintptr_t ra;
    int rule, tier;
    uint64_t key; /* 0: an "other sites" entry */
    uint64_t allocs, bytes;
};

/* The site table's entries, and one row for every site that found no room: the sites
 * a report lists (stats/site_reads.h). After them, the table's "other sites" entries,
 * one per rule and one for none. */
enum { PLACE_SITE_SLOTS = 4097, PLACE_SITE_ENTRIES = PLACE_SITE_SLOTS + PLACE_MAX_RULES };

/* Entry j of the shared table (j < PLACE_SITE_ENTRIES) as it stands, without what
 * threads still hold pending for it. */
struct place_site_count place_sites_entry(unsigned j);

#endif
