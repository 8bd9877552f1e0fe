/* The fork/unwind handshake. libunwind's own locks are out of libplace's reach: a fork
 * while another thread is inside libunwind would leave one held forever in the child,
 * whose next unwind waits for it (seen: a stress test's child hung in unw_step). So a
 * fork waits for the unwinds under way (place_sites_prefork, site.h), and an unwind
 * waits for a fork under way. The walk by unwind tables (walk.c) takes no lock and needs
 * none of this. */
#ifndef PLACE_HANDSHAKE_H
#define PLACE_HANDSHAKE_H

/* Around every call into libunwind. */
void place_unwind_begin(void);
void place_unwind_end(void);

#endif
