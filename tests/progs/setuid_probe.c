/* What a set-user-ID program sees of libplace: whether the kernel put it in
 * secure-execution mode, its real and effective users, and which library in the process
 * defines place_api (libplace.h's entry point): proof that libplace was loaded. It
 * allocates and frees like any program, and prints "ran" last. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "libplace.h"

int main(void)
{
    printf("secure %lu ruid %d euid %d\n", getauxval(AT_SECURE), (int)getuid(), (int)geteuid());
    void *api = dlsym(RTLD_DEFAULT, "place_api");
    Dl_info info;
    printf("place_api %s\n", api && dladdr(api, &info) && info.dli_fname ? info.dli_fname : "none");
    printf("loaded %d\n", place_loaded());
    for (int k = 0; k < 100; k++) {
        char *p = malloc((size_t)(k + 1) << 12);
        memset(p, k, (size_t)(k + 1) << 12);
        free(p);
    }
    printf("ran\n");
    return 0;
}
