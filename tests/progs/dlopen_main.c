/* dlopens a library given on the command line, calls into it, frees what it returned
 * and closes it. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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
    dlclose(h);
    return 0;
}
