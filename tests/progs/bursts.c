/* Memory held in bursts: COUNT times (default 40), a 64 MiB block held for HOLD_US
 * microseconds (default 1000), then freed, and GAP_US (default 10000) with nothing held.
 * The block is never touched: libplace counts what is asked, not what is resident. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void pause_us(long us)
{
    struct timespec ts = {us / 1000000, us % 1000000 * 1000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 40;
    long hold = argc > 2 ? atol(argv[2]) : 1000, gap = argc > 3 ? atol(argv[3]) : 10000;
    for (int k = 0; k < count; k++) {
        volatile char *p = malloc(64 << 20);
        if (!p)
            return 1;
        if (hold)
            pause_us(hold);
        free((void *)p);
        if (gap)
            pause_us(gap);
    }
    printf("%d bursts\n", count);
    return 0;
}
