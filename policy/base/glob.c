#include "glob.h"

#include <stddef.h>
#include <string.h>

/* The next character of a bracket expression, an escape taken. */
static unsigned char take(const char **p)
{
    if (**p == '\\' && (*p)[1])
        (*p)++;
    return (unsigned char)*(*p)++;
}

/* The bracket expression at p (past its '['): where it ends, past its ']', or NULL when
 * it never closes (then it is no expression, and its '[' a plain character). */
static const char *bracket_end(const char *p)
{
    if (*p == '!' || *p == '^')
        p++;
    for (bool first = true; *p && (first || *p != ']'); first = false)
        take(&p);
    return *p == ']' ? p + 1 : NULL;
}

/* Whether c is in the bracket expression from p (past its '[') to end. */
static bool in_bracket(const char *p, const char *end, unsigned char c)
{
    const char *close = end - 1;
    bool negate = *p == '!' || *p == '^', in = false;
    if (negate)
        p++;
    while (p < close) {
        unsigned char lo = take(&p), hi = lo;
        if (*p == '-' && p + 1 < close) {
            p++;
            hi = take(&p);
        }
        in |= lo <= c && c <= hi;
    }
    return in != negate;
}

bool place_glob_literal(const char *glob)
{
    return !strpbrk(glob, "*?[\\");
}

bool place_glob_valid(const char *g)
{
    for (; *g; g++) {
        if (*g == '\\' && !*++g)
            return false;
        if (*g == '[') {
            const char *end = bracket_end(g + 1);
            if (!end)
                return false;
            for (const char *c = g + 1; c < end - 1; c++)
                if (c[0] == '[' && (c[1] == '.' || c[1] == '=' || c[1] == ':'))
                    return false;
            g = end - 1;
        }
    }
    return true;
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
            const char *end = bracket_end(g + 1);
            step = end ? in_bracket(g + 1, end, (unsigned char)*s) : *s == '[';
            if (end)
                next = end;
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
