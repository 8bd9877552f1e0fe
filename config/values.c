#include "values.h"

#include <ctype.h>
#include <errno.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../policy/base/glob.h"

static const char size_expected[] = "expected a size such as 4096, 64K, 1M or 2G";

/* Sizes end up in the tiers' byte counters, which are signed 64-bit (int64_t), and in
 * what the runtime query answers (long long): a size past INT64_MAX would read back as a
 * negative number, so the largest size is INT64_MAX bytes, 8E less one byte. */
static void too_large(const char *s, struct place_buf *why)
{
    place_bprintf(why,
                  "'%.64s' is too large; expected a size of at most %llu (8E - 1 byte), such "
                  "as 4096, 64K, 1M or 2G",
                  s, (unsigned long long)PLACE_SIZE_MAX);
}

bool place_value_size(const char *s, uint64_t *out, struct place_buf *why)
{
    const char *text = s;
    if (!*s) {
        place_bprintf(why, "no size; %s", size_expected);
        return false;
    }
    if (!isdigit((unsigned char)*s)) {
        place_bprintf(why, "'%.64s' is not a size; %s", s, size_expected);
        return false;
    }
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); s++)
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s - '0', &v)) {
            too_large(text, why);
            return false;
        }
    static const char units[] = "KMGTPE";
    unsigned shift = 0;
    const char *unit = s;
    const char *u = *s ? strchr(units, toupper((unsigned char)*s)) : NULL;
    if (u) {
        shift = 10 * (unsigned)(u - units + 1);
        s++;
        if (s[0] == 'i' && (s[1] == 'B' || s[1] == 'b'))
            s += 2;
        else if (*s == 'B' || *s == 'b')
            s++;
    } else if (*s == 'B' || *s == 'b') {
        s++;
    }
    if (*s) {
        if (*unit == '.')
            place_bprintf(why, "fractions are not accepted; %s (1536K, not 1.5M)", size_expected);
        else
            place_bprintf(why, "'%.64s' is not a size unit; %s", unit, size_expected);
        return false;
    }
    if (v > (PLACE_SIZE_MAX >> shift)) {
        too_large(text, why);
        return false;
    }
    *out = v << shift;
    return true;
}

bool place_value_window(const char *s, uint64_t *min, uint64_t *max, struct place_buf *why)
{
    const char *dots = strstr(s, "..");
    if (!*s) {
        place_bprintf(why, "no window; expected MIN..MAX with either end left out, as 1M.. for "
                           "1M and above, ..64K for up to 64K or 4K..64K");
        return false;
    }
    if (!dots) {
        place_bprintf(why,
                      "a single size is not a window; expected MIN..MAX with either end left "
                      "out: '%.64s..' for %.64s and above, '..%.64s' for up to %.64s",
                      s, s, s, s);
        return false;
    }
    char lo[64], hi[64];
    size_t n = (size_t)(dots - s);
    if (n >= sizeof lo || strlen(dots + 2) >= sizeof hi) {
        place_bprintf(why, "the window is too long; expected MIN..MAX such as 1M.. or 4K..64K");
        return false;
    }
    memcpy(lo, s, n);
    lo[n] = 0;
    strcpy(hi, dots + 2);
    *min = 0;
    *max = UINT64_MAX;
    if (*lo && !place_value_size(lo, min, why))
        return false;
    if (*hi && !place_value_size(hi, max, why))
        return false;
    if (*min > *max) {
        place_bprintf(why, "MIN is larger than MAX; expected MIN..MAX with MIN <= MAX");
        return false;
    }
    return true;
}

bool place_value_uint(const char *s, unsigned lo, unsigned hi, unsigned *out, struct place_buf *why)
{
    if (!*s) {
        place_bprintf(why, "no number; expected a number from %u to %u", lo, hi);
        return false;
    }
    unsigned long long v = 0;
    const char *c = s;
    for (; isdigit((unsigned char)*c) && v <= hi; c++)
        v = v * 10 + (unsigned)(*c - '0');
    if (c == s || *c || v < lo || v > hi) {
        place_bprintf(why, "'%.64s' is not a number from %u to %u; expected one", s, lo, hi);
        return false;
    }
    *out = (unsigned)v;
    return true;
}

struct weights {
    uint8_t *out;
    struct place_buf *why;
};

#define NODES_EXPECTED                                                                         \
    "expected node numbers from 0 to 63 and ranges, as 1 or 2-3 or 0,2-3, or all; !LIST for "  \
    "all but LIST, +LIST for nodes counted among those this process may use (numactl's syntax)"

struct nodes {
    uint64_t mask;
    struct place_buf *why;
};

static bool node_range(void *arg, const char *field)
{
    struct nodes *n = arg;
    unsigned a, b;
    char first[16];
    const char *dash = strchr(field, '-');
    size_t len = dash ? (size_t)(dash - field) : strlen(field);
    if (len == 0 || len >= sizeof first)
        goto bad;
    memcpy(first, field, len);
    first[len] = 0;
    struct place_buf quiet = PLACE_BUF((char[8]){0});
    if (!place_value_uint(first, 0, 63, &a, &quiet))
        goto bad;
    b = a;
    if (dash && (!place_value_uint(dash + 1, 0, 63, &b, &quiet) || b < a))
        goto bad;
    for (unsigned k = a; k <= b; k++)
        n->mask |= 1ull << k;
    return true;
bad:
    place_bprintf(n->why,
                  "'%.64s' is not a node or range of nodes; " NODES_EXPECTED, field);
    return false;
}

/* The nodes this process may use (its cpuset's), as the kernel says; node 0 if it does not.
 * A system call, not libnuma: the policy is read before libnuma is loaded, if it ever is. */
static uint64_t mems_allowed(void)
{
    unsigned long allowed[1024 / (8 * sizeof(unsigned long))] = {0};
    if (syscall(SYS_get_mempolicy, NULL, allowed, 1024ul, NULL, MPOL_F_MEMS_ALLOWED) != 0)
        return 1;
    return (uint64_t)allowed[0];
}

static void print_mask(struct place_buf *b, uint64_t mask)
{
    const char *sep = "";
    for (unsigned k = 0; k < 64; k++)
        if (mask >> k & 1) {
            unsigned end = k;
            while (end < 63 && mask >> (end + 1) & 1)
                end++;
            place_bprintf(b, end > k ? "%s%u-%u" : "%s%u", sep, k, end);
            sep = ",";
            k = end;
        }
}

/* numactl's node syntax: [!][+]LIST or all, against the nodes this process may use. */
bool place_value_nodes(const char *s, uint64_t *mask, struct place_buf *why)
{
    const char *given = s;
    bool invert = *s == '!';
    s += invert;
    bool relative = *s == '+';
    s += relative;
    if (!*s) {
        place_bprintf(why, "no nodes; " NODES_EXPECTED);
        return false;
    }
    uint64_t allowed = mems_allowed(), m = allowed;
    if (strcmp(s, "all") != 0) {
        struct nodes n = {0, why};
        if (!place_value_split(s, ',', node_range, &n))
            return false;
        m = n.mask;
    }
    if (relative && strcmp(s, "all") != 0) {
        /* +N: the Nth of the allowed nodes */
        uint64_t abs = 0, left = allowed;
        for (unsigned k = 0; k < 64 && left; k++) {
            uint64_t lowest = left & -left;
            if (m >> k & 1)
                abs |= lowest;
            left &= left - 1;
            m &= ~(1ull << k);
        }
        if (m) {
            int count = __builtin_popcountll(allowed);
            place_bprintf(why, "'%.64s' counts past the node%s this process may use (", given,
                          place_plural_s(count));
            print_mask(why, allowed);
            place_bprintf(why, "); expected +N with N below %d", count);
            return false;
        }
        m = abs;
    }
    if (invert)
        m = allowed & ~m;
    if (!m) {
        place_bprintf(why, "'%.64s' leaves none of the nodes this process may use (", given);
        print_mask(why, allowed);
        place_bprintf(why, "); expected a list that keeps at least one");
        return false;
    }
    *mask = m;
    return true;
}

bool place_value_name(const char *s, char out[PLACE_NAME_MAX], struct place_buf *why)
{
    size_t n = strlen(s);
    bool ok = n > 0 && n < PLACE_NAME_MAX && isalpha((unsigned char)s[0]);
    for (size_t k = 0; ok && k < n; k++)
        ok = isalnum((unsigned char)s[k]) || s[k] == '_' || s[k] == '-';
    if (!ok) {
        place_bprintf(why,
                      "'%.64s' is not a name; expected a letter followed by letters, digits, '_' "
                      "or '-', at most %d characters",
                      s, PLACE_NAME_MAX - 1);
        return false;
    }
    memcpy(out, s, n + 1);
    return true;
}

bool place_value_word(const char *s, const char *const *words, int *out, struct place_buf *why)
{
    for (int k = 0; words[k]; k++)
        if (strcmp(s, words[k]) == 0) {
            *out = k;
            return true;
        }
    if (*s)
        place_bprintf(why, "'%.64s' is not accepted here; expected ", s);
    else
        place_bprintf(why, "no value; expected ");
    for (int k = 0; words[k]; k++)
        place_bprintf(why, "%s%s", k == 0 ? "" : words[k + 1] ? ", " : " or ", words[k]);
    return false;
}

/* A glob base/glob.h takes as written (place_glob_valid). Whitespace is refused, since
 * symbol and file names have none and a space usually means a missing '|'. */
static bool glob_ok(const char *g)
{
    if (!*g)
        return false;
    for (const char *c = g; *c; c++)
        if (isspace((unsigned char)*c) || *c == '|' || *c == ':')
            return false;
    return place_glob_valid(g);
}

static bool glob_field(void *forbidden, const char *field)
{
    return glob_ok(field) && !strpbrk(field, forbidden);
}

bool place_value_globs(const char *s, const char *forbidden, char *out, size_t cap)
{
    if (strlen(s) >= cap || !place_value_split(s, ',', glob_field, (void *)forbidden))
        return false;
    strcpy(out, s);
    return true;
}

const char *place_pattern_text(const struct place_pattern *pat, char *out, size_t cap)
{
    struct place_buf b = {.s = out, .cap = cap};
    if (pat->exact)
        place_bprintf(&b, "%s+0x%llx", pat->module, (unsigned long long)pat->offset);
    else if (*pat->module)
        place_bprintf(&b, "%s:%s", pat->module, pat->function);
    else
        place_bprintf(&b, "%s", pat->function);
    return out;
}

bool place_value_pattern(const char *s, struct place_pattern *out, struct place_buf *why)
{
    static const char expected[] =
        "expected FUNCTION_GLOB, MODULE_GLOB:FUNCTION_GLOB or MODULE+0xOFFSET, as *dgemm*, "
        "libsolver.so*:* or solver+0x4a3f0";
    memset(out, 0, sizeof *out);
    size_t n = strlen(s);
    if (n == 0 || n >= PLACE_PATTERN_MAX) {
        place_bprintf(why, n ? "the pattern is too long; %s" : "an empty pattern; %s", expected);
        return false;
    }
    const char *plus = strstr(s, "+0x");
    if (plus && !strpbrk(s, "*?[:")) {
        uint64_t off = 0;
        const char *h = plus + 3;
        bool ok = plus > s && *h;
        for (; ok && *h; h++) {
            int d = isdigit((unsigned char)*h)    ? *h - '0'
                    : isxdigit((unsigned char)*h) ? tolower((unsigned char)*h) - 'a' + 10
                                                  : -1;
            ok = d >= 0 && off >> 60 == 0;
            off = off << 4 | (uint64_t)(d < 0 ? 0 : d);
        }
        memcpy(out->module, s, (size_t)(plus - s));
        if (!ok || !glob_ok(out->module)) {
            place_bprintf(why, "'%.64s' is not MODULE+0xOFFSET; %s", s, expected);
            return false;
        }
        out->exact = true;
        out->offset = off;
        return true;
    }
    const char *colon = strchr(s, ':');
    if (colon) {
        memcpy(out->module, s, (size_t)(colon - s));
        strcpy(out->function, colon + 1);
    } else {
        strcpy(out->function, s);
    }
    if ((colon && !glob_ok(out->module)) || !glob_ok(out->function)) {
        place_bprintf(why, "'%.64s' is not a site pattern; %s", s, expected);
        return false;
    }
    return true;
}

bool place_value_split(const char *s, char sep, bool (*fn)(void *arg, const char *field), void *arg)
{
    for (;;) {
        const char *end = strchr(s, sep);
        size_t n = end ? (size_t)(end - s) : strlen(s);
        while (n && isspace((unsigned char)*s))
            s++, n--;
        while (n && isspace((unsigned char)s[n - 1]))
            n--;
        char field[PLACE_PATTERN_MAX + 1];
        if (n >= sizeof field)
            n = sizeof field - 1; /* the callers refuse fields this long */
        memcpy(field, s, n);
        field[n] = 0;
        if (!fn(arg, field))
            return false;
        if (!end)
            return true;
        s = end + 1;
    }
}

static bool differs(void *name, const char *glob)
{
    return !place_glob_match(glob, name); /* false (a match) stops the split */
}

bool place_value_globs_match(const char *globs, const char *name)
{
    return *globs && !place_value_split(globs, ',', differs, (void *)name);
}

bool place_value_duration(const char *s, unsigned *ms, struct place_buf *why)
{
    if (!*s) {
        place_bprintf(why, "no duration; expected a number with ms or s, as 500ms or 2s");
        return false;
    }
    char *end;
    errno = 0;
    unsigned long long n = strtoull(s, &end, 10);
    if (end == s || *s == '-' || *s == '+') {
        place_bprintf(why,
                      "'%.64s' is not a duration; expected a number with ms or s, as 500ms "
                      "or 2s",
                      s);
        return false;
    }
    unsigned long long scale = strcmp(end, "ms") == 0 ? 1 : strcmp(end, "s") == 0 ? 1000 : 0;
    if (!scale) {
        place_bprintf(why, "'%.64s' has no unit of time; expected ms or s, as 500ms or 2s", s);
        return false;
    }
    if (errno == ERANGE || n > UINT32_MAX / scale) {
        place_bprintf(why, "'%.64s' is too long; expected at most %us", s, UINT32_MAX / 1000);
        return false;
    }
    *ms = (unsigned)(n * scale);
    return true;
}

#define WEIGHTS_EXPECTED                                                                       \
    "expected NODE:WEIGHT pairs, as 0:3,1:1 (nodes 0 to 63, weights 1 to 255), or bandwidth"

static bool weight(void *arg, const char *field)
{
    struct weights *w = arg;
    unsigned node, share;
    const char *colon = strchr(field, ':');
    char n[8];
    struct place_buf quiet = PLACE_BUF((char[8]){0});
    if (!colon || (size_t)(colon - field) >= sizeof n) {
        place_bprintf(w->why, "'%.64s' is not NODE:WEIGHT; " WEIGHTS_EXPECTED, field);
        return false;
    }
    memcpy(n, field, (size_t)(colon - field));
    n[colon - field] = 0;
    if (!place_value_uint(n, 0, 63, &node, &quiet) ||
        !place_value_uint(colon + 1, 1, 255, &share, &quiet)) {
        place_bprintf(w->why, "'%.64s' is not NODE:WEIGHT; " WEIGHTS_EXPECTED, field);
        return false;
    }
    if (w->out[node]) {
        place_bprintf(w->why, "node %u is weighed twice; " WEIGHTS_EXPECTED, node);
        return false;
    }
    w->out[node] = (uint8_t)share;
    return true;
}

bool place_value_weights(const char *s, uint8_t w[64], bool *bandwidth, struct place_buf *why)
{
    uint8_t out[64] = {0};
    *bandwidth = strcmp(s, "bandwidth") == 0;
    if (*bandwidth) {
        memset(w, 0, 64);
        return true;
    }
    if (!*s) {
        place_bprintf(why, "no weights; " WEIGHTS_EXPECTED);
        return false;
    }
    struct weights ws = {out, why};
    if (!place_value_split(s, ',', weight, &ws))
        return false;
    memcpy(w, out, 64);
    return true;
}
