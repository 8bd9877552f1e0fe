#include "tier.h"

#include <errno.h>
#include <string.h>

struct place_tier *const place_tiers[] = {&place_dram, NULL};

void place_tiers_init(void)
{
    for (struct place_tier *const *t = place_tiers; *t; t++)
        if ((*t)->ops->init(*t) != 0 && !(*t)->unavailable)
            (*t)->unavailable = "its initialisation failed";
}

static void count(struct place_tier *t, unsigned allocs, unsigned frees, int64_t delta)
{
    struct place_counts c = {.allocs = allocs, .frees = frees, .bytes = delta};
    place_stats_add(&t->stats, &c);
}

void place_tier_free(struct place_tier *t, void *p)
{
    size_t usable = t->ops->usable_size(t, p);
    count(t, 0, 1, -(int64_t)usable);
    t->ops->free(t, p, usable);
}

void *place_tier_realloc(struct place_tier *t, void *p, size_t size)
{
    if (size == 0) {
        place_tier_free(t, p);
        return NULL;
    }
    size_t old = t->ops->usable_size(t, p);
    if (size <= old)
        return p;
    void *q = t->ops->alloc(t, size, 0);
    if (!q) {
        errno = ENOMEM;
        return NULL;
    }
    size_t fresh = t->ops->usable_size(t, q);
    memcpy(q, p, old);
    count(t, 1, 1, (int64_t)fresh - (int64_t)old);
    t->ops->free(t, p, old);
    return q;
}
