/* The report as JSON: docs/report.schema.json describes every key. A pure formatter of
 * the gathered snapshot. */
#include <signal.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/json.h"
#include "format.h"

static void header(struct place_json *j, const struct place_gathered *g)
{
    place_json_str(j, "schema", "libplace-report");
    place_json_int(j, "version", 2);
    place_json_int(j, "pid", g->pid);
    if (g->forked_from)
        place_json_int(j, "forked_from", g->forked_from);
    else
        place_json_str(j, "forked_from", NULL);
    place_json_str(j, "program", g->program);
    place_json_str(j, "host", g->host);
    place_json_str(j, "rank", g->rank);
    place_json_str(j, "start", g->start);
    place_json_milli(j, "seconds", g->ms);
    place_json_str(j, "signal", g->signal && !g->fatal ? sigabbrev_np(g->signal) : NULL);
    place_json_str(j, "ended_by", g->fatal ? sigabbrev_np(g->signal) : NULL);
    place_json_open(j, "threads", '{');
    place_json_uint(j, "allocating", g->threads);
    place_json_uint(j, "at_exit", g->running);
    place_json_close(j, '}');

    place_json_open(j, "policy", '{');
    place_json_str(j, "file", g->file);
    place_json_bool(j, "inline_rules", g->inline_rules);
    place_json_uint(j, "rules", g->nrules);
    char hash[17];
    struct place_buf h = PLACE_BUF(hash);
    place_bprintf(&h, "%016llx", (unsigned long long)g->hash);
    place_json_str(j, "hash", hash);
    place_json_bool(j, "dry_run", g->dry_run);
    place_json_uint(j, "fold_min", g->fold_min);
    place_json_close(j, '}');
}

static void nodes(struct place_json *j, const struct place_gathered *g)
{
    const struct place_timeline *line = g->timeline;
    place_json_open(j, "nodes", '[');
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        const uint64_t *e = n->s.events;
        place_json_open(j, NULL, '{');
        place_json_str(j, "name", n->name);
        place_json_str(j, "kind", n->kind);
        place_json_uint(j, "limit", n->limit);
        if (n->reclaim_min) {
            place_json_uint(j, "reclaim_min", n->reclaim_min);
            place_json_uint(j, "reclaim_target", n->reclaim_target);
        }
        place_json_bool(j, "available", !n->unavailable);
        place_json_str(j, "unavailable", n->unavailable);
        place_json_bool(j, "planned", n->planned);
        place_json_int(j, "in_use", n->s.bytes);
        place_json_int(j, "peak", n->s.peak);
        if (n->cached)
            place_json_int(j, "cached", n->cached);
        place_json_uint(j, "allocations", e[PLACE_EV_ALLOCS]);
        place_json_uint(j, "frees", e[PLACE_EV_FREES]);
        place_json_uint(j, "refused", e[PLACE_EV_REFUSED]);
        place_json_uint(j, "fallbacks_out", e[PLACE_EV_FALLBACKS_OUT]);
        place_json_uint(j, "fallbacks_in", e[PLACE_EV_FALLBACKS_IN]);
        place_json_uint(j, "waits", e[PLACE_EV_WAITS]);
        place_json_milli(j, "wait_seconds", e[PLACE_EV_WAIT_NS] / 1000000);
        place_json_uint(j, "overflows", e[PLACE_EV_OVERFLOW]);
        place_json_uint(j, "overflow_peak", n->overflow_peak);
        place_json_uint(j, "failures", e[PLACE_EV_FAILURES]);
        place_json_uint(j, "reclaimed_bytes", e[PLACE_EV_RECLAIMED]);
        place_json_uint(j, "skipped", e[PLACE_EV_SKIPPED]);
        if (n->machine) {
            place_json_open(j, "machine", '{');
            place_json_uint(j, "total", n->total);
            place_json_uint(j, "free", n->free);
            place_json_close(j, '}');
        } else {
            place_json_str(j, "machine", NULL);
        }
        if (n->checked) {
            place_json_open(j, "verified", '{');
            place_json_uint(j, "resident", n->verified.resident);
            place_json_uint(j, "looked", n->verified.looked);
            place_json_uint(j, "placed", n->verified.placed);
            place_json_uint(j, "untouched", n->verified.untouched);
            place_json_bool(j, "exhaustive", n->verified.all);
            place_json_close(j, '}');
        } else {
            place_json_str(j, "verified", NULL);
        }
        if (n->nheaps) {
            place_json_open(j, "library_heaps", '[');
            for (unsigned i = 0; i < n->nheaps; i++) {
                place_json_open(j, NULL, '{');
                place_json_str(j, "owner", n->heaps[i].owner);
                place_json_uint(j, "blocks", n->heaps[i].blocks);
                place_json_int(j, "in_use", n->heaps[i].bytes);
                place_json_int(j, "peak", n->heaps[i].peak);
                place_json_close(j, '}');
            }
            place_json_close(j, ']');
        }
        place_json_open(j, "timeline", '[');
        for (unsigned p = 0; p < line->n; p++) {
            place_json_open(j, NULL, '[');
            place_json_milli(j, NULL, line->ms[p]);
            place_json_int(j, NULL, line->bytes[p][k]);
            place_json_close(j, ']');
        }
        place_json_close(j, ']');
        place_json_open(j, "band", '[');
        for (unsigned p = 0; p < line->n; p++) {
            place_json_open(j, NULL, '[');
            place_json_int(j, NULL, line->lo[p][k]);
            place_json_int(j, NULL, line->hi[p][k]);
            place_json_close(j, ']');
        }
        place_json_close(j, ']');
        place_json_close(j, '}');
    }
    place_json_close(j, ']');
}

static void rules(struct place_json *j, const struct place_gathered *g)
{
    place_json_open(j, "rules", '[');
    for (unsigned k = 0; k < g->nrules; k++) {
        const struct place_rule_row *r = &g->rules[k];
        place_json_open(j, NULL, '{');
        place_json_str(j, "name", r->name);
        place_json_uint(j, "hits", r->hits);
        place_json_uint(j, "bytes", r->bytes);
        place_json_open(j, "chain", '[');
        for (unsigned c = 0; c < r->nchain; c++)
            place_json_str(j, NULL, r->chain[c]);
        place_json_close(j, ']');
        place_json_str(j, "on_full", place_on_full_name(r->on_full));
        place_json_close(j, '}');
    }
    place_json_close(j, ']');
}

/* A code address as the report names it: its site (NULL: none) and its symbol ("":
 * none, written null). */
static void where_json(struct place_json *j, const char *site, const char *symbol)
{
    place_json_str(j, "site", site);
    place_json_str(j, "symbol", *symbol ? symbol : NULL);
}

static void sites(struct place_json *j, const struct place_gathered *g)
{
    place_json_open(j, "sites", '{');
    place_json_uint(j, "total", g->total_sites);
    place_json_open(j, "top", '[');
    for (unsigned k = 0; k < g->nsites; k++) {
        const struct place_site_row *s = &g->sites[k];
        const struct place_where *w = &s->where;
        place_json_open(j, NULL, '{');
        where_json(j, s->ra ? w->site : NULL, w->symbol);
        place_json_str(j, "module", *w->path ? w->path : NULL);
        if (*w->path)
            place_json_uint(j, "offset", w->offset);
        else
            place_json_str(j, "offset", NULL);
        place_json_str(j, "rule", s->rule);
        place_json_uint(j, "allocations", s->allocs);
        place_json_uint(j, "bytes", s->bytes);
        place_json_uint(j, "fallbacks", s->fallbacks);
        place_json_open(j, "tiers", '{');
        for (unsigned i = 0; i < g->ntiers; i++)
            if (s->tier_allocs[i]) {
                place_json_open(j, g->nodes[i].name, '{');
                place_json_uint(j, "allocations", s->tier_allocs[i]);
                place_json_uint(j, "bytes", s->tier_bytes[i]);
                place_json_close(j, '}');
            }
        place_json_close(j, '}');
        place_json_close(j, '}');
    }
    place_json_close(j, ']');
    place_json_close(j, '}');
}

static void profile(struct place_json *j, const struct place_gathered *g)
{
    place_json_open(j, "profile", '{');
    if (g->sample)
        place_json_uint(j, "sample", g->sample);
    else
        place_json_str(j, "sample", "all");
    place_json_uint(j, "lost", g->lost);
    place_json_uint(j, "total", g->total_profile);
    place_json_open(j, "top", '[');
    for (unsigned k = 0; k < g->nprofile; k++) {
        const struct place_profile_site *p = &g->profile[k];
        const struct place_profile_row *r = &p->r;
        place_json_open(j, NULL, '{');
        place_json_open(j, "frames", '[');
        for (unsigned f = 0; f < r->n; f++) {
            place_json_open(j, NULL, '{');
            where_json(j, p->frames[f].site, p->frames[f].symbol);
            place_json_close(j, '}');
        }
        place_json_close(j, ']');
        place_json_uint(j, "samples", r->samples);
        place_json_uint(j, "calls", r->calls);
        place_json_uint(j, "bytes", r->bytes);
        place_json_uint(j, "live", r->live);
        place_json_uint(j, "peak", r->peak);
        place_json_uint(j, "mean_size", r->mean);
        place_json_open(j, "tiers", '{');
        for (unsigned i = 0; i < g->ntiers; i++)
            if (r->tier_bytes[i])
                place_json_uint(j, g->nodes[i].name, r->tier_bytes[i]);
        place_json_close(j, '}');
        place_json_close(j, '}');
    }
    place_json_close(j, ']');
    place_json_close(j, '}');
}

static void symmetric(struct place_json *j, const struct place_gathered *g)
{
    if (!g->symmetric)
        return;
    const struct place_symmetric_stats *s = &g->shmem;
    char digest[17];
    struct place_buf b = PLACE_BUF(digest);
    place_bprintf(&b, "%016llx", (unsigned long long)s->digest);
    place_json_open(j, "symmetric", '{');
    place_json_str(j, "tier", g->heap->name);
    place_json_uint(j, "calls", s->calls);
    place_json_str(j, "digest", digest);
    place_json_uint(j, "refused", s->refused);
    place_json_uint(j, "unbindable", s->unbindable);
    place_json_int(j, "peak", g->heap->s.peak);
    place_json_int(j, "in_use", g->heap->s.bytes);
    place_json_uint(j, "suggested_size", place_symmetric_suggested((uint64_t)g->heap->s.peak));
    place_json_open(j, "bound", '[');
    for (unsigned k = 0; k < g->ntiers; k++)
        if (s->binds[k]) {
            place_json_open(j, NULL, '{');
            place_json_str(j, "tier", g->nodes[k].name);
            place_json_uint(j, "blocks", s->blocks[k]);
            place_json_uint(j, "bytes", s->bytes[k]);
            place_json_uint(j, "binds", s->binds[k]);
            place_json_close(j, '}');
        }
    place_json_close(j, ']');
    place_json_close(j, '}');
}

void place_report_json(int fd, const struct place_gathered *g)
{
    static struct place_json j;
    j = (struct place_json){.fd = fd};
    place_json_open(&j, NULL, '{');
    header(&j, g);
    nodes(&j, g);
    rules(&j, g);
    symmetric(&j, g);
    sites(&j, g);
    profile(&j, g);
    place_json_close(&j, '}');
    place_json_finish(&j);
}
