/* The allocation-free formatter. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../policy/base/fmt.h"
#include "check.h"

int main(void)
{
    char out[128];
    struct place_buf b = PLACE_BUF(out);
    place_bprintf(&b, "%d|%5d|%-5d|%05u|%s|%8s|%-4s|%c|%%", -42, 7, 7, 42u, "x", "right", "l", 'z');
    CHECK(strcmp(out, "-42|    7|7    |00042|x|   right|l   |z|%") == 0);

    b = PLACE_BUF(out);
    place_bprintf(&b, "%zu %zd %lu %ld %llu %lld", (size_t)18446744073709551615ULL, (ssize_t)-1,
                  4000000000UL, -4000000000L, 1ULL << 63, LLONG_MIN);
    CHECK(strcmp(out, "18446744073709551615 -1 4000000000 -4000000000 9223372036854775808 "
                      "-9223372036854775808") == 0);

    b = PLACE_BUF(out);
    const char *none = getenv("LIBPLACE_TEST_UNSET_VARIABLE"); /* NULL, unknown to the compiler */
    place_bprintf(&b, "[%.3s][%.*s][%s]", "abcdef", 2, "xyz", none);
    CHECK(strcmp(out, "[abc][xy][(null)]") == 0);

    /* text beyond the buffer is cut, and the buffer stays terminated */
    char tiny[8];
    b = PLACE_BUF(tiny);
    place_bprintf(&b, "%s", "0123456789");
    CHECK(strcmp(tiny, "0123456") == 0);
    CHECK_EQ(b.len, 7);

    char s[PLACE_SIZE_STR];
    CHECK(strcmp(place_size_str(s, 0), "0 B") == 0);
    CHECK(strcmp(place_size_str(s, 1023), "1023 B") == 0);
    CHECK(strcmp(place_size_str(s, 1536), "1.5 KiB") == 0);
    CHECK(strcmp(place_size_str(s, 5 << 20), "5.0 MiB") == 0);
    CHECK(strcmp(place_size_str(s, -(3LL << 30)), "-3.0 GiB") == 0);
    CHECK(strcmp(place_size_str(s, INT64_MAX), "8.0 EiB") == 0);
    CHECK(strcmp(place_size_str(s, (1 << 20) - 1), "1.0 MiB") == 0); /* not 1024.0 KiB */
    CHECK(strcmp(place_size_str(s, 2044724), "2.0 MiB") == 0);       /* 1.950001 MiB */
    CHECK(strcmp(place_size_str(s, 2044723), "1.9 MiB") == 0);

    b = PLACE_BUF(out);
    place_bprintf(&b, "%05d|%5d", -42, -42);
    CHECK(strcmp(out, "-0042|  -42") == 0);

    /* an exact fit is not a cut */
    char eight[8];
    b = PLACE_BUF(eight);
    place_bprintf(&b, "%s", "1234567");
    CHECK(!b.cut && strcmp(eight, "1234567") == 0);
    place_bprintf(&b, "x");
    CHECK(b.cut);
    return CHECK_DONE();
}
