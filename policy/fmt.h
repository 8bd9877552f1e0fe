/* Text output that never allocates.
 *
 * libplace writes its warnings and its exit report from inside the allocator and from a
 * destructor that runs after the program's own, so nothing here may call malloc or touch
 * the program's stdio streams: text is formatted into a caller's buffer and leaves with
 * write(2). */
#ifndef PLACE_FMT_H
#define PLACE_FMT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct place_buf {
    char *s;
    size_t len, cap; /* s[len] is always a terminating NUL; text beyond cap-1 is cut */
};

#define PLACE_BUF(array) ((struct place_buf){.s = (array), .len = 0, .cap = sizeof(array)})

/* A printf subset: %s %c %d %u %ld %lu %lld %llu %zu %zd %% with an optional width,
 * '-' for left alignment, '0' to pad numbers with zeros, and a precision for %s (%.*s). Checked by
 * the compiler like printf. */
void place_bprintf(struct place_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void place_vbprintf(struct place_buf *b, const char *fmt, va_list ap);

/* A byte count in binary units, one decimal: "512 B", "12.3 MiB". Returns out. */
enum { PLACE_SIZE_STR = 16 };
const char *place_size_str(char out[PLACE_SIZE_STR], int64_t bytes);

/* Writes all of it, retrying on EINTR and short writes; errno is left as it was. */
int place_write_all(int fd, const char *s, size_t len);

/* Where libplace's own lines go: fd 2 until place_keep_stderr() keeps a copy of it. */
extern int place_stderr_fd;

/* Keeps a close-on-exec copy of fd 2 on a high descriptor for the report: many programs
 * close stderr before libplace's destructor runs (every GNU coreutil does, in
 * close_stdout), and a high number leaves the descriptors the program gets from open()
 * as they would be without libplace. */
void place_keep_stderr(void);

/* One line on fd, prefixed "libplace: ", newline added; cut at 1 KiB. */
void place_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line on libplace's stderr, as place_line. */
void place_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
