/* How TMA's boxes and swizzle write a tensor descriptor's block into its nvmma_shared layout (one answer for lowering and kernel.json). */
#include <string.h>

#include "gemmc/layout.h"

/* TMA's byte offset of element `coord` (block dims, outermost first) inside one box. */
static int64_t tma_box_bytes(const layout_tma_box *b, const ir_type *block, const int64_t *coord) {
  int r = block->rank;
  int64_t pitch = b->elem_bytes, bytes = 0;
  for (int d = r - 1; d >= 0; d--) {
    bytes += coord[d] * pitch;
    pitch *= d == r - 1 ? b->box[0] : block->shape[d];
  }
  if (b->swizzle_bytes >= 32) bytes ^= ((bytes >> 7) & (b->swizzle_bytes / 16 - 1)) << 4;
  return bytes;
}

bool layout_tma_boxes(const ir_type *block, layout_tma_box *b) {
  memset(b, 0, sizeof *b);
  const ir_attr *enc = block ? block->encoding : NULL;
  int r = block ? block->rank : 0;
  if (!enc || enc->kind != AT_NVMMA_SHARED || enc->layout.transposed || enc->layout.fp4_padded || r < 1 || r > 5)
    return false;
  const ir_type *e = ir_type_element(block);
  b->rank = r;
  b->elem_bytes = e->width < 8 ? 1 : (int)e->width / 8;
  b->swizzle_bytes = enc->layout.swizzling_byte_width;
  int64_t inner = block->shape[r - 1];
  int64_t bc = b->swizzle_bytes >= 32 ? b->swizzle_bytes / b->elem_bytes : inner;
  if (bc > inner) bc = inner;
  b->box[0] = (int)bc;
  b->box_elems = (int)bc;
  for (int i = 1; i < r; i++) {
    b->box[i] = (int)block->shape[r - 1 - i];
    b->box_elems *= b->box[i];
  }
  b->num_boxes = (int)(inner / bc);
  bool ok = bc >= 1 && (bc * b->elem_bytes) % 16 == 0 && inner % bc == 0 && b->num_boxes <= 8;
  for (int i = 0; i < r && ok; i++) ok = b->box[i] >= 1 && b->box[i] <= 256;
  for (int k = 0; k < b->num_boxes && ok; k++) {
    int64_t c[IR_MAX_RANK] = {0};
    c[r - 1] = k * bc;
    b->box_offset[k] = layout_shared_offset(enc, r, block->shape, c);
    ok = b->box_offset[k] >= 0 && b->box_offset[k] % b->box_elems == 0;
  }
  for (int d = 0; d < r && ok; d++) {
    int64_t extent = d == r - 1 ? bc : block->shape[d];
    for (int64_t v = 1; v < extent && ok; v *= 2) {
      int64_t c[IR_MAX_RANK] = {0};
      c[d] = v;
      ok = layout_shared_offset(enc, r, block->shape, c) * b->elem_bytes == tma_box_bytes(b, block, c);
    }
  }
  return ok;
}
