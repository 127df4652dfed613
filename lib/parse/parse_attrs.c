/* Parser support: types, numbers, dense constants, dictionaries and layout encodings. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/layout.h"
#include "parse_state.h"
#include "parser.h"

/* ------------------------------------------------------------------ types */

parsed_shaped *parse_shape(parse_state *ps, const char *dims, const ir_type *elem, src_pos pos) {
  parsed_shaped *sh = ir_alloc(ps->ctx, sizeof *sh);
  sh->elem = elem;
  sh->pos = pos;
  const char *p = dims;
  while (*p) {
    char *end;
    errno = 0;
    long long d = strtoll(p, &end, 10);
    if (end == p || errno || d <= 0 || d > (1ll << 31)) {
      parse_error_at(ps, pos, "invalid dimension in shape '%s' (dimensions are 1 .. 2^31)", dims);
      return NULL;
    }
    if (sh->rank == IR_MAX_RANK) {
      parse_error_at(ps, pos, "shape '%s' has more than %d dimensions", dims, IR_MAX_RANK);
      return NULL;
    }
    sh->shape[sh->rank++] = d;
    p = end;
    if (*p == 'x') p++;
  }
  int64_t total = 1;
  for (int i = 0; i < sh->rank; i++) {
    /* checked: each dim is up to 2^31, so the product can pass 2^63 before the bound catches it */
    if (__builtin_mul_overflow(total, sh->shape[i], &total) || total > (1ll << 40)) {
      parse_error_at(ps, pos, "shape '%s' has too many elements", dims);
      return NULL;
    }
  }
  return sh;
}

static bool is_element_type(const ir_type *t) {
  return t && (t->kind == TY_INT || t->kind == TY_FLOAT || t->kind == TY_PTR || t->kind == TY_INDEX);
}

const ir_type *parse_tensor_type(parse_state *ps, const parsed_shaped *sh, const ir_attr *encoding, src_pos pos) {
  if (!is_element_type(sh->elem)) {
    parse_error_at(ps, pos, "invalid tensor element type '%s'", ir_type_str(ps->ctx, sh->elem));
    return NULL;
  }
  if (encoding && !ir_attr_is_layout(encoding)) {
    parse_error_at(ps, pos, "tensor encoding must be a layout attribute, found %s", ir_attr_kind_name(encoding->kind));
    return NULL;
  }
  return ir_tensor_type(ps->ctx, sh->rank, sh->shape, sh->elem, encoding);
}

/* !tt.tensordesc<tensor<128x64xf16, #shared>> (Triton 3.6) or <128x64xf16, #shared> (later). */
static const ir_type *parse_tensordesc_type(parse_state *ps, const parsed_shaped *sh, pvec *params, src_pos pos) {
  int np = params ? params->n : 0;
  int rank = sh->rank;
  const int64_t *shape = sh->shape;
  const ir_type *elem = sh->elem;
  const ir_attr *enc = NULL;
  if (rank == 0 && elem && elem->kind == TY_TENSOR && np == 0) {
    rank = elem->rank;
    shape = elem->shape;
    enc = elem->encoding;
    elem = elem->elem;
  } else if (np == 1 && ((type_param *)params->items[0])->kind == TP_ATTR) {
    enc = ((type_param *)params->items[0])->attr;
  } else if (np != 0) {
    parse_error_at(ps, pos, "!tt.tensordesc takes a block type and at most a shared layout");
    return NULL;
  }
  if (rank < 1 || !elem || (elem->kind != TY_INT && elem->kind != TY_FLOAT)) {
    parse_error_at(ps, pos, "!tt.tensordesc needs a block shape of integers or floats, as 'tensor<128x64xf16>'");
    return NULL;
  }
  if (enc && !layout_is_shared(enc)) {
    parse_error_at(ps, pos, "the layout of a !tt.tensordesc must be a shared layout, found %s", ir_attr_kind_name(enc->kind));
    return NULL;
  }
  return ir_tensordesc_type(ps->ctx, rank, shape, elem, enc);
}

const ir_type *parse_dialect_type(parse_state *ps, const char *name, const parsed_shaped *sh, pvec *params,
                                  src_pos pos) {
  int np = params ? params->n : 0;
  if (name && strcmp(name, "tt.ptr") == 0) {
    if (sh->rank) {
      parse_error_at(ps, pos, "!tt.ptr takes a pointee type, not a shape");
      return NULL;
    }
    int addr_space = 1;
    if (np > 1) {
      parse_error_at(ps, pos, "!tt.ptr takes at most an address space after the pointee");
      return NULL;
    }
    if (np == 1) {
      type_param *tp = params->items[0];
      if (tp->kind != TP_INT) {
        parse_error_at(ps, tp->pos, "expected an address space number");
        return NULL;
      }
      long v = strtol(tp->text, NULL, 10);
      if (v < 0 || v > 255) {
        parse_error_at(ps, tp->pos, "address space %s out of range", tp->text);
        return NULL;
      }
      addr_space = (int)v;
    }
    if (!sh->elem || sh->elem->kind == TY_FUNC || sh->elem->kind == TY_TOKEN || sh->elem->kind == TY_MEMDESC) {
      parse_error_at(ps, pos, "invalid pointee type");
      return NULL;
    }
    return ir_ptr_type(ps->ctx, sh->elem, addr_space);
  }
  if (!name || strcmp(name, "ttg.memdesc") == 0) {
    if (!is_element_type(sh->elem)) {
      parse_error_at(ps, pos, "invalid memdesc element type");
      return NULL;
    }
    const ir_attr *enc = NULL, *space = NULL;
    bool is_mutable = false;
    int alloc_rank = 0;
    int64_t alloc_shape[IR_MAX_RANK];
    for (int i = 0; i < np; i++) {
      type_param *tp = params->items[i];
      if (tp->kind == TP_ATTR && !enc && ir_attr_is_layout(tp->attr) && tp->attr->kind != AT_SHARED_MEMORY)
        enc = tp->attr;
      else if (tp->kind == TP_ATTR && !space && tp->attr->kind == AT_SHARED_MEMORY)
        space = tp->attr;
      else if (tp->kind == TP_WORD && strcmp(tp->text, "mutable") == 0 && !is_mutable)
        is_mutable = true;
      else if ((tp->kind == TP_INT || tp->kind == TP_DIMS) && !alloc_rank) {
        parsed_shaped *a = parse_shape(ps, tp->kind == TP_INT ? "" : tp->text, NULL, tp->pos);
        if (!a) return NULL;
        if (tp->kind == TP_INT) {
          a->rank = 1;
          a->shape[0] = strtoll(tp->text, NULL, 10);
        }
        alloc_rank = a->rank;
        memcpy(alloc_shape, a->shape, sizeof(int64_t) * (size_t)a->rank);
      } else {
        parse_error_at(ps, tp->pos, "unexpected parameter in !ttg.memdesc");
        return NULL;
      }
    }
    if (!enc || !space) {
      parse_error_at(ps, pos, "!ttg.memdesc needs a shared layout and a memory space (#ttg.shared_memory)");
      return NULL;
    }
    return ir_memdesc_type(ps->ctx, sh->rank, sh->shape, sh->elem, enc, space, is_mutable, alloc_rank, alloc_shape);
  }
  if (strcmp(name, "tt.tensordesc") == 0) return parse_tensordesc_type(ps, sh, params, pos);
  parse_error_at(ps, pos, "unknown type '!%s'", name);
  return NULL;
}

const ir_type *parse_type_alias(parse_state *ps, const char *name, src_pos pos) {
  if (strcmp(name, "ttg.async.token") == 0) return ir_token_type(ps->ctx);
  for (int i = 0; i < ps->type_aliases.n; i++) {
    parsed_entry *e = ps->type_aliases.items[i];
    if (e->name == name) return e->value->type;
  }
  if (strcmp(name, "tt.ptr") == 0 || strcmp(name, "ttg.memdesc") == 0)
    parse_error_at(ps, pos, "'!%s' needs parameters in <...>", name);
  else
    parse_error_at(ps, pos, "unknown type '!%s'", name);
  return NULL;
}

void parse_define_type_alias(parse_state *ps, const char *name, const ir_type *t, src_pos pos) {
  for (int i = 0; i < ps->type_aliases.n; i++)
    if (((parsed_entry *)ps->type_aliases.items[i])->name == name) {
      parse_error_at(ps, pos, "redefinition of type alias '!%s'", name);
      return;
    }
  parsed_entry *e = ir_alloc(ps->ctx, sizeof *e);
  e->name = name;
  e->value = ir_type_attr(ps->ctx, t);
  e->pos = pos;
  pv_push(ps, &ps->type_aliases, e);
}

/* ------------------------------------------------------------------ numbers */

/* Decodes a small IEEE-like float from its bits (f16, bf16, f8 variants). */
static double decode_small_float(uint64_t bits, int exp_bits, int man_bits, int bias, bool has_inf, bool fnuz) {
  uint64_t sign = (bits >> (exp_bits + man_bits)) & 1;
  uint64_t e = (bits >> man_bits) & ((1u << exp_bits) - 1);
  uint64_t m = bits & ((1u << man_bits) - 1);
  double v;
  if (fnuz && sign && e == 0 && m == 0) return NAN;
  if (e == ((1u << exp_bits) - 1) && has_inf) {
    v = m ? NAN : INFINITY;
  } else if (!has_inf && !fnuz && e == ((1u << exp_bits) - 1) && m == ((1u << man_bits) - 1)) {
    v = NAN; /* e4m3fn: only all-ones is NaN */
  } else if (e == 0) {
    v = ldexp((double)m, 1 - bias - man_bits);
  } else {
    v = ldexp((double)(m | (1ull << man_bits)), (int)e - bias - man_bits);
  }
  return sign ? -v : v;
}

static double float_from_bits(ir_float_kind k, uint64_t bits) {
  switch (k) {
  case FLT_F16: return decode_small_float(bits, 5, 10, 15, true, false);
  case FLT_BF16: {
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case FLT_F32:
  case FLT_TF32: {
    uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case FLT_F64: {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  case FLT_F8E4M3FN: return decode_small_float(bits, 4, 3, 7, false, false);
  case FLT_F8E5M2: return decode_small_float(bits, 5, 2, 15, true, false);
  case FLT_F8E4M3FNUZ: return decode_small_float(bits, 4, 3, 8, false, true);
  case FLT_F8E5M2FNUZ: return decode_small_float(bits, 5, 2, 16, false, true);
  case FLT_F8E4M3B11FNUZ: return decode_small_float(bits, 4, 3, 11, false, true);
  default: return 0;
  }
}

/* The smallest magnitude that rounds to infinity (or past the largest finite value, for the f8
 * types that have no infinity) in a float type: the largest finite value plus half an ulp. */
static double float_overflow_threshold(ir_float_kind k) {
  switch (k) {
  case FLT_F16: return 65504.0 + 16.0;
  case FLT_BF16: return ldexp(2.0 - ldexp(1.0, -7), 127) + ldexp(1.0, 119);
  case FLT_F32:
  case FLT_TF32: return (double)FLT_MAX + ldexp(1.0, 103);
  case FLT_F64: return INFINITY; /* strtod's own overflow (inf) is the test */
  case FLT_F8E4M3FN: return 448.0 + 16.0;
  case FLT_F8E5M2: return 57344.0 + 4096.0;
  case FLT_F8E4M3FNUZ: return 240.0 + 8.0;
  case FLT_F8E5M2FNUZ: return 57344.0 + 4096.0;
  case FLT_F8E4M3B11FNUZ: return 30.0 + 1.0;
  default: return INFINITY;
  }
}

const ir_attr *parse_number_attr(parse_state *ps, const parsed_number *num, const ir_type *type) {
  const char *t = num->text;
  if (type && type->kind != TY_INT && type->kind != TY_FLOAT && type->kind != TY_INDEX) {
    parse_error_at(ps, num->pos, "a number cannot have type '%s'", ir_type_str(ps->ctx, type));
    return NULL;
  }
  bool want_float = type ? type->kind == TY_FLOAT : num->token == FLOAT;
  if (num->token == HEX) {
    errno = 0;
    unsigned long long bits = strtoull(t, NULL, 16);
    if (errno || strlen(t) > 18) {
      parse_error_at(ps, num->pos, "hexadecimal literal '%s' is too large", t);
      return NULL;
    }
    /* The bits of the value, as MLIR reads hex: they must fit the type's width, exactly as the
     * decimal spelling must fit its range (0xFFFFFFFF : i32 is -1; 0x1FFFFFFFF : i32 is an error). */
    unsigned width = type ? (type->kind == TY_INDEX ? 64 : type->width) : 64;
    if (width < 64 && (bits >> width) != 0) {
      parse_error_at(ps, num->pos, "hexadecimal literal '%s' does not fit in %u bits (type '%s')", t, width,
                     ir_type_str(ps->ctx, type));
      return NULL;
    }
    if (want_float) {
      if (num->negative) {
        parse_error_at(ps, num->pos, "hexadecimal float literal cannot be negated");
        return NULL;
      }
      return ir_float_attr(ps->ctx, float_from_bits(type->float_kind, bits), type);
    }
    if (type && type->kind == TY_INT && type->width == 1) return ir_bool_attr(ps->ctx, bits != 0);
    return ir_int_attr(ps->ctx, (int64_t)bits, type);
  }
  if (want_float) {
    if (num->token != FLOAT) {
      parse_error_at(ps, num->pos, "integer literal '%s' for a float type; write '%s.0'", t, t);
      return NULL;
    }
    const ir_type *ft = type ? type : ir_float_type(ps->ctx, FLT_F64);
    double v = strtod(t, NULL);
    /* A decimal that rounds to infinity in its type is an error (MLIR: "floating point value too
     * large"); write infinity in hexadecimal. Underflow to zero is accepted, as in MLIR. */
    if (isinf(v) || fabs(v) >= float_overflow_threshold(ft->float_kind)) {
      parse_error_at(ps, num->pos, "float literal '%s%s' is too large for type '%s'", num->negative ? "-" : "", t,
                     ir_type_str(ps->ctx, ft));
      return NULL;
    }
    return ir_float_attr(ps->ctx, num->negative ? -v : v, ft);
  }
  if (num->token == FLOAT) {
    parse_error_at(ps, num->pos, "float literal '%s' for integer type '%s'", t,
                   type ? ir_type_str(ps->ctx, type) : "i64");
    return NULL;
  }
  errno = 0;
  unsigned long long mag = strtoull(t, NULL, 10);
  if (errno || mag > (num->negative ? (1ull << 63) : UINT64_MAX)) {
    parse_error_at(ps, num->pos, "integer literal '%s%s' is out of range", num->negative ? "-" : "", t);
    return NULL;
  }
  int64_t v = num->negative ? (int64_t)(0 - mag) : (int64_t)mag;
  if (type && type->kind == TY_INT && type->width < 64) {
    /* MLIR accepts the signed or the unsigned range of the width. */
    int64_t lo = -(1ll << (type->width - 1)), hi = (int64_t)((1ull << type->width) - 1);
    if (type->width == 1) lo = -1;
    if (v < lo || v > hi) {
      parse_error_at(ps, num->pos, "integer constant %s%s out of range for type '%s'", num->negative ? "-" : "", t,
                     ir_type_str(ps->ctx, type));
      return NULL;
    }
    if (type->width == 1) return ir_bool_attr(ps->ctx, v != 0);
  }
  return ir_int_attr(ps->ctx, v, type);
}

const ir_attr *parse_word_attr(parse_state *ps, const char *word, src_pos pos) {
  (void)pos;
  if (strcmp(word, "true") == 0) return ir_bool_attr(ps->ctx, true);
  if (strcmp(word, "false") == 0) return ir_bool_attr(ps->ctx, false);
  if (strcmp(word, "unit") == 0) return ir_unit_attr(ps->ctx);
  return ir_keyword_attr(ps->ctx, word);
}

/* ------------------------------------------------------------------ dictionaries */

const ir_attr *parse_dict_from_entries(parse_state *ps, pvec *entries, src_pos pos) {
  (void)pos;
  int n = entries ? entries->n : 0;
  const char **names = n ? ir_alloc(ps->ctx, sizeof(char *) * (size_t)n) : NULL;
  const ir_attr **values = n ? ir_alloc(ps->ctx, sizeof(void *) * (size_t)n) : NULL;
  for (int i = 0; i < n; i++) {
    parsed_entry *e = entries->items[i];
    for (int j = 0; j < i; j++)
      if (strcmp(names[j], e->name) == 0) {
        parse_error_at(ps, e->pos, "duplicate key '%s' in dictionary attribute", e->name);
        return NULL;
      }
    names[i] = e->name;
    values[i] = e->value;
  }
  return ir_dict_attr(ps->ctx, n, names, values);
}

/* ------------------------------------------------------------------ layout encodings */

typedef struct layout_reader {
  parse_state *ps;
  const ir_attr *dict;
  src_pos pos;
  const char *what;
  bool used[64];
} layout_reader;

static const ir_attr *field(layout_reader *r, const char *name) {
  for (int i = 0; i < r->dict->num_elems && i < 64; i++)
    if (strcmp(r->dict->names[i], name) == 0) {
      r->used[i] = true;
      return r->dict->elems[i];
    }
  return NULL;
}

static bool field_int(layout_reader *r, const char *name, bool required, int *out) {
  const ir_attr *a = field(r, name);
  if (!a) {
    if (required) parse_error_at(r->ps, r->pos, "#%s needs '%s'", r->what, name);
    return !required;
  }
  if (a->kind != AT_INT || a->int_value < -(1ll << 30) || a->int_value > (1ll << 30)) {
    parse_error_at(r->ps, r->pos, "#%s: '%s' must be an integer", r->what, name);
    return false;
  }
  *out = (int)a->int_value;
  return true;
}

static bool field_bool(layout_reader *r, const char *name, bool *out) {
  const ir_attr *a = field(r, name);
  if (!a) return true;
  if (a->kind != AT_BOOL) {
    parse_error_at(r->ps, r->pos, "#%s: '%s' must be true or false", r->what, name);
    return false;
  }
  *out = a->int_value != 0;
  return true;
}

/* Reads an integer array; returns its length or -1 (error emitted). */
static int field_ints(layout_reader *r, const char *name, bool required, int *out, int max) {
  const ir_attr *a = field(r, name);
  if (!a) {
    if (required) parse_error_at(r->ps, r->pos, "#%s needs '%s'", r->what, name);
    return required ? -1 : 0;
  }
  if (a->kind != AT_ARRAY || a->num_elems > max) {
    parse_error_at(r->ps, r->pos, "#%s: '%s' must be an array of at most %d integers", r->what, name, max);
    return -1;
  }
  for (int i = 0; i < a->num_elems; i++) {
    const ir_attr *e = a->elems[i];
    if (e->kind != AT_INT || e->int_value < 0 || e->int_value > (1 << 24)) {
      parse_error_at(r->ps, r->pos, "#%s: '%s' must hold non-negative integers", r->what, name);
      return -1;
    }
    out[i] = (int)e->int_value;
  }
  return a->num_elems;
}

static const ir_attr *field_layout(layout_reader *r, const char *name) {
  const ir_attr *a = field(r, name);
  if (!a || !ir_attr_is_layout(a)) {
    parse_error_at(r->ps, r->pos, "#%s needs '%s' to be a layout", r->what, name);
    return NULL;
  }
  return a;
}

static bool check_unused(layout_reader *r) {
  for (int i = 0; i < r->dict->num_elems; i++)
    if (i >= 64 || !r->used[i]) {
      parse_error_at(r->ps, r->pos, "#%s has no parameter '%s'", r->what, r->dict->names[i]);
      return false;
    }
  return true;
}

/* The pre-3.5 CTA layout fields are accepted when they describe one CTA. */
static bool legacy_cta_fields(layout_reader *r) {
  const char *names[] = {"CTAsPerCGA", "CTASplitNum", "CTAOrder"};
  for (int k = 0; k < 3; k++) {
    int v[IR_MAX_RANK];
    int n = field_ints(r, names[k], false, v, IR_MAX_RANK);
    if (n < 0) return false;
    for (int i = 0; k < 2 && i < n; i++)
      if (v[i] != 1) {
        parse_error_at(r->ps, r->pos, "#%s: more than one CTA per CGA is not supported", r->what);
        return false;
      }
  }
  return true;
}

static const ir_attr *read_layout(parse_state *ps, ir_attr_kind kind, const char *what, const ir_attr *body, src_pos pos) {
  if (!body || body->kind != AT_DICT) {
    parse_error_at(ps, pos, "#%s expects <{...}> parameters", what);
    return NULL;
  }
  layout_reader r = {.ps = ps, .dict = body, .pos = pos, .what = what};
  ir_layout_params lp;
  memset(&lp, 0, sizeof lp);
  switch (kind) {
  case AT_BLOCKED: {
    int a = field_ints(&r, "sizePerThread", true, lp.size_per_thread, IR_MAX_RANK);
    int b = field_ints(&r, "threadsPerWarp", true, lp.threads_per_warp, IR_MAX_RANK);
    int c = field_ints(&r, "warpsPerCTA", true, lp.warps_per_cta, IR_MAX_RANK);
    int d = field_ints(&r, "order", true, lp.order, IR_MAX_RANK);
    if (a < 0 || b < 0 || c < 0 || d < 0) return NULL;
    if (a != b || a != c || a != d || a == 0) {
      parse_error_at(ps, pos, "#ttg.blocked: sizePerThread, threadsPerWarp, warpsPerCTA and order must have the same non-zero rank");
      return NULL;
    }
    lp.rank = a;
    lp.cga_layout = field(&r, "CGALayout");
    if (!legacy_cta_fields(&r)) return NULL;
    break;
  }
  case AT_SLICE:
    if (!field_int(&r, "dim", true, &lp.dim)) return NULL;
    if (!(lp.parent = field_layout(&r, "parent"))) return NULL;
    break;
  case AT_NVIDIA_MMA: {
    if (!field_int(&r, "versionMajor", true, &lp.version_major)) return NULL;
    if (!field_int(&r, "versionMinor", false, &lp.version_minor)) return NULL;
    int w = field_ints(&r, "warpsPerCTA", true, lp.warps_per_cta, IR_MAX_RANK);
    int s = field_ints(&r, "instrShape", true, lp.instr_shape, 3);
    if (w <= 0 || s <= 0) {
      if (!r.ps->failed) parse_error_at(ps, pos, "#ttg.nvidia_mma needs non-empty warpsPerCTA and instrShape");
      return NULL;
    }
    lp.rank = w;
    lp.instr_rank = s;
    lp.cga_layout = field(&r, "CGALayout");
    if (!legacy_cta_fields(&r)) return NULL;
    break;
  }
  case AT_AMD_MFMA: {
    if (!field_int(&r, "version", true, &lp.version_major)) return NULL;
    int w = field_ints(&r, "warpsPerCTA", true, lp.warps_per_cta, IR_MAX_RANK);
    int s = field_ints(&r, "instrShape", true, lp.instr_shape, 3);
    if (w <= 0 || s <= 0) {
      if (!r.ps->failed) parse_error_at(ps, pos, "#ttg.amd_mfma needs non-empty warpsPerCTA and instrShape");
      return NULL;
    }
    lp.rank = w;
    lp.instr_rank = s;
    if (!field_bool(&r, "isTransposed", &lp.is_transposed)) return NULL;
    int t = field_ints(&r, "tilesPerWarp", false, lp.tiles_per_warp, IR_MAX_RANK);
    if (t < 0) return NULL;
    lp.tiles_per_warp_rank = t;
    if (!field_int(&r, "elementBitWidth", false, &lp.element_bit_width)) return NULL;
    lp.cga_layout = field(&r, "CGALayout");
    if (!legacy_cta_fields(&r)) return NULL;
    break;
  }
  case AT_DOT_OP:
    if (!field_int(&r, "opIdx", true, &lp.op_idx)) return NULL;
    if (!(lp.parent = field_layout(&r, "parent"))) return NULL;
    if (!field_int(&r, "kWidth", false, &lp.k_width)) return NULL;
    break;
  case AT_SWIZZLED_SHARED:
  case AT_AMD_ROTATING_SHARED: {
    if (!field_int(&r, "vec", true, &lp.vec) || !field_int(&r, "perPhase", true, &lp.per_phase) ||
        !field_int(&r, "maxPhase", true, &lp.max_phase))
      return NULL;
    int o = field_ints(&r, "order", true, lp.order, IR_MAX_RANK);
    if (o <= 0) {
      if (!r.ps->failed) parse_error_at(ps, pos, "#%s needs a non-empty order", what);
      return NULL;
    }
    lp.rank = o;
    lp.cga_layout = field(&r, "CGALayout");
    if (!legacy_cta_fields(&r)) return NULL;
    break;
  }
  case AT_NVMMA_SHARED:
    if (!field_int(&r, "swizzlingByteWidth", true, &lp.swizzling_byte_width)) return NULL;
    if (!field_bool(&r, "transposed", &lp.transposed)) return NULL;
    if (!field_int(&r, "elementBitWidth", true, &lp.element_bit_width)) return NULL;
    if (!field_bool(&r, "fp4Padded", &lp.fp4_padded)) return NULL;
    if (!field_int(&r, "rank", false, &lp.nvmma_rank)) return NULL;
    lp.cga_layout = field(&r, "CGALayout");
    if (!legacy_cta_fields(&r)) return NULL;
    break;
  case AT_LINEAR:
    lp.lin_register = field(&r, "register");
    lp.lin_lane = field(&r, "lane");
    lp.lin_warp = field(&r, "warp");
    lp.lin_block = field(&r, "block");
    if (!lp.lin_register || !lp.lin_lane || !lp.lin_warp) {
      parse_error_at(ps, pos, "#ttg.linear needs register, lane and warp bases");
      return NULL;
    }
    break;
  default: break;
  }
  if (!check_unused(&r)) return NULL;
  return ir_layout_attr(ps->ctx, kind, &lp);
}

static const struct {
  const char *name;
  ir_attr_kind kind;
} layout_names[] = {
    {"ttg.blocked", AT_BLOCKED},         {"ttg.slice", AT_SLICE},
    {"ttg.nvidia_mma", AT_NVIDIA_MMA},   {"ttg.amd_mfma", AT_AMD_MFMA},
    {"ttg.dot_op", AT_DOT_OP},           {"ttg.swizzled_shared", AT_SWIZZLED_SHARED},
    {"ttg.nvmma_shared", AT_NVMMA_SHARED}, {"ttg.linear", AT_LINEAR},
    {"ttg.amd_rotating_shared", AT_AMD_ROTATING_SHARED},
};

const ir_attr *parse_dialect_attr(parse_state *ps, const char *name, const ir_attr *body, src_pos pos) {
  for (size_t i = 0; i < sizeof layout_names / sizeof layout_names[0]; i++)
    if (strcmp(layout_names[i].name, name) == 0) return read_layout(ps, layout_names[i].kind, name, body, pos);
  if (strncmp(name, "triton_gpu.", 11) == 0)
    parse_error_at(ps, pos, "'#%s' is pre-3.2 Triton syntax; write '#ttg.%s'", name, name + 11);
  else
    parse_error_at(ps, pos, "unknown attribute '#%s'", name);
  return NULL;
}

const ir_attr *parse_attr_ref(parse_state *ps, const char *name, src_pos pos) {
  if (strcmp(name, "ttg.shared_memory") == 0) return ir_layout_attr(ps->ctx, AT_SHARED_MEMORY, NULL);
  for (int i = 0; i < ps->attr_aliases.n; i++) {
    parsed_entry *e = ps->attr_aliases.items[i];
    if (e->name == name) return e->value;
  }
  if (strchr(name, '.'))
    parse_error_at(ps, pos, "'#%s' needs parameters in <{...}>", name);
  else
    parse_error_at(ps, pos, "undefined attribute alias '#%s'", name);
  return NULL;
}

void parse_define_attr_alias(parse_state *ps, const char *name, const ir_attr *a, src_pos pos) {
  if (strchr(name, '.')) {
    parse_error_at(ps, pos, "attribute alias names cannot contain '.': '#%s'", name);
    return;
  }
  for (int i = 0; i < ps->attr_aliases.n; i++)
    if (((parsed_entry *)ps->attr_aliases.items[i])->name == name) {
      parse_error_at(ps, pos, "redefinition of attribute alias '#%s'", name);
      return;
    }
  parsed_entry *e = ir_alloc(ps->ctx, sizeof *e);
  e->name = name;
  e->value = a;
  e->pos = pos;
  pv_push(ps, &ps->attr_aliases, e);
}

/* ------------------------------------------------------------------ dense constants */

static const ir_attr *dense_leaf(parse_state *ps, const dense_node *n, const ir_type *elem) {
  if (n->is_list) {
    parse_error_at(ps, n->pos, "dense literal is nested deeper than its type's rank");
    return NULL;
  }
  if (n->word) {
    if (!ir_type_is_int(elem, 1) || (strcmp(n->word, "true") && strcmp(n->word, "false"))) {
      parse_error_at(ps, n->pos, "unexpected '%s' in dense literal of %s", n->word, ir_type_str(ps->ctx, elem));
      return NULL;
    }
    return ir_bool_attr(ps->ctx, n->word[0] == 't');
  }
  return parse_number_attr(ps, n->number, elem);
}

static bool dense_flatten(parse_state *ps, const dense_node *n, const ir_type *type, int dim, pvec *out) {
  if (dim == type->rank) {
    const ir_attr *a = dense_leaf(ps, n, type->elem);
    if (!a) return false;
    pv_push(ps, out, (void *)a);
    return true;
  }
  if (!n->is_list || n->children.n != type->shape[dim]) {
    parse_error_at(ps, n->pos, "dense literal does not match the shape of %s (dimension %d)",
                   ir_type_str(ps->ctx, type), dim);
    return false;
  }
  for (int i = 0; i < n->children.n; i++)
    if (!dense_flatten(ps, n->children.items[i], type, dim + 1, out)) return false;
  return true;
}

const ir_attr *parse_dense(parse_state *ps, const dense_node *body, const ir_type *type, src_pos pos) {
  if (!type || type->kind != TY_TENSOR) {
    parse_error_at(ps, pos, "dense<...> needs a tensor type");
    return NULL;
  }
  if (!body) {
    if (ir_type_num_elements(type) != 0) {
      parse_error_at(ps, pos, "empty dense literal for a non-empty tensor");
      return NULL;
    }
    return ir_dense_attr(ps->ctx, type, false, 0, NULL);
  }
  if (!body->is_list) {
    const ir_attr *a = dense_leaf(ps, body, type->elem);
    return a ? ir_dense_attr(ps->ctx, type, true, 1, &a) : NULL;
  }
  if (ir_type_num_elements(type) > (1 << 24)) {
    parse_error_at(ps, pos, "dense literal too large");
    return NULL;
  }
  pvec flat = {0};
  if (!dense_flatten(ps, body, type, 0, &flat)) return NULL;
  return ir_dense_attr(ps->ctx, type, false, flat.n, (const ir_attr *const *)flat.items);
}

const ir_attr *parse_dense_array(parse_state *ps, const ir_type *elem, pvec *numbers, src_pos pos) {
  if (!elem || elem->kind != TY_INT) {
    parse_error_at(ps, pos, "array<...> of non-integer elements is not supported");
    return NULL;
  }
  int64_t *v = numbers->n ? ir_alloc(ps->ctx, sizeof(int64_t) * (size_t)numbers->n) : NULL;
  for (int i = 0; i < numbers->n; i++) {
    const ir_attr *a = parse_number_attr(ps, numbers->items[i], elem);
    if (!a) return NULL;
    v[i] = a->int_value;
  }
  return ir_dense_int_array_attr(ps->ctx, elem, numbers->n, v);
}
