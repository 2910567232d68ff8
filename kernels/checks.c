/* The engine's argument checks (checks.h).  The messages name the argument
 * and the rule it breaks, for gblur_engine_last_error. */
#include "checks.h"

#include "gblur-internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

static void
say (char *err, size_t err_size, const char *fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  vsnprintf (err, err_size, fmt, args);
  va_end (args);
}

static gblur_status
check_image (char *err, size_t err_size, const gblur_image *img, const char *what)
{
  size_t row_bytes;

  if (!img)
    {
      say (err, err_size, "%s image is NULL", what);
      return GBLUR_E_INVALID;
    }
  if (!img->data)
    {
      say (err, err_size, "%s image has no data", what);
      return GBLUR_E_INVALID;
    }
  if (img->width < 1 || img->height < 1)
    {
      say (err, err_size, "%s image size %dx%d: width and height must be at least 1",
           what, img->width, img->height);
      return GBLUR_E_INVALID;
    }
  if (img->channels < 1 || img->channels > GBLUR_MAX_CHANNELS)
    {
      say (err, err_size, "%s image has %d channels: 1 to %d are supported",
           what, img->channels, GBLUR_MAX_CHANNELS);
      return GBLUR_E_FORMAT;
    }
  if (img->sample != GBLUR_U8 && img->sample != GBLUR_U16 && img->sample != GBLUR_F32)
    {
      say (err, err_size, "%s image has an unknown sample type %d", what, (int) img->sample);
      return GBLUR_E_FORMAT;
    }
  row_bytes = (size_t) img->width * img->channels * gblur_sample_size (img->sample);
  if (img->stride < row_bytes)
    {
      say (err, err_size, "%s image stride %zu is smaller than a row (%zu bytes)",
           what, img->stride, row_bytes);
      return GBLUR_E_INVALID;
    }
  if ((size_t) img->height > SIZE_MAX / img->stride)
    {
      say (err, err_size, "%s image is too large to address", what);
      return GBLUR_E_INVALID;
    }
  return GBLUR_OK;
}

static size_t
image_span (const gblur_image *img)
{
  return (size_t) (img->height - 1) * img->stride
         + (size_t) img->width * img->channels * gblur_sample_size (img->sample);
}

/* One sigma of a per-axis pair (params->sigma 0): [0, GBLUR_SIGMA_MAX]. */
static gblur_status
check_axis_sigma (char *err, size_t err_size, const char *name, double sigma)
{
  if (isnan (sigma))
    {
      say (err, err_size, "sigma is 0 (one sigma per axis) but %s is not a number", name);
      return GBLUR_E_SIGMA;
    }
  if (!(sigma >= 0.0 && sigma <= GBLUR_SIGMA_MAX))
    {
      say (err, err_size, "%s %g is outside [0, %g]", name, sigma, GBLUR_SIGMA_MAX);
      return GBLUR_E_SIGMA;
    }
  return GBLUR_OK;
}

/* sigma > 0: one sigma for both axes; sigma 0: sigma_x and sigma_y. */
static gblur_status
check_sigmas (char *err, size_t err_size, const gblur_params *params)
{
  gblur_status status;

  if (params->sigma != 0.0)   /* NaN included: the one-sigma message */
    {
      if (!(params->sigma >= GBLUR_SIGMA_MIN && params->sigma <= GBLUR_SIGMA_MAX))
        {
          say (err, err_size, "sigma %g is outside [%g, %g]", params->sigma,
               GBLUR_SIGMA_MIN, GBLUR_SIGMA_MAX);
          return GBLUR_E_SIGMA;
        }
      return GBLUR_OK;
    }
  if ((status = check_axis_sigma (err, err_size, "sigma_x", params->sigma_x)) != GBLUR_OK
      || (status = check_axis_sigma (err, err_size, "sigma_y", params->sigma_y)) != GBLUR_OK)
    return status;
  if (params->sigma_x == 0.0 && params->sigma_y == 0.0)
    {
      say (err, err_size, "sigma is 0 (one sigma per axis) but sigma_x and sigma_y are both 0: "
           "at least one axis must be blurred");
      return GBLUR_E_SIGMA;
    }
  return GBLUR_OK;
}

/* The window against the source, and the two images' formats. */
static gblur_status
check_window (char *err, size_t err_size, const gblur_image *src, int src_x, int src_y,
              const gblur_image *dst)
{
  if (src->channels != dst->channels || src->sample != dst->sample)
    {
      say (err, err_size, "source and destination differ in channels or sample type");
      return GBLUR_E_INVALID;
    }
  if (src_x < 0 || src_y < 0 || dst->width > src->width - src_x || dst->height > src->height - src_y)
    {
      say (err, err_size, "the %dx%d window at (%d, %d) does not lie inside the %dx%d source",
           dst->width, dst->height, src_x, src_y, src->width, src->height);
      return GBLUR_E_INVALID;
    }
  return GBLUR_OK;
}

/* The option bits, and the formats each option needs. */
static gblur_status
check_flags (char *err, size_t err_size, const gblur_image *src, unsigned flags)
{
  if (flags & ~(unsigned) (GBLUR_LINEAR_LIGHT | GBLUR_PREMULTIPLY_ALPHA))
    {
      say (err, err_size, "unknown option bits 0x%x", flags);
      return GBLUR_E_INVALID;
    }
  if ((flags & GBLUR_LINEAR_LIGHT) && src->sample == GBLUR_F32)
    {
      say (err, err_size, "the linear-light option is for u8/u16 data; pass float data in linear light");
      return GBLUR_E_FORMAT;
    }
  if ((flags & GBLUR_PREMULTIPLY_ALPHA) && src->channels < 2)
    {
      say (err, err_size, "premultiplied alpha needs at least 2 channels");
      return GBLUR_E_FORMAT;
    }
  return GBLUR_OK;
}

static gblur_status
check_overlap (char *err, size_t err_size, const gblur_image *src, const gblur_image *dst)
{
  const uintptr_t s0 = (uintptr_t) src->data, s1 = s0 + image_span (src);
  const uintptr_t d0 = (uintptr_t) dst->data, d1 = d0 + image_span (dst);

  if (s0 < d1 && d0 < s1)
    {
      say (err, err_size, "source and destination overlap; in-place blurring is not supported");
      return GBLUR_E_INVALID;
    }
  return GBLUR_OK;
}

gblur_status
gblur_check_call (const gblur_image *src, int src_x, int src_y, const gblur_image *dst,
                  const gblur_params *params, char *err, size_t err_size)
{
  gblur_status status;

  if ((status = check_image (err, err_size, src, "source")) != GBLUR_OK
      || (status = check_image (err, err_size, dst, "destination")) != GBLUR_OK)
    return status;
  if (!params)
    {
      say (err, err_size, "params is NULL");
      return GBLUR_E_INVALID;
    }
  if ((status = check_sigmas (err, err_size, params)) != GBLUR_OK
      || (status = check_window (err, err_size, src, src_x, src_y, dst)) != GBLUR_OK
      || (status = check_flags (err, err_size, src, params->flags)) != GBLUR_OK)
    return status;
  return check_overlap (err, err_size, src, dst);
}
