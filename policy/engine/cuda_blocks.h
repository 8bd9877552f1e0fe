/* What libplace knows of the blocks CUDA calls handed out: by the address (or handle)
 * the program holds, the tier that counts it and how many bytes it counts.
 *
 * A device pointer is not a host address libplace reserved, so the owner table cannot
 * answer for it; CUDA calls are rare and slow next to malloc's, so a locked hash serves. */
#ifndef PLACE_CUDA_BLOCKS_H
#define PLACE_CUDA_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct place_tier;

struct place_cu_block {
    uint64_t key; /* the device pointer, host pointer or handle */
    struct place_tier *tier;
    void *host;    /* placed blocks: the tier's own pointer for it */
    size_t usable; /* what it counts in the tier */
    bool placed;   /* libplace placed it (else the driver's, only counted) */
};

enum place_cu_map { PLACE_CU_POINTERS, PLACE_CU_HANDLES };

void place_cu_blocks_put(enum place_cu_map m, const struct place_cu_block *b);

/* Removes the block under key into *b; false when there is none. */
bool place_cu_blocks_take(enum place_cu_map m, uint64_t key, struct place_cu_block *b);

/* fork: the maps' lock is held across it. */
void place_cu_blocks_prefork(void);
void place_cu_blocks_postfork(void);

/* Copies the block under key into *b, leaving it; false when there is none. */
bool place_cu_blocks_find(enum place_cu_map m, uint64_t key, struct place_cu_block *b);

#endif
