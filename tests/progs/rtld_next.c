/* dlsym(RTLD_NEXT) searches the objects after the caller's: from the program, the next
 * malloc is the first one after it in the search order (libc's, or an LD_PRELOADed
 * library's). A dlsym that called glibc's from another object would answer for that
 * object instead. */
#include <dlfcn.h>
#include <stdio.h>

int main(void)
{
    void *next = dlsym(RTLD_NEXT, "malloc"), *first = dlsym(RTLD_DEFAULT, "malloc");
    printf("RTLD_NEXT malloc is RTLD_DEFAULT's: %s\n", next && next == first ? "yes" : "no");
    return 0;
}
