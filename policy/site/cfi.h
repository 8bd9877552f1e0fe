/* A frame's layout at one code address, read from its module's call frame information
 * (.eh_frame, found through .eh_frame_hdr by glibc's _dl_find_object): where the caller's
 * stack pointer, frame pointer and return address are. The site walker (site/walk.c)
 * steps from frame to frame with it: a few loads a frame, no system call, no lock, and
 * each return address's slot known, where libunwind's backtrace costs ~80 ns for 12
 * frames and gives no slots.
 *
 * Only the plain layouts are read: the canonical frame address (CFA) at the stack or
 * frame pointer plus a constant, the frame pointer kept or saved at the CFA plus a
 * constant, the return address just below the CFA (x86-64's calls). Anything else (an
 * expression, a signal frame, code without unwind information, another machine) is
 * "unknown", and the caller asks libunwind. Reads the module's own mapped sections, with
 * every offset checked against the object's mapping: no malloc, no stdio, errno kept. */
#ifndef PLACE_CFI_H
#define PLACE_CFI_H

#include <stdint.h>

/* A rule, packed in one word so a table can hold it atomically: the flags below in the
 * low byte, the frame pointer's slot (from the CFA, int16) in bits 16..31, the CFA's
 * offset from its register (int32) in bits 32..63. 0 is unknown. */
enum {
    PLACE_CFI_KNOWN = 1,     /* the rest holds */
    PLACE_CFI_CFA_BP = 2,    /* the CFA is the frame pointer plus the offset, else the stack's */
    PLACE_CFI_BP_SAVED = 4,  /* the caller's frame pointer lies at the CFA plus its slot */
    PLACE_CFI_OUTERMOST = 8, /* no caller: the return address is undefined (_start, a thread's start) */
};

/* The rule in force at pc; for a return address, pass the address less one (the call). */
uint64_t place_cfi_rule_at(uintptr_t pc);

/* The same from the .eh_frame_hdr at hdr, every byte read inside [lo, hi) (the object's
 * mapping): what place_cfi_rule_at asks once glibc has found the object. */
uint64_t place_cfi_rule_in(const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi, uintptr_t pc);

/* A frame as a walk steps through it: the code address it is at, its stack and frame
 * pointers. */
struct place_cfi_frame {
    uintptr_t ip, sp, bp;
};

/* Whether this machine's frames are read (x86-64's layouts, 64-bit pointers). */
#if defined(__x86_64__) && defined(__LP64__)
#define PLACE_CFI_WALKS 1

/* The calling code's own frame, as one instruction sees it: a walk's starting point
 * (place_cfi_rule_at(f.ip) is its rule), valid while the calling function runs. The
 * frame pointer is read first, before an output the compiler gave its register is
 * written. */
#define PLACE_CFI_HERE(f)                                                                          \
    __asm__ volatile("mov %%rbp, %2\n\tlea 0(%%rip), %0\n\tmov %%rsp, %1"                          \
                     : "=&r"((f).ip), "=&r"((f).sp), "=&r"((f).bp))

/* From a frame (its stack and frame pointers *sp, *bp, its rule) to its caller's: *sp and
 * *bp become the caller's, and the result is the slot of the return address into the
 * caller, or NULL when the rule cannot be followed: unknown, outermost, or a layout this
 * stack cannot have (a CFA not aligned, not above the return address's slot, or more
 * than 16 MiB above the frame; a saved frame pointer not between the two). */
static inline const uintptr_t *place_cfi_step(uint64_t rule, uintptr_t *sp, uintptr_t *bp)
{
    if ((rule & (PLACE_CFI_KNOWN | PLACE_CFI_OUTERMOST)) != PLACE_CFI_KNOWN)
        return 0;
    uintptr_t cfa = ((rule & PLACE_CFI_CFA_BP) ? *bp : *sp) + (uintptr_t)(int64_t)(int32_t)(rule >> 32);
    /* sp + 8 <= cfa <= sp + 16 MiB in one compare (below, it wraps) */
    if ((cfa & (sizeof(uintptr_t) - 1)) || cfa - *sp - sizeof(uintptr_t) > (1u << 24))
        return 0;
    if (rule & PLACE_CFI_BP_SAVED) {
        /* at most CFA - 16 (a rule says so: cfi.c), and not below the frame */
        uintptr_t slot = cfa + (uintptr_t)(int64_t)(int16_t)(rule >> 16);
        if (slot < *sp)
            return 0;
        *bp = *(const uintptr_t *)slot;
    }
    *sp = cfa;
    return (const uintptr_t *)(cfa - sizeof(uintptr_t));
}
#else
#define PLACE_CFI_WALKS 0
#define PLACE_CFI_HERE(f) ((f).ip = (f).sp = (f).bp = 0) /* no rule: walks go no further */
#endif

#endif
