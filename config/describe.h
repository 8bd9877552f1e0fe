/* The checked policy as one JSON object (LIBPLACE_CHECK=json), for the tools that need
 * its tiers, limits, rules and report without parsing English: placerun --tiers, and
 * placerun deciding whether a policy names its own report.
 * scripts/libplace_tools/policy.schema.json describes every key. */
#ifndef PLACE_DESCRIBE_H
#define PLACE_DESCRIBE_H

#include "policy.h"

/* Writes p to fd with a final newline, without allocating. A policy with errors is still
 * described ("ok": false, its error count, and what could be read); the error lines
 * themselves are the parser's, on stderr. */
void place_describe_policy(const struct place_policy *p, int fd);

#endif
