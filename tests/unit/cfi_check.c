/* site/cfi.c's rule at each address of a list, against the rule expected there:
 *
 *   cfi_check LIBRARY ROWS
 *
 * LIBRARY is loaded (dlopen: already there for libc), each ROWS line is "OFFSET RULE"
 * in hex, the offset from the library's load address. Prints the first mismatches and
 * the count; exits 1 on any. tests/unit/cfi_readelf.py writes the rows from readelf. */
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>

#include "../../policy/site/cfi.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: cfi_check LIBRARY ROWS\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    struct link_map *map;
    FILE *f = fopen(argv[2], "r");
    if (!h || dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !f) {
        fprintf(stderr, "cfi_check: %s or %s cannot be read\n", argv[1], argv[2]);
        return 2;
    }
    uint64_t pc, rule;
    long rows = 0, wrong = 0;
    while (fscanf(f, "%" SCNx64 " %" SCNx64, &pc, &rule) == 2) {
        rows++;
        uint64_t got = place_cfi_rule_at(map->l_addr + pc);
        if (got != rule && wrong++ < 10)
            fprintf(stderr, "cfi_check: %s+%#" PRIx64 ": rule %#" PRIx64 ", expected %#" PRIx64 "\n",
                    argv[1], pc, got, rule);
    }
    printf("cfi_check: %s: %ld addresses, %ld rules differ from readelf's\n", argv[1], rows, wrong);
    return wrong != 0;
}
