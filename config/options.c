#include "options.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "../policy/fmt.h"
#include "../policy/out.h"
#include "../policy/report.h"

struct place_options place_options;

/* Each parser stores the value and returns NULL, or returns the expected form. */
typedef const char *(*parse_fn)(const char *value);

/* The report path is copied: programs that rewrite their environment block (to show a
 * process title, as nginx and PostgreSQL do) would otherwise change it under libplace.
 * A relative path is taken from the directory the process started in, not the one it
 * exits in: programs chdir (make -C, git, servers), and the user looks for the report
 * where they ran the command. A '%' in that directory is doubled so that the template
 * expands it as itself. If the directory cannot be known, the path stays relative. */
static const char *keep_report_path(const char *value)
{
    static char path[PATH_MAX];
    char cwd[PATH_MAX];
    struct place_buf b = PLACE_BUF(path);
    if (value[0] != '/' && getcwd(cwd, sizeof cwd)) {
        for (const char *c = cwd; *c; c++)
            place_bprintf(&b, *c == '%' ? "%%%%" : "%c", *c);
        place_bprintf(&b, "/");
    }
    place_bprintf(&b, "%s", value);
    return b.cut ? NULL : path;
}

static const char *parse_report(const char *value)
{
    if (strcmp(value, "stdout") == 0)
        return "stderr or a file path (stdout is not offered: the report would mix into "
               "the program's own output)";
    if (strcmp(value, "stderr") == 0) {
        place_options.report = "stderr";
        return NULL;
    }
    const char *path = *value ? keep_report_path(value) : NULL;
    if (!path || place_report_path(path, NULL, 0) != 0)
        return "stderr or a file path, where %p is the pid, %h the host, %r the MPI rank, "
               "%t the start time and %% a percent sign";
    place_options.report = path;
    return NULL;
}

static const struct {
    const char *name;
    parse_fn parse;
} variables[] = {
    {"LIBPLACE_REPORT", parse_report},
};

enum { NVARIABLES = sizeof variables / sizeof variables[0] };

static void warn_unknown(const char *entry, size_t namelen)
{
    char known[256];
    struct place_buf b = PLACE_BUF(known);
    for (size_t k = 0; k < NVARIABLES; k++)
        place_bprintf(&b, "%s%s", k ? ", " : "", variables[k].name);
    place_warn("%.*s is not a libplace variable and is ignored (known: %s)", (int)namelen, entry,
               known);
}

void place_options_read(char *const *envp)
{
    static const char prefix[] = "LIBPLACE_";
    for (; envp && *envp; envp++) {
        const char *entry = *envp;
        if (strncmp(entry, prefix, sizeof prefix - 1) != 0)
            continue;
        const char *eq = strchr(entry, '=');
        size_t namelen = eq ? (size_t)(eq - entry) : strlen(entry);
        const char *value = eq ? eq + 1 : "";
        size_t k = 0;
        while (k < NVARIABLES && !(strlen(variables[k].name) == namelen &&
                                   strncmp(variables[k].name, entry, namelen) == 0))
            k++;
        if (k == NVARIABLES) {
            warn_unknown(entry, namelen);
            continue;
        }
        const char *expected = variables[k].parse(value);
        if (expected) {
            place_warn("%s='%s' is not valid: expected %s; running the program untouched",
                       variables[k].name, value, expected);
            place_options.untouched = true;
        }
    }
}
