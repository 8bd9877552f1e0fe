/* malloc, calloc and the aligned family.
 *
 * A size inside the gate (policy/engine/place.h: the rules' window) goes to the engine
 * (policy/engine/place.c). Every other malloc and calloc is a compare and a tail call
 * into the gate's outside path (policy/engine/outside.h): glibc's, counted while a
 * report is asked for. The aligned family, rarer, tests the flag instead (posix_memalign
 * cannot tail-call). Failures are glibc's: errno is whatever glibc set (ENOMEM), and on success
 * nothing here touches it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../policy/base/glibc.h"
#include "../policy/engine/outside.h"
#include "../policy/engine/place.h"
#include "../policy/stats/threads.h"
#include "export.h"

#define CALLER ((uintptr_t)__builtin_return_address(0))

PLACE_EXPORT void *malloc(size_t size)
{
    if (__builtin_expect(!place_in_window(size), 1))
        return place_outside.malloc(size);
    return place_alloc(size, PLACE_MALLOC, CALLER);
}

/* glibc checks nmemb * size for overflow (ENOMEM) and skips clearing fresh mmapped memory;
 * an overflowing product is left to it, whatever the window. */
PLACE_EXPORT void *calloc(size_t nmemb, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes))
        return place_libc_calloc(nmemb, size);
    if (__builtin_expect(!place_in_window(bytes), 1))
        return place_outside.calloc(nmemb, size);
    return place_alloc(bytes, PLACE_CALLOC, CALLER);
}

/* The aligned shapes: the engine when size is in the window, else glibc's memalign,
 * counted while a report is asked for. */
static inline void *aligned(size_t align, size_t size, uintptr_t ra)
{
    if (__builtin_expect(!place_in_window(size), 1))
        return place_counting ? place_memalign_counted(align, size, ra)
                              : place_libc_memalign(align, size);
    return place_alloc_aligned(size, align, ra);
}

PLACE_EXPORT void *memalign(size_t align, size_t size)
{
    return aligned(align, size, CALLER);
}

/* In glibc 2.36 (Debian 12) aligned_alloc is an alias of memalign: any alignment is
 * accepted and rounded up to a power of two. glibc 2.38 made it reject non-powers of two
 * with EINVAL; libplace follows the glibc it runs on here. */
PLACE_EXPORT void *aligned_alloc(size_t align, size_t size)
{
    return aligned(align, size, CALLER);
}

/* glibc's valloc is memalign at the page size. */
PLACE_EXPORT void *valloc(size_t size)
{
    return aligned((size_t)getpagesize(), size, CALLER);
}

/* pvalloc rounds the size up to whole pages (0 to one page); a size whose rounding
 * overflows is left to glibc, which fails it. */
PLACE_EXPORT void *pvalloc(size_t size)
{
    size_t page = (size_t)getpagesize();
    size_t whole = size ? (size + page - 1) & ~(page - 1) : page;
    if (whole < size)
        return place_libc_pvalloc(size);
    return aligned(page, whole, CALLER);
}

/* glibc's own check: a power of two and a multiple of sizeof(void *), or EINVAL. The
 * error is returned, not set in errno; glibc's memalign does set errno to ENOMEM when it
 * fails, and so does this. */
PLACE_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    if (align == 0 || align % sizeof(void *) != 0 || (align & (align - 1)) != 0)
        return EINVAL;
    void *p = aligned(align, size, CALLER);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* glibc's own names for the same calls (jemalloc exports them too): a program with its
 * own malloc hooks calls them by name, and what they place must be libplace's to free.
 * libplace reaches glibc's by their symbol version (policy/base/glibc.h). */
PLACE_EXPORT void *__libc_malloc(size_t size) __attribute__((alias("malloc"), copy(malloc)));
PLACE_EXPORT void *__libc_calloc(size_t nmemb, size_t size) __attribute__((alias("calloc"), copy(calloc)));
PLACE_EXPORT void *__libc_memalign(size_t align, size_t size) __attribute__((alias("memalign"), copy(memalign)));
PLACE_EXPORT void *__libc_valloc(size_t size) __attribute__((alias("valloc"), copy(valloc)));
PLACE_EXPORT void *__libc_pvalloc(size_t size) __attribute__((alias("pvalloc"), copy(pvalloc)));
