/* Per-rule and per-site counters: what each rule decided, and where each call site's
 * blocks went, in tables that never lock. */
#ifndef PLACE_SITES_H
#define PLACE_SITES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"

/* A rule's matches: allocations it decided, and their bytes asked for. A cache line
 * each, apart from the rules themselves, which every allocation in a window reads. */
struct place_rule_stats {
    _Atomic uint64_t hits, bytes;
} __attribute__((aligned(64)));
extern struct place_rule_stats place_rule_stats[PLACE_MAX_RULES];

/* Counts an allocation of size bytes that rule placed in tier, asked for from the return
 * address ra: the rule's hits and bytes, and the site's share. */
void place_count_rule(int rule, uintptr_t ra, unsigned tier, size_t size);

/* One site's share: allocations from the return address ra that rule (-1: none) placed
 * in tier. */
struct place_site_count {
    uintptr_t ra;
    int rule, tier;
    uint64_t allocs, bytes;
};

/* The site table's entries, the last one counting every site that found no room. */
enum { PLACE_SITE_SLOTS = 4097 };

/* The n sites with the most bytes, largest first, into out; returns how many, and in
 * *total how many sites there are. */
unsigned place_sites_top(struct place_site_count *out, unsigned n, unsigned *total);

#endif
