/* The names derived from the procedure's identity (identity.h). */
#include "config.h"

#include "identity.h"

const char *
blur_extension_name (void)
{
  static gchar *name;
  const gchar  *proc = blur_identity.procedure;

  if (!name)
    name = g_strconcat ("extension-", g_str_has_prefix (proc, "plug-in-") ? proc + 8 : proc, NULL);
  return name;
}
