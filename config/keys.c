#include "keys.h"

#include <string.h>

#include "../policy/report.h"
#include "values.h"

const char *const place_kind_names[] = {"dram", "hbw", "numa", "pinned", "managed", "device", NULL};

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
                           "is the pid, %%h the host, %%r the MPI rank, %%t the start time and "
                           "%%%% a percent sign");
        return false;
    }
    strcpy(p->report, v);
    return true;
}

static bool set_report_format(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p, (void)o;
    int k;
    return place_value_word(v, (const char *const[]){"text", NULL}, &k, why);
}

WORD_KEY(set_on_error, struct place_policy, on_error, "abort", "passthrough")

static bool set_dry_run(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    static const char *const words[] = {"no", "yes", "0", "1", NULL};
    int k;
    if (!place_value_word(v, words, &k, why))
        return false;
    p->dry_run = k & 1;
    return true;
}

static bool set_sites(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)o;
    return place_value_uint(v, 0, PLACE_MAX_SITES, &p->sites, why);
}

const struct place_key place_libplace_keys[] = {
    {"report", set_report, "LIBPLACE_REPORT"},
    {"report_format", set_report_format, "LIBPLACE_REPORT_FORMAT"},
    {"on_error", set_on_error, "LIBPLACE_ON_ERROR"},
    {"dry_run", set_dry_run, "LIBPLACE_DRY_RUN"},
    {"sites", set_sites, "LIBPLACE_SITES"},
    {NULL, NULL, NULL},
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

static bool set_limit(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_size(v, &((struct place_tier_config *)o)->limit, why);
}

static bool set_policy(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    static const char *const words[] = {"bind", "bind_all", "preferred", "interleave", NULL};
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

static bool set_device(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    unsigned d;
    if (!place_value_uint(v, 0, 1023, &d, why))
        return false;
    ((struct place_tier_config *)o)->device = (int)d;
    return true;
}

static bool set_chunk_initial(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_size(v, &((struct place_tier_config *)o)->chunk_initial, why);
}

static bool set_chunk_max(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_size(v, &((struct place_tier_config *)o)->chunk_max, why);
}

static bool set_chunk_growth(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_uint(v, 1, 16, &((struct place_tier_config *)o)->chunk_growth, why);
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
    place_bprintf(why, "'%.64s' is not a location; expected host, device or deviceN", v);
    return false;
}

/* In the order of the PLACE_TKEY_* indexes. */
const struct place_key place_tier_keys[] = {
    {"kind", set_kind, NULL},
    {"limit", set_limit, "LIMIT"},
    {"policy", set_policy, "POLICY"},
    {"pagesize", set_pagesize, "PAGESIZE"},
    {"nodes", set_nodes, "NODES"},
    {"device", set_device, "DEVICE"},
    {"chunk_initial", set_chunk_initial, "CHUNK_INITIAL"},
    {"chunk_max", set_chunk_max, "CHUNK_MAX"},
    {"chunk_growth", set_chunk_growth, "CHUNK_GROWTH"},
    {"location", set_location, "LOCATION"},
    {NULL, NULL, NULL},
};

/* [rule NAME] */

/* The words are the enum's bits: malloc 1, cuda 2, any 3. */
static bool set_api(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    static const char *const words[] = {"malloc", "cuda", "any", NULL};
    int k;
    if (!place_value_word(v, words, &k, why))
        return false;
    ((struct place_rule_config *)o)->api = (unsigned)k + 1;
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

static bool set_depth(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_uint(v, 1, PLACE_MAX_DEPTH, &((struct place_rule_config *)o)->depth, why);
}

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

static bool set_name(struct place_policy *p, void *o, const char *v, struct place_buf *why)
{
    (void)p;
    return place_value_name(v, ((struct place_rule_config *)o)->name, why);
}

/* "name" is last: it is offered only in inline rules, where there is no [rule NAME]. */
const struct place_key place_rule_keys[] = {
    {"api", set_api, NULL},     {"size", set_size, NULL}, {"site", set_site, NULL},
    {"depth", set_depth, NULL}, {"to", set_to, NULL},     {"on_full", set_on_full, NULL},
    {"name", set_name, NULL},   {NULL, NULL, NULL},
};
