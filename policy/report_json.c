/* The report as JSON: docs/report.schema.json describes every key. */
#include <limits.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "../config/options.h"
#include "../shim/thread.h"
#include "fmt.h"
#include "gather.h"
#include "json.h"
#include "modules.h"
#include "place.h"
#include "report.h"
#include "timeline.h"

extern char *program_invocation_short_name;

static void header(struct place_json *j, const struct place_gathered *g)
{
    char host[256], start[32];
    place_report_path("%h", host, sizeof host);
    place_report_path("%t", start, sizeof start);
    place_json_str(j, "schema", "libplace-report");
    place_json_int(j, "version", 1);
    place_json_int(j, "pid", getpid());
    if (place_run.forked_from)
        place_json_int(j, "forked_from", place_run.forked_from);
    else
        place_json_str(j, "forked_from", NULL);
    place_json_str(j, "program", program_invocation_short_name);
    place_json_str(j, "host", host);
    place_json_str(j, "rank", place_mpi_rank());
    place_json_str(j, "start", start);
    place_json_milli(j, "seconds", g->ms);
    place_json_str(j, "signal", g->signal ? sigabbrev_np(g->signal) : NULL);
    place_json_open(j, "threads", '{');
    place_json_uint(j, "allocating", g->threads);
    place_json_uint(j, "at_exit", g->running);
    place_json_close(j, '}');

    const struct place_policy *p = &place_config;
    place_json_open(j, "policy", '{');
    place_json_str(j, "file", *p->file ? p->file : NULL);
    place_json_bool(j, "inline_rules", p->nrules && p->rules[0].at.in_rule);
    place_json_uint(j, "rules", p->nrules);
    char hash[17];
    struct place_buf h = PLACE_BUF(hash);
    place_bprintf(&h, "%016llx", (unsigned long long)p->hash);
    place_json_str(j, "hash", hash);
    place_json_bool(j, "dry_run", place_dry_run);
    place_json_close(j, '}');
}

static void nodes(struct place_json *j, const struct place_gathered *g)
{
    const struct place_timeline *line = place_timeline_final(!g->signal);
    place_json_open(j, "nodes", '[');
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        const struct place_tier_config *c = n->t->config;
        place_json_open(j, NULL, '{');
        place_json_str(j, "name", n->t->name);
        place_json_str(j, "kind", c ? place_kind_name(c->kind) : "dram");
        place_json_uint(j, "limit", n->t->limit);
        if (c && c->reclaim_min) {
            place_json_uint(j, "reclaim_min", c->reclaim_min);
            place_json_uint(j, "reclaim_target", c->reclaim_target);
        }
        place_json_bool(j, "available", !n->t->unavailable);
        place_json_str(j, "unavailable", n->t->unavailable);
        place_json_bool(j, "planned", place_dry_run && n->t->unavailable);
        place_json_int(j, "in_use", n->bytes);
        place_json_int(j, "peak", n->peak);
        place_json_uint(j, "allocations", n->allocs);
        place_json_uint(j, "frees", n->frees);
        place_json_uint(j, "refused", n->refused);
        place_json_uint(j, "fallbacks_out", n->fallbacks_out);
        place_json_uint(j, "fallbacks_in", n->fallbacks_in);
        place_json_uint(j, "waits", n->waits);
        place_json_milli(j, "wait_seconds", n->wait_ns / 1000000);
        place_json_uint(j, "overflow_bytes", n->overflow);
        place_json_uint(j, "failures", n->failures);
        place_json_uint(j, "reclaimed_bytes", n->reclaimed);
        place_json_uint(j, "skipped", n->skipped);
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
            place_json_bool(j, "exhaustive", n->verified.all);
            place_json_close(j, '}');
        } else {
            place_json_str(j, "verified", NULL);
        }
        place_json_open(j, "timeline", '[');
        for (unsigned p = 0; p < line->n; p++) {
            place_json_open(j, NULL, '[');
            place_json_milli(j, NULL, line->ms[p]);
            place_json_int(j, NULL, line->bytes[p][k]);
            place_json_close(j, ']');
        }
        place_json_close(j, ']');
        place_json_close(j, '}');
    }
    place_json_close(j, ']');
}

static void rules(struct place_json *j)
{
    place_json_open(j, "rules", '[');
    for (unsigned k = 0; k < place_nrules; k++) {
        const struct place_rule_config *r = place_rules[k].config;
        place_json_open(j, NULL, '{');
        place_json_str(j, "name", r->name);
        place_json_uint(j, "hits", atomic_load(&place_rules[k].stats.hits));
        place_json_uint(j, "bytes", atomic_load(&place_rules[k].stats.bytes));
        place_json_open(j, "chain", '[');
        for (unsigned c = 0; c < r->nchain; c++)
            place_json_str(j, NULL, r->chain_text[c]);
        place_json_close(j, ']');
        place_json_str(j, "on_full", place_on_full_name(r->on_full));
        place_json_close(j, '}');
    }
    place_json_close(j, ']');
}

static void sites(struct place_json *j, const struct place_gathered *g)
{
    place_json_open(j, "sites", '{');
    place_json_uint(j, "total", g->total_sites);
    place_json_open(j, "top", '[');
    uint8_t was = place_guard_enter();
    for (unsigned k = 0; k < g->nsites; k++) {
        const struct place_site_row *s = &g->sites[k];
        struct place_where w = {0};
        if (s->ra)
            place_modules_where(s->ra, &w, !g->signal);
        place_json_open(j, NULL, '{');
        place_json_str(j, "site", s->ra ? w.site : NULL);
        place_json_str(j, "symbol", *w.symbol ? w.symbol : NULL);
        place_json_str(j, "module", *w.path ? w.path : NULL);
        if (*w.path)
            place_json_uint(j, "offset", w.offset);
        else
            place_json_str(j, "offset", NULL);
        place_json_str(j, "rule", s->rule >= 0 ? place_rules[s->rule].config->name : NULL);
        place_json_uint(j, "allocations", s->allocs);
        place_json_uint(j, "bytes", s->bytes);
        place_json_uint(j, "fallbacks", s->fallbacks);
        place_json_open(j, "tiers", '{');
        for (unsigned i = 0; i < g->ntiers; i++)
            if (s->tier_allocs[i]) {
                place_json_open(j, place_tiers[i]->name, '{');
                place_json_uint(j, "allocations", s->tier_allocs[i]);
                place_json_uint(j, "bytes", s->tier_bytes[i]);
                place_json_close(j, '}');
            }
        place_json_close(j, '}');
        place_json_close(j, '}');
    }
    place_guard_leave(was);
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
    rules(&j);
    sites(&j, g);
    place_json_close(&j, '}');
    place_json_finish(&j);
}
