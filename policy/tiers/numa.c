/* numa: explicit NUMA nodes, with bind, preferred or interleave (libnuma's meaning).
 *
 * An arena (policy/arena.h) whose whole range is mbind()ed to the tier's nodes before
 * memkind carves blocks out of it, so every page a block touches is placed by the kernel
 * under that policy, and the tier's blocks are told apart by address. libnuma is loaded
 * at first need, like memkind: a process with no numa tier never maps it. */
#include <dlfcn.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <sys/mman.h>

#include "../../config/policy.h"
#include "../arena.h"
#include "../fmt.h"
#include "../tier.h"
#include "numa.h"

static struct {
    int (*available)(void);
    int (*max_node)(void);
    long long (*node_size64)(int, long long *);
    int (*isbitset)(const struct bitmask *, unsigned);
    struct bitmask **mems; /* numa_all_nodes_ptr: the nodes with memory this task may use */
    long (*mbind)(void *, unsigned long, int, const unsigned long *, unsigned long, unsigned);
    int (*move_pages)(int, unsigned long, void **, const int *, int *, int);
} nl;

const char *place_libnuma(void)
{
    if (nl.mbind)
        return NULL;
    void *h = dlopen("libnuma.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return "libnuma.so.1 cannot be loaded (Debian package libnuma1)";
    nl.available = (int (*)(void))dlsym(h, "numa_available");
    nl.max_node = (int (*)(void))dlsym(h, "numa_max_node");
    nl.node_size64 = (long long (*)(int, long long *))dlsym(h, "numa_node_size64");
    nl.isbitset = (int (*)(const struct bitmask *, unsigned))dlsym(h, "numa_bitmask_isbitset");
    nl.mems = (struct bitmask **)dlsym(h, "numa_all_nodes_ptr");
    void *mb = dlsym(h, "mbind");
    nl.move_pages =
        (int (*)(int, unsigned long, void **, const int *, int *, int))dlsym(h, "numa_move_pages");
    if (!nl.available || !nl.max_node || !nl.node_size64 || !nl.isbitset || !nl.mems || !mb ||
        !nl.move_pages)
        return "libnuma.so.1 lacks the calls libplace uses";
    if (nl.available() < 0)
        return "the kernel has no NUMA support (numa_available() < 0)";
    nl.mbind =
        (long (*)(void *, unsigned long, int, const unsigned long *, unsigned long, unsigned))mb;
    return NULL;
}

/* The kernel's mode for a policy over nodes: preferred with several nodes is
 * MPOL_PREFERRED_MANY (Linux 5.15). */
int place_numa_mode(enum place_mempolicy policy, uint64_t nodes)
{
    switch (policy) {
    case PLACE_MPOL_PREFERRED:
        return nodes & (nodes - 1) ? MPOL_PREFERRED_MANY : MPOL_PREFERRED;
    case PLACE_MPOL_INTERLEAVE:
        return MPOL_INTERLEAVE;
    default: /* bind and bind_all, numa's default */
        return MPOL_BIND;
    }
}

const char *place_numa_bind(void *lo, size_t len, const struct place_binding *b)
{
    unsigned long mask = (unsigned long)b->nodes;
    if (nl.mbind(lo, len, b->mode, &mask, sizeof mask * 8 + 1, 0) != 0)
        return "mbind refused the tier's nodes and policy";
    if (b->thp && madvise(lo, len, MADV_HUGEPAGE) != 0)
        return "madvise(MADV_HUGEPAGE) failed: transparent huge pages are off in this kernel";
    return NULL;
}

/* Why the tier's nodes cannot be used here, written into t->reason; NULL if they can. */
static const char *missing_nodes(struct place_tier *t)
{
    uint64_t nodes = t->config->nodes;
    int max = nl.max_node();
    for (unsigned n = 0; n < 64; n++)
        if (nodes >> n & 1 && (n > (unsigned)max || !nl.isbitset(*nl.mems, n))) {
            struct place_buf b = PLACE_BUF(t->reason);
            place_bprintf(&b, "node %u %s (this machine has node%s 0", n,
                          n > (unsigned)max ? "does not exist"
                                            : "has no memory this process may use",
                          max ? "s" : "");
            if (max)
                place_bprintf(&b, "-%d", max);
            place_bprintf(&b, "; placerun --tiers lists them)");
            return t->reason;
        }
    return NULL;
}

static int numa_init(struct place_tier *t)
{
    const char *problem = place_libnuma();
    if (problem || (problem = missing_nodes(t))) {
        t->unavailable = problem;
        return -1;
    }
    const struct place_tier_config *c = t->config;
    struct place_binding b = {place_numa_mode(c->policy, c->nodes), c->nodes, false};
    return place_arena_tier(t, &(struct place_arena_spec){.binding = &b});
}

int place_numa_stats(struct place_tier *t, size_t *total, size_t *free)
{
    const struct place_arena *a = t->state;
    *total = *free = 0;
    for (unsigned n = 0; n < 64; n++)
        if (a->nodes >> n & 1) {
            long long f = 0, size = nl.node_size64((int)n, &f);
            if (size < 0)
                return -1;
            *total += (size_t)size;
            *free += (size_t)f;
        }
    return 0;
}

/* The tier's range in windows of WINDOW pages: mincore says which are resident, and
 * move_pages (with no target: a query) where the kernel holds them. A sample takes every
 * stride-th resident page (stride 0: none, only counted), the stride chosen from a first count so
 * that about SAMPLE pages are looked at; all looks at every one. */
enum { WINDOW = 4096, SAMPLE = 1024 };

static void scan(const struct place_arena *a, uint64_t nodes, uint64_t stride,
                 struct place_verified *v)
{
    static unsigned char in[WINDOW];
    static void *pages[WINDOW];
    static int where[WINDOW];
    const size_t page = 4096;
    uint64_t seen = 0;
    for (size_t off = 0; off < a->len; off += WINDOW * page) {
        size_t len = a->len - off < WINDOW * page ? a->len - off : WINDOW * page;
        char *base = (char *)a->lo + off;
        if (mincore(base, len, in) != 0)
            return;
        unsigned n = 0;
        for (size_t k = 0; k < len / page; k++)
            if (in[k] & 1) {
                if (stride && seen % stride == 0)
                    pages[n++] = base + k * page;
                seen++;
            }
        if (!n)
            continue;
        if (nl.move_pages(0, n, pages, NULL, where, 0) != 0)
            return;
        v->looked += n;
        for (unsigned k = 0; k < n; k++)
            v->placed += where[k] >= 0 && nodes >> where[k] & 1;
    }
    v->resident = seen;
}

int place_numa_verify(struct place_tier *t, bool all, struct place_verified *v)
{
    const struct place_arena *a = t->state;
    uint64_t nodes = a ? a->nodes : 0;
    *v = (struct place_verified){.all = all};
    if (!a || !nl.move_pages)
        return -1;
    uint64_t stride = 1;
    if (!all) {
        scan(a, nodes, 0, v); /* stride 0: count the resident pages only */
        stride = v->resident > SAMPLE ? v->resident / SAMPLE : 1;
        *v = (struct place_verified){.all = false};
    }
    scan(a, nodes, stride, v);
    return 0;
}

const struct place_tier_ops place_numa_ops = {
    .kind = "numa",
    .init = numa_init,
    .alloc = place_arena_alloc,
    .free = place_arena_free,
    .usable_size = place_arena_usable,
    .stats = place_numa_stats,
    .good_size = place_arena_good_size,
    .zalloc = place_arena_zalloc,
    .verify = place_numa_verify,
};
