/* The pass registry: the table of passes built from passes.def, lookup by name, the pass context, and the one option parser. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/passes.h"

/* The table ends with a sentinel so that it is a valid array even when passes.def is empty. */
static const gemmc_pass_info pass_table[] = {
#define GEMMC_PASS(name, alias, fn, options, help) {name, alias, options, help, fn},
#include "gemmc/passes.def"
#undef GEMMC_PASS
    {NULL, NULL, NULL, NULL, NULL},
};

enum { PASS_COUNT = (int)(sizeof pass_table / sizeof pass_table[0]) - 1 };

const gemmc_pass_info *gemmc_pass_lookup(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < PASS_COUNT; i++) {
    const gemmc_pass_info *p = &pass_table[i];
    if (strcmp(p->name, name) == 0) return p;
    if (p->alias && strcmp(p->alias, name) == 0) return p;
  }
  return NULL;
}

const gemmc_pass_info *gemmc_pass_list(int *count) {
  if (count) *count = PASS_COUNT;
  return pass_table;
}

/* ------------------------------------------------------------------ the context */

bool gemmc_pass_context_init(gemmc_pass_context *pc, gemmc_context *ctx, ir_op *module, const gemmc_target *target,
                             FILE *out) {
  memset(pc, 0, sizeof *pc);
  pc->ctx = ctx;
  pc->out = out;
  pc->target = target;
  if (!pc->target) {
    const ir_attr *t = ir_op_get_attr(module, "ttg.target");
    if (t && t->kind == AT_STRING) {
      pc->target = gemmc_target_from_triton(t->str, t->str_len);
      if (!pc->target) {
        ir_op_error(ctx, module, "unknown ttg.target '%.*s' (known: cuda:80, cuda:86, cuda:89, cuda:90, hip:gfx942, "
                    "or a gemmc target name)", (int)t->str_len, t->str);
        return false;
      }
    }
  }
  pc->num_warps = (int)ir_module_int_attr(module, "ttg.num-warps", 4);
  pc->threads_per_warp = (int)ir_module_int_attr(module, "ttg.threads-per-warp", pc->target ? pc->target->warp_size : 32);
  pc->num_ctas = (int)ir_module_int_attr(module, "ttg.num-ctas", 1);
  pc->num_stages = 3;
  pc->max_shared = pc->target ? pc->target->shared_mem_per_block : 0;
  pc->opt_level = -1;
  pc->kpack = 1;
  pc->tma = 1;
  pc->warp_specialize = 1;
  pc->cluster_size = 1;
  pc->fp_fusion = true;
  return true;
}

/* ------------------------------------------------------------------ options */

typedef enum option_kind { OPT_INT, OPT_TARGET, OPT_EMIT, OPT_PATH } option_kind;

/* Every option any pass takes: its key, how it is read, its range, where it goes. */
typedef struct option_spec {
  const char *key;
  option_kind kind;
  int64_t min, max;
  bool power_of_two;
} option_spec;

static const option_spec option_specs[] = {
    {"num-warps", OPT_INT, 1, 64, true},
    {"threads-per-warp", OPT_INT, 32, 64, true},
    {"num-ctas", OPT_INT, 1, 16, true},
    {"num-stages", OPT_INT, 1, 16, false},
    {"max-shared", OPT_INT, 0, INT64_C(1) << 30, false},
    {"opt", OPT_INT, 0, 3, false},
    {"matrix-instr-nonkdim", OPT_INT, 0, 32, false},
    {"kpack", OPT_INT, 1, 2, false},
    {"tma", OPT_INT, 0, 2, false},
    {"warp-specialize", OPT_INT, 0, GEMMC_WS_MODE_ON, false},
    {"cluster-size", OPT_INT, 1, 2, false},
    {"fp-fusion", OPT_INT, 0, 1, false},
    {"target", OPT_TARGET, 0, 0, false},
    {"emit", OPT_EMIT, 0, 0, false},
    {"output", OPT_PATH, 0, 0, false},
};

static const option_spec *find_spec(const char *key, size_t len) {
  for (size_t i = 0; i < sizeof option_specs / sizeof option_specs[0]; i++)
    if (strlen(option_specs[i].key) == len && memcmp(option_specs[i].key, key, len) == 0) return &option_specs[i];
  return NULL;
}

/* True when `key` (len bytes) is one of the space-separated words of `list`. */
static bool in_word_list(const char *list, const char *key, size_t len) {
  for (const char *p = list; p && *p;) {
    while (*p == ' ') p++;
    const char *e = p;
    while (*e && *e != ' ') e++;
    if ((size_t)(e - p) == len && memcmp(p, key, len) == 0) return true;
    p = e;
  }
  return false;
}

/* Options are written "a=1,b=2" (our form) or "a=1 b=2" (MLIR's pass option form, as in
 * Triton's lit tests), possibly inside braces; any of these characters separates entries. */
static bool is_option_separator(char c) { return c == ',' || c == '{' || c == '}' || isspace((unsigned char)c); }

static bool set_int_option(gemmc_pass_context *pc, const option_spec *spec, int64_t v) {
  if (!strcmp(spec->key, "num-warps")) pc->num_warps = (int)v;
  else if (!strcmp(spec->key, "threads-per-warp")) pc->threads_per_warp = (int)v;
  else if (!strcmp(spec->key, "num-ctas")) pc->num_ctas = (int)v;
  else if (!strcmp(spec->key, "num-stages")) pc->num_stages = (int)v;
  else if (!strcmp(spec->key, "max-shared")) pc->max_shared = v;
  else if (!strcmp(spec->key, "opt")) pc->opt_level = (int)v;
  else if (!strcmp(spec->key, "matrix-instr-nonkdim")) pc->matrix_instr_nonkdim = (int)v;
  else if (!strcmp(spec->key, "kpack")) pc->kpack = (int)v;
  else if (!strcmp(spec->key, "tma")) pc->tma = (int)v;
  else if (!strcmp(spec->key, "warp-specialize")) pc->warp_specialize = (int)v;
  else if (!strcmp(spec->key, "cluster-size")) pc->cluster_size = (int)v;
  else if (!strcmp(spec->key, "fp-fusion")) pc->fp_fusion = v != 0;
  else return false;
  return true;
}

bool gemmc_pass_apply_options(gemmc_pass_context *pc, const gemmc_pass_info *pass, ir_op *module,
                              const char *options) {
  bool first = true, explicit_max_shared = false, explicit_threads = false, target_changed = false;
  for (const char *p = options; p && *p;) {
    while (*p && is_option_separator(*p)) p++;
    if (!*p) break;
    const char *entry = p;
    while (*p && !is_option_separator(*p)) p++;
    size_t entry_len = (size_t)(p - entry);
    const char *eq = memchr(entry, '=', entry_len);
    size_t key_len = eq ? (size_t)(eq - entry) : entry_len;
    const char *value = eq ? eq + 1 : NULL;
    size_t value_len = eq ? (size_t)(p - value) : 0;
    bool was_first = first;
    first = false;
    if (!eq && was_first && pass->run == gemmc_pass_pipeline) {
      /* The pipeline pass names its pipeline first. */
      pc->pipeline = ir_intern_string(pc->ctx, entry, entry_len);
      continue;
    }
    const option_spec *spec = find_spec(entry, key_len);
    if (!spec || !in_word_list(pass->options, entry, key_len)) {
      ir_op_error(pc->ctx, module, "--%s: unknown option '%.*s' (it takes: %s)", pass->name, (int)key_len, entry,
                  pass->options && *pass->options ? pass->options : "no options");
      return false;
    }
    if (!eq || value_len == 0) {
      ir_op_error(pc->ctx, module, "--%s: option '%s' needs a value (%s=...)", pass->name, spec->key, spec->key);
      return false;
    }
    switch (spec->kind) {
    case OPT_INT: {
      char digits[32];
      int64_t v = 0;
      bool ok = value_len < sizeof digits;
      if (ok) {
        memcpy(digits, value, value_len);
        digits[value_len] = 0;
        char *end = NULL;
        errno = 0;
        long long parsed = strtoll(digits, &end, 10);
        ok = errno == 0 && end != digits && *end == 0;
        v = parsed;
      }
      bool bad_nonkdim = !strcmp(spec->key, "matrix-instr-nonkdim") && v != 0 && v != 16 && v != 32;
      if (bad_nonkdim) {
        ir_op_error(pc->ctx, module, "--%s: matrix-instr-nonkdim must be 0, 16 or 32, not '%.*s'", pass->name,
                    (int)value_len, value);
        return false;
      }
      if (!ok || v < spec->min || v > spec->max || (spec->power_of_two && (v & (v - 1)) != 0)) {
        ir_op_error(pc->ctx, module, "--%s: %s must be %s integer from %lld to %lld, not '%.*s'", pass->name,
                    spec->key, spec->power_of_two ? "a power-of-two" : "an", (long long)spec->min,
                    (long long)spec->max, (int)value_len, value);
        return false;
      }
      set_int_option(pc, spec, v);
      break;
    }
    case OPT_TARGET: {
      const gemmc_target *t = gemmc_target_from_triton(value, value_len);
      if (!t) {
        ir_op_error(pc->ctx, module, "--%s: unknown target '%.*s' (sm_80, sm_86, sm_89, sm_90, sm_90a, gfx942, or "
                    "Triton's cuda:NN / hip:gfxNNN)", pass->name, (int)value_len, value);
        return false;
      }
      pc->target = t;
      break;
    }
    case OPT_EMIT:
      if (value_len == 3 && !memcmp(value, "ptx", 3)) pc->emit_ptx = true;
      else if (value_len == 4 && !memcmp(value, "llvm", 4)) pc->emit_ptx = false;
      else {
        ir_op_error(pc->ctx, module, "--%s: emit must be llvm or ptx, not '%.*s'", pass->name, (int)value_len, value);
        return false;
      }
      break;
    case OPT_PATH: pc->output = ir_intern_string(pc->ctx, value, value_len); break;
    }
    if (spec->kind == OPT_INT && !strcmp(spec->key, "max-shared")) explicit_max_shared = true;
    if (spec->kind == OPT_INT && !strcmp(spec->key, "threads-per-warp")) explicit_threads = true;
    if (spec->kind == OPT_TARGET) target_changed = true;
  }
  /* A target named here also brings its shared-memory budget and (for a module that does not
   * say) its warp size, unless they are given. */
  if (target_changed && !explicit_max_shared) pc->max_shared = pc->target->shared_mem_per_block;
  if (target_changed && !explicit_threads && !ir_op_get_attr(module, "ttg.threads-per-warp"))
    pc->threads_per_warp = pc->target->warp_size;
  return true;
}

bool gemmc_pass_run(gemmc_context *ctx, const gemmc_pass_info *pass, ir_op *module, const char *options,
                    const gemmc_target *target, FILE *out) {
  gemmc_pass_context pc;
  if (!gemmc_pass_context_init(&pc, ctx, module, target, out)) return false;
  if (!gemmc_pass_apply_options(&pc, pass, module, options)) return false;
  return pass->run(&pc, module);
}
