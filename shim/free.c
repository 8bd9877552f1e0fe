/* free and malloc_usable_size: the ownership test first, then glibc. */
#include <stdlib.h>

#include "export.h"
#include "free.h"

PLACE_EXPORT void free(void *p)
{
    if (p)
        place_free(p);
}

PLACE_EXPORT size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    struct place_tier *t = place_owner(p);
    return t ? t->ops->usable_size(t, p) : place_glibc_usable(p);
}
