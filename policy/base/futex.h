/* Waiting for a word to change, and waking those who wait: the kernel's futex, which
 * needs no lock and no allocation, so a free() can wake a waiter from any thread. A word
 * in memory shared between processes (shared) takes the kernel's slower, global futexes;
 * any other, the process's own. */
#ifndef PLACE_FUTEX_H
#define PLACE_FUTEX_H

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Sleeps while *word == seen, at most ns nanoseconds (a wake-up may come early). */
static inline void place_futex_wait(_Atomic uint32_t *word, uint32_t seen, int64_t ns,
                                    bool shared)
{
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    syscall(SYS_futex, (uint32_t *)word, shared ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE, seen, &ts,
            NULL, 0);
}

static inline void place_futex_wake_all(_Atomic uint32_t *word, bool shared)
{
    syscall(SYS_futex, (uint32_t *)word, shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, INT32_MAX,
            NULL, NULL, 0);
}

/* Where threads wait for a change that other threads (or processes) make: how many wait,
 * and the word each change bumps. */
struct place_waits {
    _Atomic uint32_t waiters, wake;
};

/* A change made: every waiter woken, the futex call skipped when none waits (seq_cst,
 * after the change: a waiter either sees it or is woken). */
static inline void place_waits_wake(struct place_waits *w, bool shared)
{
    if (__builtin_expect(atomic_load(&w->waiters) != 0, 0)) {
        atomic_fetch_add(&w->wake, 1);
        place_futex_wake_all(&w->wake, shared);
    }
}

#endif
