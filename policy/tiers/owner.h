/* Which tier placed a pointer, by its address: the first question of "whose block is
 * this?" (engine/whose.h), which free(), realloc() and malloc_usable_size() ask first.
 *
 * Every non-default tier hands out memory from address ranges it registered here. The
 * table keeps the smallest interval enclosing all ranges, so a pointer outside it (every
 * pointer glibc placed, unless it lies between two tiers' ranges) is told apart by one
 * subtraction and one compare, with no lock and no hash lookup. With no range registered
 * the interval is empty and every pointer misses. A range libplace reserved is never
 * removed (it never unmaps one, DESIGN.md section 7); a managed chunk's is, before the
 * driver takes the chunk back. */
#ifndef PLACE_OWNER_H
#define PLACE_OWNER_H

#include <stddef.h>
#include <stdint.h>

#include "tier.h"

enum { PLACE_MAX_RANGES = 256 };

struct place_range {
    uintptr_t lo, hi; /* [lo, hi) */
    struct place_tier *tier;
};

struct place_owner_table {
    uintptr_t lo, span; /* the enclosing interval [lo, lo + span) */
    unsigned n;
    struct place_range range[PLACE_MAX_RANGES];
};

extern struct place_owner_table place_owners;

/* Registers [p, p + len) as tier t's. Returns 0, or -1 when the table is full. */
int place_owner_add(void *p, size_t len, struct place_tier *t);

/* Forgets the range that starts at p, before its memory goes back to whoever gave it:
 * nobody holds a block in it any more, so no reader can be asking about it. Its slot is
 * reused by a later add. */
void place_owner_remove(void *p);

struct place_tier *place_owner_lookup(uintptr_t a);

/* fork: the writers' lock is held across it, and released on both sides (by the thread
 * that forked, which is the child's only thread). */
void place_owner_prefork(void);
void place_owner_postfork(void);

static inline struct place_tier *place_owner(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    /* acquire: a pointer handed over from another thread comes with its range */
    uintptr_t lo = __atomic_load_n(&place_owners.lo, __ATOMIC_ACQUIRE);
    if (__builtin_expect(a - lo >= __atomic_load_n(&place_owners.span, __ATOMIC_ACQUIRE), 1))
        return NULL;
    return place_owner_lookup(a);
}

#endif
