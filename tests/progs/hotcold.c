/* Hot and cold arrays from distinct functions, for the access profile and its advice:
 * cold_a (128 MiB) and cold_b (64 MiB), allocated first, are written once; hot_a (64 MiB)
 * and hot_b (32 MiB) are swept over and over; pair_cold and pair_hot (2 MiB each) both
 * come from make_array, which is frame 1 of both, told apart by frame 2.
 *
 * usage: hotcold [SWEEPS [SCALE [keep]]]  (default 150 sweeps; sizes divided by SCALE,
 * default 1; keep: the arrays are not freed at exit, so that a report can check them)
 * Prints a checksum of everything it computed: the same with or without libplace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t scale = 1;

static unsigned long *must(unsigned long *p)
{
    if (!p) {
        fputs("hotcold: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

/* Each allocating function writes its array before returning: no tail call, and not
 * an allocation wrapper by its shape, so that it is its blocks' frame 1. */
__attribute__((noinline)) static unsigned long *make_array(size_t bytes, unsigned long seed)
{
    unsigned long *p = must(malloc(bytes));
    for (size_t k = 0; k < bytes / sizeof *p; k++)
        p[k] = seed + k;
    return p;
}

#define ALLOCATOR(name, mib)                                                                   \
    __attribute__((noinline)) static unsigned long *name(void)                                  \
    {                                                                                          \
        size_t bytes = ((size_t)(mib) << 20) / scale;                                          \
        unsigned long *p = must(malloc(bytes));                                                \
        memset(p, 1, bytes);                                                                   \
        return p;                                                                              \
    }
ALLOCATOR(alloc_hot_a, 64)
ALLOCATOR(alloc_hot_b, 32)
ALLOCATOR(alloc_cold_a, 128)
ALLOCATOR(alloc_cold_b, 64)

__attribute__((noinline)) static unsigned long *alloc_pair_hot(void)
{
    unsigned long *p = make_array((2u << 20) / scale, 7);
    __asm__ volatile("" ::: "memory");
    return p;
}

__attribute__((noinline)) static unsigned long *alloc_pair_cold(void)
{
    unsigned long *p = make_array((2u << 20) / scale, 11);
    __asm__ volatile("" ::: "memory");
    return p;
}

__attribute__((noinline)) static unsigned long sweep(unsigned long *p, size_t bytes)
{
    unsigned long s = 0;
    for (size_t k = 0; k < bytes / sizeof *p; k += 8) { /* a word per 64-byte line */
        p[k] = p[k] * 3 + 1;
        s += p[k];
    }
    return s;
}

int main(int argc, char **argv)
{
    long sweeps = argc > 1 ? atol(argv[1]) : 150;
    if (argc > 2 && atol(argv[2]) > 0)
        scale = (size_t)atol(argv[2]);
    unsigned long *cold_a = alloc_cold_a(), *cold_b = alloc_cold_b();
    unsigned long *pair_cold = alloc_pair_cold(), *pair_hot = alloc_pair_hot();
    unsigned long *hot_a = alloc_hot_a(), *hot_b = alloc_hot_b();
    unsigned long sum = 0;
    for (long k = 0; k < sweeps; k++) {
        sum += sweep(hot_a, (64u << 20) / scale);
        sum += sweep(hot_b, (32u << 20) / scale);
        sum += sweep(pair_hot, (2u << 20) / scale);
    }
    sum += cold_a[1] + cold_b[2] + pair_cold[3];
    printf("hotcold: %ld sweeps, checksum %lu\n", sweeps, sum);
    if (argc > 3 && strcmp(argv[3], "keep") == 0)
        return 0;
    free(pair_cold);
    free(pair_hot);
    free(cold_b);
    free(cold_a);
    free(hot_b);
    free(hot_a);
    return 0;
}
