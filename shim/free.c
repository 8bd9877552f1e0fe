/* free and malloc_usable_size: whose block it is first (a tier's range), then glibc. */
#include <stdlib.h>

#include "../policy/engine/whose.h"
#include "export.h"

PLACE_EXPORT void free(void *p)
{
    if (p)
        place_free(p);
}

PLACE_EXPORT size_t malloc_usable_size(void *p)
{
    if (!p)
        return 0;
    bool planned;
    struct place_tier *t = place_whose(p, &planned);
    return place_whose_usable(p, t, planned);
}
