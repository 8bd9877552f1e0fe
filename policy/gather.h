/* What a report says, gathered once from the counters and then written as text
 * (report.c) or JSON (report_json.c), so both forms always agree. */
#ifndef PLACE_GATHER_H
#define PLACE_GATHER_H

#include <stdbool.h>
#include <stdint.h>

#include "../config/policy.h"
#include "tier.h"

struct place_node_row {
    struct place_tier *t;
    uint64_t allocs, frees, refused, fallbacks_out, fallbacks_in, waits, wait_ns, overflow,
        failures, reclaimed, skipped;
    int64_t bytes, peak;
    bool machine; /* total and free are known */
    uint64_t total, free;
    bool checked; /* verified holds the kernel's word on where the tier's pages are */
    struct place_verified verified;
};

/* One call site (return address) of one rule, with where its blocks went. */
struct place_site_row {
    uintptr_t ra; /* 0: the sites that did not fit the table */
    int rule;     /* -1: none */
    uint64_t allocs, bytes, fallbacks;
    uint64_t tier_allocs[PLACE_MAX_TIERS], tier_bytes[PLACE_MAX_TIERS];
};

struct place_gathered {
    uint64_t ms; /* since start */
    uint64_t threads;
    unsigned running;
    int signal; /* the signal that asked, 0 at exit */
    unsigned ntiers;
    struct place_node_row nodes[PLACE_MAX_TIERS];
    unsigned nsites, total_sites;
    struct place_site_row sites[PLACE_MAX_SITES];
};

/* Fills g (a static one: it is large) from the counters as they stand. */
void place_gather(struct place_gathered *g, int signal);

#endif
