#include "binding.h"

#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/fmt.h"
#include "../base/kernel.h"
#include "../base/large.h"
#include "../base/lib.h"
#include "arena.h"
#include "tier.h"

static struct {
    int (*available)(void);
    int (*max_node)(void);
    long long (*node_size64)(int, long long *);
    int (*isbitset)(const struct bitmask *, unsigned);
    struct bitmask **mems; /* numa_all_nodes_ptr: the nodes with memory this task may use */
    long (*mbind)(void *, unsigned long, int, const unsigned long *, unsigned long, unsigned);
    int (*move_pages)(int, unsigned long, void **, const int *, int *, int);
} nl;

static const struct place_sym nl_syms[] = {
    {(void **)&nl.available, "numa_available"},
    {(void **)&nl.max_node, "numa_max_node"},
    {(void **)&nl.node_size64, "numa_node_size64"},
    {(void **)&nl.isbitset, "numa_bitmask_isbitset"},
    {(void **)&nl.mems, "numa_all_nodes_ptr"},
    {(void **)&nl.mbind, "mbind"},
    {(void **)&nl.move_pages, "numa_move_pages"},
};

/* libnuma, loaded at first need like memkind: a process with no numa or hbw tier never
 * maps it. */
static struct place_lib libnuma = {
    .file = "libnuma.so.1",
    .absent = "libnuma cannot be loaded",
    .hint = "Debian package libnuma1",
    .needs = "libnuma 2.0.14 or later is needed",
    .syms = nl_syms,
    .nsyms = sizeof nl_syms / sizeof nl_syms[0],
};

const char *place_libnuma(void)
{
    const char *why = place_lib_load(&libnuma);
    if (!why && nl.available() < 0)
        why = "the kernel has no NUMA support (numa_available() < 0)";
    return why;
}

/* The kernel's mode for a policy over nodes: preferred with several nodes is
 * MPOL_PREFERRED_MANY (Linux 5.15). */
int place_numa_mode(enum place_mempolicy policy, uint64_t nodes)
{
    switch (policy) {
    case PLACE_MPOL_PREFERRED:
        return nodes & (nodes - 1) ? MPOL_PREFERRED_MANY : MPOL_PREFERRED;
    case PLACE_MPOL_INTERLEAVE:
    case PLACE_MPOL_WEIGHTED: /* the small blocks; the stripes bind the large ones' pages */
        return MPOL_INTERLEAVE;
    default: /* bind and bind_all, numa's default */
        return MPOL_BIND;
    }
}

struct place_binding place_numa_one(const struct place_binding *b, unsigned node)
{
    /* preferred over several nodes (MPOL_PREFERRED_MANY) is preferred over one */
    return (struct place_binding){b->mode == MPOL_BIND ? MPOL_BIND : MPOL_PREFERRED, 1ull << node,
                                  b->thp};
}

const char *place_numa_bind(void *lo, size_t len, const struct place_binding *b, bool move)
{
    unsigned long mask = b ? (unsigned long)b->nodes : 0;
    if (nl.mbind(lo, len, b ? b->mode : MPOL_DEFAULT, &mask, sizeof mask * 8 + 1,
                 move ? MPOL_MF_MOVE : 0) != 0)
        return "mbind refused the tier's nodes and policy";
    if (b && b->thp && madvise(lo, len, MADV_HUGEPAGE) != 0)
        return "madvise(MADV_HUGEPAGE) failed: transparent huge pages are off in this kernel";
    return NULL;
}

void place_numa_stripe(void *stripes, char *lo, size_t len)
{
    const struct place_stripes *st = stripes;
    unsigned period = 0;
    for (unsigned n = 0; n < 64; n++)
        period += st->weights[n];
    char *end = lo + len;
    while (lo < end && period) {
        /* the stripe lo is in, its place in its period, and the node whose turn it is */
        size_t stripe = (size_t)(lo - st->origin) / PLACE_STRIPE;
        unsigned at = (unsigned)(stripe % period), node = 0, from = 0;
        while (from + st->weights[node] <= at)
            from += st->weights[node++];
        /* the node's stripes in a row, to the end of its turn */
        char *to = st->origin + (stripe - (at - from) + st->weights[node]) * PLACE_STRIPE;
        if (to > end)
            to = end;
        unsigned long mask = 1ul << node;
        /* a stripe the kernel refused keeps the range's interleave */
        nl.mbind(lo, (size_t)(to - lo), MPOL_PREFERRED, &mask, sizeof mask * 8 + 1, 0);
        lo = to;
    }
}

/* Node n's sysfs path: its directory, then what ("" for the directory itself). */
static const char *node_path(char path[112], unsigned n, const char *what)
{
    struct place_buf b = {.s = path, .cap = 112};
    place_bprintf(&b, "/sys/devices/system/node/node%u%s%s", n, *what ? "/" : "", what);
    return path;
}

/* The start of node n's sysfs file what, into text: its length. */
static size_t node_file(unsigned n, const char *what, char *text, size_t cap)
{
    char path[112];
    return place_kernel_text(node_path(path, n, what), text, cap);
}

/* Whether node n has CPUs, its cpulist into list. */
static bool node_cpus(unsigned n, char *list, size_t cap)
{
    return node_file(n, "cpulist", list, cap) && list[0] >= '0' && list[0] <= '9';
}

uint64_t place_node_number(unsigned n, const char *what)
{
    char text[32];
    const char *p = text;
    node_file(n, what, text, sizeof text);
    return place_digits(&p);
}

/* Node n's read bandwidth from its nearest CPUs (HMAT), MB/s; 0 when not given. */
static uint64_t read_bandwidth(unsigned n)
{
    return place_node_number(n, "access0/initiators/read_bandwidth");
}

uint64_t place_numa_hmat_hbw(void)
{
    uint64_t cpu_best = 0, bw[64], fast = 0;
    bool cpus[64];
    for (unsigned n = 0; n < 64; n++) {
        char list[8];
        cpus[n] = node_cpus(n, list, sizeof list);
        bw[n] = read_bandwidth(n);
        if (cpus[n] && bw[n] > cpu_best)
            cpu_best = bw[n];
    }
    for (unsigned n = 0; n < 64 && cpu_best; n++)
        fast |= (uint64_t)(!cpus[n] && bw[n] > cpu_best) << n;
    return fast;
}

/* Each CPU of list (sysfs's form: "0-3,8-11") takes part. */
static void cpus_take(const char *list, uint8_t part, uint8_t *of_cpu)
{
    for (const char *c = list; *c >= '0' && *c <= '9';) {
        uint64_t lo = place_digits(&c), hi = lo;
        if (*c == '-') {
            c++;
            hi = place_digits(&c);
        }
        for (uint64_t k = lo; k <= hi && k < PLACE_NEAR_CPUS; k++)
            of_cpu[k] = part;
        c += *c == ',';
    }
}

/* The part of near's whose node is nearest CPU node c: one whose nearest initiators
 * (HMAT) include c, else the one at the least SLIT distance from c (the distance file
 * gives one figure per node there is, in order). */
static uint8_t nearest(unsigned c, const struct place_near *near)
{
    char path[112], what[40];
    struct place_buf w = PLACE_BUF(what);
    place_bprintf(&w, "access0/initiators/node%u", c);
    for (unsigned k = 0; k < near->nparts; k++) {
        if (access(node_path(path, near->node[k], what), F_OK) == 0)
            return (uint8_t)k;
    }
    char row[512];
    unsigned dist[64];
    memset(dist, 0xff, sizeof dist); /* no figure: as far as can be */
    const char *p = row;
    node_file(c, "distance", row, sizeof row);
    for (unsigned n = 0; n < 64 && *p >= '0' && *p <= '9'; n++) {
        if (access(node_path(path, n, ""), F_OK) != 0) /* no node n: no figure */
            continue;
        dist[n] = (unsigned)place_digits(&p);
        while (*p == ' ' || *p == '\n')
            p++;
    }
    uint8_t best = 0;
    for (unsigned k = 1; k < near->nparts; k++)
        if (dist[near->node[k]] < dist[near->node[best]])
            best = (uint8_t)k;
    return best;
}

void place_numa_near(uint64_t nodes, struct place_near *near)
{
    memset(near, 0, sizeof *near);
    memset(near->of_node, UINT8_MAX, sizeof near->of_node);
    for (unsigned n = 0; n < 64 && near->nparts < PLACE_PARTS; n++)
        if (nodes >> n & 1)
            near->node[near->nparts++] = (uint8_t)n;
    char list[1024];
    for (unsigned c = 0; c < 64; c++)
        if (node_cpus(c, list, sizeof list)) {
            near->of_node[c] = nearest(c, near);
            cpus_take(list, near->of_node[c], near->of_cpu);
        }
}

unsigned place_near_part(const struct place_near *near)
{
    int cpu = sched_getcpu();
    return cpu >= 0 && cpu < PLACE_NEAR_CPUS ? near->of_cpu[cpu] : 0;
}

const char *place_numa_weights(struct place_tier *t, uint64_t nodes, uint8_t weights[64])
{
    const struct place_tier_config *c = t->config;
    memcpy(weights, c->weights, sizeof c->weights);
    if (!c->weights_bandwidth)
        return NULL;
    uint64_t bw[64] = {0}, least = UINT64_MAX;
    for (unsigned n = 0; n < 64; n++) {
        if (!(nodes >> n & 1))
            continue;
        bw[n] = read_bandwidth(n);
        if (!bw[n]) {
            struct place_buf why = PLACE_BUF(t->reason);
            place_bprintf(&why,
                          "weights = bandwidth: the firmware gives node %u no read bandwidth (ACPI "
                          "HMAT; placerun --tiers shows what it gives); expected weights = "
                          "NODE:WEIGHT,... instead",
                          n);
            return t->reason;
        }
        if (bw[n] < least)
            least = bw[n];
    }
    for (unsigned n = 0; n < 64; n++) {
        uint64_t w = (bw[n] + least / 2) / (least ? least : 1);
        weights[n] = (uint8_t)(!bw[n] ? 0 : w < 1 ? 1 : w > 255 ? 255 : w);
    }
    return NULL;
}

const char *place_numa_missing(struct place_tier *t)
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

int place_numa_stats(struct place_tier *t, size_t *total, size_t *free)
{
    const struct place_arena *a = t->state;
    *total = *free = 0;
    if (!a->binding.nodes) /* nodes found at first use (hbw), which has not come */
        return -1;
    for (unsigned n = 0; n < 64; n++)
        if (a->binding.nodes >> n & 1) {
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
    static unsigned char in[WINDOW] PLACE_LARGE;
    static void *pages[WINDOW] PLACE_LARGE;
    static int where[WINDOW] PLACE_LARGE;
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
        /* a page only ever read maps the kernel's zero page: mincore counts it, but it is
         * on no node (move_pages: -EFAULT), and it is not misplaced. (NUMA balancing, whose
         * sampling also reads -EFAULT, leaves mbind()ed ranges alone.) A node past 63 is
         * outside every node mask libplace has: never the tier's, and counted on none. */
        for (unsigned k = 0; k < n; k++) {
            v->untouched += where[k] < 0;
            if (where[k] >= 0 && where[k] < 64) {
                v->placed += nodes >> where[k] & 1;
                v->by_node[where[k]]++;
            }
        }
    }
    v->resident = seen;
}

int place_numa_verify(struct place_tier *t, bool all, struct place_verified *v)
{
    const struct place_arena *a = t->state;
    uint64_t nodes = a ? a->binding.nodes : 0;
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

