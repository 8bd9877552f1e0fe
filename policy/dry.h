/* Dry runs: a planned tier's blocks come from glibc, and which tier planned each one is
 * kept by pointer, so that its free releases the right tier's counts. */
#ifndef PLACE_DRY_H
#define PLACE_DRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "place.h"

/* A block from glibc recorded as planned tier `tier`'s (which has reserved size). */
void *place_dry_alloc(unsigned tier, size_t size, size_t align, enum place_call call);

/* The planned tier that holds p, or -1. */
int place_dry_tier(void *p);

/* If p was placed in a planned tier: releases it there, frees it and returns true. */
bool place_dry_free(void *p);

/* Fork: the map's locks are taken before and released after. */
void place_dry_prefork(void);
void place_dry_postfork(void);

#endif
