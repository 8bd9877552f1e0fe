/* hbw: high-bandwidth memory, the nodes HMAT gives more read bandwidth than every CPU
 * node, else those memkind finds (MEMKIND_HBW_NODES, which also comes first, or its own
 * heuristics), with hbwmalloc's policies:
 *   bind       the HBW nodes closest to the CPU of the thread that first places a block
 *              there, and only them
 *   bind_all   every HBW node, and only them
 *   preferred  those closest HBW nodes first, other memory when they are full (default)
 *   interleave pages spread over every HBW node
 *   weighted_interleave  the large blocks' pages in stripes over every HBW node (or those
 *              weights name) in the ratio of the weights, the small blocks interleaved
 * With near = cpu (bind, preferred) the range has a part per HBW node, and each thread's
 * blocks come from the part of the node nearest the CPU it runs on when it allocates.
 * Page sizes 4K, THP (transparent huge pages, asked for with madvise) or 2M (hugetlb
 * pages, reserved as the range is mapped, so a fault never finds none).
 *
 * Like a numa tier it is an arena bound to its nodes (tiers/binding.h); HMAT or memkind
 * only say which nodes those are. */
#include <hbwmalloc.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "../../config/policy.h"
#include "../base/fmt.h"
#include "../base/lib.h"
#include "arena.h"
#include "binding.h"
#include "tier.h"

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

/* The free 2M huge pages of the nodes, from sysfs. */
static size_t free_huge_pages(uint64_t nodes)
{
    size_t sum = 0;
    for (unsigned n = 0; n < 64; n++)
        if (nodes >> n & 1)
            sum += place_node_number(n, "hugepages/hugepages-2048kB/free_hugepages");
    return sum;
}

/* memkind, loaded at an hbw tier's first use: it is what finds the HBW nodes, and it
 * loads hwloc, daxctl, udev and more (1.6 ms). A process that never places a block in
 * hbw (a job script's helpers, under the same LD_PRELOAD) never pays for it. The load
 * runs inside the program's malloc, as the CUDA driver's does (base/lib.h: a thread
 * that finds it under way is told "busy", never made to wait on the loader's lock). */
typedef int (*place_mask_fn)(void *, unsigned long *, unsigned long); /* exported, not declared */
static struct {
    __typeof__(hbw_check_available) *available;
    place_mask_fn closest, all;
} mk;

static const struct place_sym mk_syms[] = {
    {(void **)&mk.available, "hbw_check_available"},
    {(void **)&mk.closest, "memkind_hbw_get_mbind_nodemask"},
    {(void **)&mk.all, "memkind_hbw_all_get_mbind_nodemask"},
};

static struct place_lib memkind = {
    .file = "libmemkind.so.0",
    .absent = "memkind cannot be loaded",
    .hint = "Debian package libmemkind0",
    .needs = "memkind 1.12 or later is needed",
    .syms = mk_syms,
    .nsyms = sizeof mk_syms / sizeof mk_syms[0],
};

/* The HBW nodes the firmware tells of (HMAT): every one, or the one nearest the calling
 * thread's CPU; 0 when it tells none. */
static uint64_t hmat_nodes(bool all)
{
    uint64_t nodes = place_numa_hmat_hbw();
    if (all || !nodes)
        return nodes;
    struct place_near near;
    place_numa_near(nodes, &near);
    return 1ull << near.node[place_near_part(&near)];
}

/* The tier's nodes into *nodes: as HMAT tells them, else as memkind finds them: 0, 1
 * while another thread loads a library (ask again), or -1 with why said in
 * t->unavailable. */
static int hbw_nodes(struct place_tier *t, uint64_t *nodes)
{
    const struct place_tier_config *c = t->config;
    bool all = c->policy == PLACE_MPOL_BIND_ALL || c->policy == PLACE_MPOL_INTERLEAVE ||
               c->policy == PLACE_MPOL_WEIGHTED || c->near == PLACE_NEAR_CPU;
    const char *why = place_libnuma();
    /* the firmware's word first: memkind misreads HMAT in some layouts (CPU-less HBW
     * beside several CPU nodes, sub-NUMA modes: in numa-vm --snc it names node 3 alone,
     * as the nearest node of every CPU), unless the user named the nodes to memkind */
    if (!why && !getenv("MEMKIND_HBW_NODES") && (*nodes = hmat_nodes(all)))
        return 0;
    if (!why)
        why = place_lib_load(&memkind);
    if (why == place_lib_busy)
        return 1;
    if (why) {
        t->unavailable = why;
        return -1;
    }
    int rc = mk.available();
    unsigned long mask[2] = {0, 0};
    if (rc == 0 && (all ? mk.all : mk.closest)(NULL, mask, sizeof mask * 8) != 0)
        mask[0] = 0;
    if (!mask[0]) {
        struct place_buf b = PLACE_BUF(t->reason);
        place_bprintf(&b,
                      "memkind finds no high-bandwidth memory here (hbw_check_available() = %d), "
                      "nor does the firmware (HMAT); MEMKIND_HBW_NODES=N names HBW nodes, "
                      "placerun --tiers shows what there is",
                      rc);
        t->unavailable = t->reason;
        return -1;
    }
    *nodes = mask[0];
    return 0;
}

/* What the tier's range becomes over the HBW nodes: its binding, and with policy =
 * weighted_interleave the weights of its stripes (each node's share; explicit weights
 * name HBW nodes only). NULL, or why not in t->reason. */
static const char *plan(struct place_tier *t, uint64_t nodes, struct place_binding *b,
                        uint8_t weights[64])
{
    const struct place_tier_config *c = t->config;
    enum place_mempolicy policy =
        c->policy == PLACE_MPOL_DEFAULT ? PLACE_MPOL_PREFERRED : c->policy;
    if (policy == PLACE_MPOL_WEIGHTED) {
        uint64_t named = 0;
        for (unsigned n = 0; n < 64; n++)
            named |= (uint64_t)(c->weights[n] != 0) << n;
        if (named & ~nodes) {
            struct place_buf w = PLACE_BUF(t->reason);
            place_bprintf(&w,
                          "weights name node %d, which is not high-bandwidth memory here "
                          "(placerun --tiers shows the nodes); expected the HBW nodes only, or "
                          "a numa tier to spread over any nodes",
                          __builtin_ctzll(named & ~nodes));
            return t->reason;
        }
        if (named)
            nodes = named;
        const char *why = place_numa_weights(t, nodes, weights);
        if (why)
            return why;
    }
    *b = (struct place_binding){place_numa_mode(policy, nodes), nodes,
                                c->pagesize == PLACE_PAGE_THP};
    return NULL;
}

/* At start the tier's range is reserved, unbound (nothing is carved from it before its
 * first use binds it), in parts with near = cpu, except with 2M pages: how many the HBW
 * nodes have free sizes the range, so their nodes are asked for now. */
static int hbw_init(struct place_tier *t)
{
    const struct place_tier_config *c = t->config;
    if (c->pagesize != PLACE_PAGE_2M)
        return place_arena_tier(
            t, &(struct place_arena_spec){.parts = c->near == PLACE_NEAR_CPU ? PLACE_PARTS : 0});
    uint64_t nodes = 0;
    if (hbw_nodes(t, &nodes) != 0)
        return -1;
    size_t pages = free_huge_pages(nodes);
    if (!pages) {
        t->unavailable = "pagesize = 2M, but the HBW nodes have no free 2M huge pages (reserve "
                         "some in /sys/devices/system/node/nodeN/hugepages/hugepages-2048kB/"
                         "nr_hugepages)";
        return -1;
    }
    struct place_binding binding;
    uint8_t weights[64];
    if ((t->unavailable = plan(t, nodes, &binding, weights)))
        return -1;
    return place_arena_tier(t, &(struct place_arena_spec){
                                   .binding = &binding,
                                   .len = pages << 21,
                                   .flags = MAP_HUGETLB | MAP_HUGE_2MB,
                                   .weights = c->policy == PLACE_MPOL_WEIGHTED ? weights : NULL});
}

/* The first use: the nodes found and the range bound to them before any block is carved
 * (2M pages: bound at start). */
static int hbw_prepare(struct place_tier *t)
{
    const struct place_tier_config *c = t->config;
    if (place_arena_binding(t)->nodes)
        return 0;
    uint64_t nodes = 0;
    int rc = hbw_nodes(t, &nodes);
    if (rc != 0)
        return rc;
    struct place_binding binding;
    uint8_t weights[64];
    const char *why = plan(t, nodes, &binding, weights);
    if (!why && c->near == PLACE_NEAR_CPU) {
        struct place_near near;
        place_numa_near(nodes, &near);
        why = place_arena_near(t, &binding, &near);
    } else if (!why) {
        why = place_arena_bind(t, &binding, c->policy == PLACE_MPOL_WEIGHTED ? weights : NULL);
    }
    if (why)
        t->unavailable = why;
    return why ? -1 : 0;
}

const struct place_source place_hbw_source = {
    .init = hbw_init,
    .prepare = hbw_prepare,
    .stats = place_numa_stats,
    .verify = place_numa_verify,
};
