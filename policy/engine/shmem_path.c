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

/* The bytes of whole pages inside [p, p + size), and where they start. */
static size_t whole_pages(const void *p, size_t size, void **lo)
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
    size_t bytes = whole_pages((void *)(uintptr_t)b->key, b->usable, &lo);
    place_numa_bind(lo, bytes, NULL, false);
    place_tier_uncharge(b->tier, bytes);
    place_symmetric_bound(b->tier->index, -(int64_t)bytes);
}

/* Block p out of the symmetric tier t, counted as a free: its bytes given back, or with
 * keep left reserved for the block a realloc made of it. What it counted (0: unknown). */
static size_t forget(struct place_tier *t, void *p, bool keep)
{
    struct place_block b;
    if (!p || !place_blocks_take(PLACE_BLOCKS_SHMEM, (uintptr_t)p, &b))
        return 0;
    if (b.placed)
        unbind(&b);
    if (keep)
        place_stats_count(t->stats, PLACE_EV_FREES, 1);
    else
        place_tier_uncharge(t, b.usable);
    return b.usable;
}

/* The tier the block's pages go to, by the rule that takes the call: the chain's answer,
 * or t (the symmetric tier) when no rule does or the block has no whole page. -1 when
 * on_full = fail turned it away. */
static int decide(struct place_shmem_call *c, void *p, int *rule)
{
    struct place_tier *t = c->t;
    void *lo;
    size_t bytes = whole_pages(p, c->size, &lo);
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
    /* the bytes held for p: begin's reservation, and those of the block a realloc made it
     * of, handed over so that no other thread can take them in between */
    size_t held = c->reserved;
    if (c->kind == PLACE_SHMEM_REALLOC && p)
        held += forget(t, c->old, true);
    else if (c->kind == PLACE_SHMEM_REALLOC && !c->size) /* freed, as at size 0 */
        forget(t, c->old, false);
    int rule = -1, tier = -1;
    if (p) {
        tier = decide(c, p, &rule);
        place_symmetric_decided(c->kind, c->size, c->align, rule, tier);
    }
    if (tier >= 0) {
        place_tier_release(t, (int64_t)held - (int64_t)c->size); /* a shrunk block's rest */
        place_tier_commit(t, c->size, false);
        place_blocks_put(PLACE_BLOCKS_SHMEM,
                         &(struct place_block){.key = (uintptr_t)p,
                                               .tier = place_tiers[tier],
                                               .usable = c->size,
                                               .placed = tier != (int)t->index});
        if (rule >= 0)
            place_count_rule(rule, c->ra, (unsigned)tier, c->size);
    } else { /* the library answered NULL (a realloc's old block is as it was), or
              * on_full = fail turned p away */
        place_tier_release(t, (int64_t)held);
        if (p)
            c->free(p);
        p = NULL;
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
    forget(t, p, false);
    place_guard_leave(was);
}
