/* What the kernel says in its short text files (/proc, /sys), read without malloc or
 * stdio: inside the program's malloc, where a tier's first use reads them. */
#ifndef PLACE_KERNEL_H
#define PLACE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The start of the file at path (at most cap - 1 bytes) into text, NUL-terminated: its
 * length, 0 when it cannot be read. errno is left alone. */
size_t place_kernel_text(const char *path, char *text, size_t cap);

/* The decimal number at *p (0 when there is none), *p moved past its digits. */
uint64_t place_digits(const char **p);

/* Field `field` of /proc/PID/stat (proc(5)'s numbering, 3 or more: the numbers after the
 * command's name) of process pid (0: this one), or 0 if unknown. errno is left alone. */
uint64_t place_process_stat(pid_t pid, int field);

/* How many threads the process has now (field 20), or 0 if unknown. */
int place_process_threads(void);

/* The machine's memory and how much of it is free, in bytes, as sysconf's
 * _SC_PHYS_PAGES and _SC_AVPHYS_PAGES say (sysinfo(2)) but without sysconf, whose code
 * sits in libc pages a program may never fault in otherwise: false when unknown. */
bool place_kernel_ram(size_t *total, size_t *avail);

#endif
