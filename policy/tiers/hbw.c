/* hbw: high-bandwidth memory, the nodes memkind finds (MEMKIND_HBW_NODES, or the
 * firmware's bandwidth attributes), with hbwmalloc's policies:
 *   bind       the HBW nodes closest to the CPU that starts the program, and only them
 *   bind_all   every HBW node, and only them
 *   preferred  the closest HBW nodes first, other memory when they are full (default)
 *   interleave pages spread over every HBW node
 * and page sizes 4K, THP (transparent huge pages, asked for with madvise) or 2M
 * (hugetlb pages, reserved as the range is mapped, so a fault never finds none).
 *
 * Like a numa tier it is an arena bound to its nodes (tiers/binding.h); memkind
 * only says which nodes those are. */
#include <fcntl.h>
#include <hbwmalloc.h>
#include <sys/mman.h>
#include <unistd.h>

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
    for (unsigned n = 0; n < 64; n++) {
        if (!(nodes >> n & 1))
            continue;
        char path[96], text[32] = "";
        struct place_buf b = PLACE_BUF(path);
        place_bprintf(
            &b, "/sys/devices/system/node/node%u/hugepages/hugepages-2048kB/free_hugepages", n);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t got = read(fd, text, sizeof text - 1);
        close(fd);
        for (ssize_t k = 0; k < got && text[k] >= '0' && text[k] <= '9'; k++)
            sum = sum * 10 + (size_t)(text[k] - '0');
    }
    return sum;
}

/* memkind, loaded by the first hbw tier: it is what finds the HBW nodes (and it loads
 * hwloc, daxctl, udev and more: milliseconds of start-up no other tier pays). */
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

/* The tier's nodes as memkind finds them, or 0 with why said in t->reason. */
static uint64_t hbw_nodes(struct place_tier *t)
{
    const struct place_tier_config *c = t->config;
    struct place_buf b = PLACE_BUF(t->reason);
    const char *why = place_lib_load(&memkind);
    if (why) {
        place_bprintf(&b, "%s", why);
        return 0;
    }
    bool all = c->policy == PLACE_MPOL_BIND_ALL || c->policy == PLACE_MPOL_INTERLEAVE;
    int rc = mk.available();
    unsigned long mask[2] = {0, 0};
    if (rc != 0 || (all ? mk.all : mk.closest)(NULL, mask, sizeof mask * 8) != 0 || !mask[0]) {
        place_bprintf(&b,
                      "memkind finds no high-bandwidth memory here (hbw_check_available() = %d); "
                      "MEMKIND_HBW_NODES=N names HBW nodes, placerun --tiers shows what there is",
                      rc);
        return 0;
    }
    return mask[0];
}

static int hbw_init(struct place_tier *t)
{
    const struct place_tier_config *c = t->config;
    const char *problem = place_libnuma();
    uint64_t nodes = problem ? 0 : hbw_nodes(t);
    if (!problem && !nodes)
        problem = t->reason;
    struct place_arena_spec spec = {0};
    if (!problem && c->pagesize == PLACE_PAGE_2M) {
        size_t pages = free_huge_pages(nodes);
        if (!pages)
            problem = "pagesize = 2M, but the HBW nodes have no free 2M huge pages (reserve some "
                      "in /sys/devices/system/node/nodeN/hugepages/hugepages-2048kB/nr_hugepages)";
        spec.len = pages << 21;
        spec.flags = MAP_HUGETLB | MAP_HUGE_2MB;
    }
    if (problem) {
        t->unavailable = problem;
        return -1;
    }
    enum place_mempolicy policy =
        c->policy == PLACE_MPOL_DEFAULT ? PLACE_MPOL_PREFERRED : c->policy;
    struct place_binding binding = {place_numa_mode(policy, nodes), nodes,
                                    c->pagesize == PLACE_PAGE_THP};
    spec.binding = &binding;
    return place_arena_tier(t, &spec);
}

const struct place_tier_ops place_hbw_ops = {
    .init = hbw_init,
    .take = place_arena_take,
    .give = place_arena_give,
    .reclaim = place_arena_reclaim,
    .usable_size = place_arena_usable,
    .stats = place_numa_stats,
    .verify = place_numa_verify,
};
