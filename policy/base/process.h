/* What the kernel says of this process, read without malloc or stdio. */
#ifndef PLACE_PROCESS_H
#define PLACE_PROCESS_H

/* How many threads the process has now (/proc/self/stat), or 0 if unknown. */
int place_process_threads(void);

#endif
