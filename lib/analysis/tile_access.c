/* Tile-access analysis: tt.load / tt.store pointers and masks decomposed per dim (start, wrap, stride, loop advance, bound), and the wrapped-index proof through dots into masked stores. */
#include "gemmc/tile_access.h"

#include <stdint.h>
#include <string.h>

#include "util.h"

/* ------------------------------------------------------------------ coefficients */

static bool coef_scale(tile_coef *c, int64_t k) {
  if (k != 0 && (c->c > INT64_MAX / (k < 0 ? -k : k) || c->c < -(INT64_MAX / (k < 0 ? -k : k)))) return false;
  c->c *= k;
  return true;
}

/* c *= s, splitting s into its constant and scalar factors (arith.muli, arith.extsi). */
static bool coef_mul(tile_coef *c, ir_value *s) {
  int64_t k;
  if (value_int_constant(s, &k)) return coef_scale(c, k);
  const ir_op *def = s->def_op;
  if (def && def->kind == OP_MULI) return coef_mul(c, def->operands[0].value) && coef_mul(c, def->operands[1].value);
  if (def && def->kind == OP_EXTSI) return coef_mul(c, def->operands[0].value);
  if (c->n == TILE_MAX_FACTORS) return false;
  c->f[c->n++] = s;
  return true;
}

bool tile_coef_equal(const tile_coef *a, const tile_coef *b) {
  if (a->c != b->c || a->n != b->n) return false;
  for (int i = 0; i < a->n; i++) {
    int in_a = 0, in_b = 0;
    for (int j = 0; j < a->n; j++) {
      in_a += a->f[j] == a->f[i];
      in_b += b->f[j] == a->f[i];
    }
    if (in_a != in_b) return false;
  }
  return true;
}

/* q with a = q * b where b's factors are exactly a's: the multiple of a dim's stride. */
static bool coef_multiple(const tile_coef *a, const tile_coef *b, int64_t *q) {
  tile_coef b1 = *b, a1 = *a;
  b1.c = a1.c = 1;
  if (!tile_coef_equal(&a1, &b1) || b->c == 0 || a->c % b->c != 0) return false;
  *q = a->c / b->c;
  return true;
}

/* ------------------------------------------------------------------ sums of terms */

typedef enum term_kind {
  TERM_OFFSET, /* a scalar offset: coef */
  TERM_INDEX,  /* (start + arange) [mod wrap] along dim, times coef */
  TERM_START,  /* value * coef, inside a 1-D index vector of dim: the start of the index */
} term_kind;

typedef struct term {
  term_kind kind;
  int dim;
  tile_coef coef;
  ir_value *value; /* START: the start */
  ir_value *wrap;  /* INDEX: the modulus, NULL when not wrapped */
  ir_value *start; /* INDEX: the start inside the wrap */
} term;

enum { MAX_TERMS = 12 };

typedef struct term_sum {
  term t[MAX_TERMS];
  int n;
} term_sum;

static bool push(term_sum *s, term t) {
  if (s->n == MAX_TERMS) return false;
  s->t[s->n++] = t;
  return true;
}

static const tile_coef ONE = {1, 0, {NULL}};

/* The scalar a tensor was splat from (through broadcasts); NULL otherwise. */
static ir_value *splat_scalar(ir_value *v) {
  for (const ir_op *def = v->def_op; def; def = v->def_op) {
    if (def->kind == OP_SPLAT) return def->operands[0].value;
    if (def->kind != OP_BROADCAST) return NULL;
    v = def->operands[0].value;
  }
  return NULL;
}

/* A scalar integer offset as terms: sums split, products kept as one coefficient. */
static bool scalar_terms(ir_value *s, tile_coef coef, term_sum *out) {
  const ir_op *def = s->def_op;
  if (def && def->kind == OP_ADDI)
    return scalar_terms(def->operands[0].value, coef, out) && scalar_terms(def->operands[1].value, coef, out);
  int64_t k;
  if (value_int_constant(s, &k) && k == 0) return true;
  if (!coef_mul(&coef, s)) return false;
  return push(out, (term){TERM_OFFSET, -1, coef, NULL, NULL, NULL});
}

/* An integer tensor (rank 2, vdim < 0) or a 1-D index vector laid along tile dim vdim, times coef. */
static bool int_terms(ir_value *v, int vdim, tile_coef coef, term_sum *out) {
  ir_op *def = v->def_op;
  if (!def) return false;
  int64_t k;
  switch (def->kind) {
  case OP_CONSTANT:
    if (!value_int_constant(v, &k)) return false;
    if (k == 0) return true;
    /* A constant start of an index vector has no scalar to name it: not handled. */
    if (vdim >= 0 || !coef_scale(&coef, k)) return false;
    return push(out, (term){TERM_OFFSET, -1, coef, NULL, NULL, NULL});
  case OP_SPLAT: {
    ir_value *s = def->operands[0].value;
    if (vdim < 0) return scalar_terms(s, coef, out);
    return push(out, (term){TERM_START, vdim, coef, s, NULL, NULL});
  }
  case OP_BROADCAST:
  case OP_EXTSI: return int_terms(def->operands[0].value, vdim, coef, out);
  case OP_EXPAND_DIMS: {
    ir_value *x = def->operands[0].value;
    int64_t axis = ir_op_get_int_attr(def, "axis", -1);
    if (vdim >= 0 || !ir_type_is_tensor(x->type) || x->type->rank != 1 || v->type->rank != 2 || (axis != 0 && axis != 1))
      return false;
    return int_terms(x, (int)(1 - axis), coef, out);
  }
  case OP_ADDI: return int_terms(def->operands[0].value, vdim, coef, out) && int_terms(def->operands[1].value, vdim, coef, out);
  case OP_MULI: {
    ir_value *a = def->operands[0].value, *b = def->operands[1].value;
    ir_value *s = splat_scalar(b);
    if (!s && value_int_constant(b, &k)) return coef_scale(&coef, k) && int_terms(a, vdim, coef, out);
    if (s) return coef_mul(&coef, s) && int_terms(a, vdim, coef, out);
    s = splat_scalar(a);
    if (!s && value_int_constant(a, &k)) return coef_scale(&coef, k) && int_terms(b, vdim, coef, out);
    if (s) return coef_mul(&coef, s) && int_terms(b, vdim, coef, out);
    return false;
  }
  case OP_MAKE_RANGE:
    if (vdim < 0 || ir_op_get_int_attr(def, "start", -1) != 0) return false;
    return push(out, (term){TERM_INDEX, vdim, coef, NULL, NULL, NULL});
  case OP_REMSI: {
    /* (start + arange) % wrap: the wrap applies before coef. */
    ir_value *w = splat_scalar(def->operands[1].value);
    term_sum inner = {.n = 0};
    if (vdim < 0 || !w || !int_terms(def->operands[0].value, vdim, ONE, &inner)) return false;
    ir_value *start = NULL;
    bool index = false;
    for (int i = 0; i < inner.n; i++) {
      const term *t = &inner.t[i];
      if (t->kind == TERM_INDEX && !t->wrap && tile_coef_equal(&t->coef, &ONE) && !index) index = true;
      else if (t->kind == TERM_START && tile_coef_equal(&t->coef, &ONE) && !start) start = t->value;
      else return false;
    }
    if (!index) return false;
    return push(out, (term){TERM_INDEX, vdim, coef, NULL, w, start});
  }
  default: return false;
  }
}

/* A tensor of pointers: base (scalar, its scalar tt.addptr offsets as OFFSET terms) plus the
 * offsets' terms; a loop-carried pointer contributes its initial value, and its per-iteration
 * step goes to `advance`. */
static bool ptr_terms(ir_value *p, tile_access *acc, term_sum *out, term_sum *advance) {
  if (!p->def_op) {
    ir_op *loop = block_arg_owner(p);
    int64_t step;
    if (p->index == 0 || acc->loop || !scf_for_step_from_zero(loop, &step)) return false;
    int k = p->index - 1;
    ir_op *yield = ir_block_terminator(p->owner_block);
    if (!yield || k >= yield->num_operands) return false;
    ir_op *next = yield->operands[k].value->def_op;
    if (!next || next->kind != OP_ADDPTR || next->operands[0].value != p) return false;
    if (!int_terms(next->operands[1].value, -1, ONE, advance)) return false;
    for (int i = 0; i < advance->n; i++)
      if (advance->t[i].kind != TERM_OFFSET) return false;
    acc->loop = loop;
    return ptr_terms(loop->operands[3 + k].value, acc, out, advance);
  }
  ir_op *def = p->def_op;
  switch (def->kind) {
  case OP_SPLAT: {
    ir_value *s = def->operands[0].value;
    while (s->def_op && s->def_op->kind == OP_ADDPTR) {
      if (!scalar_terms(s->def_op->operands[1].value, ONE, out)) return false;
      s = s->def_op->operands[0].value;
    }
    if (s->type->kind != TY_PTR) return false;
    acc->base = s;
    return true;
  }
  case OP_BROADCAST: return ptr_terms(def->operands[0].value, acc, out, advance);
  case OP_ADDPTR:
    return ptr_terms(def->operands[0].value, acc, out, advance) && int_terms(def->operands[1].value, -1, ONE, out);
  default: return false;
  }
}

/* ------------------------------------------------------------------ masks */

/* One conjunct `start + arange < bound` along dim (start NULL: 0), or (dim -1) a scalar i1
 * splat over the tile (in `bound`). */
typedef struct mask_conj {
  int dim;
  ir_value *start, *bound;
  bool lower; /* `start + arange >= 0` (Triton's block-pointer boundary check): no bound */
} mask_conj;

enum { MAX_CONJ = 4 };

typedef struct mask_conjs {
  mask_conj c[MAX_CONJ];
  int n;
} mask_conjs;

/* The conjuncts of an i1 mask (rank 2, or a 1-D vector along vdim under an expand_dims). */
static bool mask_terms(ir_value *m, int vdim, mask_conjs *out) {
  ir_op *def = m->def_op;
  if (!def) return false;
  switch (def->kind) {
  case OP_ANDI: return mask_terms(def->operands[0].value, vdim, out) && mask_terms(def->operands[1].value, vdim, out);
  case OP_BROADCAST: return mask_terms(def->operands[0].value, vdim, out);
  case OP_SPLAT:
    if (out->n == MAX_CONJ || !ir_type_is_int(def->operands[0].value->type, 1)) return false;
    out->c[out->n++] = (mask_conj){-1, NULL, def->operands[0].value, false};
    return true;
  case OP_EXPAND_DIMS: {
    ir_value *x = def->operands[0].value;
    int64_t axis = ir_op_get_int_attr(def, "axis", -1);
    if (vdim >= 0 || !ir_type_is_tensor(x->type) || x->type->rank != 1 || (axis != 0 && axis != 1)) return false;
    return mask_terms(x, (int)(1 - axis), out);
  }
  case OP_CMPI: {
    const char *pred = cmp_predicate_of(def);
    bool lower = pred && strcmp(pred, "sge") == 0 && value_is_zero_splat(def->operands[1].value);
    if (!pred || (strcmp(pred, "slt") != 0 && !lower) || out->n == MAX_CONJ) return false;
    ir_value *bound = lower ? NULL : splat_scalar(def->operands[1].value);
    term_sum lhs = {.n = 0};
    if ((!bound && !lower) || !int_terms(def->operands[0].value, vdim, ONE, &lhs)) return false;
    mask_conj c = {-1, NULL, bound, lower};
    for (int i = 0; i < lhs.n; i++) {
      const term *t = &lhs.t[i];
      if (t->kind == TERM_INDEX && !t->wrap && tile_coef_equal(&t->coef, &ONE) && c.dim < 0) c.dim = t->dim;
      else if (t->kind == TERM_START && tile_coef_equal(&t->coef, &ONE) && !c.start) c.start = t->value;
      else return false;
    }
    if (c.dim < 0 || (c.start && lhs.n != 2)) return false;
    out->c[out->n++] = c;
    return true;
  }
  default: return false;
  }
}

/* bound' == bound - iv * c with c * step == advance (iv = iteration * step from 0): arith.subi of
 * an arith.muli (either operand order), or of iv itself when step == advance. */
static ir_value *relative_bound(ir_value *b, const ir_op *loop, int64_t advance) {
  const ir_op *sub = b->def_op;
  if (!sub || sub->kind != OP_SUBI) return NULL;
  ir_value *iv = ir_region_entry(&loop->regions[0])->args[0];
  int64_t step, k;
  if (!value_int_constant(loop->operands[2].value, &step)) return NULL;
  if (sub->operands[1].value == iv) return step == advance ? sub->operands[0].value : NULL;
  const ir_op *mul = sub->operands[1].value->def_op;
  if (!mul || mul->kind != OP_MULI) return NULL;
  for (int i = 0; i < 2; i++)
    if (mul->operands[i].value == iv && value_int_constant(mul->operands[1 - i].value, &k)) {
      int64_t moved;
      if (!__builtin_mul_overflow(k, step, &moved) && moved == advance) return sub->operands[0].value;
    }
  return NULL;
}

/* An i64 value sign-extended from i32 names its i32 source (Triton's block-pointer rewrite
 * computes indices and bounds in i64); any other value names itself. */
static ir_value *narrowed(ir_value *v) {
  const ir_op *def = v->def_op;
  if (def && def->kind == OP_EXTSI && ir_type_is_int(def->operands[0].value->type, 32)) return def->operands[0].value;
  return v;
}

/* A loop counter: an iter arg of an scf.for (lower bound 0, constant step) that starts at 0 and
 * grows by the constant *step each iteration (Triton's block-pointer rewrite carries a block
 * pointer's offsets so: `%off = 0; ... scf.yield %off + 64`), or the induction variable of such a
 * loop (`for k in range(0, K, BK)` with the offsets computed from k: *step is the loop's step). Its
 * loop; NULL otherwise. */
static ir_op *loop_counter(const ir_value *v, int64_t *step) {
  ir_op *owner = v->def_op ? NULL : block_arg_owner(v);
  if (owner && owner->kind == OP_SCF_FOR && v->index == 0 && v->owner_block == owner->regions[0].first)
    return scf_for_step_from_zero(owner, step) ? owner : NULL;
  const ir_value *inc = scf_for_iter_arg_increment(v);
  if (!inc || !value_int_constant(inc, step)) return NULL;
  ir_op *loop = block_arg_owner(v);
  int k = v->index - 1;
  int64_t loop_step, init;
  if (!scf_for_step_from_zero(loop, &loop_step) || 3 + k >= loop->num_operands) return NULL;
  return value_int_constant(loop->operands[3 + k].value, &init) && init == 0 ? loop : NULL;
}

/* ------------------------------------------------------------------ tile_access_of */

bool tile_access_of(ir_op *op, tile_access *acc) {
  memset(acc, 0, sizeof *acc);
  if (op->kind != OP_LOAD && op->kind != OP_STORE) return false;
  ir_value *ptr = op->operands[0].value;
  const ir_type *pt = ptr->type;
  if (!ir_type_is_tensor(pt) || pt->rank != 2) return false;
  int mask_index = op->kind == OP_LOAD ? 1 : 2;
  if (op->kind == OP_LOAD && op->num_operands > 2) {
    int64_t k;
    const ir_attr *a = op->operands[2].value->def_op ? ir_op_get_attr(op->operands[2].value->def_op, "value") : NULL;
    bool zero = value_int_constant(op->operands[2].value, &k) ? k == 0
                : a && a->kind == AT_DENSE && a->dense_splat && a->num_elems == 1 && a->elems[0]->kind == AT_FLOAT &&
                      a->elems[0]->float_value == 0.0;
    if (!zero) return false;
  }
  term_sum terms = {.n = 0}, advance = {.n = 0};
  if (!ptr_terms(ptr, acc, &terms, &advance)) return false;
  if (acc->loop && op->parent != ir_region_entry(&acc->loop->regions[0])) return false;
  acc->rank = 2;
  bool has_index[2] = {false, false};
  for (int i = 0; i < terms.n; i++) {
    const term *t = &terms.t[i];
    if (t->kind == TERM_OFFSET) {
      if (acc->num_offsets == TILE_MAX_OFFSETS) return false;
      acc->offsets[acc->num_offsets++] = t->coef;
    } else if (t->kind == TERM_INDEX) {
      if (has_index[t->dim]) return false;
      has_index[t->dim] = true;
      acc->dim[t->dim].stride = t->coef;
      acc->dim[t->dim].wrap = t->wrap;
      acc->dim[t->dim].start = t->start;
    }
  }
  if (!has_index[0] || !has_index[1]) return false;
  ir_value *counter[2] = {NULL, NULL};
  for (int i = 0; i < terms.n; i++) {
    const term *t = &terms.t[i];
    if (t->kind != TERM_START) continue;
    tile_dim *d = &acc->dim[t->dim];
    /* start * stride, outside the wrap (a wrapped index's start is inside it). */
    if (d->wrap || !tile_coef_equal(&t->coef, &d->stride)) return false;
    int64_t step;
    ir_op *loop = loop_counter(t->value, &step);
    if (loop) { /* a counter the loop advances: the tile moves by its step each iteration */
      if ((acc->loop && acc->loop != loop) || counter[t->dim] || op->parent != ir_region_entry(&loop->regions[0]))
        return false;
      acc->loop = loop;
      counter[t->dim] = t->value;
      d->advance += step;
      continue;
    }
    if (d->start) return false;
    d->start = narrowed(t->value);
    if (!ir_type_is_int(d->start->type, 32)) return false; /* an index computed in i64 */
  }
  for (int i = 0; i < advance.n; i++) {
    int64_t q = 0;
    int dim = -1;
    for (int d = 0; d < 2 && dim < 0; d++)
      if (coef_multiple(&advance.t[i].coef, &acc->dim[d].stride, &q)) dim = d;
    if (dim < 0 || acc->dim[dim].wrap) return false;
    acc->dim[dim].advance += q;
  }
  if (op->num_operands > mask_index) {
    mask_conjs conjs = {.n = 0};
    if (!mask_terms(op->operands[mask_index].value, -1, &conjs)) return false;
    for (int i = 0; i < conjs.n; i++) {
      const mask_conj *c = &conjs.c[i];
      if (c->dim < 0) {
        if (acc->num_scalar_masks == 2) return false;
        acc->scalar_masks[acc->num_scalar_masks++] = c->bound;
        continue;
      }
      tile_dim *d = &acc->dim[c->dim];
      if (c->lower) { /* the tile's own index >= 0: a TMA box clips below 0 as well */
        ir_value *own = counter[c->dim] ? counter[c->dim] : d->start;
        if (d->wrap || (c->start ? narrowed(c->start) : NULL) != own) return false;
        continue;
      }
      if (d->bound) return false;
      if (counter[c->dim] && c->start == counter[c->dim] && !d->start && !d->wrap) {
        d->bound = narrowed(c->bound); /* counter + i < bound, the counter being the moving start */
      } else if (d->advance == 0 && c->start && narrowed(c->start) == d->start && !d->wrap) {
        d->bound = narrowed(c->bound); /* start + i < bound, computed in i64 */
      } else if (d->advance == 0 && c->start == d->start && (!d->wrap || c->bound == d->wrap)) {
        d->bound = c->bound; /* absolute: start + i < bound */
      } else if (d->advance != 0 && !c->start && !d->start && acc->loop) {
        d->bound = relative_bound(c->bound, acc->loop, d->advance); /* i < bound - iv * advance */
        if (!d->bound) return false;
      } else {
        return false;
      }
    }
  }
  return true;
}

bool tile_split_program_offset(gemmc_context *ctx, const tile_coef *c, ir_value **index, tile_coef *stride) {
  int which = -1;
  for (int i = 0; i < c->n; i++)
    if (value_depends_on_program_id(ctx, c->f[i])) {
      if (which >= 0) return false;
      which = i;
    }
  if (which < 0 || !ir_type_is_int(c->f[which]->type, 32)) return false;
  *index = c->f[which];
  *stride = *c;
  stride->n = 0;
  for (int i = 0; i < c->n; i++)
    if (i != which) stride->f[stride->n++] = c->f[i];
  return true;
}

/* ------------------------------------------------------------------ wrapped indices */

typedef struct taint_walk {
  ptr_map seen;  /* (value, dim + 1) */
  ptr_list work; /* value, dim pairs */
  const ir_value *start, *wrap;
} taint_walk;

static void taint(taint_walk *w, ir_value *v, int dim) {
  void *key2 = (void *)(intptr_t)(dim + 1);
  if (ptr_map_find(&w->seen, v, key2)) return;
  ptr_map_insert(&w->seen, v, key2);
  ptr_list_push(&w->work, v);
  ptr_list_push(&w->work, key2);
}

/* The store's mask clips `start + arange < wrap` along dim. */
static bool store_masks_off(const taint_walk *w, ir_op *store, int dim) {
  if (store->num_operands < 3) return false;
  /* Other conjuncts may be there too (ones mask_terms does not know): walk the andi tree and
   * look for ours among the leaves. */
  ptr_list stack = {.ctx = w->seen.ctx};
  ptr_list_push(&stack, store->operands[2].value);
  bool found = false;
  while (stack.count && !found) {
    ir_value *m = stack.items[--stack.count];
    ir_op *def = m->def_op;
    if (def && def->kind == OP_ANDI) {
      ptr_list_push(&stack, def->operands[0].value);
      ptr_list_push(&stack, def->operands[1].value);
      continue;
    }
    if (def && def->kind == OP_BROADCAST) {
      ptr_list_push(&stack, def->operands[0].value);
      continue;
    }
    mask_conjs one = {.n = 0};
    if (!mask_terms(m, -1, &one)) continue;
    for (int i = 0; i < one.n; i++)
      if (one.c[i].dim == dim && one.c[i].start == w->start && one.c[i].bound == w->wrap) found = true;
  }
  ptr_list_free(&stack);
  return found;
}

static bool same_shape(const ir_type *a, const ir_type *b) {
  if (a->rank != b->rank) return false;
  for (int d = 0; d < a->rank; d++)
    if (a->shape[d] != b->shape[d]) return false;
  return true;
}

/* Follows one use of a value tainted along dim; false when the use could let the wrapped
 * indices reach anything that is not masked off. */
static bool follow_use(taint_walk *w, ir_operand *use, int dim) {
  ir_op *op = use->owner;
  int i = use->index;
  switch (op->kind) {
  case OP_LOCAL_ALLOC:
  case OP_CONVERT_LAYOUT: taint(w, &op->results[0], dim); return true;
  case OP_DOT:
  case OP_WARP_GROUP_DOT:
    /* A's rows are D's rows, B's columns D's columns, C is D. Anything else is the K dim. */
    if ((i == 0 && dim == 0) || (i == 1 && dim == 1) || i == 2) {
      taint(w, &op->results[0], dim);
      return true;
    }
    return false;
  case OP_WARP_GROUP_DOT_WAIT:
    if (i >= op->num_results) return false;
    taint(w, &op->results[i], dim);
    return true;
  case OP_SCF_YIELD: {
    ir_op *loop = ir_op_parent_op(op);
    if (!loop || loop->kind != OP_SCF_FOR || i >= loop->num_results) return false;
    taint(w, &loop->results[i], dim);
    taint(w, ir_region_entry(&loop->regions[0])->args[i + 1], dim);
    return true;
  }
  case OP_SCF_FOR:
    if (i < 3) return false;
    taint(w, &op->results[i - 3], dim);
    taint(w, ir_region_entry(&op->regions[0])->args[i - 2], dim);
    return true;
  case OP_STORE: return i == 1 && store_masks_off(w, op, dim);
  default:
    /* inline asm may combine the elements of a pack: it is not followed */
    if (!(ir_op_info_of(op->kind)->traits & TRAIT_ELEMENTWISE) || op->kind == OP_ADDPTR ||
        op->kind == OP_ELEMENTWISE_INLINE_ASM || op->num_results != 1 || !ir_type_is_tensor(op->results[0].type) ||
        !same_shape(op->results[0].type, use->value->type))
      return false;
    taint(w, &op->results[0], dim);
    return true;
  }
}

bool tile_wrap_is_masked_off(gemmc_context *ctx, ir_op *load, int dim, const ir_value *start, const ir_value *wrap) {
  taint_walk w = {.seen = {.ctx = ctx}, .work = {.ctx = ctx}, .start = start, .wrap = wrap};
  taint(&w, &load->results[0], dim);
  bool ok = true;
  while (ok && w.work.count) {
    int d = (int)(intptr_t)w.work.items[--w.work.count] - 1;
    ir_value *v = w.work.items[--w.work.count];
    for (ir_operand *u = v->first_use; u && ok; u = u->next_use) ok = follow_use(&w, u, d);
  }
  ptr_list_free(&w.work);
  ptr_map_free(&w.seen);
  return ok;
}

int64_t tile_coef_divisibility(const axis_info_analysis *ai, const tile_coef *c) {
  /* The lowest set bit of |c|, taken on the unsigned value (|INT64_MIN| has no int64_t). */
  uint64_t u = c->c < 0 ? -(uint64_t)c->c : (uint64_t)c->c;
  uint64_t low = u & -u;
  int64_t d = c->c == 0 || low >= (uint64_t)AXIS_INFO_MAX_DIVISOR ? AXIS_INFO_MAX_DIVISOR : (int64_t)low;
  for (int i = 0; i < c->n; i++) {
    int64_t f = axis_info_divisibility(axis_info_of(ai, c->f[i]), 0);
    if (f < 1) f = 1; /* nothing known */
    d = d > AXIS_INFO_MAX_DIVISOR / f ? AXIS_INFO_MAX_DIVISOR : d * f;
  }
  return d;
}

bool tile_bytes_aligned(int64_t divisibility, int64_t elem_bytes, int64_t align) {
  return align > 0 && divisibility > 0 && elem_bytes > 0 &&
         ((divisibility % align) * (elem_bytes % align)) % align == 0;
}
