/* Shell globs, matched byte by byte: `*`, `?`, `[...]` (ranges, `!` or `^` to negate, a
 * leading `]` literal) and `\` escapes, as fnmatch(3) without flags matches them in the
 * C locale (`*` crosses `/`; no character classes). fnmatch is not used because it runs
 * inside malloc here (a module's wrappers and a dlopened library's site patterns are
 * resolved at the first lookup after it appears): in a UTF-8 locale it converts through
 * iconv under glibc's gconv lock, which the program's own thread may hold when it
 * allocates, and the thread then waited for itself forever. */
#ifndef PLACE_GLOB_H
#define PLACE_GLOB_H

#include <stdbool.h>

bool place_glob_match(const char *glob, const char *name);

/* Whether glob has none of `*`, `?`, `[` and `\`: it matches only itself, so a caller
 * that matches it against many names may compare instead. */
bool place_glob_literal(const char *glob);

/* Whether glob means what it would to fnmatch: every bracket expression closes, no
 * character class or collating element ([:, [., [=) inside one, no trailing `\`. */
bool place_glob_valid(const char *glob);

#endif
