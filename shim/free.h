/* Freeing a block wherever it lives: the ownership test first (a tier's range), then a
 * dry run's planned block, then glibc, counted. free() is this; realloc and the policy
 * use it when they move a block. */
#ifndef PLACE_FREE_H
#define PLACE_FREE_H

#include "../policy/dry.h"
#include "../policy/place.h"
#include "glibc.h"
#include "owner.h"
#include "thread.h"

static inline void place_free(void *p)
{
    struct place_tier *t = place_owner(p);
    if (__builtin_expect(t != NULL, 0)) {
        place_tier_free(t, p);
        return;
    }
    if (__builtin_expect(place_dry_run, 0) && place_dry_free(p))
        return;
    if (place_counting)
        place_count(0, 1, -(int64_t)place_glibc_usable(p));
    __libc_free(p);
}

#endif
