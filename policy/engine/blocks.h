/* What libplace knows of the blocks that calls other than the malloc family handed out
 * (CUDA's, OpenSHMEM's): by the address (or handle) the program holds, the tier that
 * counts it and how many bytes it counts.
 *
 * Such a block is not in a range libplace reserved, so the owner table cannot answer for
 * it; these calls are rare and slow next to malloc's, so a locked hash serves. */
#ifndef PLACE_BLOCKS_H
#define PLACE_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct place_tier;

struct place_block {
    uint64_t key; /* the device pointer, host pointer or handle */
    struct place_tier *tier;
    void *host;    /* placed CUDA blocks: the tier's own pointer for it */
    size_t usable; /* what it counts in the tier */
    bool placed;   /* CUDA: libplace placed it (else the driver's, only counted);
                    * shmem: tier is the one its pages are bound to */
    uint8_t heap;  /* CUDA handles: 1 + the slot of the library whose heap it is (stats/heaps.h),
                    * 0 none */
};

/* CUDA's blocks by pointer and by handle (cuMemCreate's), the mappings of handles by the
 * address they are mapped at (cuMemMap's), the symmetric heap's blocks by address */
enum place_block_map {
    PLACE_BLOCKS_CUDA,
    PLACE_BLOCKS_CUDA_HANDLES,
    PLACE_BLOCKS_CUDA_MAPS,
    PLACE_BLOCKS_SHMEM,
    PLACE_BLOCK_MAPS
};

void place_blocks_put(enum place_block_map m, const struct place_block *b);

/* Removes the block under key into *b; false when there is none. */
bool place_blocks_take(enum place_block_map m, uint64_t key, struct place_block *b);

/* A handle's memory lives until the handle is released and its last mapping unmapped
 * (cuMemRelease's documented semantics, on which "map, then release at once" relies): a
 * handle's block counts its mappings, and one released while mapped leaves the handle map
 * but lives on, held by its mappings.
 *
 * cuMemMap of handle h's block at address va for size bytes (h not known: nothing). A
 * mapping still recorded at va is one whose end libplace did not see: it goes, and true,
 * with its handle's block into *gone, says that was the last hold on a released handle. */
bool place_blocks_map(uint64_t h, uint64_t va, size_t size, struct place_block *gone);

/* cuMemRelease of handle h: true, with the block into *gone, when it is gone (no mapping
 * holds it); false when it lives on, or when h is not known. */
bool place_blocks_release(uint64_t h, struct place_block *gone);

/* One step of cuMemUnmap of [va, end): the first mapping that starts there is removed,
 * and *next says where the next step starts (end when none is left). True, with the
 * handle's block into *gone, when that was the last hold on a released handle. */
bool place_blocks_unmap(uint64_t va, uint64_t end, uint64_t *next, struct place_block *gone);

/* fork: the maps' lock is held across it. */
void place_blocks_prefork(void);
void place_blocks_postfork(void);

/* Copies the block under key into *b, leaving it; false when there is none. */
bool place_blocks_find(enum place_block_map m, uint64_t key, struct place_block *b);

#endif
