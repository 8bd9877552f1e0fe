/* numa: explicit NUMA nodes, with bind, preferred or interleave (libnuma's meaning).
 *
 * The source of an arena (tiers/arena.h) whose whole range is mbind()ed to the tier's nodes before
 * any block is carved out of it (tiers/binding.h), so every page a block touches is
 * placed by the kernel under that policy, and the tier's blocks are told apart by
 * address. */
#include "../../config/policy.h"
#include "arena.h"
#include "binding.h"
#include "tier.h"

static int numa_init(struct place_tier *t)
{
    const char *problem = place_libnuma();
    if (problem || (problem = place_numa_missing(t))) {
        t->unavailable = problem;
        return -1;
    }
    const struct place_tier_config *c = t->config;
    struct place_binding b = {place_numa_mode(c->policy, c->nodes), c->nodes, false};
    return place_arena_tier(t, &(struct place_arena_spec){.binding = &b});
}

const struct place_source place_numa_source = {
    .init = numa_init,
    .stats = place_numa_stats,
    .verify = place_numa_verify,
};
