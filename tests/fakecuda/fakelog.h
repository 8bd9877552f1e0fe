/* fakelog.h: what the fake CUDA driver (fakecuda.c) and the fake NVML (fakenvml.c) share,
 * so that both read their environment and write their log alike:
 * - the environment: sizes (decimal bytes, then at most one of K, M, G, T, x1024), the
 *   FAIL list of entry points and the FAKECUDA_LOG file;
 * - the log line: NAME key=value ..., written with one write(2) to the log's O_APPEND
 *   descriptor, so that lines of threads, of forked children and of the two fakes never
 *   interleave. Numbers are decimal or 0x-hex; a string has its blanks and control
 *   characters written as '?'. A line is at most LINE_MAX_ bytes, newline included.
 * Static functions, for each fake to include once. No malloc and no stdio here either: the
 * fakes may be called from within libplace's malloc. */
#ifndef FAKELOG_H
#define FAKELOG_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LINE_MAX_ = 512 };

/* ---- the environment ---- */

/* Decimal bytes, then at most one of K, M, G, T. */
static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return -1;
    const char *units = "KMGT";
    const char *u = *end ? strchr(units, *end & ~0x20) : NULL;
    if (*end && (!u || end[1]))
        return -1;
    for (int i = u ? (int)(u - units) + 1 : 0; i > 0; i--) {
        if (v > (~0ull >> 10))
            return -1;
        v <<= 10;
    }
    *out = v;
    return 0;
}

/* *out: the size in variable 'name', 'dflt' when it is not set. Returns -1, with *out
 * 'dflt', when it is malformed or larger than 'max'. */
static int env_size(const char *name, size_t dflt, size_t max, size_t *out)
{
    const char *s = getenv(name);
    *out = dflt;
    if (s && (parse_size(s, out) || *out > max)) {
        *out = dflt;
        return -1;
    }
    return 0;
}

/* Copies variable 'name' (a FAIL list) into buf. Returns -1, with buf untouched, when it
 * does not fit. */
static int env_list(const char *name, char *buf, size_t size)
{
    const char *s = getenv(name);
    if (s && strlen(s) >= size)
        return -1;
    if (s)
        strcpy(buf, s);
    return 0;
}

/* The FAKECUDA_LOG file, opened for appending; -1 without one. */
static int log_open(void)
{
    const char *s = getenv("FAKECUDA_LOG");
    return s && *s ? open(s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
}

/* Whether a FAIL list (NAME[,NAME...]) names entry point 'name': exactly, or by its base name,
 * what comes before the first '_' (cuMemcpyHtoD_v2_ptds -> cuMemcpyHtoD,
 * nvmlDeviceGetMemoryInfo_v2 -> nvmlDeviceGetMemoryInfo). */
static int listed(const char *list, const char *name)
{
    const char *u = strchr(name, '_');
    size_t full = strlen(name), base = u ? (size_t)(u - name) : full;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n && (n == full || n == base) && !strncmp(p, name, n))
            return 1;
        p += n + (p[n] == ',');
    }
    return 0;
}

/* ---- the log ---- */

struct line {
    int fd; /* the log, -1: none, and nothing is written */
    size_t n;
    char buf[LINE_MAX_];
};

/* Appends at most 'max' bytes of s (it need not be terminated within them); with 'word',
 * what would break a line's fields (blanks, controls) becomes '?'. */
static void append(struct line *l, const char *s, size_t max, int word)
{
    for (; l->fd >= 0 && max && *s && l->n < LINE_MAX_ - 1; s++, max--)
        l->buf[l->n++] = !word || (*s > ' ' && *s < 127) ? *s : '?';
}

static void put(struct line *l, const char *s)
{
    append(l, s, SIZE_MAX, 0);
}

/* Starts a line for log fd with the entry point's name. */
static void line_open(struct line *l, int fd, const char *name)
{
    l->fd = fd;
    l->n = 0;
    put(l, name);
}

static void put_key(struct line *l, const char *key)
{
    put(l, " ");
    put(l, key);
    put(l, "=");
}

static void put_num(struct line *l, const char *key, unsigned long long v, int hex, int neg)
{
    char digits[24], *p = digits + sizeof digits;
    *--p = 0;
    do
        *--p = "0123456789abcdef"[v % (hex ? 16 : 10)];
    while (v /= hex ? 16 : 10);
    if (hex)
        *--p = 'x', *--p = '0';
    if (neg)
        *--p = '-';
    put_key(l, key);
    put(l, p);
}

static void put_u(struct line *l, const char *key, unsigned long long v)
{
    put_num(l, key, v, 0, 0);
}

static void put_i(struct line *l, const char *key, long long v)
{
    put_num(l, key, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, 0, v < 0);
}

/* 0x-hex; unused in fakenvml, which logs no pointers. */
__attribute__((unused)) static void put_p(struct line *l, const char *key, uintptr_t v)
{
    put_num(l, key, v, 1, 0);
}

/* A string, "(null)" for NULL; at most 'max' bytes of it are read. */
static void put_s(struct line *l, const char *key, const char *s, size_t max)
{
    put_key(l, key);
    append(l, s ? s : "(null)", s ? max : SIZE_MAX, 1);
}

/* Ends the line and writes it, when there is a log. */
static void line_write(struct line *l)
{
    if (l->fd >= 0) {
        l->buf[l->n++] = '\n';
        ssize_t w;
        do
            w = write(l->fd, l->buf, l->n);
        while (w < 0 && errno == EINTR);
    }
}

#endif
