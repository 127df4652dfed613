/* Shared by the libFuzzer targets: a context per input, the print/re-parse differential check, findings as aborts. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough for any input under GEMMC_MAX_INPUT_BYTES; far under libFuzzer's 2 GB RSS limit. */
#define FUZZ_MEMORY_LIMIT ((size_t)512 << 20)

static void quiet(void *user, ir_diag_severity sev, const ir_loc *loc, const char *message) {
  (void)user;
  (void)sev;
  (void)loc;
  (void)message;
}

gemmc_context *fuzz_context(void) {
  gemmc_context *ctx = gemmc_context_create();
  if (!ctx) return NULL;
  gemmc_context_set_memory_limit(ctx, FUZZ_MEMORY_LIMIT);
  ir_set_diag_handler(ctx, quiet, NULL);
  return ctx;
}

void fuzz_finding(const char *what, const char *detail) {
  fprintf(stderr, "\n==== gemmc fuzz finding: %s\n%s\n", what, detail ? detail : "");
  fflush(stderr);
  abort();
}

bool fuzz_contains(const uint8_t *data, size_t size, const char *needle) {
  size_t n = strlen(needle);
  for (size_t i = 0; i + n <= size; i++)
    if (data[i] == (uint8_t)needle[0] && memcmp(data + i, needle, n) == 0) return true;
  return false;
}

void fuzz_compile_options(const uint8_t *data, size_t size, gemmc_compile_options *opts) {
  gemmc_compile_options_init(opts);
  opts->cluster_size = size & 1 ? 2 : 1;
  if (fuzz_contains(data, size, "// fuzz: num-warps=8")) opts->num_warps = 8;
}

void fuzz_text_append(const char *data, size_t len, void *user) {
  fuzz_text *t = user;
  if (t->len + len + 1 > t->cap) {
    size_t cap = (t->len + len + 1) * 2;
    char *grown = realloc(t->data, cap);
    if (!grown) fuzz_finding("out of host memory printing", NULL);
    t->data = grown;
    t->cap = cap;
  }
  memcpy(t->data + t->len, data, len);
  t->len += len;
  t->data[t->len] = 0;
}

typedef struct reparse_job {
  const char *input;
  size_t len;
  fuzz_text printed;
  bool parsed;
} reparse_job;

static bool parse_and_print(gemmc_context *ctx, void *user) {
  reparse_job *job = user;
  ir_op *module = ir_parse_module(ctx, job->input, job->len, "printed.tir");
  if (!module || ir_error_count(ctx) || !ir_verify(ctx, module)) return false;
  job->parsed = true;
  ir_print_options opts = {false, false};
  ir_print_module(ctx, module, &opts, fuzz_text_append, &job->printed);
  return true;
}

void fuzz_check_reparse(const char *ttgir, size_t len, const char *what) {
  gemmc_context *ctx = fuzz_context();
  if (!ctx) return;
  reparse_job job = {ttgir, len, {NULL, 0, 0}, false};
  bool ok = gemmc_context_guard(ctx, parse_and_print, &job);
  bool out_of_memory = gemmc_context_out_of_memory(ctx);
  gemmc_context_destroy(ctx);
  if (out_of_memory) {
    free(job.printed.data);
    return; /* the limit, not a printer bug */
  }
  if (!ok || !job.parsed) {
    free(job.printed.data);
    fuzz_finding(what, "gemmc printed text that it cannot parse and verify again");
  }
  if (job.printed.len != len || memcmp(job.printed.data, ttgir, len) != 0) {
    fprintf(stderr, "---- printed:\n%.*s\n---- printed again:\n%s\n", (int)(len > 4000 ? 4000 : len), ttgir,
            job.printed.data ? job.printed.data : "");
    free(job.printed.data);
    fuzz_finding(what, "print(parse(printed text)) differs from the printed text");
  }
  free(job.printed.data);
}
