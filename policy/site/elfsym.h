/* Function symbols of an ELF file, read without malloc.
 *
 * Site matching names a return address `function+0xOFF`. dladdr() sees only .dynsym, so
 * it misses static functions and everything in an executable that exports nothing; the
 * symbol cache reads .symtab (and .dynsym) of each mapped module instead. That happens
 * inside malloc with the re-entry guard up, in processes libplace does not control, so
 * this reader allocates nothing, touches no stdio, leaves errno as it was and trusts
 * nothing in the file: every offset, size and name is checked against the mapping. */
#ifndef PLACE_ELFSYM_H
#define PLACE_ELFSYM_H

#include <stdint.h>

/* Called for each defined function symbol. value is the symbol's st_value (link-time
 * virtual address), size its st_size (>0). Return nonzero to stop the iteration.
 * name points into the mapped file and is valid only during the call. For an
 * STT_GNU_IFUNC symbol, value and size are those of the resolver. */
typedef int (*place_elf_fn)(void *arg, const char *name, uint64_t value, uint64_t size);

/* Iterates the function symbols (STT_FUNC and STT_GNU_IFUNC, st_shndx != SHN_UNDEF,
 * st_size > 0, non-empty name) of the ELF64 file at path: those of .symtab when it has
 * one, and those of .dynsym (a symbol in both may be reported twice; callers tolerate
 * that). Only executables and shared objects (ET_EXEC, ET_DYN) are read: the values of a
 * relocatable object are not addresses.
 * Returns 0 when the file was read (even if it had no symbols), 1 if fn stopped it,
 * -1 if the file cannot be opened/mapped or is not a well-formed ELF64 of this machine;
 * fn is never called when the result is -1. A file with no section headers reads as 0
 * with no calls. */
int place_elf_functions(const char *path, place_elf_fn fn, void *arg);

#endif
