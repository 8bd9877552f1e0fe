/* A library the sites program links: allocations made inside it. */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) char *linked_alloc(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 'l', n);
    return p;
}
