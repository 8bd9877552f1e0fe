#include "gather.h"

#include <string.h>
#include <time.h>

#include "../config/options.h"
#include "../shim/thread.h"
#include "chain.h"
#include "place.h"
#include "report.h"

static uint64_t load(_Atomic uint64_t *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

/* In a signal handler the thread registry's lock may be held by the interrupted thread:
 * dram's figures are then the shared counters alone (each thread's last batch missing). */
static void node(struct place_node_row *n, struct place_tier *t, int signal)
{
    struct place_snapshot s =
        t == &place_dram && !signal ? place_threads_dram() : place_stats_snapshot(&t->stats, NULL);
    struct place_tier_stats *st = &t->stats;
    *n = (struct place_node_row){
        .t = t,
        .allocs = s.allocs,
        .frees = s.frees,
        .bytes = s.bytes,
        .peak = s.peak,
        .refused = load(&st->refused),
        .fallbacks_out = load(&st->fallbacks_out),
        .fallbacks_in = load(&st->fallbacks_in),
        .waits = load(&st->waits),
        .wait_ns = load(&st->wait_ns),
        .overflow = load(&st->overflow_bytes),
        .failures = load(&st->failures),
        .reclaimed = load(&st->reclaimed),
        .skipped = load(&st->skipped),
    };
    size_t total, free;
    if (t->ops && !t->unavailable && t->ops->stats(t, &total, &free) == 0)
        n->machine = true, n->total = total, n->free = free;
    /* not from a signal handler: a full check reads the whole range's page table */
    if (!signal && place_config.verify != PLACE_VERIFY_OFF && t->ops && t->ops->verify &&
        !t->unavailable)
        n->checked = t->ops->verify(t, place_config.verify == PLACE_VERIFY_ALL, &n->verified) == 0;
}

/* The site table holds one entry per (address, rule, tier): rows join an address's and
 * rule's entries, so a row shows where one call site's blocks went. */
static void sites(struct place_gathered *g)
{
    static struct place_site_count raw[PLACE_SITE_SLOTS];
    unsigned total, n = place_sites_top(raw, PLACE_SITE_SLOTS, &total);
    unsigned rows = 0;
    for (unsigned k = 0; k < n; k++) {
        struct place_site_count *c = &raw[k];
        unsigned r = 0;
        while (r < rows && !(g->sites[r].ra == c->ra && g->sites[r].rule == c->rule))
            r++;
        if (r == rows) {
            if (rows == PLACE_MAX_SITES)
                continue;
            memset(&g->sites[rows], 0, sizeof g->sites[rows]);
            g->sites[rows].ra = c->ra;
            g->sites[rows].rule = c->rule;
            rows++;
        }
        struct place_site_row *row = &g->sites[r];
        row->allocs += c->allocs;
        row->bytes += c->bytes;
        if (c->tier >= 0) {
            row->tier_allocs[c->tier] += c->allocs;
            row->tier_bytes[c->tier] += c->bytes;
        }
        if (c->rule >= 0 && c->tier >= 0 &&
            (unsigned)c->tier != place_chain_first(place_rules[c->rule].config))
            row->fallbacks += c->allocs;
    }
    /* raw came largest entry first; rows joined from several entries may be out of order */
    for (unsigned i = 1; i < rows; i++)
        for (unsigned k = i; k > 0 && g->sites[k - 1].bytes < g->sites[k].bytes; k--) {
            struct place_site_row tmp = g->sites[k];
            g->sites[k] = g->sites[k - 1];
            g->sites[k - 1] = tmp;
        }
    g->nsites = rows < place_config.sites ? rows : place_config.sites;
    g->total_sites = total;
}

void place_gather(struct place_gathered *g, int signal)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    g->ms = (uint64_t)((now.tv_sec - place_run.start.tv_sec) * 1000 +
                       (now.tv_nsec - place_run.start.tv_nsec) / 1000000);
    g->signal = signal;
    place_threads_census(&g->threads, &g->running, !signal);
    g->ntiers = 0;
    for (struct place_tier **t = place_tiers; *t; t++)
        node(&g->nodes[g->ntiers++], *t, signal);
    sites(g);
}
