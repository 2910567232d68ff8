/* Which NVIDIA driver this build's CUDA runtime needs and whether it is
 * here: libcuda.so.1 loadable, and its CUDA version at least the runtime's
 * major one (minor-version compatibility). */
#include "driver.cuh"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The driver branch the linked runtime needs (minor-version compatibility). */
static int
driver_branch_needed (void)
{
  return CUDART_VERSION >= 13000 ? 580 : CUDART_VERSION >= 12000 ? 525 : 450;
}

void
cuda_runtime_label (char *buf, size_t size)
{
  snprintf (buf, size, "CUDA %d.%d runtime (needs NVIDIA driver R%d+)", CUDART_VERSION / 1000,
            CUDART_VERSION % 1000 / 10, driver_branch_needed ());
}

/* The kernel module's version ("535.261.03"), or "" where it cannot be read. */
static void
driver_release (char *buf, size_t size)
{
  FILE       *f = fopen ("/proc/driver/nvidia/version", "r");
  char        line[256], word[sizeof line] = "";
  const char *at;

  if (f && fgets (line, sizeof line, f) && (at = strstr (line, "Module")))
    sscanf (at + 6, " %255s", word);
  if (f)
    fclose (f);
  snprintf (buf, size, "%s", word);
}

/* Whether libcuda.so.1 loads with `mode`; why not in err. */
static bool
driver_library_loads (int mode, char *err, size_t err_size)
{
  char  runtime[80];
  void *libcuda = dlopen ("libcuda.so.1", mode | RTLD_LOCAL);

  if (libcuda)
    {
      dlclose (libcuda);
      return true;
    }
  cuda_runtime_label (runtime, sizeof runtime);
  snprintf (err, err_size, "no NVIDIA driver (libcuda.so.1 not found); this build's %s", runtime);
  return false;
}

/* Whether the loader's cache lists libcuda.so.1: a quick yes, without
 * loading the library (tens of megabytes) into a process that may never
 * start CUDA. */
static bool
driver_in_loader_cache (void)
{
  static const char name[] = "libcuda.so.1";   /* with its terminating NUL */
  int               fd = open ("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
  struct stat       st;
  void             *map = MAP_FAILED;
  bool              found = false;

  if (fd >= 0 && fstat (fd, &st) == 0 && st.st_size > 0)
    map = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map != MAP_FAILED)
    {
      found = memmem (map, (size_t) st.st_size, name, sizeof name) != NULL;
      munmap (map, (size_t) st.st_size);
    }
  if (fd >= 0)
    close (fd);
  return found;
}

bool
cuda_driver_found (char *err, size_t err_size)
{
  void *loaded = dlopen ("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);

  if (loaded)
    {
      dlclose (loaded);
      return true;
    }
  /* Where the cache does not list it, the loader's own search is the answer. */
  return driver_in_loader_cache () || driver_library_loads (RTLD_LAZY, err, err_size);
}

bool
cuda_driver_usable (char *err, size_t err_size)
{
  char runtime[80], release[32];
  int  version = 0;

  if (!driver_library_loads (RTLD_NOW, err, err_size))
    return false;
  if (cudaDriverGetVersion (&version) != cudaSuccess || version / 1000 < CUDART_VERSION / 1000)
    {
      cuda_runtime_label (runtime, sizeof runtime);
      driver_release (release, sizeof release);
      snprintf (err, err_size, "NVIDIA driver %s%s(CUDA %d.%d) is too old for this build's %s",
                release, *release ? " " : "", version / 1000, version % 1000 / 10, runtime);
      cudaGetLastError (); /* clear */
      return false;
    }
  return true;
}
