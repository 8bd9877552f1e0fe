/* The per-thread memo of the stacks that site lookups read (capture.c fills it, memo.c
 * makes and drops it): here so that the engine's fast path checks a hit inline, with
 * nothing to call.
 *
 * A set-associative table, made at the thread's first site lookup, keyed by the return
 * address into the caller and the stack pointer at the call: a program's hot sites (a
 * few hundred) each keep their entry. An entry is trusted once the stack slot of each of
 * its frames' return addresses is known: the same key whose slots still hold those
 * addresses has the same frames. */
#ifndef PLACE_MEMO_H
#define PLACE_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/hidden.h"
#include "modules.h"

/* Allocation wrappers in a row above the call that are skipped, at most (less one):
 * past them a site starts, and a rule's depth counts from there. */
enum {
    PLACE_MEMO_WRAPPERS = 8,
    PLACE_MEMO_SET_BITS = 6,
    PLACE_MEMO_SETS = 1 << PLACE_MEMO_SET_BITS,
    PLACE_MEMO_WAYS = 4,
};

struct place_memo {
    /* the key; sp's bit 0 is set while the entry is not trusted (stack pointers are
     * aligned), so that a hit compares the key alone */
    uintptr_t ra, sp;
    unsigned n;     /* frames counted: depth, or fewer on a shallow stack */
    unsigned raw;   /* frames read: those counted and the wrappers before them */
    uint8_t seen;   /* sightings of an untrusted key */
    uint64_t cum[PLACE_MAX_DEPTH]; /* by counted frame, the wrappers' patterns in each */
    struct {
        uintptr_t ra, slot; /* a frame's return address, and where on the stack it lies */
    } frame[PLACE_MEMO_WRAPPERS + PLACE_MAX_DEPTH];
};

struct place_memo_set {
    struct place_memo way[PLACE_MEMO_WAYS];
    unsigned victim; /* the way the next miss replaces: round robin */
};

/* The calling thread's table: NULL until its first lookup, and after its exit hook. */
extern PLACE_HIDDEN __thread struct place_memo_set *place_memos
    __attribute__((tls_model("initial-exec")));
/* The module generation and depth its entries were filled for (place_memo_tag): a
 * lookup for another finds none, and the next capture empties the table. */
extern PLACE_HIDDEN __thread uint64_t place_memos_tag __attribute__((tls_model("initial-exec")));
/* true once the thread's table could not be made, or went with its exit hook */
extern PLACE_HIDDEN __thread bool place_memos_none __attribute__((tls_model("initial-exec")));

/* The calling thread's table made (NULL: it cannot be). */
struct place_memo_set *place_memos_make(void);

/* The calling thread's table, made at its first lookup; NULL when it has none. */
static inline struct place_memo_set *place_memos_own(void)
{
    if (__builtin_expect(place_memos != NULL || place_memos_none, 1))
        return place_memos;
    return place_memos_make();
}

static inline uint64_t place_memo_tag(unsigned depth)
{
    return place_modules_generation() | (uint64_t)depth << 32;
}

static inline struct place_memo_set *place_memo_set_of(struct place_memo_set *table, uintptr_t ra,
                                                       uintptr_t sp)
{
    return &table[((ra ^ sp) * 0x9e3779b97f4a7c15ull) >> (64 - PLACE_MEMO_SET_BITS)];
}

/* Whether the frames above the first are still the ones m's slots were read from. */
static inline bool place_memo_still_there(const struct place_memo *m)
{
    for (unsigned k = 1; k < m->raw; k++)
        if (*(const uintptr_t *)m->frame[k].slot != m->frame[k].ra)
            return false;
    return true;
}

/* A trusted entry for (ra, sp) at depth whose frames are still there: its masks (as
 * place_site_masks gives them) and *n, else NULL. With the guard up: a signal handler's
 * lookup would rewrite the entry being read. */
static inline const uint64_t *place_memo_hit(uintptr_t ra, uintptr_t sp, unsigned depth,
                                             unsigned *n)
{
    struct place_memo_set *table = place_memos;
    if (__builtin_expect(table == NULL || place_memos_tag != place_memo_tag(depth), 0))
        return NULL;
    const struct place_memo_set *set = place_memo_set_of(table, ra, sp);
    for (const struct place_memo *e = set->way; e < set->way + PLACE_MEMO_WAYS; e++)
        if (e->ra == ra && e->sp == sp && place_memo_still_there(e)) {
            *n = e->n;
            return e->cum;
        }
    return NULL;
}

#endif
