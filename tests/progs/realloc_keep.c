/* A block placed from a site a rule names (hot_alloc), grown and shrunk by realloc from
 * code no rule names (main): where does it live after each? */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libplace.h"

__attribute__((noinline)) void *hot_alloc(size_t n)
{
    return malloc(n);
}

static void say(const char *what, void *p)
{
    char node[64];
    place_node_of(p, node, sizeof node);
    printf("%s: %s\n", what, node);
}

int main(void)
{
    char *p = hot_alloc(1000);
    strcpy(p, "kept");
    say("allocated", p);
    p = realloc(p, 100000);
    say("grown", p);
    p = realloc(p, 200);
    say("shrunk", p);
    printf("contents: %s\n", p);
    free(p);
    return 0;
}
