/* libFuzzer target for the engine's CPU backend, FFT path included
 * (fuzz-run.sh, beside it, builds it with FFTW as the product links it and
 * runs it).  The input decides the image (1..64 a side, or up to 8065
 * along one side, 16384 pixels at most, fewer for large radii; stride
 * padding, sample type, 1..4 channels), its tones (the input's bytes, or patterns that stress the
 * FFT path's 16-bit bound: near black beside bright, dark noise, steps
 * between two dark codes, two-valued lines, sparse bright pixels), sigma
 * (in range, or NaN, 0, negative, huge; or one per axis), the option bits,
 * a window (sometimes outside the image), the engine's memory limit, thread
 * count and FFT mode (automatic, off, or forced for half the inputs), and
 * the pixels.  Valid calls must match the double-precision reference
 * (reference.c) within 1 level / 1e-4 and leave the row padding alone;
 * invalid ones must fail with a fitting status and a message and leave the
 * destination untouched.  A valid run refused under a memory limit must be
 * due: refused cleanly (test-util.c's refusal_flaw: the message blames the
 * limit, which is under a bound that surely fits, nothing written) under
 * that and each smaller limit, and done by the engine without a limit,
 * whose output is then checked.  The source is never written.  Any violation
 * aborts, which libFuzzer reports as a crash.  At exit it prints how many
 * valid runs it checked, how many of them were forced onto the FFT in
 * 16-bit linear light without alpha divided (the bound's single precision)
 * and how many refusals.
 * One known limit of float32 is not checked: with premultiplied alpha, the
 * colour of a pixel whose blurred alpha is below 2^-96 of full scale (only
 * sigma < 0.125 with transparency all around gets there) -- the engine
 * counts alpha under 2^-100 as 0, the reference divides exactly.
 *
 * Header bytes, in order: width (bits 0-5: 1..64; bits 6-7: times 1, 8, 32
 * or 128), height (the same), channels (bits 0-1; bits 2-4: tone pattern,
 * bits 5-7: its parameter), sample type, source and destination padding,
 * flags, window, engine (bits 0-1: memory limit, 2-3: threads, 4-5: FFT
 * mode), sigma; then the window's bytes; the rest is pixels. */
#include "gblur.h"
#include "reference.h"
#include "test-util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const uint8_t *p;
  size_t         n;
} input;

static unsigned
take (input *in)
{
  if (!in->n)
    return 0;
  in->n--;
  return *in->p++;
}

static unsigned
take16 (input *in)
{
  unsigned lo = take (in);
  return lo | take (in) << 8;
}

static void
fail (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-engine: %s (%s)\n", what, detail);
  abort ();
}

/* The FFT modes of engine byte bits 4-5: forced for half the inputs. */
static const gblur_fft_mode fft_modes[4] = { GBLUR_FFT_AUTO, GBLUR_FFT_OFF, GBLUR_FFT_ALWAYS, GBLUR_FFT_ALWAYS };

/* The memory limits of engine byte bits 0-1: none (512 MiB), then smaller. */
static const size_t limits[4] = { 0, 256 << 10, 24 << 10, 4 << 10 };

/* Engines by (memory limit, threads, FFT mode), made once: their thread
 * pools are too costly to start per input. */
static gblur_engine *
engine_for (unsigned eb)
{
  static gblur_engine *engines[4][3][4];
  const unsigned       threads = ((eb >> 2) & 3) % 3, fft = (eb >> 4) & 3;
  gblur_engine       **e = &engines[eb & 3][threads][fft];

  if (!*e)
    {
      gblur_config config = { .backend = GBLUR_BACKEND_CPU, .memory_limit = limits[eb & 3],
                              .threads = 1 + (int) threads, .no_fallback = 1, .cpu_fft = fft_modes[fft] };
      char         msg[200];
      *e = gblur_engine_new (&config, NULL, msg, sizeof msg);
      if (!*e)
        fail ("cannot create an engine", msg);
    }
  return *e;
}

static double
decode_sigma (input *in)
{
  unsigned mode = take (in);
  unsigned v = take16 (in);

  switch (mode % 16)
    {
    case 0: return NAN;
    case 1: return 0.0;
    case 2: return -(double) v / 100.0;
    case 3: return GBLUR_SIGMA_MAX + 1e-9 + v;               /* past the largest */
    case 4: return mode & 0x80 ? INFINITY : -INFINITY;
    case 5: return GBLUR_SIGMA_MIN * (1.0 - 1e-9);           /* just below */
    case 6: return mode & 0x80 ? GBLUR_SIGMA_MAX : GBLUR_SIGMA_MIN;  /* the ends */
    case 7:                                                  /* any bit pattern */
      {
        uint64_t bits = v | (uint64_t) take16 (in) << 16 | (uint64_t) take16 (in) << 32
                        | (uint64_t) take16 (in) << 48;
        double d;
        memcpy (&d, &bits, sizeof d);
        return d;
      }
    default:  /* valid, log-uniform over [0.1, 1500]: small ones most often */
      return GBLUR_SIGMA_MIN * pow (GBLUR_SIGMA_MAX / GBLUR_SIGMA_MIN, v / 65535.0);
    }
}

/* A side from its byte: 1..64, times 1, 8, 32 or 128 by bits 6-7. */
static int
decode_side (unsigned b)
{
  static const int scale[] = { 1, 8, 32, 128 };

  return 1 + (int) (b % 64) * scale[b >> 6 & 3];
}

/* The 16-bit code of sample k (at x, y of a w x h image) by tone pattern
 * `tone` with parameter `param`; b and b2: the input's bytes for it. */
static unsigned
tone_code (unsigned tone, unsigned param, unsigned b, unsigned b2, int x, int y, int w)
{
  const int block = 1 << param;

  switch (tone)
    {
    case 3:  /* near black (codes 0..3) beside bright, in blocks of 1..128 */
      return (x / block + y / block) % 2 ? 65535 - (b & 3) : b & 3;
    case 4:  /* dark noise, codes 0..2 param + 1, a bright pixel now and then */
      return b == 255 ? 65535 : b % (2 * param + 2);
    case 5:  /* a step from dark code k to k + 1 (outputs cross a rounding
              * threshold), bright rows every 2^param */
      return y % (2 * block) == block ? 65535 : 1 + param * 3 + (2 * x >= w);
    case 6:  /* two-valued lines, 0 and full scale */
      return (b >> (x % 8) & 1) ? 65535 : 0;
    case 7:  /* sparse bright pixels on codes 0 and 1 */
      return b < 2 + param ? 65535 : b2 & 1;
    default: /* the input's bytes */
      return b * 257 + b2;
    }
}

/* The source's pixels: the rest of the input (repeated), by tone pattern. */
static void
fill_pixels (gblur_image *src, const input *in, unsigned tone, unsigned param)
{
  const int    w = src->width, c = src->channels;
  const size_t ss = gblur_sample_size (src->sample);

  for (int y = 0; y < src->height; y++)
    for (size_t i = 0; i < (size_t) w * c; i++)
      {
        size_t         k = (size_t) y * w * c + i;
        unsigned       b = in->n ? in->p[k % in->n] : (unsigned) (k * 37 % 256);
        unsigned       b2 = in->n > 1 ? in->p[(k + 1) % in->n] : 0;
        unsigned       code = tone_code (tone, param, b, b2, (int) (i / c), y, w);
        unsigned char *p = (unsigned char *) src->data + (size_t) y * src->stride + i * ss;
        if (src->sample == GBLUR_U8)
          *p = (unsigned char) (tone < 3 ? b : code >> 8);
        else if (src->sample == GBLUR_U16)
          {
            uint16_t v = (uint16_t) code;
            memcpy (p, &v, 2);
          }
        else
          {
            float v = tone < 3 ? b / 255.0f : code / 65535.0f;
            memcpy (p, &v, 4);
          }
      }
}

/* A side's radius, 0 for a sigma out of range. */
static double
radius_of (double sigma)
{
  return sigma > 0.0 && sigma <= GBLUR_SIGMA_MAX ? gblur_radius (sigma) : 0.0;
}

/* The direct loops' folded taps for both passes: they work on strips of
 * 64 samples and on blocks of 8 rows, so a thin image costs its padding. */
static double
direct_taps (int w, int h, int c, double sigma, double sigma_x, double sigma_y)
{
  const double rx = radius_of (sigma == 0.0 ? sigma_x : sigma);
  const double ry = radius_of (sigma == 0.0 ? sigma_y : sigma);
  const double row = (double) (((long) w * c + 63) / 64 * 64), rows = (double) (((long) h + 7) / 8 * 8);

  return row * h * (rx + 1) + (double) w * c * rows * (ry + 1);
}

static long valid_runs, bounded_runs, refusals;

static void
print_counts (void)
{
  fprintf (stderr, "fuzz-engine: %ld valid runs checked, %ld forced onto the FFT's 16-bit bound, %ld refusals "
           "checked\n", valid_runs, bounded_runs, refusals);
}

static gblur_status
run_on (gblur_engine *engine, int use_window, const gblur_image *src, int wx, int wy, gblur_image *dst,
        const gblur_params *params, gblur_result *result)
{
  return use_window ? gblur_engine_run_window (engine, src, wx, wy, dst, params, result)
                    : gblur_engine_run (engine, src, dst, params, result);
}

/* A refusal under the limit of engine byte eb must be clean and due. */
static void
check_refusal (unsigned eb, const gblur_params *params, const gblur_image *dst, int rows_valid,
               const char *detail)
{
  char why[400], more[800];

  if (refusal_flaw (gblur_engine_last_error (engine_for (eb)), limits[eb & 3], params, dst, rows_valid, why,
                    sizeof why))
    {
      snprintf (more, sizeof more, "%s; under %zu bytes: %s", detail, limits[eb & 3], why);
      fail ("a refusal was not clean or not due", more);
    }
}

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  atexit (print_counts);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  input        in = { data, size };
  const unsigned wb0 = take (&in), hb0 = take (&in), cb = take (&in);
  int          w = decode_side (wb0), h = decode_side (hb0);
  const int    c = 1 + (int) (cb % 4);
  const unsigned sb = take (&in);
  const gblur_sample s = (gblur_sample) (sb % 3);
  const size_t src_pad = take (&in) % 16, dst_pad = take (&in) % 16;
  const unsigned fb = take (&in);
  const unsigned flags = fb & 0x80 ? fb : fb & 3;           /* unknown bits now and then */
  const unsigned wb = take (&in);
  const unsigned eb = take (&in);
  double       sigma = decode_sigma (&in);
  /* Sigma 0 asks for one per axis, each decoded the same way (0 included). */
  double       sigma_x = sigma == 0.0 ? decode_sigma (&in) : 0.0;
  double       sigma_y = sigma == 0.0 ? decode_sigma (&in) : 0.0;
  const size_t ss = gblur_sample_size (s);

  /* long lines, not large images: the reference's sums are slow */
  if ((size_t) w * h > 16384)
    {
      if (w >= h)
        h = 16384 / w > 0 ? 16384 / w : 1;
      else
        w = 16384 / h > 0 ? 16384 / h : 1;
    }
  /* and the direct loops' (under the sanitizers) as slow for large radii:
   * their taps kept under 4e7 */
  while (direct_taps (w, h, c, sigma, sigma_x, sigma_y) > 4e7 && (w > 1 || h > 1))
    *(w >= h ? &w : &h) = (w >= h ? w : h) / 2;
  int          wx = 0, wy = 0, ww = w, wh = h, use_window = wb & 1;

  if (use_window)
    {
      ww = 1 + (int) (take (&in) % w);
      wh = 1 + (int) (take (&in) % h);
      wx = (int) (take (&in) % (w - ww + 1));
      wy = (int) (take (&in) % (h - wh + 1));
      if (wb & 2)  /* push it out of the image */
        {
          unsigned how = take (&in) % 4;
          if (how == 0) wx = -1 - (int) (take (&in) % 3);
          else if (how == 1) wy = -1 - (int) (take (&in) % 3);
          else if (how == 2) wx = w - ww + 1 + (int) (take (&in) % 3);
          else wy = h - wh + 1 + (int) (take (&in) % 3);
        }
    }

  gblur_image src = { NULL, (size_t) w * c * ss + src_pad, w, h, c, s };
  gblur_image dst = { NULL, (size_t) ww * c * ss + dst_pad, ww, wh, c, s };
  src.data = malloc (src.stride * h);
  dst.data = malloc (dst.stride * wh);
  memset (src.data, POISON, src.stride * h);
  memset (dst.data, POISON, dst.stride * wh);

  /* Pixels: the rest of the input, repeated; float data in [0, 1]. */
  fill_pixels (&src, &in, cb >> 2 & 7, cb >> 5);

  /* What the engine must say, decided here from the definition. */
  int bad_sigma = sigma == 0.0
                  ? !(sigma_x >= 0.0 && sigma_x <= GBLUR_SIGMA_MAX && sigma_y >= 0.0
                      && sigma_y <= GBLUR_SIGMA_MAX && (sigma_x > 0.0 || sigma_y > 0.0))
                  : !(sigma >= GBLUR_SIGMA_MIN && sigma <= GBLUR_SIGMA_MAX);
  int bad_flags = (flags & ~3u) != 0;
  int bad_format = ((flags & GBLUR_LINEAR_LIGHT) && s == GBLUR_F32)
                   || ((flags & GBLUR_PREMULTIPLY_ALPHA) && c < 2);
  int bad_window = wx < 0 || wy < 0 || wx + ww > w || wy + wh > h;
  int valid = !bad_sigma && !bad_flags && !bad_format && !bad_window;

  unsigned char *src_copy = malloc (src.stride * h);
  unsigned char *dst_copy = malloc (dst.stride * wh);
  memcpy (src_copy, src.data, src.stride * h);
  memcpy (dst_copy, dst.data, dst.stride * wh);

  gblur_engine *engine = engine_for (eb);
  gblur_params  params = { .sigma = sigma, .flags = flags, .sigma_x = sigma_x, .sigma_y = sigma_y };
  gblur_result  result;
  gblur_status  st = run_on (engine, use_window, &src, wx, wy, &dst, &params, &result);
  char          detail[600];

  snprintf (detail, sizeof detail, "%dx%d c%d sample %d pads %zu/%zu flags 0x%x sigma %.17g "
            "(x %.17g, y %.17g) window %dx%d at (%d,%d)%s, engine %u: status %s, '%s'", w, h, c,
            (int) s, src_pad, dst_pad, flags, sigma, sigma_x, sigma_y, ww, wh, wx, wy,
            use_window ? "" : " (whole)", eb,
            gblur_status_name (st), gblur_engine_last_error (engine));
  if (memcmp (src_copy, src.data, src.stride * h) != 0)
    fail ("the source was written", detail);

  if (!valid)
    {
      int fits = (bad_sigma && st == GBLUR_E_SIGMA) || (bad_flags && st == GBLUR_E_INVALID)
                 || (bad_format && st == GBLUR_E_FORMAT) || (bad_window && st == GBLUR_E_INVALID);
      if (!fits)
        fail ("an invalid call got the wrong status", detail);
      if (!*gblur_engine_last_error (engine))
        fail ("an invalid call left no message", detail);
      if (result.rows_valid != 0 || memcmp (dst_copy, dst.data, dst.stride * wh) != 0)
        fail ("an invalid call touched the destination", detail);
    }
  else
    {
      unsigned used = eb;  /* the engine whose output is checked */
      if (st == GBLUR_E_NOMEM && (eb & 3) != 0)
        {
          /* The small limits may be too small for the radius: then so are
           * the smaller ones, and no limit is. */
          check_refusal (eb, &params, &dst, result.rows_valid, detail);
          for (unsigned li = (eb & 3) + 1; li < 4; li++)
            {
              if (run_on (engine_for ((eb & ~3u) | li), use_window, &src, wx, wy, &dst, &params, &result)
                  != GBLUR_E_NOMEM)
                fail ("a run refused under a memory limit was not under a smaller one", detail);
              check_refusal ((eb & ~3u) | li, &params, &dst, result.rows_valid, detail);
            }
          refusals++;
          used = eb & ~3u;
          st = run_on (engine_for (used), use_window, &src, wx, wy, &dst, &params, &result);
          if (st != GBLUR_OK)
            {
              snprintf (detail + strlen (detail), sizeof detail - strlen (detail), "; without a limit: %s, '%s'",
                        gblur_status_name (st), gblur_engine_last_error (engine_for (used)));
              fail ("a run refused under a memory limit failed without one", detail);
            }
        }
      if (st != GBLUR_OK || result.rows_valid != wh)
        fail ("a valid call failed", detail);
      valid_runs++;
      bounded_runs += (used & 3) == 0 && fft_modes[eb >> 4 & 3] == GBLUR_FFT_ALWAYS && s == GBLUR_U16
                      && (flags & GBLUR_LINEAR_LIGHT) && !((flags & GBLUR_PREMULTIPLY_ALPHA) && c > 1);
      double      *ref = malloc ((size_t) w * h * c * sizeof *ref);
      const double tol = s == GBLUR_F32 ? 1e-4 : 1.0;
      const size_t row_bytes = (size_t) ww * c * ss;
      if (sigma == 0.0)
        reference_blur_xy (&src, sigma_x, sigma_y, flags, ref);
      else
        reference_blur (&src, sigma, flags, ref);
      for (int y = 0; y < wh; y++)
        {
          const unsigned char *row = (const unsigned char *) dst.data + (size_t) y * dst.stride;
          for (size_t i = row_bytes; i < dst.stride; i++)
            if (row[i] != POISON)
              fail ("row padding was written", detail);
          for (int x = 0; x < ww; x++)
            for (int ch = 0; ch < c; ch++)
              {
                double got = reference_sample (&dst, x, y, ch);
                double want = ref[((size_t) (wy + y) * w + wx + x) * c + ch];
                double alpha = ref[((size_t) (wy + y) * w + wx + x) * c + c - 1]
                               / (s == GBLUR_U8 ? 255.0 : s == GBLUR_U16 ? 65535.0 : 1.0);
                if ((flags & GBLUR_PREMULTIPLY_ALPHA) && ch < c - 1 && alpha < 0x1p-96)
                  continue;  /* the float32 limit above */
                if (!(fabs (got - want) <= tol))
                  {
                    char more[720];
                    snprintf (more, sizeof more, "%s; at (%d,%d) channel %d: %.6f, reference %.6f",
                              detail, x, y, ch, got, want);
                    fail ("a sample is off the reference", more);
                  }
              }
        }
      free (ref);
    }
  free (src_copy);
  free (dst_copy);
  free (src.data);
  free (dst.data);
  return 0;
}
