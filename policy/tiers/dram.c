/* dram: glibc's allocator, the tier every chain can end in, and tiers of kind dram that
 * the policy names.
 *
 * The default tier owns no address range: a pointer no other tier claims is glibc's, and
 * the shim frees it straight through glibc (the hot path). A named dram tier (one with a
 * limit of its own, say, for what one library may hold) is an arena over a range it
 * reserves, so that its blocks are told apart by address; the kernel's default policy
 * places its pages. */
#include <unistd.h>

#include "../../config/policy.h"
#include "../base/glibc.h"
#include "../base/kernel.h"
#include "arena.h"
#include "tier.h"

void *place_glibc_alloc(const struct place_request *r)
{
    switch (r->call) {
    case PLACE_CALLOC:
        return place_libc_calloc(1, r->size);
    case PLACE_ALIGNED:
        return place_libc_memalign(r->align, r->size);
    default:
        return place_libc_malloc(r->size);
    }
}

/* glibc counts nothing of libplace's: the shim counts glibc's blocks. */
static void *glibc_alloc(struct place_tier *t, const struct place_request *r, bool force,
                         bool *limited)
{
    (void)t, (void)force;
    *limited = false;
    return place_glibc_alloc(r);
}

static size_t glibc_usable_size(struct place_tier *t, const void *p)
{
    (void)t;
    return place_glibc_usable(p);
}

int place_host_stats(struct place_tier *t, size_t *total, size_t *free)
{
    (void)t;
    return place_kernel_ram(total, free) ? 0 : -1;
}

/* No release: glibc's blocks are freed by the shim without asking any tier. */
const struct place_allocator place_glibc_allocator = {
    .alloc = glibc_alloc,
    .usable_size = glibc_usable_size,
};

static const struct place_source glibc_source = {.stats = place_host_stats};

struct place_tier place_dram = {.name = "dram",
                                .allocator = &place_glibc_allocator,
                                .source = &glibc_source,
                                .stats = &place_nodes[0]};

/* A named dram tier: an arena whose pages the kernel's default policy places. */
static int arena_init(struct place_tier *t)
{
    return place_arena_tier(t, NULL);
}

const struct place_source place_dram_source = {
    .init = arena_init,
    .stats = place_host_stats,
};
