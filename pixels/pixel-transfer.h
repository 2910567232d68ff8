/* The plug-in's blur of a drawable's buffer into its shadow: reading,
 * blurring and writing overlap.  Only the plug-in links it: GIMP's tiles
 * come over libgimp's wire, which one thread talks to. */
#ifndef PIXEL_TRANSFER_H
#define PIXEL_TRANSFER_H

#include "pixel-path.h"

/* Progress sink: fraction in [0,1]. */
typedef void (*BlurProgressFunc) (gdouble fraction, gpointer user_data);

/* Blurs `roi` of `buffer` (the selection bounds) into the same rectangle of
 * `shadow`, reading a halo of the blur radius around it; the shape's level
 * must be 0.  `drawable_format` picks the pixel format.  Reading, blurring
 * and writing overlap (GBLUR_OVERLAP=0: one after the other), so on
 * failure `shadow` may hold some finished rows: merge it only when this
 * returns TRUE.  Call from the thread that talks to GIMP. */
gboolean  blur_buffer (gblur_engine        *engine,
                       GeglBuffer          *buffer,
                       GeglBuffer          *shadow,
                       const Babl          *drawable_format,
                       const GeglRectangle *roi,
                       const BlurShape     *shape,
                       BlurProgressFunc     progress,
                       gpointer             progress_data,
                       GError             **error);

#endif
