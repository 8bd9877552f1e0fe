/* The walk's call sites: the top sites with the tiers their bytes went to, and the
 * profile's sampled sites with their frames. */
#include <string.h>

#include "../base/fmt.h"
#include "walk_parts.h"

/* A code address as the report names it: its site (NULL: none) and its symbol ("":
 * none, written null); for the text, into b (NULL: not shown), "symbol (site)" or the
 * site. */
static void where(struct place_emit *e, struct place_buf *b, const char *site, const char *symbol)
{
    place_emit_str(e, "site", site);
    place_emit_str(e, "symbol", *symbol ? symbol : NULL);
    if (b && *symbol)
        place_bprintf(b, "%s (%s)", symbol, site);
    else if (b)
        place_bprintf(b, "%s", site);
}

/* The text's "name size, name size" of the tiers a site's bytes went to. */
enum { SPLIT_MAX = PLACE_MAX_TIERS * (PLACE_NAME_MAX + PLACE_SIZE_STR + 4) };
static void split(struct place_buf *t, const char *name, uint64_t bytes)
{
    char size[PLACE_SIZE_STR];
    if (bytes)
        place_bprintf(t, "%s%s %s", t->len ? ", " : "", name, place_size_str(size, (int64_t)bytes));
}

static void site(struct place_emit *e, const struct place_gathered *g,
                 const struct place_site_row *s)
{
    const struct place_where *w = &s->where;
    char at[800], tiers[SPLIT_MAX] = "", bytes[PLACE_SIZE_STR], fell[40] = "";
    struct place_buf b = PLACE_BUF(at), t = PLACE_BUF(tiers), f = PLACE_BUF(fell);
    place_emit_open(e, NULL, '{');
    where(e, &b, s->ra ? w->site : NULL, w->symbol);
    place_emit_str(e, "module", *w->path ? w->path : NULL);
    place_emit_uint_or_null(e, "offset", *w->path, w->offset);
    place_emit_str(e, "rule", s->rule);
    place_emit_uint(e, "allocations", s->allocs);
    place_emit_uint(e, "bytes", s->bytes);
    place_emit_uint(e, "fallbacks", s->fallbacks);
    place_emit_open(e, "tiers", '{');
    for (unsigned i = 0; i < g->ntiers; i++) {
        if (s->tier_allocs[i]) {
            place_emit_open(e, g->nodes[i].name, '{');
            place_emit_uint(e, "allocations", s->tier_allocs[i]);
            place_emit_uint(e, "bytes", s->tier_bytes[i]);
            place_emit_close(e, '}');
        }
        split(&t, g->nodes[i].name, s->tier_bytes[i]);
    }
    place_emit_close(e, '}');
    place_emit_close(e, '}');
    place_size_str(bytes, (int64_t)s->bytes);
    if (!s->ra) { /* every site that found the table full: no rule or tier told apart */
        place_emit_line(e, PART_NOW, "  %10s %9llu x  (other sites: the site table was full)",
                        bytes, (unsigned long long)s->allocs);
        return;
    }
    if (s->fallbacks)
        place_bprintf(&f, "; %llu fell back", (unsigned long long)s->fallbacks);
    place_emit_line(e, PART_NOW, "  %10s %9llu x  %s  %s -> %s%s", bytes,
                    (unsigned long long)s->allocs, at, s->rule ? s->rule : "no rule", tiers, fell);
}

void place_walk_sites(struct place_emit *e, const struct place_gathered *g)
{
    if (g->nsites)
        place_emit_line(e, PART_NOW, "top %u site%s by bytes asked, of %u:", g->nsites,
                        place_plural_s(g->nsites), g->total_sites);
    place_emit_open(e, "sites", '{');
    place_emit_uint(e, "total", g->total_sites);
    place_emit_open(e, "top", '[');
    for (unsigned k = 0; k < g->nsites; k++)
        site(e, g, &g->sites[k]);
    place_emit_close(e, ']');
    place_emit_close(e, '}');
}

/* How many of profile row k's frames the text names: the first, and further up to the
 * first frame where k differs from each other row that starts alike (an allocation
 * function of an interpreter's, say, called from many places), so that no two rows
 * read the same. */
static unsigned told_apart(const struct place_profile_site *rows, unsigned n, unsigned k)
{
    const struct place_profile_site *p = &rows[k];
    unsigned need = 1;
    for (unsigned j = 0; j < n; j++) {
        const struct place_profile_site *q = &rows[j];
        unsigned f = 0;
        while (j != k && f < p->r.n && f < q->r.n &&
               strcmp(p->frames[f].site, q->frames[f].site) == 0)
            f++;
        if (f + 1 > need)
            need = f + 1;
    }
    return need < p->r.n ? need : p->r.n;
}

/* A caller in the text: its function without the module ("perl!Perl_sv_grow+0x4e":
 * "Perl_sv_grow+0x4e"), or its site. */
static const char *caller(const struct place_frame *f)
{
    const char *bang = strchr(f->symbol, '!');
    return !*f->symbol ? f->site : bang ? bang + 1 : f->symbol;
}

/* A share (0..1) in thousandths. */
static uint64_t milli(double share)
{
    return (uint64_t)(share * 1000 + 0.5);
}

/* A tracked site's access figures (stats/profile.h): JSON alone. */
static void accessed(struct place_emit *e, const struct place_profile_access *a)
{
    place_emit_open(e, "access", '{');
    place_emit_uint(e, "blocks", a->blocks);
    place_emit_uint(e, "first_ms", a->first_ms);
    place_emit_uint_or_null(e, "last_ms", a->last_ms != UINT64_MAX, a->last_ms);
    place_emit_uint(e, "peak", a->peak);
    place_emit_uint(e, "live_mean", a->live_mean);
    place_emit_uint(e, "touched_mean", a->touched_mean);
    place_emit_uint(e, "touched_peak", a->touched_peak);
    place_emit_milli(e, "touched_share", milli(a->touched_share));
    if (a->written_share >= 0)
        place_emit_milli(e, "written_share", milli(a->written_share));
    else
        place_emit_str(e, "written_share", NULL);
    place_emit_milli(e, "heat", a->heat / 1000);
    place_emit_close(e, '}');
}

/* "96%" of a share in thousandths (as the JSON has it), or "-" when not known (< 0). */
static const char *percent(char *out, double share)
{
    struct place_buf b = {.s = out, .cap = 8};
    if (share < 0)
        place_bprintf(&b, "-");
    else
        place_bprintf(&b, "%u%%", (unsigned)((milli(share) + 5) / 10));
    return out;
}

/* Row k of rows (n of them): its JSON object, and its text line: the profile's
 * columns, or with hot the access profile's. */
static void profiled(struct place_emit *e, const struct place_gathered *g,
                     const struct place_profile_site *rows, unsigned n, unsigned k, bool hot)
{
    const struct place_profile_site *p = &rows[k];
    const struct place_profile_row *r = &p->r;
    char at[PLACE_EMIT_LINE - 80], tiers[SPLIT_MAX] = "";
    struct place_buf b = PLACE_BUF(at), t = PLACE_BUF(tiers);
    unsigned shown = told_apart(rows, n, k);
    place_emit_open(e, NULL, '{');
    place_emit_open(e, "frames", '[');
    for (unsigned f = 0; f < r->n; f++) {
        place_emit_open(e, NULL, '{');
        where(e, f ? NULL : &b, p->frames[f].site, p->frames[f].symbol); /* the text: the first */
        if (f && f < shown)
            place_bprintf(&b, " < %s", caller(&p->frames[f]));
        place_emit_close(e, '}');
    }
    place_emit_close(e, ']');
    if (!r->n)
        place_bprintf(&b, "(other sites: the profile's table was full)");
    place_emit_uint(e, "samples", r->samples);
    place_emit_uint(e, "calls", r->calls);
    place_emit_uint(e, "bytes", r->bytes);
    place_emit_uint(e, "live", r->live);
    place_emit_uint(e, "peak", r->peak);
    place_emit_uint(e, "mean_size", r->mean);
    bool spread =
        r->tier_bytes[0] < r->bytes; /* the text: where its blocks went, when not dram alone */
    place_emit_open(e, "tiers", '{');
    for (unsigned i = 0; i < g->ntiers; i++) {
        if (r->tier_bytes[i])
            place_emit_uint(e, g->nodes[i].name, r->tier_bytes[i]);
        if (spread)
            split(&t, g->nodes[i].name, r->tier_bytes[i]);
    }
    place_emit_close(e, '}');
    if (r->access.blocks)
        accessed(e, &r->access);
    place_emit_close(e, '}');
    char bytes[PLACE_SIZE_STR], live[PLACE_SIZE_STR], peak[PLACE_SIZE_STR], mean[PLACE_SIZE_STR];
    if (hot) {
        const struct place_profile_access *a = &r->access;
        char share[8], written[8];
        place_emit_line(e, PART_NOW, "  %10s %10s %10s %8s %8s  %s",
                        place_size_str(peak, (int64_t)a->peak),
                        place_size_str(mean, (int64_t)a->touched_mean),
                        place_size_str(live, (int64_t)a->touched_peak),
                        percent(share, a->touched_share), percent(written, a->written_share), at);
        return;
    }
    place_emit_line(e, PART_NOW, "  %10s %10llu %10s %10s %10s  %s%s%s",
                    place_size_str(bytes, (int64_t)r->bytes), (unsigned long long)r->calls,
                    place_size_str(live, (int64_t)r->live), place_size_str(peak, (int64_t)r->peak),
                    place_size_str(mean, (int64_t)r->mean), at, t.len ? " -> " : "", tiers);
}

/* The access profile: what its figure means, what it cost, and the hottest sites. */
static void walk_access(struct place_emit *e, const struct place_gathered *g)
{
    const struct place_access_state *a = &g->access;
    char min[PLACE_SIZE_STR], peak[PLACE_SIZE_STR], untracked[PLACE_SIZE_STR];
    place_size_str(min, (int64_t)a->min);
    place_size_str(peak, (int64_t)g->tracking.peak);
    place_size_str(untracked, (int64_t)a->untracked_bytes);
    uint64_t mean_us = (uint64_t)(a->interval_mean_ms * 1000 + 0.5);
    place_emit_open(e, "access", '{');
    if (a->refused) {
        char state[128];
        struct place_buf b = PLACE_BUF(state);
        place_bprintf(&b, "unavailable: %s", a->refused);
        place_emit_str(e, "state", state);
    } else
        place_emit_str(e, "state", "on");
    place_emit_uint(e, "min", a->min);
    place_emit_uint(e, "interval_ms", a->interval_ms);
    place_emit_milli(e, "interval_mean_ms", mean_us);
    place_emit_uint(e, "intervals", a->intervals);
    place_emit_open(e, "tracked", '{');
    place_emit_uint(e, "blocks", g->tracking.blocks);
    place_emit_uint(e, "live", g->tracking.live);
    place_emit_uint(e, "peak", g->tracking.peak);
    place_emit_close(e, '}');
    place_emit_open(e, "untracked", '{');
    place_emit_uint(e, "blocks", a->untracked_blocks);
    place_emit_uint(e, "bytes", a->untracked_bytes);
    place_emit_close(e, '}');
    place_emit_bool(e, "written", a->written);
    place_emit_milli(e, "cost_ms", a->cost_ns / 1000);
    place_emit_str(e, "meaning",
                   "touched: bytes of a site's tracked blocks whose pages were accessed at least "
                   "once in an interval (the page tables' accessed bits; a page counts whole, a "
                   "huge page too), not a count of accesses");
    if (a->refused)
        place_emit_line(e, PART_NOW, "access profile unavailable: %s; sites ranked by bytes only",
                        a->refused);
    else if (!g->tracking.blocks)
        place_emit_line(e, PART_NOW,
                        "access profile: no block of %s or more was allocated, none tracked "
                        "(profile_min)",
                        min);
    else {
        place_emit_line(e, PART_NOW,
                        "hottest sites per byte, of %llu tracked (blocks of %s or more, %llu "
                        "block%s, %s at peak), read %llu time%s every %llu.%llu ms on average:",
                        (unsigned long long)g->nhot, min, (unsigned long long)g->tracking.blocks,
                        place_plural_s(g->tracking.blocks), peak,
                        (unsigned long long)a->intervals, place_plural_s(a->intervals),
                        (unsigned long long)(mean_us / 1000),
                        (unsigned long long)(mean_us % 1000 / 100));
        place_emit_line(e, PART_NOW,
                        "  touched: bytes of the site's blocks whose pages were accessed at "
                        "least once in an interval, not a count of accesses; %s pages",
                        a->written ? "written: of its live bytes, the share written in the "
                                     "intervals read for it (soft-dirty bits); 4 KiB"
                                   : "written: not read (no soft-dirty bits here); 4 KiB");
        place_emit_line(e, PART_NOW, "  %10s %10s %10s %8s %8s  %s", "peak", "touched", "most",
                        "share", "written",
                        "site (touched: per interval on average, most: in one interval; share: "
                        "of its live bytes)");
    }
    place_emit_open(e, "hottest", '[');
    for (unsigned k = 0; k < g->nhot; k++)
        profiled(e, g, g->hot, g->nhot, k, true);
    place_emit_close(e, ']');
    place_emit_close(e, '}');
    if (g->tracking.blocks)
        place_emit_line(e, PART_NOW, "  the sampler took %llu.%03llu s of CPU",
                        (unsigned long long)(a->cost_ns / 1000000000),
                        (unsigned long long)(a->cost_ns / 1000000 % 1000));
    if (a->untracked_blocks)
        place_emit_line(e, PART_NOW,
                        "  %llu block%s of %s or more (%s) stayed untracked: an alignment past "
                        "a page, 8192 tracked blocks live already, or no mapping for it",
                        (unsigned long long)a->untracked_blocks,
                        place_plural_s(a->untracked_blocks), min, untracked);
}

void place_walk_profile(struct place_emit *e, const struct place_gathered *g)
{
    char every[PLACE_SIZE_STR];
    if (g->nprofile && g->sample)
        place_emit_line(e, PART_NOW,
                        "allocation sites, sampled every %s asked on average (estimates; "
                        "sample = all counts every one), top %u of %u:",
                        place_size_str(every, (int64_t)g->sample), g->nprofile, g->total_profile);
    else if (g->nprofile)
        place_emit_line(e, PART_NOW,
                        "allocation sites, every allocation (sample = all), top %u of %u:",
                        g->nprofile, g->total_profile);
    if (g->nprofile)
        place_emit_line(e, PART_NOW, "  %10s %10s %10s %10s %10s  %s", "bytes", "calls", "live",
                        "peak", "mean",
                        "site (first frame past the allocation wrappers < its callers, as far "
                        "as rows differ)");
    place_emit_open(e, "profile", '{');
    if (g->sample)
        place_emit_uint(e, "sample", g->sample);
    else
        place_emit_str(e, "sample", "all");
    place_emit_uint(e, "lost", g->lost);
    place_emit_uint(e, "total", g->total_profile);
    place_emit_open(e, "top", '[');
    for (unsigned k = 0; k < g->nprofile; k++)
        profiled(e, g, g->profile, g->nprofile, k, false);
    place_emit_close(e, ']');
    if (g->access.on)
        walk_access(e, g);
    place_emit_close(e, '}');
    if (g->nprofile && g->lost)
        place_emit_line(e, PART_NOW,
                        "%llu samples could not be kept (no memory for the table): their "
                        "frees are not seen, so live bytes are overstated",
                        (unsigned long long)g->lost);
}
