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
#include "../policy/engine/sampler.h"
#include "../policy/stats/threads.h"
#include "export.h"

#define CALLER ((uintptr_t)__builtin_return_address(0))

/* A size through the gate that no rule's window holds is glibc's, counted. The common
 * case is a count and a tail call (place_count_call); the rest, out of line so that the
 * common case saves no register, is glibc's answer counted, where a sample may be
 * taken. */
#define COUNTED(name, params, call, size)                                                          \
    __attribute__((noinline)) static void *name params                                             \
    {                                                                                              \
        void *p = call;                                                                            \
        place_count_glibc(p, size, ra);                                                            \
        return p;                                                                                  \
    }
COUNTED(malloc_counted, (size_t size, uintptr_t ra), __libc_malloc(size), size)
COUNTED(calloc_counted, (size_t nmemb, size_t size, uintptr_t ra), __libc_calloc(nmemb, size),
        nmemb * size)
COUNTED(memalign_counted, (size_t align, size_t size, uintptr_t ra), __libc_memalign(align, size),
        size)

PLACE_EXPORT void *malloc(size_t size)
{
    if (__builtin_expect(!place_in_window(size), 1))
        return __libc_malloc(size);
    if (!place_in_rules(size))
        return __builtin_expect(place_count_call(size), 1)
                   ? __libc_malloc(size)
                   : malloc_counted(size, CALLER);
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
        return __builtin_expect(place_count_call(bytes), 1)
                   ? __libc_calloc(nmemb, size)
                   : calloc_counted(nmemb, size, CALLER);
    return place_alloc(bytes, 0, PLACE_CALLOC, CALLER);
}

/* The aligned shapes: the engine when size is in a window, else glibc's memalign. */
static inline void *aligned(size_t align, size_t size, uintptr_t ra)
{
    if (__builtin_expect(!place_in_window(size), 1))
        return __libc_memalign(align, size);
    if (!place_in_rules(size))
        return __builtin_expect(place_count_call(size), 1)
                   ? __libc_memalign(align, size)
                   : memalign_counted(align, size, ra);
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
        return __builtin_expect(place_count_call(whole), 1)
                   ? __libc_pvalloc(size)
                   : memalign_counted(page, whole, CALLER);
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
