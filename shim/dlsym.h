/* dlsym, interposed: the CUDA runtime (static or shared) and other libraries reach the
 * driver by dlopen("libcuda.so.1") and one dlsym of cuGetProcAddress_v2, through which
 * they then find every entry point, and pynvml and PyTorch reach NVML by dlopen and
 * dlsym. libplace answers the dlsym of cuGetProcAddress with its own (shim/cuda.c), and a
 * dlsym of an entry point it wraps (shim/cuda.c, shim/nvml.c) with the wrapper; every
 * other lookup is glibc's, made as if libplace were not there. */
#ifndef PLACE_DLSYM_H
#define PLACE_DLSYM_H

/* What dlsym(handle, name) hands out instead of glibc's answer, or NULL to give that
 * (shim/cuda.c). name starts with "cu". */
void *place_cu_dlsym(void *handle, const char *name);

/* The same for NVML's entry points (shim/nvml.c). name starts with "nvml". */
void *place_nvml_dlsym(void *handle, const char *name);

#endif
