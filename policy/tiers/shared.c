#include "shared.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../config/policy.h"
#include "../base/clock.h"
#include "../base/fmt.h"
#include "../base/futex.h"
#include "../base/path.h"
#include "../base/kernel.h"
#include "tier.h"

/* The region's layout; a region another layout made is refused by its size and mark. */
enum { SLOTS = 512, MARK = 0x6c706e31 /* "lpn1" */ };

struct slot {
    int32_t pid;    /* 0: free */
    uint64_t start; /* the process's start time (/proc/PID/stat), so a reused pid is not it */
    int64_t bytes;  /* what it holds */
};

struct region {
    _Atomic uint32_t mark; /* MARK once set up */
    pthread_mutex_t lock;  /* robust, shared between processes */
    int64_t in_use, peak;  /* in_use is the slots' sum */
    uint32_t used_slots;   /* slots [0, used_slots) may be taken */
    int64_t reaped_ns;     /* when dead processes were last looked for */
    struct place_waits waits;
    struct slot slots[SLOTS];
};

struct place_shared {
    struct region *r;
    struct slot *mine; /* NULL once given back at the end */
    char name[PLACE_NAME_MAX + 48];
};

static struct place_shared shared[PLACE_MAX_TIERS];

/* A process's start time (clock ticks since boot), so that a reused pid is not it. */
static uint64_t start_time(pid_t pid)
{
    return place_process_stat(pid, 22);
}

static bool alive(const struct slot *s)
{
    if (kill(s->pid, 0) != 0 && errno == ESRCH)
        return false;
    uint64_t start = start_time(s->pid);
    return !start || start == s->start; /* unreadable (another user's /proc): alive */
}

static void recount(struct region *r)
{
    r->in_use = 0;
    for (uint32_t i = 0; i < r->used_slots; i++)
        r->in_use += r->slots[i].pid ? r->slots[i].bytes : 0;
}

/* False when this thread holds the lock already: a signal handler that interrupted a
 * reservation, and allocates or exits (the count cannot be touched then). */
static bool lock(struct region *r)
{
    int rc = pthread_mutex_lock(&r->lock);
    /* a holder died inside: the slots are each whole, the count may not be */
    if (rc == EOWNERDEAD) {
        recount(r);
        pthread_mutex_consistent(&r->lock);
    }
    return rc != EDEADLK;
}

/* Frees the slots of processes that are gone: whether any held bytes. At most every
 * REAP_NS unless now_anyway: it reads /proc for every slot, under the lock every sharing
 * process waits on. */
enum { REAP_NS = 100 * 1000 * 1000 };

static bool reap(struct region *r, bool now_anyway)
{
    bool freed = false;
    int64_t now = place_now_ns();
    if (!now_anyway && r->reaped_ns && now - r->reaped_ns < REAP_NS)
        return false;
    r->reaped_ns = now;
    pid_t self = getpid();
    for (uint32_t i = 0; i < r->used_slots; i++) {
        struct slot *s = &r->slots[i];
        if (s->pid && s->pid != self && !alive(s)) {
            freed |= s->bytes > 0;
            r->in_use -= s->bytes;
            *s = (struct slot){0};
        }
    }
    return freed;
}

static void wake(struct region *r)
{
    place_waits_wake(&r->waits, true);
}

/* A slot for this process, empty; one this pid and start time hold already is a program
 * this process ran before an exec, whose memory is gone. */
static struct slot *claim(struct region *r)
{
    pid_t pid = getpid();
    uint64_t start = start_time(pid);
    struct slot *free = NULL;
    if (!lock(r))
        return NULL;
    for (uint32_t i = 0; i < SLOTS; i++) {
        struct slot *s = &r->slots[i];
        if (s->pid == pid && s->start == start) {
            r->in_use -= s->bytes;
            *s = (struct slot){0};
        }
        if (!s->pid && !free)
            free = s;
    }
    if (!free) { /* every slot taken: the dead ones' freed now, whatever they held */
        reap(r, true);
        for (uint32_t i = 0; i < r->used_slots && !free; i++)
            free = r->slots[i].pid ? NULL : &r->slots[i];
    }
    if (free) {
        *free = (struct slot){.pid = pid, .start = start};
        if ((uint32_t)(free - r->slots) >= r->used_slots)
            r->used_slots = (uint32_t)(free - r->slots) + 1;
    }
    pthread_mutex_unlock(&r->lock);
    wake(r); /* a pre-exec slot's bytes may have made room */
    return free;
}

/* Sets up a new region (the caller holds the file's flock): the count, its lock. */
static void set_up(struct region *r)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&r->lock, &a);
    pthread_mutexattr_destroy(&a);
    atomic_store(&r->mark, MARK);
}

/* The region's file, made or opened, checked and mapped: NULL, or why not into why. */
static struct region *open_region(const char *name, struct place_buf *why)
{
    int fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        place_bprintf(why, "cannot open /dev/shm%s: %s", name, place_errno_name(errno));
        return NULL;
    }
    struct region *r = NULL;
    struct stat st;
    /* setting up is one process's at a time; a flock ends with its holder, however it ends */
    if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0) {
        place_bprintf(why, "cannot lock /dev/shm%s: %s", name, place_errno_name(errno));
    } else if (st.st_uid != getuid() || (st.st_mode & 077)) {
        /* another user's file could count this one's memory as it likes */
        place_bprintf(why, "/dev/shm%s is not this user's alone (owner %u%s; remove it)", name,
                      (unsigned)st.st_uid, st.st_mode & 077 ? ", others may open it" : "");
    } else if (st.st_size != 0 && st.st_size != (off_t)sizeof *r) {
        place_bprintf(why, "/dev/shm%s was made by another libplace version (remove it)", name);
    } else if (st.st_size == 0 && ftruncate(fd, sizeof *r) != 0) {
        place_bprintf(why, "cannot size /dev/shm%s: %s", name, place_errno_name(errno));
    } else if ((r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) ==
               MAP_FAILED) {
        r = NULL;
        place_bprintf(why, "cannot map /dev/shm%s: %s", name, place_errno_name(errno));
    } else if (atomic_load(&r->mark) != MARK) {
        set_up(r);
    }
    /* the mapping holds the open file too: closing it would not end the flock */
    flock(fd, LOCK_UN);
    close(fd);
    return r;
}

const char *place_shared_attach(struct place_tier *t)
{
    struct place_shared *s = &shared[t->index];
    struct place_buf why = PLACE_BUF(t->reason);
    const char *job = place_job_id();
    struct place_buf n = PLACE_BUF(s->name);
    place_bprintf(&n, "/libplace-%u-%s%s", (unsigned)getuid(), t->name, job ? "-" : "");
    if (job)
        place_path_component(&n, job);
    if (!(s->r = open_region(s->name, &why)))
        return t->reason;
    if (!(s->mine = claim(s->r))) {
        place_bprintf(&why, "%u processes share /dev/shm%s already", SLOTS, s->name);
        return t->reason;
    }
    t->shared = s;
    return NULL;
}

static bool room(const struct region *r, int64_t bytes, uint64_t limit)
{
    int64_t after;
    return !__builtin_add_overflow(r->in_use, bytes, &after) &&
           (!limit || (after >= 0 && (uint64_t)after <= limit));
}

bool place_shared_reserve(struct place_shared *s, int64_t bytes, uint64_t limit)
{
    struct region *r = s->r;
    /* no node holds 8 EiB: a size_t of 2^63 or more arrives negative */
    if (bytes < 0)
        return false;
    /* without a slot (past the process's end, or a child that found none) the process
     * counts only for itself */
    if (!s->mine)
        return true;
    if (!lock(r))
        return false;
    bool fits = room(r, bytes, limit) || (reap(r, false) && room(r, bytes, limit));
    if (fits) {
        s->mine->bytes += bytes;
        r->in_use += bytes;
        if (r->in_use > r->peak)
            r->peak = r->in_use;
    }
    pthread_mutex_unlock(&r->lock);
    return fits;
}

void place_shared_release(struct place_shared *s, int64_t bytes)
{
    struct region *r = s->r;
    if (!s->mine || !lock(r))
        return;
    /* a forked child's frees of what it inherited are its parent's: taken from what it
     * placed itself, down to 0 */
    int64_t given = bytes > s->mine->bytes ? s->mine->bytes : bytes;
    s->mine->bytes -= given;
    r->in_use -= given;
    if (r->in_use > r->peak)
        r->peak = r->in_use;
    pthread_mutex_unlock(&r->lock);
    wake(r);
}

struct place_waits *place_shared_waits(struct place_shared *s)
{
    return &s->r->waits;
}

int64_t place_shared_in_use(const struct place_shared *s)
{
    return s->r->in_use;
}

void place_shared_view(const struct place_shared *s, struct place_shared_view *v)
{
    const struct region *r = s->r;
    *v = (struct place_shared_view){.name = s->name, .in_use = r->in_use, .peak = r->peak};
    for (uint32_t i = 0; i < r->used_slots && i < SLOTS; i++)
        v->processes += r->slots[i].pid != 0;
}

bool place_shared_others(const struct place_shared *s)
{
    for (uint32_t i = 0; i < s->r->used_slots && i < SLOTS; i++)
        if (s->r->slots[i].pid && &s->r->slots[i] != s->mine)
            return true;
    return false;
}

void place_shared_postfork_child(void)
{
    for (unsigned k = 0; k < PLACE_MAX_TIERS; k++)
        if (shared[k].r)
            shared[k].mine = claim(shared[k].r);
}

void place_shared_end(void)
{
    for (unsigned k = 0; k < PLACE_MAX_TIERS; k++) {
        struct place_shared *s = &shared[k];
        if (!s->r || !s->mine || !lock(s->r))
            continue;
        s->r->in_use -= s->mine->bytes;
        *s->mine = (struct slot){0};
        s->mine = NULL;
        pthread_mutex_unlock(&s->r->lock);
        wake(s->r);
    }
}
