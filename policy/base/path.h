/* When this process's run began, which MPI rank and job it is, and the report path
 * template (%p %h %r %j %q{NAME} %t) that names files after them. Apart from the report
 * so that the policy parser, which checks report paths, needs nothing else. */
#ifndef PLACE_PATH_H
#define PLACE_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "hidden.h"

/* When this process's counting began, and from which parent it was forked (0: none). */
struct place_run {
    struct timespec start; /* CLOCK_MONOTONIC */
    time_t wall;
    pid_t forked_from;
};
extern PLACE_HIDDEN struct place_run place_run;

/* Records when this process's counting began: at start, or at fork in a child (pass the
 * parent's pid; 0 at start). */
void place_run_mark_start(pid_t forked_from);

/* Milliseconds since that start. */
uint64_t place_run_ms(void);

/* The MPI rank from the launcher (Open MPI, PMIx, MPICH/Hydra and Intel MPI, MVAPICH2,
 * Cray ALPS, Slurm), or NULL outside MPI. */
const char *place_mpi_rank(void);

/* The batch job's id (Slurm, PBS, LSF, Flux), or NULL outside a job. */
const char *place_job_id(void);

/* v into b as one path component: a / in it becomes _. */
struct place_buf;
void place_path_component(struct place_buf *b, const char *v);

/* Expands a report path template into out (cap bytes): %p pid, %h host name, %r MPI rank
 * (0 outside MPI), %j the job id ("nojob" outside one), %q{NAME} the variable NAME (empty
 * when unset), %t the start time (UTC, 20261121T054300Z), %% a percent sign; a / in
 * what %j or %q gives becomes _. With out NULL it only checks the template. Returns 0, or
 * -1 for an empty template, an unknown token or a result that does not fit. */
int place_report_path(const char *tmpl, char *out, size_t cap);

/* Whether the template names a file of each process's own: it has a %p. */
bool place_report_path_per_process(const char *tmpl);

#endif
