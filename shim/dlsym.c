#include "dlsym.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "../policy/base/lib.h"
#include "export.h"

/* Called by dlsym first: libplace's answer, or NULL for glibc's. */
__attribute__((visibility("hidden"), used)) void *place_dlsym_override(void *handle,
                                                                       const char *name)
{
    place_glibc_dlsym_fn(); /* the trampoline jumps to it */
    if (!name)
        return NULL;
    if (name[0] == 'c' && name[1] == 'u')
        return place_cu_dlsym(handle, name);
    if (name[0] == 'n' && strncmp(name, "nvml", 4) == 0)
        return place_nvml_dlsym(handle, name);
    return NULL;
}

/* glibc's dlsym finds the caller by its own return address (RTLD_NEXT searches after
 * the caller's object, and a caller's namespace decides the rest), so it must be reached
 * by a jump with the program's return address still on the stack, never by a call from
 * libplace. On x86-64 this trampoline guarantees that; elsewhere the compiler's sibling
 * call does, at -O2 (the tests check RTLD_NEXT through the shim). */
#if defined(__x86_64__)
__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        "dlsym:\n"
        "    .cfi_startproc\n"
        "    push %rdi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    push %rsi\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    sub $8, %rsp\n"
        "    .cfi_adjust_cfa_offset 8\n"
        "    call place_dlsym_override\n"
        "    add $8, %rsp\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rsi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    pop %rdi\n"
        "    .cfi_adjust_cfa_offset -8\n"
        "    test %rax, %rax\n"
        "    jnz 1f\n"
        "    jmp *place_glibc_dlsym(%rip)\n"
        "1:  ret\n"
        "    .cfi_endproc\n"
        ".size dlsym, .-dlsym\n");
#else
PLACE_EXPORT void *dlsym(void *handle, const char *name)
{
    void *ours = place_dlsym_override(handle, name);
    if (ours)
        return ours;
    return place_real_dlsym(handle, name);
}
#endif
