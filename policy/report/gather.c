#include "gather.h"

#include "../base/large.h"
#include "../tiers/arena.h"
#include "../tiers/cache.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../config/options.h"
#include "../base/fmt.h"
#include "../base/path.h"
#include "../engine/chain.h"
#include "../engine/dry.h"
#include "../engine/place.h"
#include "../tiers/cache.h"
#include "../stats/site_reads.h"
#include "../stats/threads.h"

extern char *program_invocation_short_name;

/* What live threads have counted and not handed over yet, read once per report. */
static struct place_placed_counts pending;

static void header(struct place_gathered *g, int signal)
{
    g->ms = place_run_ms();
    g->signal = signal;
    /* a signal's report is the report signal's, or else a fatal one's (shim/fatal.c holds
     * every fatal signal but the report signal) */
    g->fatal = signal && signal != place_config.report_signal;
    g->pid = getpid();
    g->forked_from = place_run.forked_from;
    g->program = program_invocation_short_name;
    place_report_path("%h", g->host, sizeof g->host);
    place_report_path("%t", g->start, sizeof g->start);
    g->rank = place_mpi_rank();
    place_threads_census(&g->threads, &g->running, !signal);

    const struct place_policy *p = &place_config;
    g->file = *p->file ? p->file : NULL;
    g->inline_rules = p->nrules && p->rules[0].at.in_rule;
    g->dry_run = place_dry_run;
    g->fold_min = place_dry_run ? place_policy_fold_min(p) : 0;
    g->hash = p->hash;
    g->nrules = place_nrules;
    g->patterns = p->patterns;
    uint64_t resolved = p->npatterns ? place_modules_resolved(!signal) : 0;
    static uint64_t hits[PLACE_MAX_RULES], bytes[PLACE_MAX_RULES];
    place_rules_totals(place_nrules, hits, bytes);
    for (unsigned k = 0; k < place_nrules; k++) {
        const struct place_rule_config *r = place_rules[k];
        struct place_rule_row *row = &g->rules[k];
        *row = (struct place_rule_row){
            .name = r->name,
            .hits = hits[k],
            .bytes = bytes[k],
            .nchain = r->nchain,
            .on_full = r->on_full,
            .sites = r->patterns,
            .unresolved = r->patterns & ~resolved,
        };
        for (unsigned c = 0; c < r->nchain; c++)
            row->chain[c] = r->chain_text[c];
    }
}

/* In a signal handler the thread registry's lock may be held by the interrupted thread:
 * the slots are then read as they stand. */
static void node(struct place_node_row *n, struct place_tier *t, int signal)
{
    const struct place_tier_config *c = t->config;
    *n = (struct place_node_row){
        .name = t->name,
        .kind = c ? place_kind_name(c->kind) : "dram",
        .unavailable = t->unavailable,
        .planned = place_dry_run && t->unavailable,
        .limit = t->limit,
        .reclaim_min = c ? c->reclaim_min : 0,
        .reclaim_target = c ? c->reclaim_target : 0,
        .s = place_threads_node(t->index, &pending, !signal),
    };
    if (t->slabs) { /* an arena counts its threads' cached blocks as held */
        n->cached = place_cache_held(t->index);
        n->s.bytes -= n->cached;
    }
    n->nheaps = place_heap_snapshot(t->index, n->heaps);
    const struct place_stripes *st = t->unavailable ? NULL : place_arena_stripes(t);
    if (st)
        n->weights = st->weights, n->bandwidth = c->weights_bandwidth;
    n->near = t->unavailable ? NULL : place_arena_near_of(t);
    if ((n->shared = t->shared != NULL))
        place_shared_view(t->shared, &n->node);
    if (t->limit && n->s.peak > (int64_t)t->limit)
        n->overflow_peak = (uint64_t)n->s.peak - t->limit;
    /* not from a signal handler: libnuma reads node sizes through stdio, which allocates */
    size_t total, free;
    if (!signal && t->source && !t->unavailable && t->source->stats(t, &total, &free) == 0)
        n->machine = true, n->total = total, n->free = free;
    /* not from a signal handler: a full check reads the whole range's page table */
    if (!signal && place_config.verify != PLACE_VERIFY_OFF && t->source && t->source->verify &&
        !t->unavailable)
        n->checked = t->source->verify(t, place_config.verify == PLACE_VERIFY_ALL, &n->verified) == 0;
}

/* The site table holds one entry per (address, rule, tier): rows join an address's and
 * rule's entries, so a row shows where one call site's blocks went. */
static void sites(struct place_gathered *g)
{
    static struct place_site_count raw[PLACE_SITE_SLOTS] PLACE_LARGE;
    unsigned total, n = place_sites_top(raw, PLACE_SITE_SLOTS, &total);
    unsigned rows = 0;
    for (unsigned k = 0; k < n; k++) {
        struct place_site_count *c = &raw[k];
        /* a rule's name is its own array: the pointer tells rules apart */
        const char *rule = c->rule >= 0 ? place_rules[c->rule]->name : NULL;
        unsigned r = 0;
        while (r < rows && !(g->sites[r].ra == c->ra && g->sites[r].rule == rule))
            r++;
        if (r == rows) {
            if (rows == PLACE_MAX_SITES)
                continue;
            memset(&g->sites[rows], 0, sizeof g->sites[rows]);
            g->sites[rows].ra = c->ra;
            g->sites[rows].rule = rule;
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
            (unsigned)c->tier != place_chain_first(place_rules[c->rule]))
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

static void profile(struct place_gathered *g)
{
    static struct place_profile_row rows[PLACE_MAX_PROFILE] PLACE_LARGE;
    unsigned want = place_config.sites < PLACE_MAX_PROFILE ? place_config.sites : PLACE_MAX_PROFILE;
    g->nprofile = place_profile_top(rows, want, &g->total_profile, &g->sample, &g->lost, !g->signal);
    for (unsigned k = 0; k < g->nprofile; k++)
        g->profile[k].r = rows[k];
    place_access_state(&g->access);
    g->nhot = g->access.on ? place_profile_hottest(rows, PLACE_MAX_HOT, &g->tracking, !g->signal)
                           : 0;
    for (unsigned k = 0; k < g->nhot; k++)
        g->hot[k].r = rows[k];
}

static void frames(struct place_profile_site *p, bool wait)
{
    static struct place_where w;
    for (unsigned f = 0; f < p->r.n; f++) {
        struct place_frame *out = &p->frames[f];
        place_modules_where(p->r.frames[f], &w, wait);
        struct place_buf site = PLACE_BUF(out->site), symbol = PLACE_BUF(out->symbol);
        place_bprintf(&site, "%s", w.site);
        place_bprintf(&symbol, "%s", w.symbol);
    }
}

/* Symbolizing reads symbol tables, which may allocate (the module table): with the guard
 * up that is glibc's business, not a placed allocation. From a signal handler the table
 * is only tried: a busy one leaves sites as addresses. */
static void symbolize(struct place_gathered *g)
{
    uint8_t was = place_guard_enter();
    for (unsigned k = 0; k < g->nsites; k++)
        if (g->sites[k].ra)
            place_modules_where(g->sites[k].ra, &g->sites[k].where, !g->signal);
    for (unsigned k = 0; k < g->nprofile; k++)
        frames(&g->profile[k], !g->signal);
    for (unsigned k = 0; k < g->nhot; k++)
        frames(&g->hot[k], !g->signal);
    place_guard_leave(was);
}

void place_gather(struct place_gathered *g, int signal)
{
    place_threads_pending(&pending, !signal);
    header(g, signal);
    g->ntiers = 0;
    g->heap = NULL;
    for (struct place_tier **t = place_tiers; *t; t++) {
        if ((*t)->config && (*t)->config->kind == PLACE_SYMMETRIC && !g->heap)
            g->heap = &g->nodes[g->ntiers];
        node(&g->nodes[g->ntiers++], *t, signal);
    }
    g->symmetric = place_symmetric_snapshot(&g->shmem) && g->heap;
    g->timeline = place_timeline_final(!signal);
    sites(g);
    profile(g);
    symbolize(g);
}
