/* Whether a written file holds all that its format says it holds: the
 * files procedure's check of an exporter that may miss a failed last write
 * (a full disk, a quota). */
#ifndef FILES_WHOLE_H
#define FILES_WHOLE_H

#include <glib.h>

/* Whether `path` is whole: a PNG (`png`) ends with its IEND, a JPEG
 * (`jpeg`) with its EOI; by its first bytes, a TIFF holds every strip or
 * tile its first directory names, a BMP or WebP is as long as its header
 * says.  Other formats: TRUE (the files procedure loads them back). */
gboolean files_whole (const gchar *path,
                      gboolean     png,
                      gboolean     jpeg);

#endif
