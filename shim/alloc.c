/* malloc, calloc and the aligned family.
 *
 * No rule places anything yet, so every call is glibc's: a tail call when nobody asked
 * for counts, otherwise counted against the dram tier on the way out. Failures are
 * glibc's too: errno is whatever glibc set (ENOMEM), and on success nothing here touches
 * it. */
#include <errno.h>
#include <stdlib.h>

#include "export.h"
#include "glibc.h"
#include "thread.h"

static inline void *counted(void *p)
{
    if (__builtin_expect(p != NULL, 1))
        place_count(1, 0, (int64_t)place_glibc_usable(p));
    return p;
}

/* Returns glibc's answer to call: a tail call when nothing is counted, counted on the way
 * out otherwise. */
#define SERVE(call)                                                                                \
    do {                                                                                           \
        if (!place_counting)                                                                       \
            return call;                                                                           \
        return counted(call);                                                                      \
    } while (0)

PLACE_EXPORT void *malloc(size_t size)
{
    SERVE(__libc_malloc(size));
}

/* glibc checks nmemb * size for overflow (ENOMEM) and skips clearing fresh mmapped memory. */
PLACE_EXPORT void *calloc(size_t nmemb, size_t size)
{
    SERVE(__libc_calloc(nmemb, size));
}

PLACE_EXPORT void *memalign(size_t align, size_t size)
{
    SERVE(__libc_memalign(align, size));
}

/* In glibc 2.36 (Debian 12) aligned_alloc is an alias of memalign: any alignment is
 * accepted and rounded up to a power of two. glibc 2.38 made it reject non-powers of two
 * with EINVAL; libplace follows the glibc it runs on here. */
PLACE_EXPORT void *aligned_alloc(size_t align, size_t size)
{
    SERVE(__libc_memalign(align, size));
}

PLACE_EXPORT void *valloc(size_t size)
{
    SERVE(__libc_valloc(size));
}

PLACE_EXPORT void *pvalloc(size_t size)
{
    SERVE(__libc_pvalloc(size));
}

/* glibc's own check: a power of two and a multiple of sizeof(void *), or EINVAL. The
 * error is returned, not set in errno; glibc's memalign does set errno to ENOMEM when it
 * fails, and so does this. */
PLACE_EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
    if (align == 0 || align % sizeof(void *) != 0 || (align & (align - 1)) != 0)
        return EINVAL;
    void *p = __libc_memalign(align, size);
    if (!p)
        return ENOMEM;
    *out = place_counting ? counted(p) : p;
    return 0;
}
