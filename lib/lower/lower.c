/* TTGIR -> LLVM IR: the module, one LLVM kernel per public tt.func (signature, thread coordinates, shared memory), the body through the dispatch. */
#include "lower.h"

#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>

#include "gemmc/gemmc.h"
#include "lower_dispatch.h"
#include "lower_ops.h"

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
  lower_state_forget_function(s);
  gemmc_allocation_free(s->alloc);
  s->alloc = NULL;
}

static bool widest_specialization(ir_op *op, void *user) {
  int *warps = user;
  if (op->kind == OP_WARP_SPECIALIZE) {
    const ir_op *module = ir_op_ancestor_of_kind(op, OP_MODULE);
    int w = lower_warp_specialize_total_warps(op, (int)ir_module_int_attr(module, "ttg.num-warps", 4));
    if (w > *warps) *warps = w;
  }
  return true;
}

static bool sets_registers(ir_op *op, void *user) {
  if (op->kind == OP_WARP_SPECIALIZE && ir_op_get_attr(op, "actualRegisters")) *(bool *)user = true;
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
  int in_place[16], num_in_place = 0;
  for (int i = 0; i < nargs; i++) {
    const ir_type *t = entry->args[i]->type;
    if (t->kind == TY_TENSORDESC) {
      /* A descriptor built on the host: a CUtensorMap passed by value (Triton's launcher and
       * gemmc_runtime_encode_tensor_map make it), addressed in place. */
      if (!s->cg->mark_params_in_place || num_in_place == (int)(sizeof in_place / sizeof in_place[0])) {
        ir_op_error(s->ctx, func, "kernel argument %d of type '%s': %s", i, ir_type_str(s->ctx, t),
                    s->cg->mark_params_in_place ? "at most 16 tensor descriptor arguments are supported"
                                                : "tensor descriptors need TMA (NVIDIA sm_90 or newer)");
        return false;
      }
      in_place[num_in_place++] = i;
      params[i] = LLVMPointerTypeInContext(s->llctx, 0);
      continue;
    }
    if (ir_type_is_tensor(t) || !(params[i] = lower_elem_type(s, t))) {
      ir_op_error(s->ctx, func, "kernel argument %d of type '%s' cannot be lowered (scalars and pointers only)", i,
                  ir_type_str(s->ctx, t));
      return false;
    }
  }
  /* The PTX symbol: the name escaped into a valid PTX identifier (kernel.json keeps both). */
  size_t symbol_len = gemmc_ptx_symbol_name(name, NULL, 0);
  char *symbol = lower_alloc(s, symbol_len + 1);
  if (!symbol) return false;
  gemmc_ptx_symbol_name(name, symbol, symbol_len + 1);
  LLVMValueRef fn = LLVMAddFunction(s->mod, symbol, LLVMFunctionType(s->voidt, params, (unsigned)nargs, 0));
  size_t got_len = 0;
  const char *got = LLVMGetValueName2(fn, &got_len);
  if (got_len != symbol_len || memcmp(got, symbol, symbol_len) != 0) { /* LLVM renamed it */
    ir_op_error(s->ctx, func, "kernel name '%s' clashes with a symbol gemmc's lowering defines", name);
    return false;
  }
  s->fn = fn;
  s->func = func;
  /* Warp specialization adds its partitions' warps to the block, and budgets registers with
   * setmaxnreg from a known starting point: the most that fit the block. */
  int total_warps = s->num_warps;
  bool set_regs = false;
  ir_walk(func, widest_specialization, &total_warps);
  ir_walk(func, sets_registers, &set_regs);
  int threads = total_warps * s->threads_per_warp;
  int max_regs = set_regs ? (65536 / threads / 8) * 8 : 0;
  if (max_regs > 255) max_regs = 248;
  s->kernel_max_registers = max_regs;
  target_kernel_attrs attrs = {threads, max_regs};
  s->cg->mark_kernel(&s->em, fn, &attrs);
  if (num_in_place) s->cg->mark_params_in_place(&s->em, fn, in_place, num_in_place, GEMMC_TENSOR_MAP_BYTES, 64);
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
  t->first_warp = 0;
  t->barrier_id = 0;
  t->barrier_value = NULL;
  t->replica = NULL;
  t->layouts = NULL;
  LLVMPositionBuilderBefore(t->pro, br);
  LLVMPositionBuilderBefore(s->b, br);
  t->tid = s->cg->thread_id(&s->em);
  LLVMValueRef tpw = lower_i32(s, s->threads_per_warp);
  t->lane = LLVMBuildURem(s->b, t->tid, tpw, "lane");
  t->warp = LLVMBuildUDiv(s->b, t->tid, tpw, "warp");
  s->threads = t;
  LLVMPositionBuilderAtEnd(s->b, body_bb);
  if (!lower_programmatic_launch_begin(s, func)) return false;
  if (!lower_tma_kernel_begin(s, func)) return false;

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
  lower_tma_kernel_end(s);
  LLVMBuildRetVoid(s->b);
  if (!lower_pack_half_phis(s, fn)) {
    ir_op_error(s->ctx, func, "out of memory lowering the kernel");
    return false;
  }

  if (info) {
    info->name = name;
    info->num_params = (int)LLVMCountParams(fn);
    info->num_warps = total_warps;
    info->threads_per_warp = s->threads_per_warp;
    info->threads_per_block = threads;
    info->shared_bytes = gemmc_allocation_total(s->alloc) + s->tma_extra_shared;
  }
  return true;
}

/* Bytes of the fixed-size arrays the module defines in shared memory (definitions; the dynamic
 * array is only declared). */
static int64_t fixed_shared_bytes(lower_state *s) {
  int64_t bytes = 0;
  LLVMTargetDataRef layout = NULL;
  for (LLVMValueRef g = LLVMGetFirstGlobal(s->mod); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != s->cg->shared_addr_space || !LLVMGetInitializer(g)) continue;
    if (!layout) layout = LLVMCreateTargetData(LLVMGetDataLayoutStr(s->mod));
    bytes += (int64_t)LLVMABISizeOfType(layout, LLVMGlobalGetValueType(g));
  }
  if (layout) LLVMDisposeTargetData(layout);
  return bytes;
}

bool gemmc_lower_to_llvm(gemmc_context *ctx, ir_op *module, const gemmc_target *target, bool fp_fusion,
                         LLVMContextRef llvm_ctx, LLVMModuleRef *out, gemmc_lowered_kernel *kernels, int max_kernels,
                         int *num_kernels) {
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
  int num_warps = (int)ir_module_int_attr(module, "ttg.num-warps", 4);
  int threads_per_warp = (int)ir_module_int_attr(module, "ttg.threads-per-warp", target->warp_size);
  if (threads_per_warp != target->warp_size) {
    ir_op_error(ctx, module, "%s targets need %d threads per warp, not %d",
                target->arch == GEMMC_ARCH_NVPTX ? "NVIDIA" : "AMD", target->warp_size, threads_per_warp);
    return false;
  }
  const ir_attr *mname = ir_op_get_attr(module, "sym_name");
  lower_state st;
  lower_state *s = &st;
  lower_state_init(s, ctx, target, cg, llvm_ctx, mname && mname->str ? mname->str : "gemmc", num_warps, threads_per_warp);
  s->fp_fusion = fp_fusion;
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
  int64_t fixed = ok ? fixed_shared_bytes(s) : 0;
  for (int i = 0; kernels && i < count && i < max_kernels; i++) kernels[i].static_shared_bytes = fixed;
  if (s->axis) axis_info_free(s->axis);
  lower_state_dispose(s);
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
