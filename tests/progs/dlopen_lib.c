/* A library loaded with dlopen after start: allocates in its constructor, in a function
 * the program calls, and frees and allocates in its destructor (as libgfortran's does). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *greeting;

__attribute__((constructor)) static void lib_init(void)
{
    greeting = malloc(64);
    strcpy(greeting, "hello from the dlopened library");
}

__attribute__((destructor)) static void lib_fini(void)
{
    free(greeting);
    greeting = realloc(malloc(16), 4096);
    free(greeting);
}

char *lib_make(int n)
{
    char *s = malloc((size_t)n * 8 + 64);
    int len = sprintf(s, "%s:", greeting);
    for (int k = 0; k < n; k++)
        len += sprintf(s + len, " %d", k * k);
    return s;
}
