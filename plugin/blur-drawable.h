/* What both GIMP versions share: the procedure's texts, argument checks, and
 * the pixel path (GEGL buffers -> engine -> shadow buffer).  No CUDA here:
 * only the engine's C API. */
#ifndef BLUR_DRAWABLE_H
#define BLUR_DRAWABLE_H

#include <gegl.h>
#include "gblur.h"

#ifndef BLUR_COPY_ONLY
#define PLUG_IN_PROC   "plug-in-cuda-gaussian-blur"
#define PLUG_IN_BINARY "cuda-gaussian-blur"
#define PLUG_IN_ROLE   "cuda-gaussian-blur"
#else
/* The same sources built a second time with -DBLUR_COPY_ONLY (only for the
 * test tree: tests/gimp/perf-in-gimp.sh): the same procedure and pixel path,
 * reading and writing every pixel as the plug-in does, but the engine is not
 * called: the window read is written back unblurred.  Its time is the floor
 * of any plug-in.  No menu entry.  The procedure is named after the program,
 * "plug-in-" + its file name, so the script can also install it as
 * cuda-gaussian-blur-copy-only-serial, which takes the path as it was before
 * reading, blurring and writing overlapped (as CUDA_GBLUR_OVERLAP=0
 * CUDA_GBLUR_GEGL_MODULES=1 would), to compare both in one GIMP process. */
const char *blur_copy_only_proc (void);
#define PLUG_IN_PROC   (blur_copy_only_proc ())
#define PLUG_IN_BINARY "cuda-gaussian-blur-copy-only"
#define PLUG_IN_ROLE   "cuda-gaussian-blur-copy-only"
#endif

#define SIGMA_DEFAULT  2.0
#define LINEAR_DEFAULT TRUE

#define PLUG_IN_AUTHOR    "The CUDA Gaussian Blur authors"
#define PLUG_IN_COPYRIGHT "The CUDA Gaussian Blur authors, GPL-3.0-or-later"
#define PLUG_IN_DATE      "2026"

/* Texts shown in the procedure browser (translated by the callers). */
#define PLUG_IN_MENU_LABEL N_("CUDA Gaussian Blur…")
#define PLUG_IN_BLURB      N_("Exact Gaussian blur, on an NVIDIA GPU when there is one")
#define PLUG_IN_HELP       N_("Blurs the drawable (within the selection) with a sampled Gaussian of " \
                              "standard deviation sigma, truncated at 3 sigma, edges clamped. "     \
                              "Runs on the GPU with CUDA when an NVIDIA GPU and driver are "         \
                              "present, otherwise on all CPU cores; both give the same pixels, "     \
                              "within one level of an exact computation. With linear on, colours "  \
                              "are blurred in linear light, as GIMP's own Gaussian Blur does; "      \
                              "alpha is blurred premultiplied.")
#define SIGMA_BLURB  N_("Standard deviation of the Gaussian, in pixels (0.1 to 500)")
#define LINEAR_BLURB N_("Blur in linear light (TRUE) or the stored, perceptual values (FALSE)")

typedef enum {
  BLUR_CALLING_ERROR,
  BLUR_EXECUTION_ERROR
} BlurErrorKind;

#define BLUR_ERROR (blur_error_quark ())
GQuark    blur_error_quark (void);

/* Checks what both versions must refuse before touching anything. */
gboolean  blur_check_arguments (gdouble   sigma,
                                gboolean  drawable_valid,
                                gboolean  is_group,
                                gboolean  is_indexed,
                                GError  **error);

/* gegl_init for the plug-in: without GEGL's operation modules unless
 * `interactive` (the dialog may want them; the pixel path needs none). */
void      blur_gegl_init (gboolean interactive);

/* The engine, created once per plug-in run or dialog; NULL with *error set. */
gblur_engine *blur_engine_new (GError **error);

/* Progress sink: fraction in [0,1]. */
typedef void (*BlurProgressFunc) (gdouble fraction, gpointer user_data);

/* Blurs the rectangle (x, y, width, height) of `buffer` (the selection
 * bounds) into the same rectangle of `shadow`, reading a halo of the blur
 * radius around it.  `drawable_format` picks the pixel format.  Reading,
 * blurring and writing overlap (CUDA_GBLUR_OVERLAP=0: one after the other),
 * so on failure `shadow` may hold some finished rows: merge it only when
 * this returns TRUE.  Call from the thread that talks to GIMP. */
gboolean  blur_buffer (gblur_engine     *engine,
                       GeglBuffer       *buffer,
                       GeglBuffer       *shadow,
                       const Babl       *drawable_format,
                       gint              x,
                       gint              y,
                       gint              width,
                       gint              height,
                       gdouble           sigma,
                       gboolean          linear,
                       BlurProgressFunc  progress,
                       gpointer          progress_data,
                       GError          **error);

/* For a preview: blurs `roi` of `buffer` (with its halo, as blur_buffer
 * does) and converts the result to `out_format` in `out`. */
gboolean  blur_to_memory (gblur_engine        *engine,
                          GeglBuffer          *buffer,
                          const Babl          *drawable_format,
                          const GeglRectangle *roi,
                          gdouble              sigma,
                          gboolean             linear,
                          const Babl          *out_format,
                          guchar              *out,
                          gint                 out_rowstride,
                          GError             **error);

/* What the dialog shows about the engine: "GPU: NVIDIA H200" or
 * "CPU: 2 threads — no CUDA device (reason)".  Free with g_free. */
gchar    *blur_engine_summary (gblur_engine *engine);

/* The drawable's pixel format in sRGB, whatever the image's profile: GIMP
 * 2.10 does not colour-manage its filters (its own blur decodes the sRGB
 * curve), and on 2.10 neither does this plug-in. */
const Babl *blur_format_in_srgb (const Babl *drawable_format);

#endif
