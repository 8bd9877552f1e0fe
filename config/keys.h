/* The keys of each section: what they accept and where they store it. The one table the
 * parser, the environment overrides and the man page's key list follow. */
#ifndef PLACE_KEYS_H
#define PLACE_KEYS_H

#include "../policy/base/fmt.h"
#include "policy.h"

/* Stores value into the section's object (a tier or rule config, or the policy for
 * [libplace]); false with the problem in why when it does not parse. */
typedef bool (*place_key_fn)(struct place_policy *p, void *object, const char *value,
                             struct place_buf *why);

struct place_key {
    const char *name;
    place_key_fn set;
    const char *env; /* [libplace]: the variable; tier: the LIBPLACE_<KEY>_ prefix's KEY */
    unsigned kinds;  /* tier keys: the kinds it means something for, bit 1 << kind */
};

enum { PLACE_ALL_KINDS = (1u << (PLACE_KIND_LAST + 1)) - 1 };

/* The keys of a section kind, NULL-name terminated; a key's bit in `given` is its index. */
extern const struct place_key place_libplace_keys[], place_tier_keys[], place_rule_keys[];

/* Indexes into place_tier_keys, for the checks that need the whole tier. */
enum {
    PLACE_TKEY_KIND,
    PLACE_TKEY_LIMIT,
    PLACE_TKEY_POLICY,
    PLACE_TKEY_PAGESIZE,
    PLACE_TKEY_NODES,
    PLACE_TKEY_DEVICE,
    PLACE_TKEY_CHUNK_INITIAL,
    PLACE_TKEY_CHUNK_MAX,
    PLACE_TKEY_CHUNK_GROWTH,
    PLACE_TKEY_LOCATION,
    PLACE_TKEY_RECLAIM_MIN,
    PLACE_TKEY_RECLAIM_TARGET,
    PLACE_TKEY_SCOPE,
    PLACE_TKEY_WEIGHTS,
    PLACE_TKEY_NEAR,
};

/* Indexes into place_rule_keys. */
enum {
    PLACE_RKEY_API,
    PLACE_RKEY_SIZE,
    PLACE_RKEY_SITE,
    PLACE_RKEY_DEPTH,
    PLACE_RKEY_TO,
    PLACE_RKEY_ON_FULL,
    PLACE_RKEY_WAIT,
    PLACE_RKEY_NAME,
};

/* The kind names, in enum place_kind's order, NULL-terminated. */
extern const char *const place_kind_names[];

#endif
