#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int place_process_threads(void)
{
    char buf[1024];
    int saved = errno;
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    errno = saved;
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* after the command's closing parenthesis (the name may hold any character) come
     * field 3, the state, ..., and field 20, the number of threads */
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 20; field++)
        p = strchr(p + 1, ' ');
    int threads = 0;
    for (p = p ? p + 1 : NULL; p && *p >= '0' && *p <= '9'; p++)
        threads = threads * 10 + (*p - '0');
    return threads;
}
