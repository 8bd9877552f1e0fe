/* base/cfi.c against libunwind: the walker steps through plain frames, frames sized at
 * run time (alloca: the CFA at the frame pointer), frames that keep a frame pointer, up
 * to the stack's first frame in the main thread and in another, and stops at a signal
 * frame, whose layout it does not read. */
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "../../policy/base/cfi.h"
#include "check.h"

enum { MAX = 64 };

struct stacks {
    uintptr_t walked[MAX];
    void *traced[MAX];
    int nw, nt;
    uint64_t last_rule; /* the rule the walk stopped at */
    uint64_t flags;     /* every rule's flags, or'ed */
};

/* The return addresses above this function, by the walker and by libunwind. */
static __attribute__((noinline)) void both(struct stacks *s)
{
#if defined(__x86_64__)
    struct place_cfi_frame f;
    PLACE_CFI_HERE(f);
    uintptr_t sp = f.sp, bp = f.bp;
    uint64_t rule = place_cfi_rule_at(f.ip);
    const uintptr_t *slot;
    s->nw = 0;
    s->flags = 0;
    while (s->nw < MAX && (slot = place_cfi_step(rule, &sp, &bp))) {
        s->flags |= rule & 0xff;
        s->walked[s->nw++] = *slot;
        rule = place_cfi_rule_at(*slot - 1);
    }
    s->last_rule = rule;
#endif
    s->nt = unw_backtrace(s->traced, MAX); /* [0] is this function */
    __asm__ volatile("");
}

/* The same frames, as far as the walker went */
static void check_same(const struct stacks *s)
{
    CHECK(s->nw > 0);
    CHECK(s->nw <= s->nt - 1);
    for (int k = 0; k < s->nw && k + 1 < s->nt; k++)
        if (s->walked[k] != (uintptr_t)s->traced[k + 1]) {
            fprintf(stderr, "frame %d: walked %#lx, traced %p\n", k, (unsigned long)s->walked[k],
                    s->traced[k + 1]);
            CHECK(0);
        }
}

static __attribute__((noinline)) void plain(struct stacks *s, int n)
{
    volatile char pad[40];
    pad[n % 40] = 1;
    both(s);
    __asm__ volatile("" ::"r"(pad));
}

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) void framed(struct stacks *s, int n)
{
    volatile char pad[24];
    pad[n % 24] = 2;
    plain(s, n + 1);
    __asm__ volatile("" ::"r"(pad));
}

/* alloca: the frame's size is known at run time only, the CFA is the frame pointer's */
static __attribute__((noinline)) void sized_at_run_time(struct stacks *s, int n)
{
    char *buf = alloca((size_t)n * 100 + 1);
    memset(buf, 0, (size_t)n * 100 + 1);
    framed(s, n + 1);
    __asm__ volatile("" ::"r"(buf));
}

static __attribute__((noinline)) void deep(struct stacks *s, int n)
{
    if (n > 0)
        deep(s, n - 1);
    else
        sized_at_run_time(s, 3);
    __asm__ volatile("");
}

static void *in_thread(void *arg)
{
    deep(arg, 2);
    return NULL;
}

static struct stacks in_handler;
static void handler(int sig)
{
    (void)sig;
    plain(&in_handler, 1);
}

int main(void)
{
#if defined(__x86_64__)
    /* every frame up to _start: the walk ends where libunwind's does */
    struct stacks s;
    deep(&s, 5);
    check_same(&s);
    CHECK_EQ(s.nw, s.nt - 1);
    CHECK(s.last_rule & PLACE_CFI_OUTERMOST);
    CHECK(s.flags & PLACE_CFI_CFA_BP);   /* alloca's and the framed function's */
    CHECK(s.flags & PLACE_CFI_BP_SAVED); /* their callers' frame pointers read back */
    CHECK(s.nw >= 5 + 4);

    /* a thread's stack ends at its start (clone's frame) */
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, in_thread, &s), 0);
    pthread_join(t, NULL);
    check_same(&s);
    CHECK_EQ(s.nw, s.nt - 1);
    CHECK(s.last_rule & PLACE_CFI_OUTERMOST);

    /* a signal frame: the walk reaches the handler's return into the kernel's restorer
     * and stops there (libunwind reads the interrupted frame from its ucontext) */
    signal(SIGUSR1, handler);
    raise(SIGUSR1);
    check_same(&in_handler);
    CHECK(in_handler.nw < in_handler.nt - 1);
    CHECK_EQ(in_handler.last_rule, 0);

    /* no unwind information: unknown */
    static const char data[16];
    CHECK_EQ(place_cfi_rule_at((uintptr_t)data), 0);
    CHECK_EQ(place_cfi_rule_at(1), 0);
#endif
    return CHECK_DONE();
}
