/* prog.h: what the programs on the driver share (cuda_linked and cuda_loader, through
 * cuda_prog.h, and nvml_prog): the exit status, the worst of what went wrong; sizes on the
 * command line; and how a failed driver call is said, `WHAT [K] failed: NAME (RC)`. The
 * includer defines DRV(f), how it reaches driver function f (see cuda_prog.h).
 *
 * Exit status, by convention: 0 everything worked, 1 an allocation failed, 2 a wrong result
 * or a call that must succeed failed, 3 the driver could not be set up, 64 usage. */
#ifndef PROG_H
#define PROG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int status;

static void worst(int s)
{
    if (s > status)
        status = s;
}

/* Bytes with an optional K, M or G (x1024). */
static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    switch (*end) {
    case 'G':
        v <<= 10; /* fall through */
    case 'M':
        v <<= 10; /* fall through */
    case 'K':
        v <<= 10;
        end++;
    }
    if (end == s || *end || *s == '-') {
        fprintf(stderr, "not a size: %s\n", s);
        exit(64);
    }
    return (size_t)v;
}

static const char *name_of(CUresult rc)
{
    const char *s = NULL;
    return DRV(cuGetErrorName)(rc, &s) || !s ? "?" : s;
}

/* Says `WHAT [K] failed: NAME (RC)` (K the block, ~0ul: none) and makes code the status
 * at least. */
static void failed(const char *what, unsigned long block, CUresult rc, int code)
{
    printf("%s", what);
    if (block != ~0ul)
        printf(" %lu", block);
    printf(" failed: %s (%d)\n", name_of(rc), (int)rc);
    worst(code);
}

#endif
