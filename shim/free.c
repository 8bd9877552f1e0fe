/* free and malloc_usable_size: whose block it is first (a tier's range), then glibc. */
#include <stdlib.h>

#include "../policy/engine/outside.h"
#include "../policy/engine/whose.h"
#include "export.h"

/* One compare for a pointer outside every tier's range (tiers/owner.h), NULL included:
 * the gate's outside path (engine/outside.h), glibc's, counted while a report is asked
 * for. */
PLACE_EXPORT void free(void *p)
{
    if (__builtin_expect(!place_owner_gated(p), 1)) {
        place_outside.free(p);
        return;
    }
    place_free_gated(p); /* a tier's block, or glibc's between two tiers' ranges */
}

/* A planned block of a dry run is glibc's own, or folded and laid out as glibc's
 * (engine/fold.h): only a tier's range changes the answer. */
PLACE_EXPORT size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    struct place_tier *t = place_owner(p);
    return t ? place_whose_usable_placed(p, t) : place_glibc_usable(p);
}

/* glibc's own name for it (shim/alloc.c says why). */
PLACE_EXPORT void __libc_free(void *p) __attribute__((alias("free"), copy(free)));
