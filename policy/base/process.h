/* What the kernel says of a process, read without malloc or stdio. */
#ifndef PLACE_PROCESS_H
#define PLACE_PROCESS_H

#include <stdint.h>
#include <sys/types.h>

/* Field `field` of /proc/PID/stat (proc(5)'s numbering, 3 or more: the numbers after the
 * command's name) of process pid (0: this one), or 0 if unknown. errno is left alone. */
uint64_t place_process_stat(pid_t pid, int field);

/* How many threads the process has now (field 20), or 0 if unknown. */
int place_process_threads(void);

#endif
