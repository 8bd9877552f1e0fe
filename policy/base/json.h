/* A streaming JSON writer for the report: no allocation, output buffered and written to
 * a file descriptor as it fills. Keys are given with each value (NULL inside arrays). */
#ifndef PLACE_JSON_H
#define PLACE_JSON_H

#include <stdbool.h>
#include <stdint.h>

enum { PLACE_JSON_DEPTH = 16 };

struct place_json {
    int fd;
    unsigned depth;
    bool more[PLACE_JSON_DEPTH]; /* the container at each depth has a value already */
    unsigned len;
    char buf[8192];
};

void place_json_open(struct place_json *j, const char *key, char bracket); /* '{' or '[' */
void place_json_close(struct place_json *j, char bracket);                 /* '}' or ']' */
void place_json_str(struct place_json *j, const char *key, const char *s); /* NULL: null */
void place_json_int(struct place_json *j, const char *key, int64_t n);
void place_json_uint(struct place_json *j, const char *key, uint64_t n);
void place_json_bool(struct place_json *j, const char *key, bool b);
/* A count of thousandths as a decimal number: 1234 gives 1.234 (seconds from ms). */
void place_json_milli(struct place_json *j, const char *key, uint64_t thousandths);
/* Writes what is buffered, with a final newline. */
void place_json_finish(struct place_json *j);

#endif
