/* Two phases that each sweep a 64 MiB array of their own, one after the other, while a
 * 64 MiB array written once stays live throughout: the two hot arrays are never live
 * together, so they can share a fast tier's room.
 *
 * usage: phases [SWEEPS]  (default 100 sweeps a phase)
 * Prints a checksum of what it computed: the same with or without libplace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BYTES = 64 << 20 };

static unsigned long *must(unsigned long *p)
{
    if (!p) {
        fputs("phases: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

/* Each writes its array before returning: its blocks' frame 1, no allocation wrapper. */
#define ALLOCATOR(name)                                                                        \
    __attribute__((noinline)) static unsigned long *name(void)                                  \
    {                                                                                          \
        unsigned long *p = must(malloc(BYTES));                                                \
        memset(p, 1, BYTES);                                                                   \
        return p;                                                                              \
    }
ALLOCATOR(alloc_cold)
ALLOCATOR(alloc_phase_one)
ALLOCATOR(alloc_phase_two)

__attribute__((noinline)) static unsigned long sweep(unsigned long *p, long sweeps)
{
    unsigned long s = 0;
    for (long k = 0; k < sweeps; k++)
        for (size_t j = 0; j < BYTES / sizeof *p; j += 8) {
            p[j] = p[j] * 3 + 1;
            s += p[j];
        }
    return s;
}

int main(int argc, char **argv)
{
    long sweeps = argc > 1 ? atol(argv[1]) : 100;
    unsigned long *cold = alloc_cold();
    unsigned long *one = alloc_phase_one();
    unsigned long sum = sweep(one, sweeps);
    free(one);
    unsigned long *two = alloc_phase_two();
    sum += sweep(two, sweeps);
    free(two);
    sum += cold[5];
    free(cold);
    printf("phases: %ld sweeps a phase, checksum %lu\n", sweeps, sum);
    return 0;
}
