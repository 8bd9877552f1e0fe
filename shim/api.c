/* What include/libplace.h reaches: one exported function, found by name, so that the
 * header needs no library to link and a program runs the same without libplace. */
#include <string.h>

#include "../config/options.h"
#include "../include/libplace.h"
#include "../policy/base/clock.h"
#include "../policy/base/fmt.h"
#include "../policy/engine/whose.h"
#include "../policy/report/report.h"
#include "../policy/stats/threads.h"
#include "../policy/tiers/cache.h"
#include "export.h"

static struct place_tier *by_name(const char *name)
{
    for (struct place_tier **t = place_tiers; name && *t; t++)
        if (strcmp((*t)->name, name) == 0)
            return *t;
    return NULL;
}

/* pending: the threads' counts not yet handed over (place_threads_pending), taken once
 * per call to the API, however many nodes it sums */
static long long query(int op, struct place_tier *t, const struct place_placed_counts *pending)
{
    struct place_snapshot s = place_threads_node(t->index, pending, true);
    /* in use: the program's blocks; an arena's thread caches count against the limit */
    int64_t cached = t->slabs ? place_cache_held(t->index) : 0;
    size_t total, free;
    switch (op) {
    case PLACE_OP_QUERY_USED:
        return s.bytes - cached;
    case PLACE_OP_QUERY_PEAK:
        return s.peak;
    case PLACE_OP_QUERY_LIMIT:
        return (long long)t->limit;
    default: /* PLACE_OP_QUERY_AVAILABLE */
        if (t->limit) {
            /* with scope = node, what every sharing process leaves */
            int64_t held = place_tier_held(t);
            return held >= (int64_t)t->limit ? 0 : (long long)t->limit - held;
        }
        if (t->source && !t->unavailable && t->source->stats(t, &total, &free) == 0)
            return (long long)free;
        return 0;
    }
}

/* The sum over every node, for PLACE_ALL_NODES: a limit of 0 (none) anywhere is none. A
 * symmetric heap is not memory of its own (libplace.h). */
static long long total(int op, const struct place_placed_counts *pending)
{
    long long sum = 0;
    for (struct place_tier **t = place_tiers; *t; t++) {
        if ((*t)->config && (*t)->config->kind == PLACE_SYMMETRIC)
            continue;
        long long v = query(op, *t, pending);
        if (op == PLACE_OP_QUERY_LIMIT && v == 0)
            return 0;
        sum += v;
    }
    return sum;
}

static int charge(struct place_tier *t, void *bytes)
{
    return place_tier_charge(t, *(size_t *)bytes, false);
}

/* place_account: StarPU's starpu_memory_allocate, for a transparent tool. */
static long long account(struct place_tier *t, size_t bytes, unsigned flags)
{
    if (place_tier_charge(t, bytes, false))
        return 0;
    if (flags & PLACE_ACCOUNT_OVERFLOW)
        return place_tier_charge(t, bytes, true) ? 0 : PLACE_NO_ROOM;
    if ((flags & PLACE_ACCOUNT_WAIT) && place_tier_may_wait(t, bytes) &&
        place_tier_wait(t, INT64_MAX, charge, &bytes))
        return 0;
    return PLACE_NO_ROOM;
}

/* The bytes the limit counts are the tier's own: what a reservation tests. */
static int has_room(struct place_tier *t, void *bytes)
{
    return place_stats_bytes(t->stats) + (int64_t)*(size_t *)bytes <= (int64_t)t->limit;
}

/* place_wait_available: StarPU's starpu_memory_wait_available. */
static long long wait_available(struct place_tier *t, size_t bytes, long timeout_ms)
{
    if (!t->limit)
        return 0;
    if (bytes > t->limit)
        return PLACE_NO_ROOM;
    if (!place_tier_may_wait(t, bytes)) /* nothing else could free: the answer is now's */
        return has_room(t, &bytes) ? 0 : PLACE_TIMED_OUT;
    int64_t deadline = timeout_ms < 0 ? INT64_MAX : place_now_ns() + (int64_t)timeout_ms * 1000000;
    return place_tier_wait(t, deadline, has_room, &bytes) ? 0 : PLACE_TIMED_OUT;
}

PLACE_EXPORT long long place_api(int op, const char *node, const void *p, char *out, size_t cap)
{
    if (place_options.untouched || place_options.refuse)
        return PLACE_NOT_LOADED;
    uint8_t was = place_guard_enter();
    long long r = PLACE_NO_NODE;
    struct place_tier *t;
    struct place_placed_counts pending;
    if (op == PLACE_OP_NODE_OF) {
        t = p ? place_whose_any(p) : NULL;
        const char *name = t ? t->name : "dram";
        struct place_buf b = {.s = out, .cap = cap};
        if (cap)
            place_bprintf(&b, "%s", name);
        r = (long long)strlen(name);
    } else if (op == PLACE_OP_REPORT) {
        place_report_numbered(node ? node : place_options.report ? place_options.report : "stderr");
        r = 0;
    } else if (node && strcmp(node, PLACE_ALL_NODES) == 0 && op <= PLACE_OP_QUERY_PEAK) {
        place_threads_pending(&pending, true);
        r = total(op, &pending);
    } else if ((t = by_name(node))) {
        /* the one entry point's arguments: cap the bytes, p the flags or the timeout */
        if (op == PLACE_OP_ACCOUNT) {
            r = account(t, cap, (unsigned)(uintptr_t)p);
        } else if (op == PLACE_OP_UNACCOUNT) {
            place_tier_uncharge(t, cap);
            r = 0;
        } else if (op == PLACE_OP_WAIT_AVAILABLE) {
            r = wait_available(t, cap, (long)(intptr_t)p);
        } else {
            place_threads_pending(&pending, true);
            r = query(op, t, &pending);
        }
    }
    place_guard_leave(was);
    return r;
}
