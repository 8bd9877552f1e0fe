/* Lock-free open addressing for the tables the allocation path reads (return addresses'
 * answers, site counters): keys are 64-bit, never 0 and never removed, so a slot is
 * claimed with one compare-and-swap and then belongs to its key for good. */
#ifndef PLACE_CLAIM_H
#define PLACE_CLAIM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t place_claim_hash(uint64_t key, unsigned bits)
{
    return (key * 0x9e3779b97f4a7c15ull) >> (64 - bits);
}

/* The slot of key among the 1 << bits keys, the k-th of which is at keys[k * stride]
 * (a key inside each entry of a table: stride words apart), claimed for it if it had
 * none, or -1 when `probes` slots from its hash are all taken by other keys. */
static inline long place_claim_strided(_Atomic uint64_t *keys, size_t stride, unsigned bits,
                                       unsigned probes, uint64_t key)
{
    uint64_t mask = (1ull << bits) - 1, h = place_claim_hash(key, bits);
    for (unsigned k = 0; k < probes; k++) {
        uint64_t i = (h + k) & mask;
        uint64_t seen = atomic_load_explicit(&keys[i * stride], memory_order_acquire);
        if (seen == 0 && atomic_compare_exchange_strong(&keys[i * stride], &seen, key))
            return (long)i;
        if (seen == key) /* its own, or claimed for it meanwhile */
            return (long)i;
    }
    return -1;
}

/* The same for an array of keys. */
static inline long place_claim(_Atomic uint64_t *keys, unsigned bits, unsigned probes, uint64_t key)
{
    return place_claim_strided(keys, 1, bits, probes, key);
}

#endif
