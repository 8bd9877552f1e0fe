#include "thread.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

#include "../policy/tier.h"

__thread struct place_thread place_self __attribute__((tls_model("initial-exec")));

/* Registry of live threads, so a snapshot can add the counts they still hold. Taken once
 * when a thread registers and once when it exits, never per allocation. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct place_thread *registry;
static uint64_t threads_seen;

bool place_counting = true;

static pthread_key_t exit_key;
static bool ready;

static void hand_over(struct place_thread *t)
{
    place_stats_add(&place_dram.stats, &t->dram);
    place_relaxed_store(&t->dram.allocs, 0);
    place_relaxed_store(&t->dram.frees, 0);
    place_relaxed_store((uint64_t *)&t->dram.bytes, 0);
}

static void unlink_locked(struct place_thread *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        registry = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->prev = t->next = NULL;
}

/* pthread key destructor: the thread is exiting. Frees that later destructors make still
 * count: EXITING hands each one over as it comes. */
static void thread_exit(void *arg)
{
    struct place_thread *t = arg;
    pthread_mutex_lock(&registry_lock);
    unlink_locked(t);
    hand_over(t);
    t->state = PLACE_THREAD_EXITING;
    t->batch = 0;
    pthread_mutex_unlock(&registry_lock);
}

static void register_thread(struct place_thread *t)
{
    int saved = errno;
    /* pthread_setspecific may allocate (keys past the first 32): under the guard that
     * nested call only counts instead of registering again. */
    place_guard_enter();
    pthread_setspecific(exit_key, t);
    pthread_mutex_lock(&registry_lock);
    t->prev = NULL;
    t->next = registry;
    if (registry)
        registry->prev = t;
    registry = t;
    threads_seen++;
    pthread_mutex_unlock(&registry_lock);
    place_guard_leave(PLACE_THREAD_ACTIVE);
    errno = saved;
}

void place_thread_slow(struct place_thread *t)
{
    switch (t->state) {
    case PLACE_THREAD_NEW:
        if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
            register_thread(t);
        break;
    case PLACE_THREAD_ACTIVE: {
        /* Only the bytes move: they keep the shared peak current. */
        struct place_counts bytes = {.bytes = t->dram.bytes};
        place_stats_add(&place_dram.stats, &bytes);
        place_relaxed_store((uint64_t *)&t->dram.bytes, 0);
        break;
    }
    case PLACE_THREAD_EXITING:
        hand_over(t);
        break;
    case PLACE_THREAD_BUSY:
        break;
    }
}

uint8_t place_guard_enter(void)
{
    struct place_thread *t = &place_self;
    uint8_t was = t->state;
    t->state = PLACE_THREAD_BUSY;
    t->batch = INT64_MAX;
    return was;
}

void place_guard_leave(uint8_t was)
{
    struct place_thread *t = &place_self;
    t->state = was;
    t->batch = was == PLACE_THREAD_ACTIVE ? PLACE_STATS_BATCH
               : was == PLACE_THREAD_BUSY ? INT64_MAX
                                          : 0;
}

void place_threads_start(bool counting)
{
    place_counting = counting;
    if (!counting)
        return;
    pthread_key_create(&exit_key, thread_exit);
    __atomic_store_n(&ready, true, __ATOMIC_RELEASE);
}

static struct place_counts pending_locked(void)
{
    struct place_counts sum = {0};
    for (struct place_thread *t = registry; t; t = t->next) {
        sum.allocs += place_relaxed_load(&t->dram.allocs);
        sum.frees += place_relaxed_load(&t->dram.frees);
        sum.bytes += (int64_t)place_relaxed_load((const uint64_t *)&t->dram.bytes);
    }
    return sum;
}

struct place_counts place_threads_pending(void)
{
    pthread_mutex_lock(&registry_lock);
    struct place_counts sum = pending_locked();
    pthread_mutex_unlock(&registry_lock);
    return sum;
}

uint64_t place_threads_seen(void)
{
    pthread_mutex_lock(&registry_lock);
    uint64_t n = threads_seen;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

void place_threads_prefork(void)
{
    pthread_mutex_lock(&registry_lock);
}

void place_threads_postfork_parent(void)
{
    pthread_mutex_unlock(&registry_lock);
}

/* Only the forking thread lives on in the child. The other threads' blocks are still
 * readable (the child has a copy of the parent's memory), so their bytes are summed
 * before they are dropped: the child's heap holds those allocations too. */
void place_threads_postfork_child(void)
{
    struct place_thread *self = &place_self;
    struct place_counts held = pending_locked();
    struct place_snapshot s = place_stats_snapshot(&place_dram.stats, &held);
    place_stats_restart(&place_dram.stats, s.bytes);
    place_relaxed_store(&self->dram.allocs, 0);
    place_relaxed_store(&self->dram.frees, 0);
    place_relaxed_store((uint64_t *)&self->dram.bytes, 0);
    bool registered = self->prev || self->next || registry == self;
    self->prev = self->next = NULL;
    registry = registered ? self : NULL;
    threads_seen = registered;
    pthread_mutex_init(&registry_lock, NULL);
}
