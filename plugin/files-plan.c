/* The files procedure's plan (files-plan.h). */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "pixel-engine.h"
#include "files-plan.h"

/* The output's name: the input's, with `format` as its extension if given. */
static gchar *
output_name (const gchar *input, const gchar *folder, const gchar *format)
{
  gchar *base = g_path_get_basename (input), *dot, *path;

  if (format && *format)
    {
      const gchar *ext = format[0] == '.' ? format + 1 : format;

      if ((dot = strrchr (base, '.')) && dot != base)
        *dot = '\0';
      path = g_strdup_printf ("%s%s%s.%s", folder, G_DIR_SEPARATOR_S, base, ext);
    }
  else
    path = g_build_filename (folder, base, NULL);
  g_free (base);
  return path;
}

static gboolean
check_folder (const gchar *folder, GError **error)
{
  if (!folder || !*folder || !g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("The output folder '%s' does not exist."), folder ? folder : "");
      return FALSE;
    }
  if (g_access (folder, W_OK) != 0)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("The output folder '%s' is not writable: %s"), folder, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* The plan for the files glob matched, folders left out. */
static FilesPlan *
plan_of (const glob_t *found, const gchar *folder, const gchar *format)
{
  FilesPlan *plan = g_new0 (FilesPlan, 1);

  plan->files = g_new0 (FilePlan, found->gl_pathc ? found->gl_pathc : 1);
  for (gsize i = 0; i < found->gl_pathc; i++)
    {
      const gchar *input = found->gl_pathv[i];
      FilePlan    *file = &plan->files[plan->n];
      gchar       *dir, *base;

      if (g_file_test (input, G_FILE_TEST_IS_DIR))
        continue;
      file->input = g_strdup (input);
      file->output = output_name (input, folder, format);
      dir = g_path_get_dirname (file->output);
      base = g_path_get_basename (file->output);
      file->temp = g_strdup_printf ("%s%s" FILES_TEMP_PREFIX "%s", dir, G_DIR_SEPARATOR_S, base);
      g_free (dir);
      g_free (base);
      plan->n++;
    }
  return plan;
}

FilesPlan *
files_plan_new (const gchar *pattern, const gchar *folder, const gchar *format, gboolean overwrite,
                GError **error)
{
  glob_t     found;
  FilesPlan *plan;

  if (!pattern || !*pattern)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR, _("No pattern of input files was given."));
      return NULL;
    }
  (void) overwrite;
  if (!check_folder (folder, error))
    return NULL;
  memset (&found, 0, sizeof found);
  if (glob (pattern, 0, NULL, &found) != 0)
    found.gl_pathc = 0;
  plan = plan_of (&found, folder, format);
  globfree (&found);
  if (plan->n == 0)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                   _("The pattern '%s' matches no file."), pattern);
      files_plan_free (plan);
      return NULL;
    }
  return plan;
}

void
files_plan_free (FilesPlan *plan)
{
  if (!plan)
    return;
  for (guint i = 0; i < plan->n; i++)
    {
      g_free (plan->files[i].input);
      g_free (plan->files[i].output);
      g_free (plan->files[i].temp);
    }
  g_free (plan->files);
  g_free (plan);
}

gboolean
files_plan_commit (const FilePlan *file, GError **error)
{
  if (g_rename (file->temp, file->output) == 0)
    return TRUE;
  g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR, _("cannot rename %s to %s: %s"),
               file->temp, file->output, g_strerror (errno));
  g_unlink (file->temp);
  return FALSE;
}

gboolean
files_plan_is_xcf (const gchar *path)
{
  return g_str_has_suffix (path, ".xcf");
}
