/* The OpenSHMEM allocation calls: shmem_malloc, _calloc, _align, _realloc, _free and
 * _malloc_with_hints, and the older shmalloc, shmemalign, shrealloc and shfree.
 *
 * A SHMEM library defines them (Open MPI's oshmem as weak names over its pshmem_
 * profiling ones); libplace's come first and reach the library's by the next definition
 * of the same name (RTLD_NEXT), so a profiling tool beneath still sees every call. The
 * engine (policy/engine/shmem_path.h) counts, decides and binds around the library's
 * own call. */
#include <dlfcn.h>
#include <stdatomic.h>

#include "../policy/base/lib.h"
#include "../policy/engine/shmem_path.h"
#include "export.h"

PLACE_EXPORT void *shmem_malloc(size_t size);
PLACE_EXPORT void *shmem_malloc_with_hints(size_t size, long hints);
PLACE_EXPORT void *shmem_calloc(size_t count, size_t size);
PLACE_EXPORT void *shmem_align(size_t alignment, size_t size);
PLACE_EXPORT void *shmem_realloc(void *ptr, size_t size);
PLACE_EXPORT void shmem_free(void *ptr);
PLACE_EXPORT void *shmalloc(size_t size);
PLACE_EXPORT void *shmemalign(size_t alignment, size_t size);
PLACE_EXPORT void *shrealloc(void *ptr, size_t size);
PLACE_EXPORT void shfree(void *ptr);

enum {
    E_MALLOC,
    E_HINTS,
    E_CALLOC,
    E_ALIGN,
    E_REALLOC,
    E_FREE,
    E_SHMALLOC,
    E_SHMEMALIGN,
    E_SHREALLOC,
    E_SHFREE,
    ENTRIES
};

static const char *const names[ENTRIES] = {
    [E_MALLOC] = "shmem_malloc",   [E_HINTS] = "shmem_malloc_with_hints",
    [E_CALLOC] = "shmem_calloc",   [E_ALIGN] = "shmem_align",
    [E_REALLOC] = "shmem_realloc", [E_FREE] = "shmem_free",
    [E_SHMALLOC] = "shmalloc",     [E_SHMEMALIGN] = "shmemalign",
    [E_SHREALLOC] = "shrealloc",   [E_SHFREE] = "shfree",
};
static _Atomic(void *) found[ENTRIES];

/* The library's definition of entry e (NULL: none, which no linked program can meet). */
static void *next(int e)
{
    return place_next_sym(names[e], &found[e]);
}

typedef void *(*alloc_fn)(size_t);
typedef void *(*sizes_fn)(size_t, size_t); /* shmem_align's and shmem_calloc's */
typedef void *(*realloc_fn)(void *, size_t);
typedef void (*free_fn)(void *);

/* The free that goes with allocation entry e, for a block on_full = fail turns away. */
static free_fn free_of(int e)
{
    return (free_fn)next(e >= E_SHMALLOC ? E_SHFREE : E_FREE);
}

#define CALL(e, type, ...) (next(e) ? ((type)next(e))(__VA_ARGS__) : NULL)

/* The library's call, with the engine around it: NULL without making the call when the
 * symmetric tier's limit refuses (begin lets everything through while libplace is off). */
#define AROUND(c, call) (place_shmem_begin(&(c)) ? place_shmem_end(&(c), (call)) : NULL)

static void *allocate(int e, size_t size, uintptr_t ra)
{
    struct place_shmem_call c = {.kind = PLACE_SHMEM_MALLOC, .size = size, .ra = ra,
                                 .free = free_of(e)};
    return AROUND(c, CALL(e, alloc_fn, size));
}

static void *align(int e, size_t alignment, size_t size, uintptr_t ra)
{
    struct place_shmem_call c = {.kind = PLACE_SHMEM_ALIGN, .size = size, .align = alignment,
                                 .ra = ra, .free = free_of(e)};
    return AROUND(c, CALL(e, sizes_fn, alignment, size));
}

static void *resize(int e, void *ptr, size_t size, uintptr_t ra)
{
    struct place_shmem_call c = {.kind = PLACE_SHMEM_REALLOC, .size = size, .old = ptr,
                                 .ra = ra, .free = free_of(e)};
    return AROUND(c, CALL(e, realloc_fn, ptr, size));
}

static void release(int e, void *ptr)
{
    place_shmem_free(ptr);
    free_fn fn = (free_fn)next(e);
    if (fn)
        fn(ptr);
}

#define RA ((uintptr_t)__builtin_return_address(0))

void *shmem_malloc(size_t size)
{
    return allocate(E_MALLOC, size, RA);
}

void *shmalloc(size_t size)
{
    return allocate(E_SHMALLOC, size, RA);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    struct place_shmem_call c = {.kind = PLACE_SHMEM_MALLOC, .size = size, .ra = RA,
                                 .free = free_of(E_MALLOC)};
    return AROUND(c, CALL(E_HINTS, void *(*)(size_t, long), size, hints));
}

void *shmem_calloc(size_t count, size_t size)
{
    struct place_shmem_call c = {.kind = PLACE_SHMEM_CALLOC, .ra = RA, .free = free_of(E_CALLOC)};
    /* an overflowing product is the library's to refuse */
    if (__builtin_mul_overflow(count, size, &c.size))
        return CALL(E_CALLOC, sizes_fn, count, size);
    return AROUND(c, CALL(E_CALLOC, sizes_fn, count, size));
}

void *shmem_align(size_t alignment, size_t size)
{
    return align(E_ALIGN, alignment, size, RA);
}

void *shmemalign(size_t alignment, size_t size)
{
    return align(E_SHMEMALIGN, alignment, size, RA);
}

void *shmem_realloc(void *ptr, size_t size)
{
    return resize(E_REALLOC, ptr, size, RA);
}

void *shrealloc(void *ptr, size_t size)
{
    return resize(E_SHREALLOC, ptr, size, RA);
}

void shmem_free(void *ptr)
{
    release(E_FREE, ptr);
}

void shfree(void *ptr)
{
    release(E_SHFREE, ptr);
}
