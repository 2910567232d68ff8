/* The engine as the GIMP side uses it: creation, errors, the summary the
 * dialog shows, and the environment the plug-in and the operation read.
 * No libgimp here: the GEGL operation uses it too. */
#ifndef BLUR_ENGINE_H
#define BLUR_ENGINE_H

#include <glib.h>
#include "gblur.h"

typedef enum {
  BLUR_CALLING_ERROR,
  BLUR_EXECUTION_ERROR
} BlurErrorKind;

#define BLUR_ERROR (blur_error_quark ())
GQuark    blur_error_quark (void);

/* What the GIMP side takes from the environment, read once. */
typedef struct {
  gboolean verbose;        /* CUDA_GBLUR_VERBOSE: timings and steps on stderr */
  gboolean overlap;        /* CUDA_GBLUR_OVERLAP=0 reads, blurs and writes in turn */
  gboolean gegl_modules;   /* CUDA_GBLUR_GEGL_MODULES=1 loads GEGL's operations anyway */
} BlurEnvironment;

const BlurEnvironment *blur_environment (void);

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

/* Tells the user when the GPU failed and the CPU finished a run. */
void      blur_note_result (const gblur_result *result);

/* What the dialog shows about the engine: "GPU: NVIDIA H200" or
 * "CPU: 2 threads — no CUDA device (reason)".  Free with g_free. */
gchar    *blur_engine_summary (gblur_engine *engine);

#endif
