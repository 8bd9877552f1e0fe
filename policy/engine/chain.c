#include "chain.h"

#include <string.h>

#include "../base/clock.h"
#include "../base/out.h"
#include "../base/path.h"
#include "../stats/symmetric.h"
#include "../tiers/arena.h"
#include "dry.h"
#include "place.h"

static void count(struct place_tier *t, enum place_event e, uint64_t n)
{
    place_stats_count(t->stats, e, n);
}

/* Why an attempt came back empty: the limit refused (frees may make room) or the tier's
 * memory did (they may not). */
enum refusal { NONE, LIMIT, MEMORY };

/* A SHMEM library's block: its whole pages bound to t's nodes, counted in t. */
static void *bind(struct place_tier *t, const struct place_request *r, bool force,
                  enum refusal *why)
{
    static _Atomic bool told;
    *why = LIMIT;
    if (!place_tier_reserve(t, r->size, force))
        return NULL;
    if (place_numa_bind(r->block, r->size, place_arena_binding(t), true)) {
        place_tier_release(t, (int64_t)r->size);
        place_symmetric_unbindable();
        if (!atomic_exchange(&told, true))
            place_warn("the kernel refused to bind a symmetric heap block's pages to tier %s "
                       "(mbind): such blocks stay where the SHMEM library put them",
                       t->name);
        *why = MEMORY;
        return NULL;
    }
    place_tier_commit(t, r->size, force);
    *why = NONE;
    return r->block;
}

/* One try at tier t (force: past the limit): its allocator counts what it gives. */
static void *attempt(struct place_tier *t, const struct place_request *r, bool force,
                     enum refusal *why)
{
    if (r->call == PLACE_SHMEM)
        return bind(t, r, force, why);
    bool limited;
    void *p = t->allocator->alloc(t, r, force, &limited);
    *why = p ? NONE : limited ? LIMIT : MEMORY;
    return p;
}

struct retry {
    const struct place_request *r;
    void *p;
};

static int retry(struct place_tier *t, void *ctx)
{
    struct retry *x = ctx;
    enum refusal why;
    if ((x->p = attempt(t, x->r, false, &why)))
        return 1;
    return why == LIMIT ? 0 : -1;
}

/* on_full = wait: tries again each time a free in t wakes it, until the timeout or until
 * the tier's memory, not its limit, refuses. */
static void *wait_for_room(struct place_tier *t, const struct place_rule_config *rule,
                           const struct place_request *r)
{
    int64_t start = place_now_ns();
    struct retry x = {r, NULL};
    count(t, PLACE_EV_WAITS, 1);
    place_tier_wait(t, start + (int64_t)rule->wait_ms * 1000000, retry, &x);
    count(t, PLACE_EV_WAIT_NS, (uint64_t)(place_now_ns() - start));
    return x.p;
}

enum outcome { SERVED, REFUSED, FAILED };

/* Whether waiting can help (place_tier_may_wait). A process with one thread would wait
 * the whole timeout on every request: said once (not by the children a multi-threaded
 * program forks, each of which has one thread). */
static bool may_wait(struct place_tier *t, size_t want, const struct place_rule_config *rule)
{
    static _Atomic bool told;
    if (place_tier_may_wait(t, want))
        return true;
    if (want <= t->limit && !place_run.forked_from && !atomic_exchange(&told, true))
        place_warn("rule %s: on_full = wait, but this process has one thread, whose own frees "
                   "are the only ones that could make room: it goes down the chain at once",
                   rule->name);
    return false;
}

/* Tier t of the rule's chain, with reclaim and on_full. */
static enum outcome try_tier(struct place_tier *t, const struct place_rule_config *rule,
                             const struct place_request *r, void **out)
{
    enum refusal why;
    if ((*out = attempt(t, r, false, &why)))
        return SERVED;
    count(t, PLACE_EV_REFUSED, 1);
    size_t want = place_tier_good_size(t, r->size, r->align);
    if (t->allocator->reclaim) {
        count(t, PLACE_EV_RECLAIMED, t->allocator->reclaim(t, want));
        if ((*out = attempt(t, r, false, &why)))
            return SERVED;
    }
    switch (rule->on_full) {
    case PLACE_WAIT:
        /* only frees can help */
        if (why == LIMIT && rule->wait_ms && may_wait(t, want, rule) &&
            (*out = wait_for_room(t, rule, r)))
            return SERVED;
        break;
    case PLACE_OVERFLOW:
        if ((*out = attempt(t, r, true, &why)))
            return SERVED;
        break;
    case PLACE_FAIL:
        count(t, PLACE_EV_FAILURES, 1);
        return FAILED;
    case PLACE_FALLBACK:
        break;
    }
    count(t, PLACE_EV_FALLBACKS_OUT, 1);
    return REFUSED;
}

/* Counts a chain's skip of t, and tells once per tier that this machine lacks it. */
static void skip(struct place_tier *t, const struct place_rule_config *rule)
{
    count(t, PLACE_EV_SKIPPED, 1);
    /* a tier still being prepared by another thread is skipped without a verdict */
    if (t->unavailable && !atomic_exchange(&t->told, true))
        place_warn("rule %s skips tier %s: %s", rule->name, t->name, t->unavailable);
}

/* Whether tier t can serve call at all: GPU memory only CUDA calls, host memory the GPU
 * cannot reach only the malloc family; pinned and managed memory both; a symmetric
 * block's pages only nodes and its own heap. */
static bool serves(const struct place_tier *t, enum place_call call)
{
    enum place_kind kind = t->config ? t->config->kind : PLACE_DRAM;
    if (call == PLACE_CUDA)
        return kind == PLACE_DEVICE || kind == PLACE_PINNED || kind == PLACE_MANAGED;
    if (call == PLACE_SHMEM)
        return PLACE_SHMEM_KINDS & 1u << kind;
    return kind != PLACE_DEVICE && kind != PLACE_SYMMETRIC;
}

/* One tier of the chain: SERVED with *out, REFUSED (or skipped: *out NULL) or FAILED. */
static enum outcome try_link(struct place_tier *t, const struct place_rule_config *rule,
                             const struct place_request *r, const struct place_request *tr,
                             void **out)
{
    *out = NULL;
    bool limited;
    if (t == &place_dram) /* glibc's: no limit, no ranges, counted by the shim */
        return (*out = t->allocator->alloc(t, r, false, &limited)) ? SERVED : REFUSED;
    if (t->config && t->config->kind == PLACE_SYMMETRIC) /* the heap's pages left as they are */
        return (*out = r->block) ? SERVED : REFUSED;
    if (place_dry_run) {
        if (place_tier_reserve(t, r->size, false))
            return (*out = place_dry_alloc(t, r)) ? SERVED : REFUSED;
        count(t, PLACE_EV_REFUSED, 1);
        count(t, PLACE_EV_FALLBACKS_OUT, 1);
        return REFUSED;
    }
    return try_tier(t, rule, tr, out);
}

void *place_chain(const struct place_rule_config *rule, const struct place_request *r,
                  unsigned *tier)
{
    /* glibc takes any alignment and rounds it up to a power of two; malloc's own covers
     * the small ones: tiers get it rounded */
    struct place_request tr = *r;
    tr.align = 0;
    if (r->call == PLACE_ALIGNED && r->align > _Alignof(max_align_t))
        tr.align = r->align & (r->align - 1) ? (size_t)1 << (64 - __builtin_clzll(r->align))
                                             : r->align;
    bool refused = r->refused != NULL; /* an earlier tier turned this request away */
    for (unsigned k = 0; k < rule->nchain; k++) {
        unsigned i = rule->chain[k];
        struct place_tier *t = place_tiers[i];
        if (!serves(t, r->call) || t == r->refused)
            continue;
        if (i != 0 && !place_dry_run && !place_tier_ready(t)) {
            skip(t, rule);
            continue;
        }
        void *p;
        enum outcome o = try_link(t, rule, r, &tr, &p);
        if (o == FAILED)
            return NULL;
        if (o == SERVED) {
            if (refused)
                count(t, PLACE_EV_FALLBACKS_IN, 1);
            *tier = i;
            return p;
        }
        refused = true;
    }
    if (r->call == PLACE_CUDA) /* out of memory: no host memory stands in for the GPU's */
        return NULL;
    if (rule->on_full == PLACE_FAIL) {
        if (refused) /* a dry run's planned tiers all refused */
            count(place_tiers[rule->chain[rule->nchain - 1]], PLACE_EV_FAILURES, 1);
        return NULL;
    }
    if (r->call == PLACE_SHMEM) { /* the block stays where its heap put it */
        *tier = place_symmetric_tier()->index;
        return r->block;
    }
    *tier = 0;
    bool limited;
    void *p = place_dram.allocator->alloc(&place_dram, r, false, &limited);
    if (p && refused)
        count(&place_dram, PLACE_EV_FALLBACKS_IN, 1);
    return p;
}

void *place_chain_tier(struct place_tier *t, const struct place_request *r)
{
    enum refusal why = NONE;
    void *p = NULL;
    if (place_dry_run)
        p = place_tier_reserve(t, r->size, false) ? place_dry_alloc(t, r) : NULL;
    else if (place_tier_ready(t))
        p = attempt(t, r, false, &why);
    if (!p)
        count(t, PLACE_EV_REFUSED, 1);
    return p;
}

unsigned place_chain_first(const struct place_rule_config *r)
{
    for (unsigned k = 0; k < r->nchain; k++) {
        unsigned i = r->chain[k];
        if (i == 0 || place_dry_run ||
            (serves(place_tiers[i], PLACE_MALLOC) && !place_tiers[i]->unavailable))
            return i;
    }
    return 0;
}
