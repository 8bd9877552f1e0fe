#include "out.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"

/* A close-on-exec copy of fd on one of the highest descriptors: the lowest free from
 * `room` below the limit (or below 4096, when the limit is higher), or -1 when there is
 * none free or the limit leaves no room to spare (under 64). */
static int fd_high(int fd, int room);

static struct {
    int fd;
    bool known; /* dev and ino were recorded: check them before each write */
    dev_t dev;
    ino_t ino;
} err = {.fd = 2};

void place_use_stderr(int fd)
{
    struct stat st;
    err.fd = fd;
    err.known = fd >= 0 && fstat(fd, &st) == 0;
    if (err.known) {
        err.dev = st.st_dev;
        err.ino = st.st_ino;
    }
}

void place_keep_stderr(void)
{
    int saved = errno;
    if (fcntl(2, F_GETFD) < 0) {
        place_use_stderr(-1);
        errno = saved;
        return;
    }
    /* With a tight limit there is no room to spare, and fd 2 itself is used (and
     * checked). */
    int fd = fd_high(2, 1);
    place_use_stderr(fd >= 0 ? fd : 2);
    errno = saved;
}

int place_fd_move_high(int fd, bool cloexec)
{
    int saved = errno, high = fd_high(fd, 16);
    if (high >= 0) {
        if (!cloexec)
            fcntl(high, F_SETFD, 0);
        close(fd);
        fd = high;
    }
    errno = saved;
    return fd;
}

/* The highest descriptors the limit allows, up to 4095: as far as can be from the
 * numbers programs choose for themselves (bash, for one, treats an open close-on-exec
 * descriptor it is told to redirect as its own and restores it), and no higher, so that
 * the kernel's descriptor table stays small. */
static int fd_high(int fd, int room)
{
    struct rlimit lim;
    rlim_t top = 4096;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < top)
        top = lim.rlim_cur;
    return top >= 64 ? fcntl(fd, F_DUPFD_CLOEXEC, (int)top - room) : -1;
}

static bool is_stderr(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_dev == err.dev && st.st_ino == err.ino;
}

int place_stderr(void)
{
    if (err.fd < 0 || !err.known)
        return err.fd;
    if (is_stderr(err.fd))
        return err.fd;
    /* the program put something else on the copy's number: fd 2 may still be it */
    return is_stderr(2) ? 2 : -1;
}

int place_write_all(int fd, const char *s, size_t len)
{
    if (fd < 0)
        return -1;
    int saved = errno, rc = 0;
    sigset_t block, old, before, after;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    sigaddset(&block, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    sigpending(&before);
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        /* a non-blocking stderr that is full: wait for room, a second at most */
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
            poll(&(struct pollfd){.fd = fd, .events = POLLOUT}, 1, 1000) > 0)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        s += n;
        len -= (size_t)n;
    }
    /* a signal this write raised is consumed before the mask comes back */
    sigpending(&after);
    static const int raised[] = {SIGPIPE, SIGXFSZ};
    for (size_t k = 0; k < sizeof raised / sizeof raised[0]; k++)
        if (sigismember(&after, raised[k]) && !sigismember(&before, raised[k])) {
            sigset_t one;
            sigemptyset(&one);
            sigaddset(&one, raised[k]);
            sigtimedwait(&one, NULL, &(struct timespec){0, 0});
        }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return rc;
}

static void vline(int fd, const char *fmt, va_list ap)
{
    char text[1024];
    /* one byte kept back for the newline, so that a cut line is still a line */
    struct place_buf b = {.s = text, .cap = sizeof text - 1};
    place_bprintf(&b, "libplace: ");
    place_vbprintf(&b, fmt, ap);
    b.cap = sizeof text;
    place_bprintf(&b, "\n");
    place_write_all(fd, b.s, b.len);
}

void place_line(int fd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fd, fmt, ap);
    va_end(ap);
}

void place_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(place_stderr(), fmt, ap);
    va_end(ap);
}
