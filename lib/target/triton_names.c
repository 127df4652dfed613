/* Triton's names for targets (the `ttg.target` module attribute: "cuda:90", "hip:gfx942") and gemmc's. */
#include <stdio.h>
#include <string.h>

#include "gemmc/passes.h"

const gemmc_target *gemmc_target_from_triton(const char *text, size_t len) {
  char name[32];
  if (!text || len == 0 || len >= sizeof name) return NULL;
  memcpy(name, text, len);
  name[len] = 0;
  const char *gemmc_name = name;
  char buf[40];
  if (strncmp(name, "cuda:", 5) == 0) {
    /* Triton compiles compute capability 9.0 for sm_90a (wgmma and setmaxnreg need it). */
    snprintf(buf, sizeof buf, "sm_%s%s", name + 5, strcmp(name + 5, "90") == 0 ? "a" : "");
    gemmc_name = buf;
  } else if (strncmp(name, "hip:", 4) == 0) {
    gemmc_name = name + 4;
  }
  return gemmc_target_lookup(gemmc_name, NULL, 0);
}

void gemmc_target_triton_name(const gemmc_target *t, char *buf, size_t size) {
  if (t->arch == GEMMC_ARCH_NVPTX) snprintf(buf, size, "cuda:%d", t->compute_capability);
  else snprintf(buf, size, "hip:%s", t->cpu);
}
