/* An arena: a range of address space libplace reserves, with memkind's allocator (a
 * fixed kind, memkind_create_fixed) carving blocks out of it.
 *
 * The range is what makes ownership an O(1) test: it is registered with the shim's owner
 * table, so free() knows a block is the tier's by its address, and never asks memkind to
 * detect a kind. A tier that binds memory to NUMA nodes mbinds the range before handing
 * it to memkind. Nothing is ever unmapped or destroyed (DESIGN.md section 7). */
#ifndef PLACE_ARENA_H
#define PLACE_ARENA_H

#include <stddef.h>

struct memkind;
struct place_tier;

struct place_arena {
    void *lo;
    size_t len;
    struct memkind *kind;
};

/* Reserves up to `want` bytes of address space (less when the kernel refuses that much,
 * down to 64 MiB) and makes it tier t's. Returns 0, or -1 with *why saying what failed. */
int place_arena_create(struct place_arena *a, struct place_tier *t, size_t want, const char **why);

/* malloc's and memalign's (align 0: malloc's) semantics, inside the arena. */
void *place_arena_alloc(struct place_arena *a, size_t size, size_t align);
void *place_arena_zalloc(struct place_arena *a, size_t size);
void place_arena_free(struct place_arena *a, void *p);
size_t place_arena_usable(struct place_arena *a, const void *p);

/* The usable size a request for size bytes at align will get: jemalloc's size classes
 * (four per doubling above 128 bytes). Limits reserve this before allocating, so that
 * the reservation is what the block will count. */
size_t place_arena_good_size(size_t size, size_t align);

#endif
