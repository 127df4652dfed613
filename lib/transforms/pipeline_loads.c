/* --pipeline-loads=num-stages=N: software pipelining of K loops: tt.load -> convert(dot_op) -> tt.dot (mma.sync or the FMA path) or tt.load -> local_alloc -> warp_group_dot (wgmma) becomes a cp.async ring of N shared-memory stages. */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "gemmc/axis_info.h"
#include "gemmc/layout.h"
#include "gemmc/passes.h"

/*
 * The loop
 *
 *   scf.for %k = %lb to %ub step %st iter_args(%p = %p0, %acc = %c0) {
 *     %x = tt.load f(%p, %k)            // address and mask from %k and the pointer recurrence
 *     %y = ttg.convert_layout %x -> #ttg.dot_op<..>
 *     %acc2 = tt.dot %y, .., %acc
 *     scf.yield g(%p), %acc2
 *   }
 *
 * becomes (S = num-stages; Triton's cp.async scheme for mma.sync):
 *
 *   %ring = ttg.local_alloc : !ttg.memdesc<S x shape>        one per pipelined load
 *   stage p = 0 .. S-2: copies of iteration p into slot p, masked with lb + p*st < ub; commit
 *   scf.for %k .. iter_args(%p = <pointer of iteration S-1>, %acc = %c0) {
 *     ttg.async_wait {num = S-2}              iteration i's copies have landed (+ barrier)
 *     copies of iteration i+S-1 into slot (i+S-1)%S, masked with k + (S-1)*st < ub; commit
 *     %y = ttg.local_load (memdesc_index %ring[i%S])      read by the dot (ldmatrix)
 *     %acc2 = tt.dot %y, .., %acc
 *     scf.yield g'(%p), %acc2                 the recurrence runs S-1 iterations ahead
 *   }
 *   ttg.async_wait {num = 0}; ttg.local_dealloc %ring
 *
 * The slot written in iteration i is the one iteration i-1 read; the barrier of the wait at the
 * top of iteration i orders the two, so each iteration needs one barrier only.
 *
 * Warpgroup MMA (Triton's WGMMA pipeline): the operand is `tt.load -> ttg.local_alloc
 * (nvmma_shared) -> ttng.warp_group_dot`. The dot reads the ring slot itself and runs
 * asynchronously: `ttng.warp_group_dot_wait {pendings = 1}` after it lets iteration i's MMAs
 * overlap iteration i+1's loads, and the prefetch of iteration i+S-1 moves after that wait (it
 * writes the slot iteration i-1's MMAs read, which the wait has just finished; the wait's
 * barrier orders the other warpgroups). After the loop, a wait with pendings = 0.
 *
 * "Stage 0" is the backward slice of the loads inside the body: pure ops, the induction
 * variable, values from outside the loop, and the iter_args whose yielded values are themselves
 * in the slice (the pointer recurrence). The loop is left alone when a recurrence arg is used by
 * anything else (or after the loop), or when the slice holds an op that is not pure.
 */

enum { MAX_PIPELINED = 8 };

typedef struct pipelined_load {
  ir_op *load, *convert; /* convert: the conversion to an mma.sync operand, or the local_alloc of a wgmma operand;
                          * NULL: the load's value feeds a dot through other ops, and is read back as it was */
  bool tma;              /* a tt.descriptor_load: TMA copies completing on the ring's mbarriers */
  ir_op *alloc;          /* the ring */
  const ir_type *ring_type, *slot_type;
} pipelined_load;

/* A growable list of ops kept in the arena (passes run once; the arena is freed with the context). */
typedef struct op_set {
  ir_op **ops;
  int n, cap;
} op_set;

typedef struct loop_plan {
  ir_op *loop;
  ir_block *body;
  int num_stages;
  pipelined_load loads[MAX_PIPELINED];
  int num_loads;
  op_set stage0;     /* body ops of the slice, not the loads */
  bool *recurrence;  /* per iter arg: advanced ahead of the loop */
  int num_iter;
  int num_tma, num_cp_async;
  int num_computed;  /* loads with no conversion or buffer (feeding a dot through other ops) */
  int64_t resident_bytes; /* shared memory of the operands left unpipelined (too narrow for cp.async) */
  ir_op *barriers;   /* TMA: the ring's mbarriers, one per stage (memdesc<S x 1 x i64>) */
} loop_plan;

/* ---------------------------------------------------------------- small containers */

static bool set_has(const op_set *s, const ir_op *op) {
  for (int i = 0; i < s->n; i++)
    if (s->ops[i] == op) return true;
  return false;
}

static void set_add(gemmc_context *ctx, op_set *s, ir_op *op) {
  if (set_has(s, op)) return;
  if (s->n == s->cap) {
    int cap = s->cap ? s->cap * 2 : 32;
    ir_op **ops = ir_alloc(ctx, sizeof *ops * (size_t)cap);
    if (s->n) memcpy(ops, s->ops, sizeof *ops * (size_t)s->n);
    s->ops = ops;
    s->cap = cap;
  }
  s->ops[s->n++] = op;
}

/* What a value of the loop body is in the copy being emitted (the value itself when not mapped). */
static ir_value *map_get(const ptr_map *m, ir_value *v) {
  ir_value *mapped = ptr_map_get(m, v);
  return mapped ? mapped : v;
}

/* ---------------------------------------------------------------- IR builders (insert before anchor) */

static ir_op *emit_async_wait(gemmc_context *ctx, ir_op *anchor, int num) {
  const ir_type *tok = ir_token_type(ctx);
  ir_op *op = ir_op_create(ctx, OP_ASYNC_WAIT, 0, NULL, 1, &tok, 0, anchor->loc);
  ir_op_set_attr(ctx, op, "num", ir_i32_attr(ctx, num));
  ir_op_insert_before(anchor, op);
  return op;
}

static bool constant_int(const ir_value *v, int64_t *out) {
  const ir_op *def = v->def_op;
  if (!def || def->kind != OP_CONSTANT) return false;
  const ir_attr *a = ir_op_get_attr(def, "value");
  if (!a || a->kind != AT_INT) return false;
  *out = a->int_value;
  return true;
}

/* ---------------------------------------------------------------- analysis */

/* A conversion to an mma.sync (nvidia_mma v2) operand, or to an FMA dot's operand (Triton
 * pipelines those too: with the operands read from the ring after one barrier, a thread holds a
 * K step's values only while it multiplies them). */
static bool is_mma_operand_convert(const ir_op *op) {
  if (op->kind != OP_CONVERT_LAYOUT) return false;
  const ir_type *src = op->operands[0].value->type, *dst = op->results[0].type;
  if (!ir_type_is_tensor(src) || !ir_type_is_tensor(dst)) return false;
  if (layout_is_fma_dot_operand(dst->encoding)) return layout_is_distributed(src->encoding);
  return layout_is_mma_operand_conversion(src->encoding, dst->encoding) &&
         dst->encoding->layout.parent->layout.version_major == 2;
}

enum { MAX_BUFFER_DOTS = 4 };

/* The ttng.warp_group_dots of the same block that a buffer feeds as operand A or B, each use
 * directly or through one view (ttg.memdesc_trans) used only by the dot (attention's backward
 * pass reads a tile as it is and transposed); 0 when a use is anything else. */
static int operand_buffer_dots(const ir_op *alloc, ir_op **dots) {
  int n = 0;
  for (const ir_operand *u = alloc->results[0].first_use; u; u = u->next_use) {
    const ir_operand *use = u;
    if (op_is_memdesc_view(use->owner)) {
      if (use->owner->parent != alloc->parent || !ir_value_has_one_use(&use->owner->results[0])) return 0;
      use = use->owner->results[0].first_use;
    }
    ir_op *dot = use->owner;
    if (dot->kind != OP_WARP_GROUP_DOT || use->index >= 2 || dot->parent != alloc->parent || n == MAX_BUFFER_DOTS)
      return 0;
    bool seen = false;
    for (int i = 0; i < n; i++) seen |= dots[i] == dot;
    if (!seen) dots[n++] = dot;
  }
  return n;
}

/* A local_alloc of a warpgroup-MMA operand (nvmma_shared) feeding dots (operand_buffer_dots). */
static bool is_wgmma_operand_alloc(const ir_op *op) {
  if (op->kind != OP_LOCAL_ALLOC || op->num_operands != 1) return false;
  const ir_type *mt = op->results[0].type;
  if (!mt->encoding || mt->encoding->kind != AT_NVMMA_SHARED) return false;
  ir_op *dots[MAX_BUFFER_DOTS];
  return operand_buffer_dots(op, dots) > 0;
}

/* The first op of the block that uses v (directly). */
static ir_op *first_user(const ir_value *v) {
  ir_op *first = NULL;
  for (const ir_operand *u = v->first_use; u; u = u->next_use)
    if (!first || op_precedes(u->owner, first)) first = u->owner;
  return first;
}

/* A tt.load cp.async can fill a ring for: a 1-D or 2-D distributed tensor of 8/16/32-bit
 * elements, not volatile, `other` zero or absent (cp.async fills masked-off bytes with zeros). */
static bool cp_async_load(const ir_op *load) {
  if (load->kind != OP_LOAD) return false;
  const ir_type *t = load->results[0].type;
  if (!ir_type_is_tensor(t) || t->rank < 1 || t->rank > 2 || !t->encoding || !layout_is_distributed(t->encoding))
    return false;
  unsigned bits = ir_type_bits(ir_type_element(t));
  if (bits != 8 && bits != 16 && bits != 32) return false;
  if (load->num_operands > 2 && !value_is_zero_splat(load->operands[2].value)) return false;
  return !ir_op_get_attr(load, "isVolatile");
}

/* Whether one copy of the load moves at least 4 bytes (cp.async's smallest) out of global memory.
 * Narrower loads (strides of unknown alignment: Triton specializes integer arguments on
 * divisibility by 16 only) stay in the loop as they are, as Triton leaves them: copied ahead
 * through registers, their elements held S-1 iterations, they spilled (perf-notes 48). */
static bool wide_enough_for_cp_async(const axis_info_analysis *ai, const ir_op *load) {
  const ir_value *mask = load->num_operands > 1 ? load->operands[1].value : NULL;
  int bits = (int)ir_type_bits(ir_type_element(load->results[0].type));
  return (int)axis_info_access_width(ai, load->operands[0].value, mask, bits) * bits >= 32;
}

enum { MAX_OPERAND_PATH = 16 };

/* Whether v reaches an operand of a dot of `block` through at most `depth` pure ops of the block
 * (elementwise math, conversions, a wgmma operand's local_alloc): the operands Triton also
 * pipelines when the dot takes them after a computation (an upcast and scale, a tf32 split). */
static bool feeds_dot_operand(const ir_value *v, const ir_block *block, int depth) {
  for (const ir_operand *u = v->first_use; u; u = u->next_use) {
    const ir_op *o = u->owner;
    if (o->parent != block) continue;
    if ((o->kind == OP_DOT || o->kind == OP_WARP_GROUP_DOT) && u->index < 2) return true;
    bool passes = o->kind == OP_LOCAL_ALLOC || (ir_op_is_pure(o) && o->num_regions == 0 && o->num_results == 1);
    if (passes && depth > 0 && feeds_dot_operand(&o->results[0], block, depth - 1)) return true;
  }
  return false;
}

/* tt.load (element 8/16/32 bits, `other` zero or absent) whose only use is a convert to an
 * mma.sync operand whose only use is a tt.dot of the same block, or a wgmma operand alloc. */
static ir_op *pipelinable_convert(const ir_op *load) {
  if (load->kind == OP_DESC_LOAD) {
    /* TMA writes the descriptor's layout: the operand buffer must have it. */
    if (!ir_value_has_one_use(&load->results[0])) return NULL;
    ir_op *alloc = load->results[0].first_use->owner;
    const ir_type *desc = load->operands[0].value->type;
    if (alloc->parent != load->parent || !is_wgmma_operand_alloc(alloc) || !desc->encoding ||
        desc->encoding != alloc->results[0].type->encoding)
      return NULL;
    return alloc;
  }
  if (!cp_async_load(load) || !ir_value_has_one_use(&load->results[0])) return NULL;
  ir_op *cvt = load->results[0].first_use->owner;
  if (cvt->parent != load->parent) return NULL;
  if (is_wgmma_operand_alloc(cvt)) return cvt;
  if (!is_mma_operand_convert(cvt) || !ir_value_has_one_use(&cvt->results[0])) return NULL;
  ir_op *dot = cvt->results[0].first_use->owner;
  if (dot->kind != OP_DOT || dot->parent != load->parent) return NULL;
  return cvt;
}

/* Adds the body ops that v depends on to stage 0. False when the slice leaves what stage 0 may
 * hold (a non-pure op, an op with regions). */
static bool add_slice(gemmc_context *ctx, loop_plan *lp, ir_value *v);

static bool add_op_slice(gemmc_context *ctx, loop_plan *lp, ir_op *op) {
  if (set_has(&lp->stage0, op)) return true;
  if (!ir_op_is_pure(op) || op->num_regions) return false;
  set_add(ctx, &lp->stage0, op);
  for (int i = 0; i < op->num_operands; i++)
    if (!add_slice(ctx, lp, op->operands[i].value)) return false;
  return true;
}

static bool add_slice(gemmc_context *ctx, loop_plan *lp, ir_value *v) {
  if (v->owner_block == lp->body) {
    if (v->index == 0) return true; /* the induction variable */
    int k = v->index - 1;
    if (lp->recurrence[k]) return true;
    lp->recurrence[k] = true;
    ir_op *yield = ir_block_terminator(lp->body);
    return add_slice(ctx, lp, yield->operands[k].value);
  }
  ir_op *def = v->def_op;
  if (!def) return true; /* an argument of an enclosing block */
  if (def->parent != lp->body) {
    /* Defined outside the loop, or nested in an op of the body (then that op is in the slice). */
    for (ir_op *p = def; p; p = ir_op_parent_op(p))
      if (p->parent == lp->body) return p == def ? true : add_op_slice(ctx, lp, p);
    return true;
  }
  return add_op_slice(ctx, lp, def);
}

/* True when every use of v is by a stage-0 op, a pipelined load, or the yield at a recurrence
 * position: after the rewrite such a value only feeds the prefetch. */
static bool only_feeds_stage0(const loop_plan *lp, const ir_value *v) {
  for (const ir_operand *u = v->first_use; u; u = u->next_use) {
    const ir_op *o = u->owner;
    if (set_has(&lp->stage0, o)) continue;
    if (o->kind == OP_SCF_YIELD && o->parent == lp->body && lp->recurrence[u->index]) continue;
    bool is_load = false;
    for (int j = 0; j < lp->num_loads; j++) is_load |= lp->loads[j].load == o;
    if (!is_load) return false;
  }
  return true;
}

/* Values that depend on a recurrence arg hold "iteration i+S-1" after the rewrite: they must not
 * reach anything outside stage 0. */
static bool recurrence_is_private(gemmc_context *ctx, const loop_plan *lp) {
  for (int k = 0; k < lp->num_iter; k++) {
    if (!lp->recurrence[k]) continue;
    if (ir_value_num_uses(&lp->loop->results[k]) > 0) return false;
    if (!only_feeds_stage0(lp, lp->body->args[k + 1])) return false;
  }
  /* Forward taint in body order (stage 0 is in the body, and SSA order is body order). */
  bool *tainted = ir_alloc(ctx, sizeof *tainted * (size_t)(lp->stage0.n + 1));
  for (ir_op *op = lp->body->first; op; op = op->next) {
    int idx = -1;
    for (int i = 0; i < lp->stage0.n; i++)
      if (lp->stage0.ops[i] == op) idx = i;
    if (idx < 0) continue;
    for (int i = 0; i < op->num_operands && !tainted[idx]; i++) {
      const ir_value *v = op->operands[i].value;
      if (v->owner_block == lp->body && v->index > 0 && lp->recurrence[v->index - 1]) tainted[idx] = true;
      for (int j = 0; j < lp->stage0.n && !tainted[idx]; j++)
        if (tainted[j] && v->def_op == lp->stage0.ops[j]) tainted[idx] = true;
    }
    if (tainted[idx] && !only_feeds_stage0(lp, &op->results[0])) return false;
  }
  return true;
}

/* with_computed: also the loads whose values reach a dot through other ops (read back as they
 * were); without them when their addresses share a recurrence with values the body uses
 * otherwise (attention backward's row offsets feed its causal mask too). */
static bool plan_loop(gemmc_context *ctx, const axis_info_analysis *ai, ir_op *loop, int num_stages, bool with_computed,
                      loop_plan *lp) {
  memset(lp, 0, sizeof *lp);
  lp->loop = loop;
  lp->body = ir_region_entry(&loop->regions[0]);
  lp->num_stages = num_stages;
  lp->num_iter = loop->num_operands - 3;
  if (!lp->body || lp->body->next || lp->body->num_args != lp->num_iter + 1) return false;
  if (!ir_type_is_int(lp->body->args[0]->type, 32)) return false;
  ir_op *yield = ir_block_terminator(lp->body);
  if (!yield || yield->kind != OP_SCF_YIELD || yield->num_operands != lp->num_iter) return false;
  for (ir_op *op = lp->body->first; op; op = op->next) {
    ir_op *cvt = pipelinable_convert(op);
    /* Not 8-bit tiles (tt.dot_scaled's fp8 operands and e8m0 scales): measured slower through a
     * ring (H100, mxfp8 4096^3: 0.76 -> 0.66 of Triton at 128x128x128 w4, 0.20 -> 0.15 at 128x256). */
    bool plain = with_computed && !cvt && cp_async_load(op) &&
                 ir_type_bits(ir_type_element(op->results[0].type)) >= 16 &&
                 feeds_dot_operand(&op->results[0], lp->body, MAX_OPERAND_PATH);
    if ((!cvt && !plain) || lp->num_loads == MAX_PIPELINED) continue;
    if (op->kind == OP_LOAD && !wide_enough_for_cp_async(ai, op)) {
      lp->resident_bytes += ir_type_num_bytes(op->results[0].type); /* its operand buffer stays */
      continue;
    }
    bool tma = op->kind == OP_DESC_LOAD;
    lp->loads[lp->num_loads++] = (pipelined_load){op, cvt, tma, NULL, NULL, NULL};
    lp->num_computed += plain;
    if (tma) lp->num_tma++;
    else lp->num_cp_async++;
  }
  if (lp->num_loads == 0) return false;
  lp->recurrence = ir_alloc(ctx, sizeof *lp->recurrence * (size_t)(lp->num_iter + 1));
  for (int j = 0; j < lp->num_loads; j++) {
    ir_op *load = lp->loads[j].load;
    for (int i = 0; i < load->num_operands; i++)
      if (!add_slice(ctx, lp, load->operands[i].value)) return false;
  }
  return recurrence_is_private(ctx, lp);
}

/* ---------------------------------------------------------------- the rewrite */

/* The mbarrier of stage `slot`: a view of one element of the barrier ring. */
static ir_value *barrier_at(gemmc_context *ctx, loop_plan *lp, ir_op *anchor, ir_value *slot) {
  const ir_type *ring = lp->barriers->results[0].type;
  int64_t one = 1;
  const ir_type *bar = ir_memdesc_type(ctx, 1, &one, ring->elem, ring->encoding, ring->memspace, true, 0, NULL);
  ir_value *ops[2] = {&lp->barriers->results[0], slot};
  return build_before(ctx, anchor, OP_MEMDESC_INDEX, 2, ops, bar);
}

/* Clones the stage-0 ops (body order) before anchor with `map`, then one async copy per load into
 * slot `slot` of its ring (mask &= pred), and one commit group. */
static void emit_stage0(gemmc_context *ctx, loop_plan *lp, ir_op *anchor, ptr_map *map, ir_value *slot,
                        ir_value *pred) {
  for (ir_op *op = lp->body->first; op; op = op->next) {
    if (!set_has(&lp->stage0, op)) continue;
    ir_value *operands[16];
    const ir_type *types[4];
    if (op->num_operands > 16 || op->num_results > 4) continue; /* plan_loop admits pure ops only; all are small */
    for (int i = 0; i < op->num_operands; i++) operands[i] = map_get(map, op->operands[i].value);
    for (int i = 0; i < op->num_results; i++) types[i] = op->results[i].type;
    ir_op *clone = op_clone_with_attrs(ctx, op, op->num_operands, operands, types);
    ir_op_insert_before(anchor, clone);
    for (int i = 0; i < op->num_results; i++) ptr_map_put(map, &op->results[i], &clone->results[i]);
  }
  const ir_type *tok = ir_token_type(ctx);
  ir_value *tokens[MAX_PIPELINED];
  int num_tokens = 0;
  ir_value *barrier = NULL;
  if (lp->num_tma) {
    /* One mbarrier per stage counts the bytes of every TMA copy of the stage. */
    int64_t bytes = 0;
    for (int j = 0; j < lp->num_loads; j++)
      if (lp->loads[j].tma) bytes += ir_type_num_bytes(lp->loads[j].load->results[0].type);
    barrier = barrier_at(ctx, lp, anchor, slot);
    ir_value *expect_ops[2] = {barrier, pred};
    ir_op *expect = ir_op_create(ctx, OP_BARRIER_EXPECT, 2, expect_ops, 0, NULL, 0, anchor->loc);
    ir_op_set_attr(ctx, expect, "size", ir_i32_attr(ctx, bytes));
    ir_op_insert_before(anchor, expect);
  }
  for (int j = 0; j < lp->num_loads; j++) {
    pipelined_load *pl = &lp->loads[j];
    ir_value *ring = &pl->alloc->results[0];
    ir_value *idx_ops[2] = {ring, slot};
    ir_value *dst = build_before(ctx, anchor, OP_MEMDESC_INDEX, 2, idx_ops, pl->slot_type);
    if (pl->tma) {
      ir_value *copy_ops[4 + IR_MAX_RANK];
      int n = 0;
      copy_ops[n++] = pl->load->operands[0].value;
      for (int i = 1; i < pl->load->num_operands; i++) copy_ops[n++] = map_get(map, pl->load->operands[i].value);
      copy_ops[n++] = barrier;
      copy_ops[n++] = dst;
      copy_ops[n++] = pred;
      ir_op *copy = ir_op_create(ctx, OP_TMA_LOAD, n, copy_ops, 0, NULL, 0, pl->load->loc);
      ir_op_insert_before(anchor, copy);
      continue;
    }
    ir_value *ptr = map_get(map, pl->load->operands[0].value);
    const ir_type *mask_type = ir_type_with_element(ctx, ptr->type, ir_int_type(ctx, 1));
    ir_value *mask = build_before(ctx, anchor, OP_SPLAT, 1, &pred, mask_type);
    if (pl->load->num_operands > 1) mask = build_binary(ctx, anchor, OP_ANDI, map_get(map, pl->load->operands[1].value), mask);
    ir_value *copy_ops[3] = {ptr, dst, mask};
    ir_op *copy = ir_op_create(ctx, OP_ASYNC_COPY, 3, copy_ops, 1, &tok, 0, pl->load->loc);
    for (int i = 0; i < pl->load->num_attrs; i++) {
      const char *name = pl->load->attrs[i].name;
      if (strcmp(name, "cache") == 0 || strcmp(name, "evict") == 0) ir_op_set_attr(ctx, copy, name, pl->load->attrs[i].value);
    }
    ir_op_insert_before(anchor, copy);
    tokens[num_tokens++] = &copy->results[0];
  }
  if (num_tokens) {
    ir_op *commit = ir_op_create(ctx, OP_ASYNC_COMMIT_GROUP, num_tokens, tokens, 1, &tok, 0, anchor->loc);
    ir_op_insert_before(anchor, commit);
  }
}

/* The recurrence values stage 0 yields, after emit_stage0 filled `map`. */
static void advance_recurrence(loop_plan *lp, const ptr_map *map, ir_value **current) {
  ir_op *yield = ir_block_terminator(lp->body);
  for (int k = 0; k < lp->num_iter; k++)
    if (lp->recurrence[k]) current[k] = map_get(map, yield->operands[k].value);
}

/* `ttng.warp_group_dot_wait %v {pendings = 0}` before anchor; v's other users read its result. */
static void wait_after(gemmc_context *ctx, ir_value *v, ir_op *anchor) {
  ir_op *wait = ir_op_create(ctx, OP_WARP_GROUP_DOT_WAIT, 1, &v, 1, &v->type, 0, anchor->loc);
  ir_op_set_attr(ctx, wait, "pendings", ir_i32_attr(ctx, 0));
  ir_op_insert_before(anchor, wait);
  ir_value_replace_all_uses(v, &wait->results[0]);
  ir_op_set_operand(wait, 0, v);
}

/* Makes a wgmma dot asynchronous: `isAsync`, then a wait that keeps it in flight (pendings = 1)
 * when its accumulator only goes around the loop and every shared operand is a ring slot or
 * made outside the loop (Triton's "properly async" rule: a buffer the next iteration writes
 * again must not be read by an MMA still in flight), else waits for it (pendings = 0). */
static bool operands_outlive_iteration(const loop_plan *lp, const ir_op *dot) {
  for (int i = 0; i < 2; i++) {
    const ir_value *v = dot->operands[i].value;
    if (v->def_op && op_is_memdesc_view(v->def_op)) v = v->def_op->operands[0].value;
    if (v->type->kind != TY_MEMDESC || !v->def_op || v->def_op->parent != lp->body) continue;
    bool ring = false;
    for (int j = 0; j < lp->num_loads; j++) ring |= lp->loads[j].convert == v->def_op;
    if (!ring) return false;
  }
  return true;
}

/* The dot of iteration i is still in flight when iteration i+1 starts (pendings = 1), so the
 * iter arg it is yielded to names registers an MMA may still write. The next dot may take them
 * as its accumulator (the MMAs chain); any other use (the attention kernel rescales its
 * accumulator before the next dot) reads them through a wait {pendings = 0} placed before the
 * first such use, as Triton threads the argument through a wait in the body. */
static void wait_before_other_uses(gemmc_context *ctx, const loop_plan *lp, ir_op *dot, ir_value *arg) {
  ptr_list uses = {ctx, NULL, 0, 0}, holders = {ctx, NULL, 0, 0}; /* holders: the body's ops around them */
  for (ir_operand *u = arg->first_use; u; u = u->next_use) {
    if (u->owner == dot && u->index == 2) continue;
    ptr_list_push(&uses, u);
    ir_op *holder = u->owner;
    while (holder && holder->parent != lp->body) holder = ir_op_parent_op(holder);
    if (holder) ptr_list_push_unique(&holders, holder);
  }
  ir_op *first = lp->body->first;
  while (first && !ptr_list_contains(&holders, first)) first = first->next;
  ptr_list_free(&holders);
  if (first) {
    ir_op *wait = ir_op_create(ctx, OP_WARP_GROUP_DOT_WAIT, 1, &arg, 1, &arg->type, 0, first->loc);
    ir_op_set_attr(ctx, wait, "pendings", ir_i32_attr(ctx, 0));
    ir_op_insert_before(first, wait);
    for (int i = 0; i < uses.count; i++) {
      ir_operand *u = uses.items[i];
      ir_op_set_operand(u->owner, u->index, &wait->results[0]);
    }
  }
  ptr_list_free(&uses);
}

static ir_op *make_dot_async(gemmc_context *ctx, const loop_plan *lp, ir_op *dot, ir_op *yield) {
  ir_op_set_attr(ctx, dot, "isAsync", ir_bool_attr(ctx, true));
  ir_value *acc = &dot->results[0];
  bool only_yielded = ir_value_has_one_use(acc) && acc->first_use->owner == yield && operands_outlive_iteration(lp, dot);
  ir_op *wait = ir_op_create(ctx, OP_WARP_GROUP_DOT_WAIT, 1, &acc, 1, &acc->type, 0, dot->loc);
  ir_op_set_attr(ctx, wait, "pendings", ir_i32_attr(ctx, only_yielded ? 1 : 0));
  ir_op_insert_after(dot, wait);
  ir_value_replace_all_uses(acc, &wait->results[0]);
  ir_op_set_operand(wait, 0, acc);
  if (only_yielded) wait_before_other_uses(ctx, lp, dot, lp->body->args[wait->results[0].first_use->index + 1]);
  return wait;
}

static bool make_rings(gemmc_context *ctx, loop_plan *lp, int64_t max_shared) {
  int64_t bytes_per_stage = 0;
  for (int j = 0; j < lp->num_loads; j++) bytes_per_stage += ir_type_num_bytes(lp->loads[j].load->results[0].type);
  /* Fewer stages rather than a kernel that cannot launch. */
  if (max_shared > 0) max_shared = lp->resident_bytes < max_shared ? max_shared - lp->resident_bytes : 1;
  while (lp->num_stages >= 2 && max_shared > 0 && lp->num_stages * bytes_per_stage > max_shared) lp->num_stages--;
  if (lp->num_stages < 2) return false;
  const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
  for (int j = 0; j < lp->num_loads; j++) {
    pipelined_load *pl = &lp->loads[j];
    const ir_type *t = pl->load->results[0].type;
    const ir_attr *shared;
    if (!pl->convert) {
      /* Read back by the threads that copied it, in the load's layout. */
      int order[IR_MAX_RANK];
      layout_order(t->encoding, t->rank, order);
      shared = layout_swizzled_shared_get(ctx, t->rank, 1, 1, 1, order);
    } else if (pl->convert->kind == OP_LOCAL_ALLOC) {
      shared = pl->convert->results[0].type->encoding; /* wgmma: the operand's nvmma_shared layout */
    } else {
      const ir_attr *dot = pl->convert->results[0].type->encoding;
      int order[IR_MAX_RANK];
      layout_order(t->encoding, t->rank, order);
      /* FMA operands are read element by element along K: unswizzled, as Triton keeps them. */
      shared = layout_is_fma_dot_operand(dot)
                   ? layout_swizzled_shared_get(ctx, t->rank, 1, 1, 1, order)
                   : layout_swizzled_shared_for_dot_operand(ctx, dot->layout.op_idx, dot->layout.k_width, t->rank,
                                                            t->shape, order, (int)ir_type_bits(ir_type_element(t)));
    }
    if (!shared) return false;
    int64_t ring_shape[IR_MAX_RANK + 1];
    ring_shape[0] = lp->num_stages;
    memcpy(ring_shape + 1, t->shape, sizeof(int64_t) * (size_t)t->rank);
    pl->ring_type = ir_memdesc_type(ctx, t->rank + 1, ring_shape, t->elem, shared, smem, true, 0, NULL);
    pl->slot_type = ir_memdesc_type(ctx, t->rank, t->shape, t->elem, shared, smem, true, 0, NULL);
  }
  return true;
}

static void erase_dead_stage0(loop_plan *lp) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (int i = 0; i < lp->stage0.n; i++) {
      ir_op *op = lp->stage0.ops[i];
      if (!op) continue;
      bool used = false;
      for (int r = 0; r < op->num_results; r++) used |= op->results[r].first_use != NULL;
      if (used) continue;
      ir_op_erase(op);
      lp->stage0.ops[i] = NULL;
      changed = true;
    }
  }
}

static void rewrite_loop(gemmc_context *ctx, loop_plan *lp) {
  ir_op *loop = lp->loop;
  ir_block *body = lp->body;
  ir_value *lb = loop->operands[0].value, *ub = loop->operands[1].value, *step = loop->operands[2].value;
  int S = lp->num_stages;
  int64_t lb_c = 0, step_c = 0;
  bool const_bounds = constant_int(lb, &lb_c) && constant_int(step, &step_c);

  /* Earlier asynchronous copies may still be landing in these bytes. */
  emit_async_wait(ctx, loop, 0);
  for (int j = 0; j < lp->num_loads; j++) {
    pipelined_load *pl = &lp->loads[j];
    pl->alloc = ir_op_create(ctx, OP_LOCAL_ALLOC, 0, NULL, 1, &pl->ring_type, 0, pl->load->loc);
    ir_op_insert_before(loop, pl->alloc);
  }
  if (lp->num_tma) {
    /* The TMA ring's mbarriers: one per stage, one arrival (the expect) per phase. */
    int order0 = 0;
    int64_t shape[2] = {S, 1};
    const ir_attr *plain = layout_swizzled_shared_get(ctx, 1, 1, 1, 1, &order0);
    const ir_attr *smem = ir_layout_attr(ctx, AT_SHARED_MEMORY, NULL);
    const ir_type *ring = ir_memdesc_type(ctx, 2, shape, ir_int_type(ctx, 64), plain, smem, true, 0, NULL);
    lp->barriers = ir_op_create(ctx, OP_LOCAL_ALLOC, 0, NULL, 1, &ring, 0, loop->loc);
    ir_op_insert_before(loop, lp->barriers);
    for (int p = 0; p < S; p++) {
      ir_value *bar = barrier_at(ctx, lp, loop, build_int_constant(ctx, loop, p, 32));
      ir_op *init = ir_op_create(ctx, OP_INIT_BARRIER, 1, &bar, 0, NULL, 0, loop->loc);
      ir_op_set_attr(ctx, init, "count", ir_i32_attr(ctx, 1));
      ir_op_insert_before(loop, init);
    }
  }

  /* Prologue: iterations 0 .. S-2. */
  ir_value **current = ir_alloc(ctx, sizeof *current * (size_t)(lp->num_iter + 1));
  for (int k = 0; k < lp->num_iter; k++) current[k] = loop->operands[3 + k].value;
  for (int p = 0; p < S - 1; p++) {
    ir_value *iv;
    if (const_bounds) iv = build_int_constant(ctx, loop, lb_c + p * step_c, 32);
    else iv = p == 0 ? lb : build_binary(ctx, loop, OP_ADDI, lb, build_binary(ctx, loop, OP_MULI, step, build_int_constant(ctx, loop, p, 32)));
    ptr_map map = {ctx, NULL, 0, 0};
    ptr_map_put(&map, body->args[0], iv);
    for (int k = 0; k < lp->num_iter; k++)
      if (lp->recurrence[k]) ptr_map_put(&map, body->args[k + 1], current[k]);
    emit_stage0(ctx, lp, loop, &map, build_int_constant(ctx, loop, p, 32), build_cmpi(ctx, loop, "slt", iv, ub));
    advance_recurrence(lp, &map, current);
    ptr_map_free(&map);
  }
  for (int k = 0; k < lp->num_iter; k++)
    if (lp->recurrence[k]) ir_op_set_operand(loop, 3 + k, current[k]);
  ir_value *ahead = const_bounds ? build_int_constant(ctx, loop, (S - 1) * step_c, 32)
                                 : build_binary(ctx, loop, OP_MULI, step, build_int_constant(ctx, loop, S - 1, 32));

  /* The ring positions i % S (read) and (i + S - 1) % S (write) travel around the loop, as
   * Triton's extract and insert indices do: an add and a select per iteration, where remainders
   * of the induction variable became address recurrences in the code generator (two adds per
   * asynchronous copy instead of an immediate offset). */
  ir_value *slot_inits[2] = {build_int_constant(ctx, loop, 0, 32), build_int_constant(ctx, loop, S - 1, 32)};
  loop = lp->loop = scf_for_add_iter_args(ctx, loop, 2, slot_inits);
  ir_value *read_slot = body->args[1 + lp->num_iter], *write_slot = body->args[2 + lp->num_iter];

  /* Body: wait for iteration i, prefetch iteration i+S-1, read slot i%S right before the dot. */
  ir_op *top = body->first;
  ir_value *iv = body->args[0];
  if (lp->num_cp_async) emit_async_wait(ctx, top, S - 2);
  if (lp->num_tma) {
    ir_value *i = iv;
    if (!const_bounds || lb_c != 0 || step_c != 1) {
      i = build_binary(ctx, top, OP_SUBI, iv, lb);
      i = build_binary(ctx, top, OP_DIVSI, i, step);
    }
    /* Iteration i uses slot i % S for the (i / S)-th time: its phase parity is (i / S) & 1. */
    ir_value *round = build_binary(ctx, top, OP_DIVSI, i, build_int_constant(ctx, top, S, 32));
    ir_value *ops[2] = {barrier_at(ctx, lp, top, read_slot), build_binary(ctx, top, OP_ANDI, round, build_int_constant(ctx, top, 1, 32))};
    ir_op *wait = ir_op_create(ctx, OP_WAIT_BARRIER, 2, ops, 0, NULL, 0, top->loc);
    ir_op_insert_before(top, wait);
  }
  ir_op *yield = ir_block_terminator(body);
  /* Prefetch of iteration i+S-1: at the top, or (wgmma) after the last MMA wait. */
  ir_op *prefetch_at = top;
  bool any_wgmma = false;
  for (int j = 0; j < lp->num_loads; j++)
    any_wgmma |= lp->loads[j].convert && lp->loads[j].convert->kind == OP_LOCAL_ALLOC;
  ir_op *wgmma_dots[MAX_PIPELINED];
  int num_wgmma = 0;
  if (any_wgmma) {
    for (int j = 0; j < lp->num_loads; j++) {
      pipelined_load *pl = &lp->loads[j];
      if (!pl->convert || pl->convert->kind != OP_LOCAL_ALLOC) continue;
      ir_op *dots[MAX_BUFFER_DOTS];
      int n = operand_buffer_dots(pl->convert, dots);
      for (int k = 0; k < n; k++) {
        bool seen = false;
        for (int d = 0; d < num_wgmma; d++) seen |= wgmma_dots[d] == dots[k];
        if (!seen) wgmma_dots[num_wgmma++] = dots[k];
      }
    }
    for (int d = 0; d < num_wgmma; d++) {
      ir_op *wait = make_dot_async(ctx, lp, wgmma_dots[d], yield);
      if (wait->next) prefetch_at = wait->next;
    }
  }
  ir_value *iv_ahead = build_binary(ctx, prefetch_at, OP_ADDI, iv, ahead);
  ptr_map map = {ctx, NULL, 0, 0};
  ptr_map_put(&map, iv, iv_ahead);
  emit_stage0(ctx, lp, prefetch_at, &map, write_slot, build_cmpi(ctx, prefetch_at, "slt", iv_ahead, ub));
  for (int k = 0; k < lp->num_iter; k++)
    if (lp->recurrence[k]) ir_op_set_operand(yield, k, map_get(&map, yield->operands[k].value));
  ptr_map_free(&map);
  ir_op_add_operand(ctx, yield, build_ring_next(ctx, yield, read_slot, S, slot_inits[0]));
  ir_op_add_operand(ctx, yield, build_ring_next(ctx, yield, write_slot, S, slot_inits[0]));
  /* Operands read by the dot: through ldmatrix (mma.sync), or the ring slot itself (wgmma). */
  for (int j = 0; j < lp->num_loads; j++) {
    pipelined_load *pl = &lp->loads[j];
    if (!pl->convert) { /* the tile read back where the load was */
      ir_value *idx_ops[2] = {&pl->alloc->results[0], read_slot};
      ir_value *src = build_before(ctx, pl->load, OP_MEMDESC_INDEX, 2, idx_ops, pl->slot_type);
      /* Read straight into the layout a lone conversion wants (attention backward's row
       * statistics go to a slice of the MMA layout), as Triton's local_load does, rather than
       * into the load's layout and through shared memory again. */
      ir_value *loaded = &pl->load->results[0];
      ir_op *cvt = ir_value_has_one_use(loaded) ? loaded->first_use->owner : NULL;
      bool direct = cvt && cvt->kind == OP_CONVERT_LAYOUT && cvt->parent == pl->load->parent &&
                    layout_is_distributed(cvt->results[0].type->encoding) &&
                    cvt->results[0].type->encoding->kind != AT_DOT_OP;
      ir_value *tile =
          build_before(ctx, pl->load, OP_LOCAL_LOAD, 1, &src, direct ? cvt->results[0].type : loaded->type);
      if (direct) {
        ir_value_replace_all_uses(&cvt->results[0], tile);
        ir_op_erase(cvt);
      } else {
        ir_value_replace_all_uses(loaded, tile);
      }
      ir_op_erase(pl->load);
      continue;
    }
    /* Before the first reader: a dot, or a view one reads through. */
    ir_op *reader = first_user(&pl->convert->results[0]);
    ir_value *idx_ops[2] = {&pl->alloc->results[0], read_slot};
    ir_value *src = build_before(ctx, reader, OP_MEMDESC_INDEX, 2, idx_ops, pl->slot_type);
    if (pl->convert->kind == OP_LOCAL_ALLOC) {
      ir_value_replace_all_uses(&pl->convert->results[0], src);
      memdesc_views_follow(ctx, src);
    } else {
      ir_op *dot = reader;
      ir_value *tile = build_before(ctx, dot, OP_LOCAL_LOAD, 1, &src, pl->convert->results[0].type);
      ir_value_replace_all_uses(&pl->convert->results[0], tile);
    }
    ir_op_erase(pl->convert);
    ir_op_erase(pl->load);
  }
  erase_dead_stage0(lp);

  /* After the loop: no copy may still be landing in the ring (masked ones write zeros), and no
   * MMA still running. */
  ir_op *after = loop->next;
  if (!after) return;
  for (int k = 0; k < lp->num_iter; k++) {
    ir_op *def = yield->operands[k].value->def_op;
    if (def && def->kind == OP_WARP_GROUP_DOT_WAIT && ir_op_get_int_attr(def, "pendings", 0) > 0)
      wait_after(ctx, &loop->results[k], after);
  }
  if (lp->num_cp_async) emit_async_wait(ctx, after, 0);
  for (int j = 0; j < lp->num_loads; j++) {
    ir_value *ring = &lp->loads[j].alloc->results[0];
    build_before(ctx, after, OP_LOCAL_DEALLOC, 1, &ring, NULL);
  }
  if (lp->num_tma) {
    /* Every copy issued was waited for inside the loop (a copy is issued only for an iteration
     * that runs), so the barriers are idle. */
    for (int p = 0; p < S; p++) {
      ir_value *bar = barrier_at(ctx, lp, after, build_int_constant(ctx, after, p, 32));
      build_before(ctx, after, OP_INVAL_BARRIER, 1, &bar, NULL);
    }
    ir_value *ring = &lp->barriers->results[0];
    build_before(ctx, after, OP_LOCAL_DEALLOC, 1, &ring, NULL);
  }
}

/* An i32 iter arg that each iteration advances by a loop-invariant amount (yield arg + c) is
 * written as init + (iv - lb) * c where the loop steps by 1 (attention backward's row offset
 * `curr_m += BLOCK_M`), so that a prefetch computes it for a later iteration while the body's
 * other users (a causal mask) keep this iteration's value. False when there is none. */
static bool rewrite_counters_affine(gemmc_context *ctx, ir_op *loop) {
  int64_t step;
  ir_block *body = ir_region_entry(&loop->regions[0]);
  if (!body || !value_int_constant(loop->operands[2].value, &step) || step != 1) return false;
  int n = loop->num_operands - 3;
  if (body->num_args != n + 1) return false;
  bool changed = false;
  for (int k = 0; k < n; k++) {
    ir_value *arg = body->args[k + 1];
    ir_value *inc = scf_for_iter_arg_increment(arg);
    /* defined outside: a constant of the body may come after the top, where the value is built */
    if (!ir_type_is_int(arg->type, 32) || !inc || !value_defined_outside(inc, loop)) continue;
    ir_op *top = body->first;
    ir_value *index = body->args[0];
    int64_t lb;
    if (!value_int_constant(loop->operands[0].value, &lb) || lb != 0)
      index = build_binary(ctx, top, OP_SUBI, index, loop->operands[0].value);
    ir_value *offset = build_binary(ctx, top, OP_MULI, index, inc);
    ir_value *value = build_binary(ctx, top, OP_ADDI, loop->operands[3 + k].value, offset);
    ir_value_replace_all_uses(arg, value);
    changed = true;
  }
  return changed;
}

/* ---------------------------------------------------------------- driver */

typedef struct loop_walk {
  ir_op **loops;
  int n, cap;
  gemmc_context *ctx;
} loop_walk;

static bool collect_loop(ir_op *op, void *user) {
  loop_walk *w = user;
  if (op->kind != OP_SCF_FOR) return true;
  if (w->n == w->cap) {
    int cap = w->cap ? w->cap * 2 : 8;
    ir_op **loops = ir_alloc(w->ctx, sizeof *loops * (size_t)cap);
    if (w->n) memcpy(loops, w->loops, sizeof *loops * (size_t)w->n);
    w->loops = loops;
    w->cap = cap;
  }
  w->loops[w->n++] = op;
  return true;
}

/* The analysis again after a rewrite made new address values (always true). */
static bool refresh_axis_info(gemmc_context *ctx, ir_op *module, axis_info_analysis **ai) {
  axis_info_free(*ai);
  *ai = axis_info_run(ctx, module);
  return true;
}

bool gemmc_pass_pipeline_loads(const gemmc_pass_context *pc, ir_op *module) {
  gemmc_context *ctx = pc->ctx;
  int64_t num_stages = pc->num_stages, max_shared = pc->max_shared;
  if (num_stages < 2) return true;
  loop_walk w = {NULL, 0, 0, ctx};
  ir_walk(module, collect_loop, &w);
  axis_info_analysis *ai = w.n ? axis_info_run(ctx, module) : NULL;
  for (int i = 0; i < w.n; i++) {
    loop_plan lp;
    /* Innermost loops only: a loop holding another keeps its loads where they are. */
    bool innermost = true;
    for (int j = 0; j < w.n; j++)
      for (ir_op *p = ir_op_parent_op(w.loops[j]); p && innermost; p = ir_op_parent_op(p))
        if (p == w.loops[i]) innermost = false;
    if (!innermost) continue;
    /* tl.range(..., num_stages=N) sets the loop's own depth (1: not pipelined, as Triton). */
    int stages = scf_for_num_stages(w.loops[i], (int)num_stages);
    if (stages < 2) continue;
    /* Computed-operand loads whose addresses share a counter with other values: the counter as
     * a function of the induction variable, else those loads stay where they are. */
    if (!plan_loop(ctx, ai, w.loops[i], stages, true, &lp) &&
        (!lp.num_computed || !(rewrite_counters_affine(ctx, w.loops[i]) && refresh_axis_info(ctx, module, &ai) &&
                               plan_loop(ctx, ai, w.loops[i], stages, true, &lp))) &&
        (!lp.num_computed || !plan_loop(ctx, ai, w.loops[i], stages, false, &lp)))
      continue;
    if (!make_rings(ctx, &lp, max_shared)) continue;
    rewrite_loop(ctx, &lp);
  }
  axis_info_free(ai);
  return true;
}
