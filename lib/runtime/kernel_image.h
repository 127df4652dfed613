/* Private interface of gemmc_kernel_image: building one from a compile or from a cache entry's sections. */
#ifndef GEMMC_RUNTIME_KERNEL_IMAGE_H
#define GEMMC_RUNTIME_KERNEL_IMAGE_H

#include "gemmc/cache.h"

struct gemmc_kernel_image {
  bool ok, from_cache;
  char key[65];
  char *diagnostics;  /* malloc'ed, "" when none */
  char *ptx;          /* malloc'ed, NUL-terminated */
  size_t ptx_len;
  unsigned char *cubin;
  size_t cubin_len;
  char *json;
  size_t json_len;
  char *meta_text;    /* the serialized description (what an entry stores) */
  size_t meta_len;
  gemmc_kernel_metadata md; /* its strings point into `strings` */
  gemmc_kernel_arg *args;
  const char **constant_names, **constant_values;
  char *strings;
  gemmc_phase_times times;
};

/* An empty image (ok = false, diagnostics ""), or NULL when out of memory. */
gemmc_kernel_image *kernel_image_new(void);
/* Copies `text` into the image's diagnostics. */
bool kernel_image_set_diagnostics(gemmc_kernel_image *img, const char *text);
/* Serializes md into a line-based text (malloc'ed; *len its length). */
char *kernel_image_serialize_metadata(const gemmc_kernel_metadata *md, size_t *len);
/* Takes ownership of `text` (malloc'ed) and fills img->md from it. False on a malformed text. */
bool kernel_image_parse_metadata(gemmc_kernel_image *img, char *text, size_t len);
/* Copies len bytes into a fresh malloc'ed, NUL-terminated buffer. */
void *kernel_image_copy(const void *data, size_t len);

#endif
