/* The chain's handling of a full tier: reclaim and one retry, watermarks, and on_full,
 * against a test tier that caches what is freed (as a chunk pool does) until it is asked
 * to reclaim. The tier is this test's; the chain, the limits and the counters are
 * libplace's own. */
#include <stdlib.h>
#include <string.h>

#include "../../policy/engine/chain.h"
#include "../../policy/tiers/tier.h"
#include "check.h"

static size_t capacity = 8000; /* the memory the tier has */

/* The tier's memory: `held` bytes in blocks out, `cached` bytes freed but kept. */
static size_t held, cached, reclaim_calls, last_want;

static void *cache_block(struct place_tier *t, const struct place_request *r)
{
    (void)t;
    size_t size = r->size;
    if (held + cached + size > capacity)
        return NULL;
    size_t *p = malloc(sizeof(size_t) + size);
    *p = size;
    held += size;
    return p + 1;
}

static void cache_put(struct place_tier *t, void *p, size_t usable, const struct place_request *r)
{
    (void)t, (void)r;
    held -= usable;
    cached += usable;
    free((size_t *)p - 1);
}

/* counted a block at a time, as libplace's pool is */
static void *cache_alloc(struct place_tier *t, const struct place_request *r, bool force,
                         bool *limited)
{
    return place_tier_counted(t, r, force, limited, cache_block, cache_put);
}

static void cache_free(struct place_tier *t, void *p, size_t usable, struct place_cu_call *cu)
{
    (void)cu;
    cache_put(t, p, usable, NULL);
    place_tier_uncharge(t, usable);
}

static size_t cache_usable(struct place_tier *t, const void *p)
{
    (void)t;
    return ((const size_t *)p)[-1];
}

static size_t cache_reclaim(struct place_tier *t, size_t want)
{
    (void)t;
    reclaim_calls++;
    last_want = want;
    size_t n = want < cached ? want : cached;
    cached -= n;
    return n;
}

static int cache_stats(struct place_tier *t, size_t *total, size_t *free)
{
    (void)t;
    *total = capacity;
    *free = capacity - held - cached;
    return 0;
}

static const struct place_allocator cache_allocator = {
    .alloc = cache_alloc,
    .release = cache_free,
    .usable_size = cache_usable,
    .reclaim = cache_reclaim,
};
static const struct place_source cache_source = {.stats = cache_stats};

static struct place_node_stats cache_node;
static struct place_tier cache = {.name = "cache",
                                  .index = 1,
                                  .allocator = &cache_allocator,
                                  .source = &cache_source,
                                  .stats = &cache_node};

static struct place_rule_config rule = {.name = "r", .chain = {1, 0}, .nchain = 2};

static void *get(size_t size, unsigned *tier)
{
    *tier = 99;
    struct place_request r = {.size = size, .call = PLACE_MALLOC};
    return place_chain(&rule, &r, tier);
}

static uint64_t stat(struct place_tier *t, enum place_event e)
{
    return place_stats_snapshot(t->stats, NULL).events[e];
}

static void tier_free(struct place_tier *t, void *p)
{
    t->allocator->release(t, p, t->allocator->usable_size(t, p), NULL);
}

int main(void)
{
    place_tiers[1] = &cache;
    unsigned tier;
    void *b[8];

    /* the tier's memory is full of cached blocks: it reclaims what the request needs and
     * the retry succeeds */
    for (int k = 0; k < 4; k++)
        CHECK((b[k] = get(2000, &tier)) && tier == 1);
    tier_free(&cache, b[0]);
    tier_free(&cache, b[1]);
    CHECK_EQ(cached, 4000);
    CHECK((b[0] = get(1000, &tier)) && tier == 1);
    CHECK_EQ(reclaim_calls, 1);
    CHECK_EQ(last_want, 1000);
    CHECK_EQ(stat(&cache, PLACE_EV_RECLAIMED), 1000);
    CHECK_EQ(stat(&cache, PLACE_EV_REFUSED), 1);
    CHECK_EQ(stat(&cache, PLACE_EV_FALLBACKS_OUT), 0);

    /* the limit refuses (5000 in use): the tier releases cache all the same, but that
     * makes no room under a limit on bytes in use, and the request falls back to dram */
    cache.limit = 5000;
    size_t calls = reclaim_calls;
    CHECK((b[1] = get(500, &tier)) && tier == 0);
    CHECK_EQ(reclaim_calls, calls + 1);
    CHECK_EQ(stat(&cache, PLACE_EV_REFUSED), 2);
    CHECK_EQ(stat(&cache, PLACE_EV_FALLBACKS_OUT), 1);
    CHECK_EQ(stat(&place_dram, PLACE_EV_FALLBACKS_IN), 1);
    free(b[1]);

    /* on_full = fail: NULL at once, counted, nothing sent on */
    rule.on_full = PLACE_FAIL;
    CHECK(get(500, &tier) == NULL);
    CHECK_EQ(stat(&cache, PLACE_EV_FAILURES), 1);
    CHECK_EQ(stat(&cache, PLACE_EV_FALLBACKS_OUT), 1);

    /* on_full = overflow: charged past the limit, the excess counted */
    rule.on_full = PLACE_OVERFLOW;
    CHECK((b[1] = get(500, &tier)) && tier == 1);
    CHECK_EQ(stat(&cache, PLACE_EV_OVERFLOW), 1); /* one allocation charged past the limit */
    CHECK_EQ(place_stats_bytes(cache.stats), 5500);
    tier_free(&cache, b[1]);
    rule.on_full = PLACE_FALLBACK;

    /* watermarks: free room below 30% of the limit reclaims until 50% would be free;
     * only the allocation that crosses the mark asks */
    tier_free(&cache, b[0]);
    tier_free(&cache, b[2]);
    tier_free(&cache, b[3]);
    capacity = 100000; /* only the limit's marks ask for reclaim now */
    cache.limit = 10000;
    cache.reclaim_below = 3000;
    cache.reclaim_to = 5000;
    CHECK_EQ(place_stats_bytes(cache.stats), 0);
    b[0] = get(3000, &tier);
    b[1] = get(3000, &tier); /* room 4000: above the mark */
    tier_free(&cache, b[1]);
    b[1] = get(1000, &tier); /* room 6000 */
    calls = reclaim_calls;
    b[2] = get(2000, &tier); /* room 6000 -> 4000: above */
    CHECK_EQ(reclaim_calls, calls);
    b[3] = get(1500, &tier); /* room 4000 -> 2500: crosses */
    CHECK_EQ(reclaim_calls, calls + 1);
    CHECK_EQ(last_want, 5000 - 2500);
    b[4] = get(500, &tier); /* room 2000: still below, no new crossing */
    CHECK_EQ(reclaim_calls, calls + 1);
    for (int k = 0; k < 5; k++)
        CHECK(b[k] != NULL);

    /* no node holds 8 EiB, past its limit or not: a size of 2^63 or more is refused and
     * leaves the count as it was */
    int64_t before = place_stats_bytes(cache.stats);
    CHECK(!place_tier_reserve(&cache, SIZE_MAX, true));
    CHECK(!place_tier_reserve(&cache, (size_t)1 << 63, true));
    CHECK(!place_tier_reserve(&cache, (size_t)INT64_MAX, true));
    CHECK_EQ(place_stats_bytes(cache.stats), before);
    return CHECK_DONE();
}
