/* dlopens a library given on the command line, calls into it, frees what it returned
 * and closes it; with "keep", leaves it open, so that its destructor runs at exit, after
 * libplace's and after those of the libraries libplace loaded.
 *
 *   dlopen_main LIBRARY [keep] */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dlopen_main LIBRARY\n");
        return 2;
    }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    char *(*make)(int) = (char *(*)(int))dlsym(h, "lib_make");
    if (!make) {
        fprintf(stderr, "dlsym: %s\n", dlerror());
        return 1;
    }
    for (int n = 1; n <= 5; n++) {
        char *s = make(n * 10);
        puts(s);
        free(s); /* allocated inside the library, freed here */
    }
    if (argc > 2 && strcmp(argv[2], "keep") == 0)
        return 0;
    dlclose(h);
    return 0;
}
