#include "timeline.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "../base/large.h"
#include "../base/path.h"
#include "counters.h"

enum { MIN_INTERVAL_NS = 1000000 };

bool place_timeline_on;
_Atomic int64_t place_timeline_next;
static int64_t interval; /* 0: every change, until the table first fills */
static struct place_timeline line PLACE_LARGE;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The coarse clock is a vDSO read of a few nanoseconds with the kernel tick's resolution
 * (1 to 4 ms): past MIN_INTERVAL_NS, the tick is the timeline's finest interval. */
int64_t place_coarse_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t since_start_ms(int64_t now)
{
    int64_t start = (int64_t)place_run.start.tv_sec * 1000000000 + place_run.start.tv_nsec;
    return now > start ? (now - start) / 1000000 : 0;
}

/* Points 2k-1 and 2k become point k: the later one's time and bytes, the band of both;
 * point 0, the start, stays. */
static void halve(void)
{
    int64_t span = (int64_t)(line.ms[line.n - 1] - line.ms[0]) * 1000000;
    unsigned n = 1;
    for (unsigned a = 1; a < line.n; a += 2, n++) {
        unsigned b = a + 1 < line.n ? a + 1 : a;
        line.ms[n] = line.ms[b];
        for (unsigned i = 0; i < PLACE_MAX_TIERS; i++) {
            line.bytes[n][i] = line.bytes[b][i];
            line.lo[n][i] = line.lo[a][i] < line.lo[b][i] ? line.lo[a][i] : line.lo[b][i];
            line.hi[n][i] = line.hi[a][i] > line.hi[b][i] ? line.hi[a][i] : line.hi[b][i];
        }
    }
    line.n = n;
    interval = interval ? 2 * interval : 2 * span / PLACE_TIMELINE_POINTS;
    if (interval < MIN_INTERVAL_NS)
        interval = MIN_INTERVAL_NS;
}

static void record(int64_t now)
{
    if (line.n == PLACE_TIMELINE_POINTS)
        halve();
    unsigned k = line.n++;
    line.ms[k] = (uint32_t)since_start_ms(now);
    for (unsigned i = 0; i < PLACE_MAX_TIERS; i++) {
        struct place_node_stats *s = &place_nodes[i];
        int64_t held = place_stats_bytes(s);
        int64_t hi = atomic_exchange_explicit(&s->hi, held, memory_order_relaxed);
        int64_t lo = atomic_exchange_explicit(&s->lo, held, memory_order_relaxed);
        line.bytes[k][i] = held;
        line.hi[k][i] = hi > held ? hi : held;
        line.lo[k][i] = lo < held ? lo : held;
    }
    atomic_store_explicit(&place_timeline_next, now + interval, memory_order_relaxed);
}

/* A thread that finds the table busy skips: another is sampling this very moment. */
void place_timeline_sample(void)
{
    if (pthread_mutex_trylock(&lock) != 0)
        return;
    int64_t now = place_coarse_ns();
    if (now >= atomic_load_explicit(&place_timeline_next, memory_order_relaxed))
        record(now);
    pthread_mutex_unlock(&lock);
}

void place_timeline_start(void)
{
    place_timeline_on = true;
    place_timeline_sample();
}

const struct place_timeline *place_timeline_final(bool wait)
{
    static struct place_timeline copy PLACE_LARGE; /* the reports take turns (report/deliver.c) */
    if (wait ? pthread_mutex_lock(&lock) != 0 : pthread_mutex_trylock(&lock) != 0)
        return &copy; /* the last report's, or none */
    if (place_timeline_on)
        record(place_coarse_ns());
    /* its points alone: the whole of it is 198 KB, which a copy would write at every
     * report, and a process's max RSS would count */
    copy.n = line.n;
    memcpy(copy.ms, line.ms, line.n * sizeof line.ms[0]);
    memcpy(copy.bytes, line.bytes, line.n * sizeof line.bytes[0]);
    memcpy(copy.lo, line.lo, line.n * sizeof line.lo[0]);
    memcpy(copy.hi, line.hi, line.n * sizeof line.hi[0]);
    pthread_mutex_unlock(&lock);
    return &copy;
}

void place_timeline_restart(void)
{
    pthread_mutex_init(&lock, NULL); /* the parent may have been sampling as it forked */
    line.n = 0;
    interval = 0;
    atomic_store_explicit(&place_timeline_next, 0, memory_order_relaxed);
    if (place_timeline_on)
        place_timeline_sample();
}
