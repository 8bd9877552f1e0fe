#include "arena.h"

#include <memkind.h>
#include <sys/mman.h>

#include "../shim/owner.h"

enum { ARENA_MIN = 64 << 20 };

int place_arena_create(struct place_arena *a, struct place_tier *t, size_t want, const char **why)
{
    /* MAP_NORESERVE: address space only; pages cost memory when the program touches them.
     * Under strict overcommit the kernel may refuse a large reservation, so halve. */
    void *p = MAP_FAILED;
    size_t len = want < ARENA_MIN ? ARENA_MIN : want;
    for (; len >= ARENA_MIN; len /= 2) {
        p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                 0);
        if (p != MAP_FAILED)
            break;
    }
    if (p == MAP_FAILED) {
        *why = "the kernel refused to reserve address space for it";
        return -1;
    }
    if (memkind_create_fixed(p, len, &a->kind) != MEMKIND_SUCCESS) {
        *why = "memkind_create_fixed failed over its reserved range";
        return -1;
    }
    if (place_owner_add(p, len, t) != 0) {
        *why = "libplace's table of owned ranges is full";
        return -1;
    }
    a->lo = p;
    a->len = len;
    return 0;
}

void *place_arena_alloc(struct place_arena *a, size_t size, size_t align)
{
    if (!align)
        return memkind_malloc(a->kind, size);
    void *p;
    return memkind_posix_memalign(a->kind, &p, align, size) == 0 ? p : NULL;
}

void place_arena_free(struct place_arena *a, void *p)
{
    memkind_free(a->kind, p);
}

size_t place_arena_usable(struct place_arena *a, const void *p)
{
    return memkind_malloc_usable_size(a->kind, (void *)p);
}

size_t place_arena_good_size(size_t size, size_t align)
{
    if (align > 16)
        size = (size + align - 1) & ~(align - 1);
    if (size <= 8)
        return 8;
    if (size <= 128)
        return (size + 15) & ~(size_t)15;
    unsigned lg = 63u - (unsigned)__builtin_clzll(size - 1); /* floor(log2(size - 1)) */
    size_t delta = (size_t)1 << (lg - 2);
    return (size + delta - 1) & ~(delta - 1);
}
