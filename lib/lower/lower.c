/* TTGIR -> LLVM IR driver: module and kernel creation, the value map, op dispatch. */
#include "lower.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>

#include "lower_internal.h"
#include "lower_tensorcore.h"

/* ---------------------------------------------------------------- memory */

void *lower_alloc(lower_state *s, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (!s->chunks || s->chunks->cap - s->chunks->used < size) {
    size_t cap = size > 65536 ? size : 65536;
    lower_chunk *c = malloc(sizeof *c + cap);
    if (!c) {
      s->oom = true;
      return NULL;
    }
    c->next = s->chunks;
    c->used = 0;
    c->cap = cap;
    s->chunks = c;
  }
  void *p = s->chunks->data + s->chunks->used;
  s->chunks->used += size;
  memset(p, 0, size);
  return p;
}

lower_values *lower_values_new(lower_state *s, const ir_op *op, int n) {
  lower_values *vals = lower_alloc(s, sizeof *vals);
  LLVMValueRef *v = lower_alloc(s, sizeof(LLVMValueRef) * (size_t)(n > 0 ? n : 1));
  if (!vals || !v) {
    ir_op_error(s->ctx, op, "out of memory while lowering to LLVM IR");
    return NULL;
  }
  vals->n = n;
  vals->v = v;
  return vals;
}

/* ---------------------------------------------------------------- value map */

static size_t hash_ptr(const void *p) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= (uintptr_t)0x9E3779B97F4A7C15ull;
  return (size_t)(x ^ (x >> 29));
}

static bool map_grow(lower_state *s) {
  lower_value_map *m = &s->map;
  size_t cap = m->cap ? m->cap * 2 : 1024;
  const ir_value **keys = calloc(cap, sizeof *keys);
  lower_values **vals = calloc(cap, sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    s->oom = true;
    return false;
  }
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = hash_ptr(m->keys[i]) & (cap - 1);
    while (keys[j]) j = (j + 1) & (cap - 1);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
  return true;
}

/* The map holds pointers to lowered values in the lowering's chunks, never the values
 * themselves: callers keep what lower_get returns across later lower_set calls (a loop keeps
 * its bounds while its body is lowered), and a table that grows must not move them. */
bool lower_set(lower_state *s, const ir_value *v, const lower_values *vals) {
  lower_value_map *m = &s->map;
  if ((m->count + 1) * 2 > m->cap && !map_grow(s)) {
    ir_error(s->ctx, v->loc, "out of memory while lowering to LLVM IR");
    return false;
  }
  lower_values *stable = lower_alloc(s, sizeof *stable);
  if (!stable) {
    ir_error(s->ctx, v->loc, "out of memory while lowering to LLVM IR");
    return false;
  }
  *stable = *vals;
  size_t j = hash_ptr(v) & (m->cap - 1);
  while (m->keys[j] && m->keys[j] != v) j = (j + 1) & (m->cap - 1);
  if (!m->keys[j]) m->count++;
  m->keys[j] = v;
  m->vals[j] = stable;
  return true;
}

bool lower_set1(lower_state *s, const ir_value *v, LLVMValueRef x) {
  LLVMValueRef *one = lower_alloc(s, sizeof *one);
  if (!one) return false;
  one[0] = x;
  lower_values vals = {1, one};
  return lower_set(s, v, &vals);
}

const lower_values *lower_get(lower_state *s, const ir_op *op, const ir_value *v) {
  lower_value_map *m = &s->map;
  if (m->cap) {
    size_t j = hash_ptr(v) & (m->cap - 1);
    while (m->keys[j]) {
      if (m->keys[j] == v) return m->vals[j];
      j = (j + 1) & (m->cap - 1);
    }
  }
  ir_op_error(s->ctx, op, "internal error: operand of '%s' was not lowered", ir_op_name(op));
  return NULL;
}

LLVMValueRef lower_elem(const lower_values *vals, int i) { return vals->n == 1 ? vals->v[0] : vals->v[i]; }

/* ---------------------------------------------------------------- types and helpers */

LLVMTypeRef lower_elem_type(lower_state *s, const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  switch (e->kind) {
  case TY_INT: return LLVMIntTypeInContext(s->llctx, e->width);
  case TY_INDEX: return s->i64;
  case TY_PTR: return LLVMPointerTypeInContext(s->llctx, (unsigned)e->addr_space);
  case TY_FLOAT:
    switch (e->float_kind) {
    case FLT_F16: return LLVMHalfTypeInContext(s->llctx);
    case FLT_BF16: return LLVMBFloatTypeInContext(s->llctx);
    case FLT_F32: return s->f32;
    case FLT_F64: return LLVMDoubleTypeInContext(s->llctx);
    case FLT_TF32: return s->f32;
    default: return s->i8; /* fp8: storage only */
    }
  default: return NULL;
  }
}

int lower_elem_bytes(const ir_type *t) {
  const ir_type *e = ir_type_element(t);
  if (e->kind == TY_PTR || e->kind == TY_INDEX) return 8;
  int bits = (int)e->width;
  return bits < 8 ? 1 : bits / 8;
}

LLVMValueRef lower_i32(lower_state *s, int64_t v) { return LLVMConstInt(s->i32, (unsigned long long)v, 1); }

LLVMValueRef lower_call(lower_state *s, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n) {
  return target_call(&s->em, name, ret, args, n);
}

void lower_barrier(lower_state *s) { s->cg->barrier(&s->em); }

LLVMValueRef lower_smem_ptr(lower_state *s, int64_t byte_offset, LLVMTypeRef elem, LLVMValueRef index) {
  LLVMValueRef base = s->smem;
  if (byte_offset) {
    LLVMValueRef off = lower_i32(s, byte_offset);
    base = LLVMBuildGEP2(s->b, s->i8, base, &off, 1, "");
  }
  return LLVMBuildGEP2(s->b, elem, base, &index, 1, "");
}

int64_t lower_scratch_offset(lower_state *s, const ir_op *op) {
  return gemmc_allocation_offset(s->alloc, op);
}

/* ---------------------------------------------------------------- dispatch */

static bool lower_unsupported(lower_state *s, ir_op *op) {
  ir_op_error(s->ctx, op, "lowering of '%s' is not implemented yet", ir_op_name(op));
  return false;
}

bool lower_op(lower_state *s, ir_op *op) {
  switch (op->kind) {
  case OP_GET_PROGRAM_ID:
  case OP_GET_NUM_PROGRAMS: return lower_program_id(s, op);
  case OP_MAKE_RANGE:
  case OP_SPLAT:
  case OP_EXPAND_DIMS:
  case OP_BROADCAST:
  case OP_RESHAPE:
  case OP_ADDPTR:
  case OP_LOAD:
  case OP_STORE: return lower_memory(s, op);
  case OP_SCF_FOR:
  case OP_SCF_IF: return lower_control(s, op);
  case OP_REDUCE: return lower_reduce(s, op);
  case OP_CONVERT_LAYOUT: return lower_is_convert_to_mma_operand(op) ? lower_convert_to_dot_operand(s, op) : lower_convert(s, op);
  case OP_DOT: return lower_dot(s, op);
  case OP_LOCAL_ALLOC:
  case OP_LOCAL_LOAD:
  case OP_LOCAL_STORE:
  case OP_LOCAL_DEALLOC:
  case OP_MEMDESC_INDEX: return lower_local_memory(s, op);
  case OP_ASYNC_COPY:
  case OP_ASYNC_COMMIT_GROUP:
  case OP_ASYNC_WAIT: return lower_async(s, op);
  case OP_WARP_GROUP_DOT:
  case OP_WARP_GROUP_DOT_WAIT: return lower_wgmma(s, op);
  case OP_IN_THREAD_TRANSPOSE: return lower_convert(s, op); /* registers only, as a conversion */
  case OP_ROCDL_SETPRIO:
  case OP_ROCDL_SCHED_BARRIER: return lower_sched_hint(s, op);
  case OP_INT_TO_PTR:
  case OP_PTR_TO_INT:
  case OP_TT_BITCAST:
  case OP_FP_TO_FP:
  case OP_CONSTANT: return lower_elementwise(s, op);
  default:
    if (op->kind >= OP_ADDI && op->kind <= OP_FMA) return lower_elementwise(s, op);
    return lower_unsupported(s, op);
  }
}

ir_op *lower_block(lower_state *s, ir_block *block, bool *ok) {
  *ok = true;
  for (ir_op *op = block->first; op; op = op->next) {
    if (ir_op_info_of(op->kind)->traits & TRAIT_TERMINATOR) return op;
    if (!lower_op(s, op) || s->oom) {
      if (s->oom) ir_op_error(s->ctx, op, "out of memory while lowering to LLVM IR");
      *ok = false;
      return NULL;
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------- kernels */

static const ir_attr *arg_attr(const ir_op *func, int index, const char *name) {
  const ir_attr *arg_attrs = ir_op_get_attr(func, "arg_attrs");
  if (!arg_attrs || arg_attrs->kind != AT_ARRAY || index >= arg_attrs->num_elems) return NULL;
  const ir_attr *dict = arg_attrs->elems[index];
  return dict && dict->kind == AT_DICT ? ir_dict_get(dict, name) : NULL;
}

static void add_param_attr(lower_state *s, LLVMValueRef fn, unsigned index, const char *name, uint64_t value) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, index, LLVMCreateEnumAttribute(s->llctx, kind, value));
}

static void state_free_function(lower_state *s) {
  free(s->map.keys);
  free(s->map.vals);
  memset(&s->map, 0, sizeof s->map);
  s->kernel_threads.layouts = NULL; /* lives in the chunks */
  while (s->chunks) {
    lower_chunk *next = s->chunks->next;
    free(s->chunks);
    s->chunks = next;
  }
  gemmc_allocation_free(s->alloc);
  s->alloc = NULL;
}

static bool note_warpgroup_mma(ir_op *op, void *user) {
  if (op->kind == OP_WARP_GROUP_DOT) *(bool *)user = true;
  return true;
}

static bool lower_function(lower_state *s, ir_op *func, gemmc_lowered_kernel *info) {
  const ir_attr *name_attr = ir_op_get_attr(func, "sym_name");
  const char *name = name_attr && name_attr->str ? name_attr->str : "kernel";
  ir_block *entry = ir_region_entry(&func->regions[0]);
  if (!entry) {
    ir_op_error(s->ctx, func, "cannot lower a tt.func without a body");
    return false;
  }
  const ir_attr *fty_attr = ir_op_get_attr(func, "function_type");
  if (fty_attr && fty_attr->type && fty_attr->type->num_results > 0) {
    ir_op_error(s->ctx, func, "lowering of a tt.func with results is not implemented yet (kernels return nothing)");
    return false;
  }
  int nargs = entry->num_args;
  LLVMTypeRef *params = lower_alloc(s, sizeof(LLVMTypeRef) * (size_t)(nargs + 1));
  if (!params) return false;
  for (int i = 0; i < nargs; i++) {
    const ir_type *t = entry->args[i]->type;
    if (ir_type_is_tensor(t) || !(params[i] = lower_elem_type(s, t))) {
      ir_op_error(s->ctx, func, "kernel argument %d of type '%s' cannot be lowered (scalars and pointers only)", i,
                  ir_type_str(s->ctx, t));
      return false;
    }
  }
  LLVMValueRef fn = LLVMAddFunction(s->mod, name, LLVMFunctionType(s->voidt, params, (unsigned)nargs, 0));
  s->fn = fn;
  s->func = func;
  int threads = s->num_warps * s->threads_per_warp;
  target_kernel_attrs attrs = {threads};
  s->cg->mark_kernel(&s->em, fn, &attrs);
  for (int i = 0; i < nargs; i++) {
    const ir_type *t = entry->args[i]->type;
    LLVMValueRef p = LLVMGetParam(fn, (unsigned)i);
    if (entry->args[i]->name) LLVMSetValueName2(p, entry->args[i]->name, strlen(entry->args[i]->name));
    if (t->kind == TY_PTR) {
      add_param_attr(s, fn, (unsigned)i + 1, "noalias", 0);
      const ir_attr *div = arg_attr(func, i, "tt.divisibility");
      if (div && div->kind == AT_INT && div->int_value > 1 && (div->int_value & (div->int_value - 1)) == 0)
        add_param_attr(s, fn, (unsigned)i + 1, "align", (uint64_t)div->int_value);
    }
    if (!lower_set1(s, entry->args[i], p)) return false;
  }

  s->tensor_core_reads_shared = false;
  ir_walk(func, note_warpgroup_mma, &s->tensor_core_reads_shared);
  s->alloc = gemmc_allocation_run(s->ctx, func);
  if (!s->alloc) {
    ir_op_error(s->ctx, func, "out of memory in the shared-memory allocation");
    return false;
  }
  LLVMBasicBlockRef pro_bb = LLVMAppendBasicBlockInContext(s->llctx, fn, "entry");
  LLVMBasicBlockRef body_bb = LLVMAppendBasicBlockInContext(s->llctx, fn, "body");
  LLVMPositionBuilderAtEnd(s->b, pro_bb);
  LLVMValueRef br = LLVMBuildBr(s->b, body_bb);
  /* Thread coordinates, once: every layout's lane/warp index math goes into this block too. */
  lower_threads *t = &s->kernel_threads;
  t->num_warps = s->num_warps;
  t->layouts = NULL;
  LLVMPositionBuilderBefore(t->pro, br);
  LLVMPositionBuilderBefore(s->b, br);
  t->tid = s->cg->thread_id(&s->em);
  LLVMValueRef tpw = lower_i32(s, s->threads_per_warp);
  t->lane = LLVMBuildURem(s->b, t->tid, tpw, "lane");
  t->warp = LLVMBuildUDiv(s->b, t->tid, tpw, "warp");
  s->threads = t;
  LLVMPositionBuilderAtEnd(s->b, body_bb);

  bool ok;
  ir_op *term = lower_block(s, entry, &ok);
  if (!ok) return false;
  if (!term || term->kind != OP_RETURN) {
    ir_op_error(s->ctx, func, "a kernel body must end with tt.return");
    return false;
  }
  if (term->num_operands > 0) {
    ir_op_error(s->ctx, term, "lowering of tt.return with values is not implemented yet");
    return false;
  }
  LLVMBuildRetVoid(s->b);

  int64_t smem = gemmc_allocation_total(s->alloc);
  if (info) {
    info->name = name;
    info->num_warps = s->num_warps;
    info->threads_per_warp = s->threads_per_warp;
    info->threads_per_block = threads;
    info->static_shared_bytes = smem;
  }
  return true;
}

bool gemmc_lower_to_llvm(gemmc_context *ctx, ir_op *module, const gemmc_target *target, LLVMContextRef llvm_ctx,
                         LLVMModuleRef *out, gemmc_lowered_kernel *kernels, int max_kernels, int *num_kernels) {
  if (out) *out = NULL;
  if (num_kernels) *num_kernels = 0;
  if (!module || module->kind != OP_MODULE || !target || !llvm_ctx || !out) {
    if (module) ir_op_error(ctx, module, "gemmc_lower_to_llvm needs a module, a target and an LLVM context");
    return false;
  }
  const target_codegen *cg = target_codegen_of(target);
  if (!cg) {
    ir_op_error(ctx, module, "lowering for target '%s' is not implemented yet (NVIDIA targets only)", target->name);
    return false;
  }
  lower_state st;
  memset(&st, 0, sizeof st);
  lower_state *s = &st;
  s->ctx = ctx;
  s->target = target;
  s->cg = cg;
  s->llctx = llvm_ctx;
  s->num_warps = (int)ir_module_int_attr(module, "ttg.num-warps", 4);
  s->threads_per_warp = (int)ir_module_int_attr(module, "ttg.threads-per-warp", target->warp_size);
  if (s->threads_per_warp != target->warp_size) {
    ir_op_error(ctx, module, "%s targets need %d threads per warp, not %d",
                target->arch == GEMMC_ARCH_NVPTX ? "NVIDIA" : "AMD", target->warp_size, s->threads_per_warp);
    return false;
  }
  const ir_attr *mname = ir_op_get_attr(module, "sym_name");
  s->mod = LLVMModuleCreateWithNameInContext(mname && mname->str ? mname->str : "gemmc", llvm_ctx);
  LLVMSetTarget(s->mod, target->triple);
  s->b = LLVMCreateBuilderInContext(llvm_ctx);
  s->kernel_threads.pro = LLVMCreateBuilderInContext(llvm_ctx);
  s->em = (target_emitter){llvm_ctx, s->mod, s->b};
  s->i1 = LLVMInt1TypeInContext(llvm_ctx);
  s->i8 = LLVMInt8TypeInContext(llvm_ctx);
  s->i16 = LLVMInt16TypeInContext(llvm_ctx);
  s->i32 = LLVMInt32TypeInContext(llvm_ctx);
  s->i64 = LLVMInt64TypeInContext(llvm_ctx);
  s->f32 = LLVMFloatTypeInContext(llvm_ctx);
  s->voidt = LLVMVoidTypeInContext(llvm_ctx);
  s->gptr = LLVMPointerTypeInContext(llvm_ctx, cg->global_addr_space);
  s->sptr = LLVMPointerTypeInContext(llvm_ctx, cg->shared_addr_space);
  /* Dynamic shared memory: one external array; every buffer is an offset into it. */
  s->smem = LLVMAddGlobalInAddressSpace(s->mod, LLVMArrayType2(s->i8, 0), "global_smem", cg->shared_addr_space);
  LLVMSetLinkage(s->smem, LLVMExternalLinkage);
  LLVMSetAlignment(s->smem, 16);
  s->axis = axis_info_run(ctx, module);
  bool ok = s->axis != NULL;
  if (!ok) ir_op_error(ctx, module, "out of memory in the axis-info analysis");
  int count = 0;
  ir_block *body = ir_region_entry(&module->regions[0]);
  for (ir_op *op = body ? body->first : NULL; op && ok; op = op->next) {
    if (op->kind != OP_FUNC) continue;
    const ir_attr *vis = ir_op_get_attr(op, "sym_visibility");
    if (vis && vis->str && strcmp(vis->str, "private") == 0) continue; /* reached by tt.call only */
    gemmc_lowered_kernel info;
    ok = lower_function(s, op, &info);
    if (ok && kernels && count < max_kernels) kernels[count] = info;
    if (ok) count++;
    state_free_function(s);
  }
  state_free_function(s);
  if (s->axis) axis_info_free(s->axis);
  LLVMDisposeBuilder(s->b);
  LLVMDisposeBuilder(s->kernel_threads.pro);
  if (ok) {
    char *msg = NULL;
    if (LLVMVerifyModule(s->mod, LLVMReturnStatusAction, &msg)) {
      ir_op_error(ctx, module, "internal error: the lowered LLVM module does not verify: %s", msg ? msg : "");
      ok = false;
    }
    LLVMDisposeMessage(msg);
  }
  if (!ok) {
    LLVMDisposeModule(s->mod);
    return false;
  }
  if (num_kernels) *num_kernels = count;
  *out = s->mod;
  return true;
}
