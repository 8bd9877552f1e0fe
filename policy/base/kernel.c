#include "kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "fmt.h"

size_t place_kernel_text(const char *path, char *text, size_t cap)
{
    int saved = errno;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t got = fd < 0 ? -1 : read(fd, text, cap - 1);
    if (fd >= 0)
        close(fd);
    errno = saved;
    text[got > 0 ? got : 0] = '\0';
    return got > 0 ? (size_t)got : 0;
}

uint64_t place_digits(const char **p)
{
    uint64_t v = 0;
    for (; **p >= '0' && **p <= '9'; (*p)++)
        v = v * 10 + (uint64_t)(**p - '0');
    return v;
}

uint64_t place_process_stat(pid_t pid, int field)
{
    char path[40] = "/proc/self/stat", buf[1024];
    struct place_buf b = PLACE_BUF(path);
    if (pid)
        place_bprintf(&b, "/proc/%d/stat", (int)pid);
    if (!place_kernel_text(path, buf, sizeof buf))
        return 0;
    /* after the command's closing parenthesis (the name may hold any character) come
     * field 3, the state, and the rest, one blank apart */
    const char *p = strrchr(buf, ')');
    for (int k = 2; p && k < field; k++)
        p = strchr(p + 1, ' ');
    if (!p)
        return 0;
    p++;
    return place_digits(&p);
}

int place_process_threads(void)
{
    return (int)place_process_stat(0, 20);
}

bool place_kernel_ram(size_t *total, size_t *avail)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0 || !si.totalram)
        return false;
    *total = (size_t)si.totalram * si.mem_unit;
    *avail = (size_t)si.freeram * si.mem_unit;
    return true;
}
