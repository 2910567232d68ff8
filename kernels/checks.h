/* The engine's argument checks: whether a call's images and parameters are
 * ones the backends accept, with the reason when not. */
#ifndef GBLUR_CHECKS_H
#define GBLUR_CHECKS_H

#include "gblur.h"

#include <stddef.h>

/* GBLUR_OK when the window at (src_x, src_y) of src may be blurred into dst
 * with params; else the status and, in err, why. */
gblur_status gblur_check_call (const gblur_image *src, int src_x, int src_y,
                               const gblur_image *dst, const gblur_params *params,
                               char *err, size_t err_size);

#endif
