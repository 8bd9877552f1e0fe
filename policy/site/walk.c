#include "walk.h"

#include "addresses.h"
#include "frames.h"

bool place_site_walk(struct place_memo *m, uintptr_t ra, unsigned depth, uint64_t stop,
                     const struct place_cfi_frame *from)
{
#if PLACE_CFI_WALKS
    struct place_cfi_frame here;
    if (!from) {
        PLACE_CFI_HERE(here);
        from = &here;
    }
    uintptr_t sp = from->sp, bp = from->bp;
    /* the table's key is a return address: the call is the one before */
    uint64_t rule = place_address(from->ip + 1).rule;
    const uintptr_t *slot;
    for (int k = 0;; k++) {
        if (k == 8 || !(slot = place_cfi_step(rule, &sp, &bp)))
            return false;
        if (*slot == ra)
            break;
        rule = place_address(*slot).rule;
    }
    m->n = m->raw = 0;
    uint64_t cum = 0;
    for (;;) {
        uintptr_t at = *slot;
        struct place_answer a = place_address(at);
        rule = a.rule;
        if (!place_frames_add(m, at, (uintptr_t)slot, a.mask, depth, stop, &cum))
            break;
        if (!(slot = place_cfi_step(rule, &sp, &bp))) {
            if (!(rule & PLACE_CFI_OUTERMOST))
                return false;
            break; /* the stack's first frame */
        }
        if (*slot == 0)
            break;
    }
    place_frames_end(m, cum);
    return true;
#else
    (void)m, (void)ra, (void)depth, (void)stop, (void)from;
    return false;
#endif
}
