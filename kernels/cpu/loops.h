/* The CPU backend's hot loops, written once over a vector of VL floats.
 * Included by one file per instruction set, each compiled with its own flags:
 *
 *   #define ISA avx2        the suffix of this file's function names
 *   #define VL  8           floats per vector
 *   #include "loops.h"
 *
 * after which FN (blur_tile) -- blur_tile_avx2 -- blurs one tile; the file
 * publishes it in its cpu_loops entry (backend.h).  Everything here is static:
 * each instruction set has its own copy, reached only through that entry. */
#if !defined(ISA) || !defined(VL)
#error "define ISA and VL before including loops.h"
#endif

#include "backend.h"
#include "convert.h"
#include "tuning.h"

#include <stdint.h>
#include <string.h>
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#endif

/* ---- The blur of one tile ----
 *
 * Rows of the tile's input region are converted to float once, into a ring
 * of 2 ry + block rows (8-bit data without options is kept in 0..255, so the
 * conversion is a plain integer to float; other data is normalised to [0,1],
 * decoded and premultiplied as asked).  Then, for a block of output rows:
 *
 * - the vertical pass.  Radii up to FOLD_MAX_RADIUS: row by row, symmetric
 *   taps folded (w[k] (above + below)), over column chunks small enough
 *   (about 24 KiB of the block's input rows) that a chunk, read by each of
 *   the block's output rows, stays in the L1 cache.  Ring rows and lines are
 *   an odd number of cache lines apart, so a column of them does not pile up
 *   in one cache set.  Larger radii: folded too, a column strip of one
 *   vector at a time through all of a block's outputs, SLIDE_ROWS at a
 *   time, the rows each tap pair reads kept in registers (two loads a tap
 *   for SLIDE_ROWS outputs), BLOCK_MAX rows per ring step;
 * - the horizontal pass on each padded line (edges replicated), four vectors
 *   of sums in registers over all taps (symmetric taps folded; where the
 *   pixel's floats divide a vector, in phases whose inputs slide through
 *   registers as in the vertical pass: hsums_phased); for 8-bit
 *   data without options the sums are rounded and packed to bytes in
 *   registers and written to the destination row directly.
 *
 * The vertical pass uses radius_y and weights_y (ry below), the horizontal
 * pass radius_x and weights_x (rx); either may be 0, which makes that pass a
 * multiplication by w[0] = 1, an exact copy.
 *
 * The arithmetic of an output sample does not depend on where its tile or
 * window lies, only on the radii, the format and the instruction set. */

#define CAT_(a, b) a##_##b
#define CAT(a, b)  CAT_ (a, b)
#define FN(name)   CAT (name, ISA)
#define V          FN (vf)
#define HS         (4 * VL)        /* floats per horizontal strip */
#define INLINE     static inline __attribute__ ((always_inline))

typedef float V __attribute__ ((vector_size (VL * sizeof (float))));

/* Unaligned vector load and store. */
#define VLOAD(p)     ({ V v_; memcpy (&v_, (p), sizeof v_); v_; })
#define VSTORE(p, v) do { V s_ = (v); memcpy ((p), &s_, sizeof s_); } while (0)

/* VL bytes -> VL floats 0..255. */
INLINE V
FN (load_u8) (const unsigned char *p)
{
#if VL == 16
  return (V) _mm512_cvtepi32_ps (_mm512_cvtepu8_epi32 (_mm_loadu_si128 ((const __m128i *) p)));
#elif VL == 8
  return (V) _mm256_cvtepi32_ps (_mm256_cvtepu8_epi32 (_mm_loadl_epi64 ((const __m128i *) p)));
#elif defined(__SSE2__)
  int32_t       b;
  const __m128i z = _mm_setzero_si128 ();
  memcpy (&b, p, sizeof b);
  return (V) _mm_cvtepi32_ps (_mm_unpacklo_epi16 (_mm_unpacklo_epi8 (_mm_cvtsi32_si128 (b), z), z));
#else
  V v;
  for (int i = 0; i < VL; i++)
    v[i] = p[i];
  return v;
#endif
}

/* Four vectors of values (0..255 give or take rounding) -> 4 VL bytes,
 * rounded half up and saturated, as store_row does. */
INLINE void
FN (store_u8x4) (unsigned char *p, V a, V b, V c, V d)
{
  const V h = (V) { 0 } + 0.5f;
#if VL == 16
  __m512i ab = _mm512_packs_epi32 (_mm512_cvttps_epi32 ((__m512) (a + h)),
                                   _mm512_cvttps_epi32 ((__m512) (b + h)));
  __m512i cd = _mm512_packs_epi32 (_mm512_cvttps_epi32 ((__m512) (c + h)),
                                   _mm512_cvttps_epi32 ((__m512) (d + h)));
  /* packs work per 128-bit lane: put the lanes' 4-byte groups in order */
  __m512i x = _mm512_permutexvar_epi32 (_mm512_setr_epi32 (0, 4, 8, 12, 1, 5, 9, 13,
                                                           2, 6, 10, 14, 3, 7, 11, 15),
                                        _mm512_packus_epi16 (ab, cd));
  _mm512_storeu_si512 ((void *) p, x);
#elif VL == 8
  __m256i ab = _mm256_packs_epi32 (_mm256_cvttps_epi32 ((__m256) (a + h)),
                                   _mm256_cvttps_epi32 ((__m256) (b + h)));
  __m256i cd = _mm256_packs_epi32 (_mm256_cvttps_epi32 ((__m256) (c + h)),
                                   _mm256_cvttps_epi32 ((__m256) (d + h)));
  __m256i x = _mm256_permutevar8x32_epi32 (_mm256_packus_epi16 (ab, cd),
                                           _mm256_setr_epi32 (0, 4, 1, 5, 2, 6, 3, 7));
  _mm256_storeu_si256 ((__m256i *) p, x);
#elif defined(__SSE2__)
  __m128i ab = _mm_packs_epi32 (_mm_cvttps_epi32 ((__m128) (a + h)), _mm_cvttps_epi32 ((__m128) (b + h)));
  __m128i cd = _mm_packs_epi32 (_mm_cvttps_epi32 ((__m128) (c + h)), _mm_cvttps_epi32 ((__m128) (d + h)));
  _mm_storeu_si128 ((__m128i *) p, _mm_packus_epi16 (ab, cd));
#else
  const V *v[4] = { &a, &b, &c, &d };
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < VL; i++)
      {
        float f = (*v[k])[i] + 0.5f;
        p[k * VL + i] = (unsigned char) (f < 0.0f ? 0.0f : f > 255.0f ? 255.0f : f);
      }
#endif
}

/* n bytes -> floats 0..255, zeros up to n_pad. */
INLINE void
FN (convert_u8) (const unsigned char *p, size_t n, float *out, size_t n_pad)
{
  size_t i = 0;

  for (; i + 4 * VL <= n; i += 4 * VL)
    {
      V a = FN (load_u8) (p + i), b = FN (load_u8) (p + i + VL);
      V c = FN (load_u8) (p + i + 2 * VL), d = FN (load_u8) (p + i + 3 * VL);
      VSTORE (out + i, a);
      VSTORE (out + i + VL, b);
      VSTORE (out + i + 2 * VL, c);
      VSTORE (out + i + 3 * VL, d);
    }
  for (; i + VL <= n; i += VL)
    VSTORE (out + i, FN (load_u8) (p + i));
  for (; i < n; i++)
    out[i] = p[i];
  for (; i < n_pad; i++)
    out[i] = 0.0f;
}

/* outs[j][x] = w[0] rows[j + r][x] + sum_k w[k] (rows[j + r - k][x] + rows[j + r + k][x])
 * for j < nout and x < n (a multiple of VL), column chunk by column chunk. */
INLINE void
FN (vertical_fold) (const float *const *rows, int r, const float *w, float *const *outs,
                    int nout, size_t n)
{
  /* chunks of the 2r + nout input rows that stay in L1 */
  const size_t chunk = clamp_int (CPU_FOLD_CHUNK_BYTES / (int) ((2 * r + nout) * sizeof (float)) / 64 * 64, 64, 1024);

  for (size_t x0 = 0; x0 < n; x0 += chunk)
    {
      const size_t x1 = x0 + chunk < n ? x0 + chunk : n;
      for (int j = 0; j < nout; j++)
        {
          const float *const *mid = rows + j + r;
          float              *o = outs[j];
          size_t              x = x0;
          for (; x + 4 * VL <= x1; x += 4 * VL)
            {
              const float *m = mid[0] + x;
              V a0 = VLOAD (m) * w[0], a1 = VLOAD (m + VL) * w[0];
              V a2 = VLOAD (m + 2 * VL) * w[0], a3 = VLOAD (m + 3 * VL) * w[0];
              for (int k = 1; k <= r; k++)
                {
                  const float *lo = mid[-k] + x, *hi = mid[k] + x;
                  const float  wk = w[k];
                  a0 += (VLOAD (lo) + VLOAD (hi)) * wk;
                  a1 += (VLOAD (lo + VL) + VLOAD (hi + VL)) * wk;
                  a2 += (VLOAD (lo + 2 * VL) + VLOAD (hi + 2 * VL)) * wk;
                  a3 += (VLOAD (lo + 3 * VL) + VLOAD (hi + 3 * VL)) * wk;
                }
              VSTORE (o + x, a0);
              VSTORE (o + x + VL, a1);
              VSTORE (o + x + 2 * VL, a2);
              VSTORE (o + x + 3 * VL, a3);
            }
          for (; x < x1; x += VL)
            {
              V a = VLOAD (mid[0] + x) * w[0];
              for (int k = 1; k <= r; k++)
                a += (VLOAD (mid[-k] + x) + VLOAD (mid[k] + x)) * w[k];
              VSTORE (o + x, a);
            }
        }
    }
}

/* Output rows per sub-block of vertical_slide: its sums and two windows of
 * rows take 3 SLIDE_ROWS registers, and SLIDE_ROWS more for partial sums,
 * of the 32 vector registers of AVX-512 or the 16 of the others. */
#define SLIDE_ROWS (VL == 16 ? 8 : 4)

/* A window of n vectors in registers moved one vector on (the next
 * enters at the end) or back (at the start); the compiler renames them. */
#define SLIDE_ON(v, n, next)                                               \
  do {                                                                     \
    for (int i_ = 0; i_ < (n) - 1; i_++)                                   \
      v[i_] = v[i_ + 1];                                                   \
    v[(n) - 1] = (next);                                                   \
  } while (0)
#define SLIDE_BACK(v, n, next)                                             \
  do {                                                                     \
    for (int i_ = (n) - 1; i_ > 0; i_--)                                   \
      v[i_] = v[i_ - 1];                                                   \
    v[0] = (next);                                                         \
  } while (0)

/* Adds taps k0..k1 to the SLIDE_ROWS vectors of sums p: w[k] (lo[j] +
 * hi[j]), lo[j] and hi[j] the rows k above and below output j, kept in
 * registers as k grows (the compiler renames them): each tap loads one row
 * into each window and the others move along. */
#define SLIDE_TAPS(mid, x, w, k0, k1, lo, hi, p)                           \
  for (int k_ = (k0); k_ <= (k1); k_++)                                    \
    {                                                                      \
      const float w_ = (w)[k_];                                            \
      if (k_ > 1)                                                          \
        {                                                                  \
          SLIDE_BACK (lo, SLIDE_ROWS, VLOAD ((mid)[-k_] + (x)));           \
          SLIDE_ON (hi, SLIDE_ROWS, VLOAD ((mid)[SLIDE_ROWS - 1 + k_] + (x))); \
        }                                                                  \
      for (int j_ = 0; j_ < SLIDE_ROWS; j_++)                              \
        p[j_] += (lo[j_] + hi[j_]) * w_;                                   \
    }

/* outs[j][x] = w[0] rows[j + r][x] + sum_k w[k] (rows[j + r - k][x] +
 * rows[j + r + k][x]) for j < nout (a multiple of SLIDE_ROWS) and x < n (a
 * multiple of VL): the symmetric taps folded, as vertical_fold's, for radii
 * too large for its chunks to stay in the L1 cache.  A column strip of one
 * vector goes through all sub-blocks of SLIDE_ROWS outputs in turn, so its
 * 2r + nout input lines are fetched once and then found in the L1 cache;
 * taps past the first GBLUR_SUM_CHUNK are added a partial sum at a time, as
 * in HSUMS, so an output's arithmetic depends only on its taps. */
INLINE void
FN (vertical_slide) (const float *const *rows, int r, const float *w, float *const *outs,
                     int nout, size_t n)
{
  for (size_t x = 0; x < n; x += VL)
    for (int b = 0; b < nout; b += SLIDE_ROWS)
      {
        const float *const *mid = rows + r + b;
        V acc[SLIDE_ROWS], lo[SLIDE_ROWS], hi[SLIDE_ROWS];

        for (int j = 0; j < SLIDE_ROWS; j++)
          {
            acc[j] = VLOAD (mid[j] + x) * w[0];
            lo[j] = VLOAD (mid[j - 1] + x);
            hi[j] = VLOAD (mid[j + 1] + x);
          }
        SLIDE_TAPS (mid, x, w, 1, r < GBLUR_SUM_CHUNK ? r : GBLUR_SUM_CHUNK - 1, lo, hi, acc);
        for (int c = GBLUR_SUM_CHUNK; c <= r; c += GBLUR_SUM_CHUNK)
          {
            V         p[SLIDE_ROWS];
            const int e = c + GBLUR_SUM_CHUNK - 1 < r ? c + GBLUR_SUM_CHUNK - 1 : r;
            for (int j = 0; j < SLIDE_ROWS; j++)
              p[j] = (V) { 0 };
            SLIDE_TAPS (mid, x, w, c, e, lo, hi, p);
            for (int j = 0; j < SLIDE_ROWS; j++)
              acc[j] += p[j];
          }
        for (int j = 0; j < SLIDE_ROWS; j++)
          VSTORE (outs[b + j] + x, acc[j]);
      }
}

/* Adds taps k0..k1 (w[k] (mid[i - k step] + mid[i + k step])) at m to the
 * four vectors of sums. */
#define HTAPS(m, w, k0, k1, step, a0, a1, a2, a3)                          \
  for (int k_ = (k0); k_ <= (k1); k_++)                                    \
    {                                                                      \
      const float *l_ = (m) - (size_t) k_ * (step);                        \
      const float *r_ = (m) + (size_t) k_ * (step);                        \
      const float  w_ = (w)[k_];                                           \
      a0 += (VLOAD (l_) + VLOAD (r_)) * w_;                                \
      a1 += (VLOAD (l_ + VL) + VLOAD (r_ + VL)) * w_;                      \
      a2 += (VLOAD (l_ + 2 * VL) + VLOAD (r_ + 2 * VL)) * w_;              \
      a3 += (VLOAD (l_ + 3 * VL) + VLOAD (r_ + 3 * VL)) * w_;              \
    }

/* Four vectors of horizontal sums at mid + x:
 * w[0] mid[i] + sum_k w[k] (mid[i - k step] + mid[i + k step]); taps past
 * the first GBLUR_SUM_CHUNK are added a partial sum at a time. */
#define HSUMS(mid, x, w, r, step, a0, a1, a2, a3)                          \
  do {                                                                     \
    const float *m_ = (mid) + (x);                                         \
    a0 = VLOAD (m_) * (w)[0];                                              \
    a1 = VLOAD (m_ + VL) * (w)[0];                                         \
    a2 = VLOAD (m_ + 2 * VL) * (w)[0];                                     \
    a3 = VLOAD (m_ + 3 * VL) * (w)[0];                                     \
    HTAPS (m_, w, 1, (r) < GBLUR_SUM_CHUNK ? (r) : GBLUR_SUM_CHUNK - 1, step, a0, a1, a2, a3); \
    for (int c_ = GBLUR_SUM_CHUNK; c_ <= (r); c_ += GBLUR_SUM_CHUNK)       \
      {                                                                    \
        V p0 = { 0 }, p1 = { 0 }, p2 = { 0 }, p3 = { 0 };                  \
        const int e_ = c_ + GBLUR_SUM_CHUNK - 1 < (r) ? c_ + GBLUR_SUM_CHUNK - 1 : (r); \
        HTAPS (m_, w, c_, e_, step, p0, p1, p2, p3);                       \
        a0 += p0;                                                          \
        a1 += p1;                                                          \
        a2 += p2;                                                          \
        a3 += p3;                                                          \
      }                                                                    \
  } while (0)

/* The four vectors of HSUMS for a step that divides VL, in P = VL / step
 * phases: the taps k = s + P t of phase s read, for the four outputs,
 * vectors that lie whole vectors apart, so they are kept in a window of
 * four on each side that moves one vector a tap (two loads a tap instead
 * of eight, most of those split across cache lines).  Each phase's taps
 * are added GBLUR_SUM_CHUNK / P at a time, a partial sum each. */
INLINE void
FN (hsums_phased) (const float *m, const float *w, int r, int step, V *a)
{
  const int P = VL / step;
  const int chunk = GBLUR_SUM_CHUNK / P;

  for (int q = 0; q < 4; q++)
    a[q] = VLOAD (m + q * VL) * w[0];
  for (int s = 0; s < P && s <= r; s++)
    {
      const float *lb = m - (size_t) s * step, *rb = m + (size_t) s * step;
      const int    t_end = (r - s) / P;
      int          t = s == 0 ? 1 : 0;
      V            lo[4], hi[4];

      if (t > t_end)
        continue;
      for (int q = 0; q < 4; q++)
        {
          lo[q] = VLOAD (lb + (ptrdiff_t) VL * (q - t));
          hi[q] = VLOAD (rb + (size_t) VL * (q + t));
        }
      for (;;)
        {
          const int e = t + chunk - 1 < t_end ? t + chunk - 1 : t_end;
          V         p[4] = { { 0 } };
          for (;; t++)
            {
              const float wk = w[s + P * t];
              for (int q = 0; q < 4; q++)
                p[q] += (lo[q] + hi[q]) * wk;
              if (t == e)
                break;
              SLIDE_BACK (lo, 4, VLOAD (lb - (size_t) VL * (t + 1)));
              SLIDE_ON (hi, 4, VLOAD (rb + (size_t) VL * (t + 4)));
            }
          for (int q = 0; q < 4; q++)
            a[q] += p[q];
          if (++t > t_end)
            break;
          SLIDE_BACK (lo, 4, VLOAD (lb - (size_t) VL * t));
          SLIDE_ON (hi, 4, VLOAD (rb + (size_t) VL * (t + 3)));
        }
    }
}

/* Four vectors of horizontal sums at mid + x: phased where the step
 * divides VL, else HSUMS. */
INLINE void
FN (hsums) (const float *mid, size_t x, const float *w, int r, int step, V *a)
{
  if (VL % step == 0 && GBLUR_SUM_CHUNK % (VL / step) == 0)
    FN (hsums_phased) (mid + x, w, r, step, a);
  else
    HSUMS (mid, x, w, r, step, a[0], a[1], a[2], a[3]);
}

/* out[i] = the horizontal sum at mid + i for i < n, n a multiple of HS. */
INLINE void
FN (horizontal_row) (const float *mid, const float *w, int r, int step, float *out, size_t n)
{
  for (size_t x = 0; x < n; x += HS)
    {
      V a[4];
      FN (hsums) (mid, x, w, r, step, a);
      VSTORE (out + x, a[0]);
      VSTORE (out + x + VL, a[1]);
      VSTORE (out + x + 2 * VL, a[2]);
      VSTORE (out + x + 3 * VL, a[3]);
    }
}

/* dst[i] = the horizontal sum at mid + i, rounded to a byte, for i < n. */
INLINE void
FN (horizontal_row_u8) (const float *mid, const float *w, int r, int step,
                        unsigned char *dst, size_t n)
{
  for (size_t x = 0; x < n; x += HS)
    {
      V a[4];
      FN (hsums) (mid, x, w, r, step, a);
      if (x + HS <= n)
        FN (store_u8x4) (dst + x, a[0], a[1], a[2], a[3]);
      else
        {
          unsigned char tail[HS];
          FN (store_u8x4) (tail, a[0], a[1], a[2], a[3]);
          memcpy (dst + x, tail, n - x);
        }
    }
}

/* Converts the region rows next_row..need into the ring; returns the next
 * row to convert.  No row still needed is overwritten since a block spans
 * at most ring_rows distinct rows. */
INLINE int
FN (convert_rows) (const cpu_run *run, const gblur_tile *t, float *ring, int next_row, int need)
{
  const gblur_job   *job = run->job;
  const gblur_image *src = job->src;
  const int          c = src->channels;
  const size_t       sample_bytes = gblur_sample_size (src->sample);
  const size_t       n_row = (size_t) t->reg_w * c;
  const size_t       n_reg = round_up (n_row, VL);

  for (; next_row <= need; next_row++)
    {
      float               *ring_row = ring + (size_t) (next_row % run->ring_rows) * run->ring_stride;
      const unsigned char *in = (const unsigned char *) src->data + (size_t) next_row * src->stride
                                + (size_t) t->reg_x0 * c * sample_bytes;
      if (run->u8_direct)
        FN (convert_u8) (in, n_row, ring_row, n_reg);
      else
        {
          gblur_cpu_load_row (in, src->sample, t->reg_w, c, job->flags, run->srgb, ring_row);
          for (size_t i = n_row; i < n_reg; i++)
            ring_row[i] = 0.0f;   /* finite padding: its sums are discarded */
        }
    }
  return next_row;
}

/* The vertical pass of the nout output rows from y0 into the lines (outs:
 * where each row's region columns start).  Rows are clamped to the region,
 * which holds the image edge whenever a valid output's kernel reaches past
 * it. */
INLINE void
FN (vertical_block) (const cpu_run *run, const gblur_tile *t, const float *ring, float *lines0,
                     int y0, int nout, float **outs)
{
  const gblur_job   *job = run->job;
  const int          ry = job->radius_y, c = job->src->channels;
  const size_t       n_reg = round_up ((size_t) t->reg_w * c, VL);
  const int          line_x0 = t->out_x0 - job->radius_x;      /* image column of line[0] */
  const int          last_reg_row = t->reg_y0 + t->reg_h - 1;
  const int          nblk = (nout + ROWS - 1) / ROWS;
  const int          nrows = run->fold ? 2 * ry + nout : 2 * ry + ROWS + (nblk - 1) * ROWS;
  const float       *rows[2 * GBLUR_MAX_RADIUS + BLOCK_MAX];

  for (int i = 0; i < nrows; i++)
    rows[i] = ring + (size_t) (clamp_int (y0 - ry + i, t->reg_y0, last_reg_row) % run->ring_rows)
                     * run->ring_stride;
  if (run->fold)
    {
      for (int j = 0; j < nout; j++)
        outs[j] = lines0 + (size_t) j * run->line_len + (size_t) (t->reg_x0 - line_x0) * c;
      FN (vertical_fold) (rows, ry, job->weights_y, outs, nout, n_reg);
    }
  else
    {
      /* Rows past the tile's end go to the spare line. */
      for (int j = 0; j < nblk * ROWS; j++)
        outs[j] = lines0 + (size_t) (j < nout ? j : run->block) * run->line_len
                  + (size_t) (t->reg_x0 - line_x0) * c;
      FN (vertical_slide) (rows, ry, job->weights_y, outs, nblk * ROWS, n_reg);
    }
}

/* The horizontal pass of the nout lines from y0 into the destination, the
 * lines' ends first padded by repeating the region's edge pixels. */
INLINE void
FN (horizontal_block) (const cpu_run *run, const gblur_tile *t, float *lines0, int y0, int nout,
                       float *const *outs, float *out)
{
  const gblur_job   *job = run->job;
  gblur_image       *dst = job->dst;
  const int          rx = job->radius_x, c = job->src->channels;
  const size_t       sample_bytes = gblur_sample_size (job->src->sample);
  const size_t       n_out = round_up ((size_t) t->out_w * c, HS);
  const int          line_x0 = t->out_x0 - rx;                 /* image column of line[0] */

  for (int j = 0; j < nout; j++)
    {
      float         *line = lines0 + (size_t) j * run->line_len;
      const float   *v = outs[j];
      unsigned char *drow = (unsigned char *) dst->data
                            + (size_t) (y0 + j - job->geo.win_y) * dst->stride
                            + (size_t) (t->out_x0 - job->geo.win_x) * c * sample_bytes;

      /* Columns outside the region exist only where it starts or ends at
       * the image edge, whose pixel they repeat. */
      for (int x = line_x0; x < t->reg_x0; x++)
        memcpy (line + (size_t) (x - line_x0) * c, v, (size_t) c * sizeof (float));
      for (int x = t->reg_x0 + t->reg_w; x < t->out_x0 + t->out_w + rx; x++)
        memcpy (line + (size_t) (x - line_x0) * c,
                v + (size_t) (t->reg_w - 1) * c, (size_t) c * sizeof (float));

      if (run->u8_direct)
        FN (horizontal_row_u8) (line + (size_t) rx * c, job->weights_x, rx, c, drow,
                                (size_t) t->out_w * c);
      else
        {
          FN (horizontal_row) (line + (size_t) rx * c, job->weights_x, rx, c, out, n_out);
          gblur_cpu_store_row (out, t->out_w, c, job->flags, dst->sample, run->srgb, drow);
        }
    }
}

static void
FN (blur_tile) (const cpu_run *run, const gblur_tile *t, float *ring, float *lines, float *out)
{
  const int    ry = run->job->radius_y, c = run->job->src->channels;
  const int    last_reg_row = t->reg_y0 + t->reg_h - 1;
  const int    out_end = t->out_y0 + t->out_h;
  /* Lines start VMAX-aligned at their centre column out_x0 (line[rx c]),
   * where the vertical pass of a full-width tile stores and the horizontal
   * pass loads its middle taps. */
  float *const lines0 = lines + (VMAX - (size_t) run->job->radius_x * c % VMAX) % VMAX;
  int          next_row = t->reg_y0;                          /* next region row to convert */
  float       *outs[BLOCK_MAX];

  for (int y0 = t->out_y0; y0 < out_end; y0 += run->block)
    {
      const int need = y0 + run->block - 1 + ry < last_reg_row ? y0 + run->block - 1 + ry : last_reg_row;
      const int nout = out_end - y0 < run->block ? out_end - y0 : run->block;

      next_row = FN (convert_rows) (run, t, ring, next_row, need);
      FN (vertical_block) (run, t, ring, lines0, y0, nout, outs);
      FN (horizontal_block) (run, t, lines0, y0, nout, outs, out);
    }
}
