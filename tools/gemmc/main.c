/* gemmc: the compiler driver; .tir (Triton TTIR or TTGIR) -> PTX (or TTGIR, LLVM IR, cubin, AMDGCN, .hsaco) plus kernel.json. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/aot.h"
#include "gemmc/gemmc.h"
#include "gemmc/limits.h"
#include "gemmc/target.h"
#include "tool_args.h"
#include "tool_files.h"

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };
#define MAX_DEFINES 256

typedef struct driver_options {
  const char *input;         /* "-" is stdin */
  const char *output;        /* NULL: derived from the input; "-" is stdout */
  const char *metadata;      /* NULL: beside the output; "" (--no-metadata): none */
  bool metadata_given;
  gemmc_compile_options compile;
  gemmc_define defines[MAX_DEFINES];
  bool print_ptxas_report;
  bool emit_given; /* without --emit: PTX for NVIDIA targets, a code object for AMD ones */
  bool print_times; /* --time */
  bool emit_c;      /* --emit=c: a .c + .h pair (gemmc/aot.h) */
} driver_options;

static void driver_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void driver_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("gemmc: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void print_usage(FILE *f) {
  fputs("usage: gemmc INPUT.tir [-o OUTPUT] [options]\n"
        "Compiles a Triton TTIR or TTGIR kernel (.tir) to PTX and writes OUTPUT's kernel.json beside it.\n"
        "\n"
        "  -o FILE                  output file ('-' for stdout; default: INPUT with the emitted extension)\n"
        "  --target=sm_75|sm_80|sm_86|sm_89|sm_90|sm_90a|gfx90a|gfx942   GPU to compile for (default sm_90a)\n"
        "  --num-warps=N            warps per block for TTIR input (default 4; TTGIR keeps its own)\n"
        "  --num-stages=N           K-loop pipelining depth for TTIR input (cp.async stages on NVIDIA, default 3;\n"
        "                           AMD: 2 or more is the 2-stage register pipeline; 0 and 1: off)\n"
        "  --emit=ttgir|llvm|ptx|cubin|amdgcn|hsaco   what to write (default ptx, hsaco for AMD targets;\n"
        "                           cubin needs ptxas on PATH, hsaco ld.lld-19)\n"
        "  --waves-per-eu=N         AMD: ask for N waves per SIMD (1-8; registers per wave <= 512/N)\n"
        "  --matrix-instr-nonkdim=16|32   AMD: the MFMA instruction's M = N\n"
        "  --kpack=1|2              AMD: MFMA K groups per LDS read\n"
        "  --tma=auto|on|off        sm_90+: TMA copies for the K loop's operand loads (auto: where the\n"
        "                           warp-specialized kernel uses them; on: wherever legal)\n"
        "  --warp-specialize=auto|on|off|ping-pong|pairs   sm_90a: persistent producer/consumer kernels;\n"
        "                           auto (default): 4-warp kernels with >= 32 KiB stages, 8-warp ones that load\n"
        "                           through descriptors or whose loop has tt.warp_specialize (other 8-warp\n"
        "                           kernels keep cp.async rings); on: wherever legal; for 4-warp kernels\n"
        "                           ping-pong (alternate tiles) or pairs (two programs sharing a B tile at once)\n"
        "                           forces the consumer groups' plan\n"
        "  --cluster=1|2            sm_90a: 2 gives 8-warp kernels the warp-specialized kernel, cluster-ready\n"
        "                           (launch it in clusters of 2 blocks along x; the pair shares B tiles through\n"
        "                           TMA multicast), and the 4-warp pairs kernel (the pair shares A tiles)\n"
        "  --fp-fusion=on|off       let a * b + c contract into one fma (default on, as Triton's\n"
        "                           enable_fp_fusion)\n"
        "  --emit=c                 OUTPUT.c and OUTPUT.h: the PTX (and the cubin when ptxas is on PATH)\n"
        "                           with a loader and a typed launcher that need only the CUDA driver\n"
        "  -D NAME=VALUE            set the compile-time constant $NAME / ${NAME} (repeatable)\n"
        "  -O0 -O1 -O2 -O3          LLVM optimization level (default -O3)\n"
        "  --metadata=FILE          where to write kernel.json (default: OUTPUT with .json)\n"
        "  --no-metadata            do not write kernel.json\n"
        "  --verify-each            run the IR verifier after every pass\n"
        "  -v                       print ptxas' resource report (with --emit=cubin)\n"
        "  --time                   print each compile phase's wall time (ms) to stderr\n"
        "  --help, --version\n"
        "INPUT '-' reads standard input.\n",
        f);
}

static void usage_error(const char *fmt, const char *arg) {
  fputs("gemmc: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\nTry 'gemmc --help' for the options.\n", stderr);
}

/* `--name=value`, `--name value`: the value, advancing *i when it is the next argument. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  *missing = false;
  if (strncmp(arg, name, n) != 0) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != 0) return NULL;
  if (*i + 1 >= argc) {
    *missing = true;
    return NULL;
  }
  return argv[++*i];
}

/* An integer option's value; each option checks its own range after this loose one. */
static bool parse_int(const char *text, int *out) { return tool_parse_int(text, -1000000, 1000000, out); }

static bool valid_target(const char *name) {
  int count = 0;
  const gemmc_target *list = gemmc_target_list(&count);
  for (int i = 0; i < count; i++)
    if (strcmp(list[i].name, name) == 0) return true;
  char valid[256] = "";
  for (int i = 0; i < count; i++) {
    size_t used = strlen(valid);
    snprintf(valid + used, sizeof valid - used, "%s%s", used ? ", " : "", list[i].name);
  }
  driver_error("unknown target '%s' (valid targets: %s)", name, valid);
  return false;
}

/* Returns EXIT_OK to go on, or the exit status. */
static int parse_args(int argc, char **argv, driver_options *o) {
  gemmc_compile_options_init(&o->compile);
  o->compile.defines = o->defines;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i];
    const char *v;
    bool missing = false;
    if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
      print_usage(stdout);
      exit(EXIT_OK);
    }
    if (!strcmp(arg, "--version")) {
      printf("gemmc %s\n", gemmc_version());
      exit(EXIT_OK);
    }
    if (!strcmp(arg, "-") || arg[0] != '-') {
      if (o->input) {
        usage_error("more than one input file ('%s')", arg);
        return EXIT_USAGE;
      }
      o->input = arg;
      continue;
    }
    if (!strncmp(arg, "-o", 2) && strncmp(arg, "-o=", 3)) {
      if (arg[2]) {
        o->output = arg + 2;
      } else if (i + 1 < argc) {
        o->output = argv[++i];
      } else {
        usage_error("%s needs a file name", arg);
        return EXIT_USAGE;
      }
      continue;
    }
    if (!strncmp(arg, "-D", 2)) {
      const char *def = arg[2] ? arg + 2 : (i + 1 < argc ? argv[++i] : NULL);
      if (!def) {
        usage_error("%s needs NAME=VALUE", arg);
        return EXIT_USAGE;
      }
      const char *eq = strchr(def, '=');
      if (!eq || eq == def || !eq[1]) {
        driver_error("bad -D '%s' (expected -D NAME=VALUE)", def);
        return EXIT_FAILED;
      }
      if (o->compile.num_defines == MAX_DEFINES) {
        driver_error("more than %d -D options", MAX_DEFINES);
        return EXIT_FAILED;
      }
      /* The name is cut out of argv in place: argv strings are ours to modify (C11 5.1.2.2.1). */
      ((char *)eq)[0] = 0;
      o->defines[o->compile.num_defines].name = def;
      o->defines[o->compile.num_defines].value = eq + 1;
      o->compile.num_defines++;
      continue;
    }
    if (arg[1] == 'O' && arg[2] >= '0' && arg[2] <= '3' && !arg[3]) {
      o->compile.opt_level = arg[2] - '0';
      continue;
    }
    if (arg[1] == 'O') {
      driver_error("bad optimization level '%s' (expected -O0, -O1, -O2 or -O3)", arg);
      return EXIT_FAILED;
    }
    if (!strcmp(arg, "-v")) {
      o->print_ptxas_report = true;
      continue;
    }
    if ((v = option_value(argc, argv, &i, "--target", &missing))) {
      if (!valid_target(v)) return EXIT_FAILED;
      o->compile.target = v;
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--num-warps", &missing))) {
      int n = 0;
      if (!parse_int(v, &n) || n < 1 || n > 32 || (n & (n - 1))) {
        driver_error("bad --num-warps '%s' (expected a power of two from 1 to 32)", v);
        return EXIT_FAILED;
      }
      o->compile.num_warps = n;
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--num-stages", &missing))) {
      int n = 0;
      if (!parse_int(v, &n) || n < 0 || n > 8) {
        driver_error("bad --num-stages '%s' (expected 0 to 8; 0 and 1 turn software pipelining off)", v);
        return EXIT_FAILED;
      }
      /* 0 is Triton's AMD spelling of "no pipelining" (seed 001's ROCm configs), the same as 1. */
      o->compile.num_stages = n ? n : 1;
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--emit", &missing))) {
      static const char *const names[] = {"ttgir", "llvm", "ptx", "cubin", "amdgcn", "hsaco"};
      int k = 0;
      while (k < 6 && strcmp(v, names[k])) k++;
      o->emit_c = !strcmp(v, "c");
      if (k == 6 && !o->emit_c) {
        driver_error("bad --emit '%s' (expected ttgir, llvm, ptx, cubin, amdgcn, hsaco or c)", v);
        return EXIT_FAILED;
      }
      /* C embeds the cubin too when ptxas is there to make one. */
      o->compile.stage = o->emit_c ? (gemmc_target_find_ptxas(NULL, 0) ? GEMMC_STAGE_CUBIN : GEMMC_STAGE_PTX) : (gemmc_stage)k;
      o->emit_given = true;
      continue;
    }
    /* The AMD knobs; gemmc_compile checks their ranges against the target. */
    if (!missing && (v = option_value(argc, argv, &i, "--waves-per-eu", &missing))) {
      if (!parse_int(v, &o->compile.waves_per_eu) || o->compile.waves_per_eu < 0) {
        driver_error("bad --waves-per-eu '%s' (expected 1 to 8; 0: no limit)", v);
        return EXIT_FAILED;
      }
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--matrix-instr-nonkdim", &missing))) {
      if (!parse_int(v, &o->compile.matrix_instr_nonkdim) ||
          (o->compile.matrix_instr_nonkdim != 16 && o->compile.matrix_instr_nonkdim != 32)) {
        driver_error("bad --matrix-instr-nonkdim '%s' (expected 16 or 32)", v);
        return EXIT_FAILED;
      }
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--tma", &missing))) {
      if (strcmp(v, "auto") && strcmp(v, "on") && strcmp(v, "off")) {
        driver_error("bad --tma '%s' (expected auto, on or off)", v);
        return EXIT_FAILED;
      }
      o->compile.tma = !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? -1 : 0;
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--warp-specialize", &missing))) {
      /* In gemmc_compile_options.warp_specialize order, from -1. */
      static const char *const ws_names[] = {"off", "auto", "ping-pong", "pairs", "on"};
      int mode = -1;
      for (int m = 0; m < 5; m++)
        if (!strcmp(v, ws_names[m])) mode = m;
      if (mode < 0) {
        driver_error("bad --warp-specialize '%s' (expected auto, on, off, ping-pong or pairs)", v);
        return EXIT_FAILED;
      }
      o->compile.warp_specialize = mode - 1;
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--cluster", &missing))) {
      if (strcmp(v, "1") && strcmp(v, "2")) {
        driver_error("bad --cluster '%s' (expected 1 or 2)", v);
        return EXIT_FAILED;
      }
      o->compile.cluster_size = v[0] - '0';
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--fp-fusion", &missing))) {
      if (strcmp(v, "on") && strcmp(v, "off")) {
        driver_error("bad --fp-fusion '%s' (expected on or off)", v);
        return EXIT_FAILED;
      }
      o->compile.disable_fp_fusion = !strcmp(v, "off");
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--kpack", &missing))) {
      if (!parse_int(v, &o->compile.kpack) || o->compile.kpack < 1 || o->compile.kpack > 2) {
        driver_error("bad --kpack '%s' (expected 1 or 2)", v);
        return EXIT_FAILED;
      }
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--metadata", &missing))) {
      o->metadata = v;
      o->metadata_given = true;
      continue;
    }
    if (!missing && (v = option_value(argc, argv, &i, "--output", &missing))) {
      o->output = v;
      continue;
    }
    if (missing) {
      usage_error("%s needs a value", arg);
      return EXIT_USAGE;
    }
    if (!strcmp(arg, "--no-metadata")) {
      o->metadata = "";
      o->metadata_given = true;
      continue;
    }
    if (!strcmp(arg, "--time")) {
      o->print_times = true;
      continue;
    }
    if (!strcmp(arg, "--verify-each")) {
      o->compile.verify_each = true;
      continue;
    }
    usage_error("unknown option '%s'", arg);
    return EXIT_USAGE;
  }
  if (!o->input) {
    usage_error("no input file%s", "");
    return EXIT_USAGE;
  }
  const gemmc_target *t = gemmc_target_lookup(o->compile.target, NULL, 0);
  if (!o->emit_given && t && t->arch == GEMMC_ARCH_AMDGPU) o->compile.stage = GEMMC_STAGE_HSACO;
  return EXIT_OK;
}

/* --time: one line per phase, then the sum, so a regression shows which phase it is in. */
static void print_phase_times(const gemmc_phase_times *t) {
  const struct {
    const char *name;
    double ms;
  } rows[] = {
      {"parse + verify", t->parse_ms},   {"TTGIR passes", t->passes_ms},
      {"lower to LLVM IR", t->lower_ms}, {"LLVM optimization", t->llvm_opt_ms},
      {"LLVM codegen", t->codegen_ms},   {"ptxas", t->ptxas_ms},
      {"ld.lld", t->lld_ms},
  };
  double phases = 0;
  fputs("gemmc: compile time (ms):\n", stderr);
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    fprintf(stderr, "  %-20s %9.2f\n", rows[i].name, rows[i].ms);
    phases += rows[i].ms;
  }
  fprintf(stderr, "  %-20s %9.2f\n", "other", t->total_ms > phases ? t->total_ms - phases : 0.0);
  fprintf(stderr, "  %-20s %9.2f\n", "total (gemmc_compile)", t->total_ms);
}

static char *read_input(const char *path, size_t *len_out) {
  bool from_stdin = strcmp(path, "-") == 0;
  FILE *f = from_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    driver_error("cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  /* gemmc_compile refuses more than GEMMC_MAX_INPUT_BYTES: stop reading one byte past it. */
  while (buf && len <= GEMMC_MAX_INPUT_BYTES) {
    if (len == cap) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (n == 0) break;
  }
  bool read_failed = ferror(f);
  if (!from_stdin) fclose(f);
  if (!buf) {
    driver_error("out of memory reading '%s'", path);
    return NULL;
  }
  if (read_failed) {
    driver_error("cannot read '%s'", path);
    free(buf);
    return NULL;
  }
  *len_out = len;
  return buf;
}

static bool write_output(const char *path, const void *data, size_t len) {
  bool to_stdout = strcmp(path, "-") == 0;
  FILE *f = to_stdout ? stdout : fopen(path, "wb");
  if (!f) {
    driver_error("cannot write '%s': %s", path, strerror(errno));
    return false;
  }
  bool ok = fwrite(data, 1, len, f) == len;
  ok = (to_stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
  if (!ok) driver_error("cannot write '%s': %s", path, strerror(errno));
  return ok;
}

/* "dir/kernel.tir" -> "dir/kernel" + ext: the part after the last '/' loses its extension. */
static char *replace_extension(const char *path, const char *ext) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *dot = strrchr(base, '.');
  size_t stem = dot && dot != base ? (size_t)(dot - path) : strlen(path);
  char *out = malloc(stem + strlen(ext) + 1);
  if (!out) return NULL;
  memcpy(out, path, stem);
  strcpy(out + stem, ext);
  return out;
}

/* --emit=c: the .c and .h (main decides their paths before compiling). */
static bool write_c_pair(const char *c_path, const char *h_path, const gemmc_compiled *compiled,
                         const char *source_name) {
  const char *h_base = strrchr(h_path, '/');
  char *c_text = NULL, *h_text = NULL, err[256];
  size_t c_len = 0, h_len = 0;
  bool ok = gemmc_aot_emit_c(compiled, NULL, h_base ? h_base + 1 : h_path, source_name, &c_text, &c_len, &h_text,
                             &h_len, err, sizeof err);
  if (!ok) driver_error("%s", err);
  ok = ok && write_output(c_path, c_text, c_len) && write_output(h_path, h_text, h_len);
  free(c_text);
  free(h_text);
  return ok;
}

int main(int argc, char **argv) {
  driver_options o;
  memset(&o, 0, sizeof o);
  int status = parse_args(argc, argv, &o);
  if (status != EXIT_OK) return status;

  /* Outputs are decided before compiling, so that none can overwrite the input (or each other):
   * -o and --metadata are compared with the input by file identity, not by spelling. --emit=c
   * writes OUTPUT.c and OUTPUT.h (OUTPUT from -o, else the input's name) and nothing else. */
  static const char *const extensions[] = {".ttgir", ".ll", ".ptx", ".cubin", ".amdgcn", ".hsaco"};
  char *derived_output = NULL, *derived_metadata = NULL;
  const char *output = o.output, *metadata = NULL;
  if (o.emit_c) {
    const char *base = o.output ? o.output : o.input;
    if (!strcmp(base, "-")) {
      driver_error("--emit=c writes two files: give -o NAME.c");
      return EXIT_FAILED;
    }
    output = derived_output = replace_extension(base, ".c");
    metadata = derived_metadata = replace_extension(base, ".h");
    if (!metadata) output = NULL;
  } else {
    if (!output)
      output = strcmp(o.input, "-") ? (derived_output = replace_extension(o.input, extensions[o.compile.stage])) : "-";
    /* kernel.json goes beside a PTX, cubin, AMDGCN or code object file; for other outputs only
     * when asked for. */
    metadata = o.metadata;
    if (output && !o.metadata_given && o.compile.stage >= GEMMC_STAGE_PTX && strcmp(output, "-"))
      metadata = derived_metadata = replace_extension(output, ".json");
  }
  const char *second = o.emit_c ? "header" : "metadata"; /* the file written beside the output */
  char clash[64] = "";
  if (!output)
    snprintf(clash, sizeof clash, "out of memory");
  else if (tool_same_file(output, o.input))
    snprintf(clash, sizeof clash, "the output file is the input file");
  else if (metadata && *metadata && tool_same_file(metadata, o.input))
    snprintf(clash, sizeof clash, "the %s file is the input file", second);
  else if (metadata && *metadata && tool_same_file(metadata, output))
    snprintf(clash, sizeof clash, "the %s file is the output file", second);
  if (*clash) {
    driver_error("%s (output '%s', %s '%s'); refusing to overwrite it", clash, output ? output : "", second,
                 metadata && *metadata ? metadata : "none");
    free(derived_output);
    free(derived_metadata);
    return EXIT_FAILED;
  }

  size_t len = 0;
  char *text = read_input(o.input, &len);
  if (!text) {
    free(derived_output);
    free(derived_metadata);
    return EXIT_FAILED;
  }
  gemmc_context *ctx = gemmc_context_create();
  if (!ctx) {
    driver_error("out of memory");
    free(text);
    free(derived_output);
    free(derived_metadata);
    return EXIT_FAILED;
  }
  const char *display_name = strcmp(o.input, "-") ? o.input : "<stdin>";
  gemmc_compiled *compiled = NULL;
  bool ok = gemmc_compile(ctx, text, len, display_name, &o.compile, &compiled);
  free(text);
  if (compiled) fputs(gemmc_compiled_diagnostics(compiled), stderr);
  if (compiled && o.print_times) print_phase_times(gemmc_compiled_phase_times(compiled));
  if (!ok) {
    if (!compiled) driver_error("out of memory");
    gemmc_compiled_destroy(compiled);
    gemmc_context_destroy(ctx);
    free(derived_output);
    free(derived_metadata);
    return EXIT_FAILED;
  }

  if (o.emit_c) {
    ok = write_c_pair(output, metadata, compiled, display_name);
    free(derived_output);
    free(derived_metadata);
    gemmc_compiled_destroy(compiled);
    gemmc_context_destroy(ctx);
    return ok ? EXIT_OK : EXIT_FAILED;
  }
  const void *data = NULL;
  size_t data_len = 0;
  switch (o.compile.stage) {
  case GEMMC_STAGE_TTGIR: data = gemmc_compiled_ttgir(compiled, &data_len); break;
  case GEMMC_STAGE_LLVM: data = gemmc_compiled_llvm_ir(compiled, &data_len); break;
  case GEMMC_STAGE_PTX: data = gemmc_compiled_ptx(compiled, &data_len); break;
  case GEMMC_STAGE_CUBIN: data = gemmc_compiled_cubin(compiled, &data_len); break;
  case GEMMC_STAGE_AMDGCN: data = gemmc_compiled_amdgcn(compiled, &data_len); break;
  case GEMMC_STAGE_HSACO: data = gemmc_compiled_hsaco(compiled, &data_len); break;
  }
  ok = data && write_output(output, data, data_len);
  if (ok && metadata && *metadata) {
    size_t json_len = 0;
    const char *json = gemmc_compiled_metadata_json(compiled, &json_len);
    ok = json && write_output(metadata, json, json_len);
  }
  if (ok && o.print_ptxas_report && gemmc_compiled_ptxas_report(compiled))
    fputs(gemmc_compiled_ptxas_report(compiled), stderr);

  free(derived_output);
  free(derived_metadata);
  gemmc_compiled_destroy(compiled);
  gemmc_context_destroy(ctx);
  return ok ? EXIT_OK : EXIT_FAILED;
}
