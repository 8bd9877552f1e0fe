#include "whose.h"

#ifdef PLACE_HAVE_CUDA
#include "cuda_path.h"
#endif

/* The guard is up while the tier holds its lock (memkind's arena lock, a pool's mutex):
 * a signal handler that allocates meanwhile is served by glibc instead of waiting for a
 * lock its own thread holds. */
void place_free_placed(void *p, struct place_tier *t)
{
    uint8_t was = place_guard_enter();
    place_tier_free(t, p, t->ops->usable_size(t, p), NULL);
    place_guard_leave(was);
}

size_t place_whose_usable_placed(const void *p, struct place_tier *t)
{
    uint8_t was = place_guard_enter(); /* as for a free: the tier may lock */
    size_t n = t->ops->usable_size(t, p);
    place_guard_leave(was);
    return n;
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
