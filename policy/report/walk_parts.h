/* What the files of the report's walk share (walk.c calls the others in the report's
 * order): the text's parts (emit.h), in the order the text shows them, and the sections
 * each file walks. */
#ifndef PLACE_WALK_PARTS_H
#define PLACE_WALK_PARTS_H

#include <stdint.h>

#include "emit.h"
#include "gather.h"

enum place_part {
    PART_NOW,       /* the header, the sites, the profile: written as they come */
    PART_USE,       /* the tiers' table */
    PART_CACHED,    /* what threads' caches hold */
    PART_PRESSURE,  /* the table of what pressed the tiers, when anything did */
    PART_MACHINE,   /* unavailable, planned, or the machine's memory */
    PART_HEAPS,     /* heaps libraries keep in a tier */
    PART_VERIFIED,  /* where the kernel holds a tier's pages */
    PART_COUNTED,   /* how dram's figures were counted */
    PART_SYMMETRIC, /* the symmetric heap, beside the tiers */
    PART_RULES,
};

void place_walk_nodes(struct place_emit *e, const struct place_gathered *g); /* walk_nodes.c */
void place_walk_sites(struct place_emit *e, const struct place_gathered *g); /* walk_sites.c */
void place_walk_profile(struct place_emit *e, const struct place_gathered *g);

#endif
