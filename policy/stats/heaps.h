/* Heaps that other libraries keep in GPU memory (NVSHMEM's symmetric heap, PyTorch's
 * expandable segments): the cuMemCreate blocks such a library made, by the GPU tier that
 * counts them. libplace sees these blocks, never what the library hands out inside
 * them (nvshmem_malloc's blocks), and the report says so. */
#ifndef PLACE_STATS_HEAPS_H
#define PLACE_STATS_HEAPS_H

#include <stdbool.h>
#include <stdint.h>

struct place_heap_stats {
    uint64_t blocks;  /* held now */
    int64_t bytes, peak;
    char owner[64];   /* the library of the first block: its file or function name */
};

/* A block of bytes made by owner and counted in tier (negative bytes: released). */
void place_heap_changed(unsigned tier, const char *owner, int64_t bytes);

/* tier's heap as it stands; false when no heap block was ever counted there. Safe in a
 * signal handler: nothing waits. */
bool place_heap_snapshot(unsigned tier, struct place_heap_stats *out);

#endif
