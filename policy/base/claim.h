/* Lock-free open addressing for the tables the allocation path reads (return-address
 * masks, site counters): keys are 64-bit, never 0 and never removed, so a slot is
 * claimed with one compare-and-swap and then belongs to its key for good. */
#ifndef PLACE_CLAIM_H
#define PLACE_CLAIM_H

#include <stdatomic.h>
#include <stdint.h>

/* The slot of key among the 1 << bits keys, claimed for it if it had none, or -1 when
 * `probes` slots from its hash are all taken by other keys. */
static inline long place_claim(_Atomic uint64_t *keys, unsigned bits, unsigned probes, uint64_t key)
{
    uint64_t mask = (1ull << bits) - 1, h = (key * 0x9e3779b97f4a7c15ull) >> (64 - bits);
    for (unsigned k = 0; k < probes; k++) {
        uint64_t i = (h + k) & mask;
        uint64_t seen = atomic_load_explicit(&keys[i], memory_order_acquire);
        if (seen == 0 && atomic_compare_exchange_strong(&keys[i], &seen, key))
            return (long)i;
        if (seen == key)
            return (long)i;
    }
    return -1;
}

#endif
