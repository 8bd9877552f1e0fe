/* Heaps that other libraries keep in GPU memory (NVSHMEM's symmetric heap, PyTorch's
 * expandable segments): the cuMemCreate blocks such a library made, by the GPU tier that
 * counts them and by the library. libplace sees these blocks, never what the library
 * hands out inside them (nvshmem_malloc's blocks), and the report says so. */
#ifndef PLACE_STATS_HEAPS_H
#define PLACE_STATS_HEAPS_H

#include <stdbool.h>
#include <stdint.h>

enum {
    PLACE_HEAP_OWNER_MAX = 64, /* a library's name, with its NUL */
    PLACE_HEAP_OWNERS = 4,     /* per tier; the last takes every library past the others */
};

/* The last slot's owner. */
#define PLACE_HEAP_OTHERS "other libraries"

struct place_heap_stats {
    uint64_t blocks; /* held now */
    int64_t bytes, peak;
    char owner[PLACE_HEAP_OWNER_MAX]; /* its file or function name; PLACE_HEAP_OTHERS */
};

/* A block of bytes that owner made, counted in tier: the owner's slot, for its release. */
unsigned place_heap_made(unsigned tier, const char *owner, int64_t bytes);

/* That block given back. */
void place_heap_released(unsigned tier, unsigned slot, int64_t bytes);

/* tier's heaps as they stand, into out[PLACE_HEAP_OWNERS]: how many. Safe in a signal
 * handler: nothing waits. */
unsigned place_heap_snapshot(unsigned tier, struct place_heap_stats *out);

/* A forked child holds its parent's blocks, and counts the peak from the fork. */
void place_heaps_restart(void);

#endif
