/* Dry runs: a planned tier's blocks come from glibc, and which tier planned each one is
 * kept by pointer, so that its free releases the right tier's counts. */
#ifndef PLACE_DRY_H
#define PLACE_DRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../tiers/tier.h"

/* A block from glibc recorded as planned tier t's (which has reserved r->size). */
void *place_dry_alloc(struct place_tier *t, const struct place_request *r);

/* The planned tier that holds p, or -1. */
int place_dry_tier(const void *p);

/* If p was placed in a planned tier: releases it there, frees it and returns true. */
bool place_dry_free(void *p);

/* Fork: the map's locks are taken before and released after. */
void place_dry_prefork(void);
void place_dry_postfork(void);

#endif
