/* The resident set in KiB (-1: unknown), read with no allocation (no stdio): under a
 * report, an allocation could be the profile's sample, whose first capture touches
 * libplace's tables while a program measures. */
#ifndef PROGS_RSS_H
#define PROGS_RSS_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long rss_kib(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    const char *line = strstr(buf, "\nVmRSS:");
    return line ? atol(line + 7) : -1;
}

#endif
