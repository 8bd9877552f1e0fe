#include "json.h"

#include <string.h>

#include "fmt.h"
#include "out.h"

static void flush(struct place_json *j)
{
    place_write_all(j->fd, j->buf, j->len);
    j->len = 0;
}

static void put(struct place_json *j, const char *s, size_t n)
{
    while (n) {
        if (j->len == sizeof j->buf)
            flush(j);
        size_t k = sizeof j->buf - j->len < n ? sizeof j->buf - j->len : n;
        memcpy(j->buf + j->len, s, k);
        j->len += (unsigned)k, s += k, n -= k;
    }
}

/* The length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8(const unsigned char *s)
{
    size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || s[0] > 0xf4)
        return 0;
    for (size_t k = 1; k < n; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    /* overlong three- and four-byte forms, surrogates, past U+10FFFF */
    if ((n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) ||
        (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))))
        return 0;
    return n;
}

/* Names from the system (the program, paths, the host) need not be UTF-8, which JSON
 * requires: a byte that starts no valid sequence becomes U+FFFD. */
static void quoted(struct place_json *j, const char *s)
{
    put(j, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x80) {
            size_t n = utf8((const unsigned char *)s);
            if (n)
                put(j, s, n), s += n - 1;
            else
                put(j, "\\ufffd", 6);
            continue;
        }
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(j, e, 2);
        } else if (c < 0x20) {
            char e[8];
            struct place_buf b = PLACE_BUF(e);
            place_bprintf(&b, "\\u%04x", c);
            put(j, e, b.len);
        } else {
            put(j, (const char *)&c, 1);
        }
    }
    put(j, "\"", 1);
}

/* The comma and the key before a value. */
static void lead(struct place_json *j, const char *key)
{
    if (j->depth && j->more[j->depth - 1])
        put(j, ",", 1);
    if (j->depth)
        j->more[j->depth - 1] = true;
    if (key) {
        quoted(j, key);
        put(j, ":", 1);
    }
}

void place_json_open(struct place_json *j, const char *key, char bracket)
{
    lead(j, key);
    put(j, &bracket, 1);
    if (j->depth < PLACE_JSON_DEPTH)
        j->more[j->depth++] = false;
}

void place_json_close(struct place_json *j, char bracket)
{
    put(j, &bracket, 1);
    if (j->depth)
        j->depth--;
}

void place_json_str(struct place_json *j, const char *key, const char *s)
{
    lead(j, key);
    if (s)
        quoted(j, s);
    else
        put(j, "null", 4);
}

static void number(struct place_json *j, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void number(struct place_json *j, const char *key, const char *fmt, ...)
{
    char s[32];
    struct place_buf b = PLACE_BUF(s);
    va_list ap;
    va_start(ap, fmt);
    place_vbprintf(&b, fmt, ap);
    va_end(ap);
    lead(j, key);
    put(j, s, b.len);
}

void place_json_int(struct place_json *j, const char *key, int64_t n)
{
    number(j, key, "%lld", (long long)n);
}

void place_json_uint(struct place_json *j, const char *key, uint64_t n)
{
    number(j, key, "%llu", (unsigned long long)n);
}

void place_json_bool(struct place_json *j, const char *key, bool b)
{
    lead(j, key);
    put(j, b ? "true" : "false", b ? 4 : 5);
}

void place_json_milli(struct place_json *j, const char *key, uint64_t thousandths)
{
    number(j, key, "%llu.%03llu", (unsigned long long)(thousandths / 1000),
           (unsigned long long)(thousandths % 1000));
}

void place_json_finish(struct place_json *j)
{
    put(j, "\n", 1);
    flush(j);
}
