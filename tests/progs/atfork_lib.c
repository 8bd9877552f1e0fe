/* A library that registers a fork handler which allocates. Linked to the program, it is
 * initialised before the preloaded libplace, so its prepare handler runs after
 * libplace's, while libplace holds its own fork-time lock. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void prepare(void)
{
    char *p = malloc(64);
    strcpy(p, "allocated in a fork handler");
    free(p);
}

__attribute__((constructor)) static void lib_init(void)
{
    pthread_atfork(prepare, NULL, NULL);
}

/* The program calls this, so the linker keeps the library as a dependency. */
int atfork_lib_installed(void)
{
    return 1;
}
