/* Interned types: constructors, predicates and small queries. */
#include <math.h>
#include <string.h>

#include "context_internal.h"

/* The canonical key of a type is its fields serialized; nested types are already unique
 * pointers, so the pointer value stands for them. */
static const ir_type *intern_type(gemmc_context *ctx, const ir_type *proto, const int64_t *shape,
                                  const int64_t *alloc_shape) {
  strbuf key;
  sb_init(&key, ctx);
  sb_put(&key, &proto->kind, sizeof proto->kind);
  sb_put(&key, &proto->width, sizeof proto->width);
  sb_put(&key, &proto->float_kind, sizeof proto->float_kind);
  sb_put(&key, &proto->elem, sizeof proto->elem);
  sb_put(&key, &proto->addr_space, sizeof proto->addr_space);
  sb_put(&key, &proto->rank, sizeof proto->rank);
  if (proto->rank) sb_put(&key, shape, sizeof(int64_t) * (size_t)proto->rank);
  sb_put(&key, &proto->encoding, sizeof proto->encoding);
  sb_put(&key, &proto->memspace, sizeof proto->memspace);
  sb_put(&key, &proto->is_mutable, sizeof proto->is_mutable);
  sb_put(&key, &proto->alloc_rank, sizeof proto->alloc_rank);
  if (proto->alloc_rank) sb_put(&key, alloc_shape, sizeof(int64_t) * (size_t)proto->alloc_rank);
  sb_put(&key, &proto->num_inputs, sizeof proto->num_inputs);
  sb_put(&key, &proto->num_results, sizeof proto->num_results);
  if (proto->num_inputs) sb_put(&key, proto->inputs, sizeof(void *) * (size_t)proto->num_inputs);
  if (proto->num_results) sb_put(&key, proto->results, sizeof(void *) * (size_t)proto->num_results);
  ir_type *found = intern_lookup(ctx, &ctx->types, key.data, key.len);
  if (found) {
    sb_free(&key);
    return found;
  }
  ir_type *t = ir_alloc(ctx, sizeof *t);
  *t = *proto;
  if (proto->rank) {
    int64_t *s = ir_alloc(ctx, sizeof(int64_t) * (size_t)proto->rank);
    memcpy(s, shape, sizeof(int64_t) * (size_t)proto->rank);
    t->shape = s;
  }
  if (proto->alloc_rank) {
    int64_t *s = ir_alloc(ctx, sizeof(int64_t) * (size_t)proto->alloc_rank);
    memcpy(s, alloc_shape, sizeof(int64_t) * (size_t)proto->alloc_rank);
    t->alloc_shape = s;
  }
  if (proto->num_inputs) {
    const ir_type **in = ir_alloc(ctx, sizeof(void *) * (size_t)proto->num_inputs);
    memcpy(in, proto->inputs, sizeof(void *) * (size_t)proto->num_inputs);
    t->inputs = in;
  }
  if (proto->num_results) {
    const ir_type **res = ir_alloc(ctx, sizeof(void *) * (size_t)proto->num_results);
    memcpy(res, proto->results, sizeof(void *) * (size_t)proto->num_results);
    t->results = res;
  }
  intern_insert(ctx, &ctx->types, key.data, key.len, t);
  sb_free(&key);
  return t;
}

const ir_type *ir_int_type(gemmc_context *ctx, unsigned width) {
  ir_type p = {0};
  p.kind = TY_INT;
  p.width = width;
  return intern_type(ctx, &p, NULL, NULL);
}

static const unsigned float_bits[FLT_COUNT] = {16, 16, 32, 64, 32, 8, 8, 8, 8, 8};
static const char *const float_names[FLT_COUNT] = {
    "f16", "bf16", "f32", "f64", "tf32", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ"};

const char *ir_float_kind_name(ir_float_kind k) { return k < FLT_COUNT ? float_names[k] : "?"; }

uint8_t ir_float_to_fp8_bits(ir_float_kind k, double v) {
  int mbits, bias;
  double max_finite;
  uint8_t nan;
  if (k == FLT_F8E4M3FN) {
    mbits = 3, bias = 7, max_finite = 448.0, nan = 0x7f;
  } else if (k == FLT_F8E5M2) {
    mbits = 2, bias = 15, max_finite = 57344.0, nan = 0x7e;
  } else {
    return 0;
  }
  if (v != v) return nan;
  uint8_t sign = signbit(v) ? 0x80 : 0;
  double a = fabs(v);
  if (a > max_finite) a = max_finite;
  if (a == 0) return sign;
  int e;
  frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  int exp = e - 1 + bias;
  if (exp < 1) exp = 1; /* subnormal */
  double m = nearbyint(ldexp(a, mbits - (exp - bias)));
  if (m >= (double)(2 << mbits)) {
    m /= 2;
    exp++;
  }
  if (m < (double)(1 << mbits)) return (uint8_t)(sign | (uint8_t)m);
  return (uint8_t)(sign | (exp << mbits) | ((int)m - (1 << mbits)));
}

const ir_type *ir_float_type(gemmc_context *ctx, ir_float_kind kind) {
  ir_type p = {0};
  p.kind = TY_FLOAT;
  p.float_kind = kind;
  p.width = float_bits[kind];
  return intern_type(ctx, &p, NULL, NULL);
}

const ir_type *ir_index_type(gemmc_context *ctx) {
  ir_type p = {0};
  p.kind = TY_INDEX;
  p.width = 64;
  return intern_type(ctx, &p, NULL, NULL);
}

const ir_type *ir_none_type(gemmc_context *ctx) {
  ir_type p = {0};
  p.kind = TY_NONE;
  return intern_type(ctx, &p, NULL, NULL);
}

const ir_type *ir_ptr_type(gemmc_context *ctx, const ir_type *pointee, int addr_space) {
  ir_type p = {0};
  p.kind = TY_PTR;
  p.elem = pointee;
  p.addr_space = addr_space;
  p.width = 64;
  return intern_type(ctx, &p, NULL, NULL);
}

const ir_type *ir_tensor_type(gemmc_context *ctx, int rank, const int64_t *shape, const ir_type *elem,
                              const ir_attr *encoding) {
  ir_type p = {0};
  p.kind = TY_TENSOR;
  p.rank = rank;
  p.elem = elem;
  p.encoding = encoding;
  return intern_type(ctx, &p, shape, NULL);
}

const ir_type *ir_memdesc_type(gemmc_context *ctx, int rank, const int64_t *shape, const ir_type *elem,
                               const ir_attr *encoding, const ir_attr *memspace, bool is_mutable,
                               int alloc_rank, const int64_t *alloc_shape) {
  ir_type p = {0};
  p.kind = TY_MEMDESC;
  p.rank = rank;
  p.elem = elem;
  p.encoding = encoding;
  p.memspace = memspace;
  p.is_mutable = is_mutable;
  p.alloc_rank = alloc_rank;
  return intern_type(ctx, &p, shape, alloc_shape);
}

const ir_type *ir_token_type(gemmc_context *ctx) {
  ir_type p = {0};
  p.kind = TY_TOKEN;
  return intern_type(ctx, &p, NULL, NULL);
}

const ir_type *ir_tensordesc_type(gemmc_context *ctx, int rank, const int64_t *shape, const ir_type *elem,
                                  const ir_attr *shared_layout) {
  ir_type p = {0};
  p.kind = TY_TENSORDESC;
  p.rank = rank;
  p.elem = elem;
  p.encoding = shared_layout;
  return intern_type(ctx, &p, shape, NULL);
}

const ir_type *ir_func_type(gemmc_context *ctx, int num_inputs, const ir_type *const *inputs,
                            int num_results, const ir_type *const *results) {
  ir_type p = {0};
  p.kind = TY_FUNC;
  p.num_inputs = num_inputs;
  p.inputs = inputs;
  p.num_results = num_results;
  p.results = results;
  return intern_type(ctx, &p, NULL, NULL);
}

bool ir_type_is_int(const ir_type *t, unsigned width) {
  return t && t->kind == TY_INT && (width == 0 || t->width == width);
}

bool ir_type_is_float(const ir_type *t) { return t && t->kind == TY_FLOAT; }

bool ir_type_is_tensor(const ir_type *t) { return t && t->kind == TY_TENSOR; }

const ir_type *ir_type_element(const ir_type *t) {
  return t && (t->kind == TY_TENSOR || t->kind == TY_MEMDESC || t->kind == TY_TENSORDESC) ? t->elem : t;
}

const ir_type *ir_type_with_element(gemmc_context *ctx, const ir_type *like, const ir_type *elem) {
  if (!like || like->kind != TY_TENSOR) return elem;
  return ir_tensor_type(ctx, like->rank, like->shape, elem, like->encoding);
}

const ir_type *ir_type_with_encoding(gemmc_context *ctx, const ir_type *tensor, const ir_attr *enc) {
  return ir_tensor_type(ctx, tensor->rank, tensor->shape, tensor->elem, enc);
}

int64_t ir_type_num_elements(const ir_type *t) {
  if (!t || (t->kind != TY_TENSOR && t->kind != TY_MEMDESC && t->kind != TY_TENSORDESC)) return 1;
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) n *= t->shape[i];
  return n;
}

int64_t ir_type_num_bytes(const ir_type *t) { return ir_type_num_elements(t) * (int64_t)(ir_type_bits(t) / 8); }

unsigned ir_type_bits(const ir_type *t) {
  t = ir_type_element(t);
  if (!t) return 0;
  switch (t->kind) {
  case TY_INT:
  case TY_FLOAT: return t->width;
  case TY_PTR:
  case TY_INDEX: return 64;
  default: return 0;
  }
}
