/* Writes through stdio into whatever stdout is (a pipe, in the test) and returns from
 * main without flushing: the last bytes sit in stdio's buffer, which glibc allocated with
 * malloc, until exit flushes it after every destructor, libplace's included. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long lines = argc > 1 ? atol(argv[1]) : 100000;
    for (long k = 0; k < lines; k++)
        printf("line %ld of the pipe test\n", k);
    printf("the last bytes, without a newline");
    return 0;
}
