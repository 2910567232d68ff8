/* The files procedure's saving, both GIMPs: GIMP's own export, or with the
 * cost asked for (a PNG compression level, a JPEG quality), the exporter's
 * other settings GIMP's defaults. */
#ifndef FILES_EXPORT_H
#define FILES_EXPORT_H

#include <libgimp/gimp.h>

#if GIMP_MAJOR_VERSION >= 3
typedef GimpImage    *FilesImage;
typedef GimpDrawable *FilesLayer;
#define NO_IMAGE NULL
#else
typedef gint32 FilesImage;
typedef gint32 FilesLayer;
#define NO_IMAGE (-1)
#endif

/* The export's cost; FILES_COST_DEFAULT (-1): GIMP's own. */
typedef struct {
  gint png_level;      /* 0 to 9 */
  gint jpeg_quality;   /* 0 to 100 */
} FilesCost;

/* The PDB's last error after `what` failed, as a GError of the execution
 * kind. */
void     files_pdb_error  (GError     **error,
                           const gchar *what);

/* Saves `image` (GIMP 2.10: its `layer`) to `path` by the exporter its
 * extension picks; FALSE with *error when it cannot. */
gboolean files_save_image (FilesImage       image,
                           FilesLayer       layer,
                           const gchar     *path,
                           const FilesCost *cost,
                           GError         **error);

#endif
