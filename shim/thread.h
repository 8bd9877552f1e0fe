/* Per-thread state: the re-entry guard and the thread's pass-through counts.
 *
 * Both live in one initial-exec TLS block, so the hot path reaches them with one
 * %fs-relative access and no call, and they exist before libplace's constructor runs. */
#ifndef PLACE_THREAD_H
#define PLACE_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "../policy/stats.h"

enum place_thread_state {
    PLACE_THREAD_NEW,     /* not yet known to the registry (or libplace not ready) */
    PLACE_THREAD_ACTIVE,  /* registered: counts locally, hands over in batches */
    PLACE_THREAD_BUSY,    /* inside libplace: the re-entry guard is up */
    PLACE_THREAD_EXITING, /* past its exit hook: hands every count over at once */
};

struct place_thread {
    struct place_counts dram; /* pass-through counts not yet handed over */
    /* The slow path is taken when |dram.bytes| exceeds `batch`; a thread that is not
     * ACTIVE has batch 0, so its next count takes the slow path too, and one compare
     * serves both. BUSY sets it to INT64_MAX: code inside the guard only counts. */
    int64_t batch;
    uint8_t state;
    struct place_thread *prev, *next; /* the registry, under its lock */
};

extern __thread struct place_thread place_self __attribute__((tls_model("initial-exec")));

/* Whether the pass-through path counts. Counting costs about 1.5 ns per malloc/free pair,
 * so it is done only when someone will read the counts (a report was asked for). It is
 * on from the first allocation, before the constructor can know, so that allocations made
 * before it are counted when they are later freed; the constructor switches it off when
 * no report is wanted. */
extern bool place_counting;

void place_thread_slow(struct place_thread *t);

/* Counts one pass-through event of the calling thread: n allocations and m frees that
 * changed the usable bytes in use by delta. */
static inline void place_count(unsigned n, unsigned m, int64_t delta)
{
    struct place_thread *t = &place_self;
    if (n)
        place_relaxed_store(&t->dram.allocs, t->dram.allocs + n);
    if (m)
        place_relaxed_store(&t->dram.frees, t->dram.frees + m);
    int64_t b = t->dram.bytes + delta;
    place_relaxed_store((uint64_t *)&t->dram.bytes, (uint64_t)b);
    if (__builtin_expect((uint64_t)b + (uint64_t)t->batch > 2 * (uint64_t)t->batch, 0))
        place_thread_slow(t);
}

/* The re-entry guard: while it is up, the calling thread's allocations are served by
 * glibc and only counted, so what libplace calls into (libc, pthreads, later libunwind
 * and the tier libraries) may allocate without recursing into libplace's own slow paths.
 * enter returns the state to give back to leave, so guards nest. */
uint8_t place_guard_enter(void);
void place_guard_leave(uint8_t was);

/* Called once libplace is ready. With counting, threads register on their next count
 * from then on; without, place_counting goes off and nothing is registered. */
void place_threads_start(bool counting);

/* The pass-through counts of every live thread, summed. */
struct place_counts place_threads_pending(void);

/* Number of threads that have counted since start (or since fork, in a child). */
uint64_t place_threads_seen(void);

/* pthread_atfork handlers. */
void place_threads_prefork(void);
void place_threads_postfork_parent(void);
void place_threads_postfork_child(void);

#endif
