/* A report whatever the ending (shim/fatal.c). */
#ifndef PLACE_FATAL_H
#define PLACE_FATAL_H

/* Takes the signals whose default action ends the program, but `except` (the report
 * signal, which asks for a report and ends nothing). */
void place_fatal_start(int except);

#endif
