/* The one walk of a gathered snapshot, in the report's order: JSON's keys as the schema
 * lists them, the text's lines each in its part (walk_parts.h), both from one visit of
 * each thing. Here the process, the policy, the rules and the symmetric heap; the tiers
 * and the sites have files of their own. */
#include "walk.h"

#include <string.h> /* sigabbrev_np */

#include "../../config/values.h"
#include "../base/fmt.h"
#include "../base/large.h"
#include "../engine/fold.h"
#include "walk_parts.h"

static void process(struct place_emit *e, const struct place_gathered *g)
{
    const char *sig = g->signal ? sigabbrev_np(g->signal) : NULL;
    place_emit_str(e, "schema", "libplace-report");
    place_emit_int(e, "version", 2);
    place_emit_int(e, "pid", g->pid);
    place_emit_uint_or_null(e, "forked_from", g->forked_from, (uint64_t)g->forked_from);
    place_emit_str(e, "program", g->program);
    place_emit_str(e, "host", g->host);
    place_emit_str(e, "rank", g->rank);
    place_emit_str(e, "start", g->start);
    place_emit_milli(e, "seconds", g->ms);
    place_emit_str(e, "signal", g->fatal ? NULL : sig);
    place_emit_str(e, "ended_by", g->fatal ? sig : NULL);
    place_emit_open(e, "threads", '{');
    place_emit_uint(e, "allocating", g->threads);
    place_emit_uint(e, "at_exit", g->running);
    place_emit_close(e, '}');

    char origin[48] = "", asked[48] = "";
    if (g->forked_from) {
        struct place_buf o = PLACE_BUF(origin);
        place_bprintf(&o, ", forked from pid %d", (int)g->forked_from);
    }
    if (g->signal) {
        struct place_buf a = PLACE_BUF(asked);
        place_bprintf(&a, ", %s SIG%s", g->fatal ? "ended by" : "asked for by", sig);
    }
    place_emit_line(
        e, PART_NOW,
        "report of pid %d (%s)%s%s, %llu.%03llu s, allocations from %llu thread%s (%u %s)",
        (int)g->pid, g->program, origin, asked, (unsigned long long)(g->ms / 1000),
        (unsigned long long)(g->ms % 1000), (unsigned long long)g->threads,
        place_plural_s(g->threads), g->running, g->signal ? "running" : "at exit");
}

static void policy(struct place_emit *e, const struct place_gathered *g)
{
    char hash[17];
    struct place_buf h = PLACE_BUF(hash);
    place_bprintf(&h, "%016llx", (unsigned long long)g->hash);
    place_emit_open(e, "policy", '{');
    place_emit_str(e, "file", g->file);
    place_emit_bool(e, "inline_rules", g->inline_rules);
    place_emit_uint(e, "rules", g->nrules);
    place_emit_str(e, "hash", hash);
    place_emit_bool(e, "dry_run", g->dry_run);
    place_emit_uint(e, "fold_min", g->fold_min);
    place_emit_close(e, '}');

    if (!g->nrules) {
        place_emit_line(e, PART_NOW,
                        "no rules: every allocation stays with its own allocator (glibc, "
                        "the CUDA driver, the SHMEM library)");
        return;
    }
    const char *file = g->file ? g->file : "";
    place_emit_line(e, PART_NOW, "policy %s%s, %u rule%s, text hash %s", file,
                    g->inline_rules ? (*file ? " after LIBPLACE_RULES" : "LIBPLACE_RULES") : "",
                    g->nrules, place_plural_s(g->nrules), hash);
    if (g->dry_run)
        place_emit_line(e, PART_NOW,
                        "DRY RUN: every tier the policy declares is planned for as if this "
                        "machine had it; the memory itself came from dram, and a planned "
                        "tier's figures are the bytes asked of it");
    char min[PLACE_SIZE_STR], buffer[PLACE_SIZE_STR];
    if (g->fold_min)
        place_emit_line(e, PART_NOW,
                        "FOLDED: planned blocks of %s or more share one %s buffer, so they "
                        "take almost no memory; what the program wrote in them is garbage",
                        place_size_str(min, (int64_t)g->fold_min),
                        place_size_str(buffer, PLACE_FOLD_BUFFER));
}

/* A rule's site patterns, and whether each named code in some module loaded. */
static void sites(struct place_emit *e, const struct place_gathered *g,
                  const struct place_rule_row *r)
{
    char text[2 * PLACE_PATTERN_MAX];
    place_emit_open(e, "sites", '[');
    for (uint64_t w = r->sites; w; w &= w - 1) {
        unsigned k = (unsigned)__builtin_ctzll(w);
        place_emit_open(e, NULL, '{');
        place_emit_str(e, "pattern", place_pattern_text(&g->patterns[k], text, sizeof text));
        place_emit_bool(e, "resolved", !(r->unresolved >> k & 1));
        place_emit_close(e, '}');
    }
    place_emit_close(e, ']');
}

/* Under the text's table, a line for each site pattern that named no code: no block can
 * match it. */
static void unresolved_lines(struct place_emit *e, const struct place_gathered *g,
                             const struct place_rule_row *r)
{
    const char *cannot = r->unresolved == r->sites ? ", so the rule cannot match" : "";
    char text[2 * PLACE_PATTERN_MAX];
    for (uint64_t w = r->unresolved; w; w &= w - 1) {
        const struct place_pattern *pat = &g->patterns[__builtin_ctzll(w)];
        place_pattern_text(pat, text, sizeof text);
        if (pat->exact)
            place_emit_line(e, PART_RULES, "%s: site %s lies in no module loaded%s", r->name,
                            text, cannot);
        else
            place_emit_line(e, PART_RULES,
                            "%s: site %s names no function of the modules loaded%s (a stripped "
                            "module's static functions have no names: MODULE+0xOFFSET names "
                            "their code, as the sites table writes it)",
                            r->name, text, cannot);
    }
}

static void rules(struct place_emit *e, const struct place_gathered *g)
{
    if (g->nrules)
        place_emit_line(e, PART_RULES, "%-20s %12s %14s  %s", "rule", "hits", "bytes asked",
                        "chain");
    place_emit_open(e, "rules", '[');
    for (unsigned k = 0; k < g->nrules; k++) {
        const struct place_rule_row *r = &g->rules[k];
        const char *on_full = place_on_full_name(r->on_full);
        char bytes[PLACE_SIZE_STR], chain[PLACE_MAX_CHAIN * PLACE_NAME_MAX + 32];
        struct place_buf b = PLACE_BUF(chain);
        place_emit_open(e, NULL, '{');
        place_emit_str(e, "name", r->name);
        place_emit_uint(e, "hits", r->hits);
        place_emit_uint(e, "bytes", r->bytes);
        place_emit_open(e, "chain", '[');
        for (unsigned c = 0; c < r->nchain; c++) {
            place_emit_str(e, NULL, r->chain[c]);
            place_bprintf(&b, "%s%s", c ? ", " : "", r->chain[c]);
        }
        place_emit_close(e, ']');
        place_emit_str(e, "on_full", on_full);
        if (r->sites)
            sites(e, g, r);
        place_emit_close(e, '}');
        if (r->on_full != PLACE_FALLBACK)
            place_bprintf(&b, " (on_full = %s)", on_full);
        place_emit_line(e, PART_RULES, "%-20s %12llu %14s  %s", r->name,
                        (unsigned long long)r->hits, place_size_str(bytes, (int64_t)r->bytes),
                        chain);
    }
    place_emit_close(e, ']');
    for (unsigned k = 0; k < g->nrules; k++)
        unresolved_lines(e, g, &g->rules[k]);
}

static void symmetric(struct place_emit *e, const struct place_gathered *g)
{
    if (!g->symmetric)
        return;
    const struct place_symmetric_stats *s = &g->shmem;
    const struct place_node_row *heap = g->heap;
    uint64_t size = place_symmetric_suggested((uint64_t)heap->s.peak);
    char digest[17], peak[PLACE_SIZE_STR], used[PLACE_SIZE_STR];
    struct place_buf d = PLACE_BUF(digest);
    place_bprintf(&d, "%016llx", (unsigned long long)s->digest);
    place_emit_open(e, "symmetric", '{');
    place_emit_str(e, "tier", heap->name);
    place_emit_uint(e, "calls", s->calls);
    place_emit_str(e, "digest", digest);
    place_emit_uint(e, "refused", s->refused);
    place_emit_uint(e, "unbindable", s->unbindable);
    place_emit_int(e, "peak", heap->s.peak);
    place_emit_int(e, "in_use", heap->s.bytes);
    place_emit_uint(e, "suggested_size", size);
    place_emit_line(e, PART_SYMMETRIC,
                    "symmetric heap: %llu call%s, peak %s (SHMEM_SYMMETRIC_SIZE=%lluM would hold "
                    "it), in use %s, decisions %s",
                    (unsigned long long)s->calls, place_plural_s(s->calls),
                    place_size_str(peak, heap->s.peak), (unsigned long long)(size >> 20),
                    place_size_str(used, heap->s.bytes), digest);
    place_emit_open(e, "bound", '[');
    for (unsigned k = 0; k < g->ntiers; k++)
        if (s->binds[k]) {
            place_emit_open(e, NULL, '{');
            place_emit_str(e, "tier", g->nodes[k].name);
            place_emit_uint(e, "blocks", s->blocks[k]);
            place_emit_uint(e, "bytes", s->bytes[k]);
            place_emit_uint(e, "binds", s->binds[k]);
            place_emit_close(e, '}');
            place_emit_line(e, PART_SYMMETRIC,
                            "symmetric heap: pages bound to %s: %llu block%s in all, %llu now (%s)",
                            g->nodes[k].name, (unsigned long long)s->binds[k],
                            place_plural_s(s->binds[k]), (unsigned long long)s->blocks[k],
                            place_size_str(used, (int64_t)s->bytes[k]));
        }
    place_emit_close(e, ']');
    place_emit_close(e, '}');
    if (s->refused || s->unbindable)
        place_emit_line(e, PART_SYMMETRIC,
                        "symmetric heap: %llu call%s refused by the symmetric tier's limit; %llu "
                        "binding%s refused by the kernel (mbind)",
                        (unsigned long long)s->refused, place_plural_s(s->refused),
                        (unsigned long long)s->unbindable, place_plural_s(s->unbindable));
}
void place_report_walk(int fd, enum place_report_format form, const struct place_gathered *g)
{
    static struct place_emit e PLACE_LARGE; /* large, and a signal handler's stack may be small */
    place_emit_begin(&e, form, fd);
    process(&e, g);
    policy(&e, g);
    place_walk_nodes(&e, g);
    rules(&e, g);
    symmetric(&e, g);
    place_emit_held(&e);
    place_walk_sites(&e, g);
    place_walk_profile(&e, g);
    place_emit_end(&e);
}
