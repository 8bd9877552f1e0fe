/* The OpenSHMEM request path: shmem_malloc and its family as the entry points
 * (shim/shmem.c) hand them over.
 *
 * The SHMEM library allocates every block in its symmetric heap, at the same address on
 * every PE, and libplace never moves one. What it does: counts each block in the
 * symmetric tier, whose limit refuses a block as a full heap would (NULL); and when an
 * api = shmem rule takes the call, runs the rule's chain over the block: an hbw or numa
 * tier with room binds the block's whole pages to its own nodes and policy (mbind,
 * moving pages already touched) and counts them; a symmetric tier, or the chain's end,
 * leaves them where the library put them; on_full = fail frees the block and answers
 * NULL. Each call and its decision go into the PE's digest (stats/symmetric.h).
 *
 * The caller calls the library between begin and end, with the guard down: the
 * library's own mallocs are the program's. */
#ifndef PLACE_SHMEM_PATH_H
#define PLACE_SHMEM_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/hidden.h"

/* Whether libplace takes part in SHMEM calls: a policy or a report asked (set at start). */
extern PLACE_HIDDEN bool place_shmem_on;

enum place_shmem_kind { PLACE_SHMEM_MALLOC, PLACE_SHMEM_CALLOC, PLACE_SHMEM_ALIGN, PLACE_SHMEM_REALLOC };

struct place_shmem_call {
    enum place_shmem_kind kind;
    size_t size, align; /* calloc: the product; align 0 but for shmem_align */
    void *old;          /* realloc's block */
    uintptr_t ra;       /* the program's return address */
    void (*free)(void *); /* the library's free, for on_full = fail */
    /* begin's, for end */
    struct place_tier *t; /* the symmetric tier; NULL: not counted */
    size_t reserved;
};

/* Room in the symmetric tier for the call (realloc: beyond the old block's bytes). False
 * when its limit refuses: the caller answers NULL without calling the library. */
bool place_shmem_begin(struct place_shmem_call *c);

/* The library answered p: counted, decided and bound (or, when begin reserved room and
 * p is NULL, the room given back). What the program gets: p, or NULL when the rule's
 * on_full = fail turned the block away. */
void *place_shmem_end(struct place_shmem_call *c, void *p);

/* Before the library frees p: its count and binding undone. */
void place_shmem_free(void *p);

#endif
