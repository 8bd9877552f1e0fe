/* LIBPLACE_* parsing and the report path template. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../config/options.h"
#include "../../policy/base/out.h"
#include "../../policy/base/path.h"
#include "check.h"

/* Reads env (NULL-terminated), as a program in secure-execution mode (set-user-ID) if
 * secure, and returns what libplace said on its stderr. */
static const char *read_env_secure(char **env, bool secure)
{
    static char said[4096];
    int fds[2];
    CHECK(pipe(fds) == 0);
    place_use_stderr(fds[1]);
    place_options = (struct place_options){0};
    place_options_read_secure(env, secure);
    place_use_stderr(2);
    close(fds[1]);
    ssize_t n = read(fds[0], said, sizeof said - 1);
    said[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    return said;
}

static const char *read_env(char **env)
{
    return read_env_secure(env, false);
}

/* A set-user-ID program: every LIBPLACE_* variable is ignored, without a word, as glibc
 * ignores MALLOC_*; libplace runs as if none were set (no policy, no report). */
static void secure_mode(void)
{
    int fd = open("test_options.secret", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, "root:SECRET:19000::::::\n", 24) == 24);
    close(fd);
    char *env[] = {"LIBPLACE_POLICY=test_options.secret",
                   "LIBPLACE_REPORT=/tmp/libplace-secure-report-%p",
                   "LIBPLACE_RULES=size=1M.. to=hbw",
                   "LIBPLACE_LIMIT_HBW=1G",
                   "LIBPLACE_CHECK=1",
                   "LIBPLACE_ON_ERROR=passthrough",
                   "LIBPLACE_BOGUS=1",
                   NULL};
    /* the same variables outside secure mode: read, quoted, complained of */
    const char *said = read_env_secure(env, false);
    CHECK(strstr(said, "test_options.secret:1: root:SECRET") != NULL);
    CHECK(place_config.errors > 0);

    said = read_env_secure(env, true);
    CHECK(strcmp(said, "") == 0);
    CHECK(place_options.report == NULL);
    CHECK(!place_options.check && !place_options.refuse && !place_options.untouched);
    CHECK_EQ(place_config.errors, 0);
    CHECK_EQ(place_config.nrules, 0);
    CHECK_EQ(place_config.ntiers, 1); /* dram alone */
    CHECK(strcmp(place_config.file, "") == 0);
    CHECK(strcmp(place_config.report, "") == 0);
    CHECK_EQ(place_config.on_error, PLACE_ON_ERROR_ABORT);
    remove("test_options.secret");
}

int main(void)
{
    secure_mode();

    char *ok[] = {"PATH=/bin", "LIBPLACE_REPORT=stderr", NULL};
    CHECK(strcmp(read_env(ok), "") == 0);
    CHECK(place_options.report && strcmp(place_options.report, "stderr") == 0);
    CHECK(!place_options.untouched);

    char *path[] = {"LIBPLACE_REPORT=/tmp/run-%p-%h-%r-%t-%%.txt", NULL};
    CHECK(strcmp(read_env(path), "") == 0);
    CHECK(place_options.report && strcmp(place_options.report, "/tmp/run-%p-%h-%r-%t-%%.txt") == 0);

    /* a relative path is anchored to the directory of the start, its % doubled */
    char *relative[] = {"LIBPLACE_REPORT=r-%p.txt", NULL};
    char cwd[1024], anchored[1100];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK(strchr(cwd, '%') == NULL); /* the test runs from meson's build directory */
    snprintf(anchored, sizeof anchored, "%s/r-%%p.txt", cwd);
    CHECK(strcmp(read_env(relative), "") == 0);
    CHECK(place_options.report && strcmp(place_options.report, anchored) == 0);

    /* a bad value is an error of the configuration: named with its variable, followed by
     * what happens; with on_error = passthrough the program runs untouched */
    const char *bad[] = {"LIBPLACE_REPORT=", "LIBPLACE_REPORT", "LIBPLACE_REPORT=a%q",
                         "LIBPLACE_REPORT=a%", "LIBPLACE_REPORT=stdout"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char *env[] = {(char *)bad[k], "LIBPLACE_ON_ERROR=passthrough", NULL};
        const char *said = read_env(env);
        char expect[256];
        snprintf(expect, sizeof expect, "libplace: %s: ", bad[k]);
        CHECK(strncmp(said, expect, strlen(expect)) == 0);
        CHECK(strstr(said, "; expected stderr or a file path") != NULL);
        CHECK(strstr(said, "\nlibplace: policy not loaded (1 error): running the program "
                           "untouched (on_error = passthrough)\n") != NULL);
        CHECK(place_options.untouched && !place_options.refuse);
        CHECK(place_options.report == NULL);
    }
    char *refused[] = {"LIBPLACE_REPORT=stdout", NULL};
    CHECK(strstr(read_env(refused), "the program does not start (on_error = abort") != NULL);
    CHECK(place_options.refuse && !place_options.untouched);

    char *unknown[] = {"LIBPLACE_REPROT=stderr", NULL};
    const char *said = read_env(unknown);
    CHECK(strncmp(said, "libplace: LIBPLACE_REPROT is not a libplace variable and is ignored "
                        "(known: LIBPLACE_POLICY, LIBPLACE_INLINE_POLICY, LIBPLACE_RULES, ",
                  strlen("libplace: LIBPLACE_REPROT is not a libplace variable and is ignored (known: "
                         "LIBPLACE_POLICY, LIBPLACE_INLINE_POLICY, LIBPLACE_RULES, ")) == 0);
    CHECK(strstr(said, "LIBPLACE_<KEY>_<TIER> with KEY one of KIND, LIMIT, POLICY,") != NULL);
    CHECK(!place_options.untouched && !place_options.refuse);

    /* the template */
    char out[4096], want[4096], host[256];
    gethostname(host, sizeof host);
    unsetenv("OMPI_COMM_WORLD_RANK");
    unsetenv("PMI_RANK");
    unsetenv("PMIX_RANK");
    unsetenv("SLURM_PROCID");
    CHECK_EQ(place_report_path("r-%p-%h-%r-%%.txt", out, sizeof out), 0);
    snprintf(want, sizeof want, "r-%d-%s-0-%%.txt", (int)getpid(), host);
    CHECK(strcmp(out, want) == 0);
    setenv("PMI_RANK", "7", 1);
    CHECK_EQ(place_report_path("%r", out, sizeof out), 0);
    CHECK(strcmp(out, "7") == 0);
    setenv("OMPI_COMM_WORLD_RANK", "3", 1); /* Open MPI's name comes first */
    CHECK_EQ(place_report_path("%r", out, sizeof out), 0);
    CHECK(strcmp(out, "3") == 0);

    place_run_mark_start(0);
    CHECK_EQ(place_report_path("%t", out, sizeof out), 0);
    CHECK_EQ(strlen(out), 16);
    CHECK(out[8] == 'T' && out[15] == 'Z' && strspn(out, "0123456789") == 8);

    char small[8];
    CHECK_EQ(place_report_path("abcdefghij", small, sizeof small), -1); /* does not fit */
    CHECK_EQ(place_report_path("abcdefg", small, sizeof small), 0);     /* fits exactly */

    /* the path is kept as a copy: a program may rewrite its environment block */
    char entry[] = "LIBPLACE_REPORT=/tmp/report-%p";
    char *rewritten[] = {entry, NULL};
    read_env(rewritten);
    memset(entry + 16, 'X', strlen(entry + 16));
    CHECK(place_options.report && strcmp(place_options.report, "/tmp/report-%p") == 0);
    CHECK_EQ(place_report_path("", out, sizeof out), -1);
    CHECK_EQ(place_report_path("x%", out, sizeof out), -1);
    return CHECK_DONE();
}
