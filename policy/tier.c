#include "tier.h"

#include <errno.h>
#include <string.h>

#include "../config/policy.h"

struct place_tier *place_tiers[PLACE_MAX_TIERS + 1] = {&place_dram, NULL};

/* Why a kind cannot place memory yet: each arrives with its own support. */
static const char *const not_built[] = {
    [PLACE_HBW] = "this libplace does not place into hbw yet (memkind support is to come)",
    [PLACE_NUMA] = "this libplace does not place into numa yet (libnuma support is to come)",
    [PLACE_PINNED] = "this libplace does not place into pinned yet (CUDA support is to come)",
    [PLACE_MANAGED] = "this libplace does not place into managed yet (CUDA support is to come)",
    [PLACE_DEVICE] = "this libplace does not place into device yet (CUDA support is to come)",
};

void place_tiers_init(const struct place_policy *policy)
{
    static struct place_tier configured[PLACE_MAX_TIERS];
    for (unsigned k = 1; policy && k < policy->ntiers; k++) {
        const struct place_tier_config *c = &policy->tiers[k];
        configured[k] = (struct place_tier){.name = c->name, .limit = c->limit};
        if (c->kind == PLACE_DRAM)
            configured[k].ops = place_dram.ops;
        else
            configured[k].unavailable = not_built[c->kind];
        place_tiers[k] = &configured[k];
    }
    for (struct place_tier **t = place_tiers; *t; t++)
        if ((*t)->ops && (*t)->ops->init(*t) != 0 && !(*t)->unavailable)
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
