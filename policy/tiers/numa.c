/* numa: explicit NUMA nodes, with bind, preferred or interleave (libnuma's meaning), or
 * weighted_interleave: the large blocks' pages in 2 MiB stripes, each node taking its
 * weight's share of them in turn (tiers/binding.h); the small blocks interleaved. With
 * near = cpu (bind, preferred) a part of the range per node, each thread's blocks from
 * the part of the node nearest the CPU it runs on when it allocates.
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
    if (c->near == PLACE_NEAR_CPU) { /* made in parts, each then bound to its node */
        struct place_near near;
        place_numa_near(c->nodes, &near);
        if (place_arena_tier(t, &(struct place_arena_spec){.parts = PLACE_PARTS}) != 0)
            return -1;
        t->unavailable = place_arena_near(t, &b, &near);
        return t->unavailable ? -1 : 0;
    }
    uint8_t weights[64];
    if (c->policy == PLACE_MPOL_WEIGHTED && (problem = place_numa_weights(t, c->nodes, weights))) {
        t->unavailable = problem;
        return -1;
    }
    return place_arena_tier(
        t, &(struct place_arena_spec){
               .binding = &b, .weights = c->policy == PLACE_MPOL_WEIGHTED ? weights : NULL});
}

const struct place_source place_numa_source = {
    .init = numa_init,
    .stats = place_numa_stats,
    .verify = place_numa_verify,
};
