/* gemmc_kernel_image: a compiled kernel (PTX, cubin, description, kernel.json) that outlives its gemmc_context, and the description's text form. */
#include "kernel_image.h"

#include "heap_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *kernel_image_copy(const void *data, size_t len) {
  char *p = malloc(len + 1);
  if (!p) return NULL;
  if (len) memcpy(p, data, len);
  p[len] = 0;
  return p;
}

gemmc_kernel_image *kernel_image_new(void) {
  gemmc_kernel_image *img = calloc(1, sizeof *img);
  if (!img) return NULL;
  img->diagnostics = kernel_image_copy("", 0);
  if (!img->diagnostics) {
    free(img);
    return NULL;
  }
  return img;
}

bool kernel_image_set_diagnostics(gemmc_kernel_image *img, const char *text) {
  char *copy = kernel_image_copy(text, strlen(text));
  if (!copy) return false;
  free(img->diagnostics);
  img->diagnostics = copy;
  return true;
}

void gemmc_kernel_image_destroy(gemmc_kernel_image *img) {
  if (!img) return;
  free(img->diagnostics);
  free(img->ptx);
  free(img->cubin);
  free(img->json);
  free(img->meta_text);
  free(img->args);
  free(img->constant_names);
  free(img->constant_values);
  free(img->strings);
  free(img);
}

/* ------------------------------------------------------------------ the description as text */

/* One line per fact; strings escaped so that each is one word: '%', blanks and line breaks as
 * %XX, the empty string as "%e". */
static void out_word(heap_text *o, const char *s) {
  if (!s || !*s) {
    heap_text_puts(o, "%e");
    return;
  }
  for (const char *p = s; *p; p++) {
    if (*p == '%' || *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') {
      char esc[4];
      snprintf(esc, sizeof esc, "%%%02X", (unsigned char)*p);
      heap_text_put(o, esc, 3);
    } else {
      heap_text_put(o, p, 1);
    }
  }
}

static void out_int(heap_text *o, const char *key, int64_t v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s %" PRId64 "\n", key, v);
  heap_text_puts(o, buf);
}

char *kernel_image_serialize_metadata(const gemmc_kernel_metadata *md, size_t *len) {
  heap_text o = {NULL, 0, 0, false};
  heap_text_puts(&o, "name ");
  out_word(&o, md->name);
  heap_text_puts(&o, "\nsource_name ");
  out_word(&o, md->source_name ? md->source_name : md->name);
  heap_text_puts(&o, "\ntarget ");
  out_word(&o, md->target);
  heap_text_puts(&o, "\ngrid_axes ");
  out_word(&o, md->grid_axes);
  heap_text_puts(&o, "\n");
  out_int(&o, "ptx_version", md->ptx_version);
  out_int(&o, "num_warps", md->num_warps);
  out_int(&o, "threads_per_warp", md->threads_per_warp);
  out_int(&o, "threads_per_block", md->threads_per_block);
  if (md->cluster_size > 1) out_int(&o, "cluster_size", md->cluster_size);
  out_int(&o, "static_shared", md->static_shared_bytes);
  out_int(&o, "dynamic_shared", md->dynamic_shared_bytes);
  for (int i = 0; i < md->num_args; i++) {
    const gemmc_kernel_arg *a = &md->args[i];
    char head[64];
    snprintf(head, sizeof head, "arg %c %d %d ",
             a->kind == GEMMC_ARG_POINTER ? 'p' : a->kind == GEMMC_ARG_FLOAT ? 'f' : a->kind == GEMMC_ARG_TENSOR_MAP ? 't' : 'i',
             a->size_bytes, a->divisibility);
    heap_text_puts(&o, head);
    out_word(&o, a->name);
    heap_text_puts(&o, " ");
    out_word(&o, a->type);
    heap_text_puts(&o, " ");
    out_word(&o, a->pointee);
    heap_text_puts(&o, "\n");
    if (a->kind == GEMMC_ARG_TENSOR_MAP) {
      /* tensor_map ELEM RANK BLOCK0..4 BOX0..4 SWIZZLE: the map the host must encode for it. */
      const gemmc_tensor_map_info *m = &a->tensor_map;
      char line[256];
      heap_text_puts(&o, "tensor_map ");
      out_word(&o, m->elem);
      snprintf(line, sizeof line, " %d %d %d %d %d %d %d %d %d %d %d %d\n", m->rank, m->block[0], m->block[1], m->block[2],
               m->block[3], m->block[4], m->box[0], m->box[1], m->box[2], m->box[3], m->box[4], m->swizzle_bytes);
      heap_text_puts(&o, line);
    }
  }
  for (int i = 0; i < md->num_constants; i++) {
    heap_text_puts(&o, "const ");
    out_word(&o, md->constant_names[i]);
    heap_text_puts(&o, " ");
    out_word(&o, md->constant_values[i]);
    heap_text_puts(&o, "\n");
  }
  if (o.failed || !o.data) {
    free(o.data);
    return NULL;
  }
  *len = o.len;
  return o.data;
}

/* Unescapes word [p, end) into *dst (advancing it); returns the start. */
static char *unescape_word(const char *p, const char *end, char **dst) {
  char *start = *dst, *q = *dst;
  if (end - p == 2 && p[0] == '%' && p[1] == 'e') {
    *q++ = 0;
    *dst = q;
    return start;
  }
  while (p < end) {
    if (*p == '%' && end - p >= 3) {
      char hex[3] = {p[1], p[2], 0};
      *q++ = (char)strtol(hex, NULL, 16);
      p += 3;
    } else {
      *q++ = *p++;
    }
  }
  *q++ = 0;
  *dst = q;
  return start;
}

/* Splits line [p, end) into at most max words. */
static int split_words(const char *p, const char *end, const char **starts, const char **ends, int max) {
  int n = 0;
  while (p < end && n < max) {
    while (p < end && *p == ' ') p++;
    if (p >= end) break;
    starts[n] = p;
    while (p < end && *p != ' ') p++;
    ends[n++] = p;
  }
  return n;
}

bool kernel_image_parse_metadata(gemmc_kernel_image *img, char *text, size_t len) {
  free(img->meta_text);
  img->meta_text = text;
  img->meta_len = len;
  int num_args = 0, num_constants = 0;
  for (size_t i = 0; i + 6 < len; i++) {
    if (i && text[i - 1] != '\n') continue;
    if (!strncmp(text + i, "arg ", 4)) num_args++;
    if (!strncmp(text + i, "const ", 6)) num_constants++;
  }
  free(img->args);
  free(img->constant_names);
  free(img->constant_values);
  free(img->strings);
  img->args = calloc((size_t)num_args + 1, sizeof *img->args);
  img->constant_names = calloc((size_t)num_constants + 1, sizeof(char *));
  img->constant_values = calloc((size_t)num_constants + 1, sizeof(char *));
  img->strings = malloc(len + 16);
  if (!img->args || !img->constant_names || !img->constant_values || !img->strings) return false;
  gemmc_kernel_metadata *md = &img->md;
  memset(md, 0, sizeof *md);
  md->name = md->target = md->grid_axes = "";
  md->cluster_size = 1;
  char *dst = img->strings;
  const char *end = text + len;
  bool have_name = false;
  for (const char *line = text; line < end;) {
    const char *eol = memchr(line, '\n', (size_t)(end - line));
    if (!eol) eol = end;
    const char *ws[16], *we[16];
    int n = split_words(line, eol, ws, we, 16);
    line = eol + 1;
    if (n == 0) continue;
    size_t klen = (size_t)(we[0] - ws[0]);
#define KEY_IS(k) (klen == sizeof(k) - 1 && !memcmp(ws[0], k, klen))
    if (n == 2 && KEY_IS("name")) md->name = unescape_word(ws[1], we[1], &dst), have_name = true;
    else if (n == 2 && KEY_IS("source_name")) md->source_name = unescape_word(ws[1], we[1], &dst);
    else if (n == 2 && KEY_IS("target")) md->target = unescape_word(ws[1], we[1], &dst);
    else if (n == 2 && KEY_IS("grid_axes")) md->grid_axes = unescape_word(ws[1], we[1], &dst);
    else if (n == 2 && (KEY_IS("ptx_version") || KEY_IS("num_warps") || KEY_IS("threads_per_warp") ||
                        KEY_IS("threads_per_block") || KEY_IS("cluster_size") || KEY_IS("static_shared") ||
                        KEY_IS("dynamic_shared"))) {
      int64_t v = strtoll(ws[1], NULL, 10);
      if (KEY_IS("ptx_version")) md->ptx_version = (int)v;
      else if (KEY_IS("num_warps")) md->num_warps = (int)v;
      else if (KEY_IS("threads_per_warp")) md->threads_per_warp = (int)v;
      else if (KEY_IS("threads_per_block")) md->threads_per_block = (int)v;
      else if (KEY_IS("cluster_size"))
        md->cluster_size = v == 2 ? 2 : 1;
      else if (KEY_IS("static_shared")) md->static_shared_bytes = v;
      else md->dynamic_shared_bytes = v;
    } else if (n == 7 && KEY_IS("arg")) {
      gemmc_kernel_arg *a = &img->args[md->num_args++];
      char kind = *ws[1];
      a->kind = kind == 'p' ? GEMMC_ARG_POINTER : kind == 'f' ? GEMMC_ARG_FLOAT : kind == 't' ? GEMMC_ARG_TENSOR_MAP : GEMMC_ARG_INT;
      memset(&a->tensor_map, 0, sizeof a->tensor_map);
      a->size_bytes = (int)strtol(ws[2], NULL, 10);
      a->divisibility = (int)strtol(ws[3], NULL, 10);
      a->name = unescape_word(ws[4], we[4], &dst);
      a->type = unescape_word(ws[5], we[5], &dst);
      a->pointee = unescape_word(ws[6], we[6], &dst);
      if (a->kind != GEMMC_ARG_POINTER) a->pointee = NULL;
    } else if (n == 14 && KEY_IS("tensor_map") && md->num_args > 0 &&
               img->args[md->num_args - 1].kind == GEMMC_ARG_TENSOR_MAP) {
      gemmc_tensor_map_info *m = &img->args[md->num_args - 1].tensor_map;
      m->elem = unescape_word(ws[1], we[1], &dst);
      m->rank = (int)strtol(ws[2], NULL, 10);
      for (int d = 0; d < 5; d++) {
        m->block[d] = (int)strtol(ws[3 + d], NULL, 10);
        m->box[d] = (int)strtol(ws[8 + d], NULL, 10);
      }
      m->swizzle_bytes = (int)strtol(ws[13], NULL, 10);
      if (m->rank < 1 || m->rank > 5) return false;
    } else if (n == 3 && KEY_IS("const")) {
      img->constant_names[md->num_constants] = unescape_word(ws[1], we[1], &dst);
      img->constant_values[md->num_constants++] = unescape_word(ws[2], we[2], &dst);
    } else {
      return false; /* a line this version does not know: treat the entry as damaged */
    }
#undef KEY_IS
  }
  if (!md->source_name) md->source_name = md->name; /* entries written before source_name */
  md->args = img->args;
  md->constant_names = img->constant_names;
  md->constant_values = img->constant_values;
  return have_name && md->threads_per_block > 0;
}

/* ------------------------------------------------------------------ accessors */

bool gemmc_kernel_image_ok(const gemmc_kernel_image *img) { return img && img->ok; }
const char *gemmc_kernel_image_diagnostics(const gemmc_kernel_image *img) {
  return img && img->diagnostics ? img->diagnostics : "";
}
bool gemmc_kernel_image_from_cache(const gemmc_kernel_image *img) { return img && img->from_cache; }
const char *gemmc_kernel_image_key(const gemmc_kernel_image *img) { return img ? img->key : ""; }
const char *gemmc_kernel_image_ptx(const gemmc_kernel_image *img, size_t *len) {
  if (len) *len = img && img->ptx ? img->ptx_len : 0;
  return img ? img->ptx : NULL;
}
const void *gemmc_kernel_image_cubin(const gemmc_kernel_image *img, size_t *len) {
  if (len) *len = img && img->cubin ? img->cubin_len : 0;
  return img ? img->cubin : NULL;
}
const gemmc_kernel_metadata *gemmc_kernel_image_metadata(const gemmc_kernel_image *img) {
  return img && img->ok ? &img->md : NULL;
}
const char *gemmc_kernel_image_metadata_json(const gemmc_kernel_image *img, size_t *len) {
  if (len) *len = img && img->json ? img->json_len : 0;
  return img ? img->json : NULL;
}
const gemmc_phase_times *gemmc_kernel_image_times(const gemmc_kernel_image *img) { return img ? &img->times : NULL; }
