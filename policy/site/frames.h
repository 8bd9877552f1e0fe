/* A memo entry filled frame by frame: what the walk (walk.c) and libunwind's fallback
 * (unwound.c) share. Inline: the walk adds a frame in a few instructions. */
#ifndef PLACE_FRAMES_H
#define PLACE_FRAMES_H

#include "memo.h"
#include "site.h"

/* Patterns no frame matches (PLACE_WRAPPER is never among a frame's patterns): frames are
 * read up to the depth asked, whatever they match. */
#define PLACE_SITE_NEVER (~0ull)

/* The caller's frame alone (its patterns: first): all that is needed when it matches
 * every pattern, or all there is when the unwinder cannot see it. */
static inline void place_frames_caller_only(struct place_memo *m, uintptr_t ra, uint64_t first)
{
    m->frame[0].ra = ra;
    m->cum[0] = first;
    m->n = m->raw = 1;
}

/* The patterns of frame ip that place_frames_add needs: a sample (stop NEVER) wants the
 * wrapper bit alone, and only until a frame counts. */
static inline uint64_t place_frames_wanted(const struct place_memo *m, uintptr_t ip, uint64_t stop)
{
    return m->n == 0 || stop != PLACE_SITE_NEVER ? place_site_mask(ip) : 0;
}

/* Adds frame ip (its slot: 0 when unknown; its patterns: mask) to m: a wrapper while no
 * frame has been counted yet is read but not counted, its patterns going into the first
 * counted frame's. Returns whether frames above ip are still wanted: fewer than depth
 * counted, and the patterns seen not yet all of `stop` (past which no rule's answer
 * changes). */
static inline bool place_frames_add(struct place_memo *m, uintptr_t ip, uintptr_t slot,
                                    uint64_t mask, unsigned depth, uint64_t stop, uint64_t *cum)
{
    m->frame[m->raw].ra = ip;
    m->frame[m->raw++].slot = slot;
    *cum |= mask & ~PLACE_WRAPPER;
    if (m->n == 0 && (mask & PLACE_WRAPPER) && m->raw < PLACE_MEMO_WRAPPERS)
        return *cum != stop;
    m->cum[m->n++] = *cum;
    return m->n < depth && *cum != stop;
}

/* A stack that ended among wrappers: the last one read is the site. */
static inline void place_frames_end(struct place_memo *m, uint64_t cum)
{
    if (m->n == 0 && m->raw > 0)
        m->cum[m->n++] = cum;
}

#endif
