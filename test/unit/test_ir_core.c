/* Unit tests of the IR core: arena, interning of types and attributes, use lists, custom allocator, the shared helpers of lib/ir/util.h. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gemmc/ir.h"
#include "gemmc/tile_access.h"
#include "ir/util.h"

/* Each CHECK that fails prints where and what, and counts one failure in *failures. */
#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);            \
      (*failures)++;                                                             \
    }                                                                            \
  } while (0)

/* ------------------------------------------------------------------ arena */

static bool all_zero(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i]) return false;
  return true;
}

static void test_arena(int *failures) {
  gemmc_context *ctx = gemmc_context_create();
  enum { N = 20000 };
  unsigned char **blocks = calloc(N, sizeof *blocks);
  size_t *sizes = calloc(N, sizeof *sizes);
  CHECK(blocks && sizes);
  if (!blocks || !sizes) return;
  /* Many small and medium allocations: zero-filled, 16-byte aligned, not overlapping
   * (each is filled with its own byte pattern and checked after all are made). */
  for (int i = 0; i < N; i++) {
    sizes[i] = (size_t)(1 + (i * 37) % 700);
    blocks[i] = ir_alloc(ctx, sizes[i]);
    CHECK(blocks[i] != NULL);
    if (!blocks[i]) break;
    CHECK(((uintptr_t)blocks[i] & 15) == 0);
    if (!all_zero(blocks[i], sizes[i])) {
      CHECK(!"small allocation is zero-filled");
      break;
    }
    memset(blocks[i], (i % 251) + 1, sizes[i]);
  }
  for (int i = 0; i < N && blocks[i]; i++) {
    bool intact = true;
    for (size_t j = 0; j < sizes[i]; j++) intact &= blocks[i][j] == (unsigned char)((i % 251) + 1);
    if (!intact) {
      CHECK(!"allocations do not overlap");
      break;
    }
  }
  /* Large allocations (beyond the chunk size) and a zero-byte one. */
  size_t big_sizes[3] = {65536, 1u << 20, 5u << 20};
  for (int i = 0; i < 3; i++) {
    unsigned char *p = ir_alloc(ctx, big_sizes[i]);
    CHECK(p != NULL);
    if (!p) continue;
    CHECK(all_zero(p, big_sizes[i]));
    memset(p, 0xab, big_sizes[i]);
  }
  unsigned char *after = ir_alloc(ctx, 64);
  CHECK(after && all_zero(after, 64));
  CHECK(ir_alloc(ctx, 0) != NULL);
  char *s = ir_strdup(ctx, "tt.load", 7);
  CHECK(strcmp(s, "tt.load") == 0);
  s = ir_strdup(ctx, "abcdef", 3);
  CHECK(strcmp(s, "abc") == 0);
  CHECK(!gemmc_context_out_of_memory(ctx));
  gemmc_context_destroy(ctx);
  free(blocks);
  free(sizes);
}

/* ------------------------------------------------------------------ interning */

static void test_type_interning(int *failures) {
  gemmc_context *ctx = gemmc_context_create();
  const ir_type *i32 = ir_int_type(ctx, 32), *i64 = ir_int_type(ctx, 64);
  CHECK(i32 == ir_int_type(ctx, 32));
  CHECK(i32 != i64);
  CHECK(ir_int_type(ctx, 1) == ir_int_type(ctx, 1));
  CHECK(i32->kind == TY_INT && i32->width == 32);
  const ir_type *f16 = ir_float_type(ctx, FLT_F16), *bf16 = ir_float_type(ctx, FLT_BF16);
  CHECK(f16 == ir_float_type(ctx, FLT_F16));
  CHECK(f16 != bf16 && f16->width == 16 && bf16->width == 16);
  CHECK(ir_float_type(ctx, FLT_F8E4M3FN)->width == 8);
  CHECK(ir_index_type(ctx) == ir_index_type(ctx));
  CHECK(ir_none_type(ctx) == ir_none_type(ctx) && ir_none_type(ctx) != ir_index_type(ctx));
  CHECK(ir_token_type(ctx) == ir_token_type(ctx));

  const ir_type *p = ir_ptr_type(ctx, f16, 1);
  CHECK(p == ir_ptr_type(ctx, f16, 1));
  CHECK(p != ir_ptr_type(ctx, f16, 3));
  CHECK(p != ir_ptr_type(ctx, bf16, 1));
  CHECK(p->elem == f16);

  int64_t s1[2] = {128, 64}, s2[2] = {128, 64}, s3[2] = {64, 128};
  const ir_type *t = ir_tensor_type(ctx, 2, s1, f16, NULL);
  CHECK(t == ir_tensor_type(ctx, 2, s2, f16, NULL)); /* shape compared by value */
  CHECK(t != ir_tensor_type(ctx, 2, s3, f16, NULL));
  CHECK(t != ir_tensor_type(ctx, 1, s1, f16, NULL));
  CHECK(t->shape != s1 && t->shape[0] == 128 && t->shape[1] == 64);
  s2[0] = 7; /* the type owns a copy */
  CHECK(t->shape[0] == 128);
  CHECK(ir_tensor_type(ctx, 1, s3, p, NULL) == ir_tensor_type(ctx, 1, s3, ir_ptr_type(ctx, f16, 1), NULL));

  ir_layout_params lp;
  memset(&lp, 0, sizeof lp);
  lp.rank = 2;
  lp.size_per_thread[0] = 1, lp.size_per_thread[1] = 4;
  lp.threads_per_warp[0] = 2, lp.threads_per_warp[1] = 16;
  lp.warps_per_cta[0] = 4, lp.warps_per_cta[1] = 1;
  lp.order[0] = 1, lp.order[1] = 0;
  const ir_attr *enc = ir_layout_attr(ctx, AT_BLOCKED, &lp);
  const ir_type *te = ir_tensor_type(ctx, 2, s1, f16, enc);
  CHECK(te != t);
  CHECK(te == ir_tensor_type(ctx, 2, s1, f16, ir_layout_attr(ctx, AT_BLOCKED, &lp)));
  CHECK(ir_type_with_encoding(ctx, t, enc) == te);
  CHECK(ir_type_with_encoding(ctx, te, NULL) == t);
  CHECK(ir_type_with_element(ctx, te, i32) == ir_tensor_type(ctx, 2, s1, i32, enc));
  CHECK(ir_type_with_element(ctx, i64, i32) == i32);
  CHECK(ir_type_element(te) == f16 && ir_type_element(f16) == f16);
  CHECK(ir_type_num_elements(te) == 128 * 64 && ir_type_num_elements(i32) == 1);
  CHECK(ir_type_bits(te) == 16 && ir_type_bits(p) == 64);

  const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
  ir_layout_params sp;
  memset(&sp, 0, sizeof sp);
  sp.rank = 2;
  sp.vec = 8, sp.per_phase = 1, sp.max_phase = 8;
  sp.order[0] = 1;
  const ir_attr *shared = ir_layout_attr(ctx, AT_SWIZZLED_SHARED, &sp);
  int64_t ms[3] = {3, 128, 64}, alloc[3] = {3, 128, 64};
  const ir_type *m = ir_memdesc_type(ctx, 3, ms, f16, shared, smem, true, 0, NULL);
  CHECK(m == ir_memdesc_type(ctx, 3, ms, f16, shared, smem, true, 0, NULL));
  CHECK(m != ir_memdesc_type(ctx, 3, ms, f16, shared, smem, false, 0, NULL));
  CHECK(m != ir_memdesc_type(ctx, 3, ms, f16, shared, smem, true, 3, alloc));
  CHECK(ir_memdesc_type(ctx, 2, ms + 1, f16, shared, smem, true, 3, alloc) ==
        ir_memdesc_type(ctx, 2, ms + 1, f16, shared, smem, true, 3, alloc));

  const ir_type *in[2] = {p, i32}, *in2[2] = {p, i32}, *out[1] = {f16};
  const ir_type *fn = ir_func_type(ctx, 2, in, 1, out);
  CHECK(fn == ir_func_type(ctx, 2, in2, 1, out));
  CHECK(fn != ir_func_type(ctx, 2, in, 0, NULL));
  CHECK(fn != ir_func_type(ctx, 1, in, 1, out));
  CHECK(fn->num_inputs == 2 && fn->inputs[1] == i32 && fn->results[0] == f16);
  CHECK(ir_func_type(ctx, 0, NULL, 0, NULL) == ir_func_type(ctx, 0, NULL, 0, NULL));

  /* Many distinct types force the intern table to grow; all stay unique and findable. */
  const ir_type *many[3000];
  for (int i = 0; i < 3000; i++) {
    int64_t n = i + 1;
    many[i] = ir_tensor_type(ctx, 1, &n, i32, NULL);
  }
  bool all_found = true;
  for (int i = 0; i < 3000; i++) {
    int64_t n = i + 1;
    all_found &= many[i] == ir_tensor_type(ctx, 1, &n, i32, NULL) && many[i]->shape[0] == n;
  }
  CHECK(all_found);
  gemmc_context_destroy(ctx);
}

static void test_attr_interning(int *failures) {
  gemmc_context *ctx = gemmc_context_create();
  const ir_type *i32 = ir_int_type(ctx, 32), *i64 = ir_int_type(ctx, 64), *f32 = ir_float_type(ctx, FLT_F32);
  CHECK(ir_int_attr(ctx, 16, i32) == ir_i32_attr(ctx, 16));
  CHECK(ir_int_attr(ctx, 16, i32) != ir_int_attr(ctx, 16, i64));
  CHECK(ir_int_attr(ctx, 16, i32) != ir_int_attr(ctx, 17, i32));
  CHECK(ir_i32_attr(ctx, 16)->int_value == 16);
  CHECK(ir_int_attr(ctx, 0xffffffff, i32)->int_value == -1); /* values are kept sign-extended to the width */
  CHECK(ir_float_attr(ctx, 1.0, f32) == ir_float_attr(ctx, 1.0, f32));
  CHECK(ir_float_attr(ctx, 1.0, f32) != ir_float_attr(ctx, 2.0, f32));
  CHECK(ir_bool_attr(ctx, true) == ir_bool_attr(ctx, true) && ir_bool_attr(ctx, true) != ir_bool_attr(ctx, false));
  CHECK(ir_unit_attr(ctx) == ir_unit_attr(ctx));
  CHECK(ir_string_attr(ctx, "cuda:80", 7) == ir_string_attr(ctx, "cuda:80xx", 7));
  CHECK(ir_string_attr(ctx, "ieee", 4) != ir_keyword_attr(ctx, "ieee"));
  CHECK(ir_keyword_attr(ctx, "tf32") == ir_keyword_attr(ctx, "tf32"));
  CHECK(ir_symbol_attr(ctx, "kernel") == ir_symbol_attr(ctx, "kernel"));
  CHECK(ir_symbol_attr(ctx, "kernel") != ir_string_attr(ctx, "kernel", 6));
  CHECK(ir_type_attr(ctx, f32) == ir_type_attr(ctx, f32) && ir_type_attr(ctx, f32) != ir_type_attr(ctx, i32));
  CHECK(ir_intern_string(ctx, "axis", 4) == ir_intern_string(ctx, "axis!", 4));

  const ir_attr *e1[2] = {ir_i32_attr(ctx, 1), ir_i32_attr(ctx, 0)}, *e2[2] = {ir_i32_attr(ctx, 1), ir_i32_attr(ctx, 0)};
  CHECK(ir_array_attr(ctx, 2, e1) == ir_array_attr(ctx, 2, e2));
  CHECK(ir_array_attr(ctx, 2, e1) != ir_array_attr(ctx, 1, e1));
  CHECK(ir_array_attr(ctx, 0, NULL) == ir_array_attr(ctx, 0, NULL));

  int64_t v1[2] = {1, 0}, v2[2] = {1, 0}, v3[2] = {0, 1};
  CHECK(ir_dense_int_array_attr(ctx, i32, 2, v1) == ir_dense_int_array_attr(ctx, i32, 2, v2));
  CHECK(ir_dense_int_array_attr(ctx, i32, 2, v1) != ir_dense_int_array_attr(ctx, i32, 2, v3));

  int64_t shape[1] = {16};
  const ir_type *t = ir_tensor_type(ctx, 1, shape, f32, NULL);
  const ir_attr *zero = ir_float_attr(ctx, 0.0, f32);
  CHECK(ir_dense_attr(ctx, t, true, 1, &zero) == ir_dense_attr(ctx, t, true, 1, &zero));
  CHECK(ir_dense_attr(ctx, t, true, 1, &zero) != ir_dense_attr(ctx, t, true, 1, (const ir_attr *[]){ir_float_attr(ctx, 1.0, f32)}));

  /* Dictionaries: sorted by name; insertion order does not matter. */
  const char *names_a[3] = {"tt.divisibility", "axis", "noinline"}, *names_b[3] = {"noinline", "tt.divisibility", "axis"};
  const ir_attr *vals_a[3] = {ir_i32_attr(ctx, 16), ir_i32_attr(ctx, 1), ir_bool_attr(ctx, false)};
  const ir_attr *vals_b[3] = {ir_bool_attr(ctx, false), ir_i32_attr(ctx, 16), ir_i32_attr(ctx, 1)};
  const ir_attr *d1 = ir_dict_attr(ctx, 3, names_a, vals_a), *d2 = ir_dict_attr(ctx, 3, names_b, vals_b);
  CHECK(d1 == d2);
  CHECK(d1->num_elems == 3 && strcmp(d1->names[0], "axis") == 0 && strcmp(d1->names[1], "noinline") == 0 &&
        strcmp(d1->names[2], "tt.divisibility") == 0);
  CHECK(ir_dict_get(d1, "tt.divisibility") == ir_i32_attr(ctx, 16));
  CHECK(ir_dict_get(d1, "axis") == ir_i32_attr(ctx, 1));
  CHECK(ir_dict_get(d1, "missing") == NULL);
  CHECK(d1 != ir_dict_attr(ctx, 2, names_a, vals_a));
  vals_b[0] = ir_bool_attr(ctx, true);
  CHECK(d1 != ir_dict_attr(ctx, 3, names_b, vals_b));
  CHECK(ir_dict_attr(ctx, 0, NULL, NULL) == ir_dict_attr(ctx, 0, NULL, NULL));

  /* Layout attributes. */
  ir_layout_params a, b;
  memset(&a, 0, sizeof a);
  a.rank = 1;
  a.size_per_thread[0] = 4;
  a.threads_per_warp[0] = 32;
  a.warps_per_cta[0] = 4;
  b = a;
  const ir_attr *bl = ir_layout_attr(ctx, AT_BLOCKED, &a);
  CHECK(bl == ir_layout_attr(ctx, AT_BLOCKED, &b));
  CHECK(ir_attr_is_layout(bl) && !ir_attr_is_layout(d1));
  b.size_per_thread[0] = 8;
  CHECK(bl != ir_layout_attr(ctx, AT_BLOCKED, &b));
  ir_layout_params sl;
  memset(&sl, 0, sizeof sl);
  sl.dim = 0;
  sl.parent = bl;
  const ir_attr *s1 = ir_layout_attr(ctx, AT_SLICE, &sl);
  CHECK(s1 == ir_layout_attr(ctx, AT_SLICE, &sl));
  sl.dim = 1;
  CHECK(s1 != ir_layout_attr(ctx, AT_SLICE, &sl));
  ir_layout_params mma;
  memset(&mma, 0, sizeof mma);
  mma.rank = 2;
  mma.version_major = 2;
  mma.warps_per_cta[0] = 2, mma.warps_per_cta[1] = 2;
  mma.instr_rank = 2;
  mma.instr_shape[0] = 16, mma.instr_shape[1] = 8;
  const ir_attr *m1 = ir_layout_attr(ctx, AT_NVIDIA_MMA, &mma);
  CHECK(m1 == ir_layout_attr(ctx, AT_NVIDIA_MMA, &mma));
  ir_layout_params dot;
  memset(&dot, 0, sizeof dot);
  dot.op_idx = 0;
  dot.parent = m1;
  dot.k_width = 2;
  const ir_attr *dop = ir_layout_attr(ctx, AT_DOT_OP, &dot);
  CHECK(dop == ir_layout_attr(ctx, AT_DOT_OP, &dot));
  dot.op_idx = 1;
  CHECK(dop != ir_layout_attr(ctx, AT_DOT_OP, &dot));
  /* Same parameters, different kind: different attributes. */
  CHECK(ir_layout_attr(ctx, AT_BLOCKED, &mma) != m1);
  CHECK(ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL) == ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL));
  CHECK(strcmp(ir_attr_kind_name(AT_BLOCKED), "ttg.blocked") == 0);
  gemmc_context_destroy(ctx);
}

/* ------------------------------------------------------------------ use lists */

/* Every use in v's list is an operand that holds v, and the list has `want` entries. */
static bool uses_consistent(const ir_value *v, int want) {
  int n = 0;
  const ir_operand *prev = NULL;
  for (const ir_operand *u = v->first_use; u; u = u->next_use) {
    if (u->value != v || u->prev_use != prev) return false;
    if (u->index < 0 || u->index >= u->owner->num_operands || &u->owner->operands[u->index] != u) return false;
    prev = u;
    n++;
  }
  return n == want && ir_value_num_uses(v) == want;
}

static ir_op *make_const(gemmc_context *ctx, ir_block *b, int64_t v) {
  const ir_type *i32 = ir_int_type(ctx, 32);
  ir_op *op = ir_op_create(ctx, OP_CONSTANT, 0, NULL, 1, &i32, 0, NULL);
  ir_op_set_attr(ctx, op, "value", ir_i32_attr(ctx, v));
  ir_block_append_op(b, op);
  return op;
}

static ir_op *make_binary(gemmc_context *ctx, ir_block *b, ir_op_kind kind, ir_value *x, ir_value *y) {
  const ir_type *i32 = ir_int_type(ctx, 32);
  ir_value *ops[2] = {x, y};
  ir_op *op = ir_op_create(ctx, kind, 2, ops, 1, &i32, 0, NULL);
  ir_block_append_op(b, op);
  return op;
}

static void test_use_lists(int *failures) {
  gemmc_context *ctx = gemmc_context_create();
  ir_block *b = ir_block_create(ctx);
  ir_value *a = &make_const(ctx, b, 1)->results[0];
  ir_value *c = &make_const(ctx, b, 2)->results[0];
  CHECK(uses_consistent(a, 0) && a->def_op && a->index == 0);

  ir_op *add = make_binary(ctx, b, OP_ADDI, a, a);
  ir_op *mul = make_binary(ctx, b, OP_MULI, a, c);
  CHECK(uses_consistent(a, 3));
  CHECK(uses_consistent(c, 1));
  CHECK(ir_value_has_one_use(c) && !ir_value_has_one_use(a));
  CHECK(add->operands[0].owner == add && add->operands[1].index == 1);

  /* set_operand moves one use. */
  ir_op_set_operand(add, 1, c);
  CHECK(uses_consistent(a, 2) && uses_consistent(c, 2));

  /* replace-all-uses moves every use, including two in one op. */
  ir_value *r = &add->results[0];
  ir_op *sub = make_binary(ctx, b, OP_SUBI, r, r);
  CHECK(uses_consistent(r, 2));
  ir_value_replace_all_uses(a, c);
  CHECK(uses_consistent(a, 0) && uses_consistent(c, 4));
  CHECK(add->operands[0].value == c && mul->operands[0].value == c);
  ir_value_replace_all_uses(c, c); /* no-op */
  CHECK(uses_consistent(c, 4));

  /* Erasing an op drops its uses (its operands' lists shrink) and unlinks it from the block. */
  ir_op_erase(sub);
  CHECK(uses_consistent(r, 0));
  CHECK(b->last == mul && mul->next == NULL);
  ir_op_erase(mul);
  CHECK(uses_consistent(c, 2));

  /* add_operand / remove_operand on a variadic op keep every list right. */
  ir_op *yield = ir_op_create(ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL);
  ir_block_append_op(b, yield);
  ir_value *vals[5] = {a, c, r, a, c};
  for (int i = 0; i < 5; i++) ir_op_add_operand(ctx, yield, vals[i]);
  CHECK(yield->num_operands == 5);
  CHECK(uses_consistent(a, 2) && uses_consistent(c, 4) && uses_consistent(r, 1));
  for (int i = 0; i < 5; i++) CHECK(yield->operands[i].value == vals[i] && yield->operands[i].index == i);
  ir_op_remove_operand(yield, 1); /* drops a use of c */
  CHECK(yield->num_operands == 4);
  CHECK(yield->operands[0].value == a && yield->operands[1].value == r && yield->operands[2].value == a &&
        yield->operands[3].value == c);
  CHECK(uses_consistent(a, 2) && uses_consistent(c, 3) && uses_consistent(r, 1));
  ir_op_remove_operand(yield, 3); /* the last one */
  CHECK(yield->num_operands == 3 && uses_consistent(c, 2));
  ir_op_remove_operand(yield, 0);
  CHECK(yield->num_operands == 2 && uses_consistent(a, 1) && uses_consistent(r, 1));
  ir_op_add_operand(ctx, yield, r);
  CHECK(uses_consistent(r, 2) && yield->operands[2].value == r);
  ir_value_replace_all_uses(r, a);
  CHECK(uses_consistent(r, 0) && uses_consistent(a, 3));

  /* Unlink keeps uses (for moving ops); insertion places ops. */
  ir_op *k3 = make_const(ctx, b, 3);
  ir_op_unlink(k3);
  CHECK(b->last == yield);
  ir_op_insert_before(yield, k3);
  CHECK(yield->prev == k3 && k3->next == yield && k3->parent == b);
  ir_op *k4 = make_const(ctx, b, 4);
  ir_op_unlink(k4);
  ir_op_insert_after(yield, k4);
  CHECK(b->last == k4 && k4->prev == yield);
  ir_op_unlink(k4);
  CHECK(ir_block_terminator(b) == yield);
  ir_op *first = b->first;
  ir_op *k0 = make_const(ctx, b, 0);
  ir_op_unlink(k0);
  ir_op_insert_before(first, k0);
  CHECK(b->first == k0 && k0->next == first && first->prev == k0);

  /* Block arguments take uses like results. */
  ir_value *arg = ir_block_add_arg(ctx, b, ir_int_type(ctx, 32), NULL);
  CHECK(arg->owner_block == b && arg->index == 0 && b->num_args == 1 && arg->def_op == NULL);
  ir_op_set_operand(yield, 0, arg);
  CHECK(uses_consistent(arg, 1) && uses_consistent(a, 2));

  /* Attributes on ops stay sorted; get / remove. */
  ir_op_set_attr(ctx, k3, "zeta", ir_unit_attr(ctx));
  ir_op_set_attr(ctx, k3, "alpha", ir_i32_attr(ctx, 1));
  ir_op_set_attr(ctx, k3, "alpha", ir_i32_attr(ctx, 2));
  CHECK(k3->num_attrs == 3 && strcmp(k3->attrs[0].name, "alpha") == 0 && strcmp(k3->attrs[2].name, "zeta") == 0);
  CHECK(ir_op_get_int_attr(k3, "alpha", -1) == 2 && ir_op_get_int_attr(k3, "beta", -1) == -1);
  CHECK(ir_op_remove_attr(k3, "zeta") && !ir_op_remove_attr(k3, "zeta") && k3->num_attrs == 2);
  gemmc_context_destroy(ctx);
}

/* ------------------------------------------------------------------ custom allocator */

typedef struct counting_alloc {
  long live_blocks;
  long long live_bytes;
  long calls;
} counting_alloc;

static void *counting_fn(void *user, void *ptr, size_t old_size, size_t new_size) {
  counting_alloc *c = user;
  c->calls++;
  if (new_size == 0) {
    if (ptr) {
      c->live_blocks--;
      c->live_bytes -= (long long)old_size;
    }
    free(ptr);
    return NULL;
  }
  void *q = realloc(ptr, new_size);
  if (!q) return NULL;
  if (!ptr) c->live_blocks++;
  c->live_bytes += (long long)new_size - (long long)(ptr ? old_size : 0);
  return q;
}

static void test_custom_allocator(int *failures) {
  counting_alloc counts = {0, 0, 0};
  gemmc_context *ctx = gemmc_context_create_with_allocator(counting_fn, &counts);
  CHECK(ctx != NULL);
  if (!ctx) return;
  CHECK(counts.live_blocks > 0);
  /* Exercise every allocating path: arena chunks (small and large), intern tables growing,
   * dict scratch memory, op and block storage. */
  const ir_type *i32 = ir_int_type(ctx, 32);
  for (int i = 0; i < 2000; i++) {
    int64_t n = i + 1;
    ir_tensor_type(ctx, 1, &n, i32, NULL);
    ir_i32_attr(ctx, i);
  }
  ir_alloc(ctx, 3u << 20);
  const char *names[2] = {"b", "a"};
  const ir_attr *vals[2] = {ir_unit_attr(ctx), ir_i32_attr(ctx, 1)};
  ir_dict_attr(ctx, 2, names, vals);
  ir_block *b = ir_block_create(ctx);
  ir_value *x = &make_const(ctx, b, 1)->results[0];
  ir_op *y = ir_op_create(ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL);
  for (int i = 0; i < 100; i++) ir_op_add_operand(ctx, y, x);
  CHECK(ir_value_num_uses(x) == 100);
  CHECK(counts.live_bytes > (3 << 20));
  gemmc_context_destroy(ctx);
  CHECK(counts.live_blocks == 0);
  CHECK(counts.live_bytes == 0);
  if (counts.live_blocks || counts.live_bytes)
    fprintf(stderr, "  after destroy: %ld blocks, %lld bytes still live\n", counts.live_blocks, counts.live_bytes);
}

/* ------------------------------------------------------------------ util.h */

static void test_ptr_map(int *failures) {
  counting_alloc counts = {0, 0, 0};
  gemmc_context *ctx = gemmc_context_create_with_allocator(counting_fn, &counts);
  CHECK(ctx != NULL);
  if (!ctx) return;
  long base_blocks = counts.live_blocks;
  enum { N = 5000 };
  static char keys[N], layouts[3];
  ptr_map m = {ctx, NULL, 0, 0};
  CHECK(ptr_map_get(&m, &keys[0]) == NULL && ptr_map_find(&m, &keys[0], NULL) == NULL);
  /* Values live outside the table, so pointers to them survive its growth. */
  int64_t *first = ir_alloc(ctx, sizeof *first);
  *first = 7;
  CHECK(ptr_map_put(&m, &keys[0], first));
  for (int i = 1; i < N; i++) {
    ptr_map_value *v = ptr_map_insert(&m, &keys[i], NULL);
    CHECK(v != NULL && v->num == 0);
    if (v) v->num = i;
  }
  CHECK(m.count == N && m.cap >= 2 * N);
  CHECK(ptr_map_get(&m, &keys[0]) == first && *first == 7);
  int wrong = 0;
  for (int i = 1; i < N; i++) wrong += ptr_map_find(&m, &keys[i], NULL)->num != i;
  CHECK(wrong == 0);
  /* An existing key is found again, not added twice. */
  CHECK(ptr_map_insert(&m, &keys[42], NULL)->num == 42 && m.count == N);
  /* Pair keys: (key, a) and (key, b) are different entries, and neither is (key, NULL). */
  ptr_map pairs = {ctx, NULL, 0, 0};
  for (int i = 0; i < N; i++)
    for (int l = 0; l < 3; l++) ptr_map_insert(&pairs, &keys[i], &layouts[l])->num = i * 3 + l;
  wrong = 0;
  for (int i = 0; i < N; i++)
    for (int l = 0; l < 3; l++) wrong += ptr_map_find(&pairs, &keys[i], &layouts[l])->num != i * 3 + l;
  CHECK(wrong == 0 && pairs.count == 3 * N);
  CHECK(ptr_map_find(&pairs, &keys[5], NULL) == NULL);
  ptr_map_clear(&pairs);
  CHECK(pairs.count == 0 && ptr_map_find(&pairs, &keys[5], &layouts[1]) == NULL);
  ptr_map_free(&pairs);
  ptr_map_free(&m);
  CHECK(m.entries == NULL && m.count == 0 && counts.live_blocks == base_blocks); /* tables given back */
  gemmc_context_destroy(ctx);
  CHECK(counts.live_blocks == 0);
}

/* Lists past 32 items keep a hash index: membership after growth, and after clearing (the index
 * must forget what the list no longer holds, or a refill of 2 * cap new items never finds a
 * free index slot). */
static void test_ptr_list(int *failures) {
  gemmc_context *ctx = gemmc_context_create();
  static int items[300];
  ptr_list l = {ctx, NULL, 0, 0};
  for (int i = 0; i < 100; i++) ptr_list_push(&l, &items[i]);
  CHECK(l.count == 100 && ptr_list_contains(&l, &items[0]) && ptr_list_contains(&l, &items[99]));
  CHECK(!ptr_list_contains(&l, &items[100]));
  ptr_list_push_unique(&l, &items[5]);
  CHECK(l.count == 100);
  int cap = l.cap;
  ptr_list_clear(&l);
  CHECK(l.count == 0 && l.cap == cap && !ptr_list_contains(&l, &items[0]));
  for (int round = 0; round < 3; round++) {
    ptr_list_clear(&l);
    for (int i = 0; i < cap; i++) ptr_list_push_unique(&l, &items[(i + round * 50) % 300]);
    CHECK(l.count == cap && l.cap == cap && ptr_list_contains(&l, &items[round * 50]));
  }
  ptr_list_free(&l);
  gemmc_context_destroy(ctx);
}

static void test_helpers(int *failures) {
  int n = 0;
  const char *const *names = cmp_predicate_names(OP_CMPI, &n);
  CHECK(n == 10 && strcmp(names[2], "slt") == 0);
  names = cmp_predicate_names(OP_CMPF, &n);
  CHECK(n == 16 && strcmp(names[0], "false") == 0 && strcmp(names[15], "true") == 0);
  CHECK(cmp_predicate_names(OP_ADDI, &n) == NULL && n == 0);
  CHECK(cmp_predicate_index(OP_CMPI, "uge") == 9 && cmp_predicate_index(OP_CMPF, "uge") == 10);
  CHECK(cmp_predicate_index(OP_CMPI, "oeq") == -1 && cmp_predicate_index(OP_CMPI, NULL) == -1);
  CHECK(log2_exact(1) == 0 && log2_exact(64) == 6 && log2_exact(INT64_C(1) << 62) == 62);
  CHECK(log2_exact(0) == -1 && log2_exact(-4) == -1 && log2_exact(12) == -1);
  /* The predicate of an op: its keyword, or the name of its integer (generic) form. */
  gemmc_context *ctx = gemmc_context_create();
  ir_block *b = ir_block_create(ctx);
  ir_value *x = &make_const(ctx, b, 1)->results[0];
  ir_value *ops[2] = {x, x};
  const ir_type *i1 = ir_int_type(ctx, 1);
  ir_op *cmp = ir_op_create(ctx, OP_CMPI, 2, ops, 1, &i1, 0, NULL);
  CHECK(cmp_predicate_of(cmp) == NULL);
  ir_op_set_attr(ctx, cmp, "predicate", ir_keyword_attr(ctx, "sgt"));
  CHECK(cmp_predicate_of(cmp) && strcmp(cmp_predicate_of(cmp), "sgt") == 0);
  ir_op_set_attr(ctx, cmp, "predicate", ir_i32_attr(ctx, 6));
  CHECK(cmp_predicate_of(cmp) && strcmp(cmp_predicate_of(cmp), "ult") == 0);
  ir_op_set_attr(ctx, cmp, "predicate", ir_i32_attr(ctx, 10));
  CHECK(cmp_predicate_of(cmp) == NULL);
  /* A clone keeps kind, attributes and location, takes new operands; a block argument's owner. */
  ir_op *clone = op_clone_with_attrs(ctx, cmp, 2, ops, &i1);
  CHECK(clone->kind == OP_CMPI && clone->num_operands == 2 && ir_op_get_int_attr(clone, "predicate", -1) == 10);
  CHECK(ir_value_num_uses(x) == 4 && block_arg_owner(x) == NULL);
  ir_op *loop = ir_op_create(ctx, OP_SCF_FOR, 0, NULL, 0, NULL, 1, NULL);
  ir_block *body = ir_block_create(ctx);
  ir_region_append_block(&loop->regions[0], body);
  ir_value *iv = ir_block_add_arg(ctx, body, ir_int_type(ctx, 32), NULL);
  CHECK(block_arg_owner(iv) == loop);
  gemmc_context_destroy(ctx);
}

/* Byte alignment of element counts known by their divisibility (tma-loads, warp-specialize): exact
 * modulo the alignment, with no overflow at axis info's "any power of two" (a zero stride). */
static void test_tile_alignment(int *failures) {
  CHECK(tile_bytes_aligned(AXIS_INFO_MAX_DIVISOR, 2, 16) && tile_bytes_aligned(AXIS_INFO_MAX_DIVISOR, 8, 16));
  CHECK(tile_bytes_aligned(8, 2, 16) && tile_bytes_aligned(4, 4, 16) && tile_bytes_aligned(1, 16, 16));
  CHECK(!tile_bytes_aligned(4, 2, 16) && !tile_bytes_aligned(1, 8, 16) && !tile_bytes_aligned(2, 1, 16));
  CHECK(!tile_bytes_aligned(0, 2, 16) && !tile_bytes_aligned(16, 0, 16) && !tile_bytes_aligned(16, 2, 0));
  /* Constant coefficients (no factors, so no analysis is read): the lowest set bit of |c|. */
  tile_coef c = {.c = 48, .n = 0};
  CHECK(tile_coef_divisibility(NULL, &c) == 16);
  c.c = -24;
  CHECK(tile_coef_divisibility(NULL, &c) == 8);
  c.c = 0;
  CHECK(tile_coef_divisibility(NULL, &c) == AXIS_INFO_MAX_DIVISOR);
  c.c = INT64_MIN;
  CHECK(tile_coef_divisibility(NULL, &c) == AXIS_INFO_MAX_DIVISOR);
}

int main(void) {
  int failures = 0;
  test_arena(&failures);
  test_type_interning(&failures);
  test_attr_interning(&failures);
  test_use_lists(&failures);
  test_custom_allocator(&failures);
  test_ptr_map(&failures);
  test_ptr_list(&failures);
  test_helpers(&failures);
  test_tile_alignment(&failures);
  if (failures) {
    fprintf(stderr, "test_ir_core: %d failures\n", failures);
    return 1;
  }
  printf("test_ir_core: all passed\n");
  return 0;
}
