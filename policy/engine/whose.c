#include "whose.h"

#ifdef PLACE_HAVE_CUDA
#include "cuda_path.h"
#endif

void place_free_placed(void *p, struct place_tier *t, bool planned)
{
    if (planned)
        place_dry_free(p);
    else
        place_tier_free(t, p, t->ops->usable_size(t, p), NULL);
}

struct place_tier *place_whose_any(const void *p)
{
    bool planned;
    struct place_tier *t = place_whose(p, &planned);
#ifdef PLACE_HAVE_CUDA
    if (!t && place_cuda_on)
        t = place_cuda_whose(p);
#endif
    return t;
}
