#include "threads.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "../base/assert.h"
#include "../base/large.h"
#include "../base/rank.h"

#include "sites.h"
#include "timeline.h"

bool place_counting = true;

/* More threads than this alive at once count straight into the shared counters: slower,
 * never wrong. Pages of the array no thread has used cost no memory. */
enum { SLOTS = 1024 };

/* The lock is taken when a thread registers and when it exits, and by snapshots; never
 * per allocation. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct place_slot slots[SLOTS] PLACE_LARGE;
static unsigned slots_used;   /* high-water mark: slots at and above it were never live */
static uint64_t threads_seen; /* threads that counted an allocation, with a slot or not */

static pthread_key_t exit_key;
static bool ready;

static void count_shared(unsigned n, unsigned m, int64_t delta)
{
    struct place_counts c = {.allocs = n, .frees = m, .bytes = delta};
    place_stats_add(&place_nodes[0], &c);
}

void place_hand_over_bytes(struct place_slot *s)
{
    count_shared(0, 0, s->bytes);
    place_relaxed_store((uint64_t *)&s->bytes, 0);
    place_timeline_tick(); /* dram's usage changed by a batch */
}

/* A slot's placed counts and pending sites into the shared counters. */
static void merge_placed(struct place_slot *s)
{
    struct place_placed_counts *c = &s->placed;
    for (unsigned k = 1; k < PLACE_MAX_TIERS; k++) {
        if (c->allocs[k])
            place_stats_count(&place_nodes[k], PLACE_EV_ALLOCS, c->allocs[k]);
        if (c->frees[k])
            place_stats_count(&place_nodes[k], PLACE_EV_FREES, c->frees[k]);
    }
    memset(c, 0, sizeof *c);
    place_sites_hand_over(s);
}

/* What a live slot holds of dram's counts: its thread's, read as they stand. */
static struct place_counts slot_counts(const struct place_slot *s)
{
    const struct place_thread *t = __atomic_load_n(&s->thread, __ATOMIC_ACQUIRE);
    return (struct place_counts){
        .allocs = t ? place_relaxed_load(&t->allocs) : 0,
        .frees = t ? place_relaxed_load(&t->frees) : 0,
        .bytes = (int64_t)place_relaxed_load((const uint64_t *)&s->bytes),
    };
}

/* Whether slot s's thread, registered at a free, has allocated since: it counts among the
 * threads seen (read as they stand). */
static bool allocated_since(const struct place_slot *s)
{
    if (s->counted)
        return false;
    uint64_t n = slot_counts(s).allocs;
    for (unsigned k = 1; k < PLACE_MAX_TIERS; k++)
        n += place_relaxed_load(&s->placed.allocs[k]);
    return n != 0;
}

/* By the slot's thread as it exits: everything it counted to the shared counters. */
static void release_locked(struct place_slot *s, struct place_thread *t)
{
    PLACE_ASSERT(s->live && s->thread == t); /* a slot is its own thread's */
    threads_seen += allocated_since(s);
    struct place_counts c = slot_counts(s);
    place_stats_add(&place_nodes[0], &c);
    t->allocs = t->frees = 0;
    s->bytes = 0;
    merge_placed(s);
    __atomic_store_n(&s->thread, NULL, __ATOMIC_RELEASE);
    s->live = false;
}

/* pthread key destructor: the thread is exiting. What it frees after this (later
 * destructors) goes to the shared counters. */
static void thread_exit(void *arg)
{
    struct place_thread *t = &place_self;
    place_guard_enter(); /* a signal handler's allocation meanwhile counts elsewhere */
    PLACE_ASSERT(arg == t->slot);
    place_lock(&registry_lock, PLACE_RANK_THREADS);
    release_locked(arg, t);
    place_unlock(&registry_lock, PLACE_RANK_THREADS);
    t->slot = NULL;
    t->state = PLACE_THREAD_SHARED;
}

static void register_thread(struct place_thread *t, bool allocating)
{
    int saved = errno;
    place_guard_enter();
    struct place_slot *s = NULL;
    place_lock(&registry_lock, PLACE_RANK_THREADS);
    for (unsigned k = 0; k < SLOTS && !s; k++)
        if (!slots[k].live) {
            s = &slots[k];
            s->live = true;
            s->counted = allocating;
            __atomic_store_n(&s->thread, t, __ATOMIC_RELEASE);
            if (k >= slots_used)
                slots_used = k + 1;
        }
    place_unlock(&registry_lock, PLACE_RANK_THREADS);
    /* Under the guard, an allocation this makes (keys past the first 32) goes to the
     * shared counters instead of registering again. Without the exit hook the slot would
     * keep pointing at this thread's TLS after it is gone: it is given back, and the
     * thread counts in the shared counters. */
    if (s && pthread_setspecific(exit_key, s) != 0) {
        place_lock(&registry_lock, PLACE_RANK_THREADS);
        release_locked(s, t);
        place_unlock(&registry_lock, PLACE_RANK_THREADS);
        s = NULL;
    }
    if (allocating || !s) { /* a thread without a slot is never asked again: counted now */
        place_lock(&registry_lock, PLACE_RANK_THREADS);
        threads_seen++;
        place_unlock(&registry_lock, PLACE_RANK_THREADS);
    }
    t->slot = s;
    place_guard_leave(s ? PLACE_THREAD_ACTIVE : PLACE_THREAD_SHARED);
    errno = saved;
}

void place_count_slow(unsigned n, unsigned m, int64_t delta)
{
    struct place_thread *t = &place_self;
    if (t->state == PLACE_THREAD_NEW && __atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        register_thread(t, n > 0);
    if (t->state == PLACE_THREAD_ACTIVE)
        place_count(n, m, delta);
    else
        count_shared(n, m, delta);
}

void place_thread_register(bool allocating)
{
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
        register_thread(&place_self, allocating);
}

void place_threads_start(bool counting, bool placing)
{
    place_counting = counting;
    if (!counting && !placing)
        return;
    pthread_key_create(&exit_key, thread_exit);
    __atomic_store_n(&ready, true, __ATOMIC_RELEASE);
}

static struct place_counts pending_locked(void)
{
    struct place_counts sum = {0};
    for (unsigned k = 0; k < slots_used; k++)
        if (slots[k].live) {
            struct place_counts c = slot_counts(&slots[k]);
            sum.allocs += c.allocs;
            sum.frees += c.frees;
            sum.bytes += c.bytes;
        }
    return sum;
}

static void add_placed(struct place_placed_counts *sum, const struct place_placed_counts *c)
{
    const uint64_t *from = (const uint64_t *)c;
    uint64_t *to = (uint64_t *)sum;
    for (size_t k = 0; k < sizeof *c / sizeof(uint64_t); k++)
        to[k] += place_relaxed_load(&from[k]);
}

/* under the lock, so that a thread exiting meanwhile is counted once (without wait, a
 * signal handler's, as it stands) */
static bool lock_registry(bool wait)
{
    return place_lock_or_try(&registry_lock, PLACE_RANK_THREADS, wait);
}

void place_threads_pending(struct place_placed_counts *sum, bool wait)
{
    memset(sum, 0, sizeof *sum);
    bool locked = lock_registry(wait);
    for (unsigned k = 0; k < __atomic_load_n(&slots_used, __ATOMIC_RELAXED); k++)
        if (__atomic_load_n(&slots[k].live, __ATOMIC_RELAXED))
            add_placed(sum, &slots[k].placed);
    if (locked)
        place_unlock(&registry_lock, PLACE_RANK_THREADS);
}

void place_threads_site(uint64_t key, uint64_t *allocs, uint64_t *bytes)
{
    unsigned at = place_site_slot(key);
    for (unsigned k = 0; k < __atomic_load_n(&slots_used, __ATOMIC_RELAXED); k++) {
        const struct place_site_pending *e = &slots[k].sites[at];
        if (__atomic_load_n(&slots[k].live, __ATOMIC_RELAXED) &&
            __atomic_load_n(&e->key, __ATOMIC_ACQUIRE) == key) {
            *allocs += place_relaxed_load(&e->allocs);
            *bytes += place_relaxed_load(&e->bytes);
        }
    }
}

struct place_snapshot place_threads_node(unsigned k, const struct place_placed_counts *placed,
                                         bool wait)
{
    struct place_counts pending = {0};
    bool locked = k == 0 && lock_registry(wait);
    if (k == 0)
        pending = pending_locked();
    struct place_snapshot snap = place_stats_snapshot(&place_nodes[k], &pending);
    if (locked)
        place_unlock(&registry_lock, PLACE_RANK_THREADS);
    if (placed) {
        snap.events[PLACE_EV_ALLOCS] += placed->allocs[k];
        snap.events[PLACE_EV_FREES] += placed->frees[k];
    }
    return snap;
}

void place_threads_census(uint64_t *seen, unsigned *live, bool wait)
{
    /* without wait (a signal handler, which may have interrupted the lock's holder) the
     * figures are read as they stand: a thread starting or exiting meanwhile may be
     * miscounted by one */
    bool locked = lock_registry(wait);
    *seen = __atomic_load_n(&threads_seen, __ATOMIC_RELAXED);
    *live = 0;
    for (unsigned k = 0; k < __atomic_load_n(&slots_used, __ATOMIC_RELAXED); k++)
        if (__atomic_load_n(&slots[k].live, __ATOMIC_RELAXED)) {
            bool since = allocated_since(&slots[k]);
            *seen += since;
            *live += since || slots[k].counted;
        }
    if (locked)
        place_unlock(&registry_lock, PLACE_RANK_THREADS);
}

/* Under the guard the fork table raised (shim/init.c): fork handlers that other libraries
 * registered before libplace's run after this one, with the lock held, and may allocate. */
void place_threads_prefork(void)
{
    pthread_mutex_lock(&registry_lock);
}

void place_threads_postfork_parent(void)
{
    pthread_mutex_unlock(&registry_lock);
}

/* Only the forking thread lives on in the child. Every slot's bytes are summed before
 * the other threads' slots are dropped: the child's heap holds those allocations too. */
void place_threads_postfork_child(void)
{
    struct place_thread *self = &place_self;
    bool counted = self->slot && (self->slot->counted || allocated_since(self->slot));
    struct place_counts held = pending_locked();
    place_stats_add(&place_nodes[0], &held);
    for (unsigned k = 0; k < slots_used; k++)
        merge_placed(&slots[k]);
    place_stats_restart(&place_nodes[0]);
    memset(slots, 0, slots_used * sizeof slots[0]);
    slots_used = 0;
    threads_seen = self->before_fork != PLACE_THREAD_NEW && (!self->slot || counted);
    self->allocs = self->frees = 0;
    if (self->slot) {
        struct place_slot *own = self->slot;
        own->live = true;
        own->counted = counted;
        own->thread = self;
        slots_used = (unsigned)(own - slots) + 1;
    }
    pthread_mutex_init(&registry_lock, NULL);
}
