/* The LIBPLACE_* environment, read once, in the constructor, and nowhere else. */
#ifndef PLACE_OPTIONS_H
#define PLACE_OPTIONS_H

#include <stdbool.h>

struct place_options {
    const char *report; /* NULL: no report; "stderr"; or a path template (%p %h %r %t) */
    bool untouched;     /* a value did not parse: libplace stays out of the program's way */
};

extern struct place_options place_options;

/* Reads every LIBPLACE_* variable of envp. A bad value gets one "libplace:" line naming
 * the variable, its value and the expected form, and sets `untouched`; an unknown
 * LIBPLACE_* name gets a line listing the known ones and is otherwise ignored. */
void place_options_read(char *const *envp);

#endif
