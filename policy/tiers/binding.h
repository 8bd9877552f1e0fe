/* What the numa and hbw tiers share: libnuma, loaded at first need, a range's binding
 * to nodes, and what the kernel says of those nodes and of the pages on them. */
#ifndef PLACE_BINDING_H
#define PLACE_BINDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "slab.h"

/* Loads libnuma; NULL, or why it cannot be used. */
const char *place_libnuma(void);

/* A range's NUMA policy: the kernel's mode, the nodes, and transparent huge pages. */
struct place_binding {
    int mode;
    uint64_t nodes;
    bool thp;
};

int place_numa_mode(enum place_mempolicy policy, uint64_t nodes);

/* b (bind or preferred) over node alone: a near = cpu part's binding. */
struct place_binding place_numa_one(const struct place_binding *b, unsigned node);

/* A weighted interleave's stripes (policy = weighted_interleave): in every period of
 * sum(weights) stripes of PLACE_STRIPE bytes, counted from origin, node n takes weights[n]
 * stripes in a row. */
enum { PLACE_STRIPE = 2 << 20 };
struct place_stripes {
    char *origin;
    uint8_t weights[64];
};

/* Binds [lo, lo + len) stripe by stripe, each stripe preferring its node (the kernel
 * takes another when it is full, as it does for interleave): the extents' fresh hook. */
void place_numa_stripe(void *stripes, char *lo, size_t len);

/* A weighted interleave tier's weights over nodes: its config's, or with weights =
 * bandwidth each node's read bandwidth from the firmware (HMAT) over the least one's,
 * rounded (1 to 255). NULL, or why not (a node without a figure) in t->reason. */
struct place_tier;
const char *place_numa_weights(struct place_tier *t, uint64_t nodes, uint8_t weights[64]);

/* The number at the start of node n's sysfs file what (under
 * /sys/devices/system/node/nodeN), 0 when there is none; without malloc or stdio. */
uint64_t place_node_number(unsigned n, const char *what);

/* The nodes without CPUs whose read bandwidth (HMAT, from their nearest CPUs) passes
 * every CPU node's: high-bandwidth memory as the firmware tells it, 0 when it tells none. */
uint64_t place_numa_hmat_hbw(void);

/* near = cpu: an arena in parts, one per HBW node (tiers/slab.h's parts, and an extents
 * each), and for each CPU the part of the HBW node nearest it. */
enum { PLACE_NEAR_CPUS = 1024 }; /* CPUs past them take part 0 */
struct place_near {
    unsigned nparts;           /* 0: not near = cpu */
    uint8_t node[PLACE_PARTS]; /* part k's node */
    uint8_t of_node[64];       /* a CPU node's part; UINT8_MAX for a node without CPUs */
    uint8_t of_cpu[PLACE_NEAR_CPUS];
};

/* A part for each of nodes (PLACE_PARTS at most: those past are left out) and the part
 * each CPU node's CPUs take: the node of nodes the firmware names that CPU node nearest
 * to (HMAT's access0 initiators), else the one at the least distance (SLIT). */
void place_numa_near(uint64_t nodes, struct place_near *near);

/* The part of the CPU the calling thread runs on. */
unsigned place_near_part(const struct place_near *near);

/* Binds [lo, lo + len) as b says (b NULL: back to the process's default policy); with
 * move, pages already touched move to b's nodes. NULL, or why it failed. */
const char *place_numa_bind(void *lo, size_t len, const struct place_binding *b, bool move);

/* The stats and verify operations of a tier that is an arena bound to nodes (numa, hbw):
 * the memory of its nodes together and what is free of it; where the kernel holds its
 * pages. */
struct place_tier;
struct place_verified;
int place_numa_stats(struct place_tier *t, size_t *total, size_t *free);

/* Why the tier's nodes (its config's) cannot be used here, written into t->reason; NULL
 * if they can. */
const char *place_numa_missing(struct place_tier *t);
int place_numa_verify(struct place_tier *t, bool all, struct place_verified *v);

#endif
