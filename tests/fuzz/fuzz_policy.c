/* libFuzzer target for the policy parser (config/parse.c and the value parsers under it).
 *
 * Input: one mode byte, then the text, up to the first NUL byte (a policy file with a NUL
 * is refused before it reaches the parser, and an environment variable cannot hold one):
 *
 *   'i'  the text is LIBPLACE_RULES (place_policy_parse_inline)
 *   'b'  both: the text up to the first "\n%%\n" is the policy file, what follows is
 *        LIBPLACE_RULES; parsed as config/options.c does, the rules first
 *   any other byte: the text is a policy file (place_policy_parse_text)
 *
 * Besides the sanitizers, it aborts when a promise of the parser is broken:
 *   - every error is one non-empty line "SOURCE...: TEXT", shorter than the 8 KiB that
 *     place_policy_error cuts at, that says what was expected;
 *   - the counts stay within the fixed arrays, and a policy without errors is usable:
 *     every rule has a chain of existing tiers, a window with MIN <= MAX and a depth in
 *     1..16.
 *
 * Build and run: tests/fuzz/run [SECONDS]. Reproduce: build/fuzz/fuzz_policy CRASH_FILE. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/policy.h"

/* place_policy_error's line buffer: a message this long or longer was cut. (An exploration
 * build against a parser with larger buffers can raise it with -DFUZZ_MESSAGE_MAX=N.) */
#ifndef FUZZ_MESSAGE_MAX
#define FUZZ_MESSAGE_MAX 8192 /* config/parse.c formats messages into 8 KiB */
#endif

static const char file_source[] = "fuzz.ini";
static const char inline_source[] = "LIBPLACE_RULES";

struct errors {
    unsigned count;
    const char *text; /* the input (in mode 'b' its file part), for the report of a broken promise */
};

static struct errors errs;
static struct place_policy policy; /* ~100 KB: not on the stack */

static void broken(const char *what, const char *line)
{
    fprintf(stderr, "fuzz_policy: %s\n  message: \"%s\"\n  input: \"%s\"\n", what,
            line ? line : "(null)", errs.text);
    abort();
}

/* "SOURCE: ", "SOURCE:LINE: " or "SOURCE rule N: " */
static int starts_with_origin(const char *line, const char *source)
{
    size_t n = strlen(source);
    if (strncmp(line, source, n) != 0)
        return 0;
    const char *s = line + n;
    if (strncmp(s, ": ", 2) == 0)
        return 1;
    if (*s == ':' || strncmp(s, " rule ", 6) == 0) {
        s += *s == ':' ? 1 : 6;
        if (*s < '1' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
        return strncmp(s, ": ", 2) == 0;
    }
    return 0;
}

static void on_error(void *ctx, const char *line)
{
    struct errors *e = ctx;
    e->count++;
    if (!line || !*line)
        broken("an empty error message", line);
    if (!starts_with_origin(line, file_source) && !starts_with_origin(line, inline_source))
        broken("an error message that does not start with its origin", line);
    if (strchr(line, '\n'))
        broken("an error message of more than one line", line);
    if (!strstr(line, "expected"))
        broken("an error message that does not say what was expected", line);
    if (strlen(line) >= FUZZ_MESSAGE_MAX - 1)
        broken("an error message cut at 8 KiB", line);
}

static void check_policy(const struct place_policy *p)
{
    const char *why = NULL;
    if (p->errors != errs.count)
        why = "p->errors differs from the number of messages";
    else if (p->ntiers < 1 || p->ntiers > PLACE_MAX_TIERS)
        why = "ntiers out of range";
    else if (p->nrules > PLACE_MAX_RULES)
        why = "nrules out of range";
    else if (p->npatterns > PLACE_MAX_PATTERNS)
        why = "npatterns out of range";
    else if (p->sites > PLACE_MAX_SITES)
        why = "sites out of range";
    else if (strcmp(p->tiers[0].name, "dram") != 0)
        why = "tier 0 is not named dram";
    else if (p->errors == 0 && p->tiers[0].kind != PLACE_DRAM)
        why = "tier 0 (dram, glibc's memory) has another kind, and no error";
    if (why)
        broken(why, "");
    for (unsigned k = 0; k < p->ntiers; k++) {
        const struct place_tier_config *t = &p->tiers[k];
        if (strnlen(t->name, PLACE_NAME_MAX) == PLACE_NAME_MAX || !t->name[0])
            broken("a tier name without its NUL, or empty", "");
        if ((unsigned)t->kind > PLACE_KIND_LAST)
            broken("a tier kind out of range", t->name);
        for (unsigned j = 0; j < k; j++)
            if (strcmp(p->tiers[j].name, t->name) == 0)
                broken("two tiers with one name", t->name);
        if (p->errors == 0 && t->chunk_initial > t->chunk_max)
            broken("chunk_initial > chunk_max without an error", t->name);
    }
    uint64_t all = p->npatterns == 64 ? ~0ull : (1ull << p->npatterns) - 1;
    for (unsigned k = 0; k < p->nrules; k++) {
        const struct place_rule_config *r = &p->rules[k];
        if (strnlen(r->name, PLACE_NAME_MAX) == PLACE_NAME_MAX || !r->name[0])
            broken("a rule name without its NUL, or empty", "");
        if (r->nchain > PLACE_MAX_CHAIN)
            broken("a chain longer than PLACE_MAX_CHAIN", r->name);
        if (r->patterns & ~all)
            broken("a rule names a pattern past npatterns", r->name);
        if (p->errors)
            continue;
        if (r->nchain < 1)
            broken("a rule without a chain, and no error", r->name);
        for (unsigned j = 0; j < r->nchain; j++)
            if (r->chain[j] >= p->ntiers)
                broken("a chain index past ntiers, and no error", r->name);
        if (r->min > r->max)
            broken("MIN > MAX, and no error", r->name);
        if (r->depth < 1 || r->depth > PLACE_MAX_DEPTH)
            broken("depth out of 1..16, and no error", r->name);
        if (r->api < PLACE_API_MALLOC || r->api > PLACE_API_LAST)
            broken("api out of range, and no error", r->name);
        if ((unsigned)r->on_full > PLACE_FAIL)
            broken("on_full out of range, and no error", r->name);
        for (unsigned j = 0; j < k; j++)
            if (strcmp(p->rules[j].name, r->name) == 0)
                broken("two rules with one name, and no error", r->name);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char mode = (char)data[0];
    const char *body = (const char *)data + 1;
    size_t n = strnlen(body, size - 1); /* up to the first NUL */
    char *text = malloc(n + 1);         /* exactly sized: ASan sees any read past the end */
    if (!text)
        return 0;
    memcpy(text, body, n);
    text[n] = 0;

    errs = (struct errors){0, text};
    place_policy_init(&policy, on_error, &errs);
    if (mode == 'i') {
        place_policy_parse_inline(&policy, inline_source, text);
    } else if (mode == 'b') {
        char *split = strstr(text, "\n%%\n");
        const char *rules = "";
        if (split) {
            split[1] = 0;
            rules = split + 4;
        }
        place_policy_parse_inline(&policy, inline_source, rules);
        place_policy_parse_text(&policy, file_source, text);
    } else {
        place_policy_parse_text(&policy, file_source, text);
    }
    place_policy_finish(&policy);
    check_policy(&policy);
    free(text);
    return 0;
}
