#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../config/options.h"
#include "../shim/thread.h"
#include "fmt.h"
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

static void report_policy(int fd)
{
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

static void report_tiers(int fd)
{
    place_line(fd, "%-10s %12s %12s %12s %12s %12s", "tier", "allocations", "frees", "bytes now",
               "peak bytes", "limit");
    for (struct place_tier **tp = place_tiers; *tp; tp++) {
        struct place_tier *t = *tp;
        struct place_snapshot s =
            t == &place_dram ? place_threads_dram() : place_stats_snapshot(&t->stats, NULL);
        char now_s[PLACE_SIZE_STR], peak_s[PLACE_SIZE_STR], limit_s[PLACE_SIZE_STR] = "none";
        if (t->limit)
            place_size_str(limit_s, (int64_t)t->limit);
        place_line(fd, "%-10s %12llu %12llu %12s %12s %12s", t->name, (unsigned long long)s.allocs,
                   (unsigned long long)s.frees, place_size_str(now_s, s.bytes),
                   place_size_str(peak_s, s.peak), limit_s);
    }
    for (struct place_tier **tp = place_tiers; *tp; tp++) {
        struct place_tier *t = *tp;
        size_t total, free;
        uint64_t refused = atomic_load(&t->stats.refused), skipped = atomic_load(&t->stats.skipped);
        if (t->unavailable && !place_dry_run)
            place_line(fd, "%s: unavailable: %s; %llu request%s skipped it", t->name,
                       t->unavailable, (unsigned long long)skipped, skipped == 1 ? "" : "s");
        else if (t->unavailable)
            place_line(fd, "%s: planned (this machine: %s)", t->name, t->unavailable);
        else if (t->ops->stats(t, &total, &free) == 0) {
            char total_s[PLACE_SIZE_STR], free_s[PLACE_SIZE_STR];
            place_line(fd, "%s: %s on this machine, %s free", t->name,
                       place_size_str(total_s, (int64_t)total),
                       place_size_str(free_s, (int64_t)free));
        }
        if (refused)
            place_line(fd, "%s: its limit sent %llu request%s on down the chain", t->name,
                       (unsigned long long)refused, refused == 1 ? "" : "s");
    }
    char batch_s[PLACE_SIZE_STR];
    place_line(fd, "dram counts what glibc served; its peak is exact to within %s per thread",
               place_size_str(batch_s, PLACE_STATS_BATCH));
}

static void report_rules(int fd)
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
        if (r->on_full == PLACE_FAIL)
            place_bprintf(&b, " (on_full = fail)");
        place_line(fd, "%-20s %12llu %14s  %s", r->name,
                   (unsigned long long)atomic_load(&place_rules[k].stats.hits),
                   place_size_str(bytes_s, (int64_t)atomic_load(&place_rules[k].stats.bytes)),
                   chain);
    }
}

/* Symbolizing reads symbol tables, which may allocate (the module table): with the guard
 * up that is glibc's business, not a placed allocation. */
static void report_sites(int fd)
{
    const unsigned want = place_config.sites;
    struct place_site_count top[PLACE_MAX_SITES];
    unsigned total = 0, n = want ? place_sites_top(top, want, &total) : 0;
    if (!n)
        return;
    place_line(fd, "top %u site%s by bytes asked, of %u:", n, n == 1 ? "" : "s", total);
    uint8_t was = place_guard_enter();
    for (unsigned k = 0; k < n; k++) {
        char where[512], exact[256] = "", bytes_s[PLACE_SIZE_STR];
        if (top[k].ra) {
            place_modules_symbolize(top[k].ra, where, sizeof where);
            place_modules_site(top[k].ra, exact, sizeof exact);
            if (strcmp(exact, where) == 0) /* no symbol: the exact form says it all */
                exact[0] = 0;
        } else {
            strcpy(where, "(other sites)");
        }
        place_line(fd, "  %10s %9llu x  %s%s%s%s  %s -> %s",
                   place_size_str(bytes_s, (int64_t)top[k].bytes),
                   (unsigned long long)top[k].allocs, where, *exact ? " (" : "", exact,
                   *exact ? ")" : "",
                   top[k].rule >= 0 ? place_rules[top[k].rule].config->name : "no rule",
                   top[k].tier >= 0 ? place_tiers[top[k].tier]->name : "?");
    }
    place_guard_leave(was);
}

void place_report(int fd)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (long long)(now.tv_sec - place_run.start.tv_sec) * 1000 +
                   (now.tv_nsec - place_run.start.tv_nsec) / 1000000;
    uint64_t threads;
    unsigned running;
    place_threads_census(&threads, &running);

    char origin[48] = "";
    if (place_run.forked_from) {
        struct place_buf o = PLACE_BUF(origin);
        place_bprintf(&o, ", forked from pid %d", (int)place_run.forked_from);
    }
    place_line(
        fd, "report of pid %d (%s)%s, %lld.%03lld s, allocations from %llu thread%s (%u at exit)",
        (int)getpid(), program_invocation_short_name, origin, ms / 1000, ms % 1000,
        (unsigned long long)threads, threads == 1 ? "" : "s", running);
    report_policy(fd);
    report_tiers(fd);
    report_rules(fd);
    report_sites(fd);
}

void place_report_to(const char *dest)
{
    if (strcmp(dest, "stderr") == 0) {
        place_report(place_stderr());
        return;
    }
    char path[PATH_MAX];
    if (place_report_path(dest, path, sizeof path) != 0) {
        place_warn(
            "report path '%s' does not expand to a usable path; the report follows on stderr",
            dest);
        place_report(place_stderr());
        return;
    }
    int saved = errno;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        struct stat st;
        const char *reason = errno == EEXIST && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)
                                 ? "it is a symbolic link, which libplace does not follow"
                                 : why(errno);
        place_warn("cannot create report %s: %s; the report follows on stderr", path, reason);
        place_report(place_stderr());
    } else {
        place_report(fd);
        close(fd);
    }
    errno = saved;
}
