#include "owner.h"

#include <pthread.h>

#include "../base/rank.h"

struct place_owner_table place_owners; /* no range: the interval is empty */

/* Serialises writers only; readers never take it. */
static pthread_mutex_t add_lock = PTHREAD_MUTEX_INITIALIZER;

int place_owner_add(void *p, size_t len, struct place_tier *t)
{
    uintptr_t lo = (uintptr_t)p, hi = lo + len;
    int rc = -1;
    place_lock(&add_lock, PLACE_RANK_OWNER);
    unsigned n = place_owners.n, k = 0;
    while (k < n && place_owners.range[k].hi != 0) /* a removed range's slot first */
        k++;
    if (k < PLACE_MAX_RANGES && len > 0) {
        struct place_range *r = &place_owners.range[k];
        r->tier = t;
        r->lo = lo;
        /* hi last: a reader that sees it sees the rest */
        __atomic_store_n(&r->hi, hi, __ATOMIC_RELEASE);
        if (k == n)
            __atomic_store_n(&place_owners.n, n + 1, __ATOMIC_RELEASE);

        uintptr_t old_lo = place_owners.lo, old_hi = old_lo + place_owners.span;
        uintptr_t new_lo = n == 0 || lo < old_lo ? lo : old_lo;
        uintptr_t new_hi = n == 0 || hi > old_hi ? hi : old_hi;
        /* The interval only grows (lo no higher), the span first: a reader that sees the
         * new lo sees the new span, and [old lo, old lo + new span) covers every range
         * registered before. */
        __atomic_store_n(&place_owners.span, new_hi - new_lo, __ATOMIC_RELEASE);
        __atomic_store_n(&place_owners.lo, new_lo, __ATOMIC_RELEASE);
        rc = 0;
    }
    place_unlock(&add_lock, PLACE_RANK_OWNER);
    return rc;
}

void place_owner_remove(void *p)
{
    place_lock(&add_lock, PLACE_RANK_OWNER);
    for (unsigned k = 0; k < place_owners.n; k++)
        if (place_owners.range[k].lo == (uintptr_t)p && place_owners.range[k].hi != 0)
            __atomic_store_n(&place_owners.range[k].hi, 0, __ATOMIC_RELEASE); /* [lo, 0): empty */
    place_unlock(&add_lock, PLACE_RANK_OWNER);
}

struct place_tier *place_owner_lookup(uintptr_t a)
{
    unsigned n = __atomic_load_n(&place_owners.n, __ATOMIC_ACQUIRE);
    for (unsigned k = 0; k < n; k++) {
        const struct place_range *r = &place_owners.range[k];
        if (a < __atomic_load_n(&r->hi, __ATOMIC_ACQUIRE) && a >= r->lo)
            return r->tier;
    }
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
