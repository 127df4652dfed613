/* Interned attributes: scalars, containers, dense constants and layout encodings. */
#include <stdlib.h>
#include <string.h>

#include "context_internal.h"

static void key_attr_common(strbuf *k, const ir_attr *a) {
  sb_put(k, &a->kind, sizeof a->kind);
  sb_put(k, &a->type, sizeof a->type);
  sb_put(k, &a->int_value, sizeof a->int_value);
  sb_put(k, &a->float_value, sizeof a->float_value);
  sb_put(k, &a->str_len, sizeof a->str_len);
  if (a->str_len) sb_put(k, a->str, a->str_len);
  sb_put(k, &a->num_elems, sizeof a->num_elems);
  sb_put(k, &a->dense_splat, sizeof a->dense_splat);
  if (a->num_elems && a->elems) sb_put(k, a->elems, sizeof(void *) * (size_t)a->num_elems);
  if (a->num_elems && a->names) sb_put(k, a->names, sizeof(void *) * (size_t)a->num_elems);
  if (a->num_elems && a->ints) sb_put(k, a->ints, sizeof(int64_t) * (size_t)a->num_elems);
  if (a->num_elems && a->floats) sb_put(k, a->floats, sizeof(double) * (size_t)a->num_elems);
  /* Layout fields one by one from the one field list (the struct has padding that must not
   * reach the key). */
  const ir_layout_params *l = &a->layout;
#define KEY_SCALAR(type, name) sb_put(k, &l->name, sizeof l->name);
#define KEY_ARRAY(type, name, n) sb_put(k, l->name, sizeof l->name);
  IR_LAYOUT_FIELDS(KEY_SCALAR, KEY_ARRAY)
#undef KEY_SCALAR
#undef KEY_ARRAY
}

/* proto's arrays are copied into the arena when the attribute is new. */
static const ir_attr *intern_attr(gemmc_context *ctx, const ir_attr *proto) {
  strbuf key;
  sb_init(&key, ctx);
  key_attr_common(&key, proto);
  ir_attr *found = intern_lookup(ctx, &ctx->attrs, key.data, key.len);
  if (found) {
    sb_free(&key);
    return found;
  }
  ir_attr *a = ir_alloc(ctx, sizeof *a);
  *a = *proto;
  if (proto->str) a->str = ir_intern_string(ctx, proto->str, proto->str_len);
  size_t n = (size_t)proto->num_elems;
  if (n && proto->elems) {
    const ir_attr **e = ir_alloc(ctx, sizeof(void *) * n);
    memcpy(e, proto->elems, sizeof(void *) * n);
    a->elems = e;
  }
  if (n && proto->names) {
    const char **nm = ir_alloc(ctx, sizeof(void *) * n);
    memcpy(nm, proto->names, sizeof(void *) * n);
    a->names = nm;
  }
  if (n && proto->ints) {
    int64_t *v = ir_alloc(ctx, sizeof(int64_t) * n);
    memcpy(v, proto->ints, sizeof(int64_t) * n);
    a->ints = v;
  }
  if (n && proto->floats) {
    double *v = ir_alloc(ctx, sizeof(double) * n);
    memcpy(v, proto->floats, sizeof(double) * n);
    a->floats = v;
  }
  intern_insert(ctx, &ctx->attrs, key.data, key.len, a);
  sb_free(&key);
  return a;
}

static int64_t sign_extend(int64_t v, const ir_type *type) {
  if (!type || type->kind != TY_INT || type->width >= 64 || type->width == 0) return v;
  unsigned w = type->width;
  uint64_t mask = (w == 64) ? ~0ull : ((1ull << w) - 1);
  uint64_t u = (uint64_t)v & mask;
  if (w > 1 && (u >> (w - 1)) & 1) u |= ~mask;
  if (w == 1) return (int64_t)(u & 1);
  return (int64_t)u;
}

const ir_attr *ir_int_attr(gemmc_context *ctx, int64_t v, const ir_type *type) {
  ir_attr p = {0};
  p.kind = AT_INT;
  p.type = type;
  p.int_value = sign_extend(v, type);
  return intern_attr(ctx, &p);
}

const ir_attr *ir_i32_attr(gemmc_context *ctx, int64_t v) { return ir_int_attr(ctx, v, ctx->i32); }

const ir_attr *ir_float_attr(gemmc_context *ctx, double v, const ir_type *type) {
  ir_attr p = {0};
  p.kind = AT_FLOAT;
  p.type = type;
  p.float_value = v;
  return intern_attr(ctx, &p);
}

const ir_attr *ir_bool_attr(gemmc_context *ctx, bool v) {
  ir_attr p = {0};
  p.kind = AT_BOOL;
  p.int_value = v;
  p.type = ctx->i1;
  return intern_attr(ctx, &p);
}

const ir_attr *ir_string_attr(gemmc_context *ctx, const char *s, size_t len) {
  ir_attr p = {0};
  p.kind = AT_STRING;
  p.str = s;
  p.str_len = len;
  return intern_attr(ctx, &p);
}

const ir_attr *ir_keyword_attr(gemmc_context *ctx, const char *s) {
  ir_attr p = {0};
  p.kind = AT_KEYWORD;
  p.str = s;
  p.str_len = strlen(s);
  return intern_attr(ctx, &p);
}

const ir_attr *ir_symbol_attr(gemmc_context *ctx, const char *s) {
  ir_attr p = {0};
  p.kind = AT_SYMBOL;
  p.str = s;
  p.str_len = strlen(s);
  return intern_attr(ctx, &p);
}

const ir_attr *ir_unit_attr(gemmc_context *ctx) {
  ir_attr p = {0};
  p.kind = AT_UNIT;
  return intern_attr(ctx, &p);
}

const ir_attr *ir_type_attr(gemmc_context *ctx, const ir_type *t) {
  ir_attr p = {0};
  p.kind = AT_TYPE;
  p.type = t;
  return intern_attr(ctx, &p);
}

const ir_attr *ir_array_attr(gemmc_context *ctx, int n, const ir_attr *const *elems) {
  ir_attr p = {0};
  p.kind = AT_ARRAY;
  p.num_elems = n;
  p.elems = elems;
  return intern_attr(ctx, &p);
}

typedef struct dict_pair {
  const char *name;
  const ir_attr *value;
} dict_pair;

static int cmp_pair(const void *a, const void *b) {
  return strcmp(((const dict_pair *)a)->name, ((const dict_pair *)b)->name);
}

const ir_attr *ir_dict_attr(gemmc_context *ctx, int n, const char *const *names,
                            const ir_attr *const *values) {
  dict_pair *pairs = n ? ctx_raw_alloc(ctx, sizeof(dict_pair) * (size_t)n) : NULL;
  for (int i = 0; i < n; i++) {
    pairs[i].name = ir_intern_string(ctx, names[i], strlen(names[i]));
    pairs[i].value = values[i];
  }
  if (n > 1) qsort(pairs, (size_t)n, sizeof *pairs, cmp_pair);
  const char **nm = n ? ctx_raw_alloc(ctx, sizeof(void *) * (size_t)n) : NULL;
  const ir_attr **vals = n ? ctx_raw_alloc(ctx, sizeof(void *) * (size_t)n) : NULL;
  for (int i = 0; i < n; i++) {
    nm[i] = pairs[i].name;
    vals[i] = pairs[i].value;
  }
  ir_attr p = {0};
  p.kind = AT_DICT;
  p.num_elems = n;
  p.names = nm;
  p.elems = vals;
  const ir_attr *r = intern_attr(ctx, &p);
  ctx_raw_free(ctx, pairs, sizeof(dict_pair) * (size_t)n);
  ctx_raw_free(ctx, nm, sizeof(void *) * (size_t)n);
  ctx_raw_free(ctx, vals, sizeof(void *) * (size_t)n);
  return r;
}

const ir_attr *ir_dict_get(const ir_attr *dict, const char *name) {
  if (!dict || dict->kind != AT_DICT) return NULL;
  for (int i = 0; i < dict->num_elems; i++)
    if (strcmp(dict->names[i], name) == 0) return dict->elems[i];
  return NULL;
}

const ir_attr *ir_dense_attr(gemmc_context *ctx, const ir_type *type, bool splat, int n,
                             const ir_attr *const *elems) {
  ir_attr p = {0};
  p.kind = AT_DENSE;
  p.type = type;
  p.dense_splat = splat;
  p.num_elems = n;
  p.elems = elems;
  return intern_attr(ctx, &p);
}

const ir_attr *ir_dense_int_array_attr(gemmc_context *ctx, const ir_type *elem, int n, const int64_t *v) {
  ir_attr p = {0};
  p.kind = AT_DENSE_ARRAY;
  p.type = elem;
  p.num_elems = n;
  p.ints = v;
  return intern_attr(ctx, &p);
}

const ir_attr *ir_layout_attr(gemmc_context *ctx, ir_attr_kind kind, const ir_layout_params *params) {
  ir_attr p = {0};
  p.kind = kind;
  if (params) p.layout = *params;
  return intern_attr(ctx, &p);
}

bool ir_attr_is_layout(const ir_attr *a) { return a && a->kind >= AT_BLOCKED && a->kind <= AT_LINEAR; }

const char *ir_attr_kind_name(ir_attr_kind kind) {
  switch (kind) {
  case AT_BLOCKED: return "ttg.blocked";
  case AT_SLICE: return "ttg.slice";
  case AT_NVIDIA_MMA: return "ttg.nvidia_mma";
  case AT_AMD_MFMA: return "ttg.amd_mfma";
  case AT_DOT_OP: return "ttg.dot_op";
  case AT_SWIZZLED_SHARED: return "ttg.swizzled_shared";
  case AT_NVMMA_SHARED: return "ttg.nvmma_shared";
  case AT_AMD_ROTATING_SHARED: return "ttg.amd_rotating_shared";
  case AT_SHARED_MEMORY: return "ttg.shared_memory";
  case AT_LINEAR: return "ttg.linear";
  case AT_INT: return "integer";
  case AT_FLOAT: return "float";
  case AT_BOOL: return "bool";
  case AT_STRING: return "string";
  case AT_ARRAY: return "array";
  case AT_DENSE: return "dense";
  case AT_DENSE_ARRAY: return "dense array";
  case AT_DICT: return "dictionary";
  case AT_TYPE: return "type";
  case AT_UNIT: return "unit";
  case AT_SYMBOL: return "symbol";
  case AT_KEYWORD: return "keyword";
  default: return "attribute";
  }
}
