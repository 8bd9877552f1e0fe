/* The ELF symbol reader: the test's own functions at their link-time addresses, libc's
 * exported ones, stopping early, and files that are not ELF, are cut short or lie about
 * their layout (copies of the test binary under /tmp with one field changed). */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../policy/site/elfsym.h"
#include "check.h"

__attribute__((noinline, noclone)) static int place_test_local(int x)
{
    return x * 3 + 1;
}

__attribute__((noinline, noclone)) int place_test_global(int x)
{
    return x * 5 + 2;
}

struct want {
    const char *name;
    int hits;
    uint64_t value, size;
};

static int find(void *arg, const char *name, uint64_t value, uint64_t size)
{
    struct want *w = arg;
    CHECK(size > 0 && name[0] != '\0');
    if (strcmp(name, w->name) == 0) {
        w->hits++;
        w->value = value;
        w->size = size;
    }
    return 0;
}

static int count(void *arg, const char *name, uint64_t value, uint64_t size)
{
    (void)name, (void)value, (void)size;
    ++*(int *)arg;
    return 0;
}

static int stop_at_first(void *arg, const char *name, uint64_t value, uint64_t size)
{
    (void)name, (void)value, (void)size;
    ++*(int *)arg;
    return 7;
}

struct objects {
    uintptr_t main_bias;
    int main_seen;
    char libc[4096];
};

static int objects(struct dl_phdr_info *info, size_t len, void *arg)
{
    (void)len;
    struct objects *o = arg;
    if (info->dlpi_name[0] == '\0' && !o->main_seen) {
        o->main_seen = 1;
        o->main_bias = info->dlpi_addr;
    } else if (strstr(info->dlpi_name, "libc.so.6") && !o->libc[0]) {
        snprintf(o->libc, sizeof o->libc, "%s", info->dlpi_name);
    }
    return 0;
}

/* the whole file, or NULL */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap)
            buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *size = n;
    return buf;
}

/* place_elf_functions on a temporary file holding bytes; counts the symbols in *calls */
static int read_copy(const void *bytes, size_t len, int *calls)
{
    char path[] = "/tmp/test_elf.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return -2;
    CHECK_EQ(write(fd, bytes, len), len);
    close(fd);
    *calls = 0;
    int rc = place_elf_functions(path, count, calls);
    unlink(path);
    return rc;
}

static Elf64_Shdr *section(unsigned char *img, size_t i)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    return (Elf64_Shdr *)(img + eh->e_shoff) + i;
}

/* index of the first section of type, or 0 */
static size_t first_of(unsigned char *img, uint32_t type)
{
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    for (size_t i = 1; i < eh->e_shnum; i++)
        if (section(img, i)->sh_type == type)
            return i;
    return 0;
}

int main(void)
{
    CHECK_EQ(place_test_local(1) + place_test_global(1), 11);
    struct objects o = {0};
    dl_iterate_phdr(objects, &o);
    CHECK(o.main_seen);
    CHECK(o.libc[0] != '\0');

    /* the test's own functions, static and global, at their link-time addresses */
    struct want local = {.name = "place_test_local"}, global = {.name = "place_test_global"};
    CHECK_EQ(place_elf_functions("/proc/self/exe", find, &local), 0);
    CHECK(local.hits >= 1);
    CHECK(local.value == (uintptr_t)&place_test_local - o.main_bias);
    CHECK(local.size > 0);
    CHECK_EQ(place_elf_functions("/proc/self/exe", find, &global), 0);
    CHECK(global.hits >= 1);
    CHECK(global.value == (uintptr_t)&place_test_global - o.main_bias);
    CHECK(global.size > 0);

    /* libc's exports, from .dynsym when its .symtab is stripped */
    const char *libc_names[] = {"malloc", "qsort"};
    for (size_t i = 0; i < sizeof libc_names / sizeof *libc_names; i++) {
        struct want w = {.name = libc_names[i]};
        CHECK_EQ(place_elf_functions(o.libc, find, &w), 0);
        CHECK(w.hits >= 1);
        CHECK(w.size > 0);
    }

    /* a stop request ends the walk at once */
    int calls = 0;
    CHECK_EQ(place_elf_functions(o.libc, stop_at_first, &calls), 1);
    CHECK_EQ(calls, 1);

    /* no file, no ELF, no regular file: -1, no calls, errno untouched */
    const char *bad[] = {"/nonexistent/libplace-test", "/etc/passwd", "/tmp", "/dev/null", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        calls = 0;
        errno = 4242;
        CHECK_EQ(place_elf_functions(bad[i], count, &calls), -1);
        CHECK_EQ(calls, 0);
        CHECK_EQ(errno, 4242);
    }

    size_t size = 0;
    unsigned char *img = slurp("/proc/self/exe", &size);
    CHECK(img && size > sizeof(Elf64_Ehdr));
    if (!img)
        return CHECK_DONE();
    Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
    CHECK(eh->e_shoff != 0 && eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= size);
    unsigned char *copy = malloc(size);

    /* the untouched copy reads like the original */
    int all = 0;
    CHECK_EQ(read_copy(img, size, &all), 0);
    CHECK(all > 2);

    /* extended numbering: e_shnum 0 and the count in section 0 read the same */
    memcpy(copy, img, size);
    section(copy, 0)->sh_size = eh->e_shnum;
    ((Elf64_Ehdr *)copy)->e_shnum = 0;
    CHECK_EQ(read_copy(copy, size, &calls), 0);
    CHECK_EQ(calls, all);

    /* cut short: the section headers (at the end) are gone */
    CHECK_EQ(read_copy(img, 200, &calls), -1);
    CHECK_EQ(calls, 0);
    CHECK_EQ(read_copy(img, size / 2, &calls), -1);
    CHECK_EQ(calls, 0);
    CHECK_EQ(read_copy(img, 10, &calls), -1); /* shorter than the ELF header */

    /* one field changed at a time; a lie about the layout is -1 with no calls */
    struct {
        const char *what;
        size_t at, len; /* where in the copy */
        uint64_t value;
        int rc;
    } lies[] = {
        {"e_shoff huge", offsetof(Elf64_Ehdr, e_shoff), 8, 1ULL << 62, -1},
        {"e_shoff wraps", offsetof(Elf64_Ehdr, e_shoff), 8, UINT64_MAX - 7, -1},
        {"e_shoff misaligned", offsetof(Elf64_Ehdr, e_shoff), 8, eh->e_shoff + 1, -1},
        {"e_shoff past the end", offsetof(Elf64_Ehdr, e_shoff), 8, size & ~7ULL, -1},
        {"e_shentsize", offsetof(Elf64_Ehdr, e_shentsize), 2, sizeof(Elf64_Shdr) + 8, -1},
        {"e_shnum huge", offsetof(Elf64_Ehdr, e_shnum), 2, 0xffff, -1},
        {"e_machine", offsetof(Elf64_Ehdr, e_machine), 2, EM_ARM, -1},
        {"e_type", offsetof(Elf64_Ehdr, e_type), 2, ET_REL, -1},
        {"class", EI_CLASS, 1, ELFCLASS32, -1},
        {"magic", EI_MAG1, 1, 'X', -1},
        {"no section headers", offsetof(Elf64_Ehdr, e_shoff), 8, 0, 0},
    };
    for (size_t i = 0; i < sizeof lies / sizeof *lies; i++) {
        memcpy(copy, img, size);
        memcpy(copy + lies[i].at, &lies[i].value, lies[i].len); /* little-endian host */
        calls = -1;
        int rc = read_copy(copy, size, &calls);
        if (rc != lies[i].rc || calls != 0)
            fprintf(stderr, "%s: rc %d, %d calls\n", lies[i].what, rc, calls);
        CHECK_EQ(rc, lies[i].rc);
        CHECK_EQ(calls, 0);
    }

    /* the symbol table's own fields */
    size_t symtab = first_of(img, SHT_SYMTAB);
    CHECK(symtab != 0);
    if (symtab) {
        uint32_t strtab = section(img, symtab)->sh_link;
        struct {
            const char *what;
            size_t sec, at, len;
            uint64_t value;
        } fields[] = {
            {"sh_link out of range", symtab, offsetof(Elf64_Shdr, sh_link), 4, eh->e_shnum},
            {"sh_link to itself", symtab, offsetof(Elf64_Shdr, sh_link), 4, symtab},
            {"sh_offset huge", symtab, offsetof(Elf64_Shdr, sh_offset), 8, 1ULL << 62},
            {"sh_offset misaligned", symtab, offsetof(Elf64_Shdr, sh_offset), 8,
             section(img, symtab)->sh_offset + 4},
            {"sh_size wraps", symtab, offsetof(Elf64_Shdr, sh_size), 8, UINT64_MAX - 23},
            {"sh_size past the end", symtab, offsetof(Elf64_Shdr, sh_size), 8, size},
            {"sh_entsize", symtab, offsetof(Elf64_Shdr, sh_entsize), 8, 16},
            {"strtab past the end", strtab, offsetof(Elf64_Shdr, sh_size), 8, size},
            {"strtab offset wraps", strtab, offsetof(Elf64_Shdr, sh_offset), 8, UINT64_MAX},
        };
        for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
            memcpy(copy, img, size);
            unsigned char *at = (unsigned char *)section(copy, fields[i].sec) + fields[i].at;
            memcpy(at, &fields[i].value, fields[i].len);
            calls = -1;
            int rc = read_copy(copy, size, &calls);
            if (rc != -1 || calls != 0)
                fprintf(stderr, "%s: rc %d, %d calls\n", fields[i].what, rc, calls);
            CHECK_EQ(rc, -1);
            CHECK_EQ(calls, 0);
        }

        /* a broken table after a good one: -1 before any call. The good one is a copy of
         * .symtab's header over .dynsym's, which comes first. */
        size_t dynsym = first_of(img, SHT_DYNSYM);
        CHECK(dynsym != 0 && dynsym < symtab);
        memcpy(copy, img, size);
        *section(copy, dynsym) = *section(copy, symtab);
        section(copy, symtab)->sh_entsize = 16;
        calls = -1;
        CHECK_EQ(read_copy(copy, size, &calls), -1);
        CHECK_EQ(calls, 0);

        /* a string table cut to nothing, or to one unterminated byte, names no symbol of
         * .symtab; .dynsym still reads */
        for (uint64_t len = 0; len <= 1; len++) {
            memcpy(copy, img, size);
            Elf64_Shdr *str = section(copy, strtab);
            str->sh_size = len;
            copy[str->sh_offset] = 'x';
            CHECK_EQ(read_copy(copy, size, &calls), 0);
            CHECK(calls < all);
        }

        /* names running past the string table's end are skipped, not read beyond it: the
         * table ends two bytes into its last name */
        memcpy(copy, img, size);
        Elf64_Shdr *str = section(copy, strtab);
        uint64_t end = str->sh_size - 1; /* the last NUL */
        while (end > 0 && copy[str->sh_offset + end - 1] != '\0')
            end--;
        str->sh_size = end + 2;
        CHECK_EQ(read_copy(copy, size, &calls), 0);
        CHECK(calls > 0 && calls <= all);
    }

    free(copy);
    free(img);
    return CHECK_DONE();
}
