/* free and malloc_usable_size: the ownership test first, then glibc. */
#include <stdlib.h>

#include "../policy/place.h"
#include "export.h"
#include "glibc.h"
#include "owner.h"
#include "thread.h"

PLACE_EXPORT void free(void *p)
{
    if (!p)
        return;
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

PLACE_EXPORT size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    struct place_tier *t = place_owner(p);
    return t ? t->ops->usable_size(t, p) : place_glibc_usable(p);
}
