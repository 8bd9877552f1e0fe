/* Prints place_size_str of each argument, one a line: the C side of the comparison with
 * the Python tools' formatter (tests/bats/units.bats), which must say the same. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../policy/base/fmt.h"

int main(int argc, char **argv)
{
    for (int k = 1; k < argc; k++) {
        char *end;
        errno = 0;
        long long n = strtoll(argv[k], &end, 10);
        if (errno || end == argv[k] || *end) {
            fprintf(stderr, "size_str: %s is not a 64-bit integer\n", argv[k]);
            return 2;
        }
        char out[PLACE_SIZE_STR];
        puts(place_size_str(out, (int64_t)n));
    }
    return 0;
}
