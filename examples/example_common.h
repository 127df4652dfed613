/* Shared by the example host programs: arguments, compiling a .tir with libgemmc, loading it through the runtime shim. */
#ifndef GEMMC_EXAMPLE_COMMON_H
#define GEMMC_EXAMPLE_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gemmc/gemmc.h"
#include "gemmc/runtime.h"

#ifndef GEMMC_EXAMPLES_DIR
#define GEMMC_EXAMPLES_DIR "examples"
#endif

#define EXAMPLE_MAX_ARGS 16

/* Command line: an optional .tir path (default: $GEMMC_EXAMPLES_DIR or the source tree's examples/), `key=value` sizes (lower case: n=1000, seed=7) and
 * compile-time constants (upper case: BLOCK=512, passed to gemmc as -D). */
typedef struct example_args {
  const char *tir_path;
  gemmc_define defines[EXAMPLE_MAX_ARGS];
  int num_defines;
  const char *keys[EXAMPLE_MAX_ARGS];
  long values[EXAMPLE_MAX_ARGS];
  int num_values;
  gemmc_backend backend; /* --backend cuda|hip */
} example_args;

/* Everything one example holds; example_finish releases it. */
typedef struct example {
  const char *name;
  gemmc_context *ctx;
  gemmc_compiled *compiled;
  const gemmc_kernel_metadata *kernel;
  gemmc_runtime *rt; /* NULL without a driver */
  gemmc_runtime_module *module;
  gemmc_runtime_kernel *function;
  uint64_t seed;
} example;

static bool example_parse_args(int argc, char **argv, const char *default_file, example_args *a) {
  static char default_path[4096];
  memset(a, 0, sizeof *a);
  /* $GEMMC_EXAMPLES_DIR wins over the build's folder: the binaries may travel to another machine. */
  const char *dir = getenv("GEMMC_EXAMPLES_DIR");
  snprintf(default_path, sizeof default_path, "%s/%s", dir && *dir ? dir : GEMMC_EXAMPLES_DIR, default_file);
  a->tir_path = default_path;
  a->backend = GEMMC_BACKEND_CUDA;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--backend") || !strncmp(argv[i], "--backend=", 10)) {
      const char *v = argv[i][9] == '=' ? argv[i] + 10 : i + 1 < argc ? argv[++i] : "";
      if (!strcmp(v, "cuda")) a->backend = GEMMC_BACKEND_CUDA;
      else if (!strcmp(v, "hip")) a->backend = GEMMC_BACKEND_HIP;
      else {
        fprintf(stderr, "bad --backend '%s' (expected cuda or hip)\n", v);
        return false;
      }
      continue;
    }
    char *eq = strchr(argv[i], '=');
    if (!eq) {
      a->tir_path = argv[i];
      continue;
    }
    if (a->num_defines == EXAMPLE_MAX_ARGS || a->num_values == EXAMPLE_MAX_ARGS) {
      fprintf(stderr, "too many arguments\n");
      return false;
    }
    *eq = 0;
    if (argv[i][0] >= 'A' && argv[i][0] <= 'Z') {
      a->defines[a->num_defines].name = argv[i];
      a->defines[a->num_defines++].value = eq + 1;
    } else {
      char *end = NULL;
      long v = strtol(eq + 1, &end, 10);
      if (!*(eq + 1) || *end || v < 0) {
        fprintf(stderr, "bad value '%s' for %s (expected a non-negative integer)\n", eq + 1, argv[i]);
        return false;
      }
      a->keys[a->num_values] = argv[i];
      a->values[a->num_values++] = v;
    }
  }
  return true;
}

static long example_arg(const example_args *a, const char *key, long default_value) {
  for (int i = 0; i < a->num_values; i++)
    if (!strcmp(a->keys[i], key)) return a->values[i];
  return default_value;
}

static char *example_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (text && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (!text) {
    fprintf(stderr, "%s: cannot read\n", path);
    return NULL;
  }
  text[size] = 0;
  *len = (size_t)size;
  return text;
}

/* xorshift64*: reproducible from the printed seed. */
static uint64_t example_next(uint64_t *state) {
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}
/* Uniform in [lo, hi). */
static float example_uniform(uint64_t *state, float lo, float hi) {
  return lo + (hi - lo) * (float)((example_next(state) >> 40) * (1.0 / 16777216.0));
}

/* Returns 1 when the program should run the kernel, 0 when there is no CUDA driver (the message
 * is printed; exit 0), -1 on an error, no HIP runtime included (printed; exit 1). */
static int example_start(const char *name, const example_args *a, example *ex) {
  memset(ex, 0, sizeof *ex);
  ex->name = name;
  ex->seed = (uint64_t)example_arg(a, "seed", 0);
  if (!ex->seed) ex->seed = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
  bool hip = a->backend == GEMMC_BACKEND_HIP;
  gemmc_status st = gemmc_runtime_create(a->backend, 0, &ex->rt);
  bool no_driver = st.code == GEMMC_ERROR_NO_DRIVER;
  /* Without a CUDA driver the kernel still compiles to PTX; without a HIP runtime nothing here
   * can be checked, so that is an error. */
  if (st.code != GEMMC_OK && (!no_driver || hip)) {
    fprintf(stderr, "%s: %s\n", name, st.message);
    return -1;
  }

  gemmc_compile_options opts;
  gemmc_compile_options_init(&opts);
  if (ex->rt && gemmc_runtime_device_info(ex->rt)->target_name[0])
    opts.target = gemmc_runtime_device_info(ex->rt)->target_name;
  else if (hip)
    opts.target = "gfx942";
  if (hip) opts.stage = GEMMC_STAGE_HSACO;
  opts.defines = a->defines;
  opts.num_defines = a->num_defines;
  size_t len = 0;
  char *text = example_read_file(a->tir_path, &len);
  if (!text) return -1;
  ex->ctx = gemmc_context_create();
  bool ok = ex->ctx && gemmc_compile(ex->ctx, text, len, a->tir_path, &opts, &ex->compiled);
  free(text);
  if (!ok) {
    fprintf(stderr, "%s: compiling %s failed\n%s", name, a->tir_path,
            ex->compiled ? gemmc_compiled_diagnostics(ex->compiled) : "out of memory\n");
    return -1;
  }
  ex->kernel = gemmc_compiled_kernel(ex->compiled);
  size_t image_len = 0;
  const void *image = hip ? gemmc_compiled_hsaco(ex->compiled, &image_len) : gemmc_compiled_ptx(ex->compiled, &image_len);
  if (no_driver) {
    printf("no CUDA driver: compiled %s to PTX (%zu bytes), skipping the run\n", name, image_len);
    return 0;
  }
  st = gemmc_runtime_module_load(ex->rt, image, image_len, &ex->module);
  if (st.code == GEMMC_OK) st = gemmc_runtime_module_get_kernel(ex->rt, ex->module, ex->kernel->name, &ex->function);
  if (st.code == GEMMC_OK && ex->kernel->dynamic_shared_bytes > 48 * 1024)
    st = gemmc_runtime_kernel_set_max_dynamic_shared(ex->rt, ex->function, (int)ex->kernel->dynamic_shared_bytes);
  if (st.code != GEMMC_OK) {
    fprintf(stderr, "%s: %s\n", name, st.message);
    return -1;
  }
  printf("%s: %s on %s (%s), %d threads per block, seed %llu\n", name, ex->kernel->name,
         gemmc_runtime_device_info(ex->rt)->name, ex->kernel->target, ex->kernel->threads_per_block,
         (unsigned long long)ex->seed);
  return 1;
}

/* Launches over grid (gx, gy) with the kernel's block size and shared memory, then waits. */
static gemmc_status example_launch(example *ex, unsigned gx, unsigned gy, void **args) {
  gemmc_launch_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.grid[0] = gx;
  cfg.grid[1] = gy;
  cfg.grid[2] = 1;
  cfg.block[0] = (unsigned)ex->kernel->threads_per_block;
  cfg.block[1] = cfg.block[2] = 1;
  cfg.dynamic_shared_bytes = (unsigned)ex->kernel->dynamic_shared_bytes;
  gemmc_status st = gemmc_runtime_launch(ex->rt, ex->function, &cfg, args);
  if (st.code == GEMMC_OK) st = gemmc_runtime_synchronize(ex->rt);
  return st;
}

/* The value of compile-time constant `name` the kernel was built with (a -D or the file's
 * default; kernel.json's "constants"), or -1. */
static long example_constant(const example *ex, const char *name) {
  const char *v = gemmc_kernel_constant(ex->kernel, name);
  return v ? strtol(v, NULL, 10) : -1;
}

static void example_finish(example *ex) {
  if (ex->module) gemmc_runtime_module_unload(ex->rt, ex->module);
  gemmc_runtime_destroy(ex->rt);
  gemmc_compiled_destroy(ex->compiled);
  gemmc_context_destroy(ex->ctx);
}

/* Poison: a quiet NaN with a recognizable payload, so untouched outputs fail every check. */
#define EXAMPLE_POISON 0x7fc0deadu

#define EXAMPLE_CHECK(ex, call)                                     \
  do {                                                              \
    gemmc_status check_status_ = (call);                            \
    if (check_status_.code != GEMMC_OK) {                           \
      fprintf(stderr, "%s: %s\n", (ex)->name, check_status_.message); \
      goto fail;                                                    \
    }                                                               \
  } while (0)

#endif
