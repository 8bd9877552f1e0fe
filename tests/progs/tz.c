/* Sets TZ after start and asks for local time without calling tzset(): glibc sets up its
 * time zone on the first call that needs it, so the answer shows whether anything set it
 * up earlier. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void)
{
    setenv("TZ", "JST-9", 1);
    time_t epoch = 0;
    struct tm tm;
    localtime_r(&epoch, &tm);
    printf("hour=%d zone=%s\n", tm.tm_hour, tm.tm_zone);
    return 0;
}
