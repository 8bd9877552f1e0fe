/* A library the sites program dlopens after start. */
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) char *plugin_alloc(size_t n)
{
    char *p = calloc(1, n);
    if (p)
        memset(p, 'p', n / 2);
    return p;
}
