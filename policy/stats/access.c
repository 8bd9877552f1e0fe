#include "access.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/clock.h"
#include "../base/guard.h"
#include "../base/kernel.h"
#include "../base/large.h"
#include "../base/out.h"
#include "../base/pages.h"
#include "profile.h"

enum {
    WRITTEN_EVERY = 10, /* intervals between two reads of the soft-dirty bits */
    SLOWER_MAX = 64,    /* the interval grows to at most this many times the one asked */
    COST_PERMILLE = 100, /* the share of an interval the sampler may take, in 1/1000 */
    PAGE_FRAME_SOFT_DIRTY = 55,
};

static unsigned asked_ms;
static uint64_t min_bytes;
/* The sampler's descriptors into /proc, each with the file it was opened on: a program
 * that closes every descriptor it did not open (a daemon's closefrom) may get the
 * number for a file of its own, which the sampler must then never read, seek or write
 * (base/out.c keeps its copy of stderr so too). */
enum { CLEAR, SMAPS, PAGEMAP, KEPT };
static struct {
    const char *path;
    int flags;
    int fd; /* -1: not open */
    dev_t dev;
    ino_t ino;
} kept[KEPT] = {
    {"/proc/self/clear_refs", O_WRONLY, -1, 0, 0},
    {"/proc/self/smaps", O_RDONLY, -1, 0, 0},
    {"/proc/self/pagemap", O_RDONLY, -1, 0, 0},
};
/* Opens kept[k] among the highest descriptors, as libplace keeps every descriptor of
 * its own: the program's open() calls get the numbers they would without libplace. */
static bool open_kept(unsigned k)
{
    int f = open(kept[k].path, kept[k].flags | O_CLOEXEC);
    struct stat st;
    kept[k].fd = f < 0 ? -1 : place_fd_move_high(f, true);
    if (kept[k].fd >= 0 && fstat(kept[k].fd, &st) == 0) {
        kept[k].dev = st.st_dev;
        kept[k].ino = st.st_ino;
    } else if (kept[k].fd >= 0) {
        close(kept[k].fd);
        kept[k].fd = -1;
    }
    return kept[k].fd >= 0;
}

/* Whether kept[k]'s descriptor is still on the file it was opened on. */
static bool is_kept(unsigned k)
{
    struct stat st;
    return kept[k].fd >= 0 && fstat(kept[k].fd, &st) == 0 && st.st_dev == kept[k].dev &&
           st.st_ino == kept[k].ino;
}

/* is_kept, or else opened anew: one the program closed and took again is forgotten (not
 * closed: it is the program's). */
static bool still_kept(unsigned k)
{
    return is_kept(k) || open_kept(k);
}

static bool started; /* the thread runs (or its start failed: refused says why) */
static const char *refused;
static bool written_ok, cold_ok;
static uint64_t ticks, cost_ns, untracked_blocks, untracked_bytes;
static int64_t slept_ns;

void place_access_start(unsigned interval_ms, uint64_t min)
{
    asked_ms = interval_ms;
    min_bytes = min;
}

void place_access_refuse(unsigned interval_ms, uint64_t min, const char *why)
{
    place_access_start(interval_ms, min);
    refused = why;
}

void place_access_untracked(uint64_t bytes)
{
    __atomic_add_fetch(&untracked_blocks, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&untracked_bytes, bytes, __ATOMIC_RELAXED);
}

/* Writes `what` to clear_refs, checked just before: a descriptor the program closed and
 * took for a file of its own since the interval began is never written. */
static bool clear(const char *what)
{
    return is_kept(CLEAR) && write(kept[CLEAR].fd, what, strlen(what)) == (ssize_t)strlen(what);
}

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The tracked blocks, sorted by start, in memory of the sampler's own. */
static struct place_tracked *copy;
static struct place_touch *touch;
static size_t copy_cap;

static bool copy_room(size_t n)
{
    if (n <= copy_cap)
        return true;
    size_t cap = copy_cap ? copy_cap : 256;
    while (cap < n)
        cap *= 2;
    size_t a = cap * sizeof *copy, b = cap * sizeof *touch;
    struct place_tracked *c = place_reserve(&a, a, MAP_NORESERVE);
    struct place_touch *t = place_reserve(&b, b, MAP_NORESERVE);
    if (!c || !t) {
        if (c)
            munmap(c, a);
        if (t)
            munmap(t, b);
        return false;
    }
    if (copy) {
        munmap(copy, copy_cap * sizeof *copy);
        munmap(touch, copy_cap * sizeof *touch);
    }
    copy = c, touch = t, copy_cap = cap;
    return true;
}

static int by_start(const void *a, const void *b)
{
    uintptr_t x = ((const struct place_tracked *)a)->start;
    uintptr_t y = ((const struct place_tracked *)b)->start;
    return x < y ? -1 : x > y;
}

static long find(uintptr_t start, size_t n)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (copy[mid].start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && copy[lo].start == start ? (long)lo : -1;
}

static uint64_t hex(const char **s)
{
    uint64_t v = 0;
    for (;; ++*s) {
        char c = **s;
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                                            : 16;
        if (d == 16)
            return v;
        v = v * 16 + d;
    }
}

/* One line of smaps: a mapping's first line ("start-end perms ...") says which tracked
 * block the lines after it are of (*at, -1: none); its Referenced line, in kB, is read. */
static void line(const char *s, size_t n, long *at, size_t count)
{
    const char *p = s;
    uint64_t start = hex(&p);
    if (p > s && *p == '-') {
        const char *q = p + 1;
        uint64_t end = hex(&q);
        *at = find((uintptr_t)start, count);
        /* a mapping that grew past the block would count a neighbour's pages */
        if (*at >= 0 && end - start != copy[*at].len)
            *at = -1;
        return;
    }
    static const char key[] = "Referenced:";
    if (*at < 0 || n < sizeof key || memcmp(s, key, sizeof key - 1) != 0)
        return;
    p = s + sizeof key - 1;
    while (*p == ' ')
        p++;
    touch[*at].touched = place_digits(&p) * 1024;
    *at = -1;
}

/* Reads smaps through a buffer of the sampler's own, line by line: by pread, which moves
 * no file offset, so that a descriptor the program took since the interval began (a
 * closefrom in another thread) keeps its offset; what is read from it parses as no
 * mapping, and the next interval opens smaps anew. */
static void read_smaps(size_t count)
{
    static char buf[1 << 16] PLACE_LARGE;
    size_t have = 0;
    long at = -1;
    off_t offset = 0;
    for (;;) {
        ssize_t got = pread(kept[SMAPS].fd, buf + have, sizeof buf - have, offset);
        if (got <= 0)
            break;
        offset += got;
        have += (size_t)got;
        size_t from = 0;
        for (size_t k = 0; k < have; k++)
            if (buf[k] == '\n') {
                line(buf + from, k - from, &at, count);
                from = k + 1;
            }
        if (from == 0 && have == sizeof buf) /* a line longer than the buffer: dropped */
            from = have;
        memmove(buf, buf + from, have - from);
        have -= from;
    }
}

/* The written bytes of each tracked block: its pages' soft-dirty bits. */
static void read_written(size_t count)
{
    static uint64_t entries[512] PLACE_LARGE;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t k = 0; k < count; k++) {
        uint64_t dirty = 0;
        for (size_t off = 0; off < copy[k].len;) {
            size_t pages = (copy[k].len - off) / page;
            if (pages > 512)
                pages = 512;
            off_t at = (off_t)((copy[k].start + off) / page * 8);
            ssize_t got = pread(kept[PAGEMAP].fd, entries, pages * 8, at);
            if (got <= 0)
                break;
            for (size_t j = 0; j < (size_t)got / 8; j++)
                dirty += entries[j] >> PAGE_FRAME_SOFT_DIRTY & 1;
            off += (size_t)got / 8 * page;
        }
        touch[k].written = dirty * page;
    }
}

/* Whether soft-dirty bits work here: a page written after a clear reads dirty. */
static bool soft_dirty_works(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = page;
    volatile char *p = place_reserve(&len, page, 0);
    if (!p)
        return false;
    p[0] = 1;
    uint64_t e = 0;
    bool ok = clear("4") && (p[0] = 2) &&
              pread(kept[PAGEMAP].fd, &e, 8, (off_t)((uintptr_t)p / page * 8)) == 8 &&
              (e >> PAGE_FRAME_SOFT_DIRTY & 1);
    munmap((void *)p, page);
    return ok;
}

static void sleep_ns(int64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Clears the accessed bits of the n tracked blocks: each block's own with MADV_COLD, so
 * that no other page of the program pays for setting its bit again; the whole process's
 * through clear_refs where the kernel has no MADV_COLD (before 5.4). */
static bool cold(size_t n)
{
    if (cold_ok) {
        for (size_t k = 0; k < n; k++)
            madvise((void *)copy[k].start, copy[k].len, MADV_COLD);
        return true;
    }
    return clear("1");
}

/* The tracked blocks now, sorted by start; how many. */
static size_t snapshot(void)
{
    size_t n = place_profile_tracked(copy, copy_cap);
    if (n > copy_cap) {
        if (!copy_room(n))
            n = copy_cap;
        else
            n = place_profile_tracked(copy, copy_cap);
        n = n < copy_cap ? n : copy_cap;
    }
    qsort(copy, n, sizeof *copy, by_start);
    return n;
}

/* Each interval: the blocks read (their touched bytes since the last clear; a block
 * allocated since is all touched, which it was), then cleared again, then a sleep. */
static void *sampler(void *arg)
{
    (void)arg;
    place_guard_enter(); /* for good: whatever it calls allocates from glibc, uncounted */
    written_ok = kept[PAGEMAP].fd >= 0 && kept[CLEAR].fd >= 0 && soft_dirty_works();
    int64_t interval = (int64_t)asked_ms * 1000000;
    int64_t t0 = 0;
    for (uint64_t k = 0;; k++) {
        uint64_t c0 = cpu_ns();
        if (!still_kept(SMAPS) || (!cold_ok && !still_kept(CLEAR))) {
            /* the program took them all: what was read stands (the report's intervals
             * say how long it ran) */
            if (!__atomic_load_n(&ticks, __ATOMIC_RELAXED))
                refused = "the program took every descriptor the sampler could have";
            return NULL;
        }
        written_ok = written_ok && still_kept(CLEAR) && still_kept(PAGEMAP);
        size_t n = snapshot();
        bool written = written_ok && k % WRITTEN_EVERY == 1;
        if (k) {
            for (size_t j = 0; j < n; j++)
                touch[j] = (struct place_touch){.site = copy[j].site};
            read_smaps(n);
            if (written)
                read_written(n);
            place_profile_touched(touch, n, written);
        }
        /* the soft-dirty bits are cleared for the whole process, and each page's first
         * write after faults: only before one interval in WRITTEN_EVERY */
        if (!cold(n) || (written_ok && k % WRITTEN_EVERY == 0 && !clear("4")))
            return NULL;
        int64_t t1 = place_now_ns();
        uint64_t spent = cpu_ns() - c0;
        if (k) {
            __atomic_add_fetch(&cost_ns, spent, __ATOMIC_RELAXED);
            __atomic_add_fetch(&slept_ns, t1 - t0, __ATOMIC_RELAXED);
            __atomic_add_fetch(&ticks, 1, __ATOMIC_RELAXED);
        }
        /* slower while the reads cost more than their share of the interval */
        if (spent * 1000 > (uint64_t)interval * COST_PERMILLE &&
            interval < (int64_t)asked_ms * 1000000 * SLOWER_MAX)
            interval *= 2;
        t0 = t1;
        sleep_ns(interval);
    }
}

/* Whether madvise takes MADV_COLD (Linux 5.4 and later). */
static bool madvise_cold_works(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = page;
    void *p = place_reserve(&len, page, 0);
    bool ok = p && madvise(p, page, MADV_COLD) == 0;
    if (p)
        munmap(p, page);
    return ok;
}

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;

void place_access_ensure(void)
{
    if (__atomic_load_n(&started, __ATOMIC_ACQUIRE))
        return;
    pthread_mutex_lock(&start_lock);
    if (!started) {
        for (unsigned k = 0; k < KEPT; k++)
            open_kept(k);
        pthread_attr_t attr;
        sigset_t all, old;
        pthread_t t;
        cold_ok = madvise_cold_works();
        if (!cold_ok && (kept[CLEAR].fd < 0 || !clear("1")))
            refused = "the kernel has neither MADV_COLD nor /proc/self/clear_refs";
        else if (kept[SMAPS].fd < 0)
            refused = "the kernel refused /proc/self/smaps";
        else if (!copy_room(256))
            refused = "no memory for the sampler";
        else {
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            pthread_attr_init(&attr);
            pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
            pthread_attr_setstacksize(&attr, 256 << 10);
            if (pthread_create(&t, &attr, sampler, NULL) != 0)
                refused = "no thread for the sampler";
            else
                pthread_setname_np(t, "libplace-access");
            pthread_attr_destroy(&attr);
            pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        __atomic_store_n(&started, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&start_lock);
}

bool place_access_running(void)
{
    return __atomic_load_n(&started, __ATOMIC_ACQUIRE) && !refused;
}

void place_access_state(struct place_access_state *out)
{
    uint64_t n = __atomic_load_n(&ticks, __ATOMIC_RELAXED);
    *out = (struct place_access_state){
        .on = asked_ms != 0,
        .refused = refused,
        .written = written_ok,
        .interval_ms = asked_ms,
        .min = min_bytes,
        .interval_mean_ms = n ? (double)__atomic_load_n(&slept_ns, __ATOMIC_RELAXED) / 1e6 /
                                    (double)n
                              : 0,
        .intervals = n,
        .cost_ns = __atomic_load_n(&cost_ns, __ATOMIC_RELAXED),
        .untracked_blocks = __atomic_load_n(&untracked_blocks, __ATOMIC_RELAXED),
        .untracked_bytes = __atomic_load_n(&untracked_bytes, __ATOMIC_RELAXED),
    };
}

/* The parent's descriptors read the parent's memory: the child opens its own at its
 * first tracked block. Its own figures start afresh; the sites' sums are the parent's
 * until then (stats/profile.c keeps them). */
void place_access_postfork_child(void)
{
    for (unsigned k = 0; k < KEPT; k++) {
        if (is_kept(k))
            close(kept[k].fd);
        kept[k].fd = -1;
    }
    started = false;
    refused = NULL;
    pthread_mutex_init(&start_lock, NULL);
}
