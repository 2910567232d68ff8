/* Who the procedure is.  The product's identity is product-identity.c; the
 * twins of tests/gimp/ link their own, so that all can be installed in one
 * GIMP. */
#ifndef IDENTITY_H
#define IDENTITY_H

#include <glib.h>

typedef struct {
  const char *procedure;   /* PDB name */
  const char *binary;      /* program name, for gimp_ui_init */
  const char *menu_path;   /* NULL: no menu entry */
  const char *operation;   /* the GEGL operation GIMP 3 merges; NULL: the pixel path only */
  gboolean    catalogs;    /* translations lie in locale/ beside the program */
} BlurIdentity;

extern const BlurIdentity blur_identity;

/* The warm process's procedure, which both GIMPs start with themselves:
 * "extension-" and the procedure's name without its "plug-in-". */
const char *blur_extension_name (void);

#endif
