/* A site whose caller alone decides (hot_alloc, the rule's only pattern), looked up again
 * after hundreds of other stacks (cold_alloc at every depth of a recursion, each a stack
 * pointer of its own) have passed through the thread's memo: libplace finds the last
 * such caller by its return address alone (site/memo.h), so each time the memo's entry
 * it pointed to is replaced that shortcut must go too. Prints where each round's blocks
 * live. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libplace.h"
#include "site_frame.h"

enum { ROUNDS = 8, DEPTH = 600 };

__attribute__((noinline)) static void *hot_alloc(size_t n)
{
    void *p = malloc(n);
    SITE_FRAME_KEPT();
    return p;
}

static char cold_node[64];

/* A block from cold_alloc at depth d, freed, its node kept when it is not dram's. */
__attribute__((noinline)) static void cold_alloc(int d)
{
    if (d > 0) {
        cold_alloc(d - 1);
        SITE_FRAME_KEPT(); /* a frame of its own at each depth */
        return;
    }
    void *p = malloc(48);
    char node[64] = "";
    place_node_of(p, node, sizeof node);
    if (strcmp(node, "dram") != 0)
        strcpy(cold_node, node);
    free(p);
}

int main(void)
{
    for (int r = 0; r < ROUNDS; r++) {
        void *p = hot_alloc(32 + (size_t)r);
        char node[64] = "";
        place_node_of(p, node, sizeof node);
        printf("round %d: hot %s\n", r, node);
        free(p);
        for (int d = 0; d < DEPTH; d++)
            cold_alloc(d);
    }
    printf("cold: %s\n", cold_node[0] ? cold_node : "dram");
    return 0;
}
