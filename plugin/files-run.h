/* The files procedure's run, written once for both GIMPs: every file a
 * pattern names is loaded, blurred by the one-file procedure (called by
 * name, so the pixels are that procedure's), and saved (files-plan.h). */
#ifndef FILES_RUN_H
#define FILES_RUN_H

#include <glib.h>

#include "files-export.h"

typedef struct {
  const gchar *pattern;
  gdouble      sigma;
  gboolean     linear;
  const gchar *folder;
  const gchar *format;       /* "" or NULL: the input's */
  gboolean     every_layer;  /* FALSE: the visible layers merged into one */
  gboolean     overwrite;
  FilesCost    cost;         /* the export's: FILES_COST_DEFAULT, GIMP's own */
} FilesArgs;

typedef struct {
  guint blurred;   /* written */
  guint skipped;   /* their outputs existed */
  guint failed;    /* not read, not blurred or not written */
} FilesCount;

/* The procedure's name: the one-file procedure's with "-files". */
const gchar *files_procedure_name (void);

/* Blurs every file; a file that fails is named on stderr and skipped.
 * FALSE with *error when the arguments are wrong (nothing done) or when
 * any file failed (its name and reason in the message). */
gboolean     files_run            (const FilesArgs *args,
                                   FilesCount      *count,
                                   GError         **error);

#endif
