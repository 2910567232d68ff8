/* The files procedure's plan (plugin/files-plan.c) without GIMP: which
 * inputs a pattern gives, that no two outputs share a name (ignoring case),
 * that the output folder is not the inputs' unless overwrite, temporary
 * names of their writer only, dead writers' temporary files removed, and
 * the output flushed to disk before its rename, never over an output made
 * since the plan (overwrite off).  Linked with -Wl,--wrap= fsync, rename,
 * renameat2 and link: the calls are logged here.
 *   test-files-plan   (prints PASS/FAIL lines and "N passed, N failed") */
#define _GNU_SOURCE 1   /* unshare */
#include "config.h"

#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <utime.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "pixel-engine.h"
#include "files-plan.h"

static int      passed, failed;
static gchar   *root;
static GString *calls;   /* "fsync PATH;", "rename FROM TO;", … in order */
static int      refuse_renameat2;   /* errno renameat2 fails with (a disk without it); 0: none */

int __real_fsync (int fd);
int __real_rename (const char *from, const char *to);
int __real_renameat2 (int from_dir, const char *from, int to_dir, const char *to, unsigned flags);
int __real_link (const char *from, const char *to);

int
__wrap_fsync (int fd)
{
  gchar *link = g_strdup_printf ("/proc/self/fd/%d", fd);
  gchar *path = g_file_read_link (link, NULL);

  g_string_append_printf (calls, "fsync %s;", path ? path : "?");
  g_free (path);
  g_free (link);
  return __real_fsync (fd);
}

int
__wrap_rename (const char *from, const char *to)
{
  g_string_append_printf (calls, "rename %s %s;", from, to);
  return __real_rename (from, to);
}

int
__wrap_renameat2 (int from_dir, const char *from, int to_dir, const char *to, unsigned flags)
{
  g_string_append_printf (calls, "renameat2 %s %s;", from, to);
  if (refuse_renameat2)
    {
      errno = refuse_renameat2;
      return -1;
    }
  return __real_renameat2 (from_dir, from, to_dir, to, flags);
}

int
__wrap_link (const char *from, const char *to)
{
  g_string_append_printf (calls, "link %s %s;", from, to);
  return __real_link (from, to);
}

static void
check (gboolean ok, const char *what, const char *detail)
{
  printf ("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what, detail ? ": " : "", detail ? detail : "");
  ok ? passed++ : failed++;
}

/* Makes root/NAME (folders along it) holding a few bytes. */
static gchar *
touch (const gchar *name)
{
  gchar *path = g_build_filename (root, name, NULL);
  gchar *dir = g_path_get_dirname (path);

  g_mkdir_with_parents (dir, 0755);
  g_file_set_contents (path, "x", 1, NULL);
  g_free (dir);
  return path;
}

static gchar *
folder (const gchar *name)
{
  gchar *path = g_build_filename (root, name, NULL);

  g_mkdir_with_parents (path, 0755);
  return path;
}

static gboolean
holds (const gchar *path, const gchar *text)
{
  gchar   *got = NULL;
  gboolean same = g_file_get_contents (path, &got, NULL, NULL) && strcmp (got, text) == 0;

  g_free (got);
  return same;
}

/* The plan of root/PATTERN into root/OUT; *message: its error's, or "". */
static FilesPlan *
plan (const gchar *pattern, const gchar *out, const gchar *format, gboolean overwrite, gchar **message)
{
  gchar     *p = g_build_filename (root, pattern, NULL), *o = g_build_filename (root, out, NULL);
  GError    *error = NULL;
  FilesPlan *result = files_plan_new (p, o, format, overwrite, &error);

  *message = g_strdup (error ? error->message : "");
  g_clear_error (&error);
  g_free (p);
  g_free (o);
  return result;
}

/* A refused set: no plan, and the message names each of `names`. */
static void
check_refused (const gchar *what, const gchar *pattern, const gchar *out, const gchar *format,
               gboolean overwrite, const gchar *const *names)
{
  gchar     *message;
  FilesPlan *p = plan (pattern, out, format, overwrite, &message);
  gboolean   named = TRUE;

  for (gint i = 0; names[i]; i++)
    named = named && strstr (message, names[i]) != NULL;
  check (!p && named, what, message);
  files_plan_free (p);
  g_free (message);
}

static void
test_clashes (void)
{
  const gchar *years[] = { "2021/IMG_0001.jpg", "2022/IMG_0001.jpg", NULL };
  const gchar *scan[] = { "scan.png", "scan.tif", NULL };
  const gchar *cased[] = { "a.png", "a.PNG", NULL };
  gchar       *message;
  FilesPlan   *p;

  g_free (touch ("years/2021/IMG_0001.jpg"));
  g_free (touch ("years/2022/IMG_0001.jpg"));
  g_free (touch ("scans/scan.png"));
  g_free (touch ("scans/scan.tif"));
  g_free (touch ("cased/a.png"));
  g_free (touch ("cased/a.PNG"));
  g_free (folder ("out"));
  check_refused ("two folders' IMG_0001.jpg refused, both named", "years/*/*.jpg", "out", "", FALSE, years);
  check_refused ("the same refused with overwrite", "years/*/*.jpg", "out", "", TRUE, years);
  check_refused ("scan.png and scan.tif with format png refused", "scans/*", "out", "png", FALSE, scan);
  check_refused ("a.png and a.PNG refused (case-insensitive disks)", "cased/*", "out", "", FALSE, cased);
  p = plan ("scans/*", "out", "", FALSE, &message);
  check (p && p->n == 2, "scan.png and scan.tif kept as they are: no clash", message);
  files_plan_free (p);
  g_free (message);
}

static void
test_inputs (void)
{
  gchar     *message;
  FilesPlan *p;
  gboolean   dot = FALSE, partial = FALSE;

  g_free (touch ("mixed/.hidden.png"));
  g_free (touch ("mixed/x.png"));
  g_free (touch ("mixed/" FILES_TEMP_PREFIX "x.png"));
  g_free (folder ("mixed/sub"));
  g_free (folder ("mixed/sub2.png"));
  p = plan ("mixed/*", "out", "", FALSE, &message);
  for (guint i = 0; p && i < p->n; i++)
    {
      dot = dot || g_str_has_suffix (p->files[i].input, "/.hidden.png");
      partial = partial || strstr (p->files[i].input, FILES_TEMP_PREFIX) != NULL;
    }
  check (p && dot, "a name beginning with a dot is an input", message);
  check (p && !partial, "a temporary file is never an input", NULL);
  check (p && p->n == 2, "two files: x.png and .hidden.png", NULL);
  check (p && p->folders == 2, "the two folders matched counted (not . and ..)", NULL);
  files_plan_free (p);
  g_free (message);
  p = plan ("mixed/sub*", "out", "", FALSE, &message);
  check (!p && strstr (message, "2 folders"), "folders only: refused, the folders counted", message);
  g_free (message);
}

static void
test_same_folder (void)
{
  const gchar *in[] = { "pics", NULL };
  const gchar *own[] = { "own/a.jpg", "own/a.png", NULL };
  gchar       *link = g_build_filename (root, "links/y.png", NULL);
  const gchar *linked[] = { "linked/z.png", NULL };
  gchar       *own_link = g_build_filename (root, "linked/z.png", NULL);
  gchar       *target = touch ("pics/y.png"), *message;
  FilesPlan   *p;

  g_free (folder ("links"));
  if (symlink (target, link) != 0)
    perror ("symlink");
  check_refused ("output folder = input folder refused", "pics/*.png", "pics", "", FALSE, in);
  check_refused ("... spelled otherwise (pics/./)", "pics/*.png", "pics/.", "", FALSE, in);
  check_refused ("... through a link to an input (blur-files.sh's shares)", "links/*", "pics", "", FALSE,
                 in);
  check_refused ("... with another format too", "pics/*.png", "../plan/pics", "jpg", FALSE, in);
  g_free (folder ("linked"));
  g_free (touch ("elsewhere/z.png"));
  if (symlink ("../elsewhere/z.png", own_link) != 0)
    perror ("symlink");
  check_refused ("... a link in the output folder to an input elsewhere", "linked/*", "linked", "", FALSE,
                 linked);
  g_free (touch ("own/a.jpg"));
  g_free (touch ("own/a.png"));
  check_refused ("... with overwrite, a.jpg and a.png into png: a.png would be replaced before it is read",
                 "own/*", "own", "png", TRUE, own);
  p = plan ("pics/*.png", "pics", "", TRUE, &message);
  check (p && p->n == 1, "output folder = input folder with overwrite: allowed", message);
  files_plan_free (p);
  g_free (message);
  g_free (link);
  g_free (own_link);
  g_free (target);
}

/* The temporary name a plan of root/one/ (all) into root/out makes in a child
 * process, which leaves that file behind and exits; with `zombie`, the child
 * is left unreaped there. */
static gchar *
temp_of_dead_writer (pid_t *zombie)
{
  int    pipe_fds[2];
  gchar  buffer[4096] = "";
  pid_t  child;
  gssize got;

  if (pipe (pipe_fds) != 0)
    return g_strdup ("");
  if ((child = fork ()) == 0)
    {
      gchar     *message;
      FilesPlan *p = plan ("one/*", "out", "", FALSE, &message);

      if (p)
        {
          g_file_set_contents (p->files[0].temp, "half", 4, NULL);
          if (write (pipe_fds[1], p->files[0].temp, strlen (p->files[0].temp)) < 0)
            _exit (1);
        }
      _exit (0);
    }
  close (pipe_fds[1]);
  got = read (pipe_fds[0], buffer, sizeof buffer - 1);
  buffer[got > 0 ? got : 0] = '\0';
  close (pipe_fds[0]);
  if (zombie)
    {
      siginfo_t info;

      *zombie = child;
      waitid (P_PID, child, &info, WEXITED | WNOWAIT);
    }
  else
    waitpid (child, NULL, 0);
  return g_strdup (buffer);
}

static void
test_temporaries (void)
{
  gchar     *message, *dead, *pid = g_strdup_printf ("%d", (int) getpid ());
  FilesPlan *p, *again;

  g_free (touch ("one/f.png"));
  g_free (touch ("one/g.png"));
  dead = temp_of_dead_writer (NULL);
  p = plan ("one/*", "out", "", FALSE, &message);
  check (p && p->n == 2 && strstr (p->files[0].temp, pid)
         && g_str_has_suffix (p->files[0].temp, "f.png"),
         "a temporary name holds its writer's pid and ends in the output's name",
         p ? p->files[0].temp : message);
  check (p && *dead && strcmp (dead, p->files[0].temp) != 0,
         "another process's temporary name for the same output differs", dead);
  check (p && *dead && !g_file_test (dead, G_FILE_TEST_EXISTS) && p->stale == 1,
         "a dead writer's temporary file removed, and counted", dead);
  if (p)
    g_file_set_contents (p->files[0].temp, "half", 4, NULL);
  g_free (message);
  again = plan ("one/*", "out", "", FALSE, &message);
  check (p && again && g_file_test (p->files[0].temp, G_FILE_TEST_EXISTS)
         && strcmp (p->files[0].temp, again->files[0].temp) != 0,
         "a live writer's temporary file kept; a second plan of one process names its own", message);
  if (p)
    g_unlink (p->files[0].temp);
  files_plan_free (again);
  files_plan_free (p);
  g_free (message);
  g_free (dead);
  g_free (pid);
}

/* The temporary name for one/f.png of a writer alone in a pid namespace
 * of its own (pid 1 there, as in a container); "" where none can be made. */
static gchar *
temp_in_new_namespace (void)
{
  int     pipe_fds[2];
  gchar   buffer[4096] = "";
  pid_t   child;
  gssize  got = 0, n;

  if (pipe (pipe_fds) != 0)
    return g_strdup ("");
  if ((child = fork ()) == 0)
    {
      pid_t inner;

      if (unshare (CLONE_NEWPID) != 0 && unshare (CLONE_NEWUSER | CLONE_NEWPID) != 0)
        _exit (1);
      if ((inner = fork ()) == 0)
        {
          gchar     *message;
          FilesPlan *p = plan ("one/*", "out", "", FALSE, &message);

          if (p && write (pipe_fds[1], p->files[0].temp, strlen (p->files[0].temp)) < 0)
            _exit (1);
          _exit (0);
        }
      waitpid (inner, NULL, 0);
      _exit (0);
    }
  close (pipe_fds[1]);
  while ((n = read (pipe_fds[0], buffer + got, sizeof buffer - 1 - got)) > 0)
    got += n;
  buffer[got] = '\0';
  close (pipe_fds[0]);
  waitpid (child, NULL, 0);
  return g_strdup (buffer);
}

/* Two containers' writers (pid 1 each) name different temporaries for one
 * output; another namespace's or host's temporary file is left to it,
 * unless untouched for FILES_STALE_SECONDS. */
static void
test_namespaces (void)
{
  gchar     *first = temp_in_new_namespace (), *second = temp_in_new_namespace (), *message;
  gchar     *fresh = touch ("out/" FILES_TEMP_PREFIX "7-0-00000001-f.png");
  gchar     *old = touch ("out/" FILES_TEMP_PREFIX "7-0-00000001-g.png");
  gchar     *detail = g_strdup_printf ("%s, %s", first, second);
  struct utimbuf long_ago = { time (NULL) - FILES_STALE_SECONDS - 60, time (NULL) - FILES_STALE_SECONDS - 60 };
  FilesPlan *p;

  if (!*first)
    printf ("SKIP: writers in pid namespaces of their own (this system lets us make none)\n");
  else
    check (*second && strcmp (first, second) != 0,
           "writers in two pid namespaces, pid 1 in each: different temporary names", detail);
  utime (old, &long_ago);
  p = plan ("one/*", "out", "", FALSE, &message);
  check (p && g_file_test (fresh, G_FILE_TEST_EXISTS) && !g_file_test (old, G_FILE_TEST_EXISTS)
         && p->stale == 1,
         "another namespace's temporary file kept, one untouched for a day removed", message);
  g_unlink (fresh);
  files_plan_free (p);
  g_free (message);
  g_free (detail);
  g_free (old);
  g_free (fresh);
  g_free (second);
  g_free (first);
}

/* A writer killed but not yet reaped (a zombie: a container's init may
 * leave one for long) is dead. */
static void
test_zombie_writer (void)
{
  pid_t      child = 0;
  gchar     *zombie = temp_of_dead_writer (&child), *message;
  FilesPlan *p = plan ("one/*", "out", "", FALSE, &message);

  check (p && *zombie && !g_file_test (zombie, G_FILE_TEST_EXISTS) && p->stale == 1,
         "a writer that died but is not reaped yet (a zombie): its temporary file removed", zombie);
  if (child > 0)
    waitpid (child, NULL, 0);
  files_plan_free (p);
  g_free (message);
  g_free (zombie);
}

/* The end of a PNG: a PNG output is checked for it. */
#define PNG_TAIL "\0\0\0\0IEND\xae\x42\x60\x82"

/* Holds its thread until the pipe end `fd` closes. */
static void *
wait_for_close (void *fd)
{
  char c;

  return read (GPOINTER_TO_INT (fd), &c, 1) < 0 ? NULL : NULL;
}

/* Whether process `pid`'s state is a zombie's (its main thread exited). */
static gboolean
zombie_state (pid_t pid)
{
  gchar   *path = g_strdup_printf ("/proc/%d/stat", (int) pid), *stat = NULL, *end;
  gboolean z = g_file_get_contents (path, &stat, NULL, NULL) && (end = strrchr (stat, ')')) && end[2] == 'Z';

  g_free (stat);
  g_free (path);
  return z;
}

/* A writer whose main thread exited while another thread runs (a zombie
 * with live threads) is alive: its temporary file kept. */
static void
test_zombie_leader (void)
{
  int        hold[2], out[2];
  gchar      buffer[4096] = "", *message;
  pid_t      child;
  gssize     got;
  FilesPlan *p;

  if (pipe (hold) != 0 || pipe (out) != 0)
    return;
  fflush (stdout);
  if ((child = fork ()) == 0)
    {
      pthread_t  thread;
      FilesPlan *mine = plan ("one/*", "out", "", FALSE, &message);

      close (hold[1]);
      if (mine && g_file_set_contents (mine->files[0].temp, "half", 4, NULL)
          && write (out[1], mine->files[0].temp, strlen (mine->files[0].temp)) < 0)
        _exit (1);
      close (out[1]);
      pthread_create (&thread, NULL, wait_for_close, GINT_TO_POINTER (hold[0]));
      pthread_exit (NULL);
    }
  close (hold[0]);
  close (out[1]);
  got = read (out[0], buffer, sizeof buffer - 1);
  buffer[got > 0 ? got : 0] = '\0';
  close (out[0]);
  for (int i = 0; i < 200 && !zombie_state (child); i++)
    g_usleep (10000);
  p = plan ("one/*", "out", "", FALSE, &message);
  check (zombie_state (child) && *buffer && g_file_test (buffer, G_FILE_TEST_EXISTS),
         "a writer whose main thread exited while another runs is alive: its temporary file kept", buffer);
  close (hold[1]);
  waitpid (child, NULL, 0);
  g_unlink (buffer);
  files_plan_free (p);
  g_free (message);
}

static void
test_commit (void)
{
  gchar      *message, *expected, *out = g_build_filename (root, "out", NULL);
  FilesPlan  *p = plan ("one/f.png", "out", "", TRUE, &message);
  GError     *error = NULL;
  FilesCommit done;
  struct stat st;

  if (!p)
    {
      check (FALSE, "a plan to commit", message);
      g_free (message);
      g_free (out);
      return;
    }
  g_file_set_contents (p->files[0].temp, "blurred" PNG_TAIL, 19, NULL);
  g_file_set_contents (p->files[0].output, "old", 3, NULL);
  g_chmod (p->files[0].output, 0604);
  g_string_truncate (calls, 0);
  done = files_plan_commit (&p->files[0], TRUE, &error);
  check (done == FILES_COMMIT_DONE, "commit", error ? error->message : NULL);
  expected = g_strdup_printf ("fsync %s;rename %s %s;fsync %s;", p->files[0].temp, p->files[0].temp,
                              p->files[0].output, out);
  check (strcmp (calls->str, expected) == 0,
         "the output flushed, renamed, then its folder flushed", calls->str);
  check (g_stat (p->files[0].output, &st) == 0 && (st.st_mode & 0777) == 0604,
         "a replaced output's permissions kept", NULL);
  g_clear_error (&error);
  g_free (expected);
  files_plan_free (p);
  g_free (message);
  g_free (out);
}

/* A plan of root/one/NAME into root/OUT, overwrite off, its temporary file
 * written (a whole PNG). */
static FilesPlan *
written_new (const gchar *name, const gchar *out)
{
  gchar     *pattern = g_build_filename ("one", name, NULL), *message;
  FilesPlan *p;

  g_free (touch (pattern));
  g_free (folder (out));
  p = plan (pattern, out, "", FALSE, &message);
  if (!p || !g_file_set_contents (p->files[0].temp, "blurred" PNG_TAIL, 19, NULL))
    check (FALSE, "a plan to commit, its temporary file written", message);
  g_free (message);
  g_free (pattern);
  return p;
}

/* Overwrite off: an output another run made after the plan looked is kept,
 * and the file counts as skipped; `refused`: renameat2 fails so (a disk
 * without RENAME_NOREPLACE: a hard link then). */
static void
check_made_since (int refused, const gchar *how)
{
  FilesPlan  *p = written_new (refused ? "race-link.png" : "race.png", "out-race");
  GError     *error = NULL;
  FilesCommit done;

  if (!p || !g_file_set_contents (p->files[0].output, "theirs", 6, NULL))
    {
      files_plan_free (p);
      return;
    }
  refuse_renameat2 = refused;
  done = files_plan_commit (&p->files[0], FALSE, &error);
  refuse_renameat2 = 0;
  check (done == FILES_COMMIT_EXISTS && holds (p->files[0].output, "theirs")
         && !g_file_test (p->files[0].temp, G_FILE_TEST_EXISTS),
         how, error ? error->message : NULL);
  g_clear_error (&error);
  files_plan_free (p);
}

static void
test_commit_new (void)
{
  FilesPlan  *p = written_new ("new.png", "out-race");
  GError     *error = NULL;
  gchar      *expected;
  FilesCommit done;

  g_string_truncate (calls, 0);
  done = p ? files_plan_commit (&p->files[0], FALSE, &error) : FILES_COMMIT_FAILED;
  expected = p ? g_strdup_printf ("fsync %s;renameat2 %s %s;", p->files[0].temp, p->files[0].temp,
                                  p->files[0].output) : g_strdup ("?");
  check (done == FILES_COMMIT_DONE && g_str_has_prefix (calls->str, expected)
         && holds (p->files[0].output, "blurred" PNG_TAIL),
         "overwrite off: the output flushed, renamed with RENAME_NOREPLACE", calls->str);
  g_clear_error (&error);
  g_free (expected);
  files_plan_free (p);
  check_made_since (0, "overwrite off, an output made since the plan: kept, the file skipped, "
                       "no temporary file left");
  check_made_since (EINVAL, "... the same where the disk has no RENAME_NOREPLACE (a hard link)");
}

/* A plan of root/one/NAME into root/OUT with overwrite; its temporary file
 * holding `temp` and its output `old` (NULL: none). */
static FilesPlan *
replacing (const gchar *name, const gchar *out, const gchar *temp, gsize temp_len, const gchar *old)
{
  gchar     *pattern = g_build_filename ("one", name, NULL), *message;
  FilesPlan *p;

  g_free (touch (pattern));
  g_free (folder (out));
  p = plan (pattern, out, "", TRUE, &message);
  if (!p)
    check (FALSE, "a plan to commit", message);
  else
    {
      g_file_set_contents (p->files[0].temp, temp, temp_len, NULL);
      if (old)
        g_file_set_contents (p->files[0].output, old, -1, NULL);
    }
  g_free (message);
  g_free (pattern);
  return p;
}

/* Commits `file` over any output (overwrite); whether it was renamed. */
static gboolean
committed (const FilePlan *file, GError **error)
{
  FilesCommit done = files_plan_commit (file, TRUE, error);

  return done == FILES_COMMIT_DONE;
}

/* A replaced output is a new file under the output's name: its other hard
 * links, and the file a link there points to, keep the old pixels. */
static void
test_replaced_links (void)
{
  gchar     *keep = g_build_filename (root, "keep-link.png", NULL);
  gchar     *target = g_build_filename (root, "target.png", NULL);
  GError    *error = NULL;
  struct stat st, temp;
  FilesPlan *p = replacing ("h.tif", "out-links", "blurred", 7, "old");

  if (p && link (p->files[0].output, keep) == 0)
    {
      gboolean done = committed (&p->files[0], &error);

      check (done && holds (p->files[0].output, "blurred") && holds (keep, "old")
             && g_stat (p->files[0].output, &st) == 0 && st.st_nlink == 1,
             "a hard-linked output replaced by a new file: the other link keeps the old one",
             error ? error->message : NULL);
      g_clear_error (&error);
    }
  files_plan_free (p);
  p = replacing ("s.tif", "out-links", "blurred", 7, NULL);
  g_file_set_contents (target, "old", 3, NULL);
  g_chmod (target, 0604);
  /* Root: the target another user's, which the new file must not become. */
  if (geteuid () == 0 && chown (target, 1234, 2345) != 0)
    perror ("chown");
  if (p && g_stat (p->files[0].temp, &temp) == 0 && symlink (target, p->files[0].output) == 0)
    {
      gboolean done = committed (&p->files[0], &error);

      check (done && holds (p->files[0].output, "blurred") && holds (target, "old")
             && g_lstat (p->files[0].output, &st) == 0 && S_ISREG (st.st_mode)
             && st.st_uid == temp.st_uid && st.st_gid == temp.st_gid && st.st_mode == temp.st_mode,
             "an output that is a symbolic link: replaced by the writer's own file (not given the "
             "target's owner or mode), the file it named kept", error ? error->message : NULL);
    }
  g_clear_error (&error);
  files_plan_free (p);
  g_free (keep);
  g_free (target);
}

/* Root: an output owned by another user and group is replaced by one of the
 * same owner, group and permissions, without setuid, setgid or sticky. */
static void
test_replaced_owner (void)
{
  GError    *error = NULL;
  struct stat st;
  FilesPlan *p;

  if (geteuid () != 0)
    {
      printf ("SKIP: a replaced output's owner kept (needs root to give files away)\n");
      return;
    }
  p = replacing ("o.tif", "out-owner", "blurred", 7, "old");
  if (p && chown (p->files[0].output, 1234, 2345) == 0 && chmod (p->files[0].output, 02640) == 0)
    {
      gboolean done = committed (&p->files[0], &error);

      check (done && g_stat (p->files[0].output, &st) == 0 && st.st_uid == 1234 && st.st_gid == 2345
             && (st.st_mode & 07777) == 0640,
             "a replaced output keeps its owner, group and permissions (02640 becomes 0640: no "
             "setgid)", error ? error->message : NULL);
    }
  g_clear_error (&error);
  files_plan_free (p);
}

static void
open_to_nobody (const gchar *output)
{
  gchar *out = g_path_get_dirname (output), *base = g_path_get_dirname (root);

  g_chmod (base, 0755);
  g_chmod (root, 0755);
  g_chmod (out, 0777);
  g_free (out);
  g_free (base);
}

/* Root: `file` committed by user nobody, who owns its temporary file; the
 * FilesCommit as the child's exit status (its error printed). */
static int
commit_as_nobody (const FilePlan *file)
{
  pid_t child;
  int   status = -1;

  open_to_nobody (file->output);
  if (chown (file->temp, 65534, 65534) != 0)
    perror ("chown");
  fflush (stdout);
  if ((child = fork ()) == 0)
    {
      GError     *error = NULL;
      FilesCommit done = FILES_COMMIT_FAILED;

      if (setgid (65534) == 0 && setuid (65534) == 0)
        done = files_plan_commit (file, TRUE, &error);
      if (error)
        printf ("    %s\n", error->message);
      fflush (stdout);
      _exit ((int) done);
    }
  waitpid (child, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* Root: a writer that cannot give the new output the old one's owner (here
 * user nobody, the output another user's) leaves the old output alone. */
static void
test_owner_not_kept (void)
{
  FilesPlan *p;

  if (geteuid () != 0)
    {
      printf ("SKIP: an output whose owner cannot be kept is not replaced (needs root)\n");
      return;
    }
  p = replacing ("n.tif", "out-nobody", "blurred", 7, "old");
  if (p && chown (p->files[0].output, 1234, 1234) == 0)
    {
      int done = commit_as_nobody (&p->files[0]);

      check (done == FILES_COMMIT_FAILED && holds (p->files[0].output, "old")
             && !g_file_test (p->files[0].temp, G_FILE_TEST_EXISTS),
             "an output whose owner the writer cannot keep: refused; the old one kept, no temporary "
             "file left", NULL);
    }
  files_plan_free (p);
}

/* Root, as nobody: an old output of mode 0200 (no owner-read) is replaced,
 * its mode kept: the new file is flushed before it gets that mode. */
static void
test_unreadable_mode (void)
{
  FilesPlan  *p;
  struct stat st;

  if (geteuid () != 0)
    {
      printf ("SKIP: an output of mode 0200 replaced (needs root to become nobody)\n");
      return;
    }
  p = replacing ("w.tif", "out-nobody", "blurred", 7, "old");
  if (p && chown (p->files[0].output, 65534, 65534) == 0 && g_chmod (p->files[0].output, 0200) == 0)
    {
      int done = commit_as_nobody (&p->files[0]);

      check (done == FILES_COMMIT_DONE && holds (p->files[0].output, "blurred")
             && g_stat (p->files[0].output, &st) == 0 && (st.st_mode & 0777) == 0200,
             "a non-root writer replaces its output of mode 0200, the mode kept", NULL);
    }
  files_plan_free (p);
}

/* A PNG or JPEG without its ending, a TIFF, BMP or WebP shorter than its
 * header says (an exporter that missed a failed write on a full disk) is
 * never renamed to the output. */
static void
test_cut_short (void)
{
  static const gchar png_end[] = "\x89PNG\r\n\x1a\n" PNG_TAIL;
  static const gchar jpeg_end[] = "\xff\xd8\xff\xd9";
  /* A TIFF of one strip: 10 bytes at 38 (StripOffsets, StripByteCounts). */
  static const gchar tiff[] = "II*\0\x08\0\0\0" "\x02\0" "\x11\x01\x04\0\x01\0\0\0\x26\0\0\0"
                              "\x17\x01\x04\0\x01\0\0\0\x0a\0\0\0" "\0\0\0\0" "0123456789";
  /* Two pages: the second directory's strip (10 bytes at 72) ends the file. */
  static const gchar pages[] = "II*\0\x08\0\0\0" "\x02\0" "\x11\x01\x04\0\x01\0\0\0\x44\0\0\0"
                               "\x17\x01\x04\0\x01\0\0\0\x04\0\0\0" "\x26\0\0\0" "\x02\0"
                               "\x11\x01\x04\0\x01\0\0\0\x48\0\0\0" "\x17\x01\x04\0\x01\0\0\0\x0a\0\0\0"
                               "\0\0\0\0" "ABCD" "0123456789";
  /* A header whose directory was never written. */
  static const gchar unwritten[] = "II*\0\0\0\0\0" "0123456789";
  static const gchar bmp[] = "BM\x14\0\0\0" "01234567890123";
  static const gchar webp[] = "RIFF\x0c\0\0\0WEBP" "01234567";
  const struct { const gchar *name; const gchar *data; gsize len; gboolean whole; } cases[] = {
    { "cut.png", png_end, sizeof png_end - 5, FALSE }, { "whole.png", png_end, sizeof png_end - 1, TRUE },
    { "cut.jpg", jpeg_end, 3, FALSE }, { "whole.JPG", jpeg_end, 4, TRUE },
    { "empty.png", "", 0, FALSE }, { "any.tga", "x", 1, TRUE },
    { "cut.tif", tiff, sizeof tiff - 2, FALSE }, { "whole.tif", tiff, sizeof tiff - 1, TRUE },
    { "cut-pages.tif", pages, sizeof pages - 2, FALSE }, { "pages.tif", pages, sizeof pages - 1, TRUE },
    { "unwritten.tif", unwritten, sizeof unwritten - 1, FALSE },
    { "cut.bmp", bmp, sizeof bmp - 2, FALSE }, { "whole.bmp", bmp, sizeof bmp - 1, TRUE },
    { "cut.webp", webp, sizeof webp - 2, FALSE }, { "whole.webp", webp, sizeof webp - 1, TRUE } };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError    *error = NULL;
      FilesPlan *p = replacing (cases[i].name, "out-cut", cases[i].data, cases[i].len, "old");
      gboolean   ok = p && committed (&p->files[0], &error);

      if (cases[i].whole)
        check (ok, "a complete output committed (other formats: the run loads them back)", cases[i].name);
      else
        check (p && !ok && error && strstr (error->message, "cut short") && holds (p->files[0].output, "old")
               && !g_file_test (p->files[0].temp, G_FILE_TEST_EXISTS),
               "an output cut short refused, the old one kept, no temporary file left",
               error ? error->message : cases[i].name);
      g_clear_error (&error);
      files_plan_free (p);
    }
}

/* Runs `command` (a shell line); whether it succeeded. */
static gboolean
shell (const gchar *command)
{
  gint     status = -1;
  gchar   *argv[] = { "sh", "-c", (gchar *) command, NULL };
  gboolean ran = g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                               | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, NULL);

  return ran && g_spawn_check_wait_status (status, NULL);
}

/* Root: the PNG `data` (`len` bytes) written as the temporary file of
 * root/NAME's output in root/full (a tmpfs it fills), then committed;
 * *left: whether a file of it stayed after a refusal. */
static gboolean
commit_on_full (const gchar *name, const gchar *data, gsize len, gboolean *left, GError **error)
{
  gchar     *message;
  FilesPlan *p;
  gboolean   done = FALSE;

  g_free (touch (name));
  p = plan (name, "full", "", TRUE, &message);
  *left = TRUE;
  if (!p || !g_file_set_contents (p->files[0].temp, data, len, NULL))
    check (FALSE, "a temporary file that fills a tmpfs of 8 KiB", message);
  else
    {
      done = committed (&p->files[0], error);
      *left = !done && (g_file_test (p->files[0].temp, G_FILE_TEST_EXISTS)
                        || g_file_test (p->files[0].output, G_FILE_TEST_EXISTS));
    }
  files_plan_free (p);
  g_free (message);
  return done;
}

/* Root: on a full disk (a tmpfs of 8 KiB) a PNG cut short is refused, the
 * disk named; a whole one that filled it is kept (its ending decides). */
static void
test_disk_full (void)
{
  gchar  *full = folder ("full"), *data = g_malloc0 (8192);
  GError *error = NULL;
  gboolean ok, left;

  if (geteuid () != 0 || mount ("tmpfs", full, "tmpfs", 0, "size=8k") != 0)
    printf ("SKIP: a full disk (a tmpfs of 8 KiB): cannot mount one here (%s)\n",
            geteuid () != 0 ? "not root" : g_strerror (errno));
  else
    {
      ok = commit_on_full ("one/c.png", data, 8192, &left, &error);
      check (!ok && !left && error && strstr (error->message, "disk is full") && strstr (error->message, "cut short"),
             "a PNG cut short on a full disk: refused, the disk named; no file left",
             error ? error->message : NULL);
      g_clear_error (&error);
      memcpy (data + 8192 - 12, PNG_TAIL, 12);
      ok = commit_on_full ("one/w.png", data, 8192, &left, &error);
      check (ok, "a whole PNG that filled the disk: kept", error ? error->message : NULL);
      g_clear_error (&error);
      ok = umount (full) == 0;
      check (ok, "the tmpfs unmounted", ok ? NULL : g_strerror (errno));
    }
  g_free (full);
  g_free (data);
}

/* Root: ext4's blocks reserved for root count as room for root (f_bfree, not
 * f_bavail): a loop-mounted ext4 with 50 % reserved, none for users. */
static void
test_reserved_blocks (void)
{
  gchar  *img = g_build_filename (root, "reserved.img", NULL), *dir = folder ("reserved");
  gchar  *make = g_strdup_printf ("truncate -s 2M '%s' && mkfs.ext4 -q -F -m 50 -b 1024 '%s' && "
                                  "mount -o loop '%s' '%s'", img, img, img, dir);
  gchar  *file = g_build_filename (dir, "x.png", NULL), *unmount = g_strdup_printf ("umount '%s'", dir);
  struct statvfs fs;

  if (geteuid () != 0 || !shell (make))
    printf ("SKIP: ext4's reserved blocks: cannot make and mount one here\n");
  else
    {
      check (statvfs (dir, &fs) == 0 && fs.f_bavail == 0 && fs.f_bfree > 0 && !files_plan_disk_full (file),
             "root: an ext4 whose free blocks are all reserved is not full for root", NULL);
      check (shell (unmount), "the ext4 unmounted", NULL);
    }
  g_free (unmount);
  g_free (file);
  g_free (make);
  g_free (dir);
  g_free (img);
}

static void
test_xcf (void)
{
  const gchar *xcf[] = { "a.xcf", "a.XCF", "a.xcf.gz", "a.Xcf.bz2", "a.xcf.xz", "a.xcfgz", "a.xcfbz2" };
  const gchar *not_xcf[] = { "a.png", "xcf.png", "a.gz", "a.xcf.png", "a.tar.bz2" };

  for (guint i = 0; i < G_N_ELEMENTS (xcf); i++)
    check (files_plan_is_xcf (xcf[i]), "XCF", xcf[i]);
  for (guint i = 0; i < G_N_ELEMENTS (not_xcf); i++)
    check (!files_plan_is_xcf (not_xcf[i]), "not XCF", not_xcf[i]);
}

static void
test_cost (void)
{
  const gint good[][2] = { { -1, -1 }, { 0, 0 }, { 9, 100 }, { 6, 85 } };
  const gint bad[][2] = { { 10, -1 }, { -2, -1 }, { -1, 101 }, { -1, -2 } };
  const struct { const gchar *path; FilesExportKind kind; } kinds[] = {
    { "a.png", FILES_EXPORT_PNG }, { "/x.jpg/a.PNG", FILES_EXPORT_PNG }, { "a.JPG", FILES_EXPORT_JPEG },
    { "a.jpeg", FILES_EXPORT_JPEG }, { "a.jpe", FILES_EXPORT_JPEG }, { "a.tif", FILES_EXPORT_OTHER },
    { "/x.png/a", FILES_EXPORT_OTHER }, { "png", FILES_EXPORT_OTHER } };

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      GError *error = NULL;
      gchar  *what = g_strdup_printf ("level %d, quality %d", good[i][0], good[i][1]);

      check (files_plan_check_cost (good[i][0], good[i][1], &error), "export cost accepted", what);
      g_clear_error (&error);
      g_free (what);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError  *error = NULL;
      gboolean ok = files_plan_check_cost (bad[i][0], bad[i][1], &error);

      check (!ok && error && error->code == BLUR_CALLING_ERROR, "export cost refused",
             error ? error->message : "no error");
      g_clear_error (&error);
    }
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    check (files_plan_export_kind (kinds[i].path) == kinds[i].kind, "exporter of", kinds[i].path);
}

int
main (void)
{
  gchar *base = g_dir_make_tmp ("test-files-plan-XXXXXX", NULL);

  root = g_build_filename (base, "plan", NULL);
  g_mkdir (root, 0755);
  calls = g_string_new (NULL);
  test_clashes ();
  test_inputs ();
  test_same_folder ();
  test_temporaries ();
  test_zombie_writer ();
  test_namespaces ();
  test_zombie_leader ();
  test_commit ();
  test_commit_new ();
  test_replaced_links ();
  test_replaced_owner ();
  test_owner_not_kept ();
  test_unreadable_mode ();
  test_cut_short ();
  test_disk_full ();
  test_reserved_blocks ();
  test_xcf ();
  test_cost ();
  printf ("%d passed, %d failed\n", passed, failed);
  if (!g_getenv ("KEEP"))
    {
      gchar *argv[] = { "rm", "-rf", base, NULL };
      g_spawn_sync (NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  g_string_free (calls, TRUE);
  g_free (root);
  g_free (base);
  return failed ? 1 : 0;
}
