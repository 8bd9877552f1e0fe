/* What include/libplace.h reaches: one exported function, found by name, so that the
 * header needs no library to link and a program runs the same without libplace. */
#include <string.h>

#include "../config/options.h"
#include "../include/libplace.h"
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

static long long query(int op, struct place_tier *t)
{
    struct place_placed_counts pending;
    place_threads_pending(&pending, true);
    struct place_snapshot s = place_threads_node(t->index, &pending, true);
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
        if (t->limit)
            return s.bytes >= (int64_t)t->limit ? 0 : (long long)t->limit - s.bytes;
        if (t->ops && !t->unavailable && t->ops->stats(t, &total, &free) == 0)
            return (long long)free;
        return 0;
    }
}

PLACE_EXPORT long long place_api(int op, const char *node, const void *p, char *out, size_t cap)
{
    if (place_options.untouched || place_options.refuse)
        return PLACE_NOT_LOADED;
    uint8_t was = place_guard_enter();
    long long r = PLACE_NO_NODE;
    struct place_tier *t;
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
    } else if ((t = by_name(node))) {
        r = query(op, t);
    }
    place_guard_leave(was);
    return r;
}
