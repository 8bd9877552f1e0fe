#include "glob.h"

#include <stddef.h>

/* The next character of a bracket expression, an escape taken. */
static unsigned char take(const char **p)
{
    if (**p == '\\' && (*p)[1])
        (*p)++;
    return (unsigned char)*(*p)++;
}

/* The bracket expression at *g (past its '['): whether c is in it, *g past its ']'. A
 * bracket that never closes is no expression: *closed is false and *g untouched. */
static bool bracket(const char **g, unsigned char c, bool *closed)
{
    const char *p = *g;
    bool negate = *p == '!' || *p == '^', in = false;
    if (negate)
        p++;
    for (bool first = true; *p && (first || *p != ']'); first = false) {
        unsigned char lo = take(&p), hi = lo;
        if (*p == '-' && p[1] && p[1] != ']') {
            p++;
            hi = take(&p);
        }
        in |= lo <= c && c <= hi;
    }
    *closed = *p == ']';
    if (*closed)
        *g = p + 1;
    return in != negate;
}

/* Left to right; at a mismatch, the last '*' takes one more character and the rest is
 * tried again from there (linear in practice, never recursive). */
bool place_glob_match(const char *g, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s) {
        const char *next = g + 1;
        bool step;
        if (*g == '*') {
            star = ++g;
            resume = s;
            continue;
        } else if (*g == '?') {
            step = true;
        } else if (*g == '[') {
            bool closed;
            const char *b = g + 1;
            step = bracket(&b, (unsigned char)*s, &closed);
            if (closed)
                next = b;
            else
                step = *s == '[';
        } else if (*g == '\\') { /* a trailing one matches nothing, as in fnmatch */
            step = g[1] && g[1] == *s;
            next = g + 2;
        } else {
            step = *g && *g == *s;
        }
        if (step) {
            g = next;
            s++;
        } else if (star) {
            g = star;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*g == '*')
        g++;
    return !*g;
}
