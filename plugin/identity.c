/* The procedure users and scripts know (the copy-only twin of tests/gimp/
 * links another identity). */
#include "config.h"

#include "blur-procedure.h"

const BlurIdentity blur_identity = {
  .procedure = "plug-in-cuda-gaussian-blur",
  .binary = "cuda-gaussian-blur",
  .menu_path = "<Image>/Filters/Blur",
  .operation = "cuda:gaussian-blur",
  .catalogs = TRUE,
};
