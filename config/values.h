/* The value forms of the policy grammar: sizes, size windows, node lists, names, words
 * from a fixed set and site patterns.
 *
 * Each parser returns true and stores the value, or returns false and writes into `why`
 * what is wrong and what was expected ("'X' is not a size unit; expected ..."), which the
 * caller prefixes with the file, line and text. */
#ifndef PLACE_VALUES_H
#define PLACE_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "../policy/base/fmt.h"
#include "policy.h"

/* The largest size: INT64_MAX bytes (8E less one byte), as the byte counters are int64_t. */
#define PLACE_SIZE_MAX ((uint64_t)INT64_MAX)

bool place_value_size(const char *s, uint64_t *out, struct place_buf *why);
bool place_value_window(const char *s, uint64_t *min, uint64_t *max, struct place_buf *why);
bool place_value_uint(const char *s, unsigned lo, unsigned hi, unsigned *out,
                      struct place_buf *why);
/* A duration in milliseconds: a number with a unit, ms or s ("500ms", "2s"). */
bool place_value_duration(const char *s, unsigned *ms, struct place_buf *why);
bool place_value_nodes(const char *s, uint64_t *mask, struct place_buf *why);
/* NODE:WEIGHT[,NODE:WEIGHT...] (weights 1 to 255) into w, or "bandwidth". */
bool place_value_weights(const char *s, uint8_t w[64], bool *bandwidth, struct place_buf *why);
bool place_value_name(const char *s, char out[PLACE_NAME_MAX], struct place_buf *why);
bool place_value_pattern(const char *s, struct place_pattern *out, struct place_buf *why);
/* A pattern as the policy wrote it (the offset in lower-case hex), into out: out. */
const char *place_pattern_text(const struct place_pattern *pat, char *out, size_t cap);

/* One of words[] (NULL-terminated): its index. */
bool place_value_word(const char *s, const char *const *words, int *out, struct place_buf *why);

/* Splits s at each `sep` into trimmed fields, calling fn for each (also for empty ones,
 * so that "a,,b" can be refused). Stops when fn returns false. s is not changed. */
bool place_value_split(const char *s, char sep, bool (*fn)(void *arg, const char *field),
                       void *arg);

/* Whether name matches one of the globs of a comma-separated list (base/glob.h); an
 * empty list names nothing (asked for each function of a module: one test). */
bool place_value_globs_match(const char *globs, const char *name);

/* Globs separated by commas, each one base/glob.h takes as written and without a byte of
 * forbidden, into out (cap bytes): false, out untouched, when s is not that or too long. */
bool place_value_globs(const char *s, const char *forbidden, char *out, size_t cap);

#endif
