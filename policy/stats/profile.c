#include "profile.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "../base/pages.h"
#include "../base/rank.h"
#include "../base/top.h"

uint8_t place_profile_filter[1u << PLACE_FILTER_BITS];

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t rate = 512 * 1024;
void place_profile_start(uint64_t r)
{
    rate = r;
    /* NULL's hash, saturated for good: free(NULL), outside every tier's range, takes the
     * out-of-line path (engine/outside.h), which counts no free, with no test of its own
     * on the counted free. Blocks at 4 MiB boundaries share the hash, and their frees look
     * the profile up: blocks that size or alignment cost far more to free anyway. Set
     * before any thread registers: until then every free takes that path. */
    *place_profile_filter_slot(NULL) = 255;
}

/* xorshift64*, seeded from the thread's own address and the clock's low bits by the
 * caller: the intervals need to be independent of the program, not unpredictable. */
int64_t place_profile_interval(uint64_t *seed)
{
    if (rate == 0)
        return 0; /* every allocation: left stays at most 0 */
    uint64_t x = *seed;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *seed = x;
    double u = (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0; /* [0, 1) */
    double next = -log1p(-u) * (double)rate;
    return next < 1 ? 1 : next > 4e18 ? (int64_t)4e18 : (int64_t)next;
}

/* Sites: by their frames, in a table that keeps what it once took ("other sites" past
 * it). Blocks: by address, open addressing grown by doubling, backward-shift deletion. */
enum { SITE_BITS = 12, SITES = 1 << SITE_BITS, OTHER = SITES };

struct site {
    uint64_t hash; /* 0: free */
    uintptr_t frames[PLACE_MAX_DEPTH];
    unsigned n;
    uint64_t samples;
    double calls, bytes, live, peak;
    double tier_bytes[PLACE_MAX_TIERS];
};
static struct site sites[SITES + 1];

struct block {
    uintptr_t p; /* 0: free */
    uint32_t site;
    uint32_t tier;
    double asked; /* weight, in bytes asked */
    int64_t held; /* weight, in bytes its node counts */
};
static struct block *blocks;
static size_t capacity, used;
static uint64_t lost;

static uint64_t mix(uint64_t x)
{
    x *= 0x9e3779b97f4a7c15ull;
    return x ^ x >> 29;
}

static uint32_t site_of(const struct place_sample *s)
{
    uint64_t h = s->n;
    for (unsigned k = 0; k < s->n; k++)
        h = mix(h ^ s->frames[k]);
    h |= 1;
    for (unsigned k = 0; k < 32; k++) {
        struct site *e = &sites[(h + k) & (SITES - 1)];
        if (e->hash == h && e->n == s->n &&
            memcmp(e->frames, s->frames, s->n * sizeof s->frames[0]) == 0)
            return (uint32_t)(e - sites);
        if (e->hash == 0) {
            e->hash = h;
            e->n = s->n;
            memcpy(e->frames, s->frames, s->n * sizeof s->frames[0]);
            return (uint32_t)(e - sites);
        }
    }
    return OTHER;
}

static size_t slot(uintptr_t p, size_t cap)
{
    return mix(p) & (cap - 1);
}

static void filter_add(uintptr_t p, int d)
{
    uint8_t *f = place_profile_filter_slot((const void *)p);
    uint8_t v = *f;
    if (v != 255) /* a saturated count stays: a lookup that finds nothing is only slower */
        __atomic_store_n(f, (uint8_t)(v + d), __ATOMIC_RELAXED);
}

static void put(struct block *table, size_t cap, const struct block *b)
{
    size_t i = slot(b->p, cap);
    while (table[i].p)
        i = (i + 1) & (cap - 1);
    table[i] = *b;
}

/* Room for one more block at a load of at most a half: the table doubles (its pages are
 * touched as it fills). The memory is mapped, not malloc'd: this runs inside malloc. */
static bool room(void)
{
    if (2 * (used + 1) <= capacity)
        return true;
    size_t cap = capacity ? 2 * capacity : 4096;
    size_t bytes = cap * sizeof(struct block);
    struct block *t = place_reserve(&bytes, bytes, MAP_NORESERVE);
    if (!t)
        return false;
    for (size_t k = 0; k < capacity; k++)
        if (blocks[k].p)
            put(t, cap, &blocks[k]);
    if (blocks)
        munmap(blocks, capacity * sizeof *blocks);
    blocks = t;
    capacity = cap;
    return true;
}

static struct block *find(uintptr_t p)
{
    if (!capacity)
        return NULL;
    for (size_t i = slot(p, capacity);; i = (i + 1) & (capacity - 1)) {
        if (blocks[i].p == p)
            return &blocks[i];
        if (!blocks[i].p)
            return NULL;
    }
}

/* Backward-shift deletion: no tombstones, so lookups stay short however many frees. */
static void erase(struct block *b)
{
    size_t i = (size_t)(b - blocks);
    for (size_t j = (i + 1) & (capacity - 1); blocks[j].p; j = (j + 1) & (capacity - 1)) {
        size_t home = slot(blocks[j].p, capacity);
        /* j's entry may move to i when its home is not in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            blocks[i] = blocks[j];
            i = j;
        }
    }
    blocks[i].p = 0;
    used--;
}

static void account(struct site *s, const struct block *b, double calls, int sign)
{
    s->live += sign * b->asked;
    if (sign > 0) {
        s->samples++;
        s->calls += calls;
        s->bytes += b->asked;
        s->tier_bytes[b->tier] += b->asked;
        if (s->live > s->peak)
            s->peak = s->live;
    }
}

int64_t place_profile_add(const void *p, const struct place_sample *s)
{
    double prob = rate ? -expm1(-(double)s->asked / (double)rate) : 1;
    if (prob <= 0)
        return 0;
    struct block b = {
        .p = (uintptr_t)p,
        .tier = s->tier < PLACE_MAX_TIERS ? s->tier : 0,
        .asked = (double)s->asked / prob,
        .held = (int64_t)((double)s->held / prob + 0.5),
    };
    int64_t dram = b.tier == 0 ? b.held : 0;
    place_lock(&lock, PLACE_RANK_PROFILE);
    b.site = site_of(s);
    struct block *old = find(b.p); /* a block freed unseen (by a signal handler) */
    if (old) {
        account(&sites[old->site], old, 0, -1);
        dram -= old->tier == 0 ? old->held : 0;
        *old = b;
    } else if (room()) {
        put(blocks, capacity, &b);
        used++;
        filter_add(b.p, 1);
    } else {
        lost++;
        dram = 0;
    }
    account(&sites[b.site], &b, 1 / prob, 1);
    place_unlock(&lock, PLACE_RANK_PROFILE);
    return dram;
}

bool place_profile_remove(const void *p, unsigned *tier, int64_t *held)
{
    place_lock(&lock, PLACE_RANK_PROFILE);
    struct block *b = find((uintptr_t)p);
    if (b) {
        account(&sites[b->site], b, 0, -1);
        *tier = b->tier;
        *held = b->held;
        filter_add(b->p, -1);
        erase(b);
    }
    place_unlock(&lock, PLACE_RANK_PROFILE);
    return b != NULL;
}

/* An estimate as a count: rounded, and never below 0 (the live bytes of a site whose
 * frees outweighed its samples). */
static uint64_t count(double v)
{
    return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

static struct place_profile_row row_of(const struct site *s)
{
    struct place_profile_row r = {
        .n = s == &sites[OTHER] ? 0 : s->n,
        .samples = s->samples,
        .calls = count(s->calls),
        .bytes = count(s->bytes),
        .live = count(s->live),
        .peak = count(s->peak),
        .mean = s->calls > 0 ? count(s->bytes / s->calls) : 0,
    };
    memcpy(r.frames, s->frames, sizeof r.frames);
    for (unsigned k = 0; k < PLACE_MAX_TIERS; k++)
        r.tier_bytes[k] = count(s->tier_bytes[k]);
    return r;
}

unsigned place_profile_top(struct place_profile_row *out, unsigned n, unsigned *total,
                           uint64_t *r, uint64_t *l, bool wait)
{
    bool locked = place_lock_or_try(&lock, PLACE_RANK_PROFILE, wait);
    unsigned got = 0;
    *total = 0;
    for (unsigned j = 0; j <= SITES; j++) {
        if (!sites[j].samples)
            continue;
        ++*total;
        struct place_profile_row r = row_of(&sites[j]);
        PLACE_TOP_INSERT(out, n, &got, r, bytes);
    }
    *r = rate;
    *l = lost;
    if (locked)
        place_unlock(&lock, PLACE_RANK_PROFILE);
    return got;
}

void place_profile_prefork(void)
{
    pthread_mutex_lock(&lock);
}

void place_profile_postfork_parent(void)
{
    pthread_mutex_unlock(&lock);
}

/* A child keeps the profile: its heap holds its parent's blocks, sampled ones too. */
void place_profile_postfork_child(void)
{
    pthread_mutex_init(&lock, NULL);
}
