/* dlsym, interposed: the CUDA runtime (static or shared) and other libraries reach the
 * driver by dlopen("libcuda.so.1") and one dlsym of cuGetProcAddress_v2, through which
 * they then find every entry point. libplace answers that dlsym with its own
 * cuGetProcAddress (shim/cuda.c), and a dlsym of an entry point it wraps with the
 * wrapper; every other lookup is glibc's, made as if libplace were not there. */
#ifndef PLACE_DLSYM_H
#define PLACE_DLSYM_H

/* What dlsym(handle, name) hands out instead of glibc's answer, or NULL to give that
 * (shim/cuda.c). name starts with "cu". */
void *place_cu_dlsym(void *handle, const char *name);

#endif
