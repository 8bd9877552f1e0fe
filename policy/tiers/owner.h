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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/hidden.h"
#include "tier.h"

enum { PLACE_MAX_RANGES = 256 };

struct place_range {
    uintptr_t lo, hi; /* [lo, hi) */
    struct place_tier *tier;
};

struct place_owner_table {
    uintptr_t lo, span; /* the enclosing interval [lo, lo + span): free's gate */
    unsigned n;
    struct place_range range[PLACE_MAX_RANGES];
};

extern PLACE_HIDDEN struct place_owner_table place_owners;

/* Registers [p, p + len) as tier t's. Returns 0, or -1 when the table is full. */
int place_owner_add(void *p, size_t len, struct place_tier *t);

/* Forgets the range that starts at p, before its memory goes back to whoever gave it:
 * nobody holds a block in it any more, so no reader can be asking about it. Its slot is
 * reused by a later add. */
void place_owner_remove(void *p);

struct place_tier *place_owner_lookup(uintptr_t a);

/* The gate free() tests (one subtraction, one compare): the ranges' enclosing interval.
 * A pointer outside it takes the gate's outside path (engine/outside.h). */
static inline bool place_owner_gated(const void *p)
{
    /* Plain loads, like malloc's window (engine/place.h), so that the compiler folds them
     * into the subtraction and the compare (two instructions fewer than atomic loads).
     * Each is one aligned word, which the machine reads whole, first thing in free(): a
     * pointer handed over from the thread that placed it comes after that thread saw
     * its range, so this thread sees the gate that holds it. */
    return (uintptr_t)p - place_owners.lo < place_owners.span;
}

/* fork: the writers' lock is held across it, and released on both sides (by the thread
 * that forked, which is the child's only thread). */
void place_owner_prefork(void);
void place_owner_postfork(void);

/* The tier whose range holds p, which lies inside the ranges' interval, or NULL. The
 * first range (a policy's first arena) is tried inline: place_owner_first, NULL when p
 * is not in it. */
static inline struct place_tier *place_owner_first(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    const struct place_range *r = &place_owners.range[0];
    return a < __atomic_load_n(&r->hi, __ATOMIC_ACQUIRE) && a >= r->lo ? r->tier : NULL;
}

static inline struct place_tier *place_owner_inside(const void *p)
{
    struct place_tier *t = place_owner_first(p);
    return t ? t : place_owner_lookup((uintptr_t)p);
}

static inline struct place_tier *place_owner(const void *p)
{
    return __builtin_expect(place_owner_gated(p), 0) ? place_owner_inside(p) : NULL;
}

#endif
