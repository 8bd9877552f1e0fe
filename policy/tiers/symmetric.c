/* symmetric: an OpenSHMEM symmetric heap as a tier. The SHMEM library allocates its
 * blocks, at the same address on every PE; this tier counts them for its PE and keeps
 * its limit (engine/shmem_path.c decides and binds). A program that never calls
 * shmem_malloc has no such tier: it is added at the first call, unless the policy
 * declared one. */
#include <sched.h>

#include "../../config/policy.h"
#include "../base/lib.h"
#include "tier.h"

/* Its size is the SHMEM library's setting (SHMEM_SYMMETRIC_SIZE), which libplace does
 * not read: the report gives the peak and the size that would hold it instead. */
static int symmetric_stats(struct place_tier *t, size_t *total, size_t *free)
{
    (void)t, (void)total, (void)free;
    return -1;
}

const struct place_source place_symmetric_source = {.stats = symmetric_stats};

static struct place_tier *found;

static const char *find(void *arg)
{
    (void)arg;
    static struct place_tier added;
    static struct place_tier_config config = {.name = "symmetric", .kind = PLACE_SYMMETRIC};
    for (struct place_tier **t = place_tiers + 1; *t; t++)
        if ((*t)->config->kind == PLACE_SYMMETRIC) {
            found = *t;
            return NULL;
        }
    added.source = &place_symmetric_source;
    found = place_tiers_add(&added, &config);
    return NULL;
}

struct place_tier *place_symmetric_tier(void)
{
    static struct place_once once;
    /* another thread finding it is done in a moment: it takes no lock */
    while (place_once(&once, find, NULL) == place_lib_busy)
        sched_yield();
    return found;
}
