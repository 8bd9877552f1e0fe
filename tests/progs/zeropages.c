/* An 8 MiB calloc whose every page is read and only the first half written, kept live
 * to exit: the half never written maps the kernel's zero page, which is on no node. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    enum { SIZE = 8 << 20, PAGE = 4096 };
    volatile char *p = calloc(1, SIZE);
    if (!p)
        return 1;
    unsigned sum = 0;
    for (size_t off = 0; off < SIZE; off += PAGE)
        sum += (unsigned char)p[off];
    for (size_t off = 0; off < SIZE / 2; off += PAGE)
        p[off] = 1;
    printf("read %u\n", sum);
    return 0;
}
