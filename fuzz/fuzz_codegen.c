/* libFuzzer target (c): the whole compiler to PTX (lowering, LLVM, NVPTX), or to AMDGCN for modules whose ttg.target names an AMD GPU; every PTX a successful compile makes must assemble with ptxas (where present). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "gemmc/target.h"

/* PTX texts already assembled (by hash): mutants that change nothing in the PTX are not sent to
 * ptxas again, which keeps the check cheap enough to run on every success. */
#define SEEN_CAP (1u << 16)
#define MAX_PTXAS_BYTES (256u << 10)
static uint64_t seen[SEEN_CAP];
static unsigned num_seen;
static int have_ptxas = -1;

static uint64_t hash_text(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h ? h : 1;
}

static bool first_time(uint64_t h) {
  for (unsigned i = h & (SEEN_CAP - 1), probes = 0; probes < SEEN_CAP; i = (i + 1) & (SEEN_CAP - 1), probes++) {
    if (seen[i] == h) return false;
    if (!seen[i]) {
      if (num_seen * 2 < SEEN_CAP) { /* past half full: check every time */
        seen[i] = h;
        num_seen++;
      }
      return true;
    }
  }
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (have_ptxas < 0) have_ptxas = getenv("GEMMC_FUZZ_NO_PTXAS") ? 0 : gemmc_target_find_ptxas(NULL, 0);
  gemmc_context *ctx = fuzz_context();
  if (!ctx) return 0;
  gemmc_compile_options opts;
  fuzz_compile_options(data, size, &opts);
  /* A module for an AMD GPU (the AMD tests and Triton's gfx942 TTGIR among the seeds) goes
   * through the AMDGPU lowering and code generation instead (gemmc refuses another vendor's
   * module, so these would stop at that check). */
  static const char *const amd_targets[] = {"gfx942", "gfx90a"};
  for (int i = 0; i < 2; i++) {
    char needle[16];
    snprintf(needle, sizeof needle, "\"hip:%s\"", amd_targets[i]);
    if (fuzz_contains(data, size, needle)) {
      opts.target = amd_targets[i];
      opts.stage = GEMMC_STAGE_AMDGCN;
      break;
    }
  }
  gemmc_compiled *out = NULL;
  bool ok = gemmc_compile(ctx, (const char *)data, size, "fuzz.tir", &opts, &out);
  if (!out) fuzz_finding("codegen: gemmc_compile left *out NULL", NULL);
  const char *diags = gemmc_compiled_diagnostics(out);
  if (!ok && !strstr(diags, "error")) fuzz_finding("codegen: a failed compile without an error", diags);
  size_t len = 0;
  bool amd = opts.stage == GEMMC_STAGE_AMDGCN;
  const char *ptx = ok && !amd ? gemmc_compiled_ptx(out, &len) : NULL;
  if (ok && ((amd ? !gemmc_compiled_amdgcn(out, NULL) : !ptx) || !gemmc_compiled_kernel(out) ||
             !gemmc_compiled_metadata_json(out, NULL)))
    fuzz_finding("codegen: success without PTX (AMDGCN), kernel or kernel.json", NULL);
  /* ptxas' own optimizer takes minutes on PTX of a megabyte (a 47 000-line kernel: 77 s of
   * CPU, while gemmc made it in 1.2 s): larger texts are not sent, so an iteration stays within
   * the fuzzer's time limit. A kernel with inline asm carries the input's own PTX text, which
   * gemmc passes through as it is (as Triton does): ptxas may rightly reject that. */
  bool user_asm = fuzz_contains(data, size, "elementwise_inline_asm");
  if (ptx && !user_asm && have_ptxas > 0 && len <= MAX_PTXAS_BYTES && first_time(hash_text(ptx, len))) {
    char report[4096], err[8192];
    const gemmc_target *t = gemmc_target_lookup("sm_90a", NULL, 0);
    if (!gemmc_target_run_ptxas(ptx, t, NULL, report, sizeof report, err, sizeof err)) {
      fprintf(stderr, "---- PTX:\n%.*s\n", (int)(len > 20000 ? 20000 : len), ptx);
      fuzz_finding("codegen: ptxas rejects the PTX of a successful compile", err);
    }
  }
  gemmc_compiled_destroy(out);
  gemmc_context_destroy(ctx);
  return 0;
}
