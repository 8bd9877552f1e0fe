/* Lock ranks, as jemalloc's witness keeps them: the order in which libplace's locks may
 * nest. It is the order in which fork takes them: shim/init.c's fork table has one step
 * per rank, laid out by this enum, so the one list says both, and an order that would
 * deadlock a thread against another is the one that would deadlock a fork.
 *
 * A thread takes a lock only while every lock it holds ranks lower. Two locks of one rank
 * (two arenas' slab locks, two stripes of the dry map) are never held together, except by
 * fork, which takes them all in its own order. A lock taken without waiting (a report from
 * a signal handler, which may have interrupted any lock's holder) is recorded and not
 * checked: it cannot deadlock.
 *
 * A build with asserts (base/assert.h) keeps the ranks a thread holds in its state
 * (base/guard.h) and checks each lock against them; a release build takes the lock and
 * does nothing else. */
#ifndef PLACE_RANK_H
#define PLACE_RANK_H

#include <pthread.h>
#include <stdbool.h>

#include "assert.h"
#include "guard.h"

enum place_rank {
    PLACE_RANK_UNWIND,    /* site/handshake.c: libplace in libunwind, a count the fork waits out
                           * (no lock: a fork from a handler on the thread that counted
                           * itself in goes on, so a thread does not hold this rank) */
    PLACE_RANK_MODULES,   /* site/modules.c: the loaded modules */
    PLACE_RANK_DRY,       /* engine/dry.c: each stripe of a dry run's map */
    PLACE_RANK_POOLS,     /* tiers/pool.c: a chunk pool (registers its chunks' ranges) */
    PLACE_RANK_OWNER,     /* tiers/owner.c: the owned ranges' writers */
    PLACE_RANK_ARENAS,    /* tiers/cache.c's registry, an arena's slabs, an arena's extents */
    PLACE_RANK_BLOCKS,    /* engine/blocks.c: CUDA's and the symmetric heap's blocks */
    PLACE_RANK_PROFILE,   /* stats/profile.c: the sampled blocks */
    PLACE_RANK_THREADS,   /* stats/threads.c: the slots' registry */
    PLACE_RANK_SYMMETRIC, /* stats/symmetric.c: the digest's spin lock */
    PLACE_RANKS
};

#ifdef PLACE_ASSERTS
_Static_assert(PLACE_RANKS <= 32, "a thread's ranks are one 32-bit mask");

__attribute__((cold, noreturn, unused)) static void place_rank_fail(enum place_rank r)
{
    place_warn("assertion failed: a lock of rank %u taken while holding ranks 0x%x "
               "(policy/base/rank.h)",
               (unsigned)r, (unsigned)place_self.ranks);
    abort();
}

/* Before waiting for a lock of rank r: none of rank r or above may be held. */
static inline void place_rank_take(enum place_rank r)
{
    if (__builtin_expect(place_self.ranks >> r != 0, 0))
        place_rank_fail(r);
    place_self.ranks |= 1u << r;
}

/* A lock of rank r taken without waiting. */
static inline void place_rank_hold(enum place_rank r)
{
    place_self.ranks |= 1u << r;
}

static inline void place_rank_drop(enum place_rank r)
{
    place_self.ranks &= ~(1u << r);
}
#else
static inline void place_rank_take(enum place_rank r)
{
    (void)r;
}

static inline void place_rank_hold(enum place_rank r)
{
    (void)r;
}

static inline void place_rank_drop(enum place_rank r)
{
    (void)r;
}
#endif

/* An arena's lock (its slabs' pool, its runs of pages): held for a batch of blocks or a
 * run's bookkeeping, a few hundred instructions, so a thread that finds it taken spins a
 * while before it sleeps (glibc's adaptive mutex). As plain mutexes, two threads
 * trading blocks through one pool slept on it again and again: larson ran 1.39x glibc's
 * time, with 450 times its voluntary context switches. */
static inline void place_lock_init(pthread_mutex_t *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(m, &a);
    pthread_mutexattr_destroy(&a);
}

static inline void place_lock(pthread_mutex_t *m, enum place_rank r)
{
    place_rank_take(r);
    pthread_mutex_lock(m);
}

/* Takes m, or with wait false only tries (a report from a signal handler): whether it holds it. */
static inline bool place_lock_or_try(pthread_mutex_t *m, enum place_rank r, bool wait)
{
    if (wait)
        place_rank_take(r);
    bool locked = wait ? pthread_mutex_lock(m) == 0 : pthread_mutex_trylock(m) == 0;
    if (locked && !wait)
        place_rank_hold(r);
    return locked;
}

static inline void place_unlock(pthread_mutex_t *m, enum place_rank r)
{
    pthread_mutex_unlock(m);
    place_rank_drop(r);
}

#endif
