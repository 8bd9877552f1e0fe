/* realloc and reallocarray. */
#include <errno.h>
#include <stdlib.h>

#include "../policy/engine/whose.h"
#include "export.h"

/* realloc, for a request from the code at ra. */
static inline void *resize(void *p, size_t size, uintptr_t ra)
{
    if (p) {
        bool planned;
        struct place_tier *t = place_whose(p, &planned);
        if (__builtin_expect(t != NULL, 0))
            return place_realloc_placed(p, t, place_whose_usable(p, t, planned), size, ra);
    }
    /* a size in a window is the policy's: it may move the block to another tier */
    if (__builtin_expect(place_in_window(size), 0) && (size || !p))
        return p ? place_realloc(p, size, ra) : place_alloc(size, PLACE_MALLOC, ra);
    return place_realloc_glibc(p, size, ra);
}

PLACE_EXPORT void *realloc(void *p, size_t size)
{
    return resize(p, size, (uintptr_t)__builtin_return_address(0));
}

/* glibc's own name for it (shim/alloc.c says why). */
PLACE_EXPORT void *__libc_realloc(void *p, size_t size) __attribute__((alias("realloc"), copy(realloc)));

/* glibc's is GLIBC_PRIVATE (__libc_reallocarray), so the same check is made here:
 * overflow is ENOMEM and leaves p untouched. */
PLACE_EXPORT void *reallocarray(void *p, size_t nmemb, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(nmemb, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return resize(p, bytes, (uintptr_t)__builtin_return_address(0));
}
