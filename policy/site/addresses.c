#include "addresses.h"

#include "../base/large.h"
#include "cfi.h"
#include "site.h"

enum { PROBES = 16 };

struct place_address place_addresses[1 << PLACE_ADDRESS_BITS] PLACE_LARGE
    __attribute__((aligned(32)));

/* An answer is kept only if the modules did not change while it was made. */
__attribute__((noinline)) struct place_answer place_address_slow(uintptr_t ra)
{
    uint32_t gen = place_modules_generation(), at;
    long i =
        place_claim_strided(&place_addresses[0].key, sizeof place_addresses[0] / sizeof(uint64_t),
                            PLACE_ADDRESS_BITS, PROBES, ra);
    struct place_address *e = i >= 0 ? &place_addresses[i] : NULL;
    struct place_answer a;
    if (e && place_address_read(e, gen, &a))
        return a;
    a.mask = place_modules_match(ra, &at);
    a.rule = place_cfi_rule_at(ra - 1);
    if (e && place_modules_generation() == at) {
        atomic_store_explicit(&e->gen, 0, memory_order_relaxed);
        atomic_thread_fence(memory_order_release);
        atomic_store_explicit(&e->mask, a.mask, memory_order_relaxed);
        atomic_store_explicit(&e->rule, a.rule, memory_order_relaxed);
        atomic_store_explicit(&e->gen, at, memory_order_release);
    }
    return a;
}

uint64_t place_site_mask(uintptr_t ra)
{
    return place_address(ra).mask;
}
