#include "cache.h"

#include <pthread.h>
#include <string.h>

#include "../base/assert.h"
#include "../base/large.h"
#include "../base/pages.h"
#include "../base/rank.h"

/* Every cache ever made; a thread's goes back to the list for the next thread when it
 * exits, emptied. The lock is taken when a thread makes or leaves one, and across fork. */
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static struct place_tcache *caches;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* Bins of no room: a tier's in a thread's cache until its bins are made (or when they
 * cannot be), so that its blocks go to and from the shared pool, and every tier's in the
 * caches of a thread before its first bins (unmade: its cache is made then) and after
 * its exit hook (exited: one block at a time from then on). Shared: never grown. */
static struct place_bins no_bins PLACE_LARGE;
static struct place_tcache unmade = {.tier = {[0 ... PLACE_MAX_TIERS - 1] = &no_bins}};
static struct place_tcache exited = {.tier = {[0 ... PLACE_MAX_TIERS - 1] = &no_bins}};

__thread struct place_tcache *place_cache_self __attribute__((tls_model("initial-exec"))) = &unmade;

void place_cache_caps(uint64_t limit, uint8_t caps[PLACE_CLASSES])
{
    uint64_t budget = limit && limit / 256 < 65536 ? limit / 256 : 65536;
    for (unsigned c = 0; c < PLACE_CLASSES; c++) {
        uint64_t n = budget / place_class_size[c];
        caps[c] = (uint8_t)(n > PLACE_BIN_MAX ? PLACE_BIN_MAX : n);
    }
}

/* n blocks of bin c of b back to s: the bytes. A bin that was lent blocks gives each
 * run of blocks of one class to that class. */
static size_t give_back(struct place_tier *t, struct place_slabs *s, struct place_bins *b,
                        unsigned c, void *const *blocks, unsigned n)
{
    size_t bytes = 0;
    for (unsigned k = 0, m; k < n; k += m) {
        unsigned cls = c;
        m = n - k;
        if (b->lent[c]) {
            cls = place_slabs_block_class(s, blocks[k]);
            for (m = 1; k + m < n && place_slabs_block_class(s, blocks[k + m]) == cls; m++)
                ;
        }
        PLACE_ASSERT(cls >= c && cls < PLACE_CLASSES);
        place_slabs_give(s, cls, blocks + k, m);
        bytes += (size_t)m * place_class_size[cls];
    }
    place_tier_release(t, (int64_t)bytes);
    return bytes;
}

/* Bin c of b back to its pool: the bytes. */
static size_t flush_bin(struct place_tier *t, struct place_slabs *s, struct place_bins *b,
                        unsigned c)
{
    struct place_bin *bin = &b->bin[c];
    PLACE_ASSERT(bin->n <= bin->cap);
    size_t bytes = 0;
    if (bin->n != 0) /* most of an exiting thread's are empty: no release, no waiter woken */
        bytes = give_back(t, s, b, c, bin->item, bin->n); /* which reads lent[c] */
    bin->n = 0;
    b->lent[c] = false;
    return bytes;
}

static size_t flush_bins(struct place_tier *t, struct place_slabs *s, struct place_bins *b)
{
    size_t bytes = 0;
    for (unsigned c = 0; c < PLACE_CLASSES; c++)
        bytes += flush_bin(t, s, b, c);
    return bytes;
}

/* Every bin of cache c back to its tier's pool. */
static void flush_all(struct place_tcache *c)
{
    for (unsigned k = 0; k < PLACE_MAX_TIERS; k++)
        if (c->tier[k] != &no_bins)
            flush_bins(place_tiers[k], place_tiers[k]->slabs, c->tier[k]);
}

/* pthread key destructor: the thread is exiting. */
static void thread_exit(void *arg)
{
    struct place_tcache *c = arg;
    uint8_t was = place_guard_enter();
    flush_all(c);
    place_lock(&registry, PLACE_RANK_ARENAS);
    PLACE_ASSERT(c->owner == &place_self);
    c->owner = NULL;
    place_unlock(&registry, PLACE_RANK_ARENAS);
    place_cache_self = &exited;
    place_guard_leave(was);
}

static void make_key(void)
{
    pthread_key_create(&exit_key, thread_exit);
}

/* Zeroed memory for a cache or its bins, never freed (an exited thread's goes to the next
 * thread). Not glibc's: they are made with the guard up, where a signal handler's
 * malloc goes to glibc, and would deadlock on the glibc lock this thread held. */
static void *fresh(size_t size)
{
    return place_reserve(&size, size, 0);
}

/* The calling thread's cache, made (or taken over from an exited thread) at first use. */
static struct place_tcache *own_cache(void)
{
    struct place_tcache *c = place_cache_self;
    if (c != &unmade)
        return c;
    pthread_once(&key_once, make_key);
    place_lock(&registry, PLACE_RANK_ARENAS);
    for (c = caches; c && c->owner; c = c->next)
        ;
    if (!c && (c = fresh(sizeof *c))) {
        for (unsigned k = 0; k < PLACE_MAX_TIERS; k++) /* so that the fast paths test none */
            c->tier[k] = &no_bins;
        c->next = caches;
        __atomic_store_n(&caches, c, __ATOMIC_RELEASE); /* readers walk it unlocked */
    }
    if (c)
        c->owner = &place_self;
    place_unlock(&registry, PLACE_RANK_ARENAS);
    if (!c)
        return &exited;
    place_cache_self = c;
    pthread_setspecific(exit_key, c);
    return c;
}

/* A bin starts this long and doubles at each refill up to its class's bound (tcmalloc's
 * slow start), and at each flush, so that a thread freeing what others allocate gets a
 * long bin too (xmalloc-test ran 2.6x glibc's time when only refills grew them): a
 * class a thread seldom uses holds a block or two, not 64 KiB
 * (mimalloc-bench's glibc-thread, random sizes to 32 KiB, had a max RSS of 3.7 MiB
 * against glibc's 1.8 MiB with every bin at its bound from the start). */
enum { BIN_START = 2 };

/* Lengthens b's bin of class c toward bound, never the bins every thread without its own
 * shares: whether it grew. */
static bool grow(struct place_bins *b, unsigned c, unsigned bound)
{
    struct place_bin *bin = &b->bin[c];
    if (b == &no_bins || bin->cap >= bound)
        return false;
    bin->cap = 2 * bin->cap < bound ? 2 * bin->cap : bound;
    return true;
}

/* The calling thread's bins for t, made at first use. */
static struct place_bins *own_bins(struct place_tier *t, struct place_slabs *s)
{
    struct place_tcache *c = own_cache();
    struct place_bins *b = c->tier[t->index];
    if (b != &no_bins || c == &exited)
        return b;
    if (!(b = fresh(sizeof *b)))
        return &no_bins;
    for (unsigned k = 0; k < PLACE_CLASSES; k++)
        b->bin[k].cap = s->caps[k] < BIN_START ? s->caps[k] : BIN_START;
    /* a reader sums every thread's bins: set up before it is published */
    __atomic_store_n(&c->tier[t->index], b, __ATOMIC_RELEASE);
    return b;
}

void *place_cache_refill(struct place_tier *t, struct place_slabs *s, unsigned c, unsigned part,
                         bool force, bool *limited)
{
    struct place_bins *b = own_bins(t, s);
    if (__builtin_expect(b->part != part, 0) && b != &no_bins) {
        flush_bins(t, s, b);
        b->part = part;
    }
    struct place_bin *bin = &b->bin[c];
    if (b->lent[c])
        flush_bin(t, s, b, c);
    size_t size = place_class_size[c];
    grow(b, c, s->caps[c]); /* a class this thread keeps asking for: a longer bin */
    unsigned n = bin->cap / 2 + 1;
    *limited = false;
    /* the whole batch under the limit, else one block, else this thread's own cached
     * blocks go back first (other threads' stay theirs: at most their bins' bounds) */
    if (!place_tier_reserve(t, n * size, force)) {
        n = 1;
        if (!place_tier_reserve(t, size, force) &&
            (!place_cache_flush(t, s) || !place_tier_reserve(t, size, force))) {
            *limited = true;
            return NULL;
        }
    }
    void *got[PLACE_BIN_MAX / 2 + 1];
    unsigned k = place_slabs_take(s, c, part, got, n, false);
    if (!k && size > s->max) {
        /* no run of the class's length is free but at the top: when the kept runs may
         * merge before it rises (no longer one is kept to cut), this thread's cached runs
         * go with them (see place_slabs.max) */
        if (b != &no_bins && place_slabs_aside(s, part))
            for (unsigned j = place_size_class(s->max) + 1; j < PLACE_CLASSES; j++)
                flush_bin(t, s, b, j);
        k = place_slabs_take(s, c, part, got, n, true);
    }
    PLACE_ASSERT(k <= n); /* no more handed out than reserved */
    if (k < n)
        place_tier_release(t, (int64_t)(n - k) * (int64_t)size);
    if (!k)
        return NULL;
    place_tier_commit_marks(t, k * size, force);
    /* the bin was empty (its pop failed): the batch less the block returned fits it */
    PLACE_ASSERT(bin->n == 0 && k - 1 <= bin->cap);
    /* pushed last first, so that the blocks go out in the order the slab gave them (in
     * address order when it cut them fresh): a program that walks what it allocated in
     * that order walks memory forward */
    for (unsigned j = k; j-- > 1;) {
        PLACE_ASSERT(place_slabs_block_class(s, got[j]) == c);
        place_bin_push(b, c, got[j]);
    }
    return got[0];
}

enum { LEND_MIN = 1024 };

void *place_cache_lend(struct place_bins *b, const struct place_slabs *s, unsigned c, unsigned part)
{
    if (b == &no_bins || b->part != part || place_class_size[c] < LEND_MIN ||
        !place_slabs_fresh(s, c, part))
        return NULL;
    struct place_bin *to = &b->bin[c];
    PLACE_ASSERT(to->n == 0);
    uint32_t most = place_class_size[c] + place_class_size[c] / 2;
    for (unsigned j = c + 1; j < PLACE_CLASSES && place_class_size[j] <= most; j++) {
        struct place_bin *from = &b->bin[j];
        if (!from->n)
            continue;
        grow(b, c, s->caps[c]); /* as a refill would have */
        /* half of them, one handed out at once: at most a refill's batch (cap / 2 + 1) */
        unsigned n = (from->n + 1) / 2;
        if (n > to->cap / 2 + 1)
            n = to->cap / 2 + 1;
        from->n -= n;
        memcpy(to->item, from->item + from->n, n * sizeof to->item[0]);
        to->n = n - 1;
        b->lent[c] = true;
        return to->item[n - 1];
    }
    return NULL;
}

void *place_bin_pop_aligned(struct place_bins *b, unsigned c, size_t align)
{
    struct place_bin *bin = &b->bin[c];
    if (!b->lent[c]) /* c is a class whose every block is aligned so */
        return place_bin_pop(b, c);
    for (uint32_t k = bin->n; k-- > 0;) {
        void *p = bin->item[k];
        if ((uintptr_t)p % align == 0) {
            bin->item[k] = bin->item[--bin->n];
            return p;
        }
    }
    return NULL;
}

void place_cache_overflow(struct place_tier *t, struct place_slabs *s, unsigned c, void *p)
{
    struct place_bins *b = own_bins(t, s);
    struct place_bin *bin = &b->bin[c];
    PLACE_ASSERT(bin->n <= bin->cap && place_slabs_block_class(s, p) == c);
    /* a class this thread keeps freeing (blocks other threads allocated): longer */
    if (grow(b, c, s->caps[c]) && place_bin_push(b, c, p))
        return;
    unsigned half = bin->n - bin->n / 2;
    /* the oldest half goes: the newest are the likeliest still in the CPU's cache */
    give_back(t, s, b, c, bin->item, half);
    memmove(bin->item, bin->item + half, (bin->n - half) * sizeof bin->item[0]);
    bin->n -= half;
    if (!place_bin_push(b, c, p))
        give_back(t, s, b, c, &p, 1);
}

size_t place_cache_flush(struct place_tier *t, struct place_slabs *s)
{
    struct place_bins *b = place_cache_bins(t->index);
    return b != &no_bins ? flush_bins(t, s, b) : 0;
}

/* The bytes bin c of b holds, read as they stand: a lent block's by its own class, when
 * the item read is still one of s's blocks (another thread may be changing the bin). */
static int64_t bin_held(const struct place_slabs *s, const struct place_bins *b, unsigned c)
{
    const struct place_bin *bin = &b->bin[c];
    uint32_t n = __atomic_load_n(&bin->n, __ATOMIC_RELAXED);
    if (!__atomic_load_n(&b->lent[c], __ATOMIC_RELAXED))
        return (int64_t)n * place_class_size[c];
    int64_t sum = 0;
    for (uint32_t k = 0; k < n && k < PLACE_BIN_MAX; k++) {
        const void *p = __atomic_load_n(&bin->item[k], __ATOMIC_RELAXED);
        bool ours = place_slabs_own(s, p) || place_extents_own(place_slabs_runs_of(s, p), p);
        unsigned cls = ours ? place_slabs_block_class(s, p) : c;
        sum += place_class_size[cls < PLACE_CLASSES ? cls : c];
    }
    return sum;
}

int64_t place_cache_held(unsigned k)
{
    const struct place_slabs *s = place_tiers[k]->slabs;
    int64_t sum = 0;
    for (struct place_tcache *c = __atomic_load_n(&caches, __ATOMIC_ACQUIRE); c; c = c->next) {
        struct place_bins *b = __atomic_load_n(&c->tier[k], __ATOMIC_ACQUIRE);
        for (unsigned j = 0; b != &no_bins && j < PLACE_CLASSES; j++)
            sum += bin_held(s, b, j);
    }
    return sum;
}

void place_caches_prefork(void)
{
    pthread_mutex_lock(&registry);
}

void place_caches_postfork_parent(void)
{
    pthread_mutex_unlock(&registry);
}

void place_caches_postfork_child(void)
{
    for (struct place_tcache *c = caches; c; c = c->next) {
        if (!c->owner || c->owner == &place_self)
            continue;
        /* the forking thread's prefork raised its own guard; another thread's guard up
         * means it was inside libplace, maybe halfway through its bins */
        if (c->owner->state != PLACE_THREAD_BUSY) {
            flush_all(c);
        } else { /* its blocks stay out, and counted: a leak, never a block handed out twice */
            for (unsigned k = 0; k < PLACE_MAX_TIERS; k++)
                for (unsigned j = 0; c->tier[k] != &no_bins && j < PLACE_CLASSES; j++)
                    c->tier[k]->bin[j].n = 0;
        }
        c->owner = NULL;
    }
    pthread_mutex_init(&registry, NULL);
}
