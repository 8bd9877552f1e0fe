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

/* The first of vars that is set and not empty, or NULL. */
static const char *first_set(const char *const *vars, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        const char *v = getenv(vars[k]);
        if (v && *v)
            return v;
    }
    return NULL;
}

const char *place_mpi_rank(void)
{
    /* the MPI launchers' own first: srun sets SLURM_PROCID for whatever it starts,
     * mpirun included */
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                       "MV2_COMM_WORLD_RANK", "ALPS_APP_PE", "SLURM_PROCID"};
    return first_set(vars, sizeof vars / sizeof vars[0]);
}

const char *place_job_id(void)
{
    static const char *const vars[] = {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"};
    return first_set(vars, sizeof vars / sizeof vars[0]);
}

void place_path_component(struct place_buf *b, const char *v)
{
    for (; *v; v++)
        place_bprintf(b, "%c", *v == '/' ? '_' : *v);
}

/* Whether c may be in a variable's name (not locale-dependent, unlike isalnum). */
static bool name_char(char c)
{
    return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* %q{NAME}: the length of "{NAME}" at p, or 0 when it is not one (NAME: letters, digits
 * and _, not starting with a digit). */
static size_t variable(const char *p)
{
    if (*p != '{' || !name_char(p[1]) || (p[1] >= '0' && p[1] <= '9'))
        return 0;
    size_t k = 1;
    while (name_char(p[k]))
        k++;
    return p[k] == '}' && k < 128 ? k + 1 : 0;
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
        case 'r': {
            const char *rank = place_mpi_rank();
            place_bprintf(&b, "%s", rank ? rank : "0");
            break;
        }
        case 't':
            utc_stamp(&b, place_run.wall);
            break;
        case 'j': {
            const char *job = place_job_id();
            place_path_component(&b, job ? job : "nojob");
            break;
        }
        case 'q': {
            size_t len = variable(p + 1);
            if (!len)
                return -1;
            char name[128];
            memcpy(name, p + 2, len - 2);
            name[len - 2] = '\0';
            const char *v = getenv(name);
            place_path_component(&b, v ? v : "");
            p += len;
            break;
        }
        case '%':
            place_bprintf(&b, "%%");
            break;
        default: /* an unknown token, or a lone % at the end */
            return -1;
        }
    }
    return b.cut ? -1 : 0;
}

bool place_report_path_per_process(const char *tmpl)
{
    for (const char *c = tmpl; *c; c++) {
        if (*c != '%')
            continue;
        if (*++c == 'p')
            return true;
        if (!*c)
            break;
    }
    return false;
}

uint64_t place_run_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)((now.tv_sec - place_run.start.tv_sec) * 1000 +
                      (now.tv_nsec - place_run.start.tv_nsec) / 1000000);
}
