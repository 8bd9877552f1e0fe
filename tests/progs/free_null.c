/* 20 million free(NULL): must cost no memory. Exits 1 if the resident set grew by more
 * than 64 KiB across the loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = atol(line + 6);
    if (f)
        fclose(f);
    return kib;
}

int main(void)
{
    void *volatile none = NULL;
    rss_kib(); /* the first call sets up stdio and the heap: not what is measured */
    long before = rss_kib();
    for (long k = 0; k < 20000000; k++)
        free(none);
    long after = rss_kib();
    printf("rss grew %s\n", after - before > 64 ? "yes" : "no");
    if (getenv("FREE_NULL_VERBOSE"))
        fprintf(stderr, "VmRSS %ld kB -> %ld kB\n", before, after);
    return after - before > 64;
}
