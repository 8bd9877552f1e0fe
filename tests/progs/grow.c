/* A buffer grown by realloc, doubling from 128 KiB to 64 MiB with a byte pattern written
 * end to end at each size, as sqlite3's sorter and many a vector do; between two steps a
 * small block comes and goes. Prints how many steps moved the buffer, and whether every
 * byte survived every step.
 *
 *   grow */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    size_t size = 128 << 10;
    unsigned char *buf = malloc(size);
    if (!buf)
        return 1;
    memset(buf, 0x5a, size);
    int moves = 0, intact = 1;
    for (size_t next = 2 * size; next <= (size_t)64 << 20; next *= 2) {
        free(malloc(100));
        unsigned char *grown = realloc(buf, next);
        if (!grown)
            return 1;
        moves += grown != buf;
        for (size_t k = 0; k < size; k += 4093)
            intact &= grown[k] == (k < (128 << 10) ? 0x5a : (uint8_t)(k >> 12));
        for (size_t k = size; k < next; k++)
            grown[k] = (uint8_t)(k >> 12);
        buf = grown;
        size = next;
    }
    printf("moves %d intact %d\n", moves, intact);
    free(buf);
    return 0;
}
