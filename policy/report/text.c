/* The report as text: aligned tables for a person to read, one line each prefixed
 * "libplace: ". A pure formatter of the gathered snapshot. */
#include <signal.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/out.h"
#include "../engine/fold.h"
#include "format.h"

static void text_header(int fd, const struct place_gathered *g)
{
    char origin[48] = "", asked[48] = "";
    if (g->forked_from) {
        struct place_buf o = PLACE_BUF(origin);
        place_bprintf(&o, ", forked from pid %d", (int)g->forked_from);
    }
    if (g->signal) {
        struct place_buf a = PLACE_BUF(asked);
        place_bprintf(&a, ", %s SIG%s", g->fatal ? "ended by" : "asked for by",
                      sigabbrev_np(g->signal));
    }
    place_line(fd,
               "report of pid %d (%s)%s%s, %llu.%03llu s, allocations from %llu thread%s (%u %s)",
               (int)g->pid, g->program, origin, asked,
               (unsigned long long)(g->ms / 1000), (unsigned long long)(g->ms % 1000),
               (unsigned long long)g->threads, g->threads == 1 ? "" : "s", g->running,
               g->signal ? "running" : "at exit");
    if (!g->nrules) {
        place_line(fd, "no rules: every allocation stays with its own allocator (glibc, the "
                       "CUDA driver, the SHMEM library)");
        return;
    }
    const char *file = g->file ? g->file : "";
    place_line(fd, "policy %s%s, %u rule%s, text hash %016llx", file,
               g->inline_rules ? (*file ? " after LIBPLACE_RULES" : "LIBPLACE_RULES") : "",
               g->nrules, g->nrules == 1 ? "" : "s", (unsigned long long)g->hash);
    if (g->dry_run)
        place_line(fd, "DRY RUN: every tier the policy declares is planned for as if this machine "
                       "had it; the memory itself came from dram, and a planned tier's figures "
                       "are the bytes asked of it");
    char min[PLACE_SIZE_STR], buffer[PLACE_SIZE_STR];
    if (g->fold_min)
        place_line(fd, "FOLDED: planned blocks of %s or more share one %s buffer, so they "
                       "take almost no memory; what the program wrote in them is garbage",
                   place_size_str(min, (int64_t)g->fold_min),
                   place_size_str(buffer, PLACE_FOLD_BUFFER));
}

static bool pressed(const struct place_node_row *n)
{
    const uint64_t *e = n->s.events;
    return e[PLACE_EV_REFUSED] || e[PLACE_EV_FALLBACKS_IN] || e[PLACE_EV_WAITS] ||
           e[PLACE_EV_OVERFLOW] || e[PLACE_EV_FAILURES] || e[PLACE_EV_RECLAIMED] ||
           e[PLACE_EV_SKIPPED];
}

static void text_nodes(int fd, const struct place_gathered *g)
{
    place_line(fd, "%-12s %-8s %10s %10s %10s %12s %12s", "tier", "kind", "limit", "in use", "peak",
               "allocations", "frees");
    bool any_pressure = false;
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        char limit[PLACE_SIZE_STR] = "none", now[PLACE_SIZE_STR], peak[PLACE_SIZE_STR];
        if (n->limit)
            place_size_str(limit, (int64_t)n->limit);
        place_line(fd, "%-12s %-8s %10s %10s %10s %12llu %12llu", n->name, n->kind, limit,
                   place_size_str(now, n->s.bytes), place_size_str(peak, n->s.peak),
                   (unsigned long long)n->s.events[PLACE_EV_ALLOCS],
                   (unsigned long long)n->s.events[PLACE_EV_FREES]);
        any_pressure |= pressed(n);
    }
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        char cached[PLACE_SIZE_STR];
        if (n->cached)
            place_line(fd, "%s: %s more in threads' caches (free blocks, counted against its limit)",
                       n->name, place_size_str(cached, n->cached));
    }
    if (any_pressure) {
        place_line(fd, "%-12s %8s %8s %8s %7s %8s %10s %8s %10s %8s", "tier", "refused", "fb out",
                   "fb in", "waits", "waited", "overflow", "failures", "reclaimed", "skipped");
        for (unsigned k = 0; k < g->ntiers; k++) {
            const struct place_node_row *n = &g->nodes[k];
            if (!pressed(n))
                continue;
            const uint64_t *e = n->s.events;
            char over[PLACE_SIZE_STR], recl[PLACE_SIZE_STR], waited[24];
            struct place_buf w = PLACE_BUF(waited);
            uint64_t ms = e[PLACE_EV_WAIT_NS] / 1000000;
            place_bprintf(&w, "%llu.%03llus", (unsigned long long)(ms / 1000),
                          (unsigned long long)(ms % 1000));
            place_line(fd, "%-12s %8llu %8llu %8llu %7llu %8s %10s %8llu %10s %8llu", n->name,
                       (unsigned long long)e[PLACE_EV_REFUSED],
                       (unsigned long long)e[PLACE_EV_FALLBACKS_OUT],
                       (unsigned long long)e[PLACE_EV_FALLBACKS_IN],
                       (unsigned long long)e[PLACE_EV_WAITS], waited,
                       place_size_str(over, (int64_t)n->overflow_peak),
                       (unsigned long long)e[PLACE_EV_FAILURES],
                       place_size_str(recl, (int64_t)e[PLACE_EV_RECLAIMED]),
                       (unsigned long long)e[PLACE_EV_SKIPPED]);
        }
    }
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        uint64_t skipped = n->s.events[PLACE_EV_SKIPPED];
        if (n->unavailable && !n->planned)
            place_line(fd, "%s: unavailable: %s; %llu request%s skipped it", n->name,
                       n->unavailable, (unsigned long long)skipped, skipped == 1 ? "" : "s");
        else if (n->unavailable)
            place_line(fd, "%s: planned (this machine: %s)", n->name, n->unavailable);
        else if (n->machine) {
            char total[PLACE_SIZE_STR], free[PLACE_SIZE_STR];
            place_line(fd, "%s: %s on this machine, %s free", n->name,
                       place_size_str(total, (int64_t)n->total),
                       place_size_str(free, (int64_t)n->free));
        }
    }
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        for (unsigned i = 0; i < n->nheaps; i++) {
            const struct place_heap_stats *h = &n->heaps[i];
            char now[PLACE_SIZE_STR], peak[PLACE_SIZE_STR];
            bool others = strcmp(h->owner, PLACE_HEAP_OTHERS) == 0;
            place_line(fd, "%s: %s %s here: %s in %llu block%s now, %s at peak; the blocks "
                           "handed out inside are not seen",
                       n->name, h->owner,
                       others ? "keep heaps of their own" : "keeps a heap of its own",
                       place_size_str(now, h->bytes),
                       (unsigned long long)h->blocks, h->blocks == 1 ? "" : "s",
                       place_size_str(peak, h->peak));
        }
    }
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_verified *v = &g->nodes[k].verified;
        if (!g->nodes[k].checked)
            continue;
        if (!v->resident) { /* a share of nothing would read as 0% placed */
            place_line(fd, "%s: no resident pages at exit to check (move_pages)",
                       g->nodes[k].name);
            continue;
        }
        uint64_t written = v->looked - v->untouched;
        uint64_t permille = written ? v->placed * 1000 / written : 1000;
        char untouched[160] = "";
        struct place_buf u = PLACE_BUF(untouched);
        if (v->untouched)
            place_bprintf(&u, "; %llu of the %llu looked at never written (the kernel's zero "
                              "page, on no node), not counted",
                          (unsigned long long)v->untouched, (unsigned long long)v->looked);
        place_line(fd, "%s: %llu.%llu%% of %s%llu resident page%s on its nodes (move_pages)%s%s",
                   g->nodes[k].name, (unsigned long long)(permille / 10),
                   (unsigned long long)(permille % 10), v->all ? "all " : "",
                   (unsigned long long)(v->all ? v->looked : v->resident),
                   v->resident == 1 ? "" : "s",
                   v->all || v->looked == v->resident ? "" : ", from a sample", untouched);
    }
    char batch[PLACE_SIZE_STR], every[PLACE_SIZE_STR];
    if (g->sample)
        place_line(fd, "dram counts what glibc served: its allocations and frees exactly, its "
                       "bytes in use and peak estimated from allocations sampled every %s asked "
                       "(sample = all: exact)",
                   place_size_str(every, (int64_t)g->sample));
    else
        place_line(fd, "dram counts what glibc served; its peak is exact to within %s per thread",
                   place_size_str(batch, PLACE_STATS_BATCH));
}

static void text_rules(int fd, const struct place_gathered *g)
{
    if (!g->nrules)
        return;
    place_line(fd, "%-20s %12s %14s  %s", "rule", "hits", "bytes asked", "chain");
    for (unsigned k = 0; k < g->nrules; k++) {
        const struct place_rule_row *r = &g->rules[k];
        char bytes_s[PLACE_SIZE_STR], chain[PLACE_MAX_CHAIN * PLACE_NAME_MAX + 32];
        struct place_buf b = PLACE_BUF(chain);
        for (unsigned j = 0; j < r->nchain; j++)
            place_bprintf(&b, "%s%s", j ? ", " : "", r->chain[j]);
        if (r->on_full != PLACE_FALLBACK)
            place_bprintf(&b, " (on_full = %s)", place_on_full_name(r->on_full));
        place_line(fd, "%-20s %12llu %14s  %s", r->name, (unsigned long long)r->hits,
                   place_size_str(bytes_s, (int64_t)r->bytes), chain);
    }
}

/* A code address as the report names it: its symbol and module offset, or the offset. */
static void where_text(struct place_buf *b, const char *symbol, const char *site)
{
    if (*symbol)
        place_bprintf(b, "%s (%s)", symbol, site);
    else
        place_bprintf(b, "%s", site);
}

/* The bytes per node that are not 0, as "name size, name size". */
static void tiers_text(struct place_buf *t, const struct place_gathered *g, const uint64_t *bytes)
{
    for (unsigned i = 0; i < g->ntiers; i++)
        if (bytes[i]) {
            char size[PLACE_SIZE_STR];
            place_bprintf(t, "%s%s %s", t->len ? ", " : "", g->nodes[i].name,
                          place_size_str(size, (int64_t)bytes[i]));
        }
}

static void text_sites(int fd, const struct place_gathered *g)
{
    if (!g->nsites)
        return;
    place_line(fd, "top %u site%s by bytes asked, of %u:", g->nsites, g->nsites == 1 ? "" : "s",
               g->total_sites);
    for (unsigned k = 0; k < g->nsites; k++) {
        const struct place_site_row *s = &g->sites[k];
        const struct place_where *w = &s->where;
        char where[800], split[PLACE_MAX_TIERS * (PLACE_NAME_MAX + PLACE_SIZE_STR + 4)] = "";
        struct place_buf b = PLACE_BUF(where), t = PLACE_BUF(split);
        char bytes[PLACE_SIZE_STR], fell[40] = "";
        if (!s->ra) { /* every site that found the table full: no rule or tier told apart */
            place_line(fd, "  %10s %9llu x  (other sites: the site table was full)",
                       place_size_str(bytes, (int64_t)s->bytes), (unsigned long long)s->allocs);
            continue;
        }
        where_text(&b, w->symbol, w->site);
        tiers_text(&t, g, s->tier_bytes);
        if (s->fallbacks) {
            struct place_buf f = PLACE_BUF(fell);
            place_bprintf(&f, "; %llu fell back", (unsigned long long)s->fallbacks);
        }
        place_line(fd, "  %10s %9llu x  %s  %s -> %s%s", place_size_str(bytes, (int64_t)s->bytes),
                   (unsigned long long)s->allocs, where,
                   s->rule ? s->rule : "no rule", split, fell);
    }
}

static void text_profile(int fd, const struct place_gathered *g)
{
    if (!g->nprofile)
        return;
    char every[PLACE_SIZE_STR];
    if (g->sample)
        place_line(fd, "allocation sites, sampled every %s asked on average (estimates; "
                       "sample = all counts every one), top %u of %u:",
                   place_size_str(every, (int64_t)g->sample), g->nprofile, g->total_profile);
    else
        place_line(fd, "allocation sites, every allocation (sample = all), top %u of %u:",
                   g->nprofile, g->total_profile);
    place_line(fd, "  %10s %10s %10s %10s %10s  %s", "bytes", "calls", "live", "peak", "mean",
               "site (first frame past the allocation wrappers)");
    for (unsigned k = 0; k < g->nprofile; k++) {
        const struct place_profile_site *p = &g->profile[k];
        const struct place_profile_row *r = &p->r;
        char where[600], split[PLACE_MAX_TIERS * (PLACE_NAME_MAX + PLACE_SIZE_STR + 4)] = "";
        struct place_buf b = PLACE_BUF(where), t = PLACE_BUF(split);
        if (!r->n)
            place_bprintf(&b, "(other sites: the profile's table was full)");
        else
            where_text(&b, p->frames[0].symbol, p->frames[0].site);
        if (r->tier_bytes[0] < r->bytes) /* where its blocks went, when not dram alone */
            tiers_text(&t, g, r->tier_bytes);
        char bytes[PLACE_SIZE_STR], live[PLACE_SIZE_STR], peak[PLACE_SIZE_STR],
            mean[PLACE_SIZE_STR];
        place_line(fd, "  %10s %10llu %10s %10s %10s  %s%s%s", place_size_str(bytes, (int64_t)r->bytes),
                   (unsigned long long)r->calls, place_size_str(live, (int64_t)r->live),
                   place_size_str(peak, (int64_t)r->peak), place_size_str(mean, (int64_t)r->mean),
                   where, t.len ? " -> " : "", split);
    }
    if (g->lost)
        place_line(fd, "%llu samples could not be kept (no memory for the table): their frees "
                       "are not seen, so live bytes are overstated",
                   (unsigned long long)g->lost);
}

/* "1 call", "2 calls" */
static const char *s_unless_one(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static void text_symmetric(int fd, const struct place_gathered *g)
{
    if (!g->symmetric)
        return;
    const struct place_symmetric_stats *s = &g->shmem;
    char peak[PLACE_SIZE_STR], used[PLACE_SIZE_STR];
    uint64_t size = place_symmetric_suggested((uint64_t)g->heap->s.peak);
    place_line(fd,
               "symmetric heap: %llu call%s, peak %s (SHMEM_SYMMETRIC_SIZE=%lluM would hold "
               "it), in use %s, decisions %016llx",
               (unsigned long long)s->calls, s_unless_one(s->calls),
               place_size_str(peak, g->heap->s.peak), (unsigned long long)(size >> 20),
               place_size_str(used, g->heap->s.bytes), (unsigned long long)s->digest);
    for (unsigned k = 0; k < g->ntiers; k++)
        if (s->binds[k])
            place_line(fd, "symmetric heap: pages bound to %s: %llu block%s in all, %llu now (%s)",
                       g->nodes[k].name, (unsigned long long)s->binds[k],
                       s_unless_one(s->binds[k]), (unsigned long long)s->blocks[k],
                       place_size_str(used, (int64_t)s->bytes[k]));
    if (s->refused || s->unbindable)
        place_line(fd,
                   "symmetric heap: %llu call%s refused by the symmetric tier's limit; %llu "
                   "binding%s refused by the kernel (mbind)",
                   (unsigned long long)s->refused, s_unless_one(s->refused),
                   (unsigned long long)s->unbindable, s_unless_one(s->unbindable));
}

void place_report_text(int fd, const struct place_gathered *g)
{
    text_header(fd, g);
    text_nodes(fd, g);
    text_symmetric(fd, g);
    text_rules(fd, g);
    text_sites(fd, g);
    text_profile(fd, g);
}

