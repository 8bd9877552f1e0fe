/* The shape of a wrapper, in x86-64 machine code. The bytes are scanned, not decoded: a
 * call or jump is taken at every offset, and counts only if it lands on one of
 * libplace's allocators, through the module's PLT stub or GOT slot as the loader bound
 * it; a byte run that happens to look so is as unlikely as landing there. Lazily bound
 * slots that were never called hold the loader's resolver and count as nothing: a
 * wrapper on a stack being looked up has called its allocator by then. */
#include "shape.h"

#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

enum { WRAPPER_MAX = 160, EPILOGUE_MAX = 16, ALLOCATORS = 16 };

static uintptr_t allocators[ALLOCATORS];
static unsigned nallocators;

void place_shape_allocators(const uintptr_t *entry, unsigned n)
{
    nallocators = n < ALLOCATORS ? n : ALLOCATORS;
    memcpy(allocators, entry, nallocators * sizeof *entry);
}

static bool is_allocator(uintptr_t a)
{
    for (unsigned k = 0; k < nallocators; k++)
        if (allocators[k] == a)
            return true;
    return false;
}

/* Whether [a, a + len) lies in one segment (in a code segment when code). */
static bool readable(const struct place_segment *seg, unsigned n, uintptr_t a, size_t len,
                     bool code)
{
    for (unsigned k = 0; k < n; k++)
        if (a >= seg[k].lo && a + len <= seg[k].hi && a + len > a && (!code || seg[k].code))
            return true;
    return false;
}

/* The address a slot holds, or 0 when the slot is none of the module's. */
static uintptr_t slot_value(const struct place_segment *seg, unsigned n, uintptr_t slot)
{
    uintptr_t v = 0;
    if (readable(seg, n, slot, sizeof v, false))
        memcpy(&v, (const void *)slot, sizeof v);
    return v;
}

/* Where a call to target goes: through a PLT stub (jmp *slot, after endbr64 and bnd
 * where the stub has them), to what its GOT slot holds; else target itself. */
static uintptr_t landing(const struct place_segment *seg, unsigned n, uintptr_t target)
{
    enum { STUB = 11 };
    if (!readable(seg, n, target, STUB, true))
        return target;
    const uint8_t *t = (const uint8_t *)target;
    size_t at = 0;
    if (t[0] == 0xF3 && t[1] == 0x0F && t[2] == 0x1E && t[3] == 0xFA) /* endbr64 */
        at = 4;
    if (t[at] == 0xF2) /* bnd */
        at++;
    if (t[at] != 0xFF || t[at + 1] != 0x25) /* jmp *disp32(%rip) */
        return target;
    int32_t disp;
    memcpy(&disp, t + at + 2, sizeof disp);
    return slot_value(seg, n, target + at + 6 + (intptr_t)disp);
}

/* After a call, the bytes to its function's return leave rax as the call gave it: a
 * test of rax, conditional branches (to an error path), pops of other registers, the
 * stack pointer raised. */
static bool returns_result(const uint8_t *c, size_t n)
{
    size_t i = 0;
    while (i < n && i < EPILOGUE_MAX) {
        if (c[i] == 0xC3) /* ret */
            return true;
        if (c[i] == 0xF3 && i + 1 < n && c[i + 1] == 0xC3) /* repz ret */
            return true;
        if (i + 2 < n && c[i] == 0x48 && c[i + 1] == 0x85 && c[i + 2] == 0xC0) /* test rax */
            i += 3;
        else if (i + 1 < n && (c[i] == 0x74 || c[i] == 0x75)) /* je, jne rel8 */
            i += 2;
        else if (i + 5 < n && c[i] == 0x0F && (c[i + 1] == 0x84 || c[i + 1] == 0x85))
            i += 6; /* je, jne rel32 */
        else if (c[i] >= 0x59 && c[i] <= 0x5F) /* pop of a register other than rax */
            i += 1;
        else if (i + 1 < n && c[i] == 0x41 && c[i + 1] >= 0x58 && c[i + 1] <= 0x5F)
            i += 2; /* pop r8..r15 */
        else if (i + 3 < n && c[i] == 0x48 && c[i + 1] == 0x83 && c[i + 2] == 0xC4)
            i += 4; /* add $imm8, %rsp */
        else
            return false;
    }
    return false;
}

#if defined(__x86_64__)
/* Whether the bytes of c at offset i (of size) are a call or jump to an allocator that
 * returns its result, or a tail jump to one. */
static bool calls_allocator(const uint8_t *c, size_t i, size_t size,
                            const struct place_segment *seg, unsigned n)
{
    uintptr_t code = (uintptr_t)c;
    int32_t d;
    uintptr_t to;
    size_t len;
    bool jump;
    if (c[i] == 0xE8 || c[i] == 0xE9) { /* call, jmp rel32 */
        memcpy(&d, c + i + 1, sizeof d);
        len = 5;
        to = landing(seg, n, code + i + len + (intptr_t)d);
        jump = c[i] == 0xE9;
    } else if (c[i] == 0xFF && (c[i + 1] == 0x15 || c[i + 1] == 0x25) && i + 6 <= size) {
        memcpy(&d, c + i + 2, sizeof d); /* call, jmp *disp32(%rip): -fno-plt */
        len = 6;
        to = slot_value(seg, n, code + i + len + (intptr_t)d);
        jump = c[i + 1] == 0x25;
    } else {
        return false;
    }
    return is_allocator(to) && (jump || returns_result(c + i + len, size - i - len));
}

/* The offsets base to base + 15 of c (of size) whose byte may start a call or a jump
 * (E8, E9, FF), as bits: sixteen bytes a compare where they are all c's (a module's
 * functions are scanned at its first lookup, libsqlite3's 4 900 in 0.8M bytes). */
static unsigned openers(const uint8_t *c, size_t base, size_t size)
{
    if (base + 16 > size) {
        unsigned bits = 0;
        for (size_t i = base; i < size; i++)
            bits |= (unsigned)(c[i] == 0xE8 || c[i] == 0xE9 || c[i] == 0xFF) << (i - base);
        return bits;
    }
    __m128i v = _mm_loadu_si128((const __m128i *)(c + base));
    __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xE8)),
                                            _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xE9))),
                               _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xFF)));
    return (unsigned)_mm_movemask_epi8(hit);
}
#endif

bool place_shape_wrapper(uintptr_t code, size_t size, const struct place_segment *seg,
                         unsigned n)
{
#if defined(__x86_64__)
    if (!nallocators || size < 5 || size > WRAPPER_MAX || !readable(seg, n, code, size, true))
        return false;
    const uint8_t *c = (const uint8_t *)code;
    for (size_t base = 0; base + 5 <= size; base += 16)
        for (unsigned bits = openers(c, base, size); bits; bits &= bits - 1) {
            size_t i = base + (size_t)__builtin_ctz(bits);
            if (i + 5 <= size && calls_allocator(c, i, size, seg, n))
                return true;
        }
#else
    (void)code, (void)size, (void)seg, (void)n;
#endif
    return false;
}
