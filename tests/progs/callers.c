/* One allocation call reached from two callers at the same depth: left and right have
 * the same frame, so malloc sees the same return address (in wrapper) and the same stack
 * pointer from both, and only the frame above tells them apart. They take turns, COUNT
 * times each (argv[1]), enough for a site lookup's memo to trust both stacks. Prints
 * how many blocks each made. */
#include <stdio.h>
#include <stdlib.h>

#include "site_frame.h"

__attribute__((noinline)) static char *wrapper(size_t n)
{
    char *p = malloc(n);
    SITE_FRAME_KEPT(); /* frame 1 here */
    return p;
}

__attribute__((noinline)) static char *left(size_t n)
{
    char *p = wrapper(n);
    __asm__ volatile("" ::: "memory");
    return p;
}

__attribute__((noinline)) static char *right(size_t n)
{
    char *p = wrapper(n);
    __asm__ volatile("" ::: "memory");
    return p;
}

int main(int argc, char **argv)
{
    long count = argc > 1 ? atol(argv[1]) : 1000, made[2] = {0, 0};
    for (long k = 0; k < 2 * count; k++) {
        char *p = (k & 1 ? right : left)(48);
        if (p) {
            p[0] = (char)k;
            made[k & 1]++;
        }
        free(p);
    }
    printf("left %ld right %ld\n", made[0], made[1]);
    return 0;
}
