/* The per-thread memo of the stacks that site lookups read (capture.c fills it, memo.c
 * makes and drops it): here so that the engine's fast path checks a hit inline, with
 * nothing to call.
 *
 * A set-associative table, made at the thread's first site lookup, keyed by the return
 * address into the caller and the stack pointer at the call: a program's hot sites (a
 * few hundred) each keep their entry. An entry is trusted once the stack slot of each of
 * its frames' return addresses is known: the same key whose slots still hold those
 * addresses has the same frames. A stack whose caller alone decided (it matched every
 * pattern the rules name) has no frames past it to check: the thread's last such caller
 * is found by its return address alone, before the key's set is probed. */
#ifndef PLACE_MEMO_H
#define PLACE_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/claim.h"
#include "../base/guard.h"
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

/* A frame of an entry: its return address, and where on the stack it lies. An entry's
 * last frame is followed by the end mark (PLACE_MEMO_END), whose slot holds 0 and never
 * its address, so that a hit's check stops at the first frame that differs or at the
 * end, with one test a frame. */
struct place_memo_frame {
    uintptr_t ra, slot;
};

#define PLACE_MEMO_END ((uintptr_t)1)

extern PLACE_HIDDEN const uintptr_t place_memo_end_slot;

struct place_memo {
    unsigned n;   /* frames counted: depth, or fewer on a shallow stack */
    unsigned raw; /* frames read: those counted and the wrappers before them */
    uint8_t seen; /* sightings of an untrusted key */
    /* frame[0] is the caller (the key's ra; its slot is not needed), then the frames
     * above, then the end mark (a trusted entry's) */
    struct place_memo_frame frame[PLACE_MEMO_WRAPPERS + PLACE_MAX_DEPTH + 1];
    /* by counted frame, the wrappers' patterns in each; past the n-th, all of them, up to
     * the deepest rule's depth */
    uint64_t cum[PLACE_MAX_DEPTH];
};

/* The ways' keys sit together, ahead of the entries, so that a lookup compares them
 * in a line or two. A way's key is ra ^ sp, which the lookup has computed for the set
 * (place_memo_key): a way of another key fails one compare, whether its ra or its sp
 * differs (a wrapper's call has one ra and many sp, a function's calls one sp and many
 * ra); ra, compared once the key matches, makes it exact. The key's bit 0 is flipped
 * while a way is not trusted (stack pointers are aligned), so that a hit compares the
 * key alone; ra 0: no entry. */
struct place_memo_set {
    uintptr_t key[PLACE_MEMO_WAYS], ra[PLACE_MEMO_WAYS];
    unsigned victim; /* the way the next miss replaces: round robin */
    struct place_memo way[PLACE_MEMO_WAYS];
};

/* true once the thread's table could not be made, or went with its exit hook */
extern PLACE_HIDDEN __thread bool place_memos_none __attribute__((tls_model("initial-exec")));

/* The calling thread's table made (NULL: it cannot be). */
struct place_memo_set *place_memos_make(void);

/* The calling thread's table, made at its first lookup; NULL when it has none. */
static inline struct place_memo_set *place_memos_own(void)
{
    if (__builtin_expect(place_self.memos != NULL || place_memos_none, 1))
        return place_self.memos;
    return place_memos_make();
}

/* The key of a trusted entry for the call at ra with the stack pointer sp, and back:
 * the lookup's miss path keeps the key alone, one register fewer. */
static inline uintptr_t place_memo_key(uintptr_t ra, uintptr_t sp)
{
    return ra ^ sp;
}

static inline uintptr_t place_memo_sp(uintptr_t ra, uintptr_t key)
{
    return ra ^ key;
}

static inline struct place_memo_set *place_memo_set_of(struct place_memo_set *table, uintptr_t key)
{
    return &table[place_claim_hash(key, PLACE_MEMO_SET_BITS)];
}

/* Ends m's frames with the mark: done as m becomes a trusted entry. */
static inline void place_memo_mark_end(struct place_memo *m)
{
    m->frame[m->raw] = (struct place_memo_frame){PLACE_MEMO_END, (uintptr_t)&place_memo_end_slot};
}

/* The masks (place_site_masks's) of the trusted entry of key (place_memo_key's of ra
 * and the stack pointer) whose frames are still there, else NULL. With the guard up: a
 * signal handler's lookup would rewrite the entry being read. A table filled for other
 * modules holds none. The thread's last stack whose caller alone decided is found by
 * its return address alone. One key may have several entries (the same call at the same
 * depth from different callers further up): each is checked until the frame where it
 * differs. */
static inline const uint64_t *place_memo_masks(uintptr_t ra, uintptr_t key)
{
    /* the generation is never 0, the generation of no table (memos_gen's invariant) */
    if (__builtin_expect(place_self.memos_gen != place_modules_generation(), 0))
        return NULL;
    if (ra == place_self.caller_ra) { /* any stack pointer, any frames above */
        const uint64_t *cum = place_self.caller_masks;
        if (!cum) /* set with its ra, never NULL: a hit tests no pointer */
            __builtin_unreachable();
        return cum;
    }
    const struct place_memo_set *set = place_memo_set_of(place_self.memos, key);
#pragma GCC unroll 4
    for (unsigned w = 0; w < PLACE_MEMO_WAYS; w++)
        if (set->key[w] == key && set->ra[w] == ra) {
            const struct place_memo_frame *f = &set->way[w].frame[1];
#pragma GCC unroll 2
            while (*(const uintptr_t *)f->slot == f->ra)
                f++;
            if (f->ra == PLACE_MEMO_END)
                return set->way[w].cum;
        }
    return NULL;
}

#endif
