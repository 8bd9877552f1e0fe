#include "chain.h"

#include <string.h>
#include <time.h>

#include "../shim/glibc.h"
#include "dry.h"
#include "futex.h"
#include "out.h"
#include "tier.h"
#include "timeline.h"

void *place_glibc(size_t size, size_t align, enum place_call call)
{
    switch (call) {
    case PLACE_CALLOC:
        return __libc_calloc(1, size);
    case PLACE_ALIGNED:
        return __libc_memalign(align, size);
    default:
        return __libc_malloc(size);
    }
}

static void add(_Atomic uint64_t *c, uint64_t n)
{
    atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Watermarks: when a reservation takes the free room under reclaim_below, the tier
 * releases cached memory until reclaim_to would be free. Only the reservation that
 * crosses the mark asks, so a tier that stays nearly full is not asked on every call. */
static void watermark(struct place_tier *t, int64_t before, int64_t after)
{
    uint64_t room_before = t->limit - (uint64_t)before, room = t->limit - (uint64_t)after;
    if (room < t->reclaim_below && room_before >= t->reclaim_below && t->ops->reclaim)
        add(&t->stats.reclaimed, t->ops->reclaim(t, t->reclaim_to - room));
}

/* What a block of size bytes at align will count in tier t: its usable size. */
static size_t charge(const struct place_tier *t, size_t size, size_t align)
{
    return t->ops->good_size ? t->ops->good_size(size, align) : size;
}

/* Counts a block of got bytes that t now holds, reserved when t held `before` (only
 * read with watermarks): watermarks, and the excess of one forced past the limit. */
static void took(struct place_tier *t, int64_t before, size_t got, bool force)
{
    add(&t->stats.allocs, 1);
    if (t->reclaim_below)
        watermark(t, before, before + (int64_t)got);
    if (force && t->limit) {
        int64_t over =
            atomic_load_explicit(&t->stats.bytes, memory_order_relaxed) - (int64_t)t->limit;
        add(&t->stats.overflow_bytes, over <= 0 ? 0 : over < (int64_t)got ? (uint64_t)over : got);
    }
    place_timeline_tick();
}

/* Why an attempt came back empty: the limit refused (frees may make room) or the tier's
 * memory did (they may not). */
enum refusal { NONE, LIMIT, MEMORY };

/* One try at tier t: reserve what the block will count, then allocate. force charges it
 * past the limit. A block bigger than good_size foresaw takes the rest under the limit
 * too, or goes back. */
static void *attempt(struct place_tier *t, size_t size, size_t align, enum place_call call,
                     bool force, enum refusal *why)
{
    uint64_t limit = force ? 0 : t->limit;
    size_t want = charge(t, size, align);
    /* only watermarks need the count before (reclaim_below is 0 without a limit) */
    int64_t before =
        t->reclaim_below ? atomic_load_explicit(&t->stats.bytes, memory_order_relaxed) : 0;
    *why = LIMIT;
    if (!place_stats_reserve(&t->stats, (int64_t)want, limit))
        return NULL;
    void *p = call == PLACE_CALLOC && !align && t->ops->zalloc ? t->ops->zalloc(t, size)
                                                               : t->ops->alloc(t, size, align);
    if (!p) {
        place_tier_release(t, (int64_t)want);
        *why = MEMORY;
        return NULL;
    }
    size_t got = place_tier_counted(t, p, size, align);
    if (got > want && !place_stats_reserve(&t->stats, (int64_t)(got - want), limit)) {
        t->ops->free(t, p, got);
        place_tier_release(t, (int64_t)want);
        return NULL;
    }
    if (got < want)
        place_tier_release(t, (int64_t)(want - got));
    if (call == PLACE_CALLOC && (align || !t->ops->zalloc))
        memset(p, 0, size);
    took(t, before, got, force);
    *why = NONE;
    return p;
}

bool place_tier_charge(struct place_tier *t, size_t bytes, bool force)
{
    int64_t before =
        t->reclaim_below ? atomic_load_explicit(&t->stats.bytes, memory_order_relaxed) : 0;
    if (!place_stats_reserve(&t->stats, (int64_t)bytes, force ? 0 : t->limit))
        return false;
    took(t, before, bytes, force);
    return true;
}

/* on_full = wait: tries again each time a free in t wakes it, until the timeout or until
 * the tier's memory, not its limit, refuses. */
static void *wait_for_room(struct place_tier *t, const struct place_rule_config *r, size_t size,
                           size_t align, enum place_call call)
{
    int64_t start = now_ns(), deadline = start + (int64_t)r->wait_ms * 1000000;
    void *p = NULL;
    enum refusal why = LIMIT;
    add(&t->stats.waits, 1);
    atomic_fetch_add(&t->waiters, 1); /* seq_cst: ordered before the retry's reservation */
    for (int64_t now = start; now < deadline && why == LIMIT; now = now_ns()) {
        uint32_t seen = atomic_load(&t->wake);
        if ((p = attempt(t, size, align, call, false, &why)))
            break;
        if (why == LIMIT)
            place_futex_wait(&t->wake, seen, deadline - now);
    }
    atomic_fetch_sub(&t->waiters, 1);
    add(&t->stats.wait_ns, (uint64_t)(now_ns() - start));
    return p;
}

enum outcome { SERVED, REFUSED, FAILED };

/* Tier t of r's chain, with reclaim and on_full. */
static enum outcome try_tier(struct place_tier *t, const struct place_rule_config *r, size_t size,
                             size_t align, enum place_call call, void **out)
{
    enum refusal why;
    if ((*out = attempt(t, size, align, call, false, &why)))
        return SERVED;
    add(&t->stats.refused, 1);
    size_t want = charge(t, size, align);
    if (t->ops->reclaim) {
        add(&t->stats.reclaimed, t->ops->reclaim(t, want));
        if ((*out = attempt(t, size, align, call, false, &why)))
            return SERVED;
    }
    switch (r->on_full) {
    case PLACE_WAIT:
        /* only frees can help, and only a request that fits the limit at all */
        if (why == LIMIT && t->limit >= want && r->wait_ms &&
            (*out = wait_for_room(t, r, size, align, call)))
            return SERVED;
        break;
    case PLACE_OVERFLOW:
        if ((*out = attempt(t, size, align, call, true, &why)))
            return SERVED;
        break;
    case PLACE_FAIL:
        add(&t->stats.failures, 1);
        return FAILED;
    case PLACE_FALLBACK:
        break;
    }
    add(&t->stats.fallbacks_out, 1);
    return REFUSED;
}

/* Counts a chain's skip of t, and tells once per tier that this machine lacks it. */
static void skip(struct place_tier *t, const struct place_rule_config *r)
{
    add(&t->stats.skipped, 1);
    /* a tier still being prepared by another thread is skipped without a verdict */
    if (t->unavailable && !atomic_exchange(&t->told, true))
        place_warn("rule %s skips tier %s: %s", r->name, t->name, t->unavailable);
}

/* Whether tier t can serve call at all: GPU memory only CUDA calls, host memory the GPU
 * cannot reach only the malloc family; pinned and managed memory both. */
static bool serves(const struct place_tier *t, enum place_call call)
{
    enum place_kind kind = t->config ? t->config->kind : PLACE_DRAM;
    if (call == PLACE_CUDA)
        return kind == PLACE_DEVICE || kind == PLACE_PINNED || kind == PLACE_MANAGED;
    return kind != PLACE_DEVICE;
}

void *place_chain(const struct place_rule_config *r, size_t size, size_t align,
                  enum place_call call, unsigned *tier)
{
    /* glibc takes any alignment and rounds it up to a power of two; malloc's own covers
     * the small ones */
    size_t a = 0;
    if (call == PLACE_ALIGNED && align > _Alignof(max_align_t))
        a = align & (align - 1) ? (size_t)1 << (64 - __builtin_clzll(align)) : align;
    bool refused = false; /* an earlier tier turned this request away */
    for (unsigned k = 0; k < r->nchain; k++) {
        unsigned i = r->chain[k];
        struct place_tier *t = place_tiers[i];
        void *p = NULL;
        if (!serves(t, call))
            continue;
        if (i == 0) { /* glibc's dram: no limit, no ranges, counted by the shim */
            p = place_glibc(size, align, call);
        } else if (place_dry_run) {
            if (place_stats_reserve(&t->stats, (int64_t)size, t->limit))
                p = place_dry_alloc(i, size, align, call);
            else
                add(&t->stats.refused, 1), add(&t->stats.fallbacks_out, 1);
        } else if (!place_tier_ready(t)) {
            skip(t, r);
            continue;
        } else if (try_tier(t, r, size, a, call, &p) == FAILED) {
            return NULL;
        }
        if (p) {
            if (refused)
                add(&t->stats.fallbacks_in, 1);
            *tier = i;
            return p;
        }
        refused = true;
    }
    if (call == PLACE_CUDA) /* out of memory: no host memory stands in for the GPU's */
        return NULL;
    if (r->on_full == PLACE_FAIL) {
        if (refused) /* a dry run's planned tiers all refused */
            add(&place_tiers[r->chain[r->nchain - 1]]->stats.failures, 1);
        return NULL;
    }
    *tier = 0;
    void *p = place_glibc(size, align, call);
    if (p && refused)
        add(&place_tiers[0]->stats.fallbacks_in, 1);
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
