/* The files procedure's plan (files-plan.h). */
#define _GNU_SOURCE 1   /* renameat2 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "pixel-engine.h"
#include "files-plan.h"
#include "files-whole.h"

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

/* The writer's mark in its temporary names: its pid, a count, and a hash
 * of its host and pid namespace (a folder may be shared by machines and
 * by containers, whose pids repeat; only writers that share both with us
 * can be known dead).  Read once a plan. */
static guint
host_hash (void)
{
  gchar *ns = g_file_read_link ("/proc/self/ns/pid", NULL);
  gchar *key = g_strconcat (g_get_host_name (), " ", ns ? ns : "", NULL);
  guint  hash = g_str_hash (key);

  g_free (key);
  g_free (ns);
  return hash;
}

static gchar *
temp_name (const gchar *output, guint host)
{
  static guint count;
  gchar       *dir = g_path_get_dirname (output), *base = g_path_get_basename (output), *temp;

  temp = g_strdup_printf ("%s%s" FILES_TEMP_PREFIX "%d-%u-%08x-%s", dir, G_DIR_SEPARATOR_S,
                          (int) getpid (), count++, host, base);
  g_free (dir);
  g_free (base);
  return temp;
}

/* Whether process `pid` has exited: gone, or dead and not reaped yet (state
 * Z or X with one thread left: a writer killed with its GIMP, where the init
 * of a container reaps late; a main thread that exited while others run is
 * a zombie too, yet alive). */
static gboolean
exited (int pid)
{
  gchar   *path, *status = NULL, *state, *threads;
  gboolean dead;

  if (kill (pid, 0) != 0)
    return errno == ESRCH;
  path = g_strdup_printf ("/proc/%d/status", pid);
  dead = g_file_get_contents (path, &status, NULL, NULL) && (state = strstr (status, "\nState:\t"))
         && (state[8] == 'Z' || state[8] == 'X') && (threads = strstr (status, "\nThreads:\t"))
         && atoi (threads + 10) == 1;
  g_free (status);
  g_free (path);
  return dead;
}

/* Whether `path`, named `name`, is a temporary file of a writer that no
 * longer runs: one of our host and namespace (`our_host`) that exited, or any
 * writer's untouched for FILES_STALE_SECONDS (another container's, killed). */
static gboolean
dead_writers (const gchar *path, const gchar *name, guint our_host)
{
  int      pid = 0, end = 0;
  guint    count = 0, host = 0;
  GStatBuf st;

  if (!g_str_has_prefix (name, FILES_TEMP_PREFIX)
      || sscanf (name + strlen (FILES_TEMP_PREFIX), "%d-%u-%8x-%n", &pid, &count, &host, &end) != 3
      || end == 0 || pid <= 0)
    return FALSE;
  if (host == our_host)
    return exited (pid);
  return g_lstat (path, &st) == 0 && st.st_mtime < time (NULL) - FILES_STALE_SECONDS;
}

/* Removes the dead writers' temporary files in `folder`; how many. */
static guint
remove_stale (const gchar *folder, guint host)
{
  GDir        *dir = g_dir_open (folder, 0, NULL);
  const gchar *name;
  guint        removed = 0;

  while (dir && (name = g_dir_read_name (dir)))
    {
      gchar *path = g_build_filename (folder, name, NULL);

      if (dead_writers (path, name, host))
        removed += g_unlink (path) == 0;
      g_free (path);
    }
  if (dir)
    g_dir_close (dir);
  return removed;
}

/* The plan for the files glob matched: folders counted and left out, as
 * are . and .. and temporary files. */
static FilesPlan *
plan_of (const glob_t *found, const gchar *folder, const gchar *format, guint host)
{
  FilesPlan *plan = g_new0 (FilesPlan, 1);

  plan->files = g_new0 (FilePlan, found->gl_pathc ? found->gl_pathc : 1);
  for (gsize i = 0; i < found->gl_pathc; i++)
    {
      const gchar *input = found->gl_pathv[i];
      gchar       *base = g_path_get_basename (input);
      gboolean     skip = strcmp (base, ".") == 0 || strcmp (base, "..") == 0
                          || g_str_has_prefix (base, FILES_TEMP_PREFIX);

      g_free (base);
      if (skip)
        continue;
      if (g_file_test (input, G_FILE_TEST_IS_DIR))
        {
          plan->folders++;
          continue;
        }
      plan->files[plan->n].input = g_strdup (input);
      plan->files[plan->n].output = output_name (input, folder, format);
      plan->files[plan->n].temp = temp_name (plan->files[plan->n].output, host);
      plan->n++;
    }
  return plan;
}

/* An output's name as a case-insensitive disk compares it. */
static gchar *
folded (const gchar *path)
{
  gchar *base = g_path_get_basename (path);
  gchar *key = g_utf8_validate (base, -1, NULL) ? g_utf8_casefold (base, -1) : g_ascii_strdown (base, -1);

  g_free (base);
  return key;
}

/* FALSE with *error naming every pair of inputs whose outputs share a name
 * (ignoring case). */
static gboolean
check_unique (const FilesPlan *plan, GError **error)
{
  GHashTable *seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GString    *clashes = g_string_new (NULL);
  guint       n = 0;

  for (guint i = 0; i < plan->n; i++)
    {
      gchar   *key = folded (plan->files[i].output);
      gpointer first;

      if (g_hash_table_lookup_extended (seen, key, NULL, &first))
        {
          const FilePlan *other = &plan->files[GPOINTER_TO_UINT (first)];
          gchar          *base = g_path_get_basename (plan->files[i].output);

          g_string_append_printf (clashes, "%s'%s' and '%s' (%s)", n++ ? "; " : "", other->input,
                                  plan->files[i].input, base);
          g_free (base);
          g_free (key);
        }
      else
        g_hash_table_insert (seen, key, GUINT_TO_POINTER (i));
    }
  if (n)
    g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                 _("Inputs would be written to the same output (names compared ignoring case), so "
                   "nothing was done: %s."), clashes->str);
  g_string_free (clashes, TRUE);
  g_hash_table_destroy (seen);
  return n == 0;
}

/* Whether the folder holding `path` is `out`. */
static gboolean
folder_is (const gchar *path, const struct stat *out)
{
  gchar      *dir = path ? g_path_get_dirname (path) : NULL;
  struct stat in;
  gboolean    same = dir && g_stat (dir, &in) == 0 && in.st_dev == out->st_dev && in.st_ino == out->st_ino;

  g_free (dir);
  return same;
}

/* FALSE with *error when the output folder, however spelled, holds an
 * input, or the file a link among the inputs names, and overwrite is off. */
static gboolean
check_not_inputs_folder (const FilesPlan *plan, const gchar *folder, gboolean overwrite,
                         GError **error)
{
  struct stat out;

  if (overwrite || g_stat (folder, &out) != 0)
    return TRUE;
  for (guint i = 0; i < plan->n; i++)
    {
      char    *real = realpath (plan->files[i].input, NULL);
      gboolean same = folder_is (plan->files[i].input, &out) || folder_is (real, &out);

      free (real);
      if (same)
        {
          g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                       _("The output folder '%s' holds the input '%s': its outputs would replace "
                         "the inputs. Choose another folder, or set overwrite to replace them."),
                       folder, plan->files[i].input);
          return FALSE;
        }
    }
  return TRUE;
}

/* The checks of a whole plan, before any file is written. */
static gboolean
check_plan (const FilesPlan *plan, const gchar *pattern, const gchar *folder, gboolean overwrite,
            GError **error)
{
  if (plan->n == 0 && plan->folders)
    g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                 _("The pattern '%s' matches no file, only %u folders."), pattern, plan->folders);
  else if (plan->n == 0)
    g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                 _("The pattern '%s' matches no file."), pattern);
  else
    return check_unique (plan, error) && check_not_inputs_folder (plan, folder, overwrite, error);
  return FALSE;
}

FilesPlan *
files_plan_new (const gchar *pattern, const gchar *folder, const gchar *format, gboolean overwrite,
                GError **error)
{
  glob_t     found;
  FilesPlan *plan;
  guint      host = host_hash ();

  if (!pattern || !*pattern)
    {
      g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR, _("No pattern of input files was given."));
      return NULL;
    }
  if (!check_folder (folder, error))
    return NULL;
  memset (&found, 0, sizeof found);
  /* GLOB_PERIOD: `*` matches names beginning with a dot too. */
  if (glob (pattern, GLOB_PERIOD, NULL, &found) != 0)
    found.gl_pathc = 0;
  plan = plan_of (&found, folder, format, host);
  globfree (&found);
  if (!check_plan (plan, pattern, folder, overwrite, error))
    {
      files_plan_free (plan);
      return NULL;
    }
  plan->stale = remove_stale (folder, host);
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

/* Flushes `path` (a file or a folder) to disk; FALSE with errno set. */
static gboolean
flush (const gchar *path)
{
  int      fd = open (path, O_RDONLY);
  gboolean ok = fd >= 0 && fsync (fd) == 0;
  int      saved = errno;

  if (fd >= 0)
    close (fd);
  errno = saved;
  return ok;
}

gboolean
files_plan_disk_full (const gchar *path)
{
  gchar         *dir = g_path_get_dirname (path);
  struct statvfs fs;
  /* f_blocks 0: a filesystem that tells no sizes. */
  gboolean       ok = statvfs (dir, &fs) == 0 && fs.f_blocks > 0;

  g_free (dir);
  /* Root may also fill the blocks ext4 reserves for it, which f_bavail leaves out. */
  return ok && (geteuid () == 0 ? fs.f_bfree : fs.f_bavail) == 0;
}

void
files_plan_note_full (const gchar *path, GError **error)
{
  if (error && *error && files_plan_disk_full (path))
    g_prefix_error (error, _("the output folder's disk is full: "));
}

/* FALSE with *error when the written file lacks part of what its format
 * says it holds (files-whole.h): its exporter may miss a failed last write.
 * The run also loads formats other than PNG and JPEG back (files-run.c). */
static gboolean
check_whole (const FilePlan *file, GError **error)
{
  FilesExportKind kind = files_plan_export_kind (file->output);

  if (files_whole (file->temp, kind == FILES_EXPORT_PNG, kind == FILES_EXPORT_JPEG))
    return TRUE;
  g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
               _("what was written is cut short (it lacks part of what its format says it holds): "
                 "not kept"));
  files_plan_note_full (file->temp, error);
  return FALSE;
}

/* The temporary file flushed to disk; FALSE with *error when it cannot be. */
static gboolean
flushed (const FilePlan *file, GError **error)
{
  if (flush (file->temp))
    return TRUE;
  g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR, _("cannot flush %s to disk: %s"), file->temp,
               g_strerror (errno));
  files_plan_note_full (file->temp, error);
  return FALSE;
}

/* A replaced output's owner, group and permissions given to the new one;
 * FALSE with *error when they cannot be (that output is then kept: its
 * owner would lose it).  A link there is replaced by the writer's own file:
 * its target's owner is not the link's. */
static gboolean
keep_owner (const FilePlan *file, GError **error)
{
  struct stat old, now;
  /* Never setuid, setgid or sticky: a picture is no program. */
  mode_t      mode;

  if (g_lstat (file->output, &old) != 0 || S_ISLNK (old.st_mode) || g_stat (file->temp, &now) != 0)
    return TRUE;
  mode = old.st_mode & 0777;
  if ((old.st_uid != now.st_uid || old.st_gid != now.st_gid)
      && chown (file->temp, old.st_uid, old.st_gid) != 0)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("cannot give it the owner and group of the output it would replace (user %u, "
                   "group %u): %s; that output kept"), (guint) old.st_uid, (guint) old.st_gid,
                 g_strerror (errno));
  else if (mode != (now.st_mode & 07777) && g_chmod (file->temp, mode) != 0)
    g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR,
                 _("cannot give it the permissions of the output it would replace (%04o): %s; that "
                   "output kept"), (guint) mode, g_strerror (errno));
  else
    return TRUE;
  return FALSE;
}

/* rename () that fails with EEXIST where `to` exists: RENAME_NOREPLACE, else
 * (a disk without it) a hard link, else (without those) a look first, which
 * another run may beat. */
static int
rename_new (const gchar *from, const gchar *to)
{
#ifdef RENAME_NOREPLACE
  if (renameat2 (AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
    return 0;
  /* EPERM: a sandbox's filter (an existing `to` says EEXIST first) */
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP && errno != EPERM)
    return -1;
#endif
  /* Linked, the output is in place: the temporary name goes as it can. */
  if (link (from, to) == 0)
    {
      g_unlink (from);
      return 0;
    }
  if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS)
    return -1;
  if (g_file_test (to, G_FILE_TEST_EXISTS) || g_file_test (to, G_FILE_TEST_IS_SYMLINK))
    {
      errno = EEXIST;
      return -1;
    }
  return rename (from, to);
}

/* The temporary file renamed to the output, over an old one when `replace`,
 * else never (another run may have made it since the plan looked). */
static FilesCommit
move (const FilePlan *file, gboolean replace, GError **error)
{
  if ((replace ? rename (file->temp, file->output) : rename_new (file->temp, file->output)) == 0)
    return FILES_COMMIT_DONE;
  if (!replace && errno == EEXIST)
    return FILES_COMMIT_EXISTS;
  g_set_error (error, BLUR_ERROR, BLUR_EXECUTION_ERROR, _("cannot rename %s to %s: %s"), file->temp,
               file->output, g_strerror (errno));
  return FILES_COMMIT_FAILED;
}

FilesCommit
files_plan_commit (const FilePlan *file, gboolean replace, GError **error)
{
  FilesCommit done = FILES_COMMIT_FAILED;
  gchar      *dir;

  /* Flushed while the writer may still read it: an old mode may not let it. */
  if (check_whole (file, error) && flushed (file, error) && keep_owner (file, error))
    done = move (file, replace, error);
  if (done != FILES_COMMIT_DONE)
    {
      g_unlink (file->temp);
      return done;
    }
  /* The rename itself reaches the disk with the folder. */
  dir = g_path_get_dirname (file->output);
  flush (dir);
  g_free (dir);
  return done;
}

/* GIMP's XCF loader's extensions, compressed ones included. */
gboolean
files_plan_is_xcf (const gchar *path)
{
  static const gchar *const endings[] = { ".xcf", ".xcf.gz", ".xcfgz", ".xcf.bz2", ".xcfbz2",
                                          ".xcf.xz", ".xcfxz" };
  gchar   *lower = g_ascii_strdown (path, -1);
  gboolean xcf = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (endings) && !xcf; i++)
    xcf = g_str_has_suffix (lower, endings[i]);
  g_free (lower);
  return xcf;
}

gboolean
files_plan_check_cost (gint png_level, gint jpeg_quality, GError **error)
{
  if (png_level < FILES_COST_DEFAULT || png_level > FILES_PNG_LEVEL_MAX)
    g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                 _("The PNG compression level must be between 0 and 9, or -1 for GIMP's own (got %d)."),
                 png_level);
  else if (jpeg_quality < FILES_COST_DEFAULT || jpeg_quality > FILES_JPEG_QUALITY_MAX)
    g_set_error (error, BLUR_ERROR, BLUR_CALLING_ERROR,
                 _("The JPEG quality must be between 0 and 100, or -1 for GIMP's own (got %d)."),
                 jpeg_quality);
  else
    return TRUE;
  return FALSE;
}

FilesExportKind
files_plan_export_kind (const gchar *path)
{
  const gchar    *dot = strrchr (path, '.');
  FilesExportKind kind = FILES_EXPORT_OTHER;

  if (!dot || strchr (dot, G_DIR_SEPARATOR))
    return kind;
  if (g_ascii_strcasecmp (dot, ".png") == 0)
    kind = FILES_EXPORT_PNG;
  else if (g_ascii_strcasecmp (dot, ".jpg") == 0 || g_ascii_strcasecmp (dot, ".jpeg") == 0
           || g_ascii_strcasecmp (dot, ".jpe") == 0)
    kind = FILES_EXPORT_JPEG;
  return kind;
}
