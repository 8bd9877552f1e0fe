/* Placement: the rules as the allocation path uses them, and the path itself.
 *
 * An allocation whose size lies outside every malloc rule's window costs the shim one
 * subtraction and one compare (place_in_window) and never reaches this file. Inside, the
 * first rule whose window and sites match gives the chain; each tier of it is tried in
 * order (an unavailable one skipped, one at its limit refused), and the chain ends in
 * dram unless the rule says on_full = fail. */
#ifndef PLACE_PLACE_H
#define PLACE_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../config/policy.h"
#include "stats.h"

/* The smallest interval holding every malloc rule's window, as lo and hi - lo, so that
 * one unsigned compare tests it. Empty (lo = SIZE_MAX, span 0) until a policy loads. */
struct place_window {
    size_t lo, span;
};
extern struct place_window place_window;

static inline bool place_in_window(size_t size)
{
    return size - place_window.lo <= place_window.span;
}

/* Whether this is a dry run: tiers this machine lacks are planned for, not skipped, and
 * what they would hold comes from glibc, recorded per pointer (policy/dry.h). */
extern bool place_dry_run;

/* The rules, compiled from the policy, and their counters. */
struct place_rule {
    const struct place_rule_config *config;
    struct place_rule_stats stats;
};
extern struct place_rule place_rules[PLACE_MAX_RULES];
extern unsigned place_nrules;

/* Compiles the policy's rules and sets the window; then resolves site patterns against
 * the modules loaded now. */
void place_policy_start(const struct place_policy *policy);

/* What the shim's entry points ask for: the malloc family's three shapes, or memory a
 * GPU can use (the CUDA allocation calls; chains serve it from device, managed and
 * pinned tiers only, and end in NULL rather than dram). */
enum place_call { PLACE_MALLOC, PLACE_CALLOC, PLACE_ALIGNED, PLACE_CUDA };

/* The first rule for api (PLACE_API_MALLOC or PLACE_API_CUDA) that takes size bytes
 * asked for from return address ra, or -1. */
int place_match(unsigned api, size_t size, uintptr_t ra);

/* Counts an allocation rule placed in tier (its hits, bytes and site). */
void place_count_rule(int rule, uintptr_t ra, unsigned tier, size_t size);

/* A placed allocation of size bytes (for PLACE_ALIGNED with alignment align), requested
 * from the code at return address ra. glibc's semantics: NULL and ENOMEM on failure. */
void *place_alloc(size_t size, size_t align, enum place_call call, uintptr_t ra);

/* realloc of a pointer glibc holds to a size inside the window: the policy decides where
 * the block lives now. glibc's semantics. */
void *place_realloc(void *p, size_t size, uintptr_t ra);

/* realloc of a block libplace placed in a tier (old: its usable size): kept when it
 * still fits, else the policy decides where the block lives now (glibc's semantics). */
void *place_realloc_placed(void *p, size_t old, size_t size, uintptr_t ra);

/* Fork: the dry map's and the module table's locks are taken before and released after,
 * so that the child finds them consistent. */
void place_policy_prefork(void);
void place_policy_postfork(void);

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
