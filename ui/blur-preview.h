/* The live preview, shared by both GIMP versions' dialogs: blurs only the
 * visible rectangle (plus its halo) with the dialog's engine. */
#ifndef BLUR_PREVIEW_H
#define BLUR_PREVIEW_H

#include <libgimp/gimp.h>
#include <libgimp/gimpui.h>
#include "gblur.h"

typedef struct {
  gblur_engine *engine;          /* created once per dialog */
  GeglBuffer   *buffer;          /* the drawable's pixels */
  const Babl   *drawable_format;
  const Babl   *display_format;  /* 8-bit, what GimpPreview draws */
  gdouble       last_ms;         /* time of the last update */
} BlurPreview;

void blur_preview_init   (BlurPreview  *bp,
                          gblur_engine *engine,
                          GeglBuffer   *buffer,
                          const Babl   *drawable_format);
void blur_preview_render (BlurPreview  *bp,
                          GimpPreview  *preview,
                          gdouble       sigma,
                          gboolean      linear);
void blur_preview_clear  (BlurPreview  *bp);

#endif
