/* Layout pictures as SVG, drawn from the layout module's public answers only (layout_to_linear, layout_linear_invert, layout_shared_offset, ...). */
#include "gemmc/layout_svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/layout.h"
#include "heap_text.h"

/* XML-escapes s into out. */
static void escape(const char *s, char *out, size_t n) {
  size_t j = 0;
  for (; *s && j + 7 < n; s++) {
    const char *rep = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" : *s == '"' ? "&quot;" : NULL;
    if (rep) {
      size_t k = strlen(rep);
      memcpy(out + j, rep, k);
      j += k;
    } else {
      out[j++] = *s;
    }
  }
  out[j] = 0;
}

/* Colour i of n distinct hues (warps, banks), light enough for black text. */
static void hue(int i, int n, char *out, size_t len) {
  int h = n > 0 ? (int)((360.0 * i) / n + (i % 2) * 17) % 360 : 0;
  snprintf(out, len, "hsl(%d,70%%,%d%%)", h, 78 - (i % 3) * 6);
}

enum { CELL = 26, LEFT = 56, TOP = 118 };

static void header(heap_text *t, int width, int height, const gemmc_layout_svg_options *o, const char *kind_line,
                   const char *detail_line) {
  char title[1024], kind[512], detail[512];
  escape(o->title ? o->title : "", title, sizeof title);
  escape(kind_line, kind, sizeof kind);
  escape(detail_line, detail, sizeof detail);
  heap_text_printf(t,
                   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"monospace\" "
                   "font-size=\"9\">\n",
                   width, height);
  heap_text_printf(t, "<style>.c{stroke:#fff}.l{font-size:10px}.r{font-size:7px;fill:#333}</style>\n");
  heap_text_printf(t, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  heap_text_printf(t, "<text x=\"8\" y=\"18\" font-size=\"13\">%s</text>\n", title);
  heap_text_printf(t, "<text x=\"8\" y=\"36\" font-size=\"11\">%s</text>\n", kind);
  heap_text_printf(t, "<text x=\"8\" y=\"52\" font-size=\"11\">%s</text>\n", detail);
}

static void axes(heap_text *t, int rows, int cols, int64_t row0_dim, int64_t col_dim) {
  for (int j = 0; j < cols; j++)
    if (j % 4 == 0)
      heap_text_printf(t, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%d</text>\n", LEFT + j * CELL + 2, TOP - 4, j);
  for (int i = 0; i < rows; i++)
    if (i % 2 == 0) heap_text_printf(t, "<text x=\"%d\" y=\"%d\" fill=\"#555\">%d</text>\n", 8, TOP + i * CELL + 16, i);
  heap_text_printf(t, "<text x=\"%d\" y=\"%d\" fill=\"#555\">dim 1 (%lld) -&gt;</text>\n", LEFT, TOP - 16,
                   (long long)col_dim);
  heap_text_printf(t, "<text x=\"8\" y=\"%d\" fill=\"#555\">dim 0 (%lld)</text>\n", TOP - 16, (long long)row0_dim);
}

bool gemmc_layout_svg(const ir_attr *layout, int rank, const int64_t *shape, const gemmc_layout_svg_options *opts,
                      char **svg, size_t *len, char *err, size_t errlen) {
  *svg = NULL;
  *len = 0;
  gemmc_layout_svg_options o = {NULL, 32, 32, 16, 32};
  if (opts) o = *opts;
  if (o.max_rows <= 0) o.max_rows = 32;
  if (o.max_cols <= 0) o.max_cols = 32;
  if (o.elem_bits <= 0) o.elem_bits = 16;
  if (o.threads_per_warp <= 0) o.threads_per_warp = 32;
  if (!layout || rank < 1 || rank > IR_MAX_RANK) {
    snprintf(err, errlen, "no layout, or a rank gemmc cannot draw (%d)", rank);
    return false;
  }
  /* The drawn window: the last two dims (rank 1: one row), index 0 of the leading ones. */
  int64_t dim_r = rank >= 2 ? shape[rank - 2] : 1, dim_c = shape[rank - 1];
  int rows = (int)(dim_r < o.max_rows ? dim_r : o.max_rows), cols = (int)(dim_c < o.max_cols ? dim_c : o.max_cols);
  int64_t coord[IR_MAX_RANK];
  memset(coord, 0, sizeof coord);
  heap_text t = {NULL, 0, 0, false};
  int width = LEFT + cols * CELL + 20, legend_y = TOP + rows * CELL + 24;
  char kind_line[512], detail_line[512];
  snprintf(kind_line, sizeof kind_line, "%s, tensor %lld", ir_attr_kind_name(layout->kind), (long long)shape[0]);
  for (int d = 1; d < rank; d++)
    snprintf(kind_line + strlen(kind_line), sizeof kind_line - strlen(kind_line), "x%lld", (long long)shape[d]);

  if (layout_is_shared(layout)) {
    int vec = 1, per_phase = 1, max_phase = 1;
    layout_shared_swizzle(layout, &vec, &per_phase, &max_phase);
    int bytes = o.elem_bits / 8 ? o.elem_bits / 8 : 1;
    snprintf(detail_line, sizeof detail_line,
             "shared memory: cell = element; number = 4-byte bank (colour), small = offset; swizzle vec %d, perPhase %d, "
             "maxPhase %d; %d-bit elements",
             vec, per_phase, max_phase, o.elem_bits);
    int height = legend_y + 40;
    header(&t, width < 760 ? 760 : width, height, &o, kind_line, detail_line);
    axes(&t, rows, cols, dim_r, dim_c);
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) {
        if (rank >= 2) coord[rank - 2] = i;
        coord[rank - 1] = j;
        int64_t off = layout_shared_offset(layout, rank, shape, coord);
        if (off < 0) {
          free(t.data);
          snprintf(err, errlen, "the layout module has no shared offset for this layout and shape");
          return false;
        }
        int bank = (int)((off * bytes / 4) % 32);
        char colour[48];
        hue(bank, 32, colour, sizeof colour);
        int x = LEFT + j * CELL, y = TOP + i * CELL;
        heap_text_printf(&t, "<rect class=\"c\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", x, y, CELL,
                         CELL, colour);
        heap_text_printf(
            &t, "<text class=\"l\" x=\"%d\" y=\"%d\">%d</text><text class=\"r\" x=\"%d\" y=\"%d\">%lld</text>\n", x + 3,
            y + 11, bank, x + 3, y + 22, (long long)off);
      }
    heap_text_printf(&t,
                     "<text x=\"8\" y=\"%d\" font-size=\"11\">Elements of one column in the same bank (same colour) "
                     "are read in more than one wavefront.</text>\n",
                     legend_y);
  } else if (layout_is_distributed(layout)) {
    layout_linear ll;
    if (!layout_to_linear(layout, rank, shape, &ll)) {
      snprintf(err, errlen, "the layout module cannot evaluate this layout for this shape (shapes must be powers of two)");
      return false;
    }
    int64_t regs = layout_linear_in_size(&ll, LAYOUT_IN_REGISTER), lanes = layout_linear_in_size(&ll, LAYOUT_IN_LANE),
            warps = layout_linear_in_size(&ll, LAYOUT_IN_WARP);
    int spt[IR_MAX_RANK], tpw[IR_MAX_RANK], wpc[IR_MAX_RANK];
    layout_size_per_thread(layout, rank, spt);
    layout_threads_per_warp(layout, rank, tpw);
    layout_warps_per_cta(layout, rank, wpc);
    snprintf(detail_line, sizeof detail_line,
             "cell = element; colour = warp, big = lane, small = register; %lld registers x %lld lanes x %lld warps; "
             "sizePerThread[0] %d, threadsPerWarp[0] %d, warpsPerCTA[0] %d",
             (long long)regs, (long long)lanes, (long long)warps, spt[0], tpw[0], wpc[0]);
    int height = legend_y + 40;
    header(&t, width < 900 ? 900 : width, height, &o, kind_line, detail_line);
    axes(&t, rows, cols, dim_r, dim_c);
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) {
        if (rank >= 2) coord[rank - 2] = i;
        coord[rank - 1] = j;
        int64_t in[LAYOUT_IN_COUNT] = {0};
        if (!layout_linear_invert(&ll, coord, in)) {
          free(t.data);
          snprintf(err, errlen, "element (%d, %d) has no owner in this layout", i, j);
          return false;
        }
        char colour[48];
        hue((int)in[LAYOUT_IN_WARP], (int)(warps > 1 ? warps : 1), colour, sizeof colour);
        int x = LEFT + j * CELL, y = TOP + i * CELL;
        heap_text_printf(&t, "<rect class=\"c\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", x, y, CELL,
                         CELL, colour);
        heap_text_printf(
            &t, "<text class=\"l\" x=\"%d\" y=\"%d\">%lld</text><text class=\"r\" x=\"%d\" y=\"%d\">r%lld</text>\n",
            x + 3, y + 11, (long long)in[LAYOUT_IN_LANE], x + 3, y + 22, (long long)in[LAYOUT_IN_REGISTER]);
      }
    int lx = 8;
    for (int w = 0; w < warps && w < 16; w++) {
      char colour[48];
      hue(w, (int)warps, colour, sizeof colour);
      heap_text_printf(&t,
                       "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" "
                       "font-size=\"11\">warp %d</text>\n",
                       lx, legend_y, colour, lx + 18, legend_y + 11, w);
      lx += 80;
    }
    heap_text_printf(&t,
                     "<text x=\"8\" y=\"%d\" font-size=\"11\">Elements held by several threads (broadcast) show the "
                     "lowest warp, lane and register.</text>\n",
                     legend_y + 30);
  } else {
    snprintf(err, errlen, "%s is neither a register nor a shared-memory layout", ir_attr_kind_name(layout->kind));
    return false;
  }
  if (dim_r > rows || dim_c > cols)
    heap_text_printf(
        &t, "<text x=\"8\" y=\"70\" font-size=\"11\" fill=\"#a00\">showing the first %d x %d of %lld x %lld</text>\n",
        rows, cols, (long long)dim_r, (long long)dim_c);
  heap_text_printf(&t, "</svg>\n");
  if (t.failed) {
    free(t.data);
    snprintf(err, errlen, "out of memory");
    return false;
  }
  *svg = t.data;
  *len = t.len;
  return true;
}
