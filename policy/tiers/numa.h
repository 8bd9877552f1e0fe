/* What the numa and hbw tiers share: libnuma, loaded at first need, and a range's binding
 * to nodes. */
#ifndef PLACE_TIERS_NUMA_H
#define PLACE_TIERS_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../config/policy.h"

/* Loads libnuma; NULL, or why it cannot be used. */
const char *place_libnuma(void);

/* A range's NUMA policy: the kernel's mode, the nodes, and transparent huge pages. */
struct place_binding {
    int mode;
    uint64_t nodes;
    bool thp;
};

int place_numa_mode(enum place_mempolicy policy, uint64_t nodes);

/* The place_arena_spec bind for a struct place_binding. */
const char *place_numa_bind(void *lo, size_t len, const void *binding);

/* The memory of the nodes together, and what is free of it. 0, or -1. */
int place_numa_size(uint64_t nodes, size_t *total, size_t *free);

/* The verify operation over tier t's arena, for pages meant for nodes. */
struct place_tier;
struct place_verified;
int place_numa_verify(struct place_tier *t, uint64_t nodes, bool all, struct place_verified *v);

#endif
