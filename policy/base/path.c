#include "path.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fmt.h"

struct place_run place_run;

void place_run_mark_start(pid_t forked_from)
{
    clock_gettime(CLOCK_MONOTONIC, &place_run.start);
    place_run.wall = time(NULL);
    place_run.forked_from = forked_from;
}

const char *place_mpi_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                       "SLURM_PROCID"};
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        const char *v = getenv(vars[k]);
        if (v && *v)
            return v;
    }
    return NULL;
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
            place_bprintf(&b, "%s", place_mpi_rank() ? place_mpi_rank() : "0");
            break;
        case 't':
            utc_stamp(&b, place_run.wall);
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
