/* The policy file and inline rules, read into struct place_policy.
 *
 * libinih splits lines into sections and key = value pairs, strips whitespace and
 * comments; its handler has no line number and its own syntax errors only give the first
 * one, so libplace feeds it through a reader that counts lines and checks each line's
 * shape first. Every problem is reported and parsing goes on, so that one run shows all
 * of them. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../policy/base/large.h"
#include "keys.h"
#include "values.h"

enum { LINE_MAX_CHARS = 1000, FILE_MAX_BYTES = 1 << 20 };

void place_origin_print(struct place_buf *b, const struct place_origin *at)
{
    if (at->line)
        place_bprintf(b, at->in_rule ? "%s rule %d" : "%s:%d", at->source, at->line);
    else
        place_bprintf(b, "%s", at->source);
}

void place_policy_error(struct place_policy *p, const struct place_origin *at, const char *fmt, ...)
{
    char line[8192]; /* a 1000-character value quoted a few times still fits */
    struct place_buf b = PLACE_BUF(line);
    place_origin_print(&b, at);
    place_bprintf(&b, ": ");
    va_list ap;
    va_start(ap, fmt);
    place_vbprintf(&b, fmt, ap);
    va_end(ap);
    p->errors++;
    if (p->error)
        p->error(p->error_ctx, line);
}

/* deviceN names GPU N's tier; a name is at most PLACE_NAME_MAX - 1 characters */
static bool device_name(const char *name)
{
    if (strncmp(name, "device", 6) != 0)
        return false;
    const char *n = name + 6;
    size_t digits = 0;
    while (digits <= 4 && n[digits] >= '0' && n[digits] <= '9')
        digits++;
    return digits > 0 && digits <= 4 && !n[digits];
}

bool place_policy_kind_of(const char *name, enum place_kind *kind)
{
    for (int k = 0; place_kind_names[k]; k++)
        if (strcmp(name, place_kind_names[k]) == 0) {
            *kind = (enum place_kind)k;
            return true;
        }
    if (!device_name(name))
        return false;
    *kind = PLACE_DEVICE;
    return true;
}

static void tier_defaults(struct place_tier_config *t, const char *name)
{
    memset(t, 0, sizeof *t);
    strcpy(t->name, name);
    place_policy_kind_of(name, &t->kind);
    size_t n = strlen(name);
    while (n && isdigit((unsigned char)name[n - 1]))
        n--;
    for (const char *d = name + n; *d && t->device < 1024; d++)
        t->device = t->device * 10 + (*d - '0');
    t->chunk_initial = 2 << 20;
    t->chunk_max = 256 << 20;
    t->chunk_growth = 2;
    t->location = -2;
}

/* *p zeroed, writing only the words that are not zero yet: the process-wide policy lies
 * in zeroed memory, whose 72 KiB a memset would make resident in every process. */
static void zero(struct place_policy *p)
{
    uint64_t *w = (uint64_t *)p;
    for (size_t k = 0; k < sizeof *p / sizeof *w; k++)
        if (w[k])
            w[k] = 0;
    memset((char *)p + sizeof *p / sizeof *w * sizeof *w, 0, sizeof *p % sizeof *w);
}

void place_policy_init(struct place_policy *p, void (*fn)(void *ctx, const char *line), void *ctx)
{
    zero(p);
    p->sites = PLACE_DEFAULT_SITES;
    p->sample = PLACE_DEFAULT_SAMPLE;
    p->report_depth = PLACE_DEFAULT_REPORT_DEPTH;
    p->fold_min = PLACE_DEFAULT_FOLD_MIN;
    p->profile_min = PLACE_DEFAULT_PROFILE_MIN;
    p->profile_interval_ms = PLACE_DEFAULT_PROFILE_INTERVAL_MS;
    p->report_children = true;
    p->report_on_fatal = true;
    p->hash = 0xcbf29ce484222325ull;
    p->error = fn;
    p->error_ctx = ctx;
    tier_defaults(&p->tiers[0], "dram");
    p->ntiers = 1;
}

static void hash(struct place_policy *p, const char *s)
{
    for (; *s; s++)
        p->hash = (p->hash ^ (unsigned char)*s) * 0x100000001b3ull;
}

/* A tier with the defaults, or NULL when there is no room for one more. */
static struct place_tier_config *new_tier(struct place_policy *p, const char *name)
{
    if (p->ntiers == PLACE_MAX_TIERS)
        return NULL;
    tier_defaults(&p->tiers[p->ntiers], name);
    return &p->tiers[p->ntiers++];
}

struct place_tier_config *place_policy_tier(struct place_policy *p, const char *name, bool implied)
{
    for (unsigned k = 0; k < p->ntiers; k++)
        if (strcmp(p->tiers[k].name, name) == 0)
            return &p->tiers[k];
    return implied && place_policy_implied(name) ? new_tier(p, name) : NULL;
}

bool place_policy_implied(const char *name)
{
    static const char *const kinds[] = {"hbw", "pinned", "managed", "symmetric", NULL};
    for (int k = 0; kinds[k]; k++)
        if (strcmp(name, kinds[k]) == 0)
            return true;
    return device_name(name);
}

static struct place_rule_config *new_rule(struct place_policy *p, const char *name,
                                          const struct place_origin *at)
{
    for (unsigned k = 0; k < p->nrules; k++)
        if (strcmp(p->rules[k].name, name) == 0) {
            place_policy_error(p, at, "a second rule named '%s'; expected each name once", name);
            return NULL;
        }
    if (p->nrules == PLACE_MAX_RULES) {
        place_policy_error(p, at, "too many rules; expected at most %d", PLACE_MAX_RULES);
        return NULL;
    }
    struct place_rule_config *r = &p->rules[p->nrules++];
    memset(r, 0, sizeof *r);
    strcpy(r->name, name);
    r->api = PLACE_API_MALLOC;
    r->max = UINT64_MAX;
    r->depth = PLACE_DEFAULT_DEPTH;
    r->wait_ms = PLACE_DEFAULT_WAIT_MS;
    r->at = *at;
    return r;
}

/* The key table a section kind uses, and where its `given` bits live. */
struct section {
    const struct place_key *keys;
    void *object;
    uint32_t *given;
    uint32_t *seen;              /* NULL for [libplace] */
    struct place_origin *key_at; /* tiers only */
    const char *what;            /* "[tier hbw]", for messages */
    char what_buf[PLACE_NAME_MAX + 8];
    bool skip; /* the header was wrong: its keys are not checked, to spare follow-on errors */
};

/* Sets one key; `text` is how the user wrote it, for the message. */
static void set_key(struct place_policy *p, struct section *s, const struct place_origin *at,
                    const char *key, const char *value, bool inline_rule)
{
    int k = 0;
    while (s->keys[k].name &&
           (strcmp(s->keys[k].name, key) != 0 ||
            (s->keys == place_rule_keys && !inline_rule && strcmp(key, "name") == 0)))
        k++;
    if (!s->keys[k].name) {
        char known[256];
        struct place_buf b = PLACE_BUF(known);
        for (int j = 0; s->keys[j].name; j++)
            if (inline_rule || s->keys != place_rule_keys || strcmp(s->keys[j].name, "name"))
                place_bprintf(&b, "%s%s", j ? ", " : "", s->keys[j].name);
        place_policy_error(p, at, "%.64s = %.64s: %.64s is not a key of %s; expected one of %s",
                           key, value, key, s->what, known);
        return;
    }
    if (s->given && (*s->given & (1u << k)) && at->line) {
        place_policy_error(p, at, "%.64s = %.64s: %.64s is given twice in %s; expected it once",
                           key, value, key, s->what);
        return;
    }
    if (s->seen)
        *s->seen |= 1u << k;
    char why[4096]; /* holds the value quoted, which may be 1000 characters */
    struct place_buf b = PLACE_BUF(why);
    if (!s->keys[k].set(p, s->object, value, &b)) {
        /* an environment variable's origin already shows the value */
        if (at->line)
            place_policy_error(p, at, "%.64s = %.64s: %s", key, value, why);
        else
            place_policy_error(p, at, "%s", why);
        return;
    }
    if (s->given)
        *s->given |= 1u << k;
    if (s->key_at)
        s->key_at[k] = *at;
    if (s->keys == place_rule_keys && strcmp(key, "to") == 0)
        ((struct place_rule_config *)s->object)->to_at = *at;
}

static void open_libplace(struct section *s, struct place_policy *p, uint32_t *given)
{
    *s = (struct section){
        .keys = place_libplace_keys, .object = p, .given = given, .what = "[libplace]"};
}

static void open_tier(struct section *s, struct place_tier_config *t)
{
    *s = (struct section){.keys = place_tier_keys,
                          .object = t,
                          .given = &t->given,
                          .seen = &t->seen,
                          .key_at = t->key_at};
    struct place_buf b = PLACE_BUF(s->what_buf);
    place_bprintf(&b, "[tier %s]", t->name);
    s->what = s->what_buf;
}

static void open_rule(struct section *s, struct place_rule_config *r)
{
    *s = (struct section){
        .keys = place_rule_keys, .object = r, .given = &r->given, .seen = &r->seen};
    struct place_buf b = PLACE_BUF(s->what_buf);
    place_bprintf(&b, "[rule %s]", r->name);
    s->what = s->what_buf;
}

struct parser {
    struct place_policy *p;
    struct place_origin at;
    const char *text;
    struct section section;
    bool in_section, seen_libplace;
    bool content; /* a line other than blank lines and comments */
    uint32_t libplace_given;
};

static const char sections_expected[] = "expected [libplace], [tier NAME] or [rule NAME]";

/* What separates the words of a section header and of an inline rule. */
static const char blanks[] = " \t\r\n";

static void header(struct parser *ps, const char *line)
{
    struct place_policy *p = ps->p;
    ps->in_section = true;
    ps->section = (struct section){.skip = true};
    const char *close = strchr(line, ']');
    const char *rest = close ? close + 1 : "";
    while (isspace((unsigned char)*rest))
        rest++;
    if (!close || (*rest && *rest != ';' && *rest != '#')) {
        place_policy_error(p, &ps->at, "%.64s: not a section header; %s", line, sections_expected);
        return;
    }
    char inner[128], words[128];
    size_t n = (size_t)(close - line - 1);
    if (n >= sizeof inner) {
        place_policy_error(p, &ps->at, "%.64s...: a section header this long; %s", line,
                           sections_expected);
        return;
    }
    memcpy(inner, line + 1, n);
    inner[n] = 0;
    /* its words split by strtok_r, not sscanf: sscanf's scanner lies in libc pages that
     * nothing else libplace runs touches, and a process reading a policy held 144 KiB
     * more of libc's text for it (the page cache maps libc in large folios, which a
     * fault maps whole) */
    memcpy(words, inner, n + 1);
    char *save = NULL, *word = strtok_r(words, blanks, &save);
    const char *name = word ? strtok_r(NULL, blanks, &save) : NULL;
    unsigned got = !word ? 0 : !name ? 1 : strtok_r(NULL, blanks, &save) ? 3 : 2;
    char why[256];
    struct place_buf b = PLACE_BUF(why);
    if (got == 1 && strcmp(word, "libplace") == 0) {
        if (ps->seen_libplace) {
            place_policy_error(p, &ps->at, "[libplace]: a second [libplace] section; expected one");
            return;
        }
        ps->seen_libplace = true;
        open_libplace(&ps->section, p, &ps->libplace_given);
    } else if (got == 2 && strcmp(word, "tier") == 0) {
        char tname[PLACE_NAME_MAX];
        if (!place_value_name(name, tname, &b)) {
            place_policy_error(p, &ps->at, "[%s]: %s", inner, why);
            return;
        }
        struct place_tier_config *t = place_policy_tier(p, tname, false);
        if (t && t->declared) {
            place_policy_error(p, &ps->at,
                               "[%s]: a second tier named '%s'; expected each name once", inner,
                               tname);
            return;
        }
        if (!t && !(t = new_tier(p, tname))) {
            place_policy_error(p, &ps->at, "[%s]: too many tiers; expected at most %d", inner,
                               PLACE_MAX_TIERS);
            return;
        }
        t->declared = true;
        t->at = ps->at;
        open_tier(&ps->section, t);
    } else if (got == 2 && strcmp(word, "rule") == 0) {
        char rname[PLACE_NAME_MAX];
        if (!place_value_name(name, rname, &b)) {
            place_policy_error(p, &ps->at, "[%s]: %s", inner, why);
            return;
        }
        struct place_rule_config *r = new_rule(p, rname, &ps->at);
        if (r)
            open_rule(&ps->section, r);
    } else {
        place_policy_error(p, &ps->at, "[%s]: not a section libplace knows; %s", inner,
                           sections_expected);
    }
}

/* Checks one line's shape before libinih sees it. Returns false for a line libinih must
 * not see: a header (handled here) or a line already reported. */
static bool check_line(struct parser *ps, char *line)
{
    char *s = line;
    if (ps->at.line == 1 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
        (unsigned char)s[2] == 0xBF)
        s += 3;
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = 0;
    if (!*s || *s == ';' || *s == '#')
        return true;
    ps->content = true;
    if (*s == '[') {
        header(ps, s);
        return false;
    }
    if (!strpbrk(s, "=:") || *s == '=' || *s == ':') {
        place_policy_error(ps->p, &ps->at, "%.64s: not a key = value line; expected key = value",
                           s);
        return false;
    }
    if (!ps->in_section) {
        place_policy_error(ps->p, &ps->at, "%.64s: a key outside any section; %s", s,
                           sections_expected);
        return false;
    }
    return !ps->section.skip;
}

/* libinih's reader: one line per call, counted. */
static char *next_line(char *str, int num, void *stream)
{
    struct parser *ps = stream;
    while (*ps->text) {
        const char *end = strchr(ps->text, '\n');
        size_t n = end ? (size_t)(end - ps->text) : strlen(ps->text);
        ps->at.line++;
        const char *line = ps->text;
        ps->text += n + (end != NULL);
        if (n > LINE_MAX_CHARS || n + 2 > (size_t)num) {
            ps->content = true;
            place_policy_error(ps->p, &ps->at, "the line has %zu characters; expected at most %d",
                               n, LINE_MAX_CHARS);
            continue;
        }
        memcpy(str, line, n);
        str[n] = 0;
        if (!check_line(ps, str))
            continue;
        memcpy(str, line, n);
        str[n] = '\n';
        str[n + 1] = 0;
        return str;
    }
    return NULL;
}

static int on_pair(void *user, const char *section, const char *name, const char *value)
{
    (void)section;
    struct parser *ps = user;
    set_key(ps->p, &ps->section, &ps->at, name, value, false);
    return 1;
}

/* Parses text; whether it holds anything but blank lines and comments. */
static bool parse_text(struct place_policy *p, const char *source, const char *text)
{
    struct parser ps = {.p = p, .at = {source, 0}, .text = text};
    hash(p, text);
    /* libinih's settings are process-wide, and the program may use libinih itself:
     * changed for this parse only */
    int max_line = ini_max_line;
    bool multiline = ini_allow_multiline;
    ini_max_line = LINE_MAX_CHARS + 3;
    ini_allow_multiline = false;
    ini_parse_stream(next_line, &ps, on_pair, &ps);
    ini_max_line = max_line;
    ini_allow_multiline = multiline;
    return ps.content;
}

void place_policy_parse_text(struct place_policy *p, const char *source, const char *text)
{
    parse_text(p, source, text);
}

/* A whole policy, from a file or a variable. */
static void parse_whole(struct place_policy *p, const struct place_origin *at, const char *text)
{
    if (!parse_text(p, at->source, text))
        place_policy_error(p, at,
                           "the policy is empty; expected at least a [libplace], [tier NAME] "
                           "or [rule NAME] section");
}

/* What a file that is not a regular one is, for the message. */
static const char *file_type(mode_t mode)
{
    return S_ISFIFO(mode)   ? "a FIFO"
           : S_ISDIR(mode)  ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a plain file";
}

void place_policy_parse_file(struct place_policy *p, const char *path)
{
    struct place_origin at = {path, 0, false};
    size_t n = strlen(path);
    if (n >= sizeof p->file) {
        place_policy_error(p, &at, "the path is too long; expected a shorter one");
        return;
    }
    memcpy(p->file, path, n + 1);
    at.source = p->file;
    /* Only a regular file is read. What is not one is refused before it is opened (opening
     * a device may do something), and again once open, in case it was swapped in between:
     * O_NONBLOCK, as opening a FIFO would otherwise wait, before main and silently, for a
     * writer; a regular file's reads never block. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        place_policy_error(p, &at, "not a regular file (%s); expected a policy file",
                           file_type(st.st_mode));
        return;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        place_policy_error(p, &at, "cannot open it; expected a readable policy file");
        return;
    }
    if (fstat(fd, &st) != 0) {
        place_policy_error(p, &at, "cannot read it; expected a readable policy file");
        close(fd);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        place_policy_error(p, &at, "not a regular file (%s); expected a policy file",
                           file_type(st.st_mode));
        close(fd);
        return;
    }
    /* a policy anyone may write decides what the program does and where its report is
     * created: said, as ssh says it of its configuration, but the program runs */
    if (st.st_mode & S_IWOTH) {
        char line[2 * PATH_MAX + 256];
        struct place_buf b = PLACE_BUF(line);
        unsigned m = (unsigned)st.st_mode;
        place_bprintf(&b,
                      "%s: the policy file is writable by other users (mode %u%u%u%u): anyone "
                      "could change what this program does; chmod o-w %s",
                      p->file, m >> 9 & 7, m >> 6 & 7, m >> 3 & 7, m & 7, p->file);
        if (p->error)
            p->error(p->error_ctx, line);
    }
    /* static, not the heap: the policy is read while the program's allocator is being
     * set up, and its pages cost nothing until a file is read into them. Read to the end
     * of the file, whatever st_size says: /proc files say 0 and have content. */
    static char text[FILE_MAX_BYTES + 2] PLACE_LARGE;
    size_t got = 0;
    ssize_t r = 0;
    while (got <= FILE_MAX_BYTES && (r = read(fd, text + got, FILE_MAX_BYTES + 1 - got)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    if (r < 0) {
        place_policy_error(p, &at, "cannot read it; expected a readable policy file");
        return;
    }
    if (got > FILE_MAX_BYTES) {
        place_policy_error(p, &at, "larger than 1 MiB; expected a policy file");
        return;
    }
    text[got] = 0;
    const char *nul = memchr(text, 0, got);
    if (nul) {
        at.line = 1;
        for (const char *c = text; c < nul; c++)
            at.line += *c == '\n';
        place_policy_error(p, &at,
                           "the line holds a NUL byte; expected a text file (a policy "
                           "file is text, as [rule NAME] and key = value lines)");
        return;
    }
    parse_whole(p, &at, text);
}

void place_policy_parse_variable(struct place_policy *p, const char *name, const char *text)
{
    struct place_origin at = {name, 0, false};
    if (strlen(text) > FILE_MAX_BYTES) {
        place_policy_error(p, &at, "larger than 1 MiB; expected a policy");
        return;
    }
    /* the policy's name in the report and in placerun --check's summary */
    strcpy(p->file, name);
    parse_whole(p, &at, text);
}

/* One inline rule: space-separated key=value words. */
static void inline_rule(struct place_policy *p, const struct place_origin *at, char *words)
{
    char name[PLACE_NAME_MAX];
    struct place_buf nb = PLACE_BUF(name);
    place_bprintf(&nb, "rules-%u", (unsigned)at->line);
    struct place_rule_config *r = new_rule(p, name, at);
    if (!r)
        return;
    struct section s;
    open_rule(&s, r);
    char *save = NULL;
    for (char *w = strtok_r(words, blanks, &save); w; w = strtok_r(NULL, blanks, &save)) {
        char *eq = strchr(w, '=');
        if (!eq || eq == w) {
            place_policy_error(p, at, "%.64s: not a key=value word; expected key=value, as to=hbw",
                               w);
            continue;
        }
        *eq = 0;
        set_key(p, &s, at, w, eq + 1, true);
    }
    if (strcmp(r->name, name) != 0)
        for (unsigned k = 0; k + 1 < p->nrules; k++)
            if (strcmp(p->rules[k].name, r->name) == 0)
                place_policy_error(p, at,
                                   "name=%s: a second rule named '%s'; expected each "
                                   "name once",
                                   r->name, r->name);
}

void place_policy_parse_inline(struct place_policy *p, const char *source, const char *text)
{
    hash(p, text);
    static char copy[4096] PLACE_LARGE;
    if (strlen(text) >= sizeof copy) {
        place_policy_error(p, &(struct place_origin){source, 0, false},
                           "longer than %zu characters; expected a policy file for that much",
                           sizeof copy - 1);
        return;
    }
    strcpy(copy, text);
    char *save = NULL;
    int n = 0;
    for (char *rule = strtok_r(copy, ";", &save); rule; rule = strtok_r(NULL, ";", &save)) {
        if (!rule[strspn(rule, " \t\r\n")])
            continue;
        /* rules number from 1 in the order written, whatever their names */
        struct place_origin at = {source, ++n, true};
        inline_rule(p, &at, rule);
    }
}

void place_policy_set(struct place_policy *p, const struct place_origin *at, const char *section,
                      const char *key, const char *value)
{
    struct section s;
    if (strcmp(section, "libplace") == 0) {
        open_libplace(&s, p, NULL);
    } else {
        struct place_tier_config *t = place_policy_tier(p, section, true);
        /* a kind declares the tier: a whole tier can come from the environment */
        if (!t && strcmp(key, "kind") == 0) {
            char why[256];
            struct place_buf b = PLACE_BUF(why);
            char name[PLACE_NAME_MAX];
            if (!place_value_name(section, name, &b)) {
                place_policy_error(p, at, "%s", why);
                return;
            }
            if (!(t = new_tier(p, name))) {
                place_policy_error(p, at, "too many tiers; expected at most %d", PLACE_MAX_TIERS);
                return;
            }
        }
        /* implied by its name (hbw, symmetric...) or new, the tier is now declared here,
         * and checked as one: a numa tier must name its nodes */
        if (t && !t->declared && strcmp(key, "kind") == 0) {
            t->declared = true;
            t->at = *at;
        }
        if (!t) {
            place_policy_error(p, at,
                               "no tier named '%s'; expected a tier the policy declares, or "
                               "one that LIBPLACE_KIND_<TIER> declares",
                               section);
            return;
        }
        open_tier(&s, t);
    }
    set_key(p, &s, at, key, value, false);
}
