#include "handshake.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "site.h"

static _Atomic unsigned unwinding;
static _Atomic bool forking;
/* this thread's unwind, which a signal handler's fork interrupted: not waited for */
static __thread bool mine __attribute__((tls_model("initial-exec")));

void place_unwind_begin(void)
{
    for (;;) {
        atomic_fetch_add(&unwinding, 1); /* seq_cst: seen by the fork before it reads */
        if (!atomic_load(&forking)) {
            mine = true;
            return;
        }
        atomic_fetch_sub(&unwinding, 1);
        while (atomic_load(&forking))
            sched_yield();
    }
}

void place_unwind_end(void)
{
    mine = false;
    atomic_fetch_sub(&unwinding, 1);
}

void place_sites_prefork(void)
{
    atomic_store(&forking, true);
    while (atomic_load(&unwinding) > (unsigned)mine)
        sched_yield();
}

void place_sites_postfork_parent(void)
{
    atomic_store(&forking, false);
}

void place_sites_postfork_child(void)
{
    /* a thread that counted itself in and was backing out is not the child's */
    atomic_store(&unwinding, 0);
    atomic_store(&forking, false);
}
