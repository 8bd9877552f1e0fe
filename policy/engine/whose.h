/* Whose block is this? The one answer free, realloc, malloc_usable_size and the query API
 * ask: a tier's, by its address range (tiers/owner.h: one compare for every pointer
 * outside them); in a dry run, a planned tier's, by the dry map; else glibc's. The
 * blocks CUDA calls handed out are keyed by the pointer the program holds, which need
 * not be a host address: only the query API asks for them (place_whose_any). */
#ifndef PLACE_WHOSE_H
#define PLACE_WHOSE_H

#include <stdbool.h>

#include "../base/glibc.h"
#include "../stats/threads.h"
#include "../tiers/owner.h"
#include "dry.h"
#include "place.h"
#include "sampler.h"

/* The tier that holds p, with *planned true when a dry run planned it there (the block
 * itself is glibc's, or folded and laid out as glibc's: engine/fold.h); NULL when p is
 * glibc's. */
static inline struct place_tier *place_whose(const void *p, bool *planned)
{
    *planned = false;
    struct place_tier *t = place_owner(p);
    if (__builtin_expect(t != NULL, 0))
        return t;
    if (__builtin_expect(place_dry_run, 0)) {
        int k = place_dry_tier(p);
        if (k >= 0) {
            *planned = true;
            return place_tiers[k];
        }
    }
    return NULL;
}

size_t place_whose_usable_placed(const void *p, struct place_tier *t);

/* What block p counts where it lives (t and planned: place_whose's answer). */
static inline size_t place_whose_usable(const void *p, struct place_tier *t, bool planned)
{
    return t && !planned ? place_whose_usable_placed(p, t) : place_glibc_usable(p);
}

/* place_whose, and the blocks of CUDA calls: the tier that holds p, NULL for glibc's. */
struct place_tier *place_whose_any(const void *p);

/* free() of p, which is in tier t's range. */
void place_free_placed(void *p, struct place_tier *t);

/* free() of a pointer inside free's gate (tiers/owner.h). */
void place_free_gated(void *p);

/* Frees p, which no tier's range holds: a dry run's planned block, or glibc's, counted
 * (NULL: nothing). */
static inline void place_free_unowned(void *p)
{
    if (!p)
        return;
    if (__builtin_expect(place_dry_run, 0)) {
        if (place_counting) /* a planned block may be sampled too */
            place_sample_free(p);
        if (place_dry_free(p))
            return;
    }
    if (place_counting && !place_count_free(p) && place_uncount_glibc(p))
        return; /* tracked: unmapped */
    place_libc_free(p);
}

/* Frees p wherever it lives: its tier, its planned tier, or glibc, counted. place_whose's
 * answer, each lookup done once (the dry map's takes the block as it finds it). */
static inline void place_free(void *p)
{
    struct place_tier *t = place_owner(p);
    if (__builtin_expect(t != NULL, 0)) {
        place_free_placed(p, t);
        return;
    }
    place_free_unowned(p);
}

#endif
