#include "emit.h"

#include <stdarg.h>
#include <string.h>

#include "../base/fmt.h"
#include "../base/out.h"

void place_emit_begin(struct place_emit *e, enum place_report_format form, int fd)
{
    e->form = form;
    e->held = 0;
    e->max_part = 0;
    /* in place: a compound literal could be built on a signal handler's small stack */
    memset(&e->json, 0, sizeof e->json);
    e->json.fd = fd;
    place_emit_open(e, NULL, '{');
}

void place_emit_end(struct place_emit *e)
{
    place_emit_held(e);
    place_emit_close(e, '}');
    if (e->form == PLACE_REPORT_JSON)
        place_json_finish(&e->json);
}

void place_emit_uint_or_null(struct place_emit *e, const char *key, bool known, uint64_t n)
{
    if (known)
        place_emit_uint(e, key, n);
    else
        place_emit_str(e, key, NULL);
}

/* A line is formatted where it would be held: after its part's byte, with its NUL. */
void place_emit_line(struct place_emit *e, unsigned part, const char *fmt, ...)
{
    if (e->form == PLACE_REPORT_JSON)
        return;
    char *at = e->hold + e->held;
    struct place_buf b = {.s = at + 1, .cap = PLACE_EMIT_LINE};
    va_list ap;
    va_start(ap, fmt);
    place_vbprintf(&b, fmt, ap);
    va_end(ap);
    if (!part) {
        place_line(e->json.fd, "%s", b.s);
        return;
    }
    *at = (char)part;
    e->held += (unsigned)b.len + 2;
    if (part > e->max_part)
        e->max_part = (unsigned char)part;
    /* held lines past PLACE_EMIT_HOLD (the most tiers and rules a policy can have take
     * about 50 KiB) are written in pieces, each in part order, rather than cut */
    if (e->held > PLACE_EMIT_HOLD)
        place_emit_held(e);
}

void place_emit_held(struct place_emit *e)
{
    for (unsigned part = 1; part <= e->max_part; part++)
        for (unsigned at = 0; at < e->held; at += (unsigned)strlen(e->hold + at + 1) + 2)
            if ((unsigned char)e->hold[at] == part)
                place_line(e->json.fd, "%s", e->hold + at + 1);
    e->held = 0;
    e->max_part = 0;
}
