/* Allocations from known functions: in the executable (directly and through a wrapper, for
 * depth), in a linked library, and in a library dlopened after start (argv[1]). Prints a
 * checksum of what each made, so that its output is the same with or without libplace. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "site_frame.h"

char *linked_alloc(size_t n);

__attribute__((noinline)) static char *exe_alloc(size_t n)
{
    char *p = malloc(n);
    if (p)
        memset(p, 'e', n);
    return p;
}

/* wrapped_alloc -> wrapper -> malloc: the wrapper is frame 1, wrapped_alloc frame 2 */
__attribute__((noinline)) static char *wrapper(size_t n)
{
    char *p = malloc(n);
    SITE_FRAME_KEPT(); /* frame 1 here */
    return p;
}

__attribute__((noinline)) static char *wrapped_alloc(size_t n)
{
    char *p = wrapper(n);
    if (p)
        memset(p, 'w', n);
    __asm__ volatile("" ::: "memory");
    return p;
}

static unsigned long sum(const char *p, size_t n)
{
    unsigned long s = 0;
    for (size_t k = 0; k < n; k++)
        s = s * 31 + (unsigned char)p[k];
    return s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sites PLUGIN\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    char *(*plugin_alloc)(size_t) = h ? (char *(*)(size_t))dlsym(h, "plugin_alloc") : NULL;
    if (!plugin_alloc) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    static const struct {
        const char *name;
        char *(*fn)(size_t);
    } makers[] = {{"exe", exe_alloc}, {"wrapped", wrapped_alloc}, {"linked", linked_alloc}};
    for (size_t n = 1000; n <= 100000; n *= 10) {
        for (size_t k = 0; k < 3; k++) {
            char *p = makers[k].fn(n);
            printf("%s %zu %lx\n", makers[k].name, n, sum(p, n));
            free(p);
        }
        char *p = plugin_alloc(n);
        printf("plugin %zu %lx\n", n, sum(p, n));
        free(p);
    }
    return 0;
}
