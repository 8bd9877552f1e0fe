/* Forks first thing, before this thread has allocated anything, so the first allocation
 * libplace sees from it comes from another library's fork handler. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int atfork_lib_installed(void);

int main(void)
{
    if (!atfork_lib_installed())
        return 1;
    pid_t pid = fork();
    if (pid == 0)
        _exit(4);
    int st;
    waitpid(pid, &st, 0);
    printf("child exited %d\n", WEXITSTATUS(st));
    return 3;
}
