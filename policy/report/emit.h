/* The writer under the report's one walk (report/walk.c), as jemalloc's stats walk once
 * through its emitter: the walk says each thing once, and the writer keeps what its
 * form shows. The JSON form takes the keys and values, the text form the lines; each
 * ignores the other's calls.
 *
 * Text comes in parts. The walk visits a tier once, but the text shows the tiers in
 * several tables (their use, their pressure, their machine...) and the symmetric heap
 * before the rules, where JSON has them after: a line of part 0 is written at once, a
 * line of a later part is held until place_emit_held, which writes the held lines part
 * by part, each part's in the order they came.
 *
 * Nothing here allocates or touches stdio: the report is written from signal handlers. */
#ifndef PLACE_EMIT_H
#define PLACE_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "../../config/policy.h"
#include "../base/json.h"

enum {
    PLACE_EMIT_HOLD = 64 << 10, /* held text before it is written in pieces */
    PLACE_EMIT_LINE = 1024,     /* place_line's own: a longer line is cut where it always was */
};

struct place_emit {
    enum place_report_format form;
    struct place_json json; /* its fd is the text's too */
    unsigned held;          /* bytes of hold in use: lines as a part byte, then text, NUL */
    unsigned char max_part; /* the highest part held */
    char hold[PLACE_EMIT_HOLD + 1 + PLACE_EMIT_LINE]; /* and room for the line being formatted */
};

void place_emit_begin(struct place_emit *e, enum place_report_format form, int fd);
/* Writes what is held or buffered. */
void place_emit_end(struct place_emit *e);

/* JSON: a value under key (NULL inside arrays), as base/json.h writes it: place_emit_open
 * ('{' or '['), _str (NULL: null), _int, _uint, _bool, _milli; and place_emit_close. */
#define PLACE_EMIT_JSON(name, type)                                                            \
    static inline void place_emit_##name(struct place_emit *e, const char *key, type v)       \
    {                                                                                          \
        if (e->form == PLACE_REPORT_JSON)                                                      \
            place_json_##name(&e->json, key, v);                                               \
    }
PLACE_EMIT_JSON(open, char)
PLACE_EMIT_JSON(str, const char *)
PLACE_EMIT_JSON(int, int64_t)
PLACE_EMIT_JSON(uint, uint64_t)
PLACE_EMIT_JSON(bool, bool)
PLACE_EMIT_JSON(milli, uint64_t)

static inline void place_emit_close(struct place_emit *e, char bracket)
{
    if (e->form == PLACE_REPORT_JSON)
        place_json_close(&e->json, bracket);
}

/* n, or null when it is not known */
void place_emit_uint_or_null(struct place_emit *e, const char *key, bool known, uint64_t n);

/* Text: one line, prefixed "libplace: " (base/out.h's place_line), in part `part`. */
void place_emit_line(struct place_emit *e, unsigned part, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Text: writes the held lines, part by part. */
void place_emit_held(struct place_emit *e);

#endif
