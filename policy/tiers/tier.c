#include "tier.h"

#include <string.h>

#include "../../config/policy.h"
#include "../base/clock.h"
#include "../base/futex.h"
#include "../base/kernel.h"
#include "../base/large.h"
#include "../stats/timeline.h"
#include "shared.h"

struct place_tier *place_tiers[PLACE_MAX_TIERS + 1] = {&place_dram, NULL};

/* Each kind: its allocator over its source. */
static const struct kind {
    const struct place_allocator *allocator;
    const struct place_source *source;
} kinds[] = {
    [PLACE_DRAM] = {&place_arena_allocator, &place_dram_source},
    [PLACE_HBW] = {&place_arena_allocator, &place_hbw_source},
    [PLACE_NUMA] = {&place_arena_allocator, &place_numa_source},
    [PLACE_SYMMETRIC] = {NULL, &place_symmetric_source},
#ifdef PLACE_HAVE_CUDA
    [PLACE_PINNED] = {&place_pool_allocator, &place_pinned_source},
    [PLACE_MANAGED] = {&place_pool_allocator, &place_managed_source},
    [PLACE_DEVICE] = {&place_direct_allocator, &place_device_source},
#endif
};

void place_tiers_init(const struct place_policy *policy)
{
    static struct place_tier configured[PLACE_MAX_TIERS] PLACE_LARGE;
    for (unsigned k = 1; policy && k < policy->ntiers; k++) {
        const struct place_tier_config *c = &policy->tiers[k];
        struct place_tier *t = &configured[k];
        struct kind kind = c->kind < sizeof kinds / sizeof kinds[0] ? kinds[c->kind]
                                                                          : (struct kind){0};
        *t = (struct place_tier){.name = c->name,
                                 .index = k,
                                 .config = c,
                                 .limit = c->limit,
                                 .stats = &place_nodes[k],
                                 .allocator = kind.allocator,
                                 .source = kind.source};
        if (!t->source)
            t->unavailable = "this libplace was built without cuda.h (meson -Dcudaheaders=DIR)";
        if (c->limit && c->reclaim_min) {
            t->reclaim_below = c->limit / 100 * c->reclaim_min;
            t->reclaim_to = c->limit / 100 * c->reclaim_target;
        }
        /* a dry run allocates nothing: it shares nothing either */
        if (c->scope == PLACE_SCOPE_NODE && c->limit && !policy->dry_run && !t->unavailable)
            t->unavailable = place_shared_attach(t);
        place_tiers[k] = t;
    }
    for (struct place_tier **t = place_tiers; *t; t++)
        if ((*t)->source && (*t)->source->init && !(*t)->unavailable &&
            (*t)->source->init(*t) != 0 &&
            !(*t)->unavailable)
            (*t)->unavailable = "its initialisation failed";
    /* A dry run uses no tier, yet its report says which planned tiers this machine
     * lacks: an hbw tier asks memkind for its nodes now rather than at its first use. */
    for (struct place_tier **t = place_tiers; policy && policy->dry_run && *t; t++)
        if ((*t)->config && (*t)->config->kind == PLACE_HBW)
            place_tier_ready(*t);
}

struct place_tier *place_tiers_add(struct place_tier *t, struct place_tier_config *c)
{
    for (unsigned n = 1; n < PLACE_MAX_TIERS; n++) {
        struct place_tier *none = NULL;
        if (__atomic_load_n(&place_tiers[n], __ATOMIC_ACQUIRE))
            continue;
        t->name = c->name;
        t->index = n;
        t->config = c;
        t->stats = &place_nodes[n];
        t->prepared = 2;
        /* the report may be reading the list: the tier is whole before it is in it */
        if (__atomic_compare_exchange_n(&place_tiers[n], &none, t, false, __ATOMIC_RELEASE,
                                        __ATOMIC_ACQUIRE))
            return t;
    }
    return NULL;
}

bool place_tier_ready(struct place_tier *t)
{
    int state = atomic_load_explicit(&t->prepared, memory_order_acquire);
    if (__builtin_expect(state != 2, 0) && !t->unavailable) {
        if (!t->source->prepare)
            return true;
        state = 0;
        if (!atomic_compare_exchange_strong(&t->prepared, &state, 1))
            return false; /* another thread is preparing it */
        int rc = t->source->prepare(t);
        if (rc < 0 && !t->unavailable)
            t->unavailable = "it could not be prepared";
        atomic_store_explicit(&t->prepared, rc > 0 ? 0 : 2, memory_order_release);
        if (rc > 0)
            return false;
    }
    return !t->unavailable;
}

/* Watermarks: when a reservation takes the free room under reclaim_below, the tier
 * releases cached memory until reclaim_to would be free. Only the block that crosses the
 * mark asks, so a tier that stays nearly full is not asked on every call. */
static void watermark(struct place_tier *t, int64_t after, size_t got)
{
    uint64_t room = t->limit - (uint64_t)after, room_before = room + got;
    if (room < t->reclaim_below && room_before >= t->reclaim_below && t->allocator &&
        t->allocator->reclaim)
        place_stats_count(t->stats, PLACE_EV_RECLAIMED,
                          t->allocator->reclaim(t, t->reclaim_to - room));
}

int64_t place_tier_held(const struct place_tier *t)
{
    return t->shared ? place_shared_in_use(t->shared) : place_stats_bytes(t->stats);
}

void place_tier_commit_marks(struct place_tier *t, size_t got, bool force)
{
    int64_t after = place_tier_held(t);
    if (t->reclaim_below)
        watermark(t, after, got);
    /* how far past the limit the node went is its peak's business (peak - limit) */
    if (force && t->limit && after > (int64_t)t->limit)
        place_stats_count(t->stats, PLACE_EV_OVERFLOW, 1);
}

void *place_tier_counted(struct place_tier *t, const struct place_request *r, bool force,
                         bool *limited, void *(*get)(struct place_tier *, const struct place_request *),
                         void (*put)(struct place_tier *, void *p, size_t usable,
                                     const struct place_request *r))
{
    size_t want = place_tier_good_size(t, r->size, r->align);
    *limited = true;
    if (!place_tier_reserve(t, want, force))
        return NULL;
    void *p = get(t, r);
    if (!p) {
        place_tier_release(t, (int64_t)want);
        *limited = false;
        return NULL;
    }
    size_t got = place_tier_usable(t, p, r->size, r->align);
    if (got > want && !place_tier_reserve(t, got - want, force)) {
        put(t, p, got, r);
        place_tier_release(t, (int64_t)want);
        return NULL;
    }
    if (got < want)
        place_tier_release(t, (int64_t)(want - got));
    place_tier_commit(t, got, force);
    return p;
}

bool place_tier_charge(struct place_tier *t, size_t bytes, bool force)
{
    if (!place_tier_reserve(t, bytes, force))
        return false;
    place_tier_commit(t, bytes, force);
    return true;
}

/* A limit the node's processes share: theirs first, then this process's own count, which
 * has no limit of its own. */
bool place_tier_reserve_shared(struct place_tier *t, size_t bytes, bool force)
{
    if (!place_shared_reserve(t->shared, (int64_t)bytes, force ? 0 : t->limit))
        return false;
    if (!place_stats_reserve(t->stats, (int64_t)bytes, 0)) {
        place_shared_release(t->shared, (int64_t)bytes);
        return false;
    }
    place_timeline_tick();
    return true;
}

void place_tier_release(struct place_tier *t, int64_t bytes)
{
    place_stats_release(t->stats, bytes);
    if (__builtin_expect(t->shared != NULL, 0))
        place_shared_release(t->shared, bytes); /* which wakes every process's waiters */
    else
        place_waits_wake(&t->waits, false);
    place_timeline_tick();
}

/* Room in a shared limit may come from another process's frees too. */
bool place_tier_may_wait(const struct place_tier *t, size_t bytes)
{
    return bytes <= t->limit &&
           (place_process_threads() != 1 || (t->shared && place_shared_others(t->shared)));
}

bool place_tier_wait(struct place_tier *t, int64_t deadline,
                     int (*room)(struct place_tier *t, void *ctx), void *ctx)
{
    int said;
    struct place_waits *w = t->shared ? place_shared_waits(t->shared) : &t->waits;
    atomic_fetch_add(&w->waiters, 1); /* seq_cst: ordered before room's reservation */
    /* room is asked at least once, however near the deadline */
    for (;;) {
        uint32_t seen = atomic_load(&w->wake);
        if ((said = room(t, ctx)) != 0)
            break;
        int64_t now = place_now_ns();
        if (now >= deadline)
            break;
        place_futex_wait(&w->wake, seen, deadline - now, t->shared != NULL);
    }
    atomic_fetch_sub(&w->waiters, 1);
    return said > 0;
}

void place_tier_uncharge(struct place_tier *t, size_t usable)
{
    place_stats_count(t->stats, PLACE_EV_FREES, 1);
    place_tier_release(t, (int64_t)usable);
}

void place_tiers_restart(void)
{
    for (struct place_tier **t = place_tiers; *t; t++) {
        place_stats_restart((*t)->stats);
        /* the parent's waiting threads are not the child's */
        atomic_store(&(*t)->waits.waiters, 0);
        atomic_store(&(*t)->waits.wake, 0);
    }
}
