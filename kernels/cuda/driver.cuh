/* The driver the linked CUDA runtime needs, and whether this machine has
 * it: the reasons a user reads when the blur runs on the CPU. */
#ifndef GBLUR_CUDA_DRIVER_CUH
#define GBLUR_CUDA_DRIVER_CUH

#include <stddef.h>

/* "CUDA 12.4 runtime (needs NVIDIA driver R525+)": what this build links in. */
void cuda_runtime_label (char *buf, size_t size);

/* False, and why in err, when no driver library can be loaded: known
 * without starting CUDA (no context, no driver call) and, where the
 * loader's cache lists the library, without loading it. */
bool cuda_driver_found (char *err, size_t err_size);

/* False, and why in err, when no driver or one too old for the runtime. */
bool cuda_driver_usable (char *err, size_t err_size);

#endif
