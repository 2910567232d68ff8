/* Whether a merged cuda:gaussian-blur filter really blurred: the operation
 * runs in GIMP's process and, when nothing there can blur, leaves the layer
 * as it was with only a warning.  Before the merge the procedure blurs a
 * small window of the drawable on its own CPU engine; after it, it compares. */
#ifndef MERGE_CHECK_H
#define MERGE_CHECK_H

#include <libgimp/gimp.h>

typedef enum {
  MERGE_BLURRED,     /* the window holds the blur (or no window could tell) */
  MERGE_UNTOUCHED,   /* the window holds the pixels from before */
  MERGE_WRONG        /* neither */
} MergeOutcome;

typedef struct MergeCheck MergeCheck;

/* Picks a fully selected window of `drawable` that the blur changes and
 * blurs it; NULL with *error set when the CPU engine cannot. */
MergeCheck  *merge_check_new  (GimpDrawable *drawable,
                               gdouble       sigma,
                               gboolean      linear,
                               GError      **error);
/* Reads the window again, after the merge. */
MergeOutcome merge_check_read (MergeCheck   *check,
                               GimpDrawable *drawable);
void         merge_check_free (MergeCheck   *check);

#endif
