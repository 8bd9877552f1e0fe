/* The process-wide table of return addresses: each one's pattern matches and its frame's
 * layout at the call (cfi.h), valid for one module generation. An entry is claimed for
 * good by its key (base/claim.h) and read where its key lies, one cache line; a full
 * neighbourhood means asking the modules and the unwind information each time. Inline:
 * a walk asks it at every frame. */
#ifndef PLACE_ADDRESSES_H
#define PLACE_ADDRESSES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/claim.h"
#include "../base/hidden.h"
#include "modules.h"

enum { PLACE_ADDRESS_BITS = 14 };

struct place_address {
    _Atomic uint64_t key, mask, rule;
    _Atomic uint32_t gen; /* 0 while the entry is being written, or never written */
};

extern PLACE_HIDDEN struct place_address place_addresses[1 << PLACE_ADDRESS_BITS];

/* What the table answers for a return address: its patterns, its frame's rule. */
struct place_answer {
    uint64_t mask, rule;
};

/* e's answers into *a if they are whole and of generation gen: a sequence lock, the
 * generation read before and after them (plain loads and compiler fences on x86-64). */
static inline bool place_address_read(const struct place_address *e, uint32_t gen,
                                      struct place_answer *a)
{
    if (atomic_load_explicit(&e->gen, memory_order_acquire) != gen)
        return false;
    a->mask = atomic_load_explicit(&e->mask, memory_order_relaxed);
    a->rule = atomic_load_explicit(&e->rule, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&e->gen, memory_order_relaxed) == gen;
}

/* place_address for a key not at its hash's own slot, or not answered for this
 * generation: probes, claims, fills. */
struct place_answer place_address_slow(uintptr_t ra);

/* ra's answers: most often in its hash's own slot. */
static inline struct place_answer place_address(uintptr_t ra)
{
    const struct place_address *e = &place_addresses[place_claim_hash(ra, PLACE_ADDRESS_BITS)];
    struct place_answer a;
    if (__builtin_expect(atomic_load_explicit(&e->key, memory_order_relaxed) == ra &&
                             place_address_read(e, place_modules_generation(), &a),
                         1))
        return a;
    return place_address_slow(ra);
}

#endif
