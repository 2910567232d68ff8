/* The engine as the GIMP side uses it: creation from the environment
 * (pixel-env.h), errors, and the summary the dialog shows.  No libgimp
 * here: the GEGL operation uses it too. */
#ifndef PIXEL_ENGINE_H
#define PIXEL_ENGINE_H

#include <glib.h>
#include "gblur.h"
#include "pixel-env.h"

typedef enum {
  BLUR_CALLING_ERROR,
  BLUR_EXECUTION_ERROR
} BlurErrorKind;

#define BLUR_ERROR (blur_error_quark ())
GQuark    blur_error_quark (void);

/* When the engine starts CUDA (GBLUR_BACKEND may still pick the CPU for the
 * first two). */
typedef enum {
  /* Only if a run would take the CPU longer (gblur_config.defer_cuda): for
   * an engine that lives for one blur (a batch call), or a warm process
   * that starts CUDA itself between calls. */
  PIXEL_ENGINE_DEFER_CUDA,
  /* At once: a dialog starts it while the user looks at the preview. */
  PIXEL_ENGINE_START_CUDA,
  /* Never, whatever GBLUR_BACKEND says: no CUDA context (for a retry after
   * the first engine failed, or a check). */
  PIXEL_ENGINE_CPU_ONLY
} PixelEngineStart;

/* The engine, configured from the environment; NULL with *error set,
 * which names a malformed variable. */
gblur_engine *pixel_engine_new (PixelEngineStart start, GError **error);

/* The error of a failed engine call: a calling error for a bad sigma, an
 * execution error otherwise, with the engine's message. */
void      pixel_engine_set_error (GError      **error,
                                  gblur_status  status,
                                  gblur_engine *engine);

/* Tells the user when the GPU failed and the CPU finished a run. */
void      pixel_engine_note_result (const gblur_result *result);

/* What the dialog shows about the engine: "GPU: NVIDIA H200" or
 * "CPU: 2 threads — no CUDA device (reason)".  Free with g_free. */
gchar    *pixel_engine_summary (gblur_engine *engine);

#endif
