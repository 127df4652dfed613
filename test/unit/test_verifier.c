/* Unit tests of ir_verify: small modules built with the API, invalid ones must fail with the expected message. */
#include <stdio.h>
#include <string.h>

#include "gemmc/ir.h"

/* ------------------------------------------------------------------ diagnostics capture */

#define MAX_MESSAGES 16

typedef struct captured {
  int num_errors, num_messages;
  char messages[MAX_MESSAGES][1024];
} captured;

static void capture(void *user, ir_diag_severity sev, const ir_loc *loc, const char *message) {
  (void)loc;
  captured *c = user;
  if (sev == IR_DIAG_ERROR) c->num_errors++;
  if (sev != IR_DIAG_ERROR) return;
  if (c->num_messages < MAX_MESSAGES) {
    snprintf(c->messages[c->num_messages], sizeof c->messages[0], "%s", message);
    c->num_messages++;
  }
}

/* ------------------------------------------------------------------ module builder */

/* One test's module: a module holding one tt.func whose body is being built at `cur`. */
typedef struct kit {
  gemmc_context *ctx;
  captured cap;
  ir_op *module, *func;
  ir_block *body, *cur;
  const ir_type *i1, *i32, *i64, *f16, *f32, *ptr_f16, *ptr_f32;
} kit;

static void kit_init(kit *k, int num_warps) {
  memset(k, 0, sizeof *k);
  k->ctx = gemmc_context_create();
  ir_set_diag_handler(k->ctx, capture, &k->cap);
  k->i1 = ir_int_type(k->ctx, 1);
  k->i32 = ir_int_type(k->ctx, 32);
  k->i64 = ir_int_type(k->ctx, 64);
  k->f16 = ir_float_type(k->ctx, FLT_F16);
  k->f32 = ir_float_type(k->ctx, FLT_F32);
  k->ptr_f16 = ir_ptr_type(k->ctx, k->f16, 1);
  k->ptr_f32 = ir_ptr_type(k->ctx, k->f32, 1);
  k->module = ir_op_create(k->ctx, OP_MODULE, 0, NULL, 0, NULL, 1, NULL);
  ir_block *mb = ir_block_create(k->ctx);
  ir_region_append_block(&k->module->regions[0], mb);
  if (num_warps) ir_op_set_attr(k->ctx, k->module, "ttg.num-warps", ir_i32_attr(k->ctx, num_warps));
  k->func = ir_op_create(k->ctx, OP_FUNC, 0, NULL, 0, NULL, 1, NULL);
  ir_op_set_attr(k->ctx, k->func, "sym_name", ir_string_attr(k->ctx, "kernel", 6));
  ir_block_append_op(mb, k->func);
  k->body = ir_block_create(k->ctx);
  ir_region_append_block(&k->func->regions[0], k->body);
  k->cur = k->body;
}

static void kit_destroy(kit *k) { gemmc_context_destroy(k->ctx); }

static ir_value *param(kit *k, const ir_type *t) { return ir_block_add_arg(k->ctx, k->body, t, NULL); }

/* Sets function_type from the entry block's arguments and ends the body with tt.return. */
static void kit_finish(kit *k) {
  const ir_type *inputs[32];
  for (int i = 0; i < k->body->num_args; i++) inputs[i] = k->body->args[i]->type;
  const ir_type *ft = ir_func_type(k->ctx, k->body->num_args, inputs, 0, NULL);
  ir_op_set_attr(k->ctx, k->func, "function_type", ir_type_attr(k->ctx, ft));
  ir_block_append_op(k->body, ir_op_create(k->ctx, OP_RETURN, 0, NULL, 0, NULL, 0, NULL));
}

/* Appends an op with the table's region count and zero or one result. */
static ir_op *emit(kit *k, ir_op_kind kind, int n, ir_value *const *operands, const ir_type *result) {
  ir_op *op = ir_op_create(k->ctx, kind, n, operands, result ? 1 : 0, result ? &result : NULL,
                           ir_op_info_of(kind)->num_regions, NULL);
  ir_block_append_op(k->cur, op);
  return op;
}

static ir_value *emit1(kit *k, ir_op_kind kind, ir_value *a, const ir_type *result) {
  return &emit(k, kind, 1, &a, result)->results[0];
}

static ir_value *emit2(kit *k, ir_op_kind kind, ir_value *a, ir_value *b, const ir_type *result) {
  ir_value *ops[2] = {a, b};
  return &emit(k, kind, 2, ops, result)->results[0];
}

static ir_value *const_int(kit *k, int64_t v, const ir_type *t) {
  ir_op *op = emit(k, OP_CONSTANT, 0, NULL, t);
  ir_op_set_attr(k->ctx, op, "value", ir_int_attr(k->ctx, v, t));
  return &op->results[0];
}

/* A splat dense constant of a tensor type (zeros). */
static ir_value *const_tensor(kit *k, const ir_type *t) {
  const ir_type *e = t->elem;
  const ir_attr *zero = ir_type_is_float(e) ? ir_float_attr(k->ctx, 0.0, e) : ir_int_attr(k->ctx, 0, e);
  ir_op *op = emit(k, OP_CONSTANT, 0, NULL, t);
  ir_op_set_attr(k->ctx, op, "value", ir_dense_attr(k->ctx, t, true, 1, &zero));
  return &op->results[0];
}

static const ir_type *tensor1(kit *k, int64_t n, const ir_type *elem, const ir_attr *enc) {
  return ir_tensor_type(k->ctx, 1, &n, elem, enc);
}

static const ir_type *tensor2(kit *k, int64_t m, int64_t n, const ir_type *elem, const ir_attr *enc) {
  int64_t s[2] = {m, n};
  return ir_tensor_type(k->ctx, 2, s, elem, enc);
}

static const ir_attr *blocked(kit *k, int rank, const int *spt, const int *tpw, const int *wpc, const int *order) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = rank;
  for (int i = 0; i < rank; i++) {
    p.size_per_thread[i] = spt[i];
    p.threads_per_warp[i] = tpw[i];
    p.warps_per_cta[i] = wpc[i];
    p.order[i] = order[i];
  }
  return ir_layout_attr(k->ctx, AT_BLOCKED, &p);
}

static const ir_attr *blocked2d(kit *k) {
  int spt[2] = {1, 4}, tpw[2] = {2, 16}, wpc[2] = {4, 1}, order[2] = {1, 0};
  return blocked(k, 2, spt, tpw, wpc, order);
}

static const ir_attr *slice(kit *k, int dim, const ir_attr *parent) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.dim = dim;
  p.parent = parent;
  return ir_layout_attr(k->ctx, AT_SLICE, &p);
}

static const ir_attr *dot_op(kit *k, int op_idx, const ir_attr *parent, int k_width) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.op_idx = op_idx;
  p.parent = parent;
  p.k_width = k_width;
  return ir_layout_attr(k->ctx, AT_DOT_OP, &p);
}

static const ir_attr *mma(kit *k, int version, int wm, int wn) {
  ir_layout_params p;
  memset(&p, 0, sizeof p);
  p.rank = 2;
  p.version_major = version;
  p.warps_per_cta[0] = wm;
  p.warps_per_cta[1] = wn;
  p.instr_rank = version == 3 ? 3 : 2;
  p.instr_shape[0] = 16;
  p.instr_shape[1] = version == 3 ? 64 : 8;
  p.instr_shape[2] = 16;
  return ir_layout_attr(k->ctx, AT_NVIDIA_MMA, &p);
}

/* ------------------------------------------------------------------ expectations */

static void print_messages(const kit *k) {
  for (int i = 0; i < k->cap.num_messages; i++) fprintf(stderr, "    error: %s\n", k->cap.messages[i]);
}

/* The module must fail with exactly one error containing `want`. */
static int expect_error(kit *k, const char *test, const char *want) {
  kit_finish(k);
  bool ok = ir_verify(k->ctx, k->module);
  int failures = 0;
  bool found = false;
  for (int i = 0; i < k->cap.num_messages; i++)
    if (strstr(k->cap.messages[i], want)) found = true;
  if (ok || !found || k->cap.num_errors != 1) {
    fprintf(stderr, "FAIL %s: expected one error containing \"%s\"; ir_verify returned %s with %d errors\n", test,
            want, ok ? "true" : "false", k->cap.num_errors);
    print_messages(k);
    failures = 1;
  }
  kit_destroy(k);
  return failures;
}

static int expect_valid(kit *k, const char *test) {
  kit_finish(k);
  bool ok = ir_verify(k->ctx, k->module);
  int failures = 0;
  if (!ok || k->cap.num_errors) {
    fprintf(stderr, "FAIL %s: expected a valid module, got %d errors\n", test, k->cap.num_errors);
    print_messages(k);
    failures = 1;
  }
  kit_destroy(k);
  return failures;
}

/* ------------------------------------------------------------------ generic structure */

static int test_operand_and_result_counts(void) {
  int f = 0;
  kit k;
  kit_init(&k, 0);
  ir_value *a = const_int(&k, 1, k.i32);
  emit1(&k, OP_ADDI, a, k.i32);
  f += expect_error(&k, "addi with one operand", "'arith.addi' op expects 2 operands, found 1");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  ir_value *ops[2] = {a, a};
  emit(&k, OP_ADDI, 2, ops, NULL);
  f += expect_error(&k, "addi without result", "'arith.addi' op expects 1 results, found 0");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  emit(&k, OP_LOAD, 0, NULL, k.f32);
  f += expect_error(&k, "load without operands", "'tt.load' op expects 1 to 3 operands, found 0");

  kit_init(&k, 0);
  emit(&k, OP_SCF_FOR, 0, NULL, NULL);
  f += expect_error(&k, "for without bounds", "'scf.for' op expects at least 3 operands, found 0");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  ir_op *op = ir_op_create(k.ctx, OP_ADDI, 2, NULL, 1, &k.i32, 1, NULL);
  ir_op_set_operand(op, 0, a);
  ir_op_set_operand(op, 1, a);
  ir_block_append_op(k.cur, op);
  f += expect_error(&k, "addi with a region", "'arith.addi' op expects 0 regions, found 1");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  op = ir_op_create(k.ctx, OP_ADDI, 2, NULL, 1, &k.i32, 0, NULL);
  ir_op_set_operand(op, 0, a);
  ir_block_append_op(k.cur, op);
  f += expect_error(&k, "null operand", "'arith.addi' op operand #1 is null");
  return f;
}

static int test_terminators(void) {
  int f = 0;
  kit k;
  kit_init(&k, 0);
  emit(&k, OP_RETURN, 0, NULL, NULL);
  const_int(&k, 1, k.i32);
  /* kit_finish appends the real tt.return: the first one is then not last. */
  f += expect_error(&k, "return in the middle", "'tt.return' op must be the last operation in its block");

  kit_init(&k, 0);
  ir_value *lb = const_int(&k, 0, k.i32), *ub = const_int(&k, 8, k.i32), *st = const_int(&k, 1, k.i32);
  ir_value *b3[3] = {lb, ub, st};
  ir_op *loop = emit(&k, OP_SCF_FOR, 3, b3, NULL);
  ir_block *body = ir_block_create(k.ctx);
  ir_region_append_block(&loop->regions[0], body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  k.cur = body;
  const_int(&k, 3, k.i32);
  k.cur = k.body;
  f += expect_error(&k, "for without yield", "'scf.for' op body must end with 'scf.yield', found 'arith.constant'");

  kit_init(&k, 0);
  lb = const_int(&k, 0, k.i32), ub = const_int(&k, 8, k.i32), st = const_int(&k, 1, k.i32);
  b3[0] = lb, b3[1] = ub, b3[2] = st;
  loop = emit(&k, OP_SCF_FOR, 3, b3, NULL);
  body = ir_block_create(k.ctx);
  ir_region_append_block(&loop->regions[0], body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  ir_block_append_op(body, ir_op_create(k.ctx, OP_RETURN, 0, NULL, 0, NULL, 0, NULL));
  f += expect_error(&k, "return inside for", "'tt.return' op expects parent op 'tt.func', found 'scf.for'");

  kit_init(&k, 0);
  ir_op *y = ir_op_create(k.ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL);
  ir_block_append_op(k.body, y);
  /* No tt.return from kit_finish would follow a terminator legally; build the func by hand. */
  ir_op_set_attr(k.ctx, k.func, "function_type", ir_type_attr(k.ctx, ir_func_type(k.ctx, 0, NULL, 0, NULL)));
  bool ok = ir_verify(k.ctx, k.module);
  if (ok || k.cap.num_errors != 1 || !strstr(k.cap.messages[0], "'scf.yield' op expects parent op 'scf.for', 'scf.if' or 'scf.while', found 'tt.func'")) {
    fprintf(stderr, "FAIL yield in func: got %d errors\n", k.cap.num_errors);
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);

  kit_init(&k, 0);
  ir_op_set_attr(k.ctx, k.func, "function_type", ir_type_attr(k.ctx, ir_func_type(k.ctx, 0, NULL, 0, NULL)));
  const_int(&k, 1, k.i32);
  ok = ir_verify(k.ctx, k.module);
  if (ok || k.cap.num_errors != 1 || !strstr(k.cap.messages[0], "body block must end with 'tt.return'")) {
    fprintf(stderr, "FAIL func without return: got %d errors\n", k.cap.num_errors);
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);
  return f;
}

static int test_dominance(void) {
  int f = 0;
  kit k;
  kit_init(&k, 0);
  ir_value *a = const_int(&k, 1, k.i32);
  ir_op *add = emit(&k, OP_ADDI, 2, (ir_value *[]){a, a}, k.i32);
  ir_value *later = const_int(&k, 2, k.i32);
  ir_op_set_operand(add, 1, later);
  f += expect_error(&k, "use before def", "'arith.addi' op operand #1 does not dominate this use");

  /* A value from the then region used in the else region. */
  kit_init(&k, 0);
  ir_value *c = const_int(&k, 1, k.i1);
  ir_op *iff = emit(&k, OP_SCF_IF, 1, &c, NULL);
  ir_block *then_b = ir_block_create(k.ctx), *else_b = ir_block_create(k.ctx);
  ir_region_append_block(&iff->regions[0], then_b);
  ir_region_append_block(&iff->regions[1], else_b);
  k.cur = then_b;
  ir_value *inner = const_int(&k, 5, k.i32);
  emit(&k, OP_SCF_YIELD, 0, NULL, NULL);
  k.cur = else_b;
  emit2(&k, OP_ADDI, inner, inner, k.i32);
  emit(&k, OP_SCF_YIELD, 0, NULL, NULL);
  k.cur = k.body;
  f += expect_error(&k, "use from sibling region", "'arith.addi' op operand #0 does not dominate this use");

  /* A value defined inside a loop used after it. */
  kit_init(&k, 0);
  ir_value *lb = const_int(&k, 0, k.i32);
  ir_op *loop = emit(&k, OP_SCF_FOR, 3, (ir_value *[]){lb, lb, lb}, NULL);
  ir_block *body = ir_block_create(k.ctx);
  ir_region_append_block(&loop->regions[0], body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  k.cur = body;
  inner = const_int(&k, 5, k.i32);
  emit(&k, OP_SCF_YIELD, 0, NULL, NULL);
  k.cur = k.body;
  emit2(&k, OP_ADDI, inner, lb, k.i32);
  f += expect_error(&k, "use of a loop-local value after the loop", "operand #0 does not dominate this use");

  /* Outer values are visible in nested regions; block args of enclosing blocks too. */
  kit_init(&k, 0);
  ir_value *p = param(&k, k.i32);
  lb = const_int(&k, 0, k.i32);
  loop = emit(&k, OP_SCF_FOR, 3, (ir_value *[]){lb, p, p}, NULL);
  body = ir_block_create(k.ctx);
  ir_region_append_block(&loop->regions[0], body);
  ir_value *iv = ir_block_add_arg(k.ctx, body, k.i32, NULL);
  k.cur = body;
  ir_value *sum = emit2(&k, OP_ADDI, iv, p, k.i32);
  c = const_int(&k, 1, k.i1);
  iff = emit(&k, OP_SCF_IF, 1, &c, NULL);
  then_b = ir_block_create(k.ctx);
  ir_region_append_block(&iff->regions[0], then_b);
  k.cur = then_b;
  emit2(&k, OP_MULI, sum, iv, k.i32);
  emit(&k, OP_SCF_YIELD, 0, NULL, NULL);
  k.cur = body;
  emit(&k, OP_SCF_YIELD, 0, NULL, NULL);
  k.cur = k.body;
  f += expect_valid(&k, "nested regions see outer values");

  /* A value of one function used in another: tt.func is isolated from above. */
  kit_init(&k, 0);
  ir_value *x = const_int(&k, 7, k.i32);
  ir_op *other = ir_op_create(k.ctx, OP_FUNC, 0, NULL, 0, NULL, 1, NULL);
  ir_op_set_attr(k.ctx, other, "sym_name", ir_string_attr(k.ctx, "other", 5));
  ir_op_set_attr(k.ctx, other, "function_type", ir_type_attr(k.ctx, ir_func_type(k.ctx, 0, NULL, 0, NULL)));
  ir_block_append_op(k.module->regions[0].first, other);
  ir_block *ob = ir_block_create(k.ctx);
  ir_region_append_block(&other->regions[0], ob);
  ir_block_append_op(ob, ir_op_create(k.ctx, OP_ADDI, 2, (ir_value *[]){x, x}, 1, &k.i32, 0, NULL));
  ir_block_append_op(ob, ir_op_create(k.ctx, OP_RETURN, 0, NULL, 0, NULL, 0, NULL));
  f += expect_error(&k, "use across functions", "operand #0 uses a value defined outside the isolated 'tt.func' op");

  /* A module-level value used inside the function. */
  kit_init(&k, 0);
  ir_op *top = ir_op_create(k.ctx, OP_CONSTANT, 0, NULL, 1, &k.i32, 0, NULL);
  ir_op_set_attr(k.ctx, top, "value", ir_int_attr(k.ctx, 3, k.i32));
  ir_op_insert_before(k.func, top);
  emit2(&k, OP_ADDI, &top->results[0], &top->results[0], k.i32);
  /* Two problems, both reported: the op may not be in the module body at all (only tt.func is),
   * and the function may not use it. */
  kit_finish(&k);
  bool module_ok = ir_verify(k.ctx, k.module);
  bool saw_module_level = false, saw_isolation = false;
  for (int i = 0; i < k.cap.num_messages; i++) {
    saw_module_level |= strstr(k.cap.messages[i], "is not allowed directly in a module (only tt.func is)") != NULL;
    saw_isolation |= strstr(k.cap.messages[i], "uses a value defined outside the isolated 'tt.func' op") != NULL;
  }
  if (module_ok || !saw_module_level || !saw_isolation || k.cap.num_errors != 2) {
    fprintf(stderr, "FAIL module value used in func: %d errors\n", k.cap.num_errors);
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);

  /* An operand whose defining op was erased. */
  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  ir_op *def = a->def_op;
  add = emit(&k, OP_ADDI, 2, (ir_value *[]){a, a}, k.i32);
  ir_op_unlink(def);
  f += expect_error(&k, "operand of an unlinked op", "definition is not in any block");
  return f;
}

/* ------------------------------------------------------------------ elementwise and arith */

static int test_arith(void) {
  int f = 0;
  kit k;
  kit_init(&k, 0);
  ir_value *a = const_tensor(&k, tensor1(&k, 128, k.i32, NULL));
  ir_value *b = const_tensor(&k, tensor1(&k, 64, k.i32, NULL));
  emit2(&k, OP_ADDI, a, b, tensor1(&k, 128, k.i32, NULL));
  f += expect_error(&k, "addi shape mismatch",
                    "'arith.addi' op requires all operands and results to have the same shape and encoding, got "
                    "tensor<128xi32> and tensor<64xi32>");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  b = const_int(&k, 1, k.i64);
  emit2(&k, OP_ADDI, a, b, k.i32);
  f += expect_error(&k, "addi type mismatch",
                    "'arith.addi' op requires the same type for all operands and results, got i64 and i32");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  emit2(&k, OP_ADDF, a, a, k.i32);
  f += expect_error(&k, "addf on ints", "'arith.addf' op operands must be floating-point (or tensors of floats), got i32");

  kit_init(&k, 0);
  ir_value *x = param(&k, k.f32);
  emit2(&k, OP_MULI, x, x, k.f32);
  f += expect_error(&k, "muli on floats", "'arith.muli' op operands must be integers (or tensors of integers), got f32");

  kit_init(&k, 0);
  ir_value *m = param(&k, tensor1(&k, 16, k.i1, NULL));
  emit2(&k, OP_ANDI, m, m, tensor1(&k, 16, k.i1, NULL));
  emit2(&k, OP_XORI, m, m, tensor1(&k, 16, k.i1, NULL));
  f += expect_valid(&k, "andi/xori on i1 masks");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  ir_op *cmp = emit(&k, OP_CMPI, 2, (ir_value *[]){a, a}, k.i32);
  ir_op_set_attr(k.ctx, cmp, "predicate", ir_keyword_attr(k.ctx, "slt"));
  f += expect_error(&k, "cmpi result not i1", "'arith.cmpi' op result must be i1 with the operands' shape and encoding, got i32");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  cmp = emit(&k, OP_CMPI, 2, (ir_value *[]){a, a}, k.i1);
  ir_op_set_attr(k.ctx, cmp, "predicate", ir_keyword_attr(k.ctx, "olt"));
  f += expect_error(&k, "cmpi float predicate", "'arith.cmpi' op predicate olt is not a valid integer predicate");

  kit_init(&k, 0);
  x = param(&k, tensor1(&k, 8, k.f32, NULL));
  cmp = emit(&k, OP_CMPF, 2, (ir_value *[]){x, x}, tensor1(&k, 8, k.i1, NULL));
  ir_op_set_attr(k.ctx, cmp, "predicate", ir_keyword_attr(k.ctx, "une"));
  cmp = emit(&k, OP_CMPI, 2, (ir_value *[]){const_int(&k, 0, k.i64), const_int(&k, 1, k.i64)}, k.i1);
  ir_op_set_attr(k.ctx, cmp, "predicate", ir_i32_attr(k.ctx, 9)); /* generic form: uge */
  f += expect_valid(&k, "cmpf une / cmpi by number");

  kit_init(&k, 0);
  x = param(&k, k.f32);
  cmp = emit(&k, OP_CMPF, 2, (ir_value *[]){x, x}, k.i1);
  f += expect_error(&k, "cmpf without predicate", "'arith.cmpf' op requires a 'predicate' attribute");

  kit_init(&k, 0);
  const ir_type *t = tensor1(&k, 32, k.f32, NULL);
  ir_value *c = const_int(&k, 1, k.i32);
  a = const_tensor(&k, t);
  emit(&k, OP_SELECT, 3, (ir_value *[]){c, a, a}, t);
  f += expect_error(&k, "select i32 condition", "'arith.select' op condition must be i1 or a tensor of i1");

  kit_init(&k, 0);
  t = tensor1(&k, 32, k.f32, NULL);
  c = const_int(&k, 1, k.i1);
  ir_value *cm = const_tensor(&k, tensor1(&k, 32, k.i1, NULL));
  a = const_tensor(&k, t);
  emit(&k, OP_SELECT, 3, (ir_value *[]){c, a, a}, t);
  emit(&k, OP_SELECT, 3, (ir_value *[]){cm, a, a}, t);
  f += expect_valid(&k, "select with scalar and tensor conditions");

  kit_init(&k, 0);
  a = const_int(&k, 1, k.i32);
  emit1(&k, OP_EXTSI, a, ir_int_type(k.ctx, 16));
  f += expect_error(&k, "extsi narrowing", "'arith.extsi' op casts an integer to a wider integer, got i32 to i16");

  kit_init(&k, 0);
  x = param(&k, tensor1(&k, 4, k.f16, NULL));
  emit1(&k, OP_TRUNCF, x, tensor1(&k, 4, k.f32, NULL));
  f += expect_error(&k, "truncf widening", "'arith.truncf' op casts a float to a narrower float");

  kit_init(&k, 0);
  x = param(&k, tensor1(&k, 4, k.f16, NULL));
  emit1(&k, OP_EXTF, x, tensor1(&k, 8, k.f32, NULL));
  f += expect_error(&k, "extf shape change", "'arith.extf' op requires all operands and results to have the same shape");

  kit_init(&k, 0);
  x = param(&k, k.f32);
  emit1(&k, OP_SITOFP, x, k.f32);
  f += expect_error(&k, "sitofp from float", "'arith.sitofp' op casts an integer to a float, got f32 to f32");

  kit_init(&k, 0);
  x = param(&k, k.f32);
  emit1(&k, OP_FP_TO_FP, x, ir_float_type(k.ctx, FLT_F8E4M3FN));
  f += expect_error(&k, "fp_to_fp downcast without rounding", "'tt.fp_to_fp' op a rounding mode is required");

  kit_init(&k, 0);
  x = param(&k, k.f16);
  emit1(&k, OP_EXTF, x, k.f32);
  emit1(&k, OP_BITCAST, x, ir_int_type(k.ctx, 16));
  emit1(&k, OP_INDEX_CAST, const_int(&k, 1, k.i32), ir_index_type(k.ctx));
  emit1(&k, OP_FPTOSI, x, k.i32);
  f += expect_valid(&k, "valid casts");

  kit_init(&k, 0);
  ir_op *cst = emit(&k, OP_CONSTANT, 0, NULL, k.i32);
  ir_op_set_attr(k.ctx, cst, "value", ir_int_attr(k.ctx, 3, k.i64));
  f += expect_error(&k, "constant type mismatch", "'arith.constant' op value type i64 does not match the result type i32");

  kit_init(&k, 0);
  cst = emit(&k, OP_CONSTANT, 0, NULL, tensor1(&k, 16, k.f32, NULL));
  const ir_attr *zero = ir_float_attr(k.ctx, 0.0, k.f32);
  ir_op_set_attr(k.ctx, cst, "value", ir_dense_attr(k.ctx, tensor1(&k, 32, k.f32, NULL), true, 1, &zero));
  f += expect_error(&k, "dense constant type mismatch",
                    "'arith.constant' op value type tensor<32xf32> does not match the result type tensor<16xf32>");

  kit_init(&k, 0);
  emit(&k, OP_CONSTANT, 0, NULL, k.i32);
  f += expect_error(&k, "constant without value", "'arith.constant' op requires a 'value' attribute");
  return f;
}

/* ------------------------------------------------------------------ tt ops */

static int test_tt_shapes(void) {
  int f = 0;
  kit k;
  kit_init(&k, 0);
  ir_value *p = param(&k, tensor1(&k, 64, k.ptr_f16, NULL));
  ir_value *o = const_tensor(&k, tensor1(&k, 128, k.i32, NULL));
  emit2(&k, OP_ADDPTR, p, o, tensor1(&k, 64, k.ptr_f16, NULL));
  f += expect_error(&k, "addptr shape",
                    "'tt.addptr' op operand #1 must have the same shape as the pointer, got tensor<128xi32> and "
                    "tensor<64x!tt.ptr<f16>>");

  kit_init(&k, 0);
  p = param(&k, k.ptr_f16);
  o = const_int(&k, 4, k.i32);
  emit2(&k, OP_ADDPTR, p, o, k.ptr_f32);
  f += expect_error(&k, "addptr result", "'tt.addptr' op result type must be the pointer type !tt.ptr<f16>, got !tt.ptr<f32>");

  kit_init(&k, 0);
  p = param(&k, k.ptr_f16);
  emit2(&k, OP_ADDPTR, p, param(&k, k.f32), k.ptr_f16);
  f += expect_error(&k, "addptr float offset", "'tt.addptr' op operand #1 must be an integer or a tensor of integers, got f32");

  kit_init(&k, 0);
  ir_value *t = const_tensor(&k, tensor1(&k, 8, k.i32, NULL));
  emit1(&k, OP_SPLAT, t, tensor1(&k, 8, k.i32, NULL));
  f += expect_error(&k, "splat of a tensor", "'tt.splat' op operand must be a scalar, got tensor<8xi32>");

  kit_init(&k, 0);
  emit1(&k, OP_SPLAT, const_int(&k, 1, k.i32), tensor1(&k, 8, k.f32, NULL));
  f += expect_error(&k, "splat element", "'tt.splat' op result element type must be the operand type, got i32 and tensor<8xf32>");

  kit_init(&k, 0);
  ir_op *mr = emit(&k, OP_MAKE_RANGE, 0, NULL, tensor1(&k, 96, k.i32, NULL));
  ir_op_set_attr(k.ctx, mr, "start", ir_i32_attr(k.ctx, 0));
  ir_op_set_attr(k.ctx, mr, "end", ir_i32_attr(k.ctx, 96));
  f += expect_error(&k, "make_range not pow2", "'tt.make_range' op number of elements 96 must be a power of two");

  kit_init(&k, 0);
  mr = emit(&k, OP_MAKE_RANGE, 0, NULL, tensor1(&k, 64, k.i32, NULL));
  ir_op_set_attr(k.ctx, mr, "start", ir_i32_attr(k.ctx, 0));
  ir_op_set_attr(k.ctx, mr, "end", ir_i32_attr(k.ctx, 128));
  f += expect_error(&k, "make_range count", "'tt.make_range' op result tensor<64xi32> must have end - start = 128 elements");

  kit_init(&k, 0);
  mr = emit(&k, OP_MAKE_RANGE, 0, NULL, tensor1(&k, 64, k.i32, NULL));
  ir_op_set_attr(k.ctx, mr, "start", ir_i32_attr(k.ctx, 64));
  ir_op_set_attr(k.ctx, mr, "end", ir_i32_attr(k.ctx, 0));
  f += expect_error(&k, "make_range order", "'tt.make_range' op start 64 must be less than end 0");

  kit_init(&k, 0);
  mr = emit(&k, OP_MAKE_RANGE, 0, NULL, tensor1(&k, 64, k.i64, NULL));
  ir_op_set_attr(k.ctx, mr, "start", ir_i32_attr(k.ctx, 0));
  ir_op_set_attr(k.ctx, mr, "end", ir_i32_attr(k.ctx, 64));
  f += expect_error(&k, "make_range i64", "'tt.make_range' op result must be a 1-D tensor of i32, got tensor<64xi64>");

  kit_init(&k, 0);
  t = const_tensor(&k, tensor1(&k, 32, k.i32, NULL));
  ir_op *ed = emit(&k, OP_EXPAND_DIMS, 1, &t, tensor2(&k, 32, 1, k.i32, NULL));
  ir_op_set_attr(k.ctx, ed, "axis", ir_i32_attr(k.ctx, 0));
  f += expect_error(&k, "expand_dims shape", "'tt.expand_dims' op result must be the operand shape with a 1 inserted at axis 0");

  kit_init(&k, 0);
  t = const_tensor(&k, tensor1(&k, 32, k.i32, NULL));
  emit1(&k, OP_EXPAND_DIMS, t, tensor2(&k, 1, 32, k.i32, NULL));
  f += expect_error(&k, "expand_dims without axis", "'tt.expand_dims' op requires an integer 'axis' attribute");

  kit_init(&k, 0);
  t = const_tensor(&k, tensor2(&k, 4, 1, k.i32, NULL));
  emit1(&k, OP_BROADCAST, t, tensor2(&k, 8, 2, k.i32, NULL));
  f += expect_error(&k, "broadcast dim", "'tt.broadcast' op dimension 0 of the operand must be 1 or equal the result's");

  kit_init(&k, 0);
  t = const_tensor(&k, tensor2(&k, 4, 8, k.i32, NULL));
  emit1(&k, OP_RESHAPE, t, tensor1(&k, 16, k.i32, NULL));
  f += expect_error(&k, "reshape count", "'tt.reshape' op operand and result must have the same number of elements");

  kit_init(&k, 0);
  t = const_tensor(&k, tensor2(&k, 4, 8, k.f32, NULL));
  ir_op *tr = emit(&k, OP_TRANS, 1, &t, tensor2(&k, 8, 4, k.f32, NULL));
  ir_op_set_attr(k.ctx, tr, "order", ir_dense_int_array_attr(k.ctx, k.i32, 2, (int64_t[]){1, 1}));
  f += expect_error(&k, "trans order", "'tt.trans' op order array<i32: 1, 1> is not a permutation of 0..1");

  kit_init(&k, 0);
  t = const_tensor(&k, tensor2(&k, 4, 8, k.f32, NULL));
  tr = emit(&k, OP_TRANS, 1, &t, tensor2(&k, 4, 8, k.f32, NULL));
  ir_op_set_attr(k.ctx, tr, "order", ir_dense_int_array_attr(k.ctx, k.i32, 2, (int64_t[]){1, 0}));
  f += expect_error(&k, "trans shape", "'tt.trans' op result shape must be the operand shape permuted by order");

  kit_init(&k, 0);
  ir_op *pid = emit(&k, OP_GET_PROGRAM_ID, 0, NULL, k.i32);
  ir_op_set_attr(k.ctx, pid, "axis", ir_i32_attr(k.ctx, 3));
  f += expect_error(&k, "program id axis", "'tt.get_program_id' op axis must be 0, 1 or 2 (x, y, z), got 3");
  return f;
}

static int test_memory_ops(void) {
  int f = 0;
  kit k;
  const ir_type *pt;
  kit_init(&k, 0);
  pt = tensor1(&k, 128, k.ptr_f32, NULL);
  emit1(&k, OP_LOAD, param(&k, pt), tensor1(&k, 128, k.f16, NULL));
  f += expect_error(&k, "load result",
                    "'tt.load' op result type must be tensor<128xf32> (the pointee of tensor<128x!tt.ptr<f32>>), got "
                    "tensor<128xf16>");

  kit_init(&k, 0);
  pt = tensor1(&k, 128, k.ptr_f32, NULL);
  ir_value *p = param(&k, pt);
  ir_value *m = const_tensor(&k, tensor1(&k, 128, k.i32, NULL));
  emit2(&k, OP_LOAD, p, m, tensor1(&k, 128, k.f32, NULL));
  f += expect_error(&k, "load mask type", "'tt.load' op mask must be i1 with the pointer's shape and encoding, got tensor<128xi32>");

  kit_init(&k, 0);
  pt = tensor1(&k, 128, k.ptr_f32, NULL);
  p = param(&k, pt);
  m = const_tensor(&k, tensor1(&k, 128, k.i1, NULL));
  ir_value *other = const_tensor(&k, tensor1(&k, 128, k.f16, NULL));
  emit(&k, OP_LOAD, 3, (ir_value *[]){p, m, other}, tensor1(&k, 128, k.f32, NULL));
  f += expect_error(&k, "load other", "'tt.load' op 'other' must have the result type tensor<128xf32>, got tensor<128xf16>");

  kit_init(&k, 0);
  pt = tensor1(&k, 128, k.ptr_f32, NULL);
  p = param(&k, pt);
  emit(&k, OP_STORE, 2, (ir_value *[]){p, const_tensor(&k, tensor1(&k, 64, k.f32, NULL))}, NULL);
  f += expect_error(&k, "store value", "'tt.store' op value type must be tensor<128xf32> (the pointee of tensor<128x!tt.ptr<f32>>), got tensor<64xf32>");

  kit_init(&k, 0);
  emit1(&k, OP_LOAD, const_int(&k, 0, k.i64), k.f32);
  f += expect_error(&k, "load from int", "'tt.load' op operand #0 must be a pointer or a tensor of pointers, got i64");

  /* Shared memory. */
  kit_init(&k, 0);
  ir_layout_params sp;
  memset(&sp, 0, sizeof sp);
  sp.rank = 2;
  sp.vec = sp.per_phase = sp.max_phase = 1;
  sp.order[0] = 1;
  const ir_attr *shared = ir_layout_attr(k.ctx, AT_SWIZZLED_SHARED, &sp);
  const ir_attr *smem = ir_layout_attr(k.ctx, AT_SHARED_MEMORY, NULL);
  const ir_type *buf3 = ir_memdesc_type(k.ctx, 3, (int64_t[]){2, 32, 32}, k.f16, shared, smem, true, 0, NULL);
  const ir_type *buf2 = ir_memdesc_type(k.ctx, 2, (int64_t[]){32, 32}, k.f16, shared, smem, true, 0, NULL);
  const ir_type *bad2 = ir_memdesc_type(k.ctx, 2, (int64_t[]){2, 32}, k.f16, shared, smem, true, 0, NULL);
  ir_value *alloc = &emit(&k, OP_LOCAL_ALLOC, 0, NULL, buf3)->results[0];
  emit2(&k, OP_MEMDESC_INDEX, alloc, const_int(&k, 0, k.i32), bad2);
  f += expect_error(&k, "memdesc_index shape", "'ttg.memdesc_index' op result must be the operand without its leading dimension");

  kit_init(&k, 0);
  memset(&sp, 0, sizeof sp);
  sp.rank = 2;
  sp.vec = sp.per_phase = sp.max_phase = 1;
  sp.order[0] = 1;
  shared = ir_layout_attr(k.ctx, AT_SWIZZLED_SHARED, &sp);
  smem = ir_layout_attr(k.ctx, AT_SHARED_MEMORY, NULL);
  buf3 = ir_memdesc_type(k.ctx, 3, (int64_t[]){2, 32, 32}, k.f16, shared, smem, true, 0, NULL);
  buf2 = ir_memdesc_type(k.ctx, 2, (int64_t[]){32, 32}, k.f16, shared, smem, true, 0, NULL);
  alloc = &emit(&k, OP_LOCAL_ALLOC, 0, NULL, buf3)->results[0];
  ir_value *view = emit2(&k, OP_MEMDESC_INDEX, alloc, const_int(&k, 1, k.i32), buf2);
  ir_value *val = emit1(&k, OP_LOCAL_LOAD, view, tensor2(&k, 32, 32, k.f16, NULL));
  emit(&k, OP_LOCAL_STORE, 2, (ir_value *[]){val, view}, NULL);
  emit1(&k, OP_LOCAL_LOAD, view, tensor2(&k, 32, 16, k.f16, NULL));
  f += expect_error(&k, "local_load shape", "'ttg.local_load' op tensor tensor<32x16xf16> and memory descriptor");

  kit_init(&k, 0);
  memset(&sp, 0, sizeof sp);
  sp.rank = 2;
  sp.vec = sp.per_phase = sp.max_phase = 1;
  sp.order[0] = 1;
  shared = ir_layout_attr(k.ctx, AT_SWIZZLED_SHARED, &sp);
  smem = ir_layout_attr(k.ctx, AT_SHARED_MEMORY, NULL);
  const ir_type *ro = ir_memdesc_type(k.ctx, 2, (int64_t[]){32, 32}, k.f16, shared, smem, false, 0, NULL);
  val = const_tensor(&k, tensor2(&k, 32, 32, k.f16, NULL));
  alloc = emit1(&k, OP_LOCAL_ALLOC, val, ro);
  emit(&k, OP_LOCAL_STORE, 2, (ir_value *[]){val, alloc}, NULL);
  f += expect_error(&k, "local_store immutable", "'ttg.local_store' op cannot store into immutable memory");
  return f;
}

static int test_dot(void) {
  int f = 0;
  kit k;
  kit_init(&k, 0);
  ir_value *a = const_tensor(&k, tensor2(&k, 128, 32, k.f16, NULL));
  ir_value *b = const_tensor(&k, tensor2(&k, 64, 128, k.f16, NULL));
  ir_value *c = const_tensor(&k, tensor2(&k, 128, 128, k.f32, NULL));
  emit(&k, OP_DOT, 3, (ir_value *[]){a, b, c}, tensor2(&k, 128, 128, k.f32, NULL));
  f += expect_error(&k, "dot K", "'tt.dot' op operand #1 must have K = 32 rows (the columns of operand #0)");

  kit_init(&k, 0);
  a = const_tensor(&k, tensor2(&k, 128, 32, k.f16, NULL));
  b = const_tensor(&k, tensor2(&k, 32, 64, k.f16, NULL));
  c = const_tensor(&k, tensor2(&k, 128, 128, k.f32, NULL));
  emit(&k, OP_DOT, 3, (ir_value *[]){a, b, c}, tensor2(&k, 128, 128, k.f32, NULL));
  f += expect_error(&k, "dot C", "'tt.dot' op accumulator must be 128x64 (M x N), got tensor<128x128xf32>");

  kit_init(&k, 0);
  a = const_tensor(&k, tensor2(&k, 128, 32, k.f16, NULL));
  b = const_tensor(&k, tensor2(&k, 32, 128, k.f16, NULL));
  c = const_tensor(&k, tensor2(&k, 128, 128, k.f32, NULL));
  emit(&k, OP_DOT, 3, (ir_value *[]){a, b, c}, tensor2(&k, 128, 128, k.f16, NULL));
  f += expect_error(&k, "dot D", "'tt.dot' op result type must be the accumulator type tensor<128x128xf32>, got tensor<128x128xf16>");

  kit_init(&k, 0);
  a = const_tensor(&k, tensor2(&k, 128, 32, k.f16, NULL));
  b = const_tensor(&k, tensor2(&k, 32, 128, k.f16, NULL));
  c = const_tensor(&k, tensor2(&k, 128, 128, k.f32, NULL));
  ir_op *d = emit(&k, OP_DOT, 3, (ir_value *[]){a, b, c}, tensor2(&k, 128, 128, k.f32, NULL));
  ir_op_set_attr(k.ctx, d, "inputPrecision", ir_keyword_attr(k.ctx, "tf16"));
  f += expect_error(&k, "dot precision", "'tt.dot' op inputPrecision must be one of tf32, tf32x3, ieee, bf16x3, bf16x6, got");

  /* TTGIR: operands must be dot_op of the result's encoding. */
  kit_init(&k, 4);
  const ir_attr *acc = mma(&k, 2, 2, 2);
  const ir_attr *bl = blocked2d(&k);
  a = const_tensor(&k, tensor2(&k, 128, 32, k.f16, dot_op(&k, 0, acc, 2)));
  b = const_tensor(&k, tensor2(&k, 32, 128, k.f16, bl));
  c = const_tensor(&k, tensor2(&k, 128, 128, k.f32, acc));
  emit(&k, OP_DOT, 3, (ir_value *[]){a, b, c}, tensor2(&k, 128, 128, k.f32, acc));
  f += expect_error(&k, "dot B encoding", "'tt.dot' op operand #1 encoding must be #ttg.dot_op<{opIdx = 1, parent = ");

  kit_init(&k, 4);
  acc = mma(&k, 2, 2, 2);
  a = const_tensor(&k, tensor2(&k, 128, 32, k.f16, dot_op(&k, 1, acc, 2)));
  b = const_tensor(&k, tensor2(&k, 32, 128, k.f16, dot_op(&k, 1, acc, 2)));
  c = const_tensor(&k, tensor2(&k, 128, 128, k.f32, acc));
  emit(&k, OP_DOT, 3, (ir_value *[]){a, b, c}, tensor2(&k, 128, 128, k.f32, acc));
  f += expect_error(&k, "dot A opIdx", "'tt.dot' op operand #0 encoding must be #ttg.dot_op<{opIdx = 0");

  kit_init(&k, 4);
  acc = mma(&k, 2, 2, 2);
  a = const_tensor(&k, tensor2(&k, 128, 32, k.f16, dot_op(&k, 0, acc, 2)));
  b = const_tensor(&k, tensor2(&k, 32, 128, k.f16, dot_op(&k, 1, acc, 2)));
  c = const_tensor(&k, tensor2(&k, 128, 128, k.f32, acc));
  d = emit(&k, OP_DOT, 3, (ir_value *[]){a, b, c}, tensor2(&k, 128, 128, k.f32, acc));
  ir_op_set_attr(k.ctx, d, "inputPrecision", ir_keyword_attr(k.ctx, "tf32"));
  /* Batched. */
  ir_value *a3 = const_tensor(&k, ir_tensor_type(k.ctx, 3, (int64_t[]){2, 16, 8}, k.f32, NULL));
  ir_value *b3 = const_tensor(&k, ir_tensor_type(k.ctx, 3, (int64_t[]){2, 8, 32}, k.f32, NULL));
  ir_value *c3 = const_tensor(&k, ir_tensor_type(k.ctx, 3, (int64_t[]){2, 16, 32}, k.f32, NULL));
  emit(&k, OP_DOT, 3, (ir_value *[]){a3, b3, c3}, c3->type);
  f += expect_valid(&k, "valid dots");
  return f;
}

/* ------------------------------------------------------------------ scf and functions */

static ir_op *build_for(kit *k, ir_value *lb, ir_value *ub, ir_value *step, int n, ir_value *const *inits,
                        const ir_type *const *result_types, ir_block **body_out) {
  ir_value *ops[8] = {lb, ub, step};
  for (int i = 0; i < n; i++) ops[3 + i] = inits[i];
  ir_op *loop = ir_op_create(k->ctx, OP_SCF_FOR, 3 + n, ops, n, result_types, 1, NULL);
  ir_block_append_op(k->cur, loop);
  ir_block *body = ir_block_create(k->ctx);
  ir_region_append_block(&loop->regions[0], body);
  *body_out = body;
  return loop;
}

static int test_scf(void) {
  int f = 0;
  kit k;
  ir_block *body;

  kit_init(&k, 0);
  ir_value *lb = const_int(&k, 0, k.i32), *ub = const_int(&k, 8, k.i64), *st = const_int(&k, 1, k.i32);
  build_for(&k, lb, ub, st, 0, NULL, NULL, &body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  ir_block_append_op(body, ir_op_create(k.ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL));
  f += expect_error(&k, "for bound types", "'scf.for' op lower bound, upper bound and step must have the same integer or index type, got i32, i64 and i32");

  kit_init(&k, 0);
  lb = const_int(&k, 0, k.i32);
  ir_value *init = param(&k, k.f32);
  build_for(&k, lb, lb, lb, 1, &init, (const ir_type *[]){k.f32}, &body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  ir_block_add_arg(k.ctx, body, k.f32, NULL);
  ir_value *i32v = const_int(&k, 0, k.i32);
  ir_op_unlink(i32v->def_op);
  ir_block_append_op(body, i32v->def_op);
  ir_block_append_op(body, ir_op_create(k.ctx, OP_SCF_YIELD, 1, &i32v, 0, NULL, 0, NULL));
  f += expect_error(&k, "yield type", "'scf.yield' op operand #0 has type i32 but the enclosing 'scf.for' expects f32");

  kit_init(&k, 0);
  lb = const_int(&k, 0, k.i32);
  init = param(&k, k.f32);
  build_for(&k, lb, lb, lb, 1, &init, (const ir_type *[]){k.f32}, &body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  ir_block_add_arg(k.ctx, body, k.f32, NULL);
  ir_block_append_op(body, ir_op_create(k.ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL));
  f += expect_error(&k, "yield count", "'scf.yield' op yields 0 values but the enclosing 'scf.for' expects 1");

  kit_init(&k, 0);
  lb = const_int(&k, 0, k.i32);
  init = param(&k, k.f32);
  build_for(&k, lb, lb, lb, 1, &init, (const ir_type *[]){k.f16}, &body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  ir_block_add_arg(k.ctx, body, k.f32, NULL);
  ir_block_append_op(body, ir_op_create(k.ctx, OP_SCF_YIELD, 1, &body->args[1], 0, NULL, 0, NULL));
  f += expect_error(&k, "for result type", "'scf.for' op result #0 type f16 does not match its iter_arg init type f32");

  kit_init(&k, 0);
  lb = const_int(&k, 0, k.i32);
  init = param(&k, k.f32);
  build_for(&k, lb, lb, lb, 1, &init, (const ir_type *[]){k.f32}, &body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  ir_block_append_op(body, ir_op_create(k.ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL));
  f += expect_error(&k, "for body args", "'scf.for' op body must take 2 arguments (the induction variable and 1 iter_args), found 1");

  kit_init(&k, 0);
  lb = const_int(&k, 0, k.i32);
  build_for(&k, lb, lb, lb, 0, NULL, NULL, &body);
  ir_block_add_arg(k.ctx, body, k.i64, NULL);
  ir_block_append_op(body, ir_op_create(k.ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL));
  f += expect_error(&k, "for iv type", "'scf.for' op induction variable must have the bound type i32, got i64");

  /* Valid loop carrying a value, as in a GEMM K loop. */
  kit_init(&k, 0);
  lb = const_int(&k, 0, k.i32);
  ir_value *ubp = param(&k, k.i32);
  init = param(&k, k.f32);
  ir_op *loop = build_for(&k, lb, ubp, const_int(&k, 1, k.i32), 1, &init, (const ir_type *[]){k.f32}, &body);
  ir_block_add_arg(k.ctx, body, k.i32, NULL);
  ir_value *acc = ir_block_add_arg(k.ctx, body, k.f32, NULL);
  k.cur = body;
  ir_value *next = emit2(&k, OP_ADDF, acc, acc, k.f32);
  emit(&k, OP_SCF_YIELD, 1, &next, NULL);
  k.cur = k.body;
  emit2(&k, OP_MULF, &loop->results[0], init, k.f32);
  f += expect_valid(&k, "valid for");

  /* scf.if */
  kit_init(&k, 0);
  ir_value *c = const_int(&k, 1, k.i32);
  ir_op *iff = emit(&k, OP_SCF_IF, 1, &c, NULL);
  ir_block *tb = ir_block_create(k.ctx);
  ir_region_append_block(&iff->regions[0], tb);
  ir_block_append_op(tb, ir_op_create(k.ctx, OP_SCF_YIELD, 0, NULL, 0, NULL, 0, NULL));
  f += expect_error(&k, "if condition", "'scf.if' op condition must be i1, got i32");

  kit_init(&k, 0);
  c = const_int(&k, 1, k.i1);
  ir_value *x = param(&k, k.f32);
  iff = emit(&k, OP_SCF_IF, 1, &c, k.f32);
  tb = ir_block_create(k.ctx);
  ir_region_append_block(&iff->regions[0], tb);
  ir_block_append_op(tb, ir_op_create(k.ctx, OP_SCF_YIELD, 1, &x, 0, NULL, 0, NULL));
  f += expect_error(&k, "if without else", "'scf.if' op must have an else region when it has results");

  kit_init(&k, 0);
  c = const_int(&k, 1, k.i1);
  x = param(&k, k.f32);
  ir_value *y = param(&k, k.i32);
  iff = emit(&k, OP_SCF_IF, 1, &c, k.f32);
  tb = ir_block_create(k.ctx);
  ir_block *eb = ir_block_create(k.ctx);
  ir_region_append_block(&iff->regions[0], tb);
  ir_region_append_block(&iff->regions[1], eb);
  ir_block_append_op(tb, ir_op_create(k.ctx, OP_SCF_YIELD, 1, &x, 0, NULL, 0, NULL));
  ir_block_append_op(eb, ir_op_create(k.ctx, OP_SCF_YIELD, 1, &y, 0, NULL, 0, NULL));
  f += expect_error(&k, "if else yield type", "'scf.yield' op operand #0 has type i32 but the enclosing 'scf.if' expects f32");

  kit_init(&k, 0);
  c = const_int(&k, 1, k.i1);
  x = param(&k, k.f32);
  iff = emit(&k, OP_SCF_IF, 1, &c, k.f32);
  tb = ir_block_create(k.ctx);
  eb = ir_block_create(k.ctx);
  ir_region_append_block(&iff->regions[0], tb);
  ir_region_append_block(&iff->regions[1], eb);
  ir_block_append_op(tb, ir_op_create(k.ctx, OP_SCF_YIELD, 1, &x, 0, NULL, 0, NULL));
  ir_block_append_op(eb, ir_op_create(k.ctx, OP_SCF_YIELD, 1, &x, 0, NULL, 0, NULL));
  emit2(&k, OP_ADDF, &iff->results[0], x, k.f32);
  f += expect_valid(&k, "valid if");
  return f;
}

static int test_functions(void) {
  int f = 0;
  kit k;
  kit_init(&k, 0);
  param(&k, k.i32);
  /* function_type says f32 while the entry block takes i32: set it by hand. */
  ir_op_set_attr(k.ctx, k.func, "function_type",
                 ir_type_attr(k.ctx, ir_func_type(k.ctx, 1, (const ir_type *[]){k.f32}, 0, NULL)));
  ir_block_append_op(k.body, ir_op_create(k.ctx, OP_RETURN, 0, NULL, 0, NULL, 0, NULL));
  bool ok = ir_verify(k.ctx, k.module);
  if (ok || k.cap.num_errors != 1 ||
      !strstr(k.cap.messages[0], "'tt.func' op entry block argument #0 type i32 does not match the function signature type f32")) {
    fprintf(stderr, "FAIL func signature: %d errors\n", k.cap.num_errors);
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);

  kit_init(&k, 0);
  ir_value *x = param(&k, k.f32);
  ir_op_set_attr(k.ctx, k.func, "function_type",
                 ir_type_attr(k.ctx, ir_func_type(k.ctx, 1, (const ir_type *[]){k.f32}, 1, (const ir_type *[]){k.i32})));
  ir_block_append_op(k.body, ir_op_create(k.ctx, OP_RETURN, 1, &x, 0, NULL, 0, NULL));
  ok = ir_verify(k.ctx, k.module);
  if (ok || k.cap.num_errors != 1 ||
      !strstr(k.cap.messages[0], "'tt.return' op operand #0 type f32 does not match the function result type i32")) {
    fprintf(stderr, "FAIL return type: %d errors\n", k.cap.num_errors);
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);

  kit_init(&k, 0);
  x = param(&k, k.f32);
  ir_op_set_attr(k.ctx, k.func, "function_type",
                 ir_type_attr(k.ctx, ir_func_type(k.ctx, 1, (const ir_type *[]){k.f32}, 1, (const ir_type *[]){k.f32})));
  ir_block_append_op(k.body, ir_op_create(k.ctx, OP_RETURN, 0, NULL, 0, NULL, 0, NULL));
  ok = ir_verify(k.ctx, k.module);
  if (ok || k.cap.num_errors != 1 ||
      !strstr(k.cap.messages[0], "'tt.return' op has 0 operands, but the enclosing function @kernel returns 1")) {
    fprintf(stderr, "FAIL return count: %d errors\n", k.cap.num_errors);
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);

  kit_init(&k, 0);
  ir_block_append_op(k.body, ir_op_create(k.ctx, OP_RETURN, 0, NULL, 0, NULL, 0, NULL));
  ok = ir_verify(k.ctx, k.module);
  if (ok || k.cap.num_errors != 1 || !strstr(k.cap.messages[0], "'tt.func' op requires a 'function_type' attribute")) {
    fprintf(stderr, "FAIL func without type: %d errors\n", k.cap.num_errors);
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);

  /* Verifying a function alone (not the module) works too. */
  kit_init(&k, 0);
  ir_value *a = const_int(&k, 1, k.i32);
  emit2(&k, OP_ADDI, a, a, k.i32);
  kit_finish(&k);
  if (!ir_verify(k.ctx, k.func) || k.cap.num_errors) {
    fprintf(stderr, "FAIL verify a func alone\n");
    print_messages(&k);
    f++;
  }
  kit_destroy(&k);
  return f;
}

/* ------------------------------------------------------------------ tt.reduce */

static ir_op *build_reduce(kit *k, ir_value *in, int axis, const ir_type *result, ir_block **body_out) {
  ir_op *r = ir_op_create(k->ctx, OP_REDUCE, 1, &in, 1, &result, 1, NULL);
  ir_op_set_attr(k->ctx, r, "axis", ir_i32_attr(k->ctx, axis));
  ir_op_mark_property(k->ctx, r, "axis");
  ir_block_append_op(k->cur, r);
  ir_block *b = ir_block_create(k->ctx);
  ir_region_append_block(&r->regions[0], b);
  *body_out = b;
  return r;
}

static void combine_body(kit *k, ir_block *b, const ir_type *elem, int num_args) {
  for (int i = 0; i < num_args; i++) ir_block_add_arg(k->ctx, b, elem, NULL);
  ir_value *ops[2] = {b->args[0], b->args[num_args > 1 ? 1 : 0]};
  ir_op *add = ir_op_create(k->ctx, OP_MAXNUMF, 2, ops, 1, &elem, 0, NULL);
  ir_block_append_op(b, add);
  ir_block_append_op(b, ir_op_create(k->ctx, OP_REDUCE_RETURN, 1, (ir_value *[]){&add->results[0]}, 0, NULL, 0, NULL));
}

static int test_reduce(void) {
  int f = 0;
  kit k;
  ir_block *b;
  kit_init(&k, 0);
  ir_value *x = const_tensor(&k, tensor2(&k, 16, 32, k.f32, NULL));
  build_reduce(&k, x, 2, tensor1(&k, 16, k.f32, NULL), &b);
  combine_body(&k, b, k.f32, 2);
  f += expect_error(&k, "reduce axis", "'tt.reduce' op axis 2 is out of range for operands of rank 2");

  kit_init(&k, 0);
  x = const_tensor(&k, tensor2(&k, 16, 32, k.f32, NULL));
  build_reduce(&k, x, 1, tensor1(&k, 32, k.f32, NULL), &b);
  combine_body(&k, b, k.f32, 2);
  f += expect_error(&k, "reduce result shape", "'tt.reduce' op result #0 must be operand #0 without dimension 1");

  kit_init(&k, 0);
  x = const_tensor(&k, tensor2(&k, 16, 32, k.f32, NULL));
  build_reduce(&k, x, 1, tensor1(&k, 16, k.f32, NULL), &b);
  combine_body(&k, b, k.f32, 1);
  f += expect_error(&k, "reduce region args", "'tt.reduce' op combine region must take 2 scalar arguments (two per operand), found 1");

  kit_init(&k, 0);
  x = const_tensor(&k, tensor1(&k, 16, k.f32, NULL));
  build_reduce(&k, x, 0, k.f32, &b);
  combine_body(&k, b, k.f16, 2);
  f += expect_error(&k, "reduce region arg types", "'tt.reduce' op combine region argument #0 must have type f32, got f16");

  /* TTGIR: the result is a slice of the input layout. */
  kit_init(&k, 4);
  const ir_attr *bl = blocked2d(&k);
  x = const_tensor(&k, tensor2(&k, 16, 32, k.f32, bl));
  build_reduce(&k, x, 1, tensor1(&k, 16, k.f32, slice(&k, 1, bl)), &b);
  combine_body(&k, b, k.f32, 2);
  x = const_tensor(&k, tensor1(&k, 16, k.f32, NULL));
  build_reduce(&k, x, 0, k.f32, &b);
  combine_body(&k, b, k.f32, 2);
  f += expect_valid(&k, "valid reduces");

  kit_init(&k, 4);
  bl = blocked2d(&k);
  x = const_tensor(&k, tensor2(&k, 16, 32, k.f32, bl));
  build_reduce(&k, x, 1, tensor1(&k, 16, k.f32, slice(&k, 0, bl)), &b);
  combine_body(&k, b, k.f32, 2);
  f += expect_error(&k, "reduce result encoding", "'tt.reduce' op result #0 must be operand #0 without dimension 1");
  return f;
}

/* ------------------------------------------------------------------ layouts */

static int test_layouts(void) {
  int f = 0;
  kit k;

  /* A small valid TTGIR kernel: ranges, expand_dims of slices, broadcast, addptr, load, store. */
  kit_init(&k, 4);
  const ir_attr *bl = blocked2d(&k);
  const ir_attr *rows = slice(&k, 1, bl), *cols = slice(&k, 0, bl);
  ir_value *base = param(&k, k.ptr_f32);
  ir_op *mr = emit(&k, OP_MAKE_RANGE, 0, NULL, tensor1(&k, 64, k.i32, rows));
  ir_op_set_attr(k.ctx, mr, "start", ir_i32_attr(k.ctx, 0));
  ir_op_set_attr(k.ctx, mr, "end", ir_i32_attr(k.ctx, 64));
  ir_op *mc = emit(&k, OP_MAKE_RANGE, 0, NULL, tensor1(&k, 64, k.i32, cols));
  ir_op_set_attr(k.ctx, mc, "start", ir_i32_attr(k.ctx, 0));
  ir_op_set_attr(k.ctx, mc, "end", ir_i32_attr(k.ctx, 64));
  ir_op *er = emit(&k, OP_EXPAND_DIMS, 1, (ir_value *[]){&mr->results[0]}, tensor2(&k, 64, 1, k.i32, bl));
  ir_op_set_attr(k.ctx, er, "axis", ir_i32_attr(k.ctx, 1));
  ir_op *ec = emit(&k, OP_EXPAND_DIMS, 1, (ir_value *[]){&mc->results[0]}, tensor2(&k, 1, 64, k.i32, bl));
  ir_op_set_attr(k.ctx, ec, "axis", ir_i32_attr(k.ctx, 0));
  ir_value *br = emit1(&k, OP_BROADCAST, &er->results[0], tensor2(&k, 64, 64, k.i32, bl));
  ir_value *bc = emit1(&k, OP_BROADCAST, &ec->results[0], tensor2(&k, 64, 64, k.i32, bl));
  ir_value *off = emit2(&k, OP_ADDI, br, bc, tensor2(&k, 64, 64, k.i32, bl));
  ir_value *ptrs = emit1(&k, OP_SPLAT, base, tensor2(&k, 64, 64, k.ptr_f32, bl));
  ptrs = emit2(&k, OP_ADDPTR, ptrs, off, ptrs->type);
  ir_value *v = emit1(&k, OP_LOAD, ptrs, tensor2(&k, 64, 64, k.f32, bl));
  ir_value *cv = emit1(&k, OP_CONVERT_LAYOUT, v, tensor2(&k, 64, 64, k.f32, mma(&k, 2, 2, 2)));
  ir_value *back = emit1(&k, OP_CONVERT_LAYOUT, cv, v->type);
  emit(&k, OP_STORE, 2, (ir_value *[]){ptrs, back}, NULL);
  f += expect_valid(&k, "valid TTGIR kernel");

  kit_init(&k, 4);
  bl = blocked2d(&k);
  mr = emit(&k, OP_MAKE_RANGE, 0, NULL, tensor1(&k, 64, k.i32, slice(&k, 0, bl)));
  ir_op_set_attr(k.ctx, mr, "start", ir_i32_attr(k.ctx, 0));
  ir_op_set_attr(k.ctx, mr, "end", ir_i32_attr(k.ctx, 64));
  er = emit(&k, OP_EXPAND_DIMS, 1, (ir_value *[]){&mr->results[0]}, tensor2(&k, 64, 1, k.i32, bl));
  ir_op_set_attr(k.ctx, er, "axis", ir_i32_attr(k.ctx, 1));
  f += expect_error(&k, "expand_dims slice dim", "'tt.expand_dims' op operand encoding must be #ttg.slice<{dim = 1, parent = ");

  kit_init(&k, 4);
  int spt[1] = {1}, tpw16[1] = {16}, wpc4[1] = {4}, ord[1] = {0};
  const ir_type *t = tensor1(&k, 128, k.f32, blocked(&k, 1, spt, tpw16, wpc4, ord));
  ir_value *a = const_tensor(&k, t);
  emit2(&k, OP_ADDF, a, a, t);
  emit2(&k, OP_MULF, a, a, t);
  /* Three values use the bad layout; it is one problem, so one diagnostic. */
  f += expect_error(&k, "threadsPerWarp product", "has an invalid encoding #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [16], warpsPerCTA = [4], order = [0]}>: threadsPerWarp multiplies to 16, expected 32");

  kit_init(&k, 8);
  int tpw32[1] = {32};
  t = tensor1(&k, 128, k.f32, blocked(&k, 1, spt, tpw32, wpc4, ord));
  const_tensor(&k, t);
  f += expect_error(&k, "warpsPerCTA product", "warpsPerCTA multiplies to 4, expected 8");

  kit_init(&k, 4);
  int spt2[2] = {1, 1}, tpw2[2] = {4, 8}, wpc2[2] = {4, 1}, bad_order[2] = {0, 0};
  t = tensor2(&k, 16, 16, k.f32, blocked(&k, 2, spt2, tpw2, wpc2, bad_order));
  const_tensor(&k, t);
  f += expect_error(&k, "order permutation", "order is not a permutation");

  kit_init(&k, 4);
  t = tensor2(&k, 16, 16, k.f32, blocked(&k, 1, spt, tpw32, wpc4, ord));
  const_tensor(&k, t);
  f += expect_error(&k, "blocked rank", "layout rank does not match the tensor rank");

  kit_init(&k, 4);
  bl = blocked2d(&k);
  t = tensor2(&k, 16, 16, k.f32, slice(&k, 0, bl));
  const_tensor(&k, t);
  f += expect_error(&k, "slice parent rank", "'arith.constant' op result #0 has an invalid encoding #ttg.slice<{dim = 0, parent = ");

  kit_init(&k, 4);
  t = tensor2(&k, 16, 16, k.f32, mma(&k, 1, 2, 2));
  const_tensor(&k, t);
  f += expect_error(&k, "mma version", "versionMajor must be 2 or 3");

  kit_init(&k, 4);
  t = tensor2(&k, 16, 16, k.f32, dot_op(&k, 2, blocked2d(&k), 0));
  const_tensor(&k, t);
  f += expect_error(&k, "dot_op opIdx", "opIdx must be 0 or 1");

  kit_init(&k, 4);
  ir_op_set_attr(k.ctx, k.module, "ttg.threads-per-warp", ir_i32_attr(k.ctx, 16));
  f += expect_error(&k, "module threads-per-warp", "'module' op ttg.threads-per-warp must be 32 or 64, got 16");

  kit_init(&k, 4);
  ir_op_set_attr(k.ctx, k.module, "ttg.threads-per-warp", ir_i32_attr(k.ctx, 64));
  int tpw64[2] = {8, 8};
  t = tensor2(&k, 32, 32, k.f32, blocked(&k, 2, spt2, tpw64, wpc2, (int[]){1, 0}));
  const_tensor(&k, t);
  param(&k, t);
  f += expect_valid(&k, "64-lane blocked layout");

  kit_init(&k, 4);
  ir_layout_params sp;
  memset(&sp, 0, sizeof sp);
  sp.rank = 1;
  sp.vec = sp.per_phase = sp.max_phase = 1;
  t = tensor1(&k, 16, k.f32, ir_layout_attr(k.ctx, AT_SWIZZLED_SHARED, &sp));
  const_tensor(&k, t);
  f += expect_error(&k, "shared layout on a tensor", "a tensor encoding must be a distributed layout");
  return f;
}

int main(void) {
  int failures = 0;
  failures += test_operand_and_result_counts();
  failures += test_terminators();
  failures += test_dominance();
  failures += test_arith();
  failures += test_tt_shapes();
  failures += test_memory_ops();
  failures += test_dot();
  failures += test_scf();
  failures += test_functions();
  failures += test_reduce();
  failures += test_layouts();
  if (failures) {
    fprintf(stderr, "test_verifier: %d failures\n", failures);
    return 1;
  }
  printf("test_verifier: all passed\n");
  return 0;
}
