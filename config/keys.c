#include "keys.h"

#include <signal.h>
#include <string.h>

#include "../policy/base/path.h"
#include "values.h"

const char *const place_kind_names[] = {"dram",    "hbw",    "numa",      "pinned",
                                        "managed", "device", "symmetric", NULL};

const char *place_kind_name(enum place_kind k)
{
    return place_kind_names[k];
}

static const char *const on_full_names[] = {"fallback", "wait", "overflow", "fail", NULL};

const char *place_on_full_name(enum place_on_full f)
{
    return on_full_names[f];
}

/* A word from a fixed set, stored as an enum. */
#define WORD_KEY(fn, type, field, ...)                                                             \
    static bool fn(struct place_policy *p, void *o, const char *v, struct place_buf *why)          \
    {                                                                                              \
        (void)p;                                                                                   \
        static const char *const words[] = {__VA_ARGS__, NULL};                                    \
        int k;                                                                                     \
        if (!place_value_word(v, words, &k, why))                                                  \
            return false;                                                                          \
        ((type *)o)->field = k;                                                                    \
        return true;                                                                               \
    }

/* yes/no (or 1/0), stored as a bool. */
#define BOOL_KEY(fn, type, field)                                                                  \
    static bool fn(struct place_policy *p, void *o, const char *v, struct place_buf *why)          \
    {                                                                                              \
        (void)p;                                                                                   \
        static const char *const words[] = {"no", "yes", "0", "1", NULL};                          \
        int k;                                                                                     \
        if (!place_value_word(v, words, &k, why))                                                  \
            return false;                                                                          \
        ((type *)o)->field = k & 1;                                                                \
        return true;                                                                               \
    }

/* A size or a number in [lo, hi], stored in a field of the section's object. */
#define SIZE_KEY(fn, type, field)                                                                  \
    static bool fn(struct place_policy *p, void *o, const char *v, struct place_buf *why)          \
    {                                                                                              \
        (void)p;                                                                                   \
        return place_value_size(v, &((type *)o)->field, why);                                      \
    }

#define UINT_KEY(fn, type, field, lo, hi)                                                          \
    static bool fn(struct place_policy *p, void *o, const char *v, struct place_buf *why)          \
    {                                                                                              \
        (void)p;                                                                                   \
        unsigned n;                                                                                \
        if (!place_value_uint(v, lo, hi, &n, why))                                                 \
            return false;                                                                          \
        ((type *)o)->field = n;                                                                    \
        return true;                                                                               \
    }

/* [libplace] */

static bool set_report(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    if (strcmp(v, "stdout") == 0) {
        place_bprintf(why, "stdout is not offered, as the report would mix into the program's "
                           "own output; expected stderr or a file path");
        return false;
    }
    if (strcmp(v, "stderr") != 0 &&
        (strlen(v) >= sizeof p->report || place_report_path(v, NULL, 0))) {
        place_bprintf(why, "not a usable report path; expected stderr or a file path, where %%p "
                           "is the pid, %%h the host, %%r the MPI rank, %%j the job id, "
                           "%%q{NAME} the variable NAME, %%t the start time and %%%% a percent "
                           "sign");
        return false;
    }
    strcpy(p->report, v);
    return true;
}

/* Process names or globs, separated by commas: only those processes write a report. */
static bool set_report_only(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    if (!place_value_globs(v, "/", p->report_only, sizeof p->report_only)) {
        place_bprintf(why, "expected process names or globs separated by commas, as the "
                           "report's first line names the process (solver, python3*), "
                           "at most %zu characters",
                      sizeof p->report_only - 1);
        return false;
    }
    return true;
}

WORD_KEY(set_report_format, struct place_policy, report_format, "text", "json")

/* The signal that asks for a report while the program runs: a name, as USR1 or SIGUSR1. */
static bool set_report_signal(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    static const char *const words[] = {"none",    "USR1",    "USR2",   "HUP",
                                        "SIGUSR1", "SIGUSR2", "SIGHUP", NULL};
    static const int numbers[] = {0, SIGUSR1, SIGUSR2, SIGHUP, SIGUSR1, SIGUSR2, SIGHUP};
    int k;
    if (!place_value_word(v, words, &k, why))
        return false;
    p->report_signal = numbers[k];
    return true;
}

BOOL_KEY(set_report_children, struct place_policy, report_children)
BOOL_KEY(set_report_on_fatal, struct place_policy, report_on_fatal)
WORD_KEY(set_verify, struct place_policy, verify, "sample", "all", "off")

WORD_KEY(set_on_error, struct place_policy, on_error, "abort", "passthrough")

/* yes, no, or fold: a dry run whose big planned blocks share one buffer. */
static bool set_dry_run(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    static const char *const words[] = {"no", "yes", "0", "1", "fold", NULL};
    int k;
    if (!place_value_word(v, words, &k, why))
        return false;
    p->dry_run = k != 0 && k != 2;
    p->fold = k == 4;
    return true;
}

/* A size of a page or more, into *out. */
static bool page_or_more(const char *v, uint64_t *out, struct place_buf *why)
{
    uint64_t n;
    if (!place_value_size(v, &n, why))
        return false;
    if (n < 4096) {
        place_bprintf(why, "'%s' is less than a page; expected a size of 4K or more", v);
        return false;
    }
    *out = n;
    return true;
}

/* Each folded block keeps its first page to itself. */
static bool set_fold_min(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    return page_or_more(v, &p->fold_min, why);
}

/* off, or access: the access profile (stats/access.h). */
static bool set_profile(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    static const char *const words[] = {"off", "access", NULL};
    int k;
    if (!place_value_word(v, words, &k, why))
        return false;
    p->profile_access = k == 1;
    return true;
}

/* A tracked block is a mapping of its own: a page at least. */
static bool set_profile_min(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    return page_or_more(v, &p->profile_min, why);
}

/* 10 ms to 60 s: below that the sampler's reads would cost more than they tell. */
static bool set_profile_interval(struct place_policy *p, void *o, const char *v,
                                 struct place_buf *why)
{
    (void)o;
    unsigned ms;
    if (!place_value_duration(v, &ms, why))
        return false;
    if (ms < 10 || ms > 60000) {
        place_bprintf(why, "'%s' is out of range; expected 10ms to 60s", v);
        return false;
    }
    p->profile_interval_ms = ms;
    return true;
}

UINT_KEY(set_sites, struct place_policy, sites, 0, PLACE_MAX_SITES)
UINT_KEY(set_report_depth, struct place_policy, report_depth, 1, PLACE_MAX_DEPTH)

/* The profile's mean interval: a size, or all. */
static bool set_sample(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    if (strcmp(v, "all") == 0) {
        p->sample = 0;
        return true;
    }
    uint64_t n;
    if (!place_value_size(v, &n, why) || n == 0) {
        if (!why->len)
            place_bprintf(why, "expected a size of at least 1, as 512K (every 512 KiB asked for, "
                               "on average), or all (every allocation)");
        return false;
    }
    p->sample = n;
    return true;
}

/* Globs separated by commas, into field (what: the examples an error gives). */
static bool set_globs(const char *v, char *field, size_t n, const char *what, struct place_buf *why)
{
    if (!place_value_globs(v, ":+", field, n)) {
        place_bprintf(why, "expected %s separated by commas, at most %zu characters", what, n - 1);
        return false;
    }
    return true;
}

/* The program's own allocation wrappers. */
static bool set_wrappers(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    return set_globs(v, p->wrappers, sizeof p->wrappers,
                     "function names or globs (my_alloc, pool_*)", why);
}

/* Libraries that keep a GPU heap of their own. */
static bool set_heaps(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    return set_globs(v, p->heaps, sizeof p->heaps,
                     "library file names or function names, or globs of them "
                     "(libc10_cuda.so*, *mempool*)",
                     why);
}

const struct place_key place_libplace_keys[] = {
    {"report", set_report, "LIBPLACE_REPORT", 0},
    {"report_format", set_report_format, "LIBPLACE_REPORT_FORMAT", 0},
    {"report_signal", set_report_signal, "LIBPLACE_REPORT_SIGNAL", 0},
    {"report_children", set_report_children, "LIBPLACE_REPORT_CHILDREN", 0},
    {"report_on_fatal", set_report_on_fatal, "LIBPLACE_REPORT_ON_FATAL", 0},
    {"report_only", set_report_only, "LIBPLACE_REPORT_ONLY", 0},
    {"verify", set_verify, "LIBPLACE_VERIFY", 0},
    {"on_error", set_on_error, "LIBPLACE_ON_ERROR", 0},
    {"dry_run", set_dry_run, "LIBPLACE_DRY_RUN", 0},
    {"fold_min", set_fold_min, "LIBPLACE_FOLD_MIN", 0},
    {"sites", set_sites, "LIBPLACE_SITES", 0},
    {"sample", set_sample, "LIBPLACE_SAMPLE", 0},
    {"report_depth", set_report_depth, "LIBPLACE_REPORT_DEPTH", 0},
    {"wrappers", set_wrappers, "LIBPLACE_WRAPPERS", 0},
    {"heaps", set_heaps, "LIBPLACE_HEAPS", 0},
    {"profile", set_profile, "LIBPLACE_PROFILE", 0},
    {"profile_min", set_profile_min, "LIBPLACE_PROFILE_MIN", 0},
    {"profile_interval", set_profile_interval, "LIBPLACE_PROFILE_INTERVAL", 0},
    {NULL, NULL, NULL, 0},
};

/* [tier NAME] */

static bool set_kind(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    int k;
    if (!place_value_word(v, place_kind_names, &k, why))
        return false;
    if (o == &p->tiers[0] && k != PLACE_DRAM) {
        place_bprintf(why,
                      "dram is glibc's memory and keeps kind dram; expected kind = dram, or "
                      "another name for a %s tier",
                      place_kind_names[k]);
        return false;
    }
    ((struct place_tier_config *)o)->kind = (enum place_kind)k;
    return true;
}

SIZE_KEY(set_limit, struct place_tier_config, limit)

static bool set_policy(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    static const char *const words[] = {"bind", "bind_all", "preferred", "interleave",
                                        "weighted_interleave", NULL};
    int k;
    if (!place_value_word(v, words, &k, why))
        return false;
    ((struct place_tier_config *)o)->policy = (enum place_mempolicy)(k + 1);
    return true;
}

WORD_KEY(set_pagesize, struct place_tier_config, pagesize, "4K", "2M", "THP")

static bool set_nodes(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_nodes(v, &((struct place_tier_config *)o)->nodes, why);
}

UINT_KEY(set_device, struct place_tier_config, device, 0, 1023)
SIZE_KEY(set_chunk_initial, struct place_tier_config, chunk_initial)
SIZE_KEY(set_chunk_max, struct place_tier_config, chunk_max)
UINT_KEY(set_chunk_growth, struct place_tier_config, chunk_growth, 1, 16)
UINT_KEY(set_reclaim_min, struct place_tier_config, reclaim_min, 0, 100)
UINT_KEY(set_reclaim_target, struct place_tier_config, reclaim_target, 0, 100)
WORD_KEY(set_scope, struct place_tier_config, scope, "process", "node")
WORD_KEY(set_near, struct place_tier_config, near, "first", "cpu")

static bool set_weights(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    struct place_tier_config *t = o;
    return place_value_weights(v, t->weights, &t->weights_bandwidth, why);
}

static bool set_location(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    struct place_tier_config *t = o;
    if (strcmp(v, "host") == 0) {
        t->location = -1;
        return true;
    }
    if (strcmp(v, "device") == 0) {
        t->location = 0;
        return true;
    }
    unsigned d;
    struct place_buf quiet = PLACE_BUF((char[8]){0});
    if (strncmp(v, "device", 6) == 0 && place_value_uint(v + 6, 0, 1023, &d, &quiet)) {
        t->location = (int)d;
        return true;
    }
    if (*v)
        place_bprintf(why, "'%.64s' is not a location; expected host, device or deviceN", v);
    else
        place_bprintf(why, "no location; expected host, device or deviceN");
    return false;
}

/* In the order of the PLACE_TKEY_* indexes, each with the kinds it fits. */
#define KIND(k) (1u << PLACE_##k)
const struct place_key place_tier_keys[] = {
    {"kind", set_kind, "KIND", PLACE_ALL_KINDS},
    {"limit", set_limit, "LIMIT", PLACE_ALL_KINDS},
    {"policy", set_policy, "POLICY", KIND(HBW) | KIND(NUMA)},
    {"pagesize", set_pagesize, "PAGESIZE", KIND(HBW)},
    {"nodes", set_nodes, "NODES", KIND(NUMA)},
    {"device", set_device, "DEVICE", KIND(DEVICE)},
    {"chunk_initial", set_chunk_initial, "CHUNK_INITIAL", KIND(PINNED) | KIND(MANAGED)},
    {"chunk_max", set_chunk_max, "CHUNK_MAX", KIND(PINNED) | KIND(MANAGED)},
    {"chunk_growth", set_chunk_growth, "CHUNK_GROWTH", KIND(PINNED) | KIND(MANAGED)},
    {"location", set_location, "LOCATION", KIND(MANAGED)},
    /* a symmetric heap's memory is the SHMEM library's: nothing to reclaim */
    {"reclaim_min", set_reclaim_min, "RECLAIM_MIN", PLACE_ALL_KINDS & ~KIND(SYMMETRIC)},
    {"reclaim_target", set_reclaim_target, "RECLAIM_TARGET", PLACE_ALL_KINDS & ~KIND(SYMMETRIC)},
    {"scope", set_scope, "SCOPE", PLACE_ALL_KINDS},
    {"weights", set_weights, "WEIGHTS", KIND(NUMA) | KIND(HBW)},
    {"near", set_near, "NEAR", KIND(HBW) | KIND(NUMA)},
    {NULL, NULL, NULL, 0},
};

/* [rule NAME] */

static bool set_api(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    static const char *const words[] = {"malloc", "cuda", "any", "shmem", NULL};
    static const unsigned apis[] = {PLACE_API_MALLOC, PLACE_API_CUDA, PLACE_API_ANY,
                                    PLACE_API_SHMEM};
    int k;
    if (!place_value_word(v, words, &k, why))
        return false;
    ((struct place_rule_config *)o)->api = apis[k];
    return true;
}

static bool set_size(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    struct place_rule_config *r = o;
    return place_value_window(v, &r->min, &r->max, why);
}

struct site_fields {
    struct place_policy *p;
    struct place_rule_config *r;
    struct place_buf *why;
};

static bool add_pattern(void *arg, const char *field)
{
    struct site_fields *f = arg;
    if (f->p->npatterns == PLACE_MAX_PATTERNS) {
        place_bprintf(f->why, "too many site patterns; expected at most %d in the whole policy",
                      PLACE_MAX_PATTERNS);
        return false;
    }
    struct place_pattern *pat = &f->p->patterns[f->p->npatterns];
    if (!place_value_pattern(field, pat, f->why))
        return false;
    f->r->patterns |= 1ull << f->p->npatterns++;
    return true;
}

static bool set_site(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    struct place_rule_config *r = o;
    struct site_fields f = {p, r, why};
    unsigned before = p->npatterns;
    if (place_value_split(v, '|', add_pattern, &f))
        return true;
    /* drop what this value added, so that a later fix is not confused by leftovers */
    for (unsigned k = before; k < p->npatterns; k++)
        r->patterns &= ~(1ull << k);
    p->npatterns = before;
    return false;
}

UINT_KEY(set_depth, struct place_rule_config, depth, 1, PLACE_MAX_DEPTH)

struct chain_fields {
    struct place_rule_config *r;
    struct place_buf *why;
};

static bool add_link(void *arg, const char *field)
{
    struct chain_fields *f = arg;
    struct place_rule_config *r = f->r;
    if (r->nchain == PLACE_MAX_CHAIN) {
        place_bprintf(f->why, "the chain is too long; expected at most %d tiers", PLACE_MAX_CHAIN);
        return false;
    }
    if (!*field) {
        place_bprintf(f->why, "an empty place in the chain; expected tier names separated by "
                              "commas, as hbw, dram");
        return false;
    }
    if (!place_value_name(field, r->chain_text[r->nchain], f->why))
        return false;
    for (unsigned k = 0; k < r->nchain; k++)
        if (strcmp(r->chain_text[k], field) == 0) {
            place_bprintf(f->why, "'%s' is listed twice; expected each tier once", field);
            return false;
        }
    r->nchain++;
    return true;
}

static bool set_to(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    struct place_rule_config *r = o;
    struct chain_fields f = {r, why};
    r->nchain = 0;
    if (place_value_split(v, ',', add_link, &f))
        return true;
    r->nchain = 0;
    return false;
}

WORD_KEY(set_on_full, struct place_rule_config, on_full, "fallback", "wait", "overflow", "fail")

static bool set_wait(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_duration(v, &((struct place_rule_config *)o)->wait_ms, why);
}

static bool set_name(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_name(v, ((struct place_rule_config *)o)->name, why);
}

/* "name" is last (after "wait"): it is offered only in inline rules, where there is no [rule NAME].
 */
const struct place_key place_rule_keys[] = {
    {"api", set_api, NULL, 0},     {"size", set_size, NULL, 0}, {"site", set_site, NULL, 0},
    {"depth", set_depth, NULL, 0}, {"to", set_to, NULL, 0},     {"on_full", set_on_full, NULL, 0},
    {"wait", set_wait, NULL, 0},   {"name", set_name, NULL, 0}, {NULL, NULL, NULL, 0},
};
