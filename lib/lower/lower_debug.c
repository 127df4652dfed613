/* tt.print and tt.assert: device printf (vprintf) of each element a thread owns with its program id and index, and __assertfail when an element of a condition is false. */
#include <stdio.h>
#include <string.h>

#include "lower_index.h"
#include "lower_ops.h"

enum { MAX_FORMAT = 4096, MAX_PRINT_ARGS = 3 + IR_MAX_RANK + 1 };

static LLVMTypeRef generic_ptr_type(lower_state *s) { return LLVMPointerTypeInContext(s->llctx, 0); }

/* A NUL-terminated string constant in global memory, as a generic pointer. */
static LLVMValueRef string_constant(lower_state *s, const char *name, const char *text, size_t len) {
  LLVMValueRef init = LLVMConstStringInContext(s->llctx, text, (unsigned)len, 0);
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(s->mod, LLVMTypeOf(init), name, s->cg->global_addr_space);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return LLVMBuildAddrSpaceCast(s->b, g, generic_ptr_type(s), "");
}

/* vprintf's argument buffer for values of these types: a struct in the kernel's entry block
 * (CUDA's printf ABI: each argument at its natural alignment). */
static LLVMValueRef print_buffer(lower_state *s, LLVMTypeRef type) {
  LLVMBuilderRef at = LLVMCreateBuilderInContext(s->llctx);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(s->fn);
  LLVMValueRef first = LLVMGetFirstInstruction(entry);
  if (first)
    LLVMPositionBuilderBefore(at, first);
  else
    LLVMPositionBuilderAtEnd(at, entry);
  LLVMValueRef buf = LLVMBuildAlloca(at, type, "printf_args");
  LLVMDisposeBuilder(at);
  return buf;
}

static void call_vprintf(lower_state *s, LLVMValueRef format, LLVMValueRef buf, LLVMTypeRef buf_type,
                         LLVMValueRef *args, int n) {
  for (int i = 0; i < n; i++) LLVMBuildStore(s->b, args[i], LLVMBuildStructGEP2(s->b, buf_type, buf, (unsigned)i, ""));
  LLVMTypeRef ptr = generic_ptr_type(s);
  LLVMTypeRef params[2] = {ptr, ptr};
  LLVMTypeRef fty = LLVMFunctionType(s->i32, params, 2, 0);
  LLVMValueRef f = LLVMGetNamedFunction(s->mod, "vprintf");
  if (!f) f = LLVMAddFunction(s->mod, "vprintf", fty);
  LLVMValueRef call_args[2] = {format, n ? LLVMBuildAddrSpaceCast(s->b, buf, ptr, "") : LLVMConstNull(ptr)};
  LLVMBuildCall2(s->b, fty, f, call_args, 2, "");
}

/* Appends text to a format string, '%' doubled (the prefix is the user's, not a format). */
static void append_literal(char *fmt, size_t *len, const char *text, size_t n) {
  for (size_t i = 0; i < n && *len + 2 < MAX_FORMAT; i++) {
    if (text[i] == '%') fmt[(*len)++] = '%';
    fmt[(*len)++] = text[i];
  }
  fmt[*len] = 0;
}

static void append(char *fmt, size_t *len, const char *text) {
  size_t n = strlen(text);
  if (*len + n + 1 >= MAX_FORMAT) return;
  memcpy(fmt + *len, text, n + 1);
  *len += n;
}

/* The printf argument and conversion of one element: floats as double (or their bits in hex),
 * integers widened to 32 or 64 bits by their signedness, pointers as addresses. */
static LLVMValueRef print_value(lower_state *s, const ir_type *e, LLVMValueRef x, bool is_signed, bool hex,
                                const char **conv) {
  LLVMBuilderRef b = s->b;
  if (e->kind == TY_PTR) {
    *conv = "0x%llx";
    return LLVMBuildPtrToInt(b, x, s->i64, "");
  }
  if (e->kind == TY_FLOAT && !hex) {
    *conv = "%f";
    LLVMTypeRef f64 = LLVMDoubleTypeInContext(s->llctx);
    if (LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMIntegerTypeKind) { /* fp8 (i8 storage): its bits */
      *conv = "0x%x";
      return LLVMBuildZExt(b, x, s->i32, "");
    }
    return LLVMTypeOf(x) == f64 ? x : LLVMBuildFPExt(b, x, f64, "");
  }
  unsigned bits = e->kind == TY_FLOAT ? ir_type_bits(e) : e->width;
  if (e->kind == TY_FLOAT && LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMIntegerTypeKind)
    x = LLVMBuildBitCast(b, x, LLVMIntTypeInContext(s->llctx, bits), "");
  bool wide = bits > 32;
  *conv = hex ? (wide ? "0x%llx" : "0x%x") : is_signed && bits > 1 ? (wide ? "%lld" : "%d") : (wide ? "%llu" : "%u");
  if (wide) return bits == 64 ? x : LLVMBuildZExt(b, x, s->i64, "");
  if (bits == 32) return x;
  return is_signed && bits > 1 && !hex ? LLVMBuildSExt(b, x, s->i32, "") : LLVMBuildZExt(b, x, s->i32, "");
}

bool lower_print(lower_state *s, ir_op *op) {
  if (s->target->arch != GEMMC_ARCH_NVPTX) {
    ir_op_error(s->ctx, op, "tt.print is not supported on %s (device printf is lowered for NVIDIA targets only)",
                s->target->name);
    return false;
  }
  lower_barrier_settle(s);
  const ir_attr *prefix = ir_op_get_attr(op, "prefix"), *hex_attr = ir_op_get_attr(op, "hex");
  const ir_attr *sign = ir_op_get_attr(op, "isSigned");
  bool hex = hex_attr && hex_attr->int_value;
  LLVMValueRef pid[3];
  for (int a = 0; a < 3; a++) pid[a] = s->cg->program_id(&s->em, a);
  if (op->num_operands == 0) { /* the prefix alone: once per block */
    char fmt[MAX_FORMAT];
    size_t len = 0;
    fmt[0] = 0;
    append(fmt, &len, "pid (%u, %u, %u)");
    append_literal(fmt, &len, prefix->str, prefix->str_len);
    append(fmt, &len, "\n");
    LLVMValueRef format = string_constant(s, "printf_format", fmt, len);
    LLVMTypeRef types[3] = {s->i32, s->i32, s->i32};
    LLVMTypeRef st = LLVMStructTypeInContext(s->llctx, types, 3, 0);
    LLVMValueRef buf = print_buffer(s, st);
    LLVMBasicBlockRef done = lower_begin_if(s, lower_thread0(s), "print");
    call_vprintf(s, format, buf, st, pid, 3);
    lower_end_if(s, done);
    return true;
  }
  for (int k = 0; k < op->num_operands; k++) {
    const ir_type *t = op->operands[k].value->type;
    const ir_type *e = ir_type_element(t);
    const lower_values *vals = lower_get(s, op, op->operands[k].value);
    if (!vals) return false;
    bool is_tensor = ir_type_is_tensor(t);
    lower_layout_info *li = is_tensor ? lower_layout_of(s, op, t) : NULL;
    if (is_tensor && !li) return false;
    int rank = is_tensor ? t->rank : 0, nregs = is_tensor ? li->num_regs : 1;
    bool is_signed = sign && sign->kind == AT_DENSE_ARRAY && k < sign->num_elems && sign->ints && sign->ints[k];
    /* Thread 0 prints a scalar; a tensor's elements are printed by the threads that own them. */
    LLVMValueRef owner = !is_tensor ? lower_thread0(s) : li->owner;
    LLVMBasicBlockRef done = owner ? lower_begin_if(s, owner, "print") : NULL;
    LLVMValueRef format = NULL, buf = NULL;
    LLVMTypeRef st = NULL;
    for (int r = 0; r < nregs; r++) {
      if (is_tensor && (r & li->reg_dup_mask)) continue;
      LLVMValueRef args[MAX_PRINT_ARGS];
      int n = 0;
      for (int a = 0; a < 3; a++) args[n++] = pid[a];
      for (int d = 0; d < rank; d++) args[n++] = lower_coord(s, li, r, d);
      const char *conv;
      args[n] = print_value(s, e, lower_elem(vals, r), is_signed, hex, &conv);
      n++;
      if (!format) { /* one format and buffer per value: every element has the same types */
        char fmt[MAX_FORMAT];
        size_t len = 0;
        fmt[0] = 0;
        append(fmt, &len, "pid (%u, %u, %u)");
        if (rank) {
          append(fmt, &len, " idx (");
          for (int d = 0; d < rank; d++) { /* as wide as the dim's last index, as Triton pads it */
            char spec[16];
            int width = 1;
            for (int64_t m = t->shape[d] - 1; m >= 10; m /= 10) width++;
            snprintf(spec, sizeof spec, "%s%%%du", d ? ", " : "", width);
            append(fmt, &len, spec);
          }
          append(fmt, &len, ")");
        }
        append_literal(fmt, &len, prefix->str, prefix->str_len);
        if (op->num_operands > 1) {
          char which[32];
          snprintf(which, sizeof which, "(operand %d) ", k);
          append(fmt, &len, which);
        }
        append(fmt, &len, conv);
        append(fmt, &len, "\n");
        format = string_constant(s, "printf_format", fmt, len);
        LLVMTypeRef types[MAX_PRINT_ARGS];
        for (int i = 0; i < n; i++) types[i] = LLVMTypeOf(args[i]);
        st = LLVMStructTypeInContext(s->llctx, types, (unsigned)n, 0);
        buf = print_buffer(s, st);
      }
      call_vprintf(s, format, buf, st, args, n);
    }
    if (done) lower_end_if(s, done);
  }
  return true;
}

/* The failing condition's place for the message: the kernel source's location when the TTIR
 * carries it, else the .tir file's. */
static void assert_location(const ir_op *op, const char **file, int *line) {
  const ir_loc *loc = op->loc;
  while (loc && loc->kind == LOC_NAME && loc->child) loc = loc->child;
  if (loc && loc->kind == LOC_FILE && loc->file) {
    *file = loc->file;
    *line = loc->line;
  } else if (op->src_loc && op->src_loc->src_line > 0) {
    *file = "<tir>";
    *line = op->src_loc->src_line;
  } else {
    *file = "<unknown>";
    *line = 0;
  }
}

bool lower_assert(lower_state *s, ir_op *op) {
  lower_barrier_settle(s);
  const ir_type *t = op->operands[0].value->type;
  const lower_values *vals = lower_get(s, op, op->operands[0].value);
  if (!vals) return false;
  int n = 1;
  if (ir_type_is_tensor(t)) {
    lower_layout_info *li = lower_layout_of(s, op, t);
    if (!li) return false;
    n = li->num_regs;
  }
  LLVMValueRef failed = LLVMConstInt(s->i1, 0, 0);
  for (int r = 0; r < n; r++) failed = LLVMBuildOr(s->b, failed, LLVMBuildNot(s->b, lower_elem(vals, r), ""), "");
  LLVMBasicBlockRef done = lower_begin_if(s, failed, "assert_failed");
  if (s->target->arch == GEMMC_ARCH_NVPTX) {
    const ir_attr *message = ir_op_get_attr(op, "message");
    const char *file;
    int line;
    assert_location(op, &file, &line);
    const char *func = LLVMGetValueName(s->fn);
    LLVMTypeRef ptr = generic_ptr_type(s);
    LLVMValueRef args[5] = {string_constant(s, "assert_message", message->str, message->str_len),
                            string_constant(s, "assert_file", file, strlen(file)), lower_i32(s, line),
                            string_constant(s, "assert_func", func, strlen(func)), LLVMConstInt(s->i64, 1, 0)};
    LLVMTypeRef params[5] = {ptr, ptr, s->i32, ptr, s->i64};
    LLVMTypeRef fty = LLVMFunctionType(s->voidt, params, 5, 0);
    LLVMValueRef f = LLVMGetNamedFunction(s->mod, "__assertfail");
    if (!f) f = LLVMAddFunction(s->mod, "__assertfail", fty);
    LLVMBuildCall2(s->b, fty, f, args, 5, "");
  } else { /* AMD: no host message; the wave traps (the launch fails) */
    lower_call(s, "llvm.trap", s->voidt, NULL, 0);
  }
  lower_end_if(s, done);
  return true;
}
