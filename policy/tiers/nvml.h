/* NVML (libnvidia-ml.so.1) as libplace calls it: the functions the program's own calls
 * reach, and which CUDA device an NVML device is.
 *
 * NVML numbers GPUs by PCI bus, CUDA (by default) fastest first, and CUDA_VISIBLE_DEVICES
 * hides and renumbers them: only the UUID says which is which. NVML is never loaded by
 * libplace itself: its functions are looked up only once the program has called one. */
#ifndef PLACE_NVML_H
#define PLACE_NVML_H

#include <stdbool.h>

#include "nvml_api.h"

/* An NVML function by its exact name, or NULL (NVML not loaded, or no such function). */
void *place_nvml_sym(const char *name);

/* Whether fn is a function of the loaded libnvidia-ml.so.1. */
bool place_nvml_owns(const void *fn);

/* The CUDA device number of NVML's device, or -1 when no CUDA device of this process is
 * it (hidden by CUDA_VISIBLE_DEVICES, or NVML cannot say). The driver must be started. */
int place_nvml_cuda_device(nvmlDevice_t device);

#endif
