/* The files procedure's plan, without libgimp: which files a pattern
 * names, where each one's output goes, and how it gets there (a temporary
 * name in the output folder, then a rename). */
#ifndef FILES_PLAN_H
#define FILES_PLAN_H

#include <glib.h>

/* Texts of the files procedure (translated by the callers). */
#define FILES_BLURB   N_("Blurs every file a pattern names, in one GIMP process")
#define FILES_HELP    N_("Loads each file the glob pattern matches, blurs it as " \
                         "plug-in-cuda-gaussian-blur does (its visible layers merged, or every " \
                         "layer), and saves it under the same name in the output folder, " \
                         "through a temporary name there. Existing outputs are kept unless " \
                         "overwrite is on, so a rerun does only what is missing. A file that " \
                         "cannot be read or written is named with the reason and skipped; the " \
                         "call then fails after the others are done.")
#define PATTERN_BLURB N_("Glob pattern of the input files, e.g. /photos/*.png")
#define FOLDER_BLURB  N_("Existing folder the outputs are written to")
#define FORMAT_BLURB  N_("Output file extension, e.g. png, jpg, tif; empty: the input's")
#define LAYERS_BLURB  N_("Blur every layer (TRUE) or the visible layers merged into one (FALSE)")
#define OVERWRITE_BLURB N_("Replace outputs that exist (TRUE) or keep them (FALSE)")
#define PNG_LEVEL_BLURB N_("PNG outputs' compression level, 0 (fast, large) to 9 (slow, small); " \
                           "-1: GIMP's own (9)")
#define JPEG_QUALITY_BLURB N_("JPEG outputs' quality, 0 to 100; -1: GIMP's own (90)")

/* The export's cost arguments: -1 leaves GIMP's own choice. */
#define FILES_COST_DEFAULT  (-1)
#define FILES_PNG_LEVEL_MAX 9
#define FILES_JPEG_QUALITY_MAX 100

typedef enum {
  FILES_EXPORT_OTHER,
  FILES_EXPORT_PNG,
  FILES_EXPORT_JPEG
} FilesExportKind;

/* Prefix of the temporary names in the output folder. */
#define FILES_TEMP_PREFIX ".cgb-partial-"
/* A temporary file of another host or pid namespace untouched this long is
 * a killed writer's: an export writes its file in minutes. */
#define FILES_STALE_SECONDS (24 * 60 * 60)

typedef struct {
  gchar *input;    /* as the pattern matched it */
  gchar *output;   /* in the output folder */
  gchar *temp;     /* where the output is written before the rename */
} FilePlan;

typedef struct {
  FilePlan *files;
  guint     n;
  guint     folders;   /* inputs the pattern matched that are folders, left out */
  guint     stale;     /* temporary files of dead writers removed */
} FilesPlan;

/* The files `pattern` matches (sorted, folders left out), each with its
 * output in `folder` under its name, the extension `format` where not
 * empty.  NULL with *error when the pattern matches no file, or the
 * folder is missing or not writable. */
FilesPlan *files_plan_new  (const gchar *pattern,
                            const gchar *folder,
                            const gchar *format,
                            gboolean     overwrite,
                            GError     **error);
void       files_plan_free (FilesPlan   *plan);

typedef enum {
  FILES_COMMIT_FAILED,
  FILES_COMMIT_DONE,
  FILES_COMMIT_EXISTS   /* not `replace`, and the output exists (made since the plan) */
} FilesCommit;

/* Flushes the written temporary file and renames it to the output: over an
 * old one when `replace` (its owner, group and permissions kept, less
 * setuid, setgid and sticky; a link there replaced by the writer's own
 * file), else never over one.  FAILED with *error when it cannot, when a
 * PNG or JPEG lacks its ending (cut short), or when the old output's owner
 * cannot be kept; then and for EXISTS the temporary file is removed, an old
 * output untouched.  Other formats: the caller loads them back first. */
FilesCommit files_plan_commit (const FilePlan *file,
                               gboolean        replace,
                               GError        **error);

/* Whether the disk holding `path` has no space left for this process (root:
 * reserved blocks count as space); a hint for messages. */
gboolean   files_plan_disk_full (const gchar *path);

/* Says in *error that the disk holding `path` is full, where it is. */
void       files_plan_note_full (const gchar *path,
                                 GError     **error);

/* FALSE with *error (a calling error) when a cost argument is out of its
 * range: the PNG level -1 to 9, the JPEG quality -1 to 100. */
gboolean   files_plan_check_cost (gint     png_level,
                                  gint     jpeg_quality,
                                  GError **error);

/* The exporter a path's extension picks, among those a cost applies to. */
FilesExportKind files_plan_export_kind (const gchar *path);

/* Whether `path` names an XCF file (GIMP 2.10 saves every layer there). */
gboolean   files_plan_is_xcf (const gchar *path);

#endif
