/* The configuration: the LIBPLACE_* environment and the policy it names, read once, in
 * the constructor, and nowhere else. */
#ifndef PLACE_OPTIONS_H
#define PLACE_OPTIONS_H

#include <stdbool.h>

#include "policy.h"

struct place_options {
    /* NULL: no report (a broken configuration has none either); "stderr"; or a path
     * template (%p %h %r %j %q{NAME} %t) */
    const char *report;
    bool untouched; /* the configuration is broken and on_error = passthrough */
    bool refuse;    /* the configuration is broken and on_error = abort */
    bool check;     /* LIBPLACE_CHECK: validate, say so and exit (placerun --check) */
    /* LIBPLACE_REPORT_PID (0: unset): the process whose report the report path names.
     * Another process's report goes beside it (`report`), and only if it placed anything
     * (report_if_placed); that process's forked children report to report_forked. */
    int report_pid;
    bool report_if_placed;
    const char *report_forked;
    bool drop_report_pid;      /* the program is a launcher other than a shell: what it
                                * starts reports as it would without LIBPLACE_REPORT_PID */
    const char *report_missed; /* report_pid ended as a shell, which writes none: this path
                                * gets no report, which its exit says */
};

extern struct place_options place_options;

/* The policy as the file, LIBPLACE_RULES and the overrides made it. */
extern struct place_policy place_config;

/* Reads every LIBPLACE_* variable of envp and the policy they name. Every error is a
 * "libplace:" line naming the file and line or the variable, the text and what was
 * expected; then one line says what happens, and `refuse` or `untouched` is set. An
 * unknown LIBPLACE_* name gets a line listing the known ones and is otherwise ignored. */
void place_options_read(char *const *envp);

/* place_options_read with the secure-execution mode given: with secure true (what
 * place_options_read passes for a set-user-ID or set-group-ID program, getauxval(AT_SECURE))
 * no LIBPLACE_* variable is read and nothing is said: libplace runs as if none were set. */
void place_options_read_secure(char *const *envp, bool secure);

/* Exit status of a program that does not start because its policy is broken. */
enum { PLACE_REFUSED_STATUS = 125 };

#endif
