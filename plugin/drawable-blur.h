/* The blur of one drawable, written once for both GIMPs: 2.10 names a
 * drawable by its ID, GIMP 3 by an object, and the calls are the same. */
#ifndef DRAWABLE_BLUR_H
#define DRAWABLE_BLUR_H

#include <libgimp/gimp.h>
#include "gblur.h"

#if GIMP_MAJOR_VERSION >= 3
typedef GimpDrawable *BlurDrawable;
#else
typedef gint32 BlurDrawable;
#endif

/* gegl_init for the plug-in: without GEGL's operation modules unless
 * `interactive` (the dialog may want them; the pixel path needs none). */
void        blur_gegl_init       (gboolean interactive);

/* The format the pixel path reads the drawable in: its own in GIMP 3.  In
 * sRGB in GIMP 2.10, whatever the image's profile: 2.10 does not
 * colour-manage its filters (its own blur decodes the sRGB curve), and on
 * 2.10 neither does this plug-in. */
const Babl *blur_drawable_format (BlurDrawable drawable);

/* Blurs the drawable within the selection, with progress, as one undo
 * step; does nothing where the selection misses it.  The drawable is
 * unchanged on failure. */
gboolean    blur_drawable        (gblur_engine  *engine,
                                  BlurDrawable   drawable,
                                  gdouble        sigma,
                                  gboolean       linear,
                                  GError       **error);

#endif
