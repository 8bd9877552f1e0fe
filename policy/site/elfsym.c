/* Function symbols of an ELF file, read without malloc (see elf.h).
 *
 * The file is mapped read-only and private, and its headers are read in place: a mapping
 * is page aligned, so a header at an offset aligned for its type is a properly aligned
 * object, and offsets that are not aligned are rejected rather than copied (no toolchain
 * writes them). Everything that comes from the file is a claim to be checked against the
 * mapping's size before it is followed. All symbol tables are checked before the first
 * callback, so a caller that sees -1 has seen no symbols from the file either. */
#include "elfsym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define HOST_MACHINE EM_PPC64
#elif defined(__s390x__)
#define HOST_MACHINE EM_S390
#else
#error "policy/site/elfsym.c: name this host's e_machine"
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif

struct image {
    const unsigned char *base;
    size_t size;
};

/* Untyped so that callers' casts do not claim an alignment: they check it themselves. */
static const void *at(const struct image *im, uint64_t off)
{
    return im->base + off;
}

static bool inside(const struct image *im, uint64_t off, uint64_t len)
{
    uint64_t end;
    return !__builtin_add_overflow(off, len, &end) && end <= im->size;
}

/* Section i is a symbol table: checks it and its string table, then, when fn is given,
 * reports its function symbols. Returns -1 (malformed), 0, or 1 (fn stopped). */
static int symbols(const struct image *im, const Elf64_Shdr *sh, uint64_t shnum, uint64_t i,
                   place_elf_fn fn, void *arg)
{
    const Elf64_Shdr *tab = &sh[i];
    if (tab->sh_entsize != sizeof(Elf64_Sym) || tab->sh_offset % _Alignof(Elf64_Sym) != 0 ||
        !inside(im, tab->sh_offset, tab->sh_size) || tab->sh_link >= shnum)
        return -1;
    const Elf64_Shdr *strtab = &sh[tab->sh_link];
    if (strtab->sh_type != SHT_STRTAB || !inside(im, strtab->sh_offset, strtab->sh_size))
        return -1;
    if (!fn)
        return 0;

    const Elf64_Sym *sym = at(im, tab->sh_offset);
    uint64_t count = tab->sh_size / sizeof(Elf64_Sym);
    const char *str = at(im, strtab->sh_offset);
    /* A name is terminated inside the table iff it starts at or before the table's last
     * NUL: finding that once keeps a hostile table without NULs from costing a scan per
     * symbol. */
    const char *last_nul = strtab->sh_size ? memrchr(str, '\0', strtab->sh_size) : NULL;
    uint64_t named = last_nul ? (uint64_t)(last_nul - str) : 0; /* st_name < named is a name */

    for (uint64_t k = 0; k < count; k++) {
        const Elf64_Sym *s = &sym[k];
        unsigned type = ELF64_ST_TYPE(s->st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
            s->st_size == 0 || s->st_name >= named || str[s->st_name] == '\0')
            continue;
        if (fn(arg, str + s->st_name, s->st_value, s->st_size))
            return 1;
    }
    return 0;
}

static int walk(const struct image *im, place_elf_fn fn, void *arg)
{
    const Elf64_Ehdr *eh = at(im, 0);
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != HOST_DATA || eh->e_ident[EI_VERSION] != EV_CURRENT ||
        eh->e_machine != HOST_MACHINE || (eh->e_type != ET_EXEC && eh->e_type != ET_DYN))
        return -1;
    /* sstrip and friends drop the section headers; such a file is valid but says nothing */
    if (eh->e_shoff == 0)
        return 0;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff % _Alignof(Elf64_Shdr) != 0 ||
        !inside(im, eh->e_shoff, sizeof(Elf64_Shdr)))
        return -1;
    const Elf64_Shdr *sh = at(im, eh->e_shoff);
    /* 65280 sections or more: the count moves to section 0's sh_size */
    uint64_t shnum = eh->e_shnum ? eh->e_shnum : sh[0].sh_size;
    uint64_t bytes;
    if (__builtin_mul_overflow(shnum, (uint64_t)sizeof(Elf64_Shdr), &bytes) ||
        !inside(im, eh->e_shoff, bytes))
        return -1;

    for (int report = 0; report <= 1; report++)
        for (uint64_t i = 0; i < shnum; i++) {
            if (sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM)
                continue;
            int rc = symbols(im, sh, shnum, i, report ? fn : NULL, arg);
            if (rc != 0)
                return rc;
        }
    return 0;
}

int place_elf_functions(const char *path, place_elf_fn fn, void *arg)
{
    int saved = errno;
    int rc = -1;
    /* O_NONBLOCK: a FIFO at this path must not hang the allocating thread in open();
     * O_NOCTTY: nor may a terminal become its controlling terminal. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        goto out;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr) ||
        (off_t)(size_t)st.st_size != st.st_size) {
        close(fd);
        goto out;
    }
    size_t size = (size_t)st.st_size;
    void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd); /* the mapping keeps the file */
    if (map == MAP_FAILED)
        goto out;
    struct image im = {map, size};
    rc = walk(&im, fn, arg);
    munmap(map, size);
out:
    errno = saved;
    return rc;
}
