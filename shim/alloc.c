/* malloc, calloc and the aligned family.
 *
 * A size inside the gate (policy/engine/place.h: the rules' window, or every size while
 * a report counts) goes to the engine (policy/engine/place.c), which also counts what
 * glibc serves. Every other call is glibc's: one compare and a tail call. Failures are
 * glibc's too: errno is whatever glibc set (ENOMEM), and on success nothing here
 * touches it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../policy/base/glibc.h"
#include "../policy/engine/place.h"
#include "../policy/stats/threads.h"
#include "export.h"

/* glibc's answer p, counted: a size through the gate that no rule's window holds. */
static inline void *counted(void *p)
{
    if (__builtin_expect(p != NULL, 1))
        place_count(1, 0, (int64_t)place_glibc_usable(p));
    return p;
}

#define CALLER ((uintptr_t)__builtin_return_address(0))

PLACE_EXPORT void *malloc(size_t size)
{
    if (__builtin_expect(!place_in_window(size), 1))
        return __libc_malloc(size);
    if (!place_in_rules(size))
        return counted(__libc_malloc(size));
    return place_alloc(size, 0, PLACE_MALLOC, CALLER);
}

/* glibc checks nmemb * size for overflow (ENOMEM) and skips clearing fresh mmapped memory;
 * an overflowing product is left to it, whatever the window. */
PLACE_EXPORT void *calloc(size_t nmemb, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes) || __builtin_expect(!place_in_window(bytes), 1))
        return __libc_calloc(nmemb, size);
    if (!place_in_rules(bytes))
        return counted(__libc_calloc(nmemb, size));
    return place_alloc(bytes, 0, PLACE_CALLOC, CALLER);
}

/* The aligned shapes: the engine when size is in a window, else glibc's memalign. */
static inline void *aligned(size_t align, size_t size, uintptr_t ra)
{
    if (__builtin_expect(!place_in_window(size), 1))
        return __libc_memalign(align, size);
    if (!place_in_rules(size))
        return counted(__libc_memalign(align, size));
    return place_alloc(size, align, PLACE_ALIGNED, ra);
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
    if (whole < size || __builtin_expect(!place_in_window(whole), 1))
        return __libc_pvalloc(size);
    if (!place_in_rules(whole))
        return counted(__libc_pvalloc(size));
    return place_alloc(whole, page, PLACE_ALIGNED, CALLER);
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
