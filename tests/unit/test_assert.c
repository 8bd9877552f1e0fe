/* PLACE_ASSERT (policy/base/assert.h). In a build with asserts, a failed assertion aborts
 * with libplace's line on stderr. In a release build an assertion is compiled out: its
 * condition is not even evaluated. */
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../policy/base/assert.h"
#include "check.h"

static int evaluated;

static int touch(void)
{
    return evaluated++;
}

#ifdef PLACE_ASSERTS
/* Runs f in a child whose stderr goes into out: whether abort ended it. */
static bool aborts(void (*f)(void), char *out, size_t cap)
{
    int fds[2];
    if (pipe(fds) != 0)
        return false;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        f();
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t n;
    while (len < cap - 1 && (n = read(fds[0], out + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static void fails(void)
{
    int two = 2;
    PLACE_ASSERT(two == 3);
}
#endif

int main(void)
{
    PLACE_ASSERT(touch() == 0);
#ifdef PLACE_ASSERTS
    CHECK_EQ(evaluated, 1);
    char out[1024];
    CHECK(aborts(fails, out, sizeof out));
    CHECK(strstr(out, "libplace: assertion failed: two == 3 at ") == out);
    CHECK(strstr(out, "test_assert.c:") != NULL);
#else
    CHECK_EQ(evaluated, 0);
#endif
    return CHECK_DONE();
}
