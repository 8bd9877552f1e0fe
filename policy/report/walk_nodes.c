/* The walk's tiers: each visited once, its JSON object written whole, its text lines
 * into the tables and notes they belong to (walk_parts.h). */
#include <string.h>

#include "../base/fmt.h"
#include "../tiers/binding.h"
#include "walk_parts.h"

/* A tier's name, kind, limit and use: the first table's row. */
static void use(struct place_emit *e, const struct place_node_row *n)
{
    const uint64_t *ev = n->s.events;
    place_emit_str(e, "name", n->name);
    place_emit_str(e, "kind", n->kind);
    place_emit_uint(e, "limit", n->limit);
    if (n->reclaim_min) {
        place_emit_uint(e, "reclaim_min", n->reclaim_min);
        place_emit_uint(e, "reclaim_target", n->reclaim_target);
    }
    place_emit_bool(e, "available", !n->unavailable);
    place_emit_str(e, "unavailable", n->unavailable);
    place_emit_bool(e, "planned", n->planned);
    place_emit_int(e, "in_use", n->s.bytes);
    place_emit_int(e, "peak", n->s.peak);
    if (n->cached)
        place_emit_int(e, "cached", n->cached);
    place_emit_uint(e, "allocations", ev[PLACE_EV_ALLOCS]);
    place_emit_uint(e, "frees", ev[PLACE_EV_FREES]);

    char limit[PLACE_SIZE_STR] = "none", now[PLACE_SIZE_STR], peak[PLACE_SIZE_STR];
    if (n->limit)
        place_size_str(limit, (int64_t)n->limit);
    place_emit_line(e, PART_USE, "%-12s %-8s %10s %10s %10s %12llu %12llu", n->name, n->kind, limit,
                    place_size_str(now, n->s.bytes), place_size_str(peak, n->s.peak),
                    (unsigned long long)ev[PLACE_EV_ALLOCS],
                    (unsigned long long)ev[PLACE_EV_FREES]);
    char cached[PLACE_SIZE_STR];
    if (n->cached)
        place_emit_line(e, PART_CACHED,
                        "%s: %s more in threads' caches (free blocks, counted against its limit)",
                        n->name, place_size_str(cached, n->cached));
}

static bool pressed(const struct place_node_row *n)
{
    const uint64_t *ev = n->s.events;
    return ev[PLACE_EV_REFUSED] || ev[PLACE_EV_FALLBACKS_IN] || ev[PLACE_EV_WAITS] ||
           ev[PLACE_EV_OVERFLOW] || ev[PLACE_EV_FAILURES] || ev[PLACE_EV_RECLAIMED] ||
           ev[PLACE_EV_SKIPPED];
}

/* What pressed a tier: a row of the second table, whose heading comes before its first
 * row (*headed), and which has none when nothing pressed any tier. */
static void pressure(struct place_emit *e, const struct place_node_row *n, bool *headed)
{
    const uint64_t *ev = n->s.events;
    uint64_t ms = ev[PLACE_EV_WAIT_NS] / 1000000;
    place_emit_uint(e, "refused", ev[PLACE_EV_REFUSED]);
    place_emit_uint(e, "fallbacks_out", ev[PLACE_EV_FALLBACKS_OUT]);
    place_emit_uint(e, "fallbacks_in", ev[PLACE_EV_FALLBACKS_IN]);
    place_emit_uint(e, "waits", ev[PLACE_EV_WAITS]);
    place_emit_milli(e, "wait_seconds", ms);
    place_emit_uint(e, "overflows", ev[PLACE_EV_OVERFLOW]);
    place_emit_uint(e, "overflow_peak", n->overflow_peak);
    place_emit_uint(e, "failures", ev[PLACE_EV_FAILURES]);
    place_emit_uint(e, "reclaimed_bytes", ev[PLACE_EV_RECLAIMED]);
    place_emit_uint(e, "skipped", ev[PLACE_EV_SKIPPED]);
    if (!pressed(n))
        return;
    if (!*headed)
        place_emit_line(e, PART_PRESSURE, "%-12s %8s %8s %8s %7s %8s %10s %8s %10s %8s", "tier",
                        "refused", "fb out", "fb in", "waits", "waited", "overflow", "failures",
                        "reclaimed", "skipped");
    *headed = true;
    char over[PLACE_SIZE_STR], recl[PLACE_SIZE_STR], waited[24];
    struct place_buf w = PLACE_BUF(waited);
    place_bprintf(&w, "%llu.%03llus", (unsigned long long)(ms / 1000),
                  (unsigned long long)(ms % 1000));
    place_emit_line(
        e, PART_PRESSURE, "%-12s %8llu %8llu %8llu %7llu %8s %10s %8llu %10s %8llu", n->name,
        (unsigned long long)ev[PLACE_EV_REFUSED], (unsigned long long)ev[PLACE_EV_FALLBACKS_OUT],
        (unsigned long long)ev[PLACE_EV_FALLBACKS_IN], (unsigned long long)ev[PLACE_EV_WAITS],
        waited, place_size_str(over, (int64_t)n->overflow_peak),
        (unsigned long long)ev[PLACE_EV_FAILURES],
        place_size_str(recl, (int64_t)ev[PLACE_EV_RECLAIMED]),
        (unsigned long long)ev[PLACE_EV_SKIPPED]);
}

static void machine(struct place_emit *e, const struct place_node_row *n)
{
    char total[PLACE_SIZE_STR], free[PLACE_SIZE_STR];
    uint64_t skipped = n->s.events[PLACE_EV_SKIPPED];
    if (n->machine) {
        place_emit_open(e, "machine", '{');
        place_emit_uint(e, "total", n->total);
        place_emit_uint(e, "free", n->free);
        place_emit_close(e, '}');
    } else {
        place_emit_str(e, "machine", NULL);
    }
    if (n->unavailable && !n->planned)
        place_emit_line(e, PART_MACHINE, "%s: unavailable: %s; %llu request%s skipped it", n->name,
                        n->unavailable, (unsigned long long)skipped, place_plural_s(skipped));
    else if (n->unavailable)
        place_emit_line(e, PART_MACHINE, "%s: planned (this machine: %s)", n->name, n->unavailable);
    else if (n->machine)
        place_emit_line(e, PART_MACHINE, "%s: %s on this machine, %s free", n->name,
                        place_size_str(total, (int64_t)n->total),
                        place_size_str(free, (int64_t)n->free));
}

/* A figure of node n in an object keyed by node number. */
static void node_uint(struct place_emit *e, unsigned n, uint64_t v)
{
    char key[4];
    struct place_buf kb = PLACE_BUF(key);
    place_bprintf(&kb, "%u", n);
    place_emit_uint(e, key, v);
}

/* A weighted interleave's weights, those the firmware gave included. */
static void weights(struct place_emit *e, const struct place_node_row *n)
{
    if (!n->weights)
        return;
    char text[256] = "";
    struct place_buf b = PLACE_BUF(text);
    place_emit_open(e, "weights", '{');
    for (unsigned k = 0; k < 64; k++) {
        if (!n->weights[k])
            continue;
        node_uint(e, k, n->weights[k]);
        place_bprintf(&b, "%snode %u: %u", b.len ? ", " : "", k, n->weights[k]);
    }
    place_emit_close(e, '}');
    place_emit_line(e, PART_MACHINE, "%s: weighted interleave, 2 MiB stripes of each period %s%s",
                    n->name, text,
                    n->bandwidth ? " (from the firmware's read bandwidths)" : "");
}

/* near = cpu: the node each CPU node's threads take. */
static void near(struct place_emit *e, const struct place_node_row *n)
{
    if (!n->near)
        return;
    char text[256] = "";
    struct place_buf b = PLACE_BUF(text);
    place_emit_open(e, "near", '{');
    for (unsigned c = 0; c < 64; c++) {
        if (n->near->of_node[c] == UINT8_MAX)
            continue;
        unsigned node = n->near->node[n->near->of_node[c]];
        node_uint(e, c, node);
        place_bprintf(&b, "%snode %u's CPUs take node %u", b.len ? ", " : "", c, node);
    }
    place_emit_close(e, '}');
    place_emit_line(e, PART_MACHINE,
                    "%s: near = cpu, each block on the node nearest the CPU "
                    "that allocates it: %s",
                    n->name, text);
}

/* scope = node: the machine's count beside this process's. */
static void node_scope(struct place_emit *e, const struct place_node_row *n)
{
    if (!n->shared)
        return;
    const struct place_shared_view *v = &n->node;
    place_emit_open(e, "node_scope", '{');
    place_emit_str(e, "region", v->name);
    place_emit_int(e, "in_use", v->in_use);
    place_emit_int(e, "peak", v->peak);
    place_emit_uint(e, "processes", v->processes);
    place_emit_close(e, '}');
    char limit[PLACE_SIZE_STR], now[PLACE_SIZE_STR], peak[PLACE_SIZE_STR];
    place_emit_line(e, PART_MACHINE,
                    "%s: limit %s shared by this machine's processes (scope = node, /dev/shm%s): "
                    "%s in use by %u process%s now, %s at peak",
                    n->name, place_size_str(limit, (int64_t)n->limit), v->name,
                    place_size_str(now, v->in_use), v->processes,
                    v->processes == 1 ? "" : "es", place_size_str(peak, v->peak));
}

/* The pages looked at by node, those on none left out (JSON: keys are node numbers, as
 * weights' are). */
static void by_node(struct place_emit *e, const struct place_verified *v)
{
    place_emit_open(e, "by_node", '{');
    for (unsigned k = 0; k < 64; k++) {
        if (!v->by_node[k])
            continue;
        node_uint(e, k, v->by_node[k]);
    }
    place_emit_close(e, '}');
}

/* Each node's share of the `written` pages looked at (those on a node), when the one share
 * on the tier's nodes does not tell it all: the pages are on more than one node, or on some
 * node not the tier's. */
static void shares(struct place_buf *b, const struct place_verified *v, uint64_t written)
{
    unsigned nodes = 0;
    for (unsigned k = 0; k < 64; k++)
        nodes += v->by_node[k] != 0;
    if (nodes < 2 && v->placed == written)
        return;
    for (unsigned k = 0; k < 64; k++) {
        if (!v->by_node[k])
            continue;
        uint64_t permille = v->by_node[k] * 1000 / written;
        place_bprintf(b, "%snode %u %llu.%llu%%", b->len ? ", " : ": ", k,
                      (unsigned long long)(permille / 10), (unsigned long long)(permille % 10));
    }
}

static void verified(struct place_emit *e, const struct place_node_row *n)
{
    const struct place_verified *v = &n->verified;
    if (!n->checked) {
        place_emit_str(e, "verified", NULL);
        return;
    }
    place_emit_open(e, "verified", '{');
    place_emit_uint(e, "resident", v->resident);
    place_emit_uint(e, "looked", v->looked);
    place_emit_uint(e, "placed", v->placed);
    place_emit_uint(e, "untouched", v->untouched);
    by_node(e, v);
    place_emit_bool(e, "exhaustive", v->all);
    place_emit_close(e, '}');
    if (!v->resident) { /* a share of nothing would read as 0% placed */
        place_emit_line(e, PART_VERIFIED, "%s: no resident pages at exit to check (move_pages)",
                        n->name);
        return;
    }
    uint64_t written = v->looked - v->untouched;
    uint64_t permille = written ? v->placed * 1000 / written : 1000;
    char spread[512] = "";
    struct place_buf s = PLACE_BUF(spread);
    shares(&s, v, written);
    char untouched[160] = "";
    struct place_buf u = PLACE_BUF(untouched);
    if (v->untouched)
        place_bprintf(&u,
                      "; %llu of the %llu looked at never written (the kernel's zero page, "
                      "on no node), not counted",
                      (unsigned long long)v->untouched, (unsigned long long)v->looked);
    uint64_t shown = v->all ? v->looked : v->resident;
    place_emit_line(e, PART_VERIFIED,
                    "%s: %llu.%llu%% of %s%llu resident page%s on its nodes (move_pages)%s%s%s",
                    n->name, (unsigned long long)(permille / 10),
                    (unsigned long long)(permille % 10), v->all ? "all " : "",
                    (unsigned long long)shown, place_plural_s(shown),
                    v->all || v->looked == v->resident ? "" : ", from a sample", spread, untouched);
}

static void heaps(struct place_emit *e, const struct place_node_row *n)
{
    if (!n->nheaps)
        return;
    place_emit_open(e, "library_heaps", '[');
    for (unsigned i = 0; i < n->nheaps; i++) {
        const struct place_heap_stats *h = &n->heaps[i];
        place_emit_open(e, NULL, '{');
        place_emit_str(e, "owner", h->owner);
        place_emit_uint(e, "blocks", h->blocks);
        place_emit_int(e, "in_use", h->bytes);
        place_emit_int(e, "peak", h->peak);
        place_emit_close(e, '}');
        char now[PLACE_SIZE_STR], peak[PLACE_SIZE_STR];
        bool others = strcmp(h->owner, PLACE_HEAP_OTHERS) == 0;
        place_emit_line(e, PART_HEAPS,
                        "%s: %s %s here: %s in %llu block%s now, %s at peak; the "
                        "blocks handed out inside are not seen",
                        n->name, h->owner,
                        others ? "keep heaps of their own" : "keeps a heap of its own",
                        place_size_str(now, h->bytes), (unsigned long long)h->blocks,
                        place_plural_s(h->blocks), place_size_str(peak, h->peak));
    }
    place_emit_close(e, ']');
}

/* A tier's bytes in use over time (JSON alone: the text has no room for a timeline),
 * and the band each point stands for. */
static void timeline(struct place_emit *e, const struct place_timeline *line, unsigned k)
{
    place_emit_open(e, "timeline", '[');
    for (unsigned p = 0; p < line->n; p++) {
        place_emit_open(e, NULL, '[');
        place_emit_milli(e, NULL, line->ms[p]);
        place_emit_int(e, NULL, line->bytes[p][k]);
        place_emit_close(e, ']');
    }
    place_emit_close(e, ']');
    place_emit_open(e, "band", '[');
    for (unsigned p = 0; p < line->n; p++) {
        place_emit_open(e, NULL, '[');
        place_emit_int(e, NULL, line->lo[p][k]);
        place_emit_int(e, NULL, line->hi[p][k]);
        place_emit_close(e, ']');
    }
    place_emit_close(e, ']');
}

void place_walk_nodes(struct place_emit *e, const struct place_gathered *g)
{
    place_emit_line(e, PART_USE, "%-12s %-8s %10s %10s %10s %12s %12s", "tier", "kind", "limit",
                    "in use", "peak", "allocations", "frees");
    bool headed = false;
    place_emit_open(e, "nodes", '[');
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        place_emit_open(e, NULL, '{');
        use(e, n);
        pressure(e, n, &headed);
        machine(e, n);
        weights(e, n);
        near(e, n);
        node_scope(e, n);
        verified(e, n);
        heaps(e, n);
        timeline(e, g->timeline, k);
        place_emit_close(e, '}');
    }
    place_emit_close(e, ']');
    char every[PLACE_SIZE_STR], batch[PLACE_SIZE_STR];
    if (g->sample)
        place_emit_line(e, PART_COUNTED,
                        "dram counts what glibc served: its allocations and frees "
                        "exactly, its bytes in use and peak estimated from allocations "
                        "sampled every %s asked (sample = all: exact)",
                        place_size_str(every, (int64_t)g->sample));
    else
        place_emit_line(e, PART_COUNTED,
                        "dram counts what glibc served; its peak is exact to within "
                        "%s per thread",
                        place_size_str(batch, PLACE_STATS_BATCH));
}
