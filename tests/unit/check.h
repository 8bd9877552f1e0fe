/* A minimal assertion for the C unit tests: says where and what, counts failures. */
#ifndef PLACE_CHECK_H
#define PLACE_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

/* The case a table's loop is at: its rows share the lines that check them, so a failure
 * names the row. */
static const char *check_case;

static inline void check_failed(const char *file, int line)
{
    check_failures++;
    fprintf(stderr, "%s:%d: ", file, line);
    if (check_case)
        fprintf(stderr, "case '%s': ", check_case);
}

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            check_failed(__FILE__, __LINE__);                                                      \
            fprintf(stderr, "check failed: %s\n", #cond);                                          \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long check_a = (long long)(a), check_b = (long long)(b);                              \
        if (check_a != check_b) {                                                                  \
            check_failed(__FILE__, __LINE__);                                                      \
            fprintf(stderr, "check failed: %s == %s (%lld != %lld)\n", #a, #b, check_a, check_b);  \
        }                                                                                          \
    } while (0)

/* Two strings equal; a failure shows both whole, as they may run to several lines. */
#define CHECK_STR(a, b)                                                                            \
    do {                                                                                           \
        const char *check_s = (a), *check_t = (b);                                                 \
        if (strcmp(check_s, check_t) != 0) {                                                       \
            check_failed(__FILE__, __LINE__);                                                      \
            fprintf(stderr, "check failed: %s == %s\n--- got:\n%s\n--- expected:\n%s\n", #a, #b,   \
                    check_s, check_t);                                                             \
        }                                                                                          \
    } while (0)

#define CHECK_DONE()                                                                               \
    (check_failures ? (fprintf(stderr, "%d check(s) failed\n", check_failures), 1) : 0)

#endif
