/* What the stand-in libamdhip64 (fake_hip.c) records of a launch, read by test_hip_shim through dlsym. */
#ifndef GEMMC_TEST_FAKE_HIP_H
#define GEMMC_TEST_FAKE_HIP_H

#include <stddef.h>

typedef struct fake_launch {
  int count;
  unsigned grid[3], block[3], shared_bytes;
  void *stream;
  int had_params;        /* kernelParams was not NULL (the shim must pass `extra` only) */
  int extra_well_formed; /* extra = {BUFFER_POINTER, p, BUFFER_SIZE, &size, END} */
  size_t buffer_size;
  unsigned char buffer[4096];
  char kernel[64];
} fake_launch;

#endif
