/* A folded dry run (dry_run = fold, StarPU's SIMULATION_FOLDED): a planned block of
 * fold_min bytes or more takes almost no memory. Its pages past the first are one small
 * shared buffer (a memfd) mapped over and over, so that a plan for a machine with far
 * more memory than this one runs here; what the program writes there is garbage, read
 * back by every block alike.
 *
 * A folded block is laid out as glibc lays out a block it mmaps: a page-aligned mapping
 * and a two-word chunk header below the pointer (the offset to the mapping's start, and
 * the chunk's size with IS_MMAPPED), so that its usable size reads like any glibc
 * block's (base/glibc.h). Only the dry map (engine/dry.c) frees it. */
#ifndef PLACE_FOLD_H
#define PLACE_FOLD_H

#include <stddef.h>

/* The shared buffer: 64 MiB, so that 64 GiB of blocks take a thousand mappings (the
 * kernel allows 65530 by default), and no more memory than that. */
enum { PLACE_FOLD_BUFFER = 64 << 20 };

/* A folded block of size bytes aligned to align (0: 16), zeroed in its first page only;
 * NULL when the kernel refuses a mapping (the caller asks glibc instead). Called with
 * the guard up. */
void *place_fold_alloc(size_t size, size_t align);

/* Unmaps a block place_fold_alloc made. */
void place_fold_free(void *p);

#endif
