/* Allocation wrappers libplace knows by no name, only by their shape (policy/site/
 * shape.h): my_checked_alloc calls malloc and returns its block after a test, as xmalloc
 * does; my_tail_alloc tail-calls malloc. Each is called from a function of its own, the
 * site a profile must name. Built with -O2: the shapes are the compiler's. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) void *my_checked_alloc(size_t n)
{
    void *p = malloc(n);
    if (!p)
        abort();
    return p;
}

__attribute__((noinline)) void *my_tail_alloc(size_t n)
{
    return malloc(n + 16);
}

/* the empty asm keeps each call a call: a tail call would leave no frame to name */
__attribute__((noinline)) void *from_checked(void)
{
    void *p = my_checked_alloc(100000);
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}

__attribute__((noinline)) void *from_tail(void)
{
    void *p = my_tail_alloc(200000);
    __asm__ volatile("" : : "r"(p) : "memory");
    return p;
}

int main(void)
{
    for (int k = 0; k < 200; k++) {
        free(from_checked());
        free(from_tail());
    }
    puts("400 blocks");
    return 0;
}
