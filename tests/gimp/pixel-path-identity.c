/* The plug-in under another name that never merges the GEGL operation, so
 * that tests/gimp/perf-in-gimp.sh can time the procedure's own pixel path
 * and its path through the operation in one GIMP process.  No menu entry. */
#include "config.h"

#include "identity.h"

const BlurIdentity blur_identity = {
  .procedure = "plug-in-cuda-gaussian-blur-pixel-path",
  .binary = "cuda-gaussian-blur-pixel-path",
  .menu_path = NULL,
  .operation = NULL,
  .catalogs = FALSE,
};
