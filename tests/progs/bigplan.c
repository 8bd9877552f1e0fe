/* A plan bigger than the machine: bigplan N SIZE [free] allocates N blocks of SIZE bytes
 * (calloc for every other one, realloc'd to their size again for every third), writes
 * each end to end, keeps them all live, then asks each its usable size and frees them
 * (with "free"; else they stay live at exit). Prints the blocks made and the memory it
 * holds with all of them live, its proportional set size (Pss: a page mapped many times
 * counts once, where VmRSS counts it at each mapping), which a folded dry run keeps
 * small. The bytes written are never read back: in a folded run they are garbage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>

static long pss_kib(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Pss: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    long n = atol(argv[1]);
    size_t size = strtoull(argv[2], NULL, 0);
    char **blocks = calloc((size_t)n, sizeof *blocks);
    long made = 0, small = 0;
    for (long k = 0; blocks && k < n; k++) {
        char *p = k % 2 ? calloc(1, size) : malloc(size);
        if (p && k % 3 == 0)
            p = realloc(p, size);
        if (!p)
            break;
        memset(p, (int)k, size);
        blocks[k] = p;
        made++;
    }
    for (long k = 0; k < made; k++)
        small += malloc_usable_size(blocks[k]) < size;
    long held = pss_kib();
    if (argc > 3 && strcmp(argv[3], "free") == 0)
        for (long k = 0; k < made; k++)
            free(blocks[k]);
    printf("made %ld of %ld, %ld too small\nheld %ld KiB\n", made, n, small, held);
    return made == n && small == 0 ? 0 : 1;
}
