/* The exit report: what each tier placed, written at exit or on demand.
 *
 * Writing it allocates nothing through the interposed path, frees and unmaps nothing,
 * and leaves the program's exit status and stdio streams alone. */
#ifndef PLACE_REPORT_H
#define PLACE_REPORT_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* When this process's counting began, and from which parent it was forked (0: none). */
struct place_run {
    struct timespec start; /* CLOCK_MONOTONIC */
    time_t wall;
    pid_t forked_from;
};
extern struct place_run place_run;

/* Records when this process's counting began: at start, or at fork in a child (pass the
 * parent's pid; 0 at start). */
void place_report_mark_start(pid_t forked_from);

/* The MPI rank from OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or SLURM_PROCID, or NULL
 * outside MPI. */
const char *place_mpi_rank(void);

/* Expands a report path template into out (cap bytes): %p pid, %h host name, %r MPI rank
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK or SLURM_PROCID; 0 outside MPI), %t the start
 * time (UTC, 20261121T054300Z), %% a percent sign. With out NULL it only checks the
 * template. Returns 0, or -1 for an empty template, an unknown token or a result that
 * does not fit. */
int place_report_path(const char *tmpl, char *out, size_t cap);

/* The JSON form (docs/report.schema.json) of gathered figures. */
struct place_gathered;
void place_report_json(int fd, const struct place_gathered *g);

/* A report while the program runs, to dest (a file gets .N appended). */
void place_report_numbered(const char *dest);

/* Installs a handler that writes a report whenever sig arrives; 0 puts back what the
 * signal did before. */
void place_report_on_signal(int sig);

/* Writes the report where `dest` says: "stderr", or a file created anew from the path
 * template (never clobbering one that exists: then stderr, with a warning). */
void place_report_to(const char *dest);

#endif
