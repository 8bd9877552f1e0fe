/* A rule's chain: the tiers tried in order, each behind its limit, and what happens when
 * one is full (DESIGN.md section 3; the semantics follow StarPU's memory manager).
 *
 * A tier that turns a request away (its limit, or its memory) is asked to reclaim cached
 * memory and tried once more; then the rule's on_full decides: fallback (the next tier),
 * wait (until frees make room, up to the rule's timeout, then fallback; a tier without a
 * limit never waits), overflow (charge it past the limit, counted) or fail (NULL and
 * ENOMEM). A chain that runs out ends in dram, unless on_full = fail. */
#ifndef PLACE_CHAIN_H
#define PLACE_CHAIN_H

#include "../../config/policy.h"
#include "../tiers/tier.h"

/* Serves the request along r's chain; the index of the tier that served goes to *tier.
 * NULL when nothing could serve. */
void *place_chain(const struct place_rule_config *r, const struct place_request *req,
                  unsigned *tier);

/* The request served by tier t alone: no on_full; NULL when t refuses (counted; a
 * caller that sends the request elsewhere counts the fallback and sets r->refused = t,
 * so that t is not asked twice). A dry run's planned tier plans it. */
void *place_chain_tier(struct place_tier *t, const struct place_request *r);

/* The tier the chain would try first here (0: dram). */
unsigned place_chain_first(const struct place_rule_config *r);

#endif
