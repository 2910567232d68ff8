/* Whether a written file is whole (files-whole.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "files-whole.h"

/* TIFF tags of the data's places and lengths. */
#define TIFF_STRIP_OFFSETS 273
#define TIFF_STRIP_COUNTS  279
#define TIFF_TILE_OFFSETS  324
#define TIFF_TILE_COUNTS   325
#define TIFF_SHORT 3
#define TIFF_LONG  4
/* Directories followed at most: a loop of them ends there. */
#define TIFF_MAX_PAGES 4096

/* Reads `n` bytes at `offset`; FALSE when the file ends first. */
static gboolean
read_at (FILE *f, gint64 offset, void *buffer, gsize n)
{
  return offset >= 0 && fseeko (f, (off_t) offset, SEEK_SET) == 0 && fread (buffer, 1, n, f) == n;
}

static guint32
get (const guchar *p, gsize size, gboolean big)
{
  guint32 v = 0;

  for (gsize i = 0; i < size; i++)
    v |= (guint32) p[big ? i : size - 1 - i] << (8 * (size - 1 - i));
  return v;
}

/* A TIFF directory entry: its tag and its values' place. */
typedef struct {
  guint   tag, type, count;
  gint64  at;      /* where its values are */
} TiffEntry;

static TiffEntry
tiff_entry (const guchar *e, gint64 offset, gboolean big)
{
  TiffEntry t = { get (e, 2, big), get (e + 2, 2, big), get (e + 4, 4, big), offset + 8 };
  gsize     size = t.type == TIFF_SHORT ? 2 : 4;

  /* Values of more than 4 bytes lie elsewhere, at the offset given. */
  if ((gint64) size * t.count > 4)
    t.at = get (e + 8, 4, big);
  return t;
}

/* Value `i` of entry `t`; -1 when the file ends first. */
static gint64
tiff_value (FILE *f, const TiffEntry *t, guint i, gboolean big)
{
  gsize  size = t->type == TIFF_SHORT ? 2 : 4;
  guchar v[4];

  return read_at (f, t->at + (gint64) i * size, v, size) ? (gint64) get (v, size, big) : -1;
}

/* The end of the directory at `ifd` and of the data it names (strips or
 * tiles): the largest offset plus count; *next: the next directory's
 * place; -1 when the file ends before. */
static gint64
tiff_directory_end (FILE *f, gint64 ifd, gboolean big, gint64 *next)
{
  guchar    n2[2], e[12], at[4];
  TiffEntry offsets = { 0, 0, 0, 0 }, counts = { 0, 0, 0, 0 };
  gint64    end;
  guint     n;

  if (!read_at (f, ifd, n2, 2))
    return -1;
  n = get (n2, 2, big);
  end = ifd + 2 + 12 * (gint64) n + 4;
  if (!read_at (f, end - 4, at, 4))
    return -1;
  *next = get (at, 4, big);
  for (guint i = 0; i < n; i++)
    {
      TiffEntry t;

      if (!read_at (f, ifd + 2 + 12 * (gint64) i, e, 12))
        return -1;
      t = tiff_entry (e, ifd + 2 + 12 * (gint64) i, big);
      if (t.tag == TIFF_STRIP_OFFSETS || t.tag == TIFF_TILE_OFFSETS)
        offsets = t;
      else if (t.tag == TIFF_STRIP_COUNTS || t.tag == TIFF_TILE_COUNTS)
        counts = t;
    }
  for (guint i = 0; i < offsets.count && i < counts.count && end >= 0; i++)
    {
      gint64 place = tiff_value (f, &offsets, i, big), length = tiff_value (f, &counts, i, big);

      end = place < 0 || length < 0 ? -1 : MAX (end, place + length);
    }
  return end;
}

/* The end of every directory of a TIFF (a page a layer) and of their data;
 * -1 when the file ends before, or a directory lies in the header (one
 * never written). */
static gint64
tiff_data_end (FILE *f, gint64 ifd, gboolean big)
{
  gint64 end = ifd < 8 ? -1 : 0;

  for (guint pages = 0; ifd != 0 && end >= 0 && pages < TIFF_MAX_PAGES; pages++)
    {
      gint64 next = 0, here = ifd < 8 ? -1 : tiff_directory_end (f, ifd, big, &next);

      end = here < 0 ? -1 : MAX (end, here);
      ifd = next;
    }
  return end;
}

/* The length a file's header says it has (TIFF: its data's end; BMP: bfSize;
 * WebP: RIFF's); 0 for other formats, -1 when the file ends before. */
static gint64
declared_length (FILE *f)
{
  guchar h[12] = { 0 };

  if (fread (h, 1, sizeof h, f) < 8)
    return 0;
  if (memcmp (h, "II*\0", 4) == 0 || memcmp (h, "MM\0*", 4) == 0)
    return tiff_data_end (f, get (h + 4, 4, h[0] == 'M'), h[0] == 'M');
  if (memcmp (h, "BM", 2) == 0)
    return get (h + 2, 4, FALSE);
  if (memcmp (h, "RIFF", 4) == 0 && memcmp (h + 8, "WEBP", 4) == 0)
    return (gint64) get (h + 4, 4, FALSE) + 8;
  return 0;
}

/* Whether the file ends with `tail` (`n` bytes). */
static gboolean
ends_with (FILE *f, const gchar *tail, gsize n)
{
  gchar buffer[16];

  return n <= sizeof buffer && fseeko (f, -(off_t) n, SEEK_END) == 0 && fread (buffer, 1, n, f) == n
         && memcmp (buffer, tail, n) == 0;
}

gboolean
files_whole (const gchar *path, gboolean png, gboolean jpeg)
{
  static const gchar iend[] = "\0\0\0\0IEND\xae\x42\x60\x82", eoi[] = "\xff\xd9";
  FILE              *f = g_fopen (path, "rb");
  gint64             declared, length;
  gboolean           whole;

  if (!f)
    return FALSE;
  if (png || jpeg)
    whole = png ? ends_with (f, iend, sizeof iend - 1) : ends_with (f, eoi, sizeof eoi - 1);
  else
    {
      declared = declared_length (f);
      whole = declared >= 0 && fseeko (f, 0, SEEK_END) == 0 && (length = ftello (f)) >= declared;
    }
  fclose (f);
  return whole;
}
