/* libFuzzer target (b): the TTGIR pass pipeline (assign-layouts .. pipelining) on what verifies; its TTGIR must re-parse to the same text. */
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gemmc_context *ctx = fuzz_context();
  if (!ctx) return 0;
  gemmc_compile_options opts;
  fuzz_compile_options(data, size, &opts);
  opts.stage = GEMMC_STAGE_TTGIR;
  opts.verify_each = true;
  gemmc_compiled *out = NULL;
  bool ok = gemmc_compile(ctx, (const char *)data, size, "fuzz.tir", &opts, &out);
  if (!out) fuzz_finding("passes: gemmc_compile left *out NULL", NULL);
  const char *diags = gemmc_compiled_diagnostics(out);
  if (!ok && !strstr(diags, "error")) fuzz_finding("passes: a failed compile without an error", diags);
  size_t len = 0;
  const char *ttgir = ok ? gemmc_compiled_ttgir(out, &len) : NULL;
  if (ok && !ttgir) fuzz_finding("passes: success without TTGIR", NULL);
  if (ttgir) fuzz_check_reparse(ttgir, len, "passes: TTGIR re-parse");
  gemmc_compiled_destroy(out);
  gemmc_context_destroy(ctx);
  return 0;
}
