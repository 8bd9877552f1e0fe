/* Dry runs: a planned tier's blocks come from glibc (or, folded, from engine/fold.h),
 * and which tier planned each one is kept by pointer, so that its free releases the
 * right tier's counts. */
#ifndef PLACE_DRY_H
#define PLACE_DRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../tiers/tier.h"

/* Once the policy is read: planned blocks of fold_min bytes or more are folded (0: none
 * is). */
void place_dry_start(uint64_t fold_min);

/* A block recorded as planned tier t's (which has reserved r->size). */
void *place_dry_alloc(struct place_tier *t, const struct place_request *r);

/* The planned tier that holds p, or -1. */
int place_dry_tier(const void *p);

/* If p was placed in a planned tier: releases it there, frees it and returns true. */
bool place_dry_free(void *p);

/* Fork: the map's locks are taken before and released after. */
void place_dry_prefork(void);
void place_dry_postfork(void);

#endif
