/* What the front ends share about the procedure: its identity and texts,
 * the argument checks, errors, the engine, and the plug-in's environment.
 * No libgimp here: the GEGL operation uses it too. */
#ifndef BLUR_PROCEDURE_H
#define BLUR_PROCEDURE_H

#include <glib.h>
#include "gblur.h"

/* Who the procedure is.  The product's identity is in plugin/; the
 * copy-only twin of tests/gimp/ links its own, so that both can be
 * installed in one GIMP. */
typedef struct {
  const char *procedure;   /* PDB name */
  const char *binary;      /* program name, for gimp_ui_init */
  const char *menu_path;   /* NULL: no menu entry */
  const char *operation;   /* the GEGL operation GIMP 3 merges; NULL: the pixel path only */
  gboolean    catalogs;    /* translations lie in locale/ beside the program */
} BlurIdentity;

extern const BlurIdentity blur_identity;

/* The warm process's procedure, which both GIMPs start with themselves:
 * "extension-" and the procedure's name without its "plug-in-".  Inline:
 * the operation links this file's code but has no identity. */
static inline const char *
blur_extension_name (void)
{
  static gchar *name;
  const gchar  *proc = blur_identity.procedure;

  if (!name)
    name = g_strconcat ("extension-", g_str_has_prefix (proc, "plug-in-") ? proc + 8 : proc, NULL);
  return name;
}

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

/* What the plug-in takes from the environment, read once. */
typedef struct {
  gboolean verbose;        /* CUDA_GBLUR_VERBOSE: timings and steps on stderr */
  gboolean overlap;        /* CUDA_GBLUR_OVERLAP=0 reads, blurs and writes in turn */
  gboolean gegl_modules;   /* CUDA_GBLUR_GEGL_MODULES=1 loads GEGL's operations anyway */
} BlurEnvironment;

const BlurEnvironment *blur_environment (void);

/* Checks what both versions must refuse before touching anything. */
gboolean  blur_check_arguments (gdouble   sigma,
                                gboolean  drawable_valid,
                                gboolean  is_group,
                                gboolean  is_indexed,
                                GError  **error);

/* The engine, created once per plug-in run or dialog; NULL with *error set.
 * once: it lives for one blur (a batch call), so CUDA starts only if that
 * blur would take the CPU longer (gblur_config.defer_cuda); a dialog starts
 * it at once, while the user looks at the preview. */
gblur_engine *blur_engine_new (gboolean once, GError **error);
/* An engine on the CPU whatever GBLUR_BACKEND says: no CUDA context (for a
 * retry after the first engine failed, or a check). */
gblur_engine *blur_cpu_engine_new (GError **error);

/* The error of a failed engine call: a calling error for a bad sigma, an
 * execution error otherwise, with the engine's message. */
void      blur_set_engine_error (GError      **error,
                                 gblur_status  status,
                                 gblur_engine *engine);

/* What the dialog shows about the engine: "GPU: NVIDIA H200" or
 * "CPU: 2 threads — no CUDA device (reason)".  Free with g_free. */
gchar    *blur_engine_summary (gblur_engine *engine);

#endif
