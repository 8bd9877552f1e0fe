/* libplace's own output: where its lines go, and writes that cannot harm the program.
 *
 * Every line libplace prints starts with "libplace: ". Writing never allocates, never
 * touches the program's stdio, never changes errno, and never lets a signal the write
 * raised (SIGPIPE on a closed pipe, SIGXFSZ past a file size limit) reach the program. */
#ifndef PLACE_OUT_H
#define PLACE_OUT_H

#include <stdbool.h>
#include <stddef.h>

/* Keeps a close-on-exec copy of fd 2 on the highest descriptor allowed (at most 4095)
 * for the report: many programs close stderr before libplace's destructor runs (every
 * GNU coreutil does, in close_stdout), and a high number leaves the descriptors the
 * program gets from open() as they would be without libplace. The copy's identity (device and
 * inode) is recorded: if the program has since put something else on that number, libplace writes
 * to fd 2 if that is still the same stderr, and otherwise nowhere. If fd 2 is closed at start,
 * libplace's stderr is nowhere. */
void place_keep_stderr(void);

/* A descriptor libplace keeps for itself (a pipe, a memfd) moved among the 16 highest,
 * close-on-exec only if asked, the low one closed: the program's open() calls get the
 * numbers they would get without libplace. Returns the descriptor to use (fd itself
 * when there is no room); errno is kept. */
int place_fd_move_high(int fd, bool cloexec);

/* Makes fd libplace's stderr, recording its identity (the tests use this). */
void place_use_stderr(int fd);

/* libplace's stderr as it stands now: its fd, or -1 when there is none to write to. */
int place_stderr(void);

/* Writes all of it, retrying on EINTR and short writes. Returns 0 or -1. */
int place_write_all(int fd, const char *s, size_t len);

/* One line on fd, prefixed "libplace: ", newline added; cut at 1 KiB. */
void place_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One line on libplace's stderr, as place_line. */
void place_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
