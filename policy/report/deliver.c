/* Where a report goes: stderr, or a file created anew from the path template (never
 * clobbering one), at exit, on a signal or on demand; one report at a time. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/options.h"
#include "../base/fmt.h"
#include "../base/glibc.h"
#include "../base/large.h"
#include "../base/lib.h"
#include "../base/out.h"
#include "../base/path.h"
#include "walk.h"

/* The reason a report file could not be created, without strerror (which may load a
 * message catalogue, and so allocate). */
static const char *why(int err)
{
    switch (err) {
    case EEXIST:
        return "the file exists and libplace never overwrites one";
    case ENOENT:
        return "its directory does not exist";
    case ENOTDIR:
        return "a part of the path is not a directory";
    case EACCES:
    case EPERM:
        return "permission denied";
    case ELOOP:
        return "the path has too many symbolic links";
    case EROFS:
        return "the file system is read-only";
    case ENOSPC:
        return "the disk is full";
    case ENAMETOOLONG:
        return "the path is too long";
    default:
        return place_errno_name(err);
    }
}

/* One report at a time: the gathered figures are one static table. A report from a
 * signal handler skips when another is being written (it may have interrupted that very
 * one); any other waits its turn. `writing` tells a fatal signal's report whether it
 * interrupted its own thread's report (a thread's own flag: a shared "who writes" would
 * still name a thread that had finished when the next one took the turn). */
static _Atomic bool busy;
static __thread bool writing __attribute__((tls_model("initial-exec")));

enum turn {
    WAIT,        /* at exit, or asked for by the program */
    SKIP,        /* the report signal's: it may have interrupted the report under way */
    UNLESS_MINE, /* a fatal signal's: waits for another thread's report, not its own */
};

static bool take_turn(enum turn how)
{
    while (atomic_exchange(&busy, true)) {
        if (how == SKIP || (how == UNLESS_MINE && writing))
            return false;
        sched_yield();
    }
    writing = true;
    return true;
}

static void give_turn(void)
{
    writing = false;
    atomic_store(&busy, false);
}

static void report(int fd, int signal)
{
    static struct place_gathered g PLACE_LARGE;
    if (!signal)
        place_libs_explain();
    place_gather(&g, signal);
    place_report_walk(fd, place_config.report_format, &g);
}

/* A report asked for while the program runs (a signal, place_report_now) goes to a file
 * of its own: the path with .N appended (N counts them), so that neither it nor the exit
 * report clobbers the other. */
static void write_to(const char *dest, int signal, bool numbered);

void place_report_postfork_child(void)
{
    give_turn();
}

static void report_to(const char *dest, int signal, bool numbered)
{
    if (!take_turn(signal ? SKIP : WAIT))
        return;
    write_to(dest, signal, numbered);
    give_turn();
}

/* A character device the report path names, opened for the report: /dev/null discards
 * it, a terminal shows it; never numbered. Not blocking on open (a serial line), and
 * still a device once open. -1 when it cannot be written to (said). */
static int open_device(const char *path)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode))) {
        close(fd);
        fd = -1;
        errno = EINVAL;
    }
    if (fd < 0) {
        place_warn("cannot write report %s: %s; the report follows on stderr", path, why(errno));
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

/* The descriptor a report to dest goes to: stderr, a device, or a file created anew
 * (numbered: with .N appended); *own when it is the caller's to close. Any trouble is
 * said, and the report then follows on stderr. */
static int open_report(const char *dest, bool numbered, bool *own)
{
    char path[PATH_MAX];
    struct stat st;
    *own = false;
    if (strcmp(dest, "stderr") == 0)
        return place_stderr();
    if (place_report_path(dest, path, sizeof path) != 0) {
        place_warn(
            "report path '%s' does not expand to a usable path; the report follows on stderr",
            dest);
        return place_stderr();
    }
    int fd;
    if (lstat(path, &st) == 0 && S_ISCHR(st.st_mode)) {
        fd = open_device(path);
    } else {
        if (numbered) {
            static _Atomic unsigned seq;
            struct place_buf b = {.s = path, .len = strlen(path), .cap = sizeof path};
            place_bprintf(&b, ".%u", atomic_fetch_add(&seq, 1) + 1);
        }
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0) {
            bool exists = errno == EEXIST && lstat(path, &st) == 0;
            const char *reason =
                exists && S_ISLNK(st.st_mode)
                    ? "it is a symbolic link, which libplace does not follow"
                : exists && S_ISDIR(st.st_mode)
                    ? "it is a directory (a report path names a file: DIR/report-%p.txt, say)"
                    : why(errno);
            place_warn("cannot create report %s: %s; the report follows on stderr", path, reason);
        }
    }
    *own = fd >= 0;
    return fd >= 0 ? fd : place_stderr();
}

static void write_to(const char *dest, int signal, bool numbered)
{
    int saved = errno;
    bool own;
    int fd = open_report(dest, numbered, &own);
    report(fd, signal);
    if (own)
        close(fd);
    errno = saved;
}

void place_report_to(const char *dest)
{
    report_to(dest, 0, false);
}

void place_report_numbered(const char *dest)
{
    report_to(dest, 0, true);
}

/* Writing from a signal handler: nothing in the report allocates through the shim or
 * touches stdio, and the module table is only tried (a thread the signal interrupted may
 * hold it; then sites are shown as addresses). */
static void on_signal(int sig)
{
    int saved = errno; /* the interrupted code's */
    if (place_options.report)
        report_to(place_options.report, sig, true);
    errno = saved;
}

/* The last report: it waits for another thread's report to be written (the process
 * ends anyway), never for one of its own thread's, and keeps the turn, so that nothing
 * reports after it. */
void place_report_fatal(int sig)
{
    if (!place_options.report)
        return;
    if (take_turn(UNLESS_MINE))
        write_to(place_options.report, sig, false);
}

void place_report_on_signal(int sig)
{
    static int installed;
    static struct sigaction before;
    if (!sig) {
        if (installed)
            __sigaction(installed, &before, NULL);
        installed = 0;
        return;
    }
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    if (__sigaction(sig, &sa, &before) == 0)
        installed = sig;
}
