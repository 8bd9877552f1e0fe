/* Placement: the rules as the allocation path uses them, and the path itself.
 *
 * An allocation whose size lies outside every malloc rule's window costs the shim one
 * subtraction and one compare (place_in_window) and never reaches this file
 * (engine/outside.h says where it goes). Inside, the
 * first rule whose window and sites match gives the chain; each tier of it is tried in
 * order (an unavailable one skipped, one at its limit refused), and the chain ends in
 * dram unless the rule says on_full = fail. */
#ifndef PLACE_PLACE_H
#define PLACE_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/hidden.h"
#include "../tiers/tier.h"

/* An interval of sizes as lo and hi - lo, so that one unsigned compare tests it. */
struct place_window {
    size_t lo, span;
};

/* The malloc family's gate: the smallest interval holding every malloc rule's window;
 * empty (lo = SIZE_MAX, span 0) until a policy loads. A size outside it takes the gate's
 * outside path (engine/outside.h): one compare and a tail call. */
extern PLACE_HIDDEN struct place_window place_window;

static inline bool place_in_window(size_t size)
{
    return size - place_window.lo <= place_window.span;
}

/* Whether this is a dry run: tiers this machine lacks are planned for, not skipped, and
 * what they would hold comes from glibc, recorded per pointer (engine/dry.h). */
extern PLACE_HIDDEN bool place_dry_run;

/* The rules, in the policy's order (their counters: stats/sites.h). */
extern PLACE_HIDDEN const struct place_rule_config *place_rules[PLACE_MAX_RULES];
extern PLACE_HIDDEN unsigned place_nrules;

/* Compiles the policy's rules and sets the window; then resolves site patterns against
 * the modules loaded now. counting: whether a report is wanted (place_counting, set
 * after this). */
void place_policy_start(const struct place_policy *policy, bool counting);

/* The first rule for api (PLACE_API_MALLOC or PLACE_API_CUDA) that takes size bytes
 * asked for from return address ra, or -1. */
int place_match(unsigned api, size_t size, uintptr_t ra);

/* A placed allocation of size bytes by malloc or calloc (call), requested from the code
 * at return address ra; place_alloc_aligned's at alignment align (PLACE_ALIGNED). glibc's
 * semantics: NULL and ENOMEM on failure. Two entries, so that malloc's passes and tests
 * no alignment. */
void *place_alloc(size_t size, enum place_call call, uintptr_t ra);
void *place_alloc_aligned(size_t size, size_t align, uintptr_t ra);

/* realloc of a pointer glibc holds to a size inside the window: the policy decides where
 * the block lives now. glibc's semantics. */
void *place_realloc(void *p, size_t size, uintptr_t ra);

/* realloc of a block libplace placed in tier t (old: its usable size): kept when it
 * still fits, else moved within t while t has room, else the policy decides where the
 * block lives now (glibc's semantics). */
void *place_realloc_placed(void *p, struct place_tier *t, size_t old, size_t size, uintptr_t ra);

#endif
