/* glibc's own names for the malloc family, called by name as programs with malloc hooks
 * do, mixed with the standard names: each block is freed by the other name, and each
 * is asked of libplace (include/libplace.h) for its node. Prints one line a call: the
 * call, whether its block is usable as asked, and the node libplace says it is in. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libplace.h"

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t nmemb, size_t size);
void *__libc_realloc(void *p, size_t size);
void __libc_free(void *p);
void *__libc_memalign(size_t align, size_t size);
void *__libc_valloc(size_t size);
void *__libc_pvalloc(size_t size);

static void say(const char *call, void *p, int ok)
{
    char node[64] = "";
    if (place_node_of(p, node, sizeof node) < 0)
        strcpy(node, "?");
    printf("%s: %s, node %s\n", call, p && ok ? "ok" : "WRONG", node);
}

int main(void)
{
    long page = sysconf(_SC_PAGESIZE);
    char *a = __libc_malloc(100);
    memset(a, 1, 100);
    say("__libc_malloc", a, 1);
    free(a);

    char *b = malloc(100);
    memset(b, 2, 100);
    say("malloc", b, 1);
    __libc_free(b);

    unsigned char *c = __libc_calloc(10, 10);
    int zero = 1;
    for (int k = 0; k < 100; k++)
        zero &= c[k] == 0;
    say("__libc_calloc", c, zero);
    __libc_free(c);

    char *d = __libc_realloc(NULL, 50);
    memset(d, 3, 50);
    d = __libc_realloc(d, 5000);
    say("__libc_realloc", d, d && d[0] == 3 && d[49] == 3);
    __libc_free(d);

    void *e = __libc_memalign(64, 100);
    say("__libc_memalign", e, (uintptr_t)e % 64 == 0);
    free(e);

    void *f = __libc_valloc(100);
    say("__libc_valloc", f, (uintptr_t)f % (uintptr_t)page == 0);
    __libc_free(f);

    void *g = __libc_pvalloc(100);
    say("__libc_pvalloc", g, (uintptr_t)g % (uintptr_t)page == 0);
    __libc_free(g);
    return 0;
}
