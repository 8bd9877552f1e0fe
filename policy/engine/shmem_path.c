#include "shmem_path.h"

#include <unistd.h>

#include "../base/guard.h"
#include "../stats/sites.h"
#include "../stats/symmetric.h"
#include "../tiers/binding.h"
#include "../tiers/tier.h"
#include "blocks.h"
#include "chain.h"
#include "place.h"

bool place_shmem_on;

size_t place_shmem_pages(const void *p, size_t size, void **lo)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1);
    uintptr_t to = ((uintptr_t)p + size) & ~(page - 1);
    *lo = (void *)from;
    return to > from ? to - from : 0;
}

bool place_shmem_begin(struct place_shmem_call *c)
{
    c->t = NULL;
    if (!place_shmem_on || place_dry_run || place_guarded())
        return true;
    uint8_t was = place_guard_enter();
    struct place_tier *t = place_symmetric_tier();
    struct place_block old = {0};
    if (t && c->kind == PLACE_SHMEM_REALLOC && c->old)
        place_blocks_find(PLACE_BLOCKS_SHMEM, (uintptr_t)c->old, &old);
    size_t grow = c->size > old.usable ? c->size - old.usable : 0;
    if (t && !place_tier_reserve(t, grow, false)) {
        place_stats_count(t->stats, PLACE_EV_REFUSED, 1);
        place_stats_count(t->stats, PLACE_EV_FAILURES, 1);
        place_symmetric_decided(c->kind, c->size, c->align, -1, -1);
        place_guard_leave(was);
        return false;
    }
    c->t = t;
    c->reserved = grow;
    /* the library's own mallocs inside the call are the program's, counted and placed */
    place_guard_leave(was);
    return true;
}

/* Block b's pages back to the process's default policy, and their count out of the tier
 * they were bound to. */
static void unbind(const struct place_block *b)
{
    void *lo;
    size_t bytes = place_shmem_pages((void *)(uintptr_t)b->key, b->usable, &lo);
    place_numa_bind(lo, bytes, NULL, false);
    place_tier_uncharge(b->tier, bytes);
    place_symmetric_bound(b->tier->index, -(int64_t)bytes);
}

/* Block p out of the symmetric tier t. */
static void forget(struct place_tier *t, void *p)
{
    struct place_block b;
    if (!p || !place_blocks_take(PLACE_BLOCKS_SHMEM, (uintptr_t)p, &b))
        return;
    if (b.placed)
        unbind(&b);
    place_tier_uncharge(t, b.usable);
}

/* The tier the block's pages go to, by the rule that takes the call: the chain's answer,
 * or t (the symmetric tier) when no rule does or the block has no whole page. -1 when
 * on_full = fail turned it away. */
static int decide(struct place_shmem_call *c, void *p, int *rule)
{
    struct place_tier *t = c->t;
    void *lo;
    size_t bytes = place_shmem_pages(p, c->size, &lo);
    *rule = place_match(PLACE_API_SHMEM, c->size, c->ra);
    if (*rule < 0 || !bytes)
        return (int)t->index;
    struct place_request r = {.size = bytes, .call = PLACE_SHMEM, .ra = c->ra, .block = lo};
    unsigned i;
    if (!place_chain(place_rules[*rule], &r, &i))
        return c->kind == PLACE_SHMEM_REALLOC ? (int)t->index : -1; /* realloc's data stays */
    if (i != t->index)
        place_symmetric_bound(i, (int64_t)bytes);
    return (int)i;
}

void *place_shmem_end(struct place_shmem_call *c, void *p)
{
    struct place_tier *t = c->t;
    if (!t)
        return p;
    uint8_t was = place_guard_enter();
    place_tier_release(t, (int64_t)c->reserved);
    if (!p && c->size) { /* the library's refusal; realloc's old block is as it was */
        place_guard_leave(was);
        return p;
    }
    if (c->kind == PLACE_SHMEM_REALLOC)
        forget(t, c->old);
    if (p) {
        int rule, tier = decide(c, p, &rule);
        place_symmetric_decided(c->kind, c->size, c->align, rule, tier);
        if (tier >= 0) {
            place_tier_charge(t, c->size, true); /* begin reserved what the limit allows */
            bool bound = tier != (int)t->index;
            place_blocks_put(PLACE_BLOCKS_SHMEM, &(struct place_block){.key = (uintptr_t)p,
                                                                        .tier = place_tiers[tier],
                                                                        .usable = c->size,
                                                                        .placed = bound});
            if (rule >= 0)
                place_count_rule(rule, c->ra, (unsigned)tier, c->size);
        } else {
            c->free(p);
            p = NULL;
        }
    }
    place_guard_leave(was);
    return p;
}

void place_shmem_free(void *p)
{
    struct place_tier *t;
    if (!p || !place_shmem_on || place_dry_run || place_guarded() || !(t = place_symmetric_tier()))
        return;
    uint8_t was = place_guard_enter();
    forget(t, p);
    place_guard_leave(was);
}
