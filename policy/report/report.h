/* The exit report: what each tier placed, written at exit or on demand.
 *
 * Writing it allocates nothing through the interposed path, frees and unmaps nothing,
 * and leaves the program's exit status and stdio streams alone. */
#ifndef PLACE_REPORT_H
#define PLACE_REPORT_H

/* A report while the program runs, to dest (a file gets .N appended). */
void place_report_numbered(const char *dest);

/* Installs a handler that writes a report whenever sig arrives; 0 puts back what the
 * signal did before. */
void place_report_on_signal(int sig);

/* The report from the handler of a signal that ends the program, to the report path
 * itself: after another thread's report being written, never when the signal came from
 * inside one of its own thread's. */
void place_report_fatal(int sig);

/* A forked child: a report the parent was writing is not the child's to wait for. */
void place_report_postfork_child(void);

/* Writes the report where `dest` says: "stderr", or a file created anew from the path
 * template (never clobbering one that exists: then stderr, with a warning). */
void place_report_to(const char *dest);

#endif
