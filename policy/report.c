#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../config/options.h"
#include "../shim/thread.h"
#include "fmt.h"
#include "gather.h"
#include "modules.h"
#include "out.h"
#include "place.h"
#include "tier.h"

extern char *program_invocation_short_name;

/* The reason a report file could not be created, without strerror (which may load a
 * message catalogue, and so allocate). */
static const char *why(int err)
{
    switch (err) {
    case EEXIST:
        return "the file exists and libplace never overwrites one";
    case ENOENT:
        return "its directory does not exist";
    case ENOTDIR:
        return "a part of the path is not a directory";
    case EACCES:
    case EPERM:
        return "permission denied";
    case ELOOP:
        return "the path has too many symbolic links";
    case EROFS:
        return "the file system is read-only";
    case ENOSPC:
        return "the disk is full";
    case ENAMETOOLONG:
        return "the path is too long";
    default:
        return strerrorname_np(err) ? strerrorname_np(err) : "unknown error";
    }
}

static void text_header(int fd, const struct place_gathered *g)
{
    char origin[48] = "", asked[48] = "";
    if (place_run.forked_from) {
        struct place_buf o = PLACE_BUF(origin);
        place_bprintf(&o, ", forked from pid %d", (int)place_run.forked_from);
    }
    if (g->signal) {
        struct place_buf a = PLACE_BUF(asked);
        place_bprintf(&a, ", asked for by SIG%s", sigabbrev_np(g->signal));
    }
    place_line(fd,
               "report of pid %d (%s)%s%s, %llu.%03llu s, allocations from %llu thread%s (%u %s)",
               (int)getpid(), program_invocation_short_name, origin, asked,
               (unsigned long long)(g->ms / 1000), (unsigned long long)(g->ms % 1000),
               (unsigned long long)g->threads, g->threads == 1 ? "" : "s", g->running,
               g->signal ? "running" : "at exit");
    const struct place_policy *p = &place_config;
    if (!p->nrules) {
        place_line(fd, "no policy: every allocation is glibc's");
        return;
    }
    bool inline_rules = p->rules[0].at.in_rule;
    place_line(fd, "policy %s%s, %u rule%s, text hash %016llx", *p->file ? p->file : "",
               inline_rules ? (*p->file ? " after LIBPLACE_RULES" : "LIBPLACE_RULES") : "",
               p->nrules, p->nrules == 1 ? "" : "s", (unsigned long long)p->hash);
    if (place_dry_run)
        place_line(fd, "DRY RUN: every tier the policy declares is planned for as if this machine "
                       "had it; the memory itself came from dram, and a planned tier's figures "
                       "are the bytes asked of it");
}

static bool pressed(const struct place_node_row *n)
{
    return n->refused || n->fallbacks_in || n->waits || n->overflow || n->failures ||
           n->reclaimed || n->skipped;
}

static void text_nodes(int fd, const struct place_gathered *g)
{
    place_line(fd, "%-12s %-8s %10s %10s %10s %12s %12s", "tier", "kind", "limit", "in use", "peak",
               "allocations", "frees");
    bool any_pressure = false;
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        const char *kind = n->t->config ? place_kind_name(n->t->config->kind) : "dram";
        char limit[PLACE_SIZE_STR] = "none", now[PLACE_SIZE_STR], peak[PLACE_SIZE_STR];
        if (n->t->limit)
            place_size_str(limit, (int64_t)n->t->limit);
        place_line(fd, "%-12s %-8s %10s %10s %10s %12llu %12llu", n->t->name, kind, limit,
                   place_size_str(now, n->bytes), place_size_str(peak, n->peak),
                   (unsigned long long)n->allocs, (unsigned long long)n->frees);
        any_pressure |= pressed(n);
    }
    if (any_pressure) {
        place_line(fd, "%-12s %8s %8s %8s %7s %8s %10s %8s %10s %8s", "tier", "refused", "fb out",
                   "fb in", "waits", "waited", "overflow", "failures", "reclaimed", "skipped");
        for (unsigned k = 0; k < g->ntiers; k++) {
            const struct place_node_row *n = &g->nodes[k];
            if (!pressed(n))
                continue;
            char over[PLACE_SIZE_STR], recl[PLACE_SIZE_STR], waited[24];
            struct place_buf w = PLACE_BUF(waited);
            uint64_t ms = n->wait_ns / 1000000;
            place_bprintf(&w, "%llu.%03llus", (unsigned long long)(ms / 1000),
                          (unsigned long long)(ms % 1000));
            place_line(fd, "%-12s %8llu %8llu %8llu %7llu %8s %10s %8llu %10s %8llu", n->t->name,
                       (unsigned long long)n->refused, (unsigned long long)n->fallbacks_out,
                       (unsigned long long)n->fallbacks_in, (unsigned long long)n->waits, waited,
                       place_size_str(over, (int64_t)n->overflow), (unsigned long long)n->failures,
                       place_size_str(recl, (int64_t)n->reclaimed), (unsigned long long)n->skipped);
        }
    }
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_node_row *n = &g->nodes[k];
        if (n->t->unavailable && !place_dry_run)
            place_line(fd, "%s: unavailable: %s; %llu request%s skipped it", n->t->name,
                       n->t->unavailable, (unsigned long long)n->skipped,
                       n->skipped == 1 ? "" : "s");
        else if (n->t->unavailable)
            place_line(fd, "%s: planned (this machine: %s)", n->t->name, n->t->unavailable);
        else if (n->machine) {
            char total[PLACE_SIZE_STR], free[PLACE_SIZE_STR];
            place_line(fd, "%s: %s on this machine, %s free", n->t->name,
                       place_size_str(total, (int64_t)n->total),
                       place_size_str(free, (int64_t)n->free));
        }
    }
    for (unsigned k = 0; k < g->ntiers; k++) {
        const struct place_verified *v = &g->nodes[k].verified;
        if (!g->nodes[k].checked)
            continue;
        uint64_t permille = v->looked ? v->placed * 1000 / v->looked : 0;
        place_line(fd, "%s: %llu.%llu%% of %s%llu resident page%s on its nodes (move_pages)%s",
                   g->nodes[k].t->name, (unsigned long long)(permille / 10),
                   (unsigned long long)(permille % 10), v->all ? "all " : "",
                   (unsigned long long)(v->all ? v->looked : v->resident),
                   v->resident == 1 ? "" : "s",
                   v->all || v->looked == v->resident ? "" : ", from a sample");
    }
    char batch[PLACE_SIZE_STR];
    place_line(fd, "dram counts what glibc served; its peak is exact to within %s per thread",
               place_size_str(batch, PLACE_STATS_BATCH));
}

static void text_rules(int fd)
{
    if (!place_nrules)
        return;
    place_line(fd, "%-20s %12s %14s  %s", "rule", "hits", "bytes asked", "chain");
    for (unsigned k = 0; k < place_nrules; k++) {
        const struct place_rule_config *r = place_rules[k].config;
        char bytes_s[PLACE_SIZE_STR], chain[PLACE_MAX_CHAIN * PLACE_NAME_MAX + 32];
        struct place_buf b = PLACE_BUF(chain);
        for (unsigned j = 0; j < r->nchain; j++)
            place_bprintf(&b, "%s%s", j ? ", " : "", r->chain_text[j]);
        if (r->on_full != PLACE_FALLBACK)
            place_bprintf(&b, " (on_full = %s)", place_on_full_name(r->on_full));
        place_line(fd, "%-20s %12llu %14s  %s", r->name,
                   (unsigned long long)atomic_load(&place_rules[k].stats.hits),
                   place_size_str(bytes_s, (int64_t)atomic_load(&place_rules[k].stats.bytes)),
                   chain);
    }
}

/* Symbolizing reads symbol tables, which may allocate (the module table): with the guard
 * up that is glibc's business, not a placed allocation. */
static void text_sites(int fd, const struct place_gathered *g)
{
    if (!g->nsites)
        return;
    place_line(fd, "top %u site%s by bytes asked, of %u:", g->nsites, g->nsites == 1 ? "" : "s",
               g->total_sites);
    uint8_t was = place_guard_enter();
    for (unsigned k = 0; k < g->nsites; k++) {
        const struct place_site_row *s = &g->sites[k];
        struct place_where w = {.site = "(other sites)"};
        if (s->ra)
            place_modules_where(s->ra, &w, !g->signal);
        char where[800], split[PLACE_MAX_TIERS * (PLACE_NAME_MAX + PLACE_SIZE_STR + 4)];
        struct place_buf b = PLACE_BUF(where), t = PLACE_BUF(split);
        if (*w.symbol)
            place_bprintf(&b, "%s (%s)", w.symbol, w.site);
        else
            place_bprintf(&b, "%s", w.site);
        for (unsigned i = 0; i < g->ntiers; i++)
            if (s->tier_allocs[i]) {
                char bytes[PLACE_SIZE_STR];
                place_bprintf(&t, "%s%s %s", t.len ? ", " : "", place_tiers[i]->name,
                              place_size_str(bytes, (int64_t)s->tier_bytes[i]));
            }
        char bytes[PLACE_SIZE_STR], fell[40] = "";
        if (s->fallbacks) {
            struct place_buf f = PLACE_BUF(fell);
            place_bprintf(&f, "; %llu fell back", (unsigned long long)s->fallbacks);
        }
        place_line(fd, "  %10s %9llu x  %s  %s -> %s%s", place_size_str(bytes, (int64_t)s->bytes),
                   (unsigned long long)s->allocs, where,
                   s->rule >= 0 ? place_rules[s->rule].config->name : "no rule", split, fell);
    }
    place_guard_leave(was);
}

static void report_text(int fd, const struct place_gathered *g)
{
    text_header(fd, g);
    text_nodes(fd, g);
    text_rules(fd);
    text_sites(fd, g);
}

/* One report at a time: the gathered figures are one static table. A report from a
 * signal handler skips when another is being written (it may have interrupted that very
 * one); any other waits its turn. */
static _Atomic bool busy;

static bool take_turn(int signal)
{
    while (atomic_exchange(&busy, true)) {
        if (signal)
            return false;
        sched_yield();
    }
    return true;
}

static void report(int fd, int signal)
{
    static struct place_gathered g;
    place_gather(&g, signal);
    if (place_config.report_format == PLACE_REPORT_JSON)
        place_report_json(fd, &g);
    else
        report_text(fd, &g);
}

/* A report asked for while the program runs (a signal, place_report_now) goes to a file
 * of its own: the path with .N appended (N counts them), so that neither it nor the exit
 * report clobbers the other. */
static void write_to(const char *dest, int signal, bool numbered);

static void report_to(const char *dest, int signal, bool numbered)
{
    if (!take_turn(signal))
        return;
    write_to(dest, signal, numbered);
    atomic_store(&busy, false);
}

static void write_to(const char *dest, int signal, bool numbered)
{
    if (strcmp(dest, "stderr") == 0) {
        report(place_stderr(), signal);
        return;
    }
    char path[PATH_MAX];
    if (place_report_path(dest, path, sizeof path) != 0) {
        place_warn(
            "report path '%s' does not expand to a usable path; the report follows on stderr",
            dest);
        report(place_stderr(), signal);
        return;
    }
    if (numbered) {
        static _Atomic unsigned seq;
        struct place_buf b = {.s = path, .len = strlen(path), .cap = sizeof path};
        place_bprintf(&b, ".%u", atomic_fetch_add(&seq, 1) + 1);
    }
    int saved = errno;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        struct stat st;
        const char *reason = errno == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)
                                 ? "it is a symbolic link, which libplace does not follow"
                                 : why(errno);
        place_warn("cannot create report %s: %s; the report follows on stderr", path, reason);
        report(place_stderr(), signal);
    } else {
        report(fd, signal);
        close(fd);
    }
    errno = saved;
}

void place_report_to(const char *dest)
{
    report_to(dest, 0, false);
}

void place_report_numbered(const char *dest)
{
    report_to(dest, 0, true);
}

/* Writing from a signal handler: nothing in the report allocates through the shim or
 * touches stdio, and the module table is only tried (a thread the signal interrupted may
 * hold it; then sites are shown as addresses). */
static void on_signal(int sig)
{
    if (place_options.report)
        report_to(place_options.report, sig, true);
}

void place_report_on_signal(int sig)
{
    static int installed;
    static struct sigaction before;
    if (!sig) {
        if (installed)
            sigaction(installed, &before, NULL);
        installed = 0;
        return;
    }
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &before) == 0)
        installed = sig;
}
