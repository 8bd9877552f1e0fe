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

/* CUDA's blocks by pointer and by handle (cuMemCreate's), the symmetric heap's by address */
enum place_block_map { PLACE_BLOCKS_CUDA, PLACE_BLOCKS_CUDA_HANDLES, PLACE_BLOCKS_SHMEM };

void place_blocks_put(enum place_block_map m, const struct place_block *b);

/* Removes the block under key into *b; false when there is none. */
bool place_blocks_take(enum place_block_map m, uint64_t key, struct place_block *b);

/* fork: the maps' lock is held across it. */
void place_blocks_prefork(void);
void place_blocks_postfork(void);

/* Copies the block under key into *b, leaving it; false when there is none. */
bool place_blocks_find(enum place_block_map m, uint64_t key, struct place_block *b);

#endif
