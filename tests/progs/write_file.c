/* Creates the file argv[1] and writes one line into it through whatever descriptor
 * open() returns (fd 2, when the caller closed stderr), or through descriptor argv[2]
 * when given, put there with dup2 whatever was there before. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    if (argc > 2 && (fd = dup2(fd, atoi(argv[2]))) < 0)
        return 1;
    const char *line = "DATA\n";
    return write(fd, line, strlen(line)) == (ssize_t)strlen(line) ? 0 : 1;
}
