#include "options.h"

#include <ctype.h>
#include <errno.h> /* program_invocation_short_name */
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../policy/base/fmt.h"
#include "../policy/base/large.h"
#include "../policy/base/path.h"
#include "../policy/base/out.h"
#include "describe.h"
#include "keys.h"
#include "values.h"

struct place_options place_options;
struct place_policy place_config PLACE_LARGE;

/* The report path is copied: programs that rewrite their environment block (to show a
 * process title, as nginx and PostgreSQL do) would otherwise change it under libplace.
 * A relative path is taken from the directory the process started in, not the one it
 * exits in: programs chdir (make -C, git, servers), and the user looks for the report
 * where they ran the command. A '%' in that directory is doubled so that the template
 * expands it as itself. If the directory cannot be known, the path stays relative. */
/* s into b as a path template takes it literally: each '%' doubled. */
static void literally(struct place_buf *b, const char *s)
{
    for (const char *c = s; *c; c++)
        place_bprintf(b, *c == '%' ? "%%%%" : "%c", *c);
}

static const char *keep_report_path(const char *value)
{
    static char path[PATH_MAX] PLACE_LARGE;
    char cwd[PATH_MAX];
    struct place_buf b = PLACE_BUF(path);
    if (value[0] != '/' && getcwd(cwd, sizeof cwd)) {
        literally(&b, cwd);
        place_bprintf(&b, "/");
    }
    place_bprintf(&b, "%s", value);
    return b.cut ? value : path;
}

/* Programs that start the program and wait for it: MPI and batch launchers, their
 * per-node daemons, timeout, and the shells of wrapper scripts (pyenv's shims run a dozen
 * bash processes per python3). Their reports would be noise, and in an MPI job they
 * claim the ranks of the processes they start. (env, nohup, nice, taskset, numactl and
 * the like exec the program and so never write one.) */
static const char *const launchers[] = {
    "mpirun", "mpiexec", "mpiexec.hydra", "hydra_pmi_proxy", "orterun", "orted", "prterun",
    "prte",   "prted",   "srun",          "timeout",
};
static const char *const shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh"};

static bool named_in(const char *name, const char *const *list, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(name, list[k]) == 0)
            return true;
    return false;
}

static bool a_shell(const char *name)
{
    return named_in(name, shells, sizeof shells / sizeof shells[0]);
}

/* Whether this process writes a report: report_only names it, or, without report_only,
 * it is not a launcher. */
static bool reports_here(const struct place_policy *p)
{
    const char *name = program_invocation_short_name;
    if (*p->report_only)
        return place_value_globs_match(p->report_only, name);
    return !named_in(name, launchers, sizeof launchers / sizeof launchers[0]) && !a_shell(name);
}

/* Where the processes other than LIBPLACE_REPORT_PID's report: beside the path, the
 * program's name and pid before the file name's extension (out.json: out.basename-%p.json),
 * so that `ls` shows whose each is and no two take one file. A device (/dev/null) is
 * everyone's. NULL when that does not fit a path. */
static const char *others_path(const char *path)
{
    static char out[PATH_MAX] PLACE_LARGE;
    struct stat st;
    if (!strchr(path, '%') && lstat(path, &st) == 0 && S_ISCHR(st.st_mode))
        return path;
    const char *file = strrchr(path, '/');
    file = file ? file + 1 : path;
    const char *dot = strrchr(file, '.');
    int stem = (int)(dot && dot > file ? dot - path : (ptrdiff_t)strlen(path));
    struct place_buf b = PLACE_BUF(out);
    place_bprintf(&b, "%.*s.", stem, path);
    literally(&b, program_invocation_short_name);
    place_bprintf(&b, "-%%p%s", path + stem);
    return b.cut ? NULL : out;
}

/* LIBPLACE_REPORT_PID: the report path is the report of that process after its last
 * exec (placerun's pid, which the program keeps, as placerun execs it). The helpers a
 * wrapper script runs before it execs the program (pyenv's, conda's, Spack's shims run
 * basename and readlink), and the programs the program runs, exit first and would take
 * the file; they report beside it instead, and only if they placed anything (a helper's
 * counts of glibc's heap are noise beside the program's report). A forked child keeps
 * its parent's choice, the program's children reporting beside it too. A path with %p
 * is a file per process already, and stderr takes every report: there the others'
 * report only if they placed anything. */
static void claim(int owner)
{
    const char *name = program_invocation_short_name;
    const char *tmpl = place_config.report;
    place_options.report_pid = owner;
    if (named_in(name, launchers, sizeof launchers / sizeof launchers[0])) {
        /* a launcher that is the program: what mpirun, srun and timeout start is the
         * program in their sense (the ranks, whose path has %r, or timeout's command);
         * one the program runs passes the claim on, its command reporting beside */
        place_options.drop_report_pid = getpid() == owner;
        return;
    }
    bool err = strcmp(tmpl, "stderr") == 0, mine = getpid() == owner;
    if (!*tmpl || (!err && place_report_path_per_process(tmpl)))
        return;
    if (!place_options.report) {
        /* the program ended as a shell that waited instead of exec'ing: nobody takes the
         * path, which its exit says */
        if (mine && !err && !*place_config.report_only && a_shell(name))
            place_options.report_missed = keep_report_path(tmpl);
        return;
    }
    const char *others = err ? "stderr" : others_path(place_options.report);
    if (!others)
        return;
    if (mine) {
        place_options.report_forked = others;
        return;
    }
    place_options.report = others;
    place_options.report_if_placed = true;
}

/* The pid LIBPLACE_REPORT_PID=value names, or 0 after an error. */
static int report_pid(const char *value)
{
    long v = 0;
    const char *c = value;
    while (*c >= '0' && *c <= '9' && v <= INT_MAX)
        v = v * 10 + (*c++ - '0');
    if (c != value && !*c && v > 0 && v <= INT_MAX)
        return (int)v;
    place_policy_error(&place_config,
                       &(struct place_origin){value - sizeof "LIBPLACE_REPORT_PID", 0, false},
                       "expected a process id, the process whose report the report path names "
                       "(placerun sets it to the program's)");
    return 0;
}

/* The variables that are not per-tier overrides. */
enum { NFIXED = 5 };
static const char *const fixed[NFIXED] = {"LIBPLACE_POLICY", "LIBPLACE_INLINE_POLICY",
                                          "LIBPLACE_RULES", "LIBPLACE_CHECK",
                                          "LIBPLACE_REPORT_PID"};

static void print_error(void *ctx, const char *line)
{
    (void)ctx;
    place_warn("%s", line);
}

/* "LIBPLACE_LIMIT_HBW" and the like: the tier key and the tier, or false. The tier is
 * the declared one whose name, upper-cased with '-' as '_', is TIER; otherwise TIER in
 * lower case, which may name a tier a chain implies (hbw, pinned, managed). */
static bool tier_override(const char *name, size_t namelen, int *key, char tier[PLACE_NAME_MAX])
{
    static const char prefix[] = "LIBPLACE_";
    for (int k = 0; place_tier_keys[k].name; k++) {
        const char *env = place_tier_keys[k].env;
        size_t n = strlen(env);
        if (namelen <= sizeof prefix + n || strncmp(name + sizeof prefix - 1, env, n) ||
            name[sizeof prefix - 1 + n] != '_')
            continue;
        const char *t = name + sizeof prefix + n;
        size_t tlen = namelen - (size_t)(t - name);
        if (tlen >= PLACE_NAME_MAX)
            return false;
        *key = k;
        for (unsigned j = 0; j < place_config.ntiers; j++) {
            const char *declared = place_config.tiers[j].name;
            size_t i = 0;
            while (i < tlen && declared[i] &&
                   (declared[i] == '-' ? '_' : toupper((unsigned char)declared[i])) == t[i])
                i++;
            if (i == tlen && !declared[i]) {
                strcpy(tier, declared);
                return true;
            }
        }
        for (size_t i = 0; i < tlen; i++)
            tier[i] = (char)tolower((unsigned char)t[i]);
        tier[tlen] = 0;
        return true;
    }
    return false;
}

static void warn_unknown(const char *entry, size_t namelen)
{
    char known[1024];
    struct place_buf b = PLACE_BUF(known);
    for (int k = 0; k < NFIXED; k++)
        place_bprintf(&b, "%s, ", fixed[k]);
    for (int k = 0; place_libplace_keys[k].name; k++)
        place_bprintf(&b, "%s, ", place_libplace_keys[k].env);
    place_bprintf(&b, "LIBPLACE_<KEY>_<TIER> with KEY one of ");
    for (int k = 0; place_tier_keys[k].name; k++)
        place_bprintf(&b, "%s%s", k ? ", " : "", place_tier_keys[k].env);
    place_warn("%.*s is not a libplace variable and is ignored (known: %s)", (int)namelen, entry,
               known);
}

/* The value of the variable `name` in envp, or NULL. */
static const char *getvar(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (; envp && *envp; envp++)
        if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
            return *envp + n + 1;
    return NULL;
}

/* The environment's overrides of [libplace] keys and of tier keys, and the warnings for
 * names libplace does not know. Kinds first, as a kind declares a tier that the other
 * variables of that tier may set keys of. */
static void apply_overrides(char *const *envp)
{
    static const char prefix[] = "LIBPLACE_";
    static const char kind[] = "LIBPLACE_KIND_";
    for (char *const *e = envp; e && *e; e++) {
        int key;
        char tier[PLACE_NAME_MAX];
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, kind, sizeof kind - 1) == 0 && eq &&
            tier_override(*e, (size_t)(eq - *e), &key, tier))
            place_policy_set(&place_config, &(struct place_origin){*e, 0, false}, tier, "kind",
                             eq + 1);
    }
    for (; envp && *envp; envp++) {
        const char *entry = *envp;
        if (strncmp(entry, prefix, sizeof prefix - 1) != 0)
            continue;
        const char *eq = strchr(entry, '=');
        size_t namelen = eq ? (size_t)(eq - entry) : strlen(entry);
        const char *value = eq ? eq + 1 : "";
        struct place_origin at = {entry, 0, false};
        bool known = false;
        for (int k = 0; k < NFIXED; k++)
            known |= strlen(fixed[k]) == namelen && strncmp(fixed[k], entry, namelen) == 0;
        for (int k = 0; !known && place_libplace_keys[k].name; k++) {
            const char *env = place_libplace_keys[k].env;
            if (strlen(env) == namelen && strncmp(env, entry, namelen) == 0) {
                place_policy_set(&place_config, &at, "libplace", place_libplace_keys[k].name,
                                 value);
                known = true;
            }
        }
        int key;
        char tier[PLACE_NAME_MAX];
        if (!known && tier_override(entry, namelen, &key, tier)) {
            if (key != PLACE_TKEY_KIND)
                place_policy_set(&place_config, &at, tier, place_tier_keys[key].name, value);
            known = true;
        }
        if (!known)
            warn_unknown(entry, namelen);
    }
}

/* placerun --check's answer for a policy without errors: what it declares. */
static void say_summary(void)
{
    char line[1024];
    struct place_buf b = PLACE_BUF(line);
    const struct place_policy *p = &place_config;
    place_bprintf(&b, "%s: no errors; tiers:", *p->file ? p->file : "the policy");
    for (unsigned k = 0; k < p->ntiers; k++) {
        place_bprintf(&b, "%s %s (%s", k ? "," : "", p->tiers[k].name,
                      place_kind_name(p->tiers[k].kind));
        if (p->tiers[k].limit) /* placerun --tiers reads the limit back as bytes */
            place_bprintf(&b, ", limit %llu", (unsigned long long)p->tiers[k].limit);
        place_bprintf(&b, ")");
    }
    place_bprintf(&b, "; rules:");
    for (unsigned k = 0; k < p->nrules; k++)
        place_bprintf(&b, "%s %s", k ? "," : "", p->rules[k].name);
    if (!p->nrules)
        place_bprintf(&b, " none (everything stays in dram)");
    /* placerun reads this to know whether the policy names a report of its own */
    place_bprintf(&b, "; report: %s", *p->report ? p->report : "none");
    place_warn("%s", line);
}

void place_options_read(char *const *envp)
{
    place_options_read_secure(envp, getauxval(AT_SECURE) != 0);
}

void place_options_read_secure(char *const *envp, bool secure)
{
    place_options = (struct place_options){0};
    place_policy_init(&place_config, print_error, NULL);
    /* a set-user-ID or set-group-ID program: whoever runs it could otherwise have it open
     * and read files it may read (LIBPLACE_POLICY=/etc/shadow, with the errors quoting
     * them) and create files where it may write (LIBPLACE_REPORT). As glibc ignores
     * MALLOC_* there, every LIBPLACE_* variable is ignored, without a word. */
    if (secure)
        return;
    const char *rules = getvar(envp, "LIBPLACE_RULES");
    const char *file = getvar(envp, "LIBPLACE_POLICY");
    const char *text = getvar(envp, "LIBPLACE_INLINE_POLICY");
    const char *check = getvar(envp, "LIBPLACE_CHECK");
    const char *owner = getvar(envp, "LIBPLACE_REPORT_PID");
    int pid = owner ? report_pid(owner) : 0;
    place_options.check = check && strcmp(check, "0") != 0;
    /* the program's main never runs under a check, so stdout is free for the JSON */
    bool describe = check && strcmp(check, "json") == 0;
    if (rules)
        place_policy_parse_inline(&place_config, "LIBPLACE_RULES", rules);
    if (file && text)
        place_policy_error(&place_config,
                           &(struct place_origin){"LIBPLACE_INLINE_POLICY", 0, false},
                           "set with LIBPLACE_POLICY; expected one policy, a file or a text");
    else if (text)
        place_policy_parse_variable(&place_config, "LIBPLACE_INLINE_POLICY", text);
    else if (file && *file)
        place_policy_parse_file(&place_config, file);
    else if (file)
        place_policy_error(&place_config, &(struct place_origin){"LIBPLACE_POLICY=", 0, false},
                           "no path; expected the path of a policy file");
    apply_overrides(envp);
    place_policy_finish(&place_config);

    unsigned errors = place_config.errors;
    if (errors) {
        bool abort = place_config.on_error == PLACE_ON_ERROR_ABORT || place_options.check;
        place_warn("policy not loaded (%u error%s): %s", errors, place_plural_s(errors),
                   place_options.check ? "it needs fixing"
                   : abort             ? "the program does not start (on_error = abort; on_error = "
                                         "passthrough runs it untouched)"
                                       : "running the program untouched (on_error = passthrough)");
        place_options.refuse = abort;
        place_options.untouched = !abort;
        if (describe)
            place_describe_policy(&place_config, STDOUT_FILENO);
        return;
    }
    if (describe)
        place_describe_policy(&place_config, STDOUT_FILENO);
    else if (place_options.check)
        say_summary();
    if (*place_config.report && reports_here(&place_config))
        place_options.report = strcmp(place_config.report, "stderr") == 0
                                   ? "stderr"
                                   : keep_report_path(place_config.report);
    if (pid)
        claim(pid);
}
