/* tt.elementwise_inline_asm: the asm text called once per pack of a thread's elements, operands and results packed into registers as Triton packs them. */
#include <string.h>

#include "lower_index.h"
#include "lower_ops.h"

enum { MAX_ASM_REGS = 256 };

/* How one operand or result travels: `per_reg` elements per register (a vector when more than
 * one), pack / per_reg registers per asm statement. */
typedef struct asm_value {
  LLVMTypeRef elem, reg;
  int per_reg, regs, bits;
} asm_value;

static bool describe(lower_state *s, const ir_op *op, const ir_type *t, int pack, asm_value *out) {
  const ir_type *e = ir_type_element(t);
  out->elem = lower_elem_type(s, t);
  out->bits = e->kind == TY_INT ? (int)e->width : (int)ir_type_bits(e);
  out->per_reg = inline_asm_elems_per_register(e, pack);
  if (!out->elem || !out->per_reg) {
    ir_op_error(s->ctx, op, "cannot pass values of type '%s' to inline asm", ir_type_str(s->ctx, t));
    return false;
  }
  out->regs = pack / out->per_reg;
  out->reg = out->per_reg > 1 ? LLVMVectorType(out->elem, (unsigned)out->per_reg) : out->elem;
  return true;
}

/* Each constraint's register letter against the register it gets (LLVM aborts with a fatal
 * error, not a diagnostic, on letters its back end does not have, and on a tied input whose type
 * differs from its output's). The verifier checked the counts and the order. */
static bool check_constraints(lower_state *s, const ir_op *op, const char *cons, const LLVMTypeRef *in,
                              const int *in_bits, int num_in, const LLVMTypeRef *out, const int *out_bits,
                              int num_out) {
  int i = 0, o = 0;
  inline_asm_constraint k;
  for (const char *c = cons; inline_asm_next_constraint(&c, cons + strlen(cons), &k);) {
    int len = (int)(k.stop - k.text);
    LLVMTypeRef reg = NULL;
    int width = 0;
    if (k.kind == INLINE_ASM_OUTPUT && o < num_out) reg = out[o], width = out_bits[o++];
    if (k.kind == INLINE_ASM_INPUT && i < num_in) reg = in[i], width = in_bits[i++];
    if (reg && k.tied >= 0) { /* the verifier checked that the output exists */
      if (out[k.tied] != reg) {
        ir_op_error(s->ctx, op, "inline asm input '%.*s' is tied to an output of another register type", len, k.text);
        return false;
      }
    } else if (reg) {
      int want = target_asm_register_bits(s->target, *k.code);
      if (k.code + 1 != k.stop || !want || (want > 0 && want != width) ||
          (want < 0 && width != 16 && width != 32 && width != 64)) {
        ir_op_error(s->ctx, op, "inline asm constraint '%.*s' cannot pass a %d-bit register on %s (%s)", len, k.text,
                    width, s->target->name,
                    s->target->arch == GEMMC_ARCH_AMDGPU ? "v: a 16, 32 or 64-bit VGPR"
                                                         : "b: 1 bit, h: 16, r and f: 32, l and d: 64");
        return false;
      }
    }
  }
  return true;
}

bool lower_inline_asm(lower_state *s, ir_op *op) {
  const ir_attr *text = ir_op_get_attr(op, "asm_string"), *cons = ir_op_get_attr(op, "constraints");
  int pack = (int)ir_op_get_int_attr(op, "packed_element", 1);
  bool side_effects = !ir_op_is_pure(op);
  int n = 1; /* elements per thread (the verifier made every operand and result one shape and layout) */
  if (ir_type_is_tensor(op->results[0].type)) {
    lower_layout_info *li = lower_layout_of(s, op, op->results[0].type);
    if (!li) return false;
    n = li->num_regs;
  }
  int nv = op->num_operands + op->num_results;
  asm_value *vals = lower_alloc(s, sizeof *vals * (size_t)(nv ? nv : 1));
  const lower_values **in = lower_alloc(s, sizeof *in * (size_t)(op->num_operands + 1));
  lower_values **out = lower_alloc(s, sizeof *out * (size_t)op->num_results);
  LLVMTypeRef in_regs[MAX_ASM_REGS], out_regs[MAX_ASM_REGS];
  int in_bits[MAX_ASM_REGS], out_bits[MAX_ASM_REGS];
  int num_in = 0, num_out = 0;
  if (!vals || !in || !out) return false;
  for (int k = 0; k < nv; k++) {
    bool is_result = k >= op->num_operands;
    const ir_type *t = is_result ? op->results[k - op->num_operands].type : op->operands[k].value->type;
    if (!describe(s, op, t, pack, &vals[k])) return false;
    LLVMTypeRef *regs = is_result ? out_regs : in_regs;
    int *bits = is_result ? out_bits : in_bits, *count = is_result ? &num_out : &num_in;
    for (int r = 0; r < vals[k].regs; r++) {
      if (*count == MAX_ASM_REGS) {
        ir_op_error(s->ctx, op, "inline asm with more than %d input or output registers is not supported",
                    MAX_ASM_REGS);
        return false;
      }
      bits[*count] = vals[k].per_reg * vals[k].bits;
      regs[(*count)++] = vals[k].reg;
    }
  }
  if (!check_constraints(s, op, cons->str, in_regs, in_bits, num_in, out_regs, out_bits, num_out)) return false;
  for (int k = 0; k < op->num_operands; k++)
    if (!(in[k] = lower_get(s, op, op->operands[k].value))) return false;
  for (int k = 0; k < op->num_results; k++)
    if (!(out[k] = lower_values_new(s, op, n))) return false;
  LLVMTypeRef ret = num_out == 1 ? out_regs[0] : LLVMStructTypeInContext(s->llctx, out_regs, (unsigned)num_out, 0);
  /* A thread's elements in packs of `pack` (the last one padded with poison). */
  for (int first = 0; first < n; first += pack) {
    LLVMValueRef args[MAX_ASM_REGS];
    int a = 0;
    for (int k = 0; k < op->num_operands; k++)
      for (int r = 0; r < vals[k].regs; r++) {
        LLVMValueRef lanes[32];
        for (int l = 0; l < vals[k].per_reg; l++) {
          int i = first + r * vals[k].per_reg + l;
          lanes[l] = i < n ? lower_elem(in[k], i) : LLVMGetPoison(vals[k].elem);
        }
        args[a++] = vals[k].per_reg > 1 ? lower_build_vector(s, vals[k].reg, lanes, vals[k].per_reg) : lanes[0];
      }
    LLVMValueRef call = target_inline_asm(&s->em, text->str, cons->str, ret, args, a, side_effects);
    int o = 0;
    for (int k = 0; k < op->num_results; k++) {
      const asm_value *v = &vals[op->num_operands + k];
      for (int r = 0; r < v->regs; r++, o++) {
        LLVMValueRef reg = num_out == 1 ? call : LLVMBuildExtractValue(s->b, call, (unsigned)o, "");
        for (int l = 0; l < v->per_reg; l++) {
          int i = first + r * v->per_reg + l;
          if (i < n) out[k]->v[i] = v->per_reg > 1 ? LLVMBuildExtractElement(s->b, reg, lower_i32(s, l), "") : reg;
        }
      }
    }
  }
  for (int k = 0; k < op->num_results; k++)
    if (!lower_set(s, &op->results[k], out[k])) return false;
  return true;
}
