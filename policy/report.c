#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../shim/thread.h"
#include "fmt.h"
#include "out.h"
#include "tier.h"

extern char *program_invocation_short_name;

static struct {
    struct timespec start; /* CLOCK_MONOTONIC */
    time_t wall;
    pid_t forked_from;
} run;

void place_report_mark_start(pid_t forked_from)
{
    clock_gettime(CLOCK_MONOTONIC, &run.start);
    run.wall = time(NULL);
    run.forked_from = forked_from;
}

static const char *mpi_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                       "SLURM_PROCID"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        const char *v = getenv(vars[k]);
        if (v && *v)
            return v;
    }
    return "0";
}

/* The time as 20261121T054300Z. Not gmtime_r: its first call sets up glibc's time zone
 * state from TZ, which the program may not have set yet, and allocates while at it.
 * The date is Howard Hinnant's days-to-civil algorithm. */
static void utc_stamp(struct place_buf *b, time_t t)
{
    long long days = (long long)t / 86400, secs = (long long)t % 86400;
    if (secs < 0) {
        secs += 86400;
        days--;
    }
    long long z = days + 719468;
    long long era = (z >= 0 ? z : z - 146096) / 146097;
    long long doe = z - era * 146097;
    long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long long mp = (5 * doy + 2) / 153;
    long long day = doy - (153 * mp + 2) / 5 + 1;
    long long month = mp < 10 ? mp + 3 : mp - 9;
    long long year = yoe + era * 400 + (month <= 2);
    place_bprintf(b, "%04lld%02lld%02lldT%02lld%02lld%02lldZ", year, month, day, secs / 3600,
                  secs / 60 % 60, secs % 60);
}

int place_report_path(const char *tmpl, char *out, size_t cap)
{
    char scratch[PATH_MAX];
    struct place_buf b = out ? (struct place_buf){.s = out, .cap = cap} : PLACE_BUF(scratch);
    if (b.cap == 0 || !*tmpl)
        return -1;
    b.s[0] = '\0';
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%') {
            place_bprintf(&b, "%c", *p);
            continue;
        }
        switch (*++p) {
        case 'p':
            place_bprintf(&b, "%d", (int)getpid());
            break;
        case 'h': {
            char host[256];
            if (gethostname(host, sizeof host) != 0)
                strcpy(host, "unknown-host");
            host[sizeof host - 1] = '\0';
            place_bprintf(&b, "%s", host);
            break;
        }
        case 'r':
            place_bprintf(&b, "%s", mpi_rank());
            break;
        case 't':
            utc_stamp(&b, run.wall);
            break;
        case '%':
            place_bprintf(&b, "%%");
            break;
        default: /* an unknown token, or a lone % at the end */
            return -1;
        }
    }
    return b.cut ? -1 : 0;
}

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

void place_report(int fd)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (long long)(now.tv_sec - run.start.tv_sec) * 1000 +
                   (now.tv_nsec - run.start.tv_nsec) / 1000000;
    uint64_t threads;
    unsigned running;
    place_threads_census(&threads, &running);

    char origin[48] = "";
    if (run.forked_from) {
        struct place_buf o = PLACE_BUF(origin);
        place_bprintf(&o, ", forked from pid %d", (int)run.forked_from);
    }
    place_line(
        fd, "report of pid %d (%s)%s, %lld.%03lld s, allocations from %llu thread%s (%u at exit)",
        (int)getpid(), program_invocation_short_name, origin, ms / 1000, ms % 1000,
        (unsigned long long)threads, threads == 1 ? "" : "s", running);
    place_line(fd, "%-8s %14s %14s %12s %12s", "tier", "allocations", "frees", "bytes now",
               "peak bytes");

    for (struct place_tier *const *tp = place_tiers; *tp; tp++) {
        struct place_tier *t = *tp;
        struct place_snapshot s =
            t == &place_dram ? place_threads_dram() : place_stats_snapshot(&t->stats, NULL);
        char now_s[PLACE_SIZE_STR], peak_s[PLACE_SIZE_STR];
        place_line(fd, "%-8s %14llu %14llu %12s %12s", t->name, (unsigned long long)s.allocs,
                   (unsigned long long)s.frees, place_size_str(now_s, s.bytes),
                   place_size_str(peak_s, s.peak));
    }

    for (struct place_tier *const *tp = place_tiers; *tp; tp++) {
        struct place_tier *t = *tp;
        size_t total, free;
        if (t->unavailable)
            place_line(fd, "%s: unavailable: %s", t->name, t->unavailable);
        else if (t->ops->stats(t, &total, &free) == 0) {
            char total_s[PLACE_SIZE_STR], free_s[PLACE_SIZE_STR];
            place_line(fd, "%s: %s on this machine, %s free", t->name,
                       place_size_str(total_s, (int64_t)total),
                       place_size_str(free_s, (int64_t)free));
        }
    }
    char batch_s[PLACE_SIZE_STR];
    place_line(fd, "dram counts what glibc served; its peak is exact to within %s per thread",
               place_size_str(batch_s, PLACE_STATS_BATCH));
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
