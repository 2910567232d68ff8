/* The CUDA backend of a build configured --without-cuda: never usable. */
#include "gblur-internal.h"

#include <stdio.h>
#include <stdlib.h>

int
gblur_cuda_possible (char *reason, size_t reason_size)
{
  snprintf (reason, reason_size, "built without CUDA support");
  return 0;
}

gblur_cuda *
gblur_cuda_open (const gblur_settings *settings, char *reason, size_t reason_size)
{
  (void) settings;
  snprintf (reason, reason_size, "built without CUDA support");
  return NULL;
}

void gblur_cuda_close (gblur_cuda *cuda) { (void) cuda; }

const char *
gblur_cuda_device_name (const gblur_cuda *cuda)
{
  (void) cuda;
  return "";
}

gblur_status
gblur_cuda_run (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size)
{
  (void) cuda; (void) job;
  snprintf (err, err_size, "built without CUDA support");
  return GBLUR_E_BACKEND;
}

gblur_status
gblur_cuda_run_device (gblur_cuda *cuda, gblur_job *job, char *err, size_t err_size)
{
  return gblur_cuda_run (cuda, job, err, err_size);
}

size_t gblur_cuda_kept_bytes (const gblur_cuda *cuda) { (void) cuda; return 0; }
void   gblur_cuda_release_kept (gblur_cuda *cuda) { (void) cuda; }
void *gblur_cuda_host_alloc (size_t size) { (void) size; return NULL; }
void  gblur_cuda_host_free (void *ptr) { free (ptr); }
