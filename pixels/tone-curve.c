/* The profile's own tone curve, for 16-bit data (see tone-curve.h). */
#include "config.h"

#include <string.h>
#include <lcms2.h>

#include "tone-curve.h"

#define CODES 65536
/* Encoding starts from a bucket of the float's top bits (sign, exponent and
 * 8 mantissa bits: [0, 1] is buckets 0 to 1.0f's), then searches only the
 * codes that bucket can round to. */
#define BUCKET_SHIFT 15
#define BUCKETS      ((0x3f800000u >> BUCKET_SHIFT) + 2)

typedef struct {
  gfloat  decode[CODES];          /* code -> linear light */
  gfloat  threshold[CODES - 1];   /* from threshold[k] up, k + 1 is nearest */
  guint16 first[BUCKETS];         /* codes below each bucket's smallest value */
} Channel;

struct _ToneCurve {
  gint     colors;
  Channel *channel[3];
};

static guint32
float_bits (gfloat x)
{
  guint32 bits;

  memcpy (&bits, &x, sizeof bits);
  return bits;
}

static gfloat
bits_float (guint32 bits)
{
  gfloat x;

  memcpy (&x, &bits, sizeof x);
  return x;
}

/* The curve at v in [0, 1].  A table is interpolated linearly, as ICC says,
 * in double: LittleCMS evaluates tables with 16-bit steps, too coarse here. */
static gdouble
evaluate (const cmsToneCurve *curve, gdouble v)
{
  cmsUInt32Number         n = cmsGetToneCurveEstimatedTableEntries (curve);
  const cmsUInt16Number  *table = cmsGetToneCurveEstimatedTable (curve);
  gdouble                 at;
  cmsUInt32Number         i;

  if (cmsGetToneCurveParametricType (curve) != 0 || n < 2)
    return cmsEvalToneCurveFloat (curve, (cmsFloat32Number) v);
  at = v * (n - 1);
  i = MIN ((cmsUInt32Number) at, n - 2);
  return (table[i] + (at - i) * (table[i + 1] - table[i])) / 65535.0;
}

static Channel *
channel_new (const cmsToneCurve *curve)
{
  Channel *ch = g_new (Channel, 1);
  guint    k = 0;

  for (guint code = 0; code < CODES; code++)
    ch->decode[code] = evaluate (curve, code / (gdouble) (CODES - 1));
  /* Rounding in the encoded values: halfway between two codes. */
  for (guint code = 0; code + 1 < CODES; code++)
    ch->threshold[code] = evaluate (curve, (code + 0.5) / (CODES - 1));
  for (guint b = 0; b < BUCKETS; b++)
    {
      gfloat start = bits_float (b << BUCKET_SHIFT);

      while (k < CODES - 1 && ch->threshold[k] <= start)
        k++;
      ch->first[b] = (guint16) MIN (k, CODES - 1);
    }
  return ch;
}

static ToneCurve *
tone_curve_new (const Babl *space, gint colors)
{
  static const cmsTagSignature rgb_tags[3] = { cmsSigRedTRCTag, cmsSigGreenTRCTag,
                                               cmsSigBlueTRCTag };
  gint         length = 0;
  const char  *icc = babl_space_get_icc (space, &length);
  cmsHPROFILE  profile = icc ? cmsOpenProfileFromMem (icc, (cmsUInt32Number) length) : NULL;
  ToneCurve   *curve;

  if (!profile)
    return NULL;
  curve = g_new0 (ToneCurve, 1);
  curve->colors = colors;
  for (gint c = 0; c < colors && curve; c++)
    {
      const cmsToneCurve *tag = cmsReadTag (profile, colors == 1 ? cmsSigGrayTRCTag : rgb_tags[c]);

      if (tag)
        curve->channel[c] = channel_new (tag);
      else
        {
          for (gint i = 0; i < c; i++)
            g_free (curve->channel[i]);
          g_clear_pointer (&curve, g_free);
        }
    }
  cmsCloseProfile (profile);
  return curve;
}

/* Made once per space and kept (spaces live as long as babl): a preview
 * asks again on every redraw. */
const ToneCurve *
tone_curve_for_format (const Babl *format, gint colors)
{
  static GHashTable *curves;   /* space -> ToneCurve, or the space itself for none */
  G_LOCK_DEFINE_STATIC (curves);
  const Babl *space = babl_format_get_space (format);
  gpointer    found;

  G_LOCK (curves);
  if (!curves)
    curves = g_hash_table_new (NULL, NULL);
  found = g_hash_table_lookup (curves, space);
  if (!found)
    {
      ToneCurve *curve = tone_curve_new (space, colors);

      found = curve ? (gpointer) curve : (gpointer) space;
      g_hash_table_insert (curves, (gpointer) space, found);
    }
  G_UNLOCK (curves);
  return found == (gpointer) space ? NULL : found;
}

/* The code nearest to encoding x: the number of thresholds at or below it. */
static guint16
encode_one (const Channel *ch, gfloat x)
{
  guint32 b, lo, hi;

  if (!(x > 0.0f))   /* NaN too */
    return 0;
  if (x >= 1.0f)
    x = 1.0f;
  b = float_bits (x) >> BUCKET_SHIFT;
  lo = ch->first[b];
  hi = ch->first[b + 1];
  while (lo < hi)
    {
      guint32 mid = (lo + hi) / 2;

      if (ch->threshold[mid] <= x)
        lo = mid + 1;
      else
        hi = mid;
    }
  return (guint16) lo;
}

/* In place: a u16 sample i occupies bytes the float samples >= i/2 used, so
 * decoding runs backwards and encoding forwards, and no sample is
 * overwritten before it is read. */
void
tone_curve_decode (const ToneCurve *curve, gpointer data, gsize n, gboolean alpha)
{
  const guint16 *in = data;
  gfloat        *out = data;
  gint           channels = curve->colors + (alpha ? 1 : 0);

  for (gsize i = n * channels; i-- > 0;)
    {
      gint c = i % channels;

      out[i] = c < curve->colors ? curve->channel[c]->decode[in[i]] : in[i] / 65535.0f;
    }
}

void
tone_curve_encode (const ToneCurve *curve, gpointer data, gsize n, gboolean alpha)
{
  const gfloat *in = data;
  guint16      *out = data;
  gint          channels = curve->colors + (alpha ? 1 : 0);

  for (gsize i = 0; i < n * channels; i++)
    {
      gint   c = i % channels;
      gfloat x = in[i];

      out[i] = c < curve->colors ? encode_one (curve->channel[c], x)
                                 : (guint16) (CLAMP (x, 0.0f, 1.0f) * 65535.0f + 0.5f);
    }
}
