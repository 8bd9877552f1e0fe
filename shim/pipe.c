/* pipe and pipe2, interposed: a pipe opened inside libplace (the guard up) is libplace's
 * own, or a library's it calls into; libunwind opens one when it starts, to check
 * addresses. Such a pipe is moved to high descriptors, so that the program's own open()
 * calls get the numbers they would get without libplace. Every other pipe is the
 * kernel's answer, untouched. */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../policy/base/guard.h"
#include "../policy/base/out.h"
#include "export.h"

/* Each end to a high copy when there is room, the low one closed; else left as it is.
 * The copy is close-on-exec only if the pipe was asked to be. */
static void move_high(int fds[2], int flags)
{
    int saved = errno;
    for (int k = 0; k < 2; k++) {
        int high = place_fd_high(fds[k], 16);
        if (high < 0)
            continue;
        if (!(flags & O_CLOEXEC))
            fcntl(high, F_SETFD, 0);
        close(fds[k]);
        fds[k] = high;
    }
    errno = saved;
}

/* The system call itself: glibc's wrapper is one, and libplace's own pipe must not
 * depend on which library the symbol resolves to. */
PLACE_EXPORT int pipe2(int fds[2], int flags)
{
    int rc = (int)syscall(SYS_pipe2, fds, flags);
    if (rc == 0 && place_guarded())
        move_high(fds, flags);
    return rc;
}

PLACE_EXPORT int pipe(int fds[2])
{
    return pipe2(fds, 0);
}
