#include "cfi.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#if PLACE_CFI_WALKS

/* DWARF's register numbers on x86-64 */
enum { REG_BP = 6, REG_SP = 7, REG_RA = 16 };

/* A byte range of the object's mapping being read: every read stays inside it, and a
 * read that would not is remembered (bad), answers 0 and moves nothing. */
struct bytes {
    const uint8_t *at, *end;
    bool bad;
};

static bool has(const struct bytes *b, uint64_t n)
{
    return !b->bad && b->at <= b->end && n <= (uint64_t)(b->end - b->at);
}

static uint64_t get(struct bytes *b, size_t n)
{
    if (!has(b, n)) {
        b->bad = true;
        return 0;
    }
    uint64_t v = 0;
    memcpy(&v, b->at, n); /* little-endian: the low bytes */
    b->at += n;
    return v;
}

/* Skips a block of n bytes (an expression). */
static void skip(struct bytes *b, uint64_t n)
{
    if (!has(b, n))
        b->bad = true;
    else
        b->at += n;
}

static uint64_t uleb(struct bytes *b)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint64_t byte = get(b, 1);
        v |= (byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
    }
    b->bad = true;
    return 0;
}

static int64_t sleb(struct bytes *b)
{
    uint64_t v = 0, byte = 0x80;
    unsigned shift = 0;
    while ((byte & 0x80) && shift < 64) {
        byte = get(b, 1);
        v |= (byte & 0x7f) << shift;
        shift += 7;
    }
    if (byte & 0x80)
        b->bad = true;
    if (shift < 64 && (byte & 0x40))
        v |= ~0ull << shift;
    return (int64_t)v;
}

/* A factored offset (an operand times the CIE's alignment factor), or bad on overflow. */
static int64_t factored(struct bytes *b, int64_t operand, int64_t factor)
{
    int64_t v;
    if (__builtin_mul_overflow(operand, factor, &v)) {
        b->bad = true;
        return 0;
    }
    return v;
}

/* A pointer in a DW_EH_PE_* encoding: absolute, pcrel from where it lies, or datarel
 * from `data` (.eh_frame_hdr's start; 0 where there is none). Indirect and aligned
 * pointers are not met in .eh_frame's FDEs: refused. */
static uintptr_t pointer(struct bytes *b, uint8_t enc, uintptr_t data)
{
    uintptr_t here = (uintptr_t)b->at, v;
    switch (enc & 0x0f) {
    case 0x00: v = get(b, 8); break;
    case 0x01: v = uleb(b); break;
    case 0x02: v = get(b, 2); break;
    case 0x03: v = get(b, 4); break;
    case 0x04: v = get(b, 8); break;
    case 0x09: v = (uintptr_t)sleb(b); break;
    case 0x0a: v = (uintptr_t)(int64_t)(int16_t)get(b, 2); break;
    case 0x0b: v = (uintptr_t)(int64_t)(int32_t)get(b, 4); break;
    case 0x0c: v = get(b, 8); break;
    default: b->bad = true; return 0;
    }
    switch (enc & 0xf0) {
    case 0x00: return v;
    case 0x10: return v + here;
    case 0x30:
        if (data)
            return v + data;
        /* fall through */
    default: b->bad = true; return 0;
    }
}

/* A register's rule as the walker reads it: kept as it was (for the stack pointer: no
 * rule of its own, the caller's is the CFA), saved at the CFA plus off, undefined, or
 * any other (in a register, by expression, a value rather than a slot). */
struct rule {
    enum { SAME, AT_CFA, OTHER, UNDEFINED } kind;
    int64_t off;
};

/* The registers whose rules the walker keeps */
enum { BP, RA, SP, KEPT };

/* Which of them DWARF register reg is, or -1 */
static int kept(uint64_t reg)
{
    return reg == REG_BP ? BP : reg == REG_RA ? RA : reg == REG_SP ? SP : -1;
}

/* What the walker needs of a row of the table: the CFA's register and offset, and the
 * kept registers' rules. */
struct row {
    uint64_t cfa_reg;
    bool cfa_expr;
    int64_t cfa_off;
    struct rule reg[KEPT];
};

struct cie {
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_reg;
    uint8_t fde_enc;
    bool z, signal;
    struct bytes program;
};

/* The CIE at p, inside [lo, hi). */
static bool read_cie(const uint8_t *p, const uint8_t *lo, const uint8_t *hi, struct cie *c)
{
    if (p < lo || p >= hi)
        return false;
    struct bytes b = {p, hi, false};
    uint64_t len = get(&b, 4);
    if (len == 0 || len == 0xffffffff || !has(&b, len))
        return false;
    b.end = b.at + len;
    if (get(&b, 4) != 0) /* CIE id */
        return false;
    uint64_t version = get(&b, 1);
    const char *aug = (const char *)b.at;
    size_t n = b.bad ? 0 : strnlen(aug, (size_t)(b.end - b.at));
    if (b.bad || n == (size_t)(b.end - b.at) || (version != 1 && version != 3))
        return false;
    b.at += n + 1;
    *c = (struct cie){.fde_enc = 0x00};
    c->code_align = uleb(&b);
    c->data_align = sleb(&b);
    c->ra_reg = version == 1 ? get(&b, 1) : uleb(&b);
    if (aug[0] == 'z') {
        c->z = true;
        uint64_t auglen = uleb(&b);
        if (!has(&b, auglen))
            return false;
        struct bytes a = {b.at, b.at + auglen, false};
        b.at += auglen;
        for (size_t k = 1; k < n && !a.bad; k++)
            switch (aug[k]) {
            case 'R': c->fde_enc = (uint8_t)get(&a, 1); break;
            case 'L': get(&a, 1); break;
            case 'P': {
                uint8_t enc = (uint8_t)get(&a, 1);
                pointer(&a, enc & 0x7f, 0); /* the personality routine (maybe indirect): skipped */
                break;
            }
            case 'S': c->signal = true; break;
            default: return false;
            }
        if (a.bad)
            return false;
    } else if (n != 0) {
        return false;
    }
    c->program = b;
    return !b.bad && c->ra_reg == REG_RA;
}

enum { STATES = 8 };

/* Runs a CFA program into r, stopping at the first row past pc (*loc: the row's start).
 * initial is the row the CIE's program left (DW_CFA_restore's target). */
static bool run(struct bytes b, const struct cie *c, uintptr_t pc, uintptr_t *loc, struct row *r,
                const struct row *initial)
{
    struct row saved[STATES];
    unsigned depth = 0;
    while (b.at < b.end && !b.bad) {
        uint8_t op = (uint8_t)get(&b, 1), low = op & 0x3f;
        uint64_t reg, delta = 0;
        struct rule to = {OTHER, 0}; /* the rule an op gives reg */
        switch (op >> 6) {
        case 1: delta = low; goto advance;
        case 2:
            reg = low;
            to = (struct rule){AT_CFA, factored(&b, (int64_t)uleb(&b), c->data_align)};
            goto set;
        case 3:
            reg = low;
            goto restore;
        }
        switch (op) {
        case 0x00: break; /* nop */
        case 0x01: /* set_loc */
            *loc = pointer(&b, c->fde_enc, 0);
            if (b.bad)
                return false;
            if (*loc > pc)
                return true;
            break;
        case 0x02: delta = get(&b, 1); goto advance;
        case 0x03: delta = get(&b, 2); goto advance;
        case 0x04: delta = get(&b, 4); goto advance;
        case 0x05:
            reg = uleb(&b);
            to = (struct rule){AT_CFA, factored(&b, (int64_t)uleb(&b), c->data_align)};
            goto set;
        case 0x06: reg = uleb(&b); goto restore;
        case 0x07: reg = uleb(&b); to.kind = UNDEFINED; goto set;
        case 0x08: reg = uleb(&b); to.kind = SAME; goto set;
        case 0x09: /* register: the value lives in another register */
            reg = uleb(&b);
            uleb(&b);
            goto set;
        case 0x0a:
            if (depth == STATES)
                return false;
            saved[depth++] = *r;
            break;
        case 0x0b: /* the whole row, the CFA's rule too, as gcc's unwinder and libunwind do */
            if (depth == 0)
                return false;
            *r = saved[--depth];
            break;
        case 0x0c: r->cfa_reg = uleb(&b); r->cfa_off = (int64_t)uleb(&b); r->cfa_expr = false; break;
        case 0x0d: r->cfa_reg = uleb(&b); r->cfa_expr = false; break;
        case 0x0e: r->cfa_off = (int64_t)uleb(&b); break;
        case 0x0f: skip(&b, uleb(&b)); r->cfa_expr = true; break; /* def_cfa_expression */
        case 0x10: /* expression */
        case 0x16: /* val_expression */
            reg = uleb(&b);
            skip(&b, uleb(&b));
            goto set;
        case 0x11:
            reg = uleb(&b);
            to = (struct rule){AT_CFA, factored(&b, sleb(&b), c->data_align)};
            goto set;
        case 0x12:
            r->cfa_reg = uleb(&b);
            r->cfa_off = factored(&b, sleb(&b), c->data_align);
            r->cfa_expr = false;
            break;
        case 0x13: r->cfa_off = factored(&b, sleb(&b), c->data_align); break;
        case 0x14: /* val_offset: the value is an address, not a slot */
        case 0x15:
            reg = uleb(&b);
            if (op == 0x14)
                uleb(&b);
            else
                sleb(&b);
            goto set;
        case 0x2e: uleb(&b); break; /* GNU_args_size: the CFA rule already counts pushes */
        case 0x2f:
            reg = uleb(&b);
            to = (struct rule){AT_CFA, -factored(&b, (int64_t)(uleb(&b) & INT64_MAX), c->data_align)};
            goto set;
        default: return false;
        }
        continue;
    advance:
        if (b.bad || delta > (UINTPTR_MAX - *loc) / (c->code_align ? c->code_align : 1))
            return false;
        if (*loc + delta * c->code_align > pc)
            return true;
        *loc += delta * c->code_align;
        continue;
    set:
        if (kept(reg) == SP) /* any rule of its own: the caller's stack pointer is not the CFA */
            r->reg[SP] = (struct rule){OTHER, 0};
        else if (kept(reg) >= 0)
            r->reg[kept(reg)] = to;
        continue;
    restore:
        if (!initial)
            return false;
        if (kept(reg) >= 0)
            r->reg[kept(reg)] = initial->reg[kept(reg)];
        continue;
    }
    return !b.bad;
}

/* The FDE that .eh_frame_hdr's sorted table gives for pc, or NULL. */
static const uint8_t *find_fde(const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi, uintptr_t pc)
{
    if (hdr < lo || hdr >= hi)
        return NULL;
    struct bytes b = {hdr, hi, false};
    uint8_t version = (uint8_t)get(&b, 1), ptr_enc = (uint8_t)get(&b, 1);
    uint8_t count_enc = (uint8_t)get(&b, 1), table_enc = (uint8_t)get(&b, 1);
    if (b.bad || version != 1 || count_enc == 0xff || table_enc != 0x3b) /* datarel sdata4 */
        return NULL;
    pointer(&b, ptr_enc, (uintptr_t)hdr);
    uint64_t count = pointer(&b, count_enc, (uintptr_t)hdr);
    if (b.bad || count == 0 || count > UINT64_MAX / 8 || !has(&b, count * 8))
        return NULL;
    const uint8_t *table = b.at;
    int32_t entry[2];
    uint64_t first = 0, last = count; /* the last entry whose start is at or before pc */
    while (last - first > 1) {
        uint64_t mid = first + (last - first) / 2;
        memcpy(entry, table + 8 * mid, sizeof entry);
        if ((uintptr_t)hdr + (intptr_t)entry[0] <= pc)
            first = mid;
        else
            last = mid;
    }
    memcpy(entry, table + 8 * first, sizeof entry);
    if ((uintptr_t)hdr + (intptr_t)entry[0] > pc)
        return NULL;
    const uint8_t *fde = hdr + entry[1];
    return fde >= lo && fde < hi ? fde : NULL;
}

static uint64_t rule_of(const struct row *r)
{
    const struct rule *bp = &r->reg[BP], *ra = &r->reg[RA];
    if (r->cfa_expr || (r->cfa_reg != REG_SP && r->cfa_reg != REG_BP) ||
        r->reg[SP].kind != SAME || r->cfa_off != (int32_t)r->cfa_off)
        return 0;
    uint64_t rule = PLACE_CFI_KNOWN | (uint64_t)(uint32_t)(int32_t)r->cfa_off << 32;
    if (r->cfa_reg == REG_BP)
        rule |= PLACE_CFI_CFA_BP;
    if (ra->kind == UNDEFINED)
        return rule | PLACE_CFI_OUTERMOST;
    if (ra->kind != AT_CFA || ra->off != -(int64_t)sizeof(uintptr_t))
        return 0;
    if (bp->kind == AT_CFA) {
        /* below the return address, as every compiler saves it */
        if (bp->off > -2 * (int64_t)sizeof(uintptr_t) || bp->off != (int16_t)bp->off)
            return 0;
        rule |= PLACE_CFI_BP_SAVED | (uint64_t)(uint16_t)(int16_t)bp->off << 16;
    } else if (bp->kind != SAME) {
        return 0;
    }
    return rule;
}

uint64_t place_cfi_rule_in(const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi, uintptr_t pc)
{
    const uint8_t *fde = find_fde(hdr, lo, hi, pc);
    if (!fde)
        return 0;
    struct bytes b = {fde, hi, false};
    uint64_t len = get(&b, 4);
    if (b.bad || len == 0 || len == 0xffffffff || !has(&b, len))
        return 0;
    b.end = b.at + len;
    const uint8_t *id_at = b.at;
    uint32_t id = (uint32_t)get(&b, 4);
    if (b.bad || id == 0 || id > (uintptr_t)(id_at - lo))
        return 0;
    struct cie c;
    if (!read_cie(id_at - id, lo, hi, &c) || c.signal)
        return 0;
    uintptr_t start = pointer(&b, c.fde_enc, 0);
    uintptr_t range = pointer(&b, c.fde_enc & 0x0f, 0);
    if (c.z)
        skip(&b, uleb(&b));
    if (b.bad || pc < start || pc - start >= range)
        return 0;
    struct row r = {.reg = {[BP] = {SAME, 0}, [RA] = {OTHER, 0}, [SP] = {SAME, 0}}}, initial;
    uintptr_t loc = start;
    if (!run(c.program, &c, ~(uintptr_t)0, &loc, &r, NULL))
        return 0;
    initial = r;
    loc = start;
    if (!run(b, &c, pc, &loc, &r, &initial))
        return 0;
    return rule_of(&r);
}

uint64_t place_cfi_rule_at(uintptr_t pc)
{
    struct dl_find_object obj;
    if (_dl_find_object((void *)pc, &obj) != 0 || !obj.dlfo_eh_frame)
        return 0;
    return place_cfi_rule_in(obj.dlfo_eh_frame, obj.dlfo_map_start, obj.dlfo_map_end, pc);
}

#else

uint64_t place_cfi_rule_in(const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi, uintptr_t pc)
{
    (void)hdr, (void)lo, (void)hi, (void)pc;
    return 0;
}

uint64_t place_cfi_rule_at(uintptr_t pc)
{
    (void)pc;
    return 0;
}

#endif
