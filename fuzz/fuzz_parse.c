/* libFuzzer target (a): parse + verify any bytes; what verifies must print and re-parse to the same text. */
#include <stdlib.h>

#include "fuzz_common.h"

typedef struct parse_job {
  const uint8_t *data;
  size_t size;
  fuzz_text printed;
} parse_job;

static bool parse_verify_print(gemmc_context *ctx, void *user) {
  parse_job *job = user;
  ir_op *module = ir_parse_module(ctx, (const char *)job->data, job->size, "fuzz.tir");
  if (!module || ir_error_count(ctx) || !ir_verify(ctx, module)) return false;
  ir_print_options opts = {false, false};
  ir_print_module(ctx, module, &opts, fuzz_text_append, &job->printed);
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gemmc_context *ctx = fuzz_context();
  if (!ctx) return 0;
  parse_job job = {data, size, {NULL, 0, 0}};
  bool ok = gemmc_context_guard(ctx, parse_verify_print, &job);
  bool out_of_memory = gemmc_context_out_of_memory(ctx);
  gemmc_context_destroy(ctx);
  if (ok && !out_of_memory && job.printed.data)
    fuzz_check_reparse(job.printed.data, job.printed.len, "parse: re-parse");
  free(job.printed.data);
  return 0;
}
