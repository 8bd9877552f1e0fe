#include "fmt.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <string.h>
#include <unistd.h>

static void put(struct place_buf *b, const char *s, size_t n)
{
    if (b->cap == 0)
        return;
    size_t room = b->cap - 1 - b->len;
    if (n > room)
        n = room;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void put_padded(struct place_buf *b, const char *s, size_t n, int width, int left, int zeros)
{
    static const char blanks[] = "                                ";
    static const char noughts[] = "00000000000000000000000000000000";
    const char *spaces = zeros ? noughts : blanks;
    size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    if (!left)
        for (size_t k = pad; k > 0;) {
            size_t m = k < sizeof blanks - 1 ? k : sizeof blanks - 1;
            put(b, spaces, m);
            k -= m;
        }
    put(b, s, n);
    if (left)
        for (size_t k = pad; k > 0;) {
            size_t m = k < sizeof blanks - 1 ? k : sizeof blanks - 1;
            put(b, spaces, m);
            k -= m;
        }
}

/* Digits of v, most significant first, into the end of out; returns where they start. */
static char *digits(char *end, unsigned long long v)
{
    char *p = end;
    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return p;
}

void place_vbprintf(struct place_buf *b, const char *fmt, va_list ap)
{
    while (*fmt) {
        const char *pct = strchr(fmt, '%');
        if (!pct) {
            put(b, fmt, strlen(fmt));
            return;
        }
        put(b, fmt, (size_t)(pct - fmt));
        fmt = pct + 1;

        int left = 0, zeros = 0, width = 0, precision = -1, longs = 0, size_t_arg = 0;
        if (*fmt == '-') {
            left = 1;
            fmt++;
        } else if (*fmt == '0') {
            zeros = 1;
            fmt++;
        }
        while (*fmt >= '0' && *fmt <= '9')
            width = width * 10 + (*fmt++ - '0');
        if (*fmt == '.') {
            fmt++;
            precision = 0;
            if (*fmt == '*') {
                precision = va_arg(ap, int);
                fmt++;
            }
            while (*fmt >= '0' && *fmt <= '9')
                precision = precision * 10 + (*fmt++ - '0');
        }
        while (*fmt == 'l') {
            longs++;
            fmt++;
        }
        if (*fmt == 'z') {
            size_t_arg = 1;
            fmt++;
        }

        char num[24], *end = num + sizeof num;
        char c = *fmt ? *fmt++ : '\0';
        switch (c) {
        case 's': {
            const char *s = va_arg(ap, const char *);
            if (!s)
                s = "(null)";
            size_t n = precision >= 0 ? strnlen(s, (size_t)precision) : strlen(s);
            put_padded(b, s, n, width, left, 0);
            break;
        }
        case 'c': {
            char ch = (char)va_arg(ap, int);
            put_padded(b, &ch, 1, width, left, 0);
            break;
        }
        case 'd': {
            long long v = size_t_arg ? (long long)va_arg(ap, ssize_t)
                          : longs    ? (longs > 1 ? va_arg(ap, long long) : va_arg(ap, long))
                                     : va_arg(ap, int);
            unsigned long long mag = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
            char *p = digits(end, mag);
            if (v < 0)
                *--p = '-';
            put_padded(b, p, (size_t)(end - p), width, left, zeros);
            break;
        }
        case 'u': {
            unsigned long long v =
                size_t_arg ? va_arg(ap, size_t)
                : longs ? (longs > 1 ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned long))
                        : va_arg(ap, unsigned);
            char *p = digits(end, v);
            put_padded(b, p, (size_t)(end - p), width, left, zeros);
            break;
        }
        case '%':
            put(b, "%", 1);
            break;
        default: /* not in the subset: show it rather than guess at the arguments */
            put(b, "%?", 2);
            return;
        }
    }
}

void place_bprintf(struct place_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    place_vbprintf(b, fmt, ap);
    va_end(ap);
}

const char *place_size_str(char out[PLACE_SIZE_STR], int64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    struct place_buf b = {.s = out, .len = 0, .cap = PLACE_SIZE_STR};
    unsigned long long mag =
        bytes < 0 ? 0ULL - (unsigned long long)bytes : (unsigned long long)bytes;
    const char *sign = bytes < 0 ? "-" : "";
    if (mag < 1024) {
        place_bprintf(&b, "%s%llu B", sign, mag);
        return out;
    }
    unsigned u = 0;
    unsigned long long whole = mag;
    while (whole >= 1024 * 1024 && u < 5) {
        whole >>= 10;
        u++;
    }
    /* whole is now in [1024, 1024^2) of unit u: print it in unit u+1 with one decimal */
    unsigned long long tenths = (whole * 10 + 512) / 1024;
    place_bprintf(&b, "%s%llu.%llu %s", sign, tenths / 10, tenths % 10, units[u + 1]);
    return out;
}

int place_write_all(int fd, const char *s, size_t len)
{
    int saved = errno, rc = 0;
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = -1;
            break;
        }
        s += n;
        len -= (size_t)n;
    }
    errno = saved;
    return rc;
}

int place_stderr_fd = 2;

void place_keep_stderr(void)
{
    int saved = errno;
    struct rlimit lim;
    rlim_t low = 1000; /* far above what programs open, low enough to keep the fd table small */
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur <= low)
        low = lim.rlim_cur * 3 / 4;
    int fd = fcntl(2, F_DUPFD_CLOEXEC, (int)low);
    if (fd >= 0)
        place_stderr_fd = fd;
    errno = saved;
}

static void vline(int fd, const char *fmt, va_list ap)
{
    char text[1024];
    struct place_buf b = PLACE_BUF(text);
    place_bprintf(&b, "libplace: ");
    place_vbprintf(&b, fmt, ap);
    if (b.len == b.cap - 1) /* cut: keep the line a line */
        b.len--;
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
    vline(place_stderr_fd, fmt, ap);
    va_end(ap);
}
