/* LIBPLACE_CHECK=json: the policy as libplace read it, so that tools take the parser's
 * word for it instead of re-parsing the file or the English summary. */
#include "describe.h"

#include <string.h>

#include "../policy/base/fmt.h"
#include "../policy/base/json.h"
#include "keys.h"
#include "values.h"

static const char *const pagesize_names[] = {"4K", "2M", "THP"};
static const char *const report_format_names[] = {"text", "json"};
static const char *const verify_names[] = {"sample", "all", "off"};
static const char *const on_error_names[] = {"abort", "passthrough"};

/* The policy the tier will use: the kind's own default is spelled out, so that a reader
 * need not know it (policy.h: preferred for hbw, bind for numa). */
static const char *place_mempolicy_name(const struct place_tier_config *t)
{
    static const char *const names[] = {NULL,         "bind",       "bind_all",
                                        "preferred",  "interleave", "weighted_interleave"};
    if (t->policy != PLACE_MPOL_DEFAULT)
        return names[t->policy];
    return t->kind == PLACE_HBW ? "preferred" : "bind";
}

static void place_describe_nodes(struct place_json *j, uint64_t mask)
{
    place_json_open(j, "nodes", '[');
    for (unsigned n = 0; n < 64; n++)
        if (mask >> n & 1)
            place_json_uint(j, NULL, n);
    place_json_close(j, ']');
}

/* weighted_interleave: {"NODE": WEIGHT, ...}, or "bandwidth". */
static void place_describe_weights(struct place_json *j, const struct place_tier_config *t)
{
    if (t->weights_bandwidth) {
        place_json_str(j, "weights", "bandwidth");
        return;
    }
    place_json_open(j, "weights", '{');
    for (unsigned n = 0; n < 64; n++) {
        char key[4] = {(char)('0' + n / 10), (char)('0' + n % 10)};
        if (t->weights[n])
            place_json_uint(j, n < 10 ? key + 1 : key, t->weights[n]);
    }
    place_json_close(j, '}');
}

/* managed tiers: null when the driver decides where the memory lives. */
static void place_describe_location(struct place_json *j, int location)
{
    char text[24];
    struct place_buf b = PLACE_BUF(text);
    if (location == -1)
        place_bprintf(&b, "host");
    else if (location >= 0)
        place_bprintf(&b, "device%d", location);
    place_json_str(j, "location", location == -2 ? NULL : text);
}

/* One tier key's value. Keys follow the tier key table, so a key added there without a
 * case here shows up as null rather than missing. */
static void place_describe_tier_key(struct place_json *j, const struct place_tier_config *t, int k)
{
    const char *key = place_tier_keys[k].name;
    switch (k) {
    case PLACE_TKEY_LIMIT:
        place_json_uint(j, key, t->limit);
        break;
    case PLACE_TKEY_POLICY:
        place_json_str(j, key, place_mempolicy_name(t));
        break;
    case PLACE_TKEY_PAGESIZE:
        place_json_str(j, key, pagesize_names[t->pagesize]);
        break;
    case PLACE_TKEY_NODES:
        place_describe_nodes(j, t->nodes);
        break;
    case PLACE_TKEY_DEVICE:
        place_json_int(j, key, t->device);
        break;
    case PLACE_TKEY_CHUNK_INITIAL:
        place_json_uint(j, key, t->chunk_initial);
        break;
    case PLACE_TKEY_CHUNK_MAX:
        place_json_uint(j, key, t->chunk_max);
        break;
    case PLACE_TKEY_CHUNK_GROWTH:
        place_json_uint(j, key, t->chunk_growth);
        break;
    case PLACE_TKEY_LOCATION:
        place_describe_location(j, t->location);
        break;
    case PLACE_TKEY_RECLAIM_MIN:
        place_json_uint(j, key, t->reclaim_min);
        break;
    case PLACE_TKEY_RECLAIM_TARGET:
        place_json_uint(j, key, t->reclaim_target);
        break;
    case PLACE_TKEY_WEIGHTS:
        place_describe_weights(j, t);
        break;
    case PLACE_TKEY_NEAR:
        place_json_str(j, key, t->near == PLACE_NEAR_CPU ? "cpu" : "first");
        break;
    case PLACE_TKEY_SCOPE:
        place_json_str(j, key, t->scope == PLACE_SCOPE_NODE ? "node" : "process");
        break;
    default:
        place_json_str(j, key, NULL);
        break;
    }
}

static void place_describe_origin(struct place_json *j, const char *key,
                                  const struct place_origin *at)
{
    char text[PATH_MAX + 64];
    struct place_buf b = PLACE_BUF(text);
    place_origin_print(&b, at);
    place_json_str(j, key, text);
}

/* Only the keys that mean something for the tier's kind: what is left out does not apply,
 * so no reader can mistake a default for a setting. */
static void place_describe_tier(struct place_json *j, const struct place_tier_config *t)
{
    place_json_open(j, NULL, '{');
    place_json_str(j, "name", t->name);
    place_json_str(j, "kind", place_kind_name(t->kind));
    place_json_bool(j, "declared", t->declared);
    for (int k = PLACE_TKEY_KIND + 1; place_tier_keys[k].name; k++)
        if (place_tier_keys[k].kinds & 1u << t->kind &&
            (k != PLACE_TKEY_WEIGHTS || t->policy == PLACE_MPOL_WEIGHTED))
            place_describe_tier_key(j, t, k);
    /* where the tier and each key it was given came from: placerun --check's warnings
     * about this machine point there */
    place_json_open(j, "at", '{');
    if (t->declared)
        place_describe_origin(j, "tier", &t->at);
    for (int k = 0; place_tier_keys[k].name; k++)
        if (t->given >> k & 1)
            place_describe_origin(j, place_tier_keys[k].name, &t->key_at[k]);
    place_json_close(j, '}');
    place_json_close(j, '}');
}

static void place_describe_api(struct place_json *j, unsigned api)
{
    place_json_open(j, "api", '[');
    if (api & PLACE_API_MALLOC)
        place_json_str(j, NULL, "malloc");
    if (api & PLACE_API_CUDA)
        place_json_str(j, NULL, "cuda");
    if (api & PLACE_API_SHMEM)
        place_json_str(j, NULL, "shmem");
    place_json_close(j, ']');
}

static void place_describe_rule(struct place_json *j, const struct place_policy *p,
                                const struct place_rule_config *r)
{
    place_json_open(j, NULL, '{');
    place_json_str(j, "name", r->name);
    place_describe_origin(j, "at", &r->at);
    place_describe_api(j, r->api);
    place_json_uint(j, "size_min", r->min);
    if (r->max == UINT64_MAX) /* an open end, not a size anyone could ask for */
        place_json_str(j, "size_max", NULL);
    else
        place_json_uint(j, "size_max", r->max);
    place_json_open(j, "sites", '[');
    for (unsigned k = 0; k < p->npatterns; k++)
        if (r->patterns >> k & 1) {
            char text[2 * PLACE_PATTERN_MAX + 24];
            place_json_str(j, NULL, place_pattern_text(&p->patterns[k], text, sizeof text));
        }
    place_json_close(j, ']');
    place_json_uint(j, "depth", r->depth);
    /* the names as written: with errors a chain may not have resolved to tiers */
    place_json_open(j, "chain", '[');
    for (unsigned k = 0; k < r->nchain; k++)
        place_json_str(j, NULL, r->chain_text[k]);
    place_json_close(j, ']');
    place_json_str(j, "on_full", place_on_full_name(r->on_full));
    if (r->on_full == PLACE_WAIT)
        place_json_uint(j, "wait_ms", r->wait_ms);
    else
        place_json_str(j, "wait_ms", NULL);
    place_json_close(j, '}');
}

static void place_describe_settings(struct place_json *j, const struct place_policy *p)
{
    char hash[17];
    struct place_buf h = PLACE_BUF(hash);
    place_bprintf(&h, "%016llx", (unsigned long long)p->hash);
    place_json_str(j, "file", *p->file ? p->file : NULL);
    place_json_bool(j, "inline_rules", p->nrules && p->rules[0].at.in_rule);
    place_json_str(j, "hash", hash);
    place_json_str(j, "report", *p->report ? p->report : NULL);
    place_json_str(j, "report_format", report_format_names[p->report_format]);
    place_json_str(j, "report_signal", p->report_signal ? sigabbrev_np(p->report_signal) : NULL);
    place_json_bool(j, "report_children", p->report_children);
    place_json_bool(j, "report_on_fatal", p->report_on_fatal);
    place_json_str(j, "report_only", *p->report_only ? p->report_only : NULL);
    place_json_str(j, "verify", verify_names[p->verify]);
    place_json_bool(j, "dry_run", p->dry_run);
    place_json_uint(j, "fold_min", place_policy_fold_min(p));
    place_json_str(j, "on_error", on_error_names[p->on_error]);
    place_json_uint(j, "sites", p->sites);
    if (p->sample)
        place_json_uint(j, "sample", p->sample);
    else
        place_json_str(j, "sample", "all");
    place_json_uint(j, "report_depth", p->report_depth);
    place_json_str(j, "wrappers", *p->wrappers ? p->wrappers : NULL);
    place_json_str(j, "heaps", *p->heaps ? p->heaps : NULL);
    place_json_str(j, "profile", p->profile_access ? "access" : "off");
    place_json_uint(j, "profile_min", p->profile_min);
    place_json_uint(j, "profile_interval_ms", p->profile_interval_ms);
}

void place_describe_policy(const struct place_policy *p, int fd)
{
    struct place_json j = {.fd = fd};
    place_json_open(&j, NULL, '{');
    place_json_str(&j, "schema", "libplace-policy");
    place_json_int(&j, "version", 1);
    place_json_bool(&j, "ok", p->errors == 0);
    place_json_uint(&j, "errors", p->errors);
    place_describe_settings(&j, p);
    place_json_open(&j, "tiers", '[');
    for (unsigned k = 0; k < p->ntiers; k++)
        place_describe_tier(&j, &p->tiers[k]);
    place_json_close(&j, ']');
    place_json_open(&j, "rules", '[');
    for (unsigned k = 0; k < p->nrules; k++)
        place_describe_rule(&j, p, &p->rules[k]);
    place_json_close(&j, ']');
    place_json_close(&j, '}');
    place_json_finish(&j);
}
