/* free and malloc_usable_size: whose block it is first (a tier's range), then glibc. */
#include <stdlib.h>

#include "../policy/engine/whose.h"
#include "export.h"

/* One compare for a pointer outside the gate (tiers/owner.h), NULL included: glibc's. */
PLACE_EXPORT void free(void *p)
{
    if (__builtin_expect(!place_owner_gated(p), 1)) {
        __libc_free(p);
        return;
    }
    place_free_gated(p); /* a tier's block, a dry run's planned one, or one to count */
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
