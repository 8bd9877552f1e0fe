#include "owner.h"

#include <pthread.h>

struct place_owner_table place_owners;

/* Serialises writers only; readers never take it. */
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;

int place_owner_add(void *p, size_t len, struct place_tier *t)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + len;
    int rc = -1;
    pthread_mutex_lock(&add_lock);
    unsigned n = place_owners.n;
    if (n < PLACE_MAX_RANGES && len > 0) {
        place_owners.range[n] = (struct place_range){lo, hi, t};
        __atomic_store_n(&place_owners.n, n + 1, __ATOMIC_RELEASE);

        uintptr_t old_lo = place_owners.lo, old_hi = old_lo + place_owners.span;
        uintptr_t new_lo = n == 0 || lo < old_lo ? lo : old_lo;
        uintptr_t new_hi = n == 0 || hi > old_hi ? hi : old_hi;
        /* The span first: while lo is still old_lo (>= new_lo), [old_lo, old_lo + span)
         * already covers every range registered before, so no reader misses a pointer
         * it should have found. */
        __atomic_store_n(&place_owners.span, new_hi - new_lo, __ATOMIC_RELEASE);
        __atomic_store_n(&place_owners.lo, new_lo, __ATOMIC_RELEASE);
        rc = 0;
    }
    pthread_mutex_unlock(&add_lock);
    return rc;
}

struct place_tier *place_owner_lookup(uintptr_t a)
{
    unsigned n = __atomic_load_n(&place_owners.n, __ATOMIC_ACQUIRE);
    for (unsigned k = 0; k < n; k++)
        if (a >= place_owners.range[k].lo && a < place_owners.range[k].hi)
            return place_owners.range[k].tier;
    return NULL;
}

void place_owner_prefork(void)
{
    pthread_mutex_lock(&add_lock);
}

void place_owner_postfork(void)
{
    pthread_mutex_unlock(&add_lock);
}
