/* The procedure users and scripts know (the twins of tests/gimp/ link
 * identities of their own). */
#include "config.h"

#include "identity.h"

const BlurIdentity blur_identity = {
  .procedure = "plug-in-cuda-gaussian-blur",
  .binary = "cuda-gaussian-blur",
  .menu_path = "<Image>/Filters/Blur",
  .operation = "cuda:gaussian-blur",
  .catalogs = TRUE,
};
