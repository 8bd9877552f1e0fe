/* 20 million free(NULL): must cost no memory. Exits 1 if the resident set grew by more
 * than 64 KiB across the loop. The resident set is read with no allocation (no stdio):
 * under a report, one of them could be the profile's sample, whose first capture touches
 * libplace's tables while the loop is measured. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rss.h"

int main(void)
{
    void *volatile none = NULL;
    free(none); /* the first calls bind their symbols (ld.so reads libc's tables): not */
    rss_kib();  /* what is measured */
    long before = rss_kib();
    for (long k = 0; k < 20000000; k++)
        free(none);
    long after = rss_kib();
    printf("rss grew %s\n", after - before > 64 ? "yes" : "no");
    if (getenv("FREE_NULL_VERBOSE"))
        fprintf(stderr, "VmRSS %ld kB -> %ld kB\n", before, after);
    return after - before > 64;
}
