/* PLACE_ASSERT and the lock ranks (policy/base/assert.h, rank.h). In a build with
 * asserts, a failed assertion and a lock taken out of rank order abort with libplace's
 * line on stderr, while locks taken in rank order, or without waiting, pass. In a release
 * build an assertion is compiled out: its condition is not even evaluated. */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../policy/base/assert.h"
#include "../../policy/base/rank.h"
#include "check.h"

static int evaluated;

static int touch(void)
{
    return evaluated++;
}

static pthread_mutex_t low = PTHREAD_MUTEX_INITIALIZER, high = PTHREAD_MUTEX_INITIALIZER;

/* Locks in rank order, and one out of order without waiting: nothing to say. */
static void in_order(void)
{
    place_lock(&low, PLACE_RANK_POOLS);
    place_lock(&high, PLACE_RANK_THREADS);
    place_unlock(&high, PLACE_RANK_THREADS);
    place_unlock(&low, PLACE_RANK_POOLS);
    place_lock(&high, PLACE_RANK_THREADS);
    if (place_lock_or_try(&low, PLACE_RANK_POOLS, false))
        place_unlock(&low, PLACE_RANK_POOLS);
    place_unlock(&high, PLACE_RANK_THREADS);
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

static void out_of_order(void)
{
    place_lock(&high, PLACE_RANK_THREADS);
    place_lock(&low, PLACE_RANK_POOLS);
}

static pthread_mutex_t other = PTHREAD_MUTEX_INITIALIZER;

/* two locks of one rank, which only fork holds together */
static void same_rank(void)
{
    place_lock(&low, PLACE_RANK_DRY);
    place_lock(&other, PLACE_RANK_DRY);
}
#endif

int main(void)
{
    PLACE_ASSERT(touch() == 0);
    in_order();
    CHECK_EQ(place_self.ranks, 0);
#ifdef PLACE_ASSERTS
    CHECK_EQ(evaluated, 1);
    char out[1024];
    CHECK(aborts(fails, out, sizeof out));
    CHECK(strstr(out, "libplace: assertion failed: two == 3 at ") == out);
    CHECK(strstr(out, "test_assert.c:") != NULL);
    char want[128];
    CHECK(aborts(out_of_order, out, sizeof out));
    snprintf(want, sizeof want,
             "libplace: assertion failed: a lock of rank %u taken while holding ranks 0x%x ",
             PLACE_RANK_POOLS, 1u << PLACE_RANK_THREADS);
    CHECK(strstr(out, want) == out);
    CHECK(aborts(same_rank, out, sizeof out));
    snprintf(want, sizeof want, "a lock of rank %u taken while holding ranks 0x%x ",
             PLACE_RANK_DRY, 1u << PLACE_RANK_DRY);
    CHECK(strstr(out, want) != NULL);
    CHECK(!aborts(in_order, out, sizeof out) && out[0] == '\0');
#else
    CHECK_EQ(evaluated, 0);
#endif
    return CHECK_DONE();
}
