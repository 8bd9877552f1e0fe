/* The checks that need the whole policy: chains name tiers that exist, each tier has what
 * its kind requires and nothing its kind has no use for. */
#include <string.h>

#include "keys.h"

/* "hbw or numa": the kinds in mask, for a message. */
static const char *kinds_text(unsigned mask, char *out, size_t cap)
{
    struct place_buf b = {.s = out, .cap = cap};
    out[0] = 0;
    for (int k = 0; place_kind_names[k]; k++)
        if (mask & 1u << k) {
            mask &= ~(1u << k);
            place_bprintf(&b, "%s%s", b.len ? (mask ? ", " : " or ") : "", place_kind_names[k]);
        }
    return out;
}

/* The default dram tier is glibc's heap, which libplace cannot tell apart by address, so
 * it cannot keep a limit on it; watermarks are fractions of a limit, and a node's scope
 * shares one. */
static void check_limits(struct place_policy *p, struct place_tier_config *t)
{
    const uint32_t marks = 1u << PLACE_TKEY_RECLAIM_MIN | 1u << PLACE_TKEY_RECLAIM_TARGET;
    const uint32_t refused = t->given & (1u << PLACE_TKEY_LIMIT | marks | 1u << PLACE_TKEY_SCOPE);
    if (t == &p->tiers[0] && refused) {
        int k = __builtin_ctz(refused); /* the first in the key table's order */
        place_policy_error(p, &t->key_at[k],
                           "%s: the default dram tier is glibc's heap and takes no limit; "
                           "expected a tier of your own, as [tier capped] kind = dram, "
                           "limit = 2G",
                           place_tier_keys[k].name);
        return;
    }
    if (t->given & marks && !t->limit)
        place_policy_error(
            p,
            &t->key_at[t->given & 1u << PLACE_TKEY_RECLAIM_MIN ? PLACE_TKEY_RECLAIM_MIN
                                                               : PLACE_TKEY_RECLAIM_TARGET],
            "[tier %s] has watermarks but no limit; expected limit = SIZE, as "
            "reclaim_min and reclaim_target are percentages of it",
            t->name);
    else if (t->scope == PLACE_SCOPE_NODE && !t->limit)
        place_policy_error(p, &t->key_at[PLACE_TKEY_SCOPE],
                           "[tier %s] has scope = node but no limit; expected limit = SIZE, the "
                           "limit the machine's processes share",
                           t->name);
    else if (t->reclaim_target < t->reclaim_min)
        place_policy_error(p, &t->key_at[PLACE_TKEY_RECLAIM_TARGET],
                           "reclaim_target = %u is below reclaim_min = %u; expected a target "
                           "of at least %u (percent of the limit to free once reclaim starts)",
                           t->reclaim_target, t->reclaim_min, t->reclaim_min);
}

/* weighted_interleave and weights go together, and weights name the tier's nodes. */
static void check_weights(struct place_policy *p, struct place_tier_config *t)
{
    /* seen: written, maybe wrongly (an error said so already); given: taken */
    bool weighted = t->policy == PLACE_MPOL_WEIGHTED, seen = t->seen & 1u << PLACE_TKEY_WEIGHTS,
         given = t->given & 1u << PLACE_TKEY_WEIGHTS;
    uint64_t named = 0;
    for (unsigned n = 0; n < 64; n++)
        named |= (uint64_t)(t->weights[n] != 0) << n;
    if (weighted && !seen)
        place_policy_error(p, &t->key_at[PLACE_TKEY_POLICY],
                           "policy = weighted_interleave has no weights; expected weights = "
                           "NODE:WEIGHT,..., as 0:3,1:1, or weights = bandwidth");
    else if (given && !weighted)
        place_policy_error(p, &t->key_at[PLACE_TKEY_WEIGHTS],
                           "weights: only policy = weighted_interleave weighs nodes; expected "
                           "policy = weighted_interleave too");
    else if (given && !t->weights_bandwidth && t->given & 1u << PLACE_TKEY_NODES &&
             named != t->nodes)
        place_policy_error(p, &t->key_at[PLACE_TKEY_WEIGHTS],
                           "weights: they must name exactly the tier's nodes; expected a "
                           "NODE:WEIGHT for each node of nodes = and no other");
}

static void check_tier(struct place_policy *p, struct place_tier_config *t)
{
    enum place_kind kind;
    bool named_kind = place_policy_kind_of(t->name, &kind);
    char kinds[128];
    if (t->declared && !(t->seen & 1u << PLACE_TKEY_KIND) && !named_kind)
        place_policy_error(p, &t->at, "[tier %s] has no kind; expected kind = %s", t->name,
                           kinds_text(PLACE_ALL_KINDS, kinds, sizeof kinds));
    /* without a kind, what fits the kind cannot be told */
    if ((t->seen & ~t->given & 1u << PLACE_TKEY_KIND) ||
        (!(t->given & 1u << PLACE_TKEY_KIND) && !named_kind))
        return;
    for (int k = 0; place_tier_keys[k].name; k++) {
        unsigned fits = place_tier_keys[k].kinds;
        if (!(t->given & 1u << k) || fits & 1u << t->kind)
            continue;
        place_policy_error(p, &t->key_at[k],
                           "%s: not a key of %s tiers; expected it only on tiers of kind %s",
                           place_tier_keys[k].name, place_kind_name(t->kind),
                           kinds_text(fits, kinds, sizeof kinds));
    }
    check_limits(p, t);
    if (t->kind == PLACE_NUMA && t->declared && !(t->seen & 1u << PLACE_TKEY_NODES))
        place_policy_error(p, &t->at, "[tier %s] has no nodes; expected nodes = LIST, as 1 or 2-3",
                           t->name);
    check_weights(p, t);
    if (t->near == PLACE_NEAR_CPU && t->policy != PLACE_MPOL_DEFAULT &&
        t->policy != PLACE_MPOL_BIND && t->policy != PLACE_MPOL_PREFERRED)
        place_policy_error(p, &t->key_at[PLACE_TKEY_NEAR],
                           "near = cpu: it picks one node per thread; expected policy = bind or "
                           "preferred with it");
    else if (t->near == PLACE_NEAR_CPU && t->pagesize == PLACE_PAGE_2M)
        place_policy_error(p, &t->key_at[PLACE_TKEY_NEAR],
                           "near = cpu: 2M pages are reserved for the whole range at start, "
                           "before the nodes' parts are known; expected pagesize = 4K or THP "
                           "with it");
    if (t->kind == PLACE_NUMA && t->policy == PLACE_MPOL_BIND_ALL)
        place_policy_error(p, &t->key_at[PLACE_TKEY_POLICY],
                           "policy = bind_all: bind_all is hbw's; expected bind, preferred or "
                           "interleave for a numa tier");
    if (t->chunk_initial > t->chunk_max)
        place_policy_error(
            p,
            t->given & 1u << PLACE_TKEY_CHUNK_INITIAL ? &t->key_at[PLACE_TKEY_CHUNK_INITIAL]
            : t->given & 1u << PLACE_TKEY_CHUNK_MAX   ? &t->key_at[PLACE_TKEY_CHUNK_MAX]
                                                      : &t->at,
            "chunk_initial is larger than chunk_max; expected chunk_initial <= "
            "chunk_max");
}

static void resolve_chain(struct place_policy *p, struct place_rule_config *r)
{
    if (!(r->seen & 1u << PLACE_RKEY_TO)) {
        place_policy_error(p, &r->at, "rule %s has no chain; expected to = TIER, TIER ...",
                           r->name);
        return;
    }
    for (unsigned k = 0; k < r->nchain; k++) {
        const char *name = r->chain_text[k];
        struct place_tier_config *t = place_policy_tier(p, name, true);
        if (!t && place_policy_implied(name)) { /* implied, but the tier table is full */
            place_policy_error(p, &r->to_at,
                               "to: no room for the tier '%s' this chain implies; expected at "
                               "most %d tiers in all",
                               name, PLACE_MAX_TIERS);
            continue;
        }
        if (!t) {
            place_policy_error(p, &r->to_at,
                               "to: no tier named '%s'; expected a tier declared with [tier %s] "
                               "or one of dram, hbw, pinned, managed, symmetric, deviceN",
                               name, name);
            continue;
        }
        char kinds[64];
        if (r->api == PLACE_API_SHMEM) {
            if (!(PLACE_SHMEM_KINDS & 1u << t->kind))
                place_policy_error(p, &r->to_at,
                                   "to: %s is %s memory, which a symmetric heap's pages cannot be "
                                   "bound to; expected %s tiers in the chain of an api = shmem "
                                   "rule",
                                   name, place_kind_name(t->kind),
                                   kinds_text(PLACE_SHMEM_KINDS, kinds, sizeof kinds));
        } else if (t->kind == PLACE_SYMMETRIC) {
            place_policy_error(p, &r->to_at,
                               "to: %s is an OpenSHMEM symmetric heap, which only shmem_malloc "
                               "and its family allocate in; expected api = shmem for a chain "
                               "with a symmetric tier",
                               name);
        }
        if (t->kind == PLACE_DEVICE && r->api == PLACE_API_MALLOC)
            place_policy_error(p, &r->to_at,
                               "to: %s is GPU memory, which only CUDA calls can use; expected "
                               "api = cuda or api = any for a chain with a device tier",
                               name);
        if (t->kind <= PLACE_NUMA && r->api == PLACE_API_CUDA)
            place_policy_error(p, &r->to_at,
                               "to: %s is host memory the GPU cannot reach; expected device, "
                               "managed or pinned tiers in the chain of an api = cuda rule",
                               name);
        r->chain[k] = (uint8_t)(t - p->tiers);
    }
}

void place_policy_finish(struct place_policy *p)
{
    for (unsigned k = 0; k < p->nrules; k++) {
        struct place_rule_config *r = &p->rules[k];
        resolve_chain(p, r);
        if (r->given & 1u << PLACE_RKEY_WAIT && r->on_full != PLACE_WAIT)
            place_policy_error(p, &r->at,
                               "rule %s has a wait timeout but on_full = %s; expected "
                               "on_full = wait, or no wait key",
                               r->name, place_on_full_name(r->on_full));
    }
    for (unsigned k = 0; k < p->ntiers; k++)
        check_tier(p, &p->tiers[k]);
}
