/* cuda_heap: a program with a GPU heap kept by a library (libsymheap) beside GPU memory of
 * its own, as a program on NVSHMEM has.
 *
 *   cuda_heap GROW SHRINK OWN   the heap grows by GROW chunks, gives SHRINK back, then the
 *                               program makes OWN bytes (0: none) with cuMemCreate itself;
 *                               everything left is held at exit
 * Exit status: 0, 1 a chunk or the program's block was refused, 3 no driver, 64 usage. */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#include "symheap.h"

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: cuda_heap GROW SHRINK OWN\n");
        return 64;
    }
    int grow = atoi(argv[1]), shrink = atoi(argv[2]);
    size_t own = strtoull(argv[3], NULL, 10);
    if (symheap_start(0)) {
        printf("no driver\n");
        return 3;
    }
    int rc = symheap_grow(grow);
    printf("heap grew by %d chunks of %zu: %s (%d)\n", grow, symheap_chunk(), rc ? "refused" : "ok",
           rc);
    if (rc)
        return 1;
    rc = symheap_shrink(shrink);
    printf("heap gave %d back: %s\n", shrink, rc ? "failed" : "ok");
    if (own) {
        CUmemAllocationProp prop = {.type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                    .location = {CU_MEM_LOCATION_TYPE_DEVICE, 0}};
        CUmemGenericAllocationHandle h;
        CUresult c = cuMemCreate(&h, own, &prop, 0);
        printf("own block of %zu: %s (%d)\n", own, c ? "refused" : "ok", (int)c);
        if (c)
            return 1;
    }
    return 0;
}
