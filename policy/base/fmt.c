#include "fmt.h"

#include <string.h>
#include <sys/types.h>

static void put(struct place_buf *b, const char *s, size_t n)
{
    if (b->cap == 0) {
        b->cut = true;
        return;
    }
    size_t room = b->cap - 1 - b->len;
    if (n > room) {
        n = room;
        b->cut = true;
    }
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
static char *digits(char *end, unsigned long long v, unsigned base)
{
    char *p = end;
    do
        *--p = "0123456789abcdef"[v % base];
    while ((v /= base) != 0);
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
            char *p = digits(end, mag, 10);
            if (v < 0 && zeros) { /* the sign goes before the zeros */
                put(b, "-", 1);
                width = width > 0 ? width - 1 : 0;
            } else if (v < 0) {
                *--p = '-';
            }
            put_padded(b, p, (size_t)(end - p), width, left, zeros);
            break;
        }
        case 'u':
        case 'x': {
            unsigned long long v =
                size_t_arg ? va_arg(ap, size_t)
                : longs ? (longs > 1 ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned long))
                        : va_arg(ap, unsigned);
            char *p = digits(end, v, c == 'x' ? 16 : 10);
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
    struct place_buf b = {.s = out, .cap = PLACE_SIZE_STR};
    unsigned long long mag =
        bytes < 0 ? 0ULL - (unsigned long long)bytes : (unsigned long long)bytes;
    const char *sign = bytes < 0 ? "-" : "";
    if (mag < 1024) {
        place_bprintf(&b, "%s%llu B", sign, mag);
        return out;
    }
    /* the unit whose range [unit, 1024 * unit) holds mag; rounded from mag itself */
    unsigned u = 1;
    unsigned __int128 unit = 1024;
    while (u < 6 && mag >= unit * 1024) {
        unit *= 1024;
        u++;
    }
    unsigned long long tenths =
        (unsigned long long)((mag * (unsigned __int128)10 + unit / 2) / unit);
    if (tenths >= 10240 && u < 6) { /* rounds up to 1024.0: that is 1.0 of the next unit */
        tenths = 10;
        u++;
    }
    place_bprintf(&b, "%s%llu.%llu %s", sign, tenths / 10, tenths % 10, units[u]);
    return out;
}

const char *place_errno_name(int e)
{
    return strerrorname_np(e) ? strerrorname_np(e) : "unknown error";
}
