/* Invariants checked at run time, in the builds made to find bugs: a debug build (no
 * NDEBUG) and one configured with -Dasserts=true (the UBSan build CI runs). A release
 * build compiles them out: the condition is not evaluated and no instruction is left.
 *
 * An assertion runs inside malloc and free, with a lock held, and in signal handlers:
 * a failure says so without allocating or touching stdio (base/out.h formats into a
 * buffer on the stack and writes it), then aborts. */
#ifndef PLACE_ASSERT_H
#define PLACE_ASSERT_H

#if !defined(PLACE_ASSERTS) && !defined(NDEBUG)
#define PLACE_ASSERTS 1
#endif

#ifdef PLACE_ASSERTS
#include <stdlib.h>

#include "out.h"

/* Cold, out of the hot paths: a check costs them a compare and a branch. */
__attribute__((cold, noreturn, unused)) static void
place_assert_fail(const char *expr, const char *file, int line)
{
    place_warn("assertion failed: %s at %s:%d", expr, file, line);
    abort();
}

#define PLACE_ASSERT(cond)                                                                         \
    (__builtin_expect(!!(cond), 1) ? (void)0 : place_assert_fail(#cond, __FILE__, __LINE__))
#else
/* sizeof: the names the condition reads count as used, and nothing is evaluated */
#define PLACE_ASSERT(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

#endif
