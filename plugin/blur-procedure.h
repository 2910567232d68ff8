/* The procedure's texts, defaults and argument checks, which both GIMPs'
 * front ends share. */
#ifndef BLUR_PROCEDURE_H
#define BLUR_PROCEDURE_H

#include <glib.h>

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
#define SIGMA_BLURB  N_("Standard deviation of the Gaussian, in pixels (0.1 to 1500)")
#define LINEAR_BLURB N_("Blur in linear light (TRUE) or the stored, perceptual values (FALSE)")

/* Checks what both versions must refuse before touching anything. */
gboolean  blur_check_arguments (gdouble   sigma,
                                gboolean  drawable_valid,
                                gboolean  is_group,
                                gboolean  is_indexed,
                                GError  **error);

#endif
