/* NVPTX implementation of the target interface (codegen.h): NVVM intrinsics where LLVM 19 has them, inline PTX where it has not. */
#include "codegen.h"

#include <stdio.h>
#include <string.h>

static LLVMTypeRef i32_type(const target_emitter *e) { return LLVMInt32TypeInContext(e->ctx); }
static LLVMTypeRef void_type(const target_emitter *e) { return LLVMVoidTypeInContext(e->ctx); }

static LLVMValueRef nvptx_thread_id(const target_emitter *e) {
  return target_call(e, "llvm.nvvm.read.ptx.sreg.tid.x", i32_type(e), NULL, 0);
}

static LLVMValueRef nvptx_program_id(const target_emitter *e, int axis) {
  static const char *const names[3] = {"llvm.nvvm.read.ptx.sreg.ctaid.x", "llvm.nvvm.read.ptx.sreg.ctaid.y",
                                       "llvm.nvvm.read.ptx.sreg.ctaid.z"};
  return target_call(e, names[axis], i32_type(e), NULL, 0);
}

static LLVMValueRef nvptx_num_programs(const target_emitter *e, int axis) {
  static const char *const names[3] = {"llvm.nvvm.read.ptx.sreg.nctaid.x", "llvm.nvvm.read.ptx.sreg.nctaid.y",
                                       "llvm.nvvm.read.ptx.sreg.nctaid.z"};
  return target_call(e, names[axis], i32_type(e), NULL, 0);
}

static void nvptx_barrier(const target_emitter *e) { target_call(e, "llvm.nvvm.barrier0", void_type(e), NULL, 0); }

static LLVMValueRef nvptx_shuffle_xor(const target_emitter *e, LLVMValueRef x, int lane_mask) {
  LLVMValueRef args[4] = {target_i32(e, -1), x, target_i32(e, lane_mask), target_i32(e, 0x1f)};
  return target_call(e, "llvm.nvvm.shfl.sync.bfly.i32", i32_type(e), args, 4);
}

/* ---------------------------------------------------------------- global memory: predicated inline PTX */

/* The PTX modifier of a load or store: a cache operator the instruction takes, else an L1
 * eviction priority (the eviction form of ld/st cannot take a cache operator too). */
static void cache_suffix(const target_global_access *a, bool is_store, char *buf, size_t size) {
  static const char *const names[] = {NULL, "ca", "cg", "cs", "cv", "wb", "wt"};
  buf[0] = 0;
  bool takes = is_store ? (a->cache == TARGET_CACHE_WB || a->cache == TARGET_CACHE_CG ||
                           a->cache == TARGET_CACHE_CS || a->cache == TARGET_CACHE_WT)
                        : (a->cache == TARGET_CACHE_CA || a->cache == TARGET_CACHE_CG ||
                           a->cache == TARGET_CACHE_CS || a->cache == TARGET_CACHE_CV);
  if (takes) {
    snprintf(buf, size, ".%s", names[a->cache]);
    return;
  }
  if (a->evict == TARGET_EVICT_FIRST) snprintf(buf, size, ".L1::evict_first");
  else if (a->evict == TARGET_EVICT_LAST) snprintf(buf, size, ".L1::evict_last");
}

static const char *access_width(int words, int bits) {
  if (bits == 8) return ".b8";
  if (bits == 16) return ".b16";
  return words == 4 ? ".v4.b32" : words == 2 ? ".v2.b32" : ".b32";
}

/* "$first" or "{ $first, $first+1, ... }". */
static void operand_list(char *buf, size_t size, int first, int n) {
  size_t len = 0;
  if (n > 1) len += (size_t)snprintf(buf + len, size - len, "{ ");
  for (int k = 0; k < n; k++) len += (size_t)snprintf(buf + len, size - len, "%s$%d", k ? ", " : "", first + k);
  if (n > 1) snprintf(buf + len, size - len, " }");
}

static void nvptx_load_global(const target_emitter *e, const target_global_access *a, LLVMValueRef *words) {
  int nw = a->words;
  LLVMValueRef args[12];
  int na = 0;
  args[na++] = a->ptr;
  if (a->pred) args[na++] = a->pred;
  char text[512], constraints[128], list[96], mods[32];
  size_t tl = 0, cl = 0;
  constraints[0] = 0;
  for (int k = 0; k < nw; k++) cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, "%s=r", k ? "," : "");
  cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",l%s", a->pred ? ",b" : "");
  if (a->pred) {
    /* Masked-off lanes keep `other` (or zero): move it in first, then load under the mask. */
    for (int k = 0; k < nw; k++) {
      LLVMValueRef o = a->other[k];
      if (!o || LLVMIsAConstantInt(o)) {
        unsigned long long imm = o ? LLVMConstIntGetZExtValue(o) : 0;
        tl += (size_t)snprintf(text + tl, sizeof text - tl, "mov.u32 $%d, 0x%llx;\n\t", k, imm);
      } else {
        tl += (size_t)snprintf(text + tl, sizeof text - tl, "mov.u32 $%d, $%d;\n\t", k, nw + na);
        args[na++] = o;
        cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",r");
      }
    }
  }
  cache_suffix(a, false, mods, sizeof mods);
  operand_list(list, sizeof list, 0, nw);
  char guard[16] = "";
  if (a->pred) snprintf(guard, sizeof guard, "@$%d ", nw + 1);
  snprintf(text + tl, sizeof text - tl, "%sld%s.global%s%s %s, [ $%d + 0 ];", guard, a->is_volatile ? ".volatile" : "",
           a->is_volatile ? "" : mods, access_width(nw, a->bits), list, nw);
  LLVMTypeRef rt = i32_type(e);
  if (nw > 1) {
    LLVMTypeRef fields[4] = {rt, rt, rt, rt};
    rt = LLVMStructTypeInContext(e->ctx, fields, (unsigned)nw, 0);
  }
  LLVMValueRef call = target_inline_asm(e, text, constraints, rt, args, na, true);
  if (nw == 1) words[0] = call;
  else
    for (int k = 0; k < nw; k++) words[k] = LLVMBuildExtractValue(e->b, call, (unsigned)k, "");
}

static void nvptx_store_global(const target_emitter *e, const target_global_access *a, LLVMValueRef const *words) {
  int nw = a->words;
  LLVMValueRef args[8];
  int na = 0;
  args[na++] = a->ptr;
  char constraints[64] = "l", list[96], text[256], mods[32];
  size_t cl = 1;
  for (int k = 0; k < nw; k++) {
    args[na++] = words[k];
    cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",r");
  }
  char guard[16] = "";
  if (a->pred) {
    args[na] = a->pred;
    snprintf(guard, sizeof guard, "@$%d ", na);
    na++;
    snprintf(constraints + cl, sizeof constraints - cl, ",b");
  }
  cache_suffix(a, true, mods, sizeof mods);
  operand_list(list, sizeof list, 1, nw);
  snprintf(text, sizeof text, "%sst.global%s%s [ $0 + 0 ], %s;", guard, mods, access_width(nw, a->bits), list);
  target_inline_asm(e, text, constraints, void_type(e), args, na, true);
}

/* ---------------------------------------------------------------- atomics */

/* atom{.sem}{.scope}.global.op.type as Triton spells it, predicated; the result register starts
 * at zero so that a masked-off element reads a defined value. Float operands travel as bits. */
static const char *const atomic_sems[] = {".relaxed", ".acquire", ".release", ".acq_rel"};
static const char *const atomic_scopes[] = {".gpu", ".cta", ".sys"};

/* sm_90's vector atomics (PTX 8.1): one fadd of 2 or 4 consecutive f32, or 2, 4 or 8 f16 / bf16,
 * as Triton issues them for coalesced tiles (a split-K epilogue's tl.atomic_add). */
static LLVMValueRef nvptx_atomic_vector(const target_emitter *e, const target_atomic *a) {
  LLVMTypeRef vt = LLVMTypeOf(a->val), t = LLVMGetElementType(vt);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  int n = a->vec;
  bool f32 = k == LLVMFloatTypeKind, half = k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind;
  if (a->op != TARGET_ATOMIC_FADD || e->compute_capability < 90 || e->ptx_version < 81 || !(f32 || half) ||
      (n != 2 && n != 4 && !(half && n == 8)))
    return NULL;
  int bits = f32 ? 32 : 16;
  char reg = f32 ? 'r' : 'h';
  LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, (unsigned)bits);
  char text[320], constraints[96], outs[64], ins[64];
  size_t ol = 0, il = 0, cl = 0;
  LLVMValueRef args[10];
  int na = 0;
  args[na++] = a->ptr;
  for (int i = 0; i < n; i++) {
    ol += (size_t)snprintf(outs + ol, sizeof outs - ol, "%s$%d", i ? ", " : "", i);
    cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, "%s=%c", i ? "," : "", reg);
  }
  cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",l");
  for (int i = 0; i < n; i++) {
    LLVMValueRef x = LLVMBuildExtractElement(e->b, a->val, target_i32(e, i), "");
    args[na++] = LLVMBuildBitCast(e->b, x, it, "");
    il += (size_t)snprintf(ins + il, sizeof ins - il, "%s$%d", i ? ", " : "", n + na - 1);
    cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",%c", reg);
  }
  args[na++] = a->pred ? a->pred : LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
  snprintf(constraints + cl, sizeof constraints - cl, ",b");
  const char *type = f32 ? "f32" : k == LLVMHalfTypeKind ? "f16" : "bf16";
  size_t tl = 0;
  for (int i = 0; i < n; i++) tl += (size_t)snprintf(text + tl, sizeof text - tl, "mov.b%d $%d, 0;\n\t", bits, i);
  snprintf(text + tl, sizeof text - tl, "@$%d atom%s%s.global.add%s.v%d.%s {%s}, [$%d], {%s};", n + na - 1,
           atomic_sems[a->sem], atomic_scopes[a->scope], f32 ? "" : ".noftz", n, type, outs, n, ins);
  LLVMTypeRef fields[8];
  for (int i = 0; i < n; i++) fields[i] = it;
  LLVMValueRef r = target_inline_asm(e, text, constraints, LLVMStructTypeInContext(e->ctx, fields, (unsigned)n, 0), args,
                                     na, true);
  LLVMValueRef out = LLVMGetUndef(vt);
  for (int i = 0; i < n; i++) {
    LLVMValueRef x = LLVMBuildBitCast(e->b, LLVMBuildExtractValue(e->b, r, (unsigned)i, ""), t, "");
    out = LLVMBuildInsertElement(e->b, out, x, target_i32(e, i), "");
  }
  return out;
}

static LLVMValueRef nvptx_atomic(const target_emitter *e, const target_atomic *a) {
  static const char *const ops[] = {"and", "or", "xor", "add", "add", "max", "min", "max", "min", "exch", "cas"};
  const char *const *sems = atomic_sems, *const *scopes = atomic_scopes;
  if (a->vec > 1) return nvptx_atomic_vector(e, a);
  LLVMTypeRef t = LLVMTypeOf(a->val);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  int bits = target_scalar_bits(t);
  bool is_float = bits && k != LLVMIntegerTypeKind;
  const char *type = NULL;
  switch (a->op) {
  case TARGET_ATOMIC_FADD:
    type = k == LLVMHalfTypeKind ? ".noftz.f16" : k == LLVMBFloatTypeKind ? ".noftz.bf16"
         : k == LLVMFloatTypeKind ? ".f32" : k == LLVMDoubleTypeKind ? ".f64" : NULL;
    break;
  case TARGET_ATOMIC_ADD:
  case TARGET_ATOMIC_UMAX:
  case TARGET_ATOMIC_UMIN:
    if (!is_float) type = bits == 32 ? ".u32" : bits == 64 ? ".u64" : NULL;
    break;
  case TARGET_ATOMIC_MAX:
  case TARGET_ATOMIC_MIN:
    if (!is_float) type = bits == 32 ? ".s32" : bits == 64 ? ".s64" : NULL;
    break;
  case TARGET_ATOMIC_AND:
  case TARGET_ATOMIC_OR:
  case TARGET_ATOMIC_XOR:
    if (!is_float) type = bits == 32 ? ".b32" : bits == 64 ? ".b64" : NULL;
    break;
  case TARGET_ATOMIC_EXCH: type = bits == 32 ? ".b32" : bits == 64 ? ".b64" : NULL; break;
  case TARGET_ATOMIC_CAS: type = bits == 16 ? ".b16" : bits == 32 ? ".b32" : bits == 64 ? ".b64" : NULL; break;
  }
  if (!type) return NULL;
  LLVMTypeRef it = LLVMIntTypeInContext(e->ctx, (unsigned)bits);
  const char reg = bits == 16 ? 'h' : bits == 32 ? 'r' : 'l';
  bool cas = a->op == TARGET_ATOMIC_CAS;
  LLVMValueRef args[4];
  int n = 0;
  args[n++] = a->ptr;
  if (cas) args[n++] = is_float ? LLVMBuildBitCast(e->b, a->cmp, it, "") : a->cmp;
  args[n++] = is_float ? LLVMBuildBitCast(e->b, a->val, it, "") : a->val;
  args[n++] = a->pred ? a->pred : LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
  char text[160], constraints[32];
  snprintf(text, sizeof text, "mov.b%d $0, 0;\n\t@$%d atom%s%s.global.%s%s $0, [$1], $2%s;", bits, n, sems[a->sem],
           scopes[a->scope], ops[a->op], type, cas ? ", $3" : "");
  snprintf(constraints, sizeof constraints, "=%c,l,%c%s,b", reg, reg, cas ? (reg == 'h' ? ",h" : reg == 'r' ? ",r" : ",l") : "");
  LLVMValueRef r = target_inline_asm(e, text, constraints, it, args, n, true);
  return is_float ? LLVMBuildBitCast(e->b, r, t, "") : r;
}

/* A shared-memory pointer as the 32-bit register PTX's .shared forms take (cp.async, mbarriers,
 * TMA, tensormap.replace). */
static LLVMValueRef smem_addr32(const target_emitter *e, LLVMValueRef p) {
  LLVMValueRef v = LLVMBuildPtrToInt(e->b, p, LLVMInt64TypeInContext(e->ctx), "");
  return LLVMBuildTrunc(e->b, v, i32_type(e), "");
}

/* ---------------------------------------------------------------- cp.async */

static void nvptx_async_copy(const target_emitter *e, LLVMValueRef dst, LLVMValueRef src, int bytes, LLVMValueRef pred,
                             LLVMValueRef issue, target_cache cache) {
  /* src-size 0 under a false mask: nothing is read and the bytes become zeros. `issue` false: no
   * copy at all (a thread holding a broadcast copy of another thread's bytes). */
  LLVMValueRef size = target_i32(e, bytes);
  if (pred) size = LLVMBuildSelect(e->b, pred, size, target_i32(e, 0), "");
  /* Inline PTX, as LLVM 19 has no selection of the cp.async intrinsics for 32-bit shared
   * pointers (nvptx-short-ptr). 16 bytes bypass L1 (.cg) unless the load asked for .ca: rows that
   * start 16 bytes off a 32-byte sector cost L2 4.3x the requests of aligned ones that way, and
   * 1.9x through L1 (perf-notes 56). Narrower copies can only be .ca. */
  char text[112];
  snprintf(text, sizeof text, "%scp.async.%s.shared.global [ $0 + 0 ], [ $1 + 0 ], %d, $2;", issue ? "@$3 " : "",
           bytes == 16 && cache != TARGET_CACHE_CA ? "cg" : "ca", bytes);
  LLVMValueRef args[4] = {smem_addr32(e, dst), src, size, issue};
  target_inline_asm(e, text, issue ? "r,l,r,b" : "r,l,r", void_type(e), args, issue ? 4 : 3, true);
}

static void nvptx_async_commit(const target_emitter *e) {
  target_call(e, "llvm.nvvm.cp.async.commit.group", void_type(e), NULL, 0);
}

static void nvptx_async_wait(const target_emitter *e, int pending) {
  LLVMValueRef n = target_i32(e, pending);
  target_call(e, "llvm.nvvm.cp.async.wait.group", void_type(e), &n, 1);
}

/* ---------------------------------------------------------------- special functions and conversions */

static LLVMValueRef nvptx_special_f32(const target_emitter *e, target_special_fn fn, LLVMValueRef x) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx);
  switch (fn) {
  case TARGET_SPECIAL_EXP2: return target_call(e, "llvm.nvvm.ex2.approx.f", f32, &x, 1);
  case TARGET_SPECIAL_RSQRT: return target_call(e, "llvm.nvvm.rsqrt.approx.f", f32, &x, 1);
  case TARGET_SPECIAL_RCP: return target_call(e, "llvm.nvvm.rcp.approx.ftz.f", f32, &x, 1);
  }
  return NULL;
}

static LLVMValueRef nvptx_rsqrt_f64(const target_emitter *e, LLVMValueRef x) {
  return target_call(e, "llvm.nvvm.rsqrt.approx.d", LLVMTypeOf(x), &x, 1);
}

static LLVMValueRef nvptx_truncate_rtz(const target_emitter *e, LLVMValueRef x, LLVMTypeRef to) {
  bool bf = LLVMGetTypeKind(to) == LLVMBFloatTypeKind;
  LLVMValueRef bits = target_inline_asm(e, bf ? "cvt.rz.bf16.f32 $0, $1;" : "cvt.rz.f16.f32 $0, $1;", "=h,f",
                                        LLVMInt16TypeInContext(e->ctx), &x, 1, false);
  return LLVMBuildBitCast(e->b, bits, to, "");
}

/* cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32: the first source goes to the upper half. */
static LLVMValueRef nvptx_truncate_pair(const target_emitter *e, LLVMValueRef lo, LLVMValueRef hi, LLVMTypeRef to) {
  bool bf = LLVMGetTypeKind(to) == LLVMBFloatTypeKind;
  LLVMValueRef args[2] = {hi, lo};
  return target_call(e, bf ? "llvm.nvvm.ff2bf16x2.rn" : "llvm.nvvm.ff2f16x2.rn", LLVMVectorType(to, 2), args, 2);
}

/* fp8 conversions (cvt with e4m3x2 / e5m2x2 operands, sm_89+): through a pair whose other half is 0. */
static LLVMValueRef nvptx_fp8_to_float(const target_emitter *e, LLVMValueRef bits, bool e4m3, LLVMTypeRef to) {
  LLVMValueRef pair = LLVMBuildZExt(e->b, bits, LLVMInt16TypeInContext(e->ctx), "");
  LLVMValueRef h2 = target_inline_asm(e, e4m3 ? "cvt.rn.f16x2.e4m3x2 $0, $1;" : "cvt.rn.f16x2.e5m2x2 $0, $1;", "=r,h",
                                      i32_type(e), &pair, 1, false);
  LLVMTypeRef half = LLVMHalfTypeInContext(e->ctx);
  LLVMValueRef v = LLVMBuildBitCast(e->b, h2, LLVMVectorType(half, 2), "");
  LLVMValueRef h = LLVMBuildExtractElement(e->b, v, target_i32(e, 0), "");
  return to == half ? h : LLVMBuildFPExt(e->b, h, to, "");
}

/* The first source goes to the upper byte, the second to the lower one. */
static LLVMValueRef nvptx_float_pair_to_fp8(const target_emitter *e, LLVMValueRef lo, LLVMValueRef hi, bool e4m3) {
  LLVMValueRef args[2] = {hi, lo};
  return target_inline_asm(e,
                           e4m3 ? "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $2;" : "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $2;",
                           "=h,f,f", LLVMInt16TypeInContext(e->ctx), args, 2, false);
}

static LLVMValueRef nvptx_float_to_fp8(const target_emitter *e, LLVMValueRef x, bool e4m3) {
  LLVMTypeRef f32 = LLVMFloatTypeInContext(e->ctx);
  if (LLVMTypeOf(x) != f32) x = LLVMBuildFPExt(e->b, x, f32, "");
  LLVMValueRef pair = nvptx_float_pair_to_fp8(e, x, LLVMConstReal(f32, 0.0), e4m3);
  return LLVMBuildTrunc(e->b, pair, LLVMInt8TypeInContext(e->ctx), "");
}

/* Triton's arith.divf on f32 (its FDivOpConversion): the full-range approximation. */
static LLVMValueRef nvptx_divide_f32(const target_emitter *e, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  return target_inline_asm(e, "div.full.f32 $0, $1, $2;", "=f,f,f", LLVMFloatTypeInContext(e->ctx), args, 2, false);
}

/* ---------------------------------------------------------------- tensor cores */

static LLVMValueRef nvptx_load_matrices(const target_emitter *e, LLVMValueRef addr, int num_mats, bool trans) {
  char name[80];
  snprintf(name, sizeof name, "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x%d%s.b16.p3", num_mats, trans ? ".trans" : "");
  LLVMTypeRef rt = i32_type(e);
  if (num_mats > 1) {
    LLVMTypeRef fields[4] = {rt, rt, rt, rt};
    rt = LLVMStructTypeInContext(e->ctx, fields, (unsigned)num_mats, 0);
  }
  return target_call(e, name, rt, &addr, 1);
}

/* Inline PTX: LLVM 19 has no stmatrix intrinsic. */
static void nvptx_store_matrices(const target_emitter *e, LLVMValueRef addr, LLVMValueRef const *words, int num_mats,
                                 bool trans) {
  char text[128], constraints[32] = "r";
  int n = snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x%d%s.shared.b16 [ $0 + 0 ], {", num_mats,
                   trans ? ".trans" : "");
  LLVMValueRef args[5] = {smem_addr32(e, addr)};
  for (int j = 0; j < num_mats; j++) {
    n += snprintf(text + n, sizeof text - (size_t)n, "%s$%d", j ? ", " : "", j + 1);
    strcat(constraints, ",r");
    args[j + 1] = words[j];
  }
  snprintf(text + n, sizeof text - (size_t)n, "};");
  target_inline_asm(e, text, constraints, void_type(e), args, num_mats + 1, true);
}

/* The D registers of an mma.sync: two <2 x half> for f16 accumulators, else four scalars. */
static LLVMTypeRef mma_result_type(const target_emitter *e, const target_mma *instr) {
  if (instr->c_packed_f16) {
    LLVMTypeRef half2 = LLVMVectorType(LLVMHalfTypeInContext(e->ctx), 2);
    LLVMTypeRef fields[2] = {half2, half2};
    return LLVMStructTypeInContext(e->ctx, fields, 2, 0);
  }
  LLVMTypeRef c = instr->c == TARGET_DT_I32 ? i32_type(e) : LLVMFloatTypeInContext(e->ctx);
  LLVMTypeRef fields[4] = {c, c, c, c};
  return LLVMStructTypeInContext(e->ctx, fields, 4, 0);
}

static LLVMValueRef nvptx_mma(const target_emitter *e, const target_mma *instr, LLVMValueRef *args, int num_args) {
  return target_call(e, instr->intrinsic, mma_result_type(e, instr), args, num_args);
}

/* ---------------------------------------------------------------- warpgroup MMA (inline PTX: LLVM 19 has no wgmma intrinsics) */

static void nvptx_wgmma_fence(const target_emitter *e) {
  target_inline_asm(e, "wgmma.fence.sync.aligned;", "", void_type(e), NULL, 0, true);
}

static void nvptx_wgmma_commit(const target_emitter *e) {
  target_inline_asm(e, "wgmma.commit_group.sync.aligned;", "", void_type(e), NULL, 0, true);
}

/* The PTX register class constraint of a value. */
static char acc_constraint(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMFloatTypeKind: return 'f';
  case LLVMDoubleTypeKind: return 'd';
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind: return 'h';
  case LLVMIntegerTypeKind:
    return LLVMGetIntTypeWidth(t) == 64 ? 'l' : LLVMGetIntTypeWidth(t) == 16 ? 'h' : 'r';
  default: return 'r';
  }
}

/* Operand limits of tied_asm: accumulators, other inputs. */
enum { TIED_MAX_REGS = 128, TIED_MAX_EXTRA = 30 };

/* An asm call whose first n operands are outputs tied to the n inputs `regs`, followed by
 * `extra` inputs; the outputs replace regs. False (nothing emitted) past its operand limits. */
static bool tied_asm(const target_emitter *e, const char *text, LLVMValueRef *regs, int n, LLVMValueRef *extra,
                     const char *extra_constraints, int num_extra) {
  LLVMValueRef args[TIED_MAX_REGS + TIED_MAX_EXTRA];
  LLVMTypeRef fields[TIED_MAX_REGS];
  size_t cap = (size_t)(n * 12 + 64) + strlen(extra_constraints), len = 0;
  char constraints[TIED_MAX_REGS * 12 + 64 + TIED_MAX_EXTRA * 2];
  if (n > TIED_MAX_REGS || num_extra > TIED_MAX_EXTRA || cap > sizeof constraints) return false;
  for (int i = 0; i < n; i++) {
    fields[i] = LLVMTypeOf(regs[i]);
    len += (size_t)snprintf(constraints + len, cap - len, "%s=%c", i ? "," : "", acc_constraint(fields[i]));
  }
  for (int i = 0; i < n; i++) {
    args[i] = regs[i];
    len += (size_t)snprintf(constraints + len, cap - len, "%s%d", len ? "," : "", i);
  }
  for (int i = 0; i < num_extra; i++) args[n + i] = extra[i];
  if (num_extra) snprintf(constraints + len, cap - len, ",%s", extra_constraints);
  LLVMTypeRef rt = n == 1 ? fields[0] : LLVMStructTypeInContext(e->ctx, fields, (unsigned)n, 0);
  LLVMValueRef call = target_inline_asm(e, text, constraints, rt, args, n + num_extra, true);
  for (int i = 0; i < n; i++) regs[i] = n == 1 ? call : LLVMBuildExtractValue(e->b, call, (unsigned)i, "");
  return true;
}

/* The asm operand number of input v, appended to the extra inputs (with its constraint) unless
 * it is there already: a chain's instructions share the accumulate predicate. */
static int wgmma_extra(LLVMValueRef v, char constraint, int num_acc, LLVMValueRef *extra, char *constraints,
                       int *num_extra) {
  for (int i = 0; i < *num_extra; i++)
    if (extra[i] == v) return 2 * num_acc + i;
  extra[*num_extra] = v;
  constraints[2 * *num_extra] = constraint;
  constraints[2 * *num_extra + 1] = ',';
  return 2 * num_acc + (*num_extra)++;
}

/* PTX text of one wgmma instruction of a statement whose extra inputs start at operand
 * 2 * num_acc; false when it does not fit in text[*len .. cap). */
static bool wgmma_text(const target_wgmma *w, int num_acc, LLVMValueRef *extra, char *constraints, int *num_extra,
                       char *text, size_t *len, size_t cap) {
  const target_mma *mi = w->instr;
  bool regs_a = w->desc_a == NULL;
  int a[4], b, pred;
  if (regs_a)
    for (int r = 0; r < 4; r++) a[r] = wgmma_extra(w->a_regs[r], 'r', num_acc, extra, constraints, num_extra);
  else
    a[0] = wgmma_extra(w->desc_a, 'l', num_acc, extra, constraints, num_extra);
  b = wgmma_extra(w->desc_b, 'l', num_acc, extra, constraints, num_extra);
  pred = wgmma_extra(w->use_c, 'b', num_acc, extra, constraints, num_extra);
  size_t n = *len;
  n += (size_t)snprintf(text + n, cap - n, "%swgmma.mma_async.sync.aligned.m64n%dk%d%s {", n ? "\n\t" : "", w->n,
                        mi->k, mi->intrinsic);
  for (int i = 0; i < w->acc_count && n < cap; i++)
    n += (size_t)snprintf(text + n, cap - n, "%s$%d", i ? ", " : "", w->acc_first + i);
  if (n >= cap) return false;
  if (regs_a)
    n += (size_t)snprintf(text + n, cap - n, "}, {$%d, $%d, $%d, $%d}, $%d, $%d", a[0], a[1], a[2], a[3], b, pred);
  else
    n += (size_t)snprintf(text + n, cap - n, "}, $%d, $%d, $%d", a[0], b, pred);
  /* Integer MMA takes no scale or transpose immediates; tf32/fp8 no transposes; A from
   * registers has no transpose of its own. */
  if (n < cap && mi->c != TARGET_DT_I32) n += (size_t)snprintf(text + n, cap - n, ", 1, 1");
  if (n < cap && mi->allows_transpose && regs_a) n += (size_t)snprintf(text + n, cap - n, ", %d", w->trans_b);
  else if (n < cap && mi->allows_transpose) n += (size_t)snprintf(text + n, cap - n, ", %d, %d", w->trans_a, w->trans_b);
  if (n < cap) n += (size_t)snprintf(text + n, cap - n, ";");
  if (n >= cap) return false;
  *len = n;
  return true;
}

/* The instructions as few inline asm statements as fit the text buffer, each tying all the
 * accumulators, the last one ending with the commit and wait: the accumulators pass through
 * LLVM once per statement, not once per instruction (LLVM's instruction selection spends its
 * time on those operands), and need no separate statement to come out after the wait. */
static bool nvptx_wgmma(const target_emitter *e, const target_wgmma *instrs, int count, LLVMValueRef *acc,
                        int num_acc, int commit_wait) {
  enum { TEXT_MAX = 8192 };
  char text[TEXT_MAX], tail[96];
  LLVMValueRef extra[TIED_MAX_EXTRA];
  char constraints[2 * TIED_MAX_EXTRA + 1];
  if (num_acc > TARGET_WGMMA_MAX_ACC) return false;
  tail[0] = '\0';
  if (commit_wait >= 0)
    snprintf(tail, sizeof tail, "\n\twgmma.commit_group.sync.aligned;\n\twgmma.wait_group.sync.aligned %d;", commit_wait);
  for (int c = 0; c < count;) {
    size_t len = 0;
    int num_extra = 0, first = c;
    /* Room for the tail and one instruction's extra inputs (at most 6) stays free. */
    while (c < count && num_extra + 6 <= TIED_MAX_EXTRA) {
      size_t before = len;
      int extra_before = num_extra;
      if (!wgmma_text(&instrs[c], num_acc, extra, constraints, &num_extra, text, &len, TEXT_MAX - sizeof tail)) {
        len = before;
        num_extra = extra_before;
        text[len] = '\0';
        break;
      }
      c++;
    }
    if (c == first) return false; /* one instruction always fits: at most TIED_MAX_REGS registers */
    if (c == count) snprintf(text + len, TEXT_MAX - len, "%s", tail);
    constraints[2 * num_extra - 1] = '\0';
    if (!tied_asm(e, text, acc, num_acc, extra, constraints, num_extra)) return false;
  }
  return count > 0 || commit_wait < 0 || tied_asm(e, tail + 2, acc, num_acc, NULL, "", 0);
}

/* The wait, then the registers it guards pass through empty statements ordered after it (at
 * most 128 at a time), so that no read of them moves above the wait. */
static void nvptx_wgmma_wait(const target_emitter *e, int pendings, LLVMValueRef *regs, int num_regs) {
  char text[64];
  snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %d;", pendings);
  target_inline_asm(e, text, "", void_type(e), NULL, 0, true);
  for (int i = 0; i < num_regs; i += TIED_MAX_REGS)
    tied_asm(e, "// wgmma registers ready", regs + i, num_regs - i < TIED_MAX_REGS ? num_regs - i : TIED_MAX_REGS, NULL,
             "", 0);
}

/* The PTX ISA's shared-memory matrix descriptor: start address >> 4 in bits 0-13 (added by the
 * caller), leading byte offset >> 4 in bits 16-29, stride byte offset >> 4 in bits 32-45, swizzle
 * mode in bits 62-63 (128B: 1, 64B: 2, 32B: 3, none: 0). */
static unsigned long long nvptx_matrix_descriptor(int leading_bytes, int stride_bytes, int swizzle_bytes) {
  unsigned long long mode = swizzle_bytes == 128 ? 1 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 32 ? 3 : 0;
  return ((unsigned long long)((leading_bytes >> 4) & 0x3FFF) << 16) |
         ((unsigned long long)((stride_bytes >> 4) & 0x3FFF) << 32) | (mode << 62);
}

static void nvptx_fence_async_shared(const target_emitter *e) {
  target_inline_asm(e, "fence.proxy.async.shared::cta;", "", void_type(e), NULL, 0, true);
}

/* ---------------------------------------------------------------- mbarriers and TMA (inline PTX) */

static LLVMValueRef always(const target_emitter *e, LLVMValueRef pred) {
  return pred ? pred : LLVMConstInt(LLVMInt1TypeInContext(e->ctx), 1, 0);
}

static void nvptx_mbarrier_init(const target_emitter *e, LLVMValueRef bar, int count, LLVMValueRef pred) {
  char text[96];
  snprintf(text, sizeof text, "@$1 mbarrier.init.shared::cta.b64 [$0], %d;", count);
  LLVMValueRef args[2] = {smem_addr32(e, bar), always(e, pred)};
  target_inline_asm(e, text, "r,b", void_type(e), args, 2, true);
}

static void nvptx_mbarrier_inval(const target_emitter *e, LLVMValueRef bar, LLVMValueRef pred) {
  LLVMValueRef args[2] = {smem_addr32(e, bar), always(e, pred)};
  target_inline_asm(e, "@$1 mbarrier.inval.shared::cta.b64 [$0];", "r,b", void_type(e), args, 2, true);
}

static void nvptx_mbarrier_arrive(const target_emitter *e, LLVMValueRef bar, int count, LLVMValueRef pred) {
  char text[96];
  snprintf(text, sizeof text, "@$1 mbarrier.arrive.shared::cta.b64 _, [$0], %d;", count);
  LLVMValueRef args[2] = {smem_addr32(e, bar), always(e, pred)};
  target_inline_asm(e, text, "r,b", void_type(e), args, 2, true);
}

static void nvptx_mbarrier_expect_tx(const target_emitter *e, LLVMValueRef bar, int bytes, LLVMValueRef pred) {
  char text[112];
  snprintf(text, sizeof text, "@$1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], %d;", bytes);
  LLVMValueRef args[2] = {smem_addr32(e, bar), always(e, pred)};
  target_inline_asm(e, text, "r,b", void_type(e), args, 2, true);
}

/* try_wait suspends the thread for a while in hardware; the loop covers its time-outs. Labels
 * inside braces are local to the block, so the text may repeat. */
static void nvptx_mbarrier_wait(const target_emitter *e, LLVMValueRef bar, LLVMValueRef phase) {
  LLVMValueRef args[2] = {smem_addr32(e, bar), phase};
  target_inline_asm(e,
                    "{\n\t.reg .pred done;\n\twait_again:\n\t"
                    "mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1;\n\t"
                    "@!done bra.uni wait_again;\n\t}",
                    "r,r", void_type(e), args, 2, true);
}

/* "{$first, $first+1, ..}" of n coordinates. */
static void coord_list(char *buf, size_t size, int first, int n) {
  size_t len = (size_t)snprintf(buf, size, "{");
  for (int i = 0; i < n; i++) len += (size_t)snprintf(buf + len, size - len, "%s$%d", i ? ", " : "", first + i);
  snprintf(buf + len, size - len, "}");
}

/* One box's copy into shared memory; with cta_mask (i16, else NULL) multicast to those blocks of
 * the cluster (the same offsets of `dst` and `bar` in each). */
static void tma_load_box(const target_emitter *e, LLVMValueRef dst, LLVMValueRef map, LLVMValueRef const *coords,
                         int rank, LLVMValueRef bar, LLVMValueRef cta_mask, LLVMValueRef pred) {
  char list[64], mask[16] = "", text[320], constraints[64];
  coord_list(list, sizeof list, 3, rank);
  if (cta_mask) snprintf(mask, sizeof mask, ", $%d", 4 + rank);
  const char *multicast = cta_mask ? ".multicast::cluster" : "";
  snprintf(text, sizeof text,
           "@$0 cp.async.bulk.tensor.%dd.shared::cluster.global.mbarrier::complete_tx::bytes%s "
           "[$1], [$2, %s], [$%d]%s;",
           rank, multicast, list, 3 + rank, mask);
  LLVMValueRef args[11];
  int n = 0;
  args[n++] = always(e, pred);
  args[n++] = smem_addr32(e, dst);
  args[n++] = map;
  size_t cl = (size_t)snprintf(constraints, sizeof constraints, "b,r,l");
  for (int i = 0; i < rank; i++) {
    args[n++] = coords[i];
    cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",r");
  }
  args[n++] = smem_addr32(e, bar);
  cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",r");
  if (cta_mask) {
    args[n++] = cta_mask;
    snprintf(constraints + cl, sizeof constraints - cl, ",h");
  }
  target_inline_asm(e, text, constraints, void_type(e), args, n, true);
}

static void nvptx_tma_load(const target_emitter *e, LLVMValueRef dst, LLVMValueRef map, LLVMValueRef const *coords,
                           int rank, LLVMValueRef bar, LLVMValueRef pred) {
  tma_load_box(e, dst, map, coords, rank, bar, NULL, pred);
}

static void nvptx_tma_load_multicast(const target_emitter *e, LLVMValueRef dst, LLVMValueRef map,
                                     LLVMValueRef const *coords, int rank, LLVMValueRef bar, LLVMValueRef cta_mask,
                                     LLVMValueRef pred) {
  tma_load_box(e, dst, map, coords, rank, bar, cta_mask, pred);
}

static void nvptx_tma_store(const target_emitter *e, LLVMValueRef map, LLVMValueRef const *coords, int rank,
                            LLVMValueRef src, const char *reduce, LLVMValueRef pred) {
  char list[64], text[256], constraints[64];
  coord_list(list, sizeof list, 2, rank);
  if (reduce)
    snprintf(text, sizeof text, "@$0 cp.reduce.async.bulk.tensor.%dd.global.shared::cta.%s.tile.bulk_group [$1, %s], [$%d];",
             rank, reduce, list, 2 + rank);
  else
    snprintf(text, sizeof text, "@$0 cp.async.bulk.tensor.%dd.global.shared::cta.bulk_group [$1, %s], [$%d];", rank,
             list, 2 + rank);
  LLVMValueRef args[10];
  int n = 0;
  args[n++] = always(e, pred);
  args[n++] = map;
  size_t cl = (size_t)snprintf(constraints, sizeof constraints, "b,l");
  for (int i = 0; i < rank; i++) {
    args[n++] = coords[i];
    cl += (size_t)snprintf(constraints + cl, sizeof constraints - cl, ",r");
  }
  args[n++] = smem_addr32(e, src);
  snprintf(constraints + cl, sizeof constraints - cl, ",r");
  target_inline_asm(e, text, constraints, void_type(e), args, n, true);
}

static void nvptx_bulk_commit(const target_emitter *e, LLVMValueRef pred) {
  LLVMValueRef p = always(e, pred);
  target_inline_asm(e, "@$0 cp.async.bulk.commit_group;", "b", void_type(e), &p, 1, true);
}

static void nvptx_bulk_wait(const target_emitter *e, int pending, bool read_only, LLVMValueRef pred) {
  char text[96];
  snprintf(text, sizeof text, "@$0 cp.async.bulk.wait_group%s %d;", read_only ? ".read" : "", pending);
  LLVMValueRef p = always(e, pred);
  target_inline_asm(e, text, "b", void_type(e), &p, 1, true);
}

/* One tensormap.replace of field `field` (ord >= 0: of that dim) with a register value. */
static void tensormap_replace(const target_emitter *e, LLVMValueRef smem, const char *field, int ord, LLVMValueRef v,
                              LLVMValueRef pred) {
  bool wide = LLVMGetIntTypeWidth(LLVMTypeOf(v)) == 64;
  char text[160], ordtext[16] = "";
  if (ord >= 0) snprintf(ordtext, sizeof ordtext, " %d,", ord);
  snprintf(text, sizeof text, "@$2 tensormap.replace.tile.%s.shared::cta.b1024.%s [$0],%s $1;", field,
           wide ? "b64" : "b32", ordtext);
  LLVMValueRef args[3] = {smem_addr32(e, smem), v, pred};
  target_inline_asm(e, text, wide ? "r,l,b" : "r,r,b", void_type(e), args, 3, true);
}

/* A tensormap.replace whose new value is an immediate (the fields ptxas wants constant). */
static void tensormap_replace_imm(const target_emitter *e, LLVMValueRef smem, const char *field, int ord, int v,
                                  LLVMValueRef pred) {
  char text[160], ordtext[16] = "";
  if (ord >= 0) snprintf(ordtext, sizeof ordtext, " %d,", ord);
  snprintf(text, sizeof text, "@$1 tensormap.replace.tile.%s.shared::cta.b1024.b32 [$0],%s %d;", field, ordtext, v);
  LLVMValueRef args[2] = {smem_addr32(e, smem), pred};
  target_inline_asm(e, text, "r,b", void_type(e), args, 2, true);
}

/* Global strides in bytes. (ptxas of CUDA 12.4-12.6 wrote the value unshifted into the map's
 * 16-byte-unit field, and Triton passes stride >> 4 for PTX <= 8.5; the ptxas and drivers of
 * CUDA 12.8 and newer take bytes whatever the PTX version, so the runtime refuses such kernels
 * on older drivers.) */
static void nvptx_tensormap_write(const target_emitter *e, LLVMValueRef smem, const target_tensormap *t,
                                  LLVMValueRef pred) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(e->ctx);
  LLVMValueRef p = always(e, pred);
  tensormap_replace(e, smem, "global_address", -1, LLVMBuildPtrToInt(e->b, t->global_address, i64, ""), p);
  tensormap_replace_imm(e, smem, "rank", -1, t->rank - 1, p);
  for (int i = 0; i < t->rank; i++) tensormap_replace_imm(e, smem, "box_dim", i, t->box_dim[i], p);
  for (int i = 0; i < t->rank; i++) tensormap_replace(e, smem, "global_dim", i, t->global_dim[i], p);
  for (int i = 0; i + 1 < t->rank; i++) {
    tensormap_replace(e, smem, "global_stride", i, t->global_stride[i], p);
  }
  for (int i = 0; i < t->rank; i++) tensormap_replace_imm(e, smem, "element_stride", i, 1, p);
  tensormap_replace_imm(e, smem, "elemtype", -1, t->elem_type, p);
  tensormap_replace_imm(e, smem, "interleave_layout", -1, 0, p);
  int mode = t->swizzle_bytes == 128 ? 3 : t->swizzle_bytes == 64 ? 2 : t->swizzle_bytes == 32 ? 1 : 0;
  tensormap_replace_imm(e, smem, "swizzle_mode", -1, mode, p);
  tensormap_replace_imm(e, smem, "fill_mode", -1, 0, p);
}

static void nvptx_tensormap_publish(const target_emitter *e, LLVMValueRef map, LLVMValueRef smem, LLVMValueRef warp_pred) {
  LLVMValueRef args[3] = {map, smem_addr32(e, smem), always(e, warp_pred)};
  target_inline_asm(e,
                    "@$2 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$0], "
                    "[$1], 128;",
                    "l,r,b", void_type(e), args, 3, true);
}

static void nvptx_tensormap_acquire(const target_emitter *e, LLVMValueRef map, LLVMValueRef pred) {
  LLVMValueRef args[2] = {map, always(e, pred)};
  target_inline_asm(e, "@$1 fence.proxy.tensormap::generic.acquire.gpu [$0], 128;", "l,b", void_type(e), args, 2, true);
}

static void nvptx_tensormap_prefetch(const target_emitter *e, LLVMValueRef map, LLVMValueRef pred) {
  LLVMValueRef args[2] = {map, always(e, pred)};
  target_inline_asm(e, "@$1 prefetch.tensormap [$0];", "l,b", void_type(e), args, 2, true);
}

/* griddepcontrol (PTX 7.8, sm_90): memory clobbers keep loads and stores on their side of the wait. */
static void nvptx_grid_dependency_wait(const target_emitter *e) {
  target_inline_asm(e, "griddepcontrol.wait;", "~{memory}", void_type(e), NULL, 0, true);
}

static void nvptx_grid_dependents_launch(const target_emitter *e) {
  target_inline_asm(e, "griddepcontrol.launch_dependents;", "~{memory}", void_type(e), NULL, 0, true);
}

static void nvptx_warp_sync(const target_emitter *e) {
  LLVMValueRef all = target_i32(e, -1);
  target_call(e, "llvm.nvvm.bar.warp.sync", void_type(e), &all, 1);
}

static void nvptx_barrier_named(const target_emitter *e, LLVMValueRef id, int threads) {
  LLVMValueRef args[2] = {id, target_i32(e, threads)};
  target_call(e, "llvm.nvvm.barrier.sync.cnt", void_type(e), args, 2);
}

static void nvptx_set_max_registers(const target_emitter *e, bool increase, int regs) {
  char text[64];
  snprintf(text, sizeof text, "setmaxnreg.%s.sync.aligned.u32 %d;", increase ? "inc" : "dec", regs);
  target_inline_asm(e, text, "", void_type(e), NULL, 0, true);
}

static LLVMValueRef nvptx_num_multiprocessors(const target_emitter *e) {
  return target_call(e, "llvm.nvvm.read.ptx.sreg.nsmid", i32_type(e), NULL, 0);
}

static LLVMValueRef nvptx_cluster_rank(const target_emitter *e) {
  return target_call(e, "llvm.nvvm.read.ptx.sreg.cluster.ctarank", i32_type(e), NULL, 0);
}

static LLVMValueRef nvptx_cluster_size(const target_emitter *e) {
  return target_call(e, "llvm.nvvm.read.ptx.sreg.cluster.nctarank", i32_type(e), NULL, 0);
}

/* mapa gives the other block's address of the same shared-memory offset. The arrive keeps PTX's
 * default semantics (release at CTA scope), as CUTLASS's ClusterBarrier::arrive does: what it
 * orders is this warpgroup's wgmma reads of the stage, already complete at its wgmma wait.
 * `.release.cluster` measured 30% slower on the whole 128x256 kernel (H100, 2026-11-25). */
static void nvptx_mbarrier_arrive_cluster(const target_emitter *e, LLVMValueRef bar, LLVMValueRef cta, int count,
                                          LLVMValueRef pred) {
  char text[192];
  snprintf(text, sizeof text,
           "{\n\t.reg .b32 remote;\n\tmapa.shared::cluster.u32 remote, $0, $1;\n\t"
           "@$2 mbarrier.arrive.shared::cluster.b64 _, [remote], %d;\n\t}",
           count);
  LLVMValueRef args[3] = {smem_addr32(e, bar), cta, always(e, pred)};
  target_inline_asm(e, text, "r,r,b", void_type(e), args, 3, true);
}

static void nvptx_cluster_arrive(const target_emitter *e, bool relaxed) {
  target_inline_asm(e, relaxed ? "barrier.cluster.arrive.relaxed.aligned;" : "barrier.cluster.arrive.aligned;", "",
                    void_type(e), NULL, 0, true);
}

static void nvptx_cluster_wait(const target_emitter *e) {
  target_inline_asm(e, "barrier.cluster.wait.aligned;", "", void_type(e), NULL, 0, true);
}

static void nvptx_fence_mbarrier_init(const target_emitter *e) {
  target_inline_asm(e, "fence.mbarrier_init.release.cluster;", "", void_type(e), NULL, 0, true);
}

static void nvptx_mark_kernel(const target_emitter *e, LLVMValueRef fn, const target_kernel_attrs *attrs) {
  gemmc_target_mark_kernel(e->mod, fn, attrs->threads_per_block);
  if (attrs->max_registers > 0) gemmc_target_annotate_kernel(e->mod, fn, "maxnreg", attrs->max_registers);
}

/* byval keeps the bytes in the parameter space; grid_constant lets LLVM hand out their generic
 * address (cvta.param) instead of copying them to local memory. */
static void nvptx_mark_params_in_place(const target_emitter *e, LLVMValueRef fn, const int *indices, int n, int bytes,
                                       int align) {
  LLVMContextRef ctx = LLVMGetModuleContext(e->mod);
  LLVMTypeRef bytes_type = LLVMArrayType(LLVMInt8TypeInContext(ctx), (unsigned)bytes);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5), al = LLVMGetEnumAttributeKindForName("align", 5);
  for (int i = 0; i < n; i++) {
    LLVMAddAttributeAtIndex(fn, (unsigned)indices[i] + 1, LLVMCreateTypeAttribute(ctx, byval, bytes_type));
    LLVMAddAttributeAtIndex(fn, (unsigned)indices[i] + 1, LLVMCreateEnumAttribute(ctx, al, (uint64_t)align));
  }
  gemmc_target_annotate_param_list(e->mod, fn, "grid_constant", indices, n);
}

const target_codegen target_nvptx_codegen = {
    .name = "nvptx",
    .global_addr_space = 1,
    .shared_addr_space = 3,
    .max_global_access_bits = 128,
    .max_shared_access_bytes = 16,
    .thread_id = nvptx_thread_id,
    .program_id = nvptx_program_id,
    .num_programs = nvptx_num_programs,
    .barrier = nvptx_barrier,
    .shuffle_xor = nvptx_shuffle_xor,
    .load_global = nvptx_load_global,
    .store_global = nvptx_store_global,
    .atomic = nvptx_atomic,
    .async_copy = nvptx_async_copy,
    .async_commit = nvptx_async_commit,
    .async_wait = nvptx_async_wait,
    .special_f32 = nvptx_special_f32,
    .rsqrt_f64 = nvptx_rsqrt_f64,
    .truncate_rtz = nvptx_truncate_rtz,
    .truncate_pair = nvptx_truncate_pair,
    .fp8_to_float = nvptx_fp8_to_float,
    .divide_f32 = nvptx_divide_f32,
    .float_to_fp8 = nvptx_float_to_fp8,
    .float_pair_to_fp8 = nvptx_float_pair_to_fp8,
    .load_matrices = nvptx_load_matrices,
    .store_matrices = nvptx_store_matrices,
    .mma = nvptx_mma,
    .wgmma_fence = nvptx_wgmma_fence,
    .wgmma = nvptx_wgmma,
    .wgmma_commit = nvptx_wgmma_commit,
    .wgmma_wait = nvptx_wgmma_wait,
    .matrix_descriptor = nvptx_matrix_descriptor,
    .fence_async_shared = nvptx_fence_async_shared,
    .mbarrier_init = nvptx_mbarrier_init,
    .mbarrier_inval = nvptx_mbarrier_inval,
    .mbarrier_arrive = nvptx_mbarrier_arrive,
    .mbarrier_expect_tx = nvptx_mbarrier_expect_tx,
    .mbarrier_wait = nvptx_mbarrier_wait,
    .tma_load = nvptx_tma_load,
    .tma_load_multicast = nvptx_tma_load_multicast,
    .tma_store = nvptx_tma_store,
    .bulk_commit = nvptx_bulk_commit,
    .bulk_wait = nvptx_bulk_wait,
    .tensormap_write = nvptx_tensormap_write,
    .tensormap_publish = nvptx_tensormap_publish,
    .tensormap_acquire = nvptx_tensormap_acquire,
    .tensormap_prefetch = nvptx_tensormap_prefetch,
    .warp_sync = nvptx_warp_sync,
    .grid_dependency_wait = nvptx_grid_dependency_wait,
    .grid_dependents_launch = nvptx_grid_dependents_launch,
    .barrier_named = nvptx_barrier_named,
    .set_max_registers = nvptx_set_max_registers,
    .num_multiprocessors = nvptx_num_multiprocessors,
    .cluster_rank = nvptx_cluster_rank,
    .cluster_size = nvptx_cluster_size,
    .mbarrier_arrive_cluster = nvptx_mbarrier_arrive_cluster,
    .cluster_arrive = nvptx_cluster_arrive,
    .cluster_wait = nvptx_cluster_wait,
    .fence_mbarrier_init = nvptx_fence_mbarrier_init,
    .mark_kernel = nvptx_mark_kernel,
    .mark_params_in_place = nvptx_mark_params_in_place,
};
