/* An allocation site of a test program's own: a function that calls malloc and then
 * executes this before it returns. The call is then no tail call (the function's frame
 * stays, so its return address is on the stack), and the function is no allocation
 * wrapper by its shape (policy/site/shape.h: a call followed only by tests, branches,
 * pops and a return), so a site rule sees it as the site, not its caller. */
#ifndef PROGS_SITE_FRAME_H
#define PROGS_SITE_FRAME_H

#define SITE_FRAME_KEPT() __asm__ volatile("nop" ::: "memory")

#endif
