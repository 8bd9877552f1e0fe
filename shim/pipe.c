/* pipe and pipe2, interposed: a pipe opened inside libplace (the guard up) is libplace's
 * own, or a library's it calls into; libunwind opens one when it starts, to check
 * addresses. Such a pipe is moved to high descriptors, so that the program's own open()
 * calls get the numbers they would get without libplace. Every other pipe is the
 * kernel's answer, untouched. */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../policy/base/guard.h"
#include "../policy/base/out.h"
#include "export.h"

/* The system call itself: glibc's wrapper is one, and libplace's own pipe must not
 * depend on which library the symbol resolves to. */
PLACE_EXPORT int pipe2(int fds[2], int flags)
{
    int rc = (int)syscall(SYS_pipe2, fds, flags);
    if (rc == 0 && place_guarded())
        for (int k = 0; k < 2; k++)
            fds[k] = place_fd_move_high(fds[k], flags & O_CLOEXEC);
    return rc;
}

PLACE_EXPORT int pipe(int fds[2])
{
    return pipe2(fds, 0);
}
