#include "profile.h"

#include <pthread.h>
#include <string.h>

#include "../base/fmath.h"
#include "../base/large.h"
#include "../base/pages.h"
#include "../base/path.h"
#include "../base/rank.h"
#include "../base/top.h"

uint8_t place_profile_filter[1u << PLACE_FILTER_BITS] PLACE_LARGE;

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
    double next = -place_log1p(-u) * (double)rate;
    return next < 1 ? 1 : next > 4e18 ? (int64_t)4e18 : (int64_t)next;
}

/* Sites: by their frames, found through a table of indices (site_index), held in sites in
 * the order they were first seen, which keeps what it once took ("other sites" past it):
 * a process's sites fill the first of sites' pages, where entries hashed over all 1.6 MB
 * of it wrote a page each (espresso with a report: 1.7 MB of its max RSS), and the
 * readers scan those alone (the sampler's every interval, a report's rows). Blocks: by
 * address, open addressing grown by doubling, backward-shift deletion. */
enum { SITE_BITS = 12, SITES = 1 << SITE_BITS, OTHER = SITES };

struct site {
    uint64_t hash; /* 0: free */
    uintptr_t frames[PLACE_MAX_DEPTH];
    unsigned n;
    uint64_t samples;
    double calls, bytes, live, peak;
    double tier_bytes[PLACE_MAX_TIERS];
    /* the access profile: its tracked blocks, and their readings summed over intervals */
    uint64_t tracked_blocks, tracked_live, tracked_peak;
    uint64_t first_ms, last_ms; /* since the run's start: its first tracked block, and
                                 * the last time its tracked bytes went back to none */
    double touched_sum, touched_peak, live_sum, written_sum, written_live_sum;
    uint64_t touched_now; /* the interval being added */
};
static struct site sites[SITES + 1] PLACE_LARGE;
static uint16_t site_index[SITES] PLACE_LARGE; /* by hash: a site's place in sites, plus one */
static unsigned nsites;                        /* sites taken: the first nsites of sites */

struct block {
    uintptr_t p; /* 0: free */
    uint32_t site;
    uint32_t tier;
    double asked; /* weight, in bytes asked */
    int64_t held; /* weight, in bytes its node counts */
    uint32_t track; /* a tracked block: its index in tracked[], plus one */
};
static struct block *blocks;
static size_t capacity, used;
static uint64_t lost;

/* The tracked blocks, packed: a removal moves the last one into its place. */
struct track {
    struct place_tracked t;
    uintptr_t p;
};
static struct track *tracked;
static size_t ntracked, tracked_cap;
static uint64_t intervals, tracked_blocks, tracked_live, tracked_peak;

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
        uint16_t *i = &site_index[(h + k) & (SITES - 1)];
        if (*i == 0) { /* a site of its own: one a slot, so sites has room for it */
            struct site *e = &sites[nsites];
            e->hash = h;
            e->n = s->n;
            memcpy(e->frames, s->frames, s->n * sizeof s->frames[0]);
            *i = (uint16_t)++nsites;
            return (uint32_t)(e - sites);
        }
        struct site *e = &sites[*i - 1];
        if (e->hash == h && e->n == s->n &&
            memcmp(e->frames, s->frames, s->n * sizeof s->frames[0]) == 0)
            return (uint32_t)(e - sites);
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

/* Room for one more tracked block: the array doubles, mapped as the table is, up to
 * PLACE_TRACKED_MAX. */
static bool track_room(void)
{
    if (ntracked >= PLACE_TRACKED_MAX)
        return false;
    if (ntracked < tracked_cap)
        return true;
    size_t cap = tracked_cap ? 2 * tracked_cap : 256;
    size_t bytes = cap * sizeof(struct track);
    struct track *t = place_reserve(&bytes, bytes, MAP_NORESERVE);
    if (!t)
        return false;
    if (tracked) {
        memcpy(t, tracked, ntracked * sizeof *t);
        munmap(tracked, tracked_cap * sizeof *tracked);
    }
    tracked = t;
    tracked_cap = cap;
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

/* Tracked block b joins tracked[] (its site's tracked bytes counted), or leaves it. */
static void track_add(struct block *b, const struct place_sample *s)
{
    tracked[ntracked] = (struct track){{s->start, s->len, b->site}, b->p};
    b->track = (uint32_t)++ntracked;
    struct site *e = &sites[b->site];
    if (!e->tracked_blocks++)
        e->first_ms = place_run_ms();
    e->tracked_live += s->asked;
    if (e->tracked_live > e->tracked_peak)
        e->tracked_peak = e->tracked_live;
    tracked_blocks++;
    tracked_live += s->asked;
    if (tracked_live > tracked_peak)
        tracked_peak = tracked_live;
}

static struct block *find(uintptr_t p);

static void track_remove(const struct block *b)
{
    size_t k = b->track - 1;
    struct site *e = &sites[b->site];
    e->tracked_live -= (uint64_t)b->asked;
    if (!e->tracked_live)
        e->last_ms = place_run_ms();
    tracked_live -= (uint64_t)b->asked;
    if (k != --ntracked) {
        tracked[k] = tracked[ntracked];
        find(tracked[k].p)->track = (uint32_t)k + 1;
    }
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

/* Records block p with probability prob; false when the tables had no room (counted as
 * lost, unless tracked: the caller then makes the block glibc's). */
static bool add(const void *p, const struct place_sample *s, double prob, int64_t *dram)
{
    struct block b = {
        .p = (uintptr_t)p,
        .tier = s->tier < PLACE_MAX_TIERS ? s->tier : 0,
        .asked = (double)s->asked / prob,
        .held = (int64_t)((double)s->held / prob + 0.5),
    };
    *dram = b.tier == 0 ? b.held : 0;
    bool kept = true;
    place_lock(&lock, PLACE_RANK_PROFILE);
    b.site = site_of(s);
    struct block *old = find(b.p); /* a block freed unseen (by a signal handler) */
    if (old) {
        account(&sites[old->site], old, 0, -1);
        *dram -= old->tier == 0 ? old->held : 0;
        if (old->track) /* freed by a signal handler inside libplace: glibc unmapped it */
            track_remove(old);
        *old = b;
    } else if ((!s->len || track_room()) && room()) {
        put(blocks, capacity, &b);
        used++;
        filter_add(b.p, 1);
        old = find(b.p);
    } else {
        kept = false;
        lost += !s->len;
        *dram = 0;
    }
    if (kept) {
        if (s->len)
            track_add(old, s);
        account(&sites[b.site], &b, 1 / prob, 1);
    }
    place_unlock(&lock, PLACE_RANK_PROFILE);
    return kept;
}

int64_t place_profile_add(const void *p, const struct place_sample *s)
{
    double prob = rate ? -place_expm1(-(double)s->asked / (double)rate) : 1;
    int64_t dram = 0;
    if (prob > 0)
        add(p, s, prob, &dram);
    return dram;
}

bool place_profile_track(const void *p, const struct place_sample *s)
{
    int64_t dram;
    return add(p, s, 1, &dram);
}

bool place_profile_remove(const void *p, unsigned *tier, int64_t *held, bool *track)
{
    place_lock(&lock, PLACE_RANK_PROFILE);
    struct block *b = find((uintptr_t)p);
    if (b) {
        account(&sites[b->site], b, 0, -1);
        *tier = b->tier;
        *held = b->held;
        *track = b->track != 0;
        if (b->track)
            track_remove(b);
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

static double at_most_one(double x)
{
    return x < 1 ? x : 1;
}

static struct place_profile_access access_of(const struct site *s)
{
    if (!s->tracked_blocks)
        return (struct place_profile_access){.written_share = -1};
    double n = intervals ? (double)intervals : 1;
    struct place_profile_access a = {
        .blocks = s->tracked_blocks,
        .first_ms = s->first_ms,
        .last_ms = s->tracked_live ? UINT64_MAX : s->last_ms,
        .peak = s->tracked_peak,
        .live_mean = count(s->live_sum / n),
        .touched_mean = count(s->touched_sum / n),
        .touched_peak = count(s->touched_peak),
        /* a block freed between the copy the sampler reads and these sums is touched
         * but no longer live: at most all */
        .touched_share = s->live_sum > 0 ? at_most_one(s->touched_sum / s->live_sum) : 0,
        .written_share =
            s->written_live_sum > 0 ? at_most_one(s->written_sum / s->written_live_sum) : -1,
    };
    a.heat = s->tracked_peak ? count(s->touched_sum / n / (double)s->tracked_peak * 1e6) : 0;
    return a;
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
    r.access = access_of(s);
    return r;
}

unsigned place_profile_top(struct place_profile_row *out, unsigned n, unsigned *total,
                           uint64_t *r, uint64_t *l, bool wait)
{
    bool locked = place_lock_or_try(&lock, PLACE_RANK_PROFILE, wait);
    unsigned got = 0;
    *total = 0;
    for (unsigned j = 0; j <= nsites; j++) { /* the sites taken, then "other sites" */
        const struct site *e = &sites[j < nsites ? j : OTHER];
        if (!e->samples)
            continue;
        ++*total;
        struct place_profile_row r = row_of(e);
        PLACE_TOP_INSERT(out, n, &got, r, bytes);
    }
    *r = rate;
    *l = lost;
    if (locked)
        place_unlock(&lock, PLACE_RANK_PROFILE);
    return got;
}

unsigned place_profile_hottest(struct place_profile_row *out, unsigned n,
                               struct place_profile_tracking *all, bool wait)
{
    bool locked = place_lock_or_try(&lock, PLACE_RANK_PROFILE, wait);
    unsigned got = 0;
    for (unsigned j = 0; j < nsites; j++) {
        if (!sites[j].tracked_blocks)
            continue;
        struct place_profile_row r = row_of(&sites[j]);
        PLACE_TOP_INSERT(out, n, &got, r, access.heat);
    }
    *all = (struct place_profile_tracking){intervals, tracked_blocks, tracked_live, tracked_peak};
    if (locked)
        place_unlock(&lock, PLACE_RANK_PROFILE);
    return got;
}

size_t place_profile_tracked(struct place_tracked *out, size_t cap)
{
    place_lock(&lock, PLACE_RANK_PROFILE);
    size_t n = ntracked;
    for (size_t k = 0; k < n && k < cap; k++)
        out[k] = tracked[k].t;
    place_unlock(&lock, PLACE_RANK_PROFILE);
    return n;
}

void place_profile_touched(const struct place_touch *t, size_t n, bool written)
{
    place_lock(&lock, PLACE_RANK_PROFILE);
    for (size_t k = 0; k < n; k++)
        if (t[k].site < SITES) {
            sites[t[k].site].touched_now += t[k].touched;
            sites[t[k].site].written_sum += (double)t[k].written;
        }
    intervals++;
    for (unsigned j = 0; j < nsites; j++) {
        struct site *e = &sites[j];
        if (!e->tracked_blocks)
            continue;
        double touched = (double)e->touched_now;
        e->touched_sum += touched;
        if (touched > e->touched_peak)
            e->touched_peak = touched;
        e->live_sum += (double)e->tracked_live;
        if (written)
            e->written_live_sum += (double)e->tracked_live;
        e->touched_now = 0;
    }
    place_unlock(&lock, PLACE_RANK_PROFILE);
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
