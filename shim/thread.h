/* Per-thread state: the re-entry guard and where the thread's pass-through counts go.
 *
 * The state lives in one initial-exec TLS block, so the hot path reaches it with one
 * %fs-relative access and no call, and it exists before libplace's constructor runs.
 * The counts themselves live in a slot of libplace's own (struct place_slot), not in
 * TLS: a snapshot reads every live slot, and a slot stays readable whatever happens to
 * the thread, even one that exits without its exit hook ever running. */
#ifndef PLACE_THREAD_H
#define PLACE_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../policy/stats.h"

enum place_thread_state {
    PLACE_THREAD_NEW,    /* not registered yet (or libplace not ready) */
    PLACE_THREAD_ACTIVE, /* has a slot: counts there, hands bytes over in batches */
    PLACE_THREAD_BUSY,   /* inside libplace: the re-entry guard is up */
    PLACE_THREAD_SHARED, /* exited, or no slot was free: counts go to the shared counters */
};

/* One thread's counts not yet handed to the shared ones. Written only by its thread,
 * read by snapshots; a cache line each, so threads never share one. */
struct place_slot {
    struct place_counts dram;
    bool live;
} __attribute__((aligned(64)));

struct place_thread {
    /* The slot's counts while ACTIVE and outside the guard, NULL otherwise: the hot path
     * tests this one pointer and leaves every other state to the slow path. */
    struct place_counts *counts;
    struct place_slot *slot; /* this thread's slot, while it has one */
    uint8_t state;
    uint8_t before_fork; /* the state the prefork handler's guard saved */
};

extern __thread struct place_thread place_self __attribute__((tls_model("initial-exec")));

/* Whether the pass-through path counts. Counting costs a few nanoseconds per malloc/free
 * pair, so it is done only when someone will read the counts (a report was asked for).
 * It is on from the first allocation, before the constructor can know, so that memory
 * allocated before it is counted when it is later freed; the constructor switches it
 * off when no report is wanted. */
extern bool place_counting;

void place_count_slow(unsigned n, unsigned m, int64_t delta);
void place_hand_over_bytes(struct place_counts *c);

/* Counts one pass-through event of the calling thread: n allocations and m frees that
 * changed the usable bytes in use by delta. */
static inline void place_count(unsigned n, unsigned m, int64_t delta)
{
    struct place_counts *c = place_self.counts;
    if (__builtin_expect(c == NULL, 0)) {
        place_count_slow(n, m, delta);
        return;
    }
    if (n)
        place_relaxed_store(&c->allocs, c->allocs + n);
    if (m)
        place_relaxed_store(&c->frees, c->frees + m);
    int64_t b = c->bytes + delta;
    place_relaxed_store((uint64_t *)&c->bytes, (uint64_t)b);
    /* |b| > batch, in one compare */
    if (__builtin_expect((uint64_t)b + PLACE_STATS_BATCH > 2 * (uint64_t)PLACE_STATS_BATCH, 0))
        place_hand_over_bytes(c);
}

/* The re-entry guard: while it is up, the calling thread's allocations are served by
 * glibc and counted straight into the shared counters, so what libplace calls into
 * (libc, pthreads, other libraries' fork handlers, later libunwind and the tier
 * libraries) may allocate without recursing into libplace's own slow paths or locks.
 * enter returns the state to give back to leave, so guards nest. */
uint8_t place_guard_enter(void);
void place_guard_leave(uint8_t was);

/* Called once libplace is ready. With counting, threads register on their next count
 * from then on; without, place_counting goes off and nothing is registered. */
void place_threads_start(bool counting);

/* The dram tier's counts: the shared ones plus what live slots still hold. */
struct place_snapshot place_threads_dram(void);

/* How many threads have counted an allocation since start (or since the fork, in a
 * child), and how many of those hold a slot now, that is, have not exited. Without wait,
 * a busy registry is read unlocked. */
void place_threads_census(uint64_t *seen, unsigned *live, bool wait);

/* pthread_atfork handlers. */
void place_threads_prefork(void);
void place_threads_postfork_parent(void);
void place_threads_postfork_child(void);

#endif
