/* A chunk pool: memory a tier obtains from a driver in chunks and carves into blocks
 * itself (DESIGN.md section 5), for the kinds whose every allocation from the driver is
 * slow and page-grained: pinned (page-locking) and managed memory.
 *
 * Chunks start at chunk_initial bytes and grow by chunk_growth times up to chunk_max; a
 * request above chunk_max gets a chunk of its own, straight from the driver, given back
 * when the block is freed. reclaim gives back chunks nothing is allocated from. Blocks
 * are whole grains of 256 bytes (the alignment cudaMalloc promises), and their
 * bookkeeping lives outside the chunks, so that the CPU never touches managed memory
 * libplace does not hand out. One lock per pool: its callers are large, rare requests. */
#ifndef PLACE_POOL_H
#define PLACE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tier.h"

enum { PLACE_POOL_GRAIN = 256, PLACE_POOL_CHUNKS = 128 };

struct place_chunk {
    uintptr_t lo, device;
    size_t size;
    uint64_t *used; /* a bit per grain */
    uint32_t *len;  /* at a block's first grain: its length in grains */
    size_t grains, free_grains, first_free;
    bool own; /* a request above chunk_max: one block, the whole chunk */
};

struct place_pool {
    pthread_mutex_t lock;
    struct place_tier *tier; /* whose source (get, put) gives its chunks */
    size_t next, max; /* the next chunk's size, and the largest */
    unsigned growth;
    unsigned n;
    struct place_chunk chunk[PLACE_POOL_CHUNKS]; /* by address */
};

/* Sets pool up for tier t (chunk sizes from its config), its chunks got from and put
 * back to t's source (a multiple of the page size each; the source's get gives NULL when
 * the driver refuses). Nothing is asked of the source until the first allocation. */
void place_pool_init(struct place_pool *pool, struct place_tier *t);

/* A pool made for tier t as its state: what the source of a pool tier's init does
 * (place_pool_allocator then serves t). 0, or -1 with t->unavailable set. */
int place_pool_tier(struct place_tier *t);

/* A block of at least size bytes at align (0: the grain), or NULL. */
void *place_pool_alloc(struct place_pool *pool, size_t size, size_t align);

/* Frees a block of pool's; returns its usable size. */
size_t place_pool_free(struct place_pool *pool, void *p);

/* A block's usable size, 0 if p is none of pool's blocks. */
size_t place_pool_usable(struct place_pool *pool, const void *p);

/* The address GPUs use for p (0 if p is none of pool's). */
uintptr_t place_pool_device(struct place_pool *pool, const void *p);

/* Gives back whole free chunks until want bytes went back, or none is left; returns
 * how many bytes did. */
size_t place_pool_reclaim(struct place_pool *pool, size_t want);

/* What a block for size bytes counts: whole grains. */
size_t place_pool_good_size(size_t size, size_t align);

/* fork: every pool's lock is held across it. */
void place_pools_prefork(void);
void place_pools_postfork(void);

#endif
