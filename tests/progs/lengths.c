/* Blocks of 14 lengths, 12 to 64 KiB, four at a time, each length after the other (what
 * espresso does): prints by how much the resident set grew. Four blocks of the largest
 * are 256 KiB; an allocator that keeps freed pages for their length alone holds the sum
 * of all lengths' four, 2.1 MiB. With ALIGN SIZE: 4000 blocks of SIZE at ALIGN
 * (posix_memalign), each written and freed before the next, which must reuse the same
 * pages. The resident set is read with no allocation (no stdio). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rss.h"

static int aligned(size_t align, size_t size)
{
    for (int k = 0; k < 4000; k++) {
        void *p;
        if (posix_memalign(&p, align, size) != 0 || (size_t)p % align != 0)
            return 2;
        memset(p, k, size);
        free(p);
    }
    return 0;
}

int main(int argc, char **argv)
{
    void *volatile first = malloc(100); /* symbols bound, libplace started: not measured */
    free(first);
    long before = rss_kib();
    if (argc == 3) {
        int rc = aligned(strtoul(argv[1], NULL, 0), strtoul(argv[2], NULL, 0));
        printf("grew %ld KiB\n", rss_kib() - before);
        return rc;
    }
    for (int round = 0; round < 3; round++)
        for (size_t len = 12 << 10; len <= 64 << 10; len += 4 << 10) {
            char *b[4];
            for (int k = 0; k < 4; k++) {
                b[k] = malloc(len - 100);
                if (!b[k])
                    return 2;
                memset(b[k], k + 1, len - 100);
            }
            for (int k = 0; k < 4; k++)
                free(b[k]);
        }
    printf("grew %ld KiB\n", rss_kib() - before);
    return 0;
}
