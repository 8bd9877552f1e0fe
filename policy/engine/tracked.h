/* The access profile's blocks (stats/access.h): while it runs, every block of
 * profile_min bytes or more that would be glibc's gets a mapping of its own, between two
 * guard pages (PROT_NONE) that keep the kernel from merging it with its neighbours, so
 * that smaps reads its accessed bits alone.
 *
 * A tracked block is laid out as glibc lays out a block it mmaps (base/glibc.h): its
 * usable size reads like any glibc block's. It is recorded in the profile with weight 1
 * (stats/profile.h place_profile_track), whose filter sends its free here: the free and
 * realloc paths unmap it (guards too), or keep its pages for the next block of about
 * its size, instead of handing it to glibc. */
#ifndef PLACE_TRACKED_H
#define PLACE_TRACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../tiers/tier.h"

/* The node engine/place.c's serve() names for a tracked block: dram's, but counted whole
 * (weight 1) rather than sampled. */
enum { PLACE_TRACKED = PLACE_MAX_TIERS };

/* The smallest block tracked (0: the access profile is off). */
extern uint64_t place_tracked_min;

/* Starts tracking blocks of min bytes or more, sampled every interval_ms, each site
 * depth frames (the profile's report_depth). */
void place_tracked_start(uint64_t min, unsigned interval_ms, unsigned depth);

/* A tracked block for r (a glibc block of the program's, not a dry run's, of
 * place_tracked_min bytes or more), recorded for its site from return address ra; NULL
 * when it cannot be (an alignment past a page, the kernel's refusal, the profile's
 * tables full): the caller asks glibc. Called with the guard up. */
void *place_tracked_alloc(const struct place_request *r);

/* Tracked block p, which the profile has forgotten, recorded again as a block of size
 * bytes from ra (a realloc that keeps it): false, and nothing recorded, when the
 * profile's tables have no room. Called with the guard up. */
bool place_tracked_keep(void *p, size_t size, uintptr_t ra);

/* Unmaps tracked block p, which the profile has forgotten, or keeps its pages for the
 * next block of about its size. */
void place_tracked_unmap(void *p);

/* A forked child's cache of freed mappings is its own. */
void place_tracked_postfork_child(void);

#endif
