/* Formatting that never allocates.
 *
 * libplace formats its warnings and its exit report from inside the allocator and from a
 * destructor that runs after the program's own, so nothing here may call malloc or touch
 * the program's stdio streams: text is formatted into a caller's buffer (base/out.h
 * writes it out). */
#ifndef PLACE_FMT_H
#define PLACE_FMT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct place_buf {
    char *s;
    size_t len, cap; /* s[len] is always a terminating NUL; text beyond cap-1 is cut */
    bool cut;        /* some text did not fit */
};

#define PLACE_BUF(array) ((struct place_buf){.s = (array), .cap = sizeof(array)})

/* A printf subset: %s %c %d %u %x %ld %lu %lx %lld %llu %zu %zd %% with an optional width,
 * '-' for left alignment, '0' to pad numbers with zeros, and a precision for %s (%.*s).
 * The compiler checks the arguments' types as for printf; a conversion outside the
 * subset prints "%?" and ends the output. */
void place_bprintf(struct place_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void place_vbprintf(struct place_buf *b, const char *fmt, va_list ap);

/* A byte count in binary units, one decimal: "512 B", "12.3 MiB". Returns out. */
enum { PLACE_SIZE_STR = 16 };
const char *place_size_str(char out[PLACE_SIZE_STR], int64_t bytes);

/* errno e's name (EACCES, ...): not strerror, which may take the locale lock and allocate,
 * where libplace writes from inside the program's malloc or a signal handler. */
const char *place_errno_name(int e);

/* The plural's "s" for n things: "1 call", "2 calls". */
static inline const char *place_plural_s(uint64_t n)
{
    return n == 1 ? "" : "s";
}

#endif
