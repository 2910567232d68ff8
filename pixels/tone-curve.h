/* The tone curve of an image's own colour profile, exact enough for 16-bit
 * data.  babl converts with float approximations of such curves (about 2e-5
 * off in linear light: up to 20 levels at 16 bits in the shadows), so for
 * 16-bit data in linear light with a curve that is not sRGB's, the pixel
 * path decodes and encodes with the profile's curve itself, evaluated by
 * LittleCMS. */
#ifndef TONE_CURVE_H
#define TONE_CURVE_H

#include <babl/babl.h>
#include <glib.h>

typedef struct _ToneCurve ToneCurve;

/* The curves (one for gray, three for RGB) of the ICC profile behind
 * `format`'s space; NULL when that space has no readable profile.  Owned by
 * this module: made on first use and kept. */
const ToneCurve *tone_curve_for_format (const Babl      *format,
                                        gint             colors);

/* Rows of `n` pixels of `colors` (+ 1 when `alpha`) channels.  Alpha is
 * linear: scaled, not curved.  decode reads u16 from `data` and writes
 * float over it, encode the reverse: `data` holds n pixels of float. */
void             tone_curve_decode     (const ToneCurve *curve,
                                        gpointer         data,
                                        gsize            n,
                                        gboolean         alpha);
void             tone_curve_encode     (const ToneCurve *curve,
                                        gpointer         data,
                                        gsize            n,
                                        gboolean         alpha);

#endif
