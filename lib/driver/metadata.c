/* Kernel metadata: the launch description from the tt.func signature (the lowering adds shared memory and the block shape), and kernel.json. */
#include <inttypes.h>
#include <string.h>

#include "driver_internal.h"
#include "gemmc/layout.h"
#include "gemmc/limits.h"
#include "gemmc/passes.h"
#include "gemmc/target.h"

#define PTX_MAX_PARAM_BYTES 32764

static bool is_public_func(const ir_op *op) {
  if (op->kind != OP_FUNC || !op->num_regions || !op->regions[0].first) return false; /* declarations */
  const ir_attr *vis = ir_op_get_attr(op, "sym_visibility");
  return !vis || !vis->str || strcmp(vis->str, "private") != 0;
}

static void describe_arg(gemmc_context *ctx, const ir_value *v, const ir_attr *attrs, int index,
                         gemmc_kernel_arg *a) {
  const ir_type *t = v->type;
  a->name = v->name ? v->name : NULL;
  if (!a->name) {
    char buf[32];
    snprintf(buf, sizeof buf, "arg%d", index);
    a->name = ir_strdup(ctx, buf, strlen(buf));
  }
  a->type = ir_type_str(ctx, t);
  a->pointee = NULL;
  memset(&a->tensor_map, 0, sizeof a->tensor_map);
  layout_tma_box box;
  if (t->kind == TY_TENSORDESC && layout_tma_boxes(t, &box)) {
    /* The map the kernel's copies expect (lowering asks layout_tma_boxes too). */
    a->kind = GEMMC_ARG_TENSOR_MAP;
    a->size_bytes = GEMMC_TENSOR_MAP_BYTES;
    a->tensor_map.elem = ir_type_str(ctx, t->elem);
    a->tensor_map.rank = t->rank;
    for (int d = 0; d < t->rank; d++) {
      a->tensor_map.block[d] = (int)t->shape[d];
      a->tensor_map.box[d] = box.box[t->rank - 1 - d];
    }
    a->tensor_map.swizzle_bytes = box.swizzle_bytes;
  } else if (t->kind == TY_PTR) {
    a->kind = GEMMC_ARG_POINTER;
    a->pointee = t->elem ? ir_type_str(ctx, t->elem) : "";
    a->size_bytes = 8;
  } else if (t->kind == TY_FLOAT) {
    a->kind = GEMMC_ARG_FLOAT;
    a->size_bytes = (int)(t->width / 8);
  } else {
    a->kind = GEMMC_ARG_INT;
    a->size_bytes = t->kind == TY_INT ? (int)((t->width + 7) / 8) : 8;
  }
  a->divisibility = 1;
  const ir_attr *d = attrs && attrs->kind == AT_DICT ? ir_dict_get(attrs, "tt.divisibility") : NULL;
  /* The verifier keeps tt.divisibility within int (1 .. 2^30). */
  if (d && d->kind == AT_INT && d->int_value > 0 && d->int_value <= INT32_MAX) a->divisibility = (int)d->int_value;
}

typedef struct axis_walk {
  bool axes[3];
} axis_walk;

static bool note_program_id(ir_op *op, void *user) {
  axis_walk *w = user;
  if (op->kind == OP_GET_PROGRAM_ID || op->kind == OP_GET_NUM_PROGRAMS) {
    int64_t axis = ir_op_get_int_attr(op, "axis", 0);
    if (axis >= 0 && axis < 3) w->axes[axis] = true;
  }
  return true;
}

bool metadata_from_module(gemmc_context *ctx, ir_op *module, gemmc_kernel_metadata *md) {
  memset(md, 0, sizeof *md);
  ir_op *kernel = NULL;
  int num_public = 0;
  ir_block *body = module->num_regions ? module->regions[0].first : NULL;
  for (ir_op *op = body ? body->first : NULL; op; op = op->next) {
    if (!is_public_func(op)) continue;
    if (!kernel) kernel = op;
    num_public++;
  }
  if (!kernel) {
    ir_op_error(ctx, module, "the module has no public tt.func to compile as a kernel");
    return false;
  }
  if (num_public > 1) {
    ir_op_error(ctx, module, "the module has %d public tt.func; gemmc compiles one kernel per file "
                "(make the helpers private)", num_public);
    return false;
  }
  const ir_attr *name = ir_op_get_attr(kernel, "sym_name");
  md->source_name = name && name->str ? name->str : "";
  size_t symbol_len = gemmc_ptx_symbol_name(md->source_name, NULL, 0);
  char *symbol = ir_alloc(ctx, symbol_len + 1);
  gemmc_ptx_symbol_name(md->source_name, symbol, symbol_len + 1);
  md->name = symbol;
  const ir_block *entry = kernel->regions[0].first;
  const ir_attr *arg_attrs = ir_op_get_attr(kernel, "arg_attrs");
  md->num_args = entry->num_args;
  gemmc_kernel_arg *args = ir_alloc(ctx, (size_t)(entry->num_args + 1) * sizeof *args);
  for (int i = 0; i < entry->num_args; i++) {
    const ir_attr *attrs = arg_attrs && arg_attrs->kind == AT_ARRAY && i < arg_attrs->num_elems
                               ? arg_attrs->elems[i] : NULL;
    describe_arg(ctx, entry->args[i], attrs, i, &args[i]);
  }
  md->args = args;
  /* Kernel parameters live in the PTX parameter space: at most 32764 bytes on every target gemmc
   * emits (CUDA 12.1+, sm_70+; ptxas: "uses too much parameter space"). Each parameter is
   * aligned to its size, a tensor map (CUtensorMap, by value) to 64 bytes. (A target property:
   * belongs in the target interface, issue 8.) */
  int64_t param_bytes = 0;
  for (int i = 0; i < entry->num_args; i++) {
    int64_t size = args[i].size_bytes > 0 ? args[i].size_bytes : 1;
    int64_t align = args[i].kind == GEMMC_ARG_TENSOR_MAP ? GEMMC_TENSOR_MAP_ALIGN : size;
    param_bytes = (param_bytes + align - 1) / align * align + size;
  }
  if (param_bytes > PTX_MAX_PARAM_BYTES) {
    ir_op_error(ctx, kernel, "the kernel's %d parameters take %lld bytes; PTX allows at most %d", entry->num_args,
                (long long)param_bytes, PTX_MAX_PARAM_BYTES);
    return false;
  }
  /* Checked: the verifier bounds both, but these numbers go to a launch, so no wraparound. */
  int64_t num_warps = ir_module_int_attr(module, "ttg.num-warps", 4);
  int64_t threads_per_warp = ir_module_int_attr(module, "ttg.threads-per-warp", 32);
  int64_t threads;
  if (num_warps < 1 || threads_per_warp < 1 || __builtin_mul_overflow(num_warps, threads_per_warp, &threads) ||
      threads > GEMMC_MAX_THREADS_PER_BLOCK) {
    ir_op_error(ctx, module, "ttg.num-warps = %lld with %lld threads per warp cannot be launched", (long long)num_warps,
                (long long)threads_per_warp);
    return false;
  }
  md->num_warps = (int)num_warps;
  md->threads_per_warp = (int)threads_per_warp;
  md->threads_per_block = (int)threads;
  md->cluster_size = (int)ir_module_int_attr(module, "gemmc.cluster-size", 1);
  md->programmatic_launch = gemmc_kernel_programmatic_launch(kernel);
  axis_walk w = {{false, false, false}};
  ir_walk(kernel, note_program_id, &w);
  char axes[4] = "";
  int n = 0;
  for (int i = 0; i < 3; i++)
    if (w.axes[i]) axes[n++] = "xyz"[i];
  axes[n] = 0;
  md->grid_axes = ir_strdup(ctx, axes, (size_t)n);
  return true;
}

/* ------------------------------------------------------------------ kernel.json */

/* The length of the UTF-8 sequence at p (1..4), or 0 when it is not valid UTF-8. */
static int utf8_length(const unsigned char *p) {
  int n = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 2 && p[0] < 0xC2) return 0; /* overlong */
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  return n;
}

/* A JSON string. Valid UTF-8 is copied; a byte that is not (kernel names may hold any byte)
 * is written as the code point of the same number (\u00XX), so the file stays valid JSON. */
static void json_string(strbuf *b, const char *s) {
  sb_put(b, "\"", 1);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
    int n = utf8_length(p);
    if (*p == '"' || *p == '\\') {
      sb_put(b, "\\", 1);
      sb_put(b, p, 1);
    } else if (*p < 0x20 || n == 0) {
      sb_printf(b, "\\u%04x", *p);
      n = 1;
    } else {
      sb_put(b, p, (size_t)n);
      p += n;
      continue;
    }
    p++;
  }
  sb_put(b, "\"", 1);
}

static const char *arg_kind_name(gemmc_arg_kind k) {
  switch (k) {
  case GEMMC_ARG_POINTER: return "pointer";
  case GEMMC_ARG_INT: return "int";
  case GEMMC_ARG_FLOAT: return "float";
  case GEMMC_ARG_TENSOR_MAP: return "tensor_map";
  }
  return "int";
}

/* "amdgpu": what the code object's metadata note says (read back from the linked .hsaco). */
static void amdgpu_json(strbuf *b, const gemmc_amdgpu_kernel_info *k) {
  sb_puts(b, ",\n  \"amdgpu\": {\n    \"target\": ");
  json_string(b, k->target);
  sb_printf(b, ",\n    \"code_object_version\": %d", k->code_object_version);
  sb_puts(b, ",\n    \"symbol\": ");
  json_string(b, k->symbol);
  sb_printf(b,
            ",\n    \"kernarg_segment_size\": %d,\n    \"kernarg_segment_align\": %d"
            ",\n    \"lds_bytes\": %" PRId64 ",\n    \"scratch_bytes\": %" PRId64
            ",\n    \"vgpr_count\": %d,\n    \"agpr_count\": %d,\n    \"sgpr_count\": %d"
            ",\n    \"vgpr_spill_count\": %d,\n    \"sgpr_spill_count\": %d"
            ",\n    \"wavefront_size\": %d,\n    \"max_flat_workgroup_size\": %d"
            ",\n    \"uses_dynamic_stack\": %s",
            k->kernarg_segment_size, k->kernarg_segment_align, k->group_segment_fixed_size,
            k->private_segment_fixed_size, k->vgpr_count, k->agpr_count, k->sgpr_count, k->vgpr_spill_count,
            k->sgpr_spill_count, k->wavefront_size, k->max_flat_workgroup_size,
            k->uses_dynamic_stack ? "true" : "false");
  sb_puts(b, ",\n    \"kernargs\": [");
  for (int i = 0; i < k->num_kernargs; i++) {
    const gemmc_kernarg *a = &k->kernargs[i];
    sb_printf(b, "%s\n      {\"offset\": %d, \"size\": %d, \"value_kind\": ", i ? "," : "", a->offset, a->size);
    json_string(b, a->value_kind);
    if (a->address_space) {
      sb_puts(b, ", \"address_space\": ");
      json_string(b, a->address_space);
    }
    sb_printf(b, ", \"hidden\": %s}", a->hidden ? "true" : "false");
  }
  sb_puts(b, k->num_kernargs ? "\n    ]\n  }" : "]\n  }");
}

char *metadata_to_json(gemmc_context *ctx, const gemmc_kernel_metadata *md, size_t *len) {
  strbuf b;
  sb_init(&b, ctx);
  sb_puts(&b, "{\n  \"gemmc_version\": ");
  json_string(&b, gemmc_version());
  sb_puts(&b, ",\n  \"kernel\": ");
  json_string(&b, md->name);
  sb_puts(&b, ",\n  \"source_name\": ");
  json_string(&b, md->source_name);
  sb_puts(&b, ",\n  \"target\": ");
  json_string(&b, md->target);
  if (md->ptx_version)
    sb_printf(&b, ",\n  \"ptx_version\": \"%d.%d\"", md->ptx_version / 10, md->ptx_version % 10);
  sb_printf(&b, ",\n  \"num_warps\": %d,\n  \"threads_per_warp\": %d,\n  \"threads_per_block\": %d",
            md->num_warps, md->threads_per_warp, md->threads_per_block);
  sb_printf(&b, ",\n  \"block\": [%d, 1, 1]", md->threads_per_block);
  sb_printf(&b, ",\n  \"cluster\": [%d, 1, 1]", md->cluster_size);
  sb_printf(&b, ",\n  \"programmatic_launch\": %s", md->programmatic_launch ? "true" : "false");
  sb_puts(&b, ",\n  \"grid_axes\": ");
  json_string(&b, md->grid_axes);
  sb_printf(&b, ",\n  \"static_shared_bytes\": %" PRId64 ",\n  \"dynamic_shared_bytes\": %" PRId64,
            md->static_shared_bytes, md->dynamic_shared_bytes);
  sb_puts(&b, ",\n  \"args\": [");
  for (int i = 0; i < md->num_args; i++) {
    const gemmc_kernel_arg *a = &md->args[i];
    sb_puts(&b, i ? ",\n    {" : "\n    {");
    sb_puts(&b, "\"name\": ");
    json_string(&b, a->name);
    sb_puts(&b, ", \"type\": ");
    json_string(&b, a->type);
    sb_printf(&b, ", \"kind\": \"%s\"", arg_kind_name(a->kind));
    if (a->pointee) {
      sb_puts(&b, ", \"pointee\": ");
      json_string(&b, a->pointee);
    }
    sb_printf(&b, ", \"size\": %d, \"divisibility\": %d", a->size_bytes, a->divisibility);
    if (a->kind == GEMMC_ARG_TENSOR_MAP) {
      const gemmc_tensor_map_info *m = &a->tensor_map;
      sb_printf(&b, ", \"align\": %d, \"elem\": ", GEMMC_TENSOR_MAP_ALIGN);
      json_string(&b, m->elem);
      for (int k = 0; k < 2; k++) {
        sb_puts(&b, k ? ", \"box\": [" : ", \"block\": [");
        for (int d = 0; d < m->rank; d++) sb_printf(&b, "%s%d", d ? ", " : "", k ? m->box[d] : m->block[d]);
        sb_puts(&b, "]");
      }
      sb_printf(&b, ", \"swizzle_bytes\": %d", m->swizzle_bytes);
    }
    sb_puts(&b, "}");
  }
  sb_puts(&b, md->num_args ? "\n  ]" : "]");
  if (md->amdgpu) amdgpu_json(&b, md->amdgpu);
  sb_puts(&b, ",\n  \"constants\": {");
  for (int i = 0; i < md->num_constants; i++) {
    sb_puts(&b, i ? ", " : "");
    json_string(&b, md->constant_names[i]);
    sb_puts(&b, ": ");
    json_string(&b, md->constant_values[i]);
  }
  sb_puts(&b, "}\n}\n");
  if (!b.data || gemmc_context_out_of_memory(ctx)) {
    sb_free(&b);
    return NULL;
  }
  /* Hand over a buffer of exactly len + 1 bytes so the owner knows what to free. */
  char *text = ctx_raw_alloc(ctx, b.len + 1);
  if (text) memcpy(text, b.data, b.len + 1);
  *len = b.len;
  sb_free(&b);
  return text;
}
