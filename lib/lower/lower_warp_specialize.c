/* ttg.warp_specialize: each region runs on its own warps of the block (the default region on the first num-warps warps, partition i on the next partitionNumWarps[i]), with its own thread coordinates, hardware barrier and register budget (setmaxnreg); gemmc.num_workers. */
#include <string.h>

#include "gemmc/passes.h"
#include "gemmc/runtime.h"

#include "lower_dispatch.h"
#include "lower_ops.h"

/*
 * The block is laid out [default warps][partition 0 warps][partition 1 warps]..; the code before
 * the op runs on all of them, then a branch on the warp index sends each warp to its region.
 * A region sees only its own warps: its thread index, lane and warp are relative to its first
 * warp (computed in its own prologue block), its barriers are named barriers of its thread count
 * (id 1 + region index), and every layout's index math is redone for it. Partition regions read
 * the captured operands through their block arguments, which are the same LLVM values (they were
 * computed before the branch, by every thread). All warps meet again after the op.
 *
 * Registers: `actualRegisters` (one entry per region, default first) moves each warpgroup's budget
 * with setmaxnreg at the top of its region; a region's warps must then be whole warpgroups.
 */

enum { MAX_REGIONS = 8 };

static bool registers_of(lower_state *s, const ir_op *op, int *regs) {
  const ir_attr *a = ir_op_get_attr(op, "actualRegisters");
  if (!a) return false;
  if (a->kind != AT_DENSE_ARRAY || a->num_elems != op->num_regions || !s->cg->set_max_registers) return false;
  for (int i = 0; i < op->num_regions; i++) regs[i] = (int)a->ints[i];
  return true;
}

int lower_warp_specialize_total_warps(const ir_op *op, int default_warps) {
  const ir_attr *w = ir_op_get_attr(op, "partitionNumWarps");
  int total = default_warps;
  for (int i = 0; w && w->kind == AT_DENSE_ARRAY && i < w->num_elems; i++) total += (int)w->ints[i];
  return total;
}

/* A kernel whose roles wait for the grid before it lets the grid after it launch at once (that
 * grid's blocks take multiprocessors this one leaves free, or those its blocks give back, and build
 * their slots, maps and barriers up to their own wait), and says so to the runtime through the
 * module global GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL (gemmc/runtime.h). kernel.json says so too
 * (gemmc_kernel_programmatic_launch), so a target without griddepcontrol is an error: the runtime
 * would launch a kernel that does not wait. */
bool lower_programmatic_launch_begin(lower_state *s, ir_op *func) {
  if (!gemmc_kernel_programmatic_launch(func)) return true;
  if (!(s->target->caps & GEMMC_CAP_GRID_DEPENDENCY) || !s->cg->grid_dependency_wait || !s->cg->grid_dependents_launch) {
    ir_op_error(s->ctx, func, "gemmc.programmatic_launch needs grid dependency control (NVIDIA sm_90+), not target %s",
                s->target->name);
    return false;
  }
  s->cg->grid_dependents_launch(&s->em);
  if (LLVMGetNamedGlobal(s->mod, GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL)) return true;
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(s->mod, s->i32, GEMMC_PROGRAMMATIC_LAUNCH_GLOBAL, s->cg->global_addr_space);
  LLVMSetInitializer(g, lower_i32(s, 1));
  LLVMSetAlignment(g, 4);
  return true;
}

bool lower_warp_specialize(lower_state *s, ir_op *op) {
  if (s->threads != &s->kernel_threads) {
    ir_op_error(s->ctx, op, "lowering of a ttg.warp_specialize inside another one is not implemented");
    return false;
  }
  if (op->num_results) {
    ir_op_error(s->ctx, op, "lowering of a ttg.warp_specialize with results is not implemented yet");
    return false;
  }
  int nregions = op->num_regions;
  const ir_attr *pw = ir_op_get_attr(op, "partitionNumWarps");
  if (nregions > MAX_REGIONS || !pw || pw->kind != AT_DENSE_ARRAY || pw->num_elems != nregions - 1) {
    ir_op_error(s->ctx, op, "cannot lower: ttg.warp_specialize needs partitionNumWarps for each of at most %d partitions",
                MAX_REGIONS - 1);
    return false;
  }
  if (!s->cg->barrier_named) {
    ir_op_error(s->ctx, op, "target %s has no named barriers for warp specialization", s->target->name);
    return false;
  }
  /* The roles are where the kernel first touches global memory (lib/transforms/warp_specialize.c,
   * allow_programmatic_launch): a launch behind another grid waits here for it. */
  if (gemmc_ws_programmatic_launch(op)) s->cg->grid_dependency_wait(&s->em);
  int warps[MAX_REGIONS], first[MAX_REGIONS], regs[MAX_REGIONS];
  warps[0] = s->num_warps;
  first[0] = 0;
  for (int i = 1; i < nregions; i++) {
    warps[i] = (int)pw->ints[i - 1];
    first[i] = first[i - 1] + warps[i - 1];
  }
  bool set_regs = registers_of(s, op, regs);
  for (int i = 0; set_regs && i < nregions; i++)
    if (warps[i] % 4 || first[i] % 4 || regs[i] < 24 || regs[i] > 256 || regs[i] % 8) {
      ir_op_error(s->ctx, op, "cannot lower actualRegisters: region %d needs whole warpgroups and 24..256 registers in "
                              "steps of 8",
                  i);
      return false;
    }

  /* Partitions that run the default region as copy k (gemmc.replica_of_default, checked by the
   * verifier): their warps enter the default region's code, which is lowered once, with their
   * own first warp, barrier and copy number coming in through phis. */
  int replica[MAX_REGIONS] = {0};
  int copies = 1;
  const ir_attr *rep = ir_op_get_attr(op, "gemmc.replica_of_default");
  if (rep && rep->kind == AT_DENSE_ARRAY && rep->num_elems == nregions - 1 && rep->ints)
    for (int i = 1; i < nregions; i++)
      if ((replica[i] = (int)rep->ints[i - 1]) > 0) copies++;

  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "ws.join");
  LLVMBasicBlockRef dispatch = LLVMGetInsertBlock(s->b);
  LLVMBasicBlockRef entry_bb[MAX_REGIONS];
  for (int i = 0; i < nregions; i++) entry_bb[i] = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "ws.region");
  LLVMBasicBlockRef copies_bb = copies > 1 ? LLVMAppendBasicBlockInContext(s->llctx, s->fn, "ws.copies") : NULL;
  /* A chain of comparisons: region i owns warps below first[i + 1]. */
  LLVMValueRef warp = s->kernel_threads.warp;
  LLVMPositionBuilderAtEnd(s->b, dispatch);
  for (int i = 0; i < nregions - 1; i++) {
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "ws.dispatch");
    LLVMValueRef mine = LLVMBuildICmp(s->b, LLVMIntULT, warp, lower_i32(s, first[i + 1]), "");
    LLVMBuildCondBr(s->b, mine, entry_bb[i], next);
    LLVMPositionBuilderAtEnd(s->b, next);
  }
  LLVMBuildBr(s->b, entry_bb[nregions - 1]);

  LLVMValueRef copy_first = NULL, copy_barrier = NULL, copy_index = NULL;
  if (copies_bb) {
    LLVMPositionBuilderAtEnd(s->b, copies_bb);
    copy_first = LLVMBuildPhi(s->b, s->i32, "copy.first_warp");
    copy_barrier = LLVMBuildPhi(s->b, s->i32, "copy.barrier");
    copy_index = LLVMBuildPhi(s->b, s->i32, "copy.index");
  }
  bool ok = true;
  for (int i = 0; i < nregions && ok; i++) {
    ir_block *body = ir_region_entry(&op->regions[i]);
    if (!body) {
      ir_op_error(s->ctx, op, "ttg.warp_specialize region %d has no body", i);
      return false;
    }
    LLVMPositionBuilderAtEnd(s->b, entry_bb[i]);
    /* From the kernel's .maxnreg: up for the roles that need more, down for the others. */
    if (set_regs && regs[i] != s->kernel_max_registers)
      s->cg->set_max_registers(&s->em, regs[i] > s->kernel_max_registers, regs[i]);
    if (copies_bb && (i == 0 || replica[i] > 0)) {
      LLVMBuildBr(s->b, copies_bb);
      LLVMValueRef in[3] = {lower_i32(s, first[i]), lower_i32(s, 1 + i), lower_i32(s, replica[i])};
      LLVMValueRef phis[3] = {copy_first, copy_barrier, copy_index};
      for (int k = 0; k < 3; k++) LLVMAddIncoming(phis[k], &in[k], &entry_bb[i], 1);
      if (i > 0) continue; /* the default region's code runs it */
      LLVMPositionBuilderAtEnd(s->b, copies_bb);
    }
    /* The role's prologue block (its thread coordinates and layout index math), then its body. */
    LLVMBasicBlockRef body_bb = LLVMAppendBasicBlockInContext(s->llctx, s->fn, "ws.body");
    LLVMValueRef br = LLVMBuildBr(s->b, body_bb);
    lower_threads role = {0};
    role.num_warps = warps[i];
    role.first_warp = first[i];
    role.barrier_id = 1 + i;
    role.pro = LLVMCreateBuilderInContext(s->llctx);
    LLVMPositionBuilderBefore(role.pro, br);
    LLVMPositionBuilderBefore(s->b, br);
    LLVMValueRef first_warp = lower_i32(s, first[i]);
    if (i == 0 && copies_bb) {
      first_warp = copy_first;
      role.barrier_value = copy_barrier;
      role.replica = copy_index;
    }
    role.tid = LLVMBuildSub(s->b, s->kernel_threads.tid, LLVMBuildMul(s->b, first_warp, lower_i32(s, s->threads_per_warp), ""),
                            "role.tid");
    role.lane = s->kernel_threads.lane;
    role.warp = LLVMBuildSub(s->b, warp, first_warp, "role.warp");
    LLVMPositionBuilderAtEnd(s->b, body_bb);
    for (int a = 0; i > 0 && a < body->num_args && ok; a++) {
      const lower_values *v = lower_get(s, op, op->operands[a].value);
      ok = v && lower_set(s, body->args[a], v);
    }
    s->threads = &role;
    ir_op_kind end = i == 0 ? OP_WARP_YIELD : OP_WARP_RETURN;
    ok = ok && lower_block_until(s, op, body, end, 0, i == 0 ? "the default region" : "a partition") != NULL;
    s->threads = &s->kernel_threads;
    if (ok) LLVMBuildBr(s->b, join);
    LLVMDisposeBuilder(role.pro);
  }
  if (!ok) return false;
  LLVMPositionBuilderAtEnd(s->b, join);
  s->cg->barrier(&s->em);
  return true;
}

/* The programs that run at once: one block per multiprocessor (a warp-specialized kernel
 * budgets a whole multiprocessor's registers; the persistent loop's blocks are that many). The
 * count comes from the module global the runtime sets at load (GEMMC_SM_COUNT_GLOBAL), else from
 * the target (%nsmid counts SM ids, possibly more than there are SMs: blocks past the real count
 * then wait for a second wave, which is slower but still correct). */
bool lower_num_workers(lower_state *s, ir_op *op) {
  if (!s->cg->num_multiprocessors) {
    ir_op_error(s->ctx, op, "target %s cannot count its multiprocessors", s->target->name);
    return false;
  }
  LLVMValueRef g = LLVMGetNamedGlobal(s->mod, GEMMC_SM_COUNT_GLOBAL);
  if (!g) {
    g = LLVMAddGlobalInAddressSpace(s->mod, s->i32, GEMMC_SM_COUNT_GLOBAL, s->cg->global_addr_space);
    LLVMSetInitializer(g, lower_i32(s, 0));
    LLVMSetAlignment(g, 4);
  }
  LLVMValueRef set = LLVMBuildLoad2(s->b, s->i32, g, "sm.count");
  LLVMValueRef have = LLVMBuildICmp(s->b, LLVMIntNE, set, lower_i32(s, 0), "");
  LLVMValueRef count = LLVMBuildSelect(s->b, have, set, s->cg->num_multiprocessors(&s->em), "workers");
  return lower_set1(s, &op->results[0], count);
}
