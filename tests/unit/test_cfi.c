/* site/cfi.c against libunwind: the walker steps through plain frames, frames sized at
 * run time (alloca: the CFA at the frame pointer), frames that keep a frame pointer, up
 * to the stack's first frame in the main thread and in another, each return address and
 * each stack pointer as libunwind's cursor finds them, and stops at a signal frame, whose
 * layout it does not read. Then tables of its own: each kind of row the walker reads,
 * those it refuses, and every truncation and single-byte change of them read without a
 * crash (the UBSan build runs this too). */
#include <alloca.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "../../policy/site/cfi.h"
#include "check.h"

enum { MAX = 64 };

struct stacks {
    uintptr_t walked[MAX], walked_sp[MAX]; /* each caller's return address and stack pointer */
    uintptr_t ip[MAX], sp[MAX];            /* libunwind's, for the same frames */
    int nw, nu;
    int signal_at;      /* the frame a signal interrupted (libunwind's "signal frame"), or -1 */
    uint64_t last_rule; /* the rule the walk stopped at */
    uint64_t flags;     /* every rule's flags, or'ed */
};

/* The frames above this function, by the walker and by libunwind's cursor. */
static __attribute__((noinline)) void both(struct stacks *s)
{
#if PLACE_CFI_WALKS
    struct place_cfi_frame f;
    PLACE_CFI_HERE(f);
    uintptr_t sp = f.sp, bp = f.bp;
    uint64_t rule = place_cfi_rule_at(f.ip);
    const uintptr_t *slot;
    s->nw = 0;
    s->flags = 0;
    while (s->nw < MAX && (slot = place_cfi_step(rule, &sp, &bp))) {
        s->flags |= rule & 0xff;
        s->walked_sp[s->nw] = sp;
        s->walked[s->nw++] = *slot;
        rule = place_cfi_rule_at(*slot - 1);
    }
    s->last_rule = rule;
#endif
    unw_context_t ctx;
    unw_cursor_t c;
    unw_word_t ip, sp_;
    s->nu = 0;
    s->signal_at = -1;
    if (unw_getcontext(&ctx) == 0 && unw_init_local(&c, &ctx) == 0)
        while (s->nu < MAX && unw_step(&c) > 0 && unw_get_reg(&c, UNW_REG_IP, &ip) == 0 &&
               unw_get_reg(&c, UNW_REG_SP, &sp_) == 0) {
            if (s->signal_at < 0 && unw_is_signal_frame(&c) > 0)
                s->signal_at = s->nu;
            s->ip[s->nu] = ip;
            s->sp[s->nu++] = sp_;
        }
    __asm__ volatile("");
}

/* The same frames, as far as the walker went */
static void check_same(const struct stacks *s)
{
    CHECK(s->nw > 0);
    CHECK(s->nw <= s->nu);
    for (int k = 0; k < s->nw && k < s->nu; k++)
        if (s->walked[k] != s->ip[k] || s->walked_sp[k] != s->sp[k]) {
            fprintf(stderr, "frame %d: walked %#lx sp %#lx, libunwind %#lx sp %#lx\n", k,
                    (unsigned long)s->walked[k], (unsigned long)s->walked_sp[k],
                    (unsigned long)s->ip[k], (unsigned long)s->sp[k]);
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

/* A table of one's own: .eh_frame_hdr, a CIE (CFA rsp+8, return address at CFA-8) and
 * one FDE over [CODE, CODE + 16) whose program is `fde`, laid out in buf from lo; its
 * length. */
enum { CODE = 0x100000 };
static size_t table(uint8_t *buf, const uint8_t *fde, size_t fde_len)
{
    uint8_t *p = buf;
    uintptr_t code = (uintptr_t)buf + CODE;
#define PUT(bytes, n) (memcpy(p, bytes, n), p += (n))
#define PUT32(v) do { int32_t v32 = (int32_t)(v); PUT(&v32, 4); } while (0)
    uint8_t *hdr = p;
    PUT("\x01\x1b\x03\x3b", 4); /* version, eh_frame_ptr pcrel sdata4, count udata4, table datarel sdata4 */
    uint8_t *eh_frame_ptr = p;
    PUT32(0);
    PUT32(1);
    PUT32((intptr_t)code - (intptr_t)hdr);
    uint8_t *fde_ptr = p;
    PUT32(0);
    uint8_t *cie = p;
    static const uint8_t cie_body[] = {0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b,
                                       0x0c, 7, 8, 0x90, 1, 0, 0};
    PUT32(sizeof cie_body);
    PUT(cie_body, sizeof cie_body);
    int32_t v = (int32_t)(cie - eh_frame_ptr);
    memcpy(eh_frame_ptr, &v, 4);
    uint8_t *f = p;
    v = (int32_t)(f - hdr);
    memcpy(fde_ptr, &v, 4);
    size_t body = 4 + 4 + 4 + 1 + fde_len;
    PUT32(body);
    PUT32(p - cie);
    PUT32((intptr_t)code - (intptr_t)p);
    PUT32(16);
    PUT("", 1); /* no augmentation data */
    PUT(fde, fde_len);
    PUT32(0); /* .eh_frame's end */
    return (size_t)(p - buf);
#undef PUT
#undef PUT32
}

static uint64_t rule_in(const uint8_t *fde, size_t len, uintptr_t at)
{
    static uint8_t buf[256];
    size_t n = table(buf, fde, len);
    return place_cfi_rule_in(buf, buf, buf + n, (uintptr_t)buf + CODE + at);
}

#define RULE(cfa, flags, bp) ((uint64_t)(uint32_t)(cfa) << 32 | (uint64_t)(uint16_t)(bp) << 16 | (flags))

static void tables(void)
{
    /* push rbp; mov rsp, rbp; ... (a frame-pointer prologue) */
    static const uint8_t prologue[] = {0x41, 0x0e, 16, 0x86, 2, 0x43, 0x0d, 6};
    CHECK_EQ(rule_in(prologue, sizeof prologue, 0), RULE(8, PLACE_CFI_KNOWN, 0));
    CHECK_EQ(rule_in(prologue, sizeof prologue, 1), RULE(16, PLACE_CFI_KNOWN | PLACE_CFI_BP_SAVED, -16));
    CHECK_EQ(rule_in(prologue, sizeof prologue, 4),
             RULE(16, PLACE_CFI_KNOWN | PLACE_CFI_CFA_BP | PLACE_CFI_BP_SAVED, -16));
    CHECK_EQ(rule_in(prologue, sizeof prologue, 15),
             RULE(16, PLACE_CFI_KNOWN | PLACE_CFI_CFA_BP | PLACE_CFI_BP_SAVED, -16));
    CHECK_EQ(rule_in(prologue, sizeof prologue, 16), 0); /* past the FDE */
    CHECK_EQ(rule_in(prologue, sizeof prologue, -1), 0); /* before it */
    /* remember, change, restore: the CFA comes back; DW_CFA_restore brings rbp's */
    static const uint8_t states[] = {0x41, 0x0e, 16, 0x86, 2, 0x0a, 0x41, 0x0e, 48, 0x41, 0x0b, 0x41, 0xc6};
    CHECK_EQ(rule_in(states, sizeof states, 2), RULE(48, PLACE_CFI_KNOWN | PLACE_CFI_BP_SAVED, -16));
    CHECK_EQ(rule_in(states, sizeof states, 3), RULE(16, PLACE_CFI_KNOWN | PLACE_CFI_BP_SAVED, -16));
    CHECK_EQ(rule_in(states, sizeof states, 4), RULE(16, PLACE_CFI_KNOWN, 0));
    /* the return address undefined: the stack's first frame */
    static const uint8_t outermost[] = {0x07, 16};
    CHECK_EQ(rule_in(outermost, sizeof outermost, 0), RULE(8, PLACE_CFI_KNOWN | PLACE_CFI_OUTERMOST, 0));
    /* refused: the CFA by expression, in a register past rbp's number (262 is not rbp),
     * a rule for the stack pointer, rbp by expression, rbp saved above the return
     * address, a set_loc cut short */
    static const uint8_t refused[][8] = {
        {0x0f, 2, 0x77, 8}, {0x0c, 0x86, 2, 16}, {0x87, 2}, {0x10, 6, 1, 0x96},
        {0x86, 1}, {0x01, 0, 0},
    };
    static const size_t refused_len[] = {4, 4, 2, 4, 2, 3};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        uint64_t got = rule_in(refused[k], refused_len[k], 1);
        if (got != 0)
            fprintf(stderr, "refused table %zu: rule %#lx\n", k, (unsigned long)got);
        CHECK_EQ(got, 0);
    }
    /* a table's header outside the mapping named */
    static uint8_t buf[256];
    size_t n = table(buf, prologue, sizeof prologue);
    CHECK_EQ(place_cfi_rule_in(buf, buf + 4, buf + n, (uintptr_t)buf + CODE), 0);
    CHECK_EQ(place_cfi_rule_in(buf + n, buf, buf + n, (uintptr_t)buf + CODE), 0);
    /* every truncation and every single byte changed: read inside the mapping, no crash */
    for (size_t end = 0; end < n; end++)
        for (uintptr_t at = 0; at < 5; at++)
            place_cfi_rule_in(buf, buf, buf + end, (uintptr_t)buf + CODE + at);
    static const uint8_t values[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
    for (size_t k = 0; k < n; k++)
        for (size_t v = 0; v < sizeof values; v++) {
            uint8_t was = buf[k];
            buf[k] = values[v];
            for (uintptr_t at = 0; at < 5; at++)
                place_cfi_rule_in(buf, buf, buf + n, (uintptr_t)buf + CODE + at);
            buf[k] = was;
        }
}

int main(void)
{
#if PLACE_CFI_WALKS
    /* every frame up to _start: the walk ends where libunwind's does */
    struct stacks s;
    deep(&s, 5);
    check_same(&s);
    CHECK_EQ(s.nw, s.nu);
    CHECK(s.last_rule & PLACE_CFI_OUTERMOST);
    CHECK(s.flags & PLACE_CFI_CFA_BP);   /* alloca's and the framed function's */
    CHECK(s.flags & PLACE_CFI_BP_SAVED); /* their callers' frame pointers read back */
    CHECK(s.nw >= 5 + 4);

    /* a thread's stack ends at its start (clone's frame) */
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, in_thread, &s), 0);
    pthread_join(t, NULL);
    check_same(&s);
    CHECK_EQ(s.nw, s.nu);
    CHECK(s.last_rule & PLACE_CFI_OUTERMOST);

    /* a signal frame: the walk reads the handler's return into the kernel's restorer
     * and stops there, the frame before the one the signal interrupted (libunwind reads
     * that one from the restorer's ucontext) */
    signal(SIGUSR1, handler);
    raise(SIGUSR1);
    check_same(&in_handler);
    CHECK(in_handler.signal_at > 0);
    CHECK_EQ(in_handler.nw, in_handler.signal_at);
    CHECK_EQ(in_handler.last_rule, 0);

    /* no unwind information: unknown */
    static const char data[16];
    CHECK_EQ(place_cfi_rule_at((uintptr_t)data), 0);
    CHECK_EQ(place_cfi_rule_at(1), 0);

    tables();
#endif
    return CHECK_DONE();
}
