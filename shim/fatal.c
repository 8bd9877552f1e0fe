/* A report whatever the ending: the signals whose default action ends the program
 * (TERM, INT, HUP, QUIT, SEGV, BUS, FPE, ILL, ABRT) write the report in their handler,
 * then end it as they would have without libplace, status and core dump alike.
 *
 * libplace's handler stays in the kernel for those signals for the whole run; the
 * program's own actions are kept here instead, and libplace's sigaction and signal say
 * and take them as if they were the kernel's. A signal that comes in:
 *   - with a handler of the program's: that handler runs (SA_RESETHAND is kept here, so
 *     the handler that restores the default and raises again, as Open MPI's does after
 *     printing a backtrace, comes back to the next case), and nothing is written: the
 *     program decides the ending, and if it exits, the exit report is written;
 *   - with the default action: the report is written (to the report path itself, not a
 *     numbered one), the default action put back, and the signal raised again, or, for a
 *     fault, the faulting instruction re-run;
 *   - ignored by the program: the kernel ignores it (SIG_IGN is installed as is).
 * Writing the report waits for another thread's report to be written, never for its own
 * thread's: a fault inside the report finds its thread writing and goes straight to the
 * default action. A stack overflow's SIGSEGV
 * cannot run any handler without an alternate stack, and ends without a report. */
#include "fatal.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>

#include "../policy/base/glibc.h"
#include "../policy/base/large.h"
#include "../policy/report/report.h"
#include "export.h"

static const int fatal[] = {SIGTERM, SIGINT,  SIGHUP, SIGQUIT, SIGSEGV,
                            SIGBUS,  SIGFPE, SIGILL, SIGABRT};

/* Per signal: whether libplace holds it, and the action the program has asked for. */
static bool held[NSIG];
static struct sigaction program[NSIG] PLACE_LARGE;

static void on_fatal(int sig, siginfo_t *info, void *context);

static bool holds(int sig)
{
    return sig > 0 && sig < NSIG && held[sig];
}

/* Puts in the kernel what stands for the program's action a: libplace's handler, with
 * a's mask and flags, unless a ignores the signal. */
static int install(int sig, const struct sigaction *a)
{
    if (a->sa_handler == SIG_IGN)
        return __sigaction(sig, a, NULL);
    struct sigaction ours = {.sa_sigaction = on_fatal};
    if (a->sa_handler == SIG_DFL) {
        sigemptyset(&ours.sa_mask);
        ours.sa_flags = SA_SIGINFO | SA_RESTART;
    } else {
        ours.sa_mask = a->sa_mask;
        ours.sa_flags = (a->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
    }
    return __sigaction(sig, &ours, NULL);
}

static void on_fatal(int sig, siginfo_t *info, void *context)
{
    const struct sigaction p = program[sig];
    if (p.sa_handler != SIG_DFL && p.sa_handler != SIG_IGN) {
        if (p.sa_flags & SA_RESETHAND)
            program[sig] = (struct sigaction){.sa_handler = SIG_DFL};
        if (p.sa_flags & SA_SIGINFO)
            p.sa_sigaction(sig, info, context);
        else
            p.sa_handler(sig);
        return;
    }
    int saved = errno;
    place_report_fatal(sig);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    __sigaction(sig, &dfl, NULL);
    /* a fault the kernel raised comes again when the instruction is re-run, with its own
     * siginfo in the core; a sent one is raised again, pending until this handler returns */
    bool fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
    if (!fault || info->si_code <= 0)
        raise(sig);
    errno = saved;
}

void place_fatal_start(int except)
{
    for (unsigned k = 0; k < sizeof fatal / sizeof fatal[0]; k++) {
        int sig = fatal[k];
        if (sig == except || __sigaction(sig, NULL, &program[sig]) != 0)
            continue;
        held[sig] = install(sig, &program[sig]) == 0;
    }
}

PLACE_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!holds(sig))
        return __sigaction(sig, act, old);
    /* no handler of libplace's on this thread sees the table half written */
    sigset_t all, was;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &was);
    struct sigaction before = program[sig];
    int rc = act ? install(sig, act) : 0;
    if (act && rc == 0)
        program[sig] = *act;
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    if (rc == 0 && old)
        *old = before;
    return rc;
}

/* signal() with glibc's BSD semantics: the signal blocked in its handler, calls
 * restarted. */
PLACE_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
    if (!holds(sig))
        return bsd_signal(sig, handler);
    struct sigaction act = {.sa_handler = handler, .sa_flags = SA_RESTART}, old;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, sig);
    return sigaction(sig, &act, &old) == 0 ? old.sa_handler : SIG_ERR;
}
