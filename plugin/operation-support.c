/* Around the GEGL operation's pixel path (operation-support.h). */
#define _GNU_SOURCE 1   /* dladdr */
#include "config.h"

#include <dlfcn.h>
#include <glib/gi18n-lib.h>

#include "blur-procedure.h"
#include "operation-support.h"

void
operation_bind_catalogs (void)
{
  Dl_info where;

  if (dladdr ((void *) operation_bind_catalogs, &where) && where.dli_fname)
    {
      gchar *folder = g_path_get_dirname (where.dli_fname);
      gchar *locale = g_build_filename (folder, "locale", NULL);

      bindtextdomain (GETTEXT_PACKAGE, locale);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_free (locale);
      g_free (folder);
    }
}

/* One engine for the process: its CUDA context is made once.  GEGL may
 * render from several threads: the lock keeps to one run at a time. */
G_LOCK_DEFINE_STATIC (engine);
static gblur_engine *engine;

gboolean
operation_blur (GeglBuffer *input, const Babl *source_format, const GeglRectangle *roi,
                const BlurShape *shape, GeglBuffer *output, const GeglRectangle *result)
{
  GError   *error = NULL;
  gboolean  ok;

  G_LOCK (engine);
  if (!engine)
    engine = blur_engine_new (TRUE, &error);
  ok = engine && blur_region (engine, input, source_format, roi, shape, output, &error);
  G_UNLOCK (engine);
  if (!ok)
    {
      g_warning ("cuda:gaussian-blur: %s; the input is passed through", error->message);
      g_error_free (error);
      gegl_buffer_copy (input, result, GEGL_ABYSS_NONE, output, result);
    }
  return TRUE;
}
