/* `gemmc --emit=c`: a compiled kernel written as a C source (embedded PTX/cubin, a driver loader through dlopen, a typed launcher) and its header. */
#include "gemmc/aot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap_text.h"

/* Text from the user (file names, -D values) inside the generated C must stay what it is: in a
 * string literal every byte that is not plain printable ASCII, and '"' and '\\', is escaped (octal,
 * three digits, so a following digit cannot join it); in a comment, "*" + "/" and line breaks
 * are broken up. Written into out (NUL-terminated, truncated to n). */
static void c_string_body(const char *in, char *out, size_t n) {
  size_t j = 0;
  for (const unsigned char *q = (const unsigned char *)(in ? in : ""); *q && j + 5 < n; q++) {
    if (*q == '"' || *q == '\\') {
      out[j++] = '\\';
      out[j++] = (char)*q;
    } else if (*q < 0x20 || *q >= 0x7f || *q == '?') { /* '?': no trigraphs */
      j += (size_t)snprintf(out + j, n - j, "\\%03o", *q);
    } else {
      out[j++] = (char)*q;
    }
  }
  out[j] = 0;
}

static void c_comment_body(const char *in, char *out, size_t n) {
  size_t j = 0;
  for (const char *q = in ? in : ""; *q && j + 2 < n; q++) {
    if (*q == '\n' || *q == '\r') out[j++] = ' ';
    else if (*q == '*' && q[1] == '/') out[j++] = '*', out[j++] = ' ';
    else out[j++] = *q;
  }
  out[j] = 0;
}

/* A name #include "..." can hold as it is: escapes are not processed there, so '"', '\\', line
 * breaks, control bytes and trigraphs ("??") cannot be written. */
static bool includable(const char *name) {
  if (!name || !*name) return false;
  for (const unsigned char *q = (const unsigned char *)name; *q; q++)
    if (*q == '"' || *q == '\\' || *q < 0x20 || *q == 0x7f || (*q == '?' && q[1] == '?')) return false;
  return true;
}

/* A C identifier from any name: other characters become '_', a leading digit or a keyword gets
 * a prefix. */
static void identifier(const char *name, char *out, size_t n) {
  static const char *const keywords[] = {"auto", "break", "case", "char", "const", "continue", "default", "do",
                                         "double", "else", "enum", "extern", "float", "for", "goto", "if", "inline",
                                         "int", "long", "register", "restrict", "return", "short", "signed", "sizeof",
                                         "static", "struct", "switch", "typedef", "union", "unsigned", "void",
                                         "volatile", "while", "grid", "stream", "params", NULL};
  size_t i = 0, j = 0;
  if (!name || !*name) name = "arg";
  if (name[0] >= '0' && name[0] <= '9') j += (size_t)snprintf(out, n, "v_");
  for (; name[i] && j + 1 < n; i++) {
    char c = name[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out[j++] = ok ? c : '_';
  }
  out[j] = 0;
  for (int k = 0; keywords[k]; k++)
    if (!strcmp(out, keywords[k])) {
      char tmp[128];
      snprintf(tmp, sizeof tmp, "arg_%s", out);
      snprintf(out, n, "%s", tmp);
    }
}

static void upper(const char *in, char *out, size_t n) {
  size_t i = 0;
  for (; in[i] && i + 1 < n; i++) out[i] = (char)(in[i] >= 'a' && in[i] <= 'z' ? in[i] - 32 : in[i]);
  out[i] = 0;
}

/* The C type of a kernel argument as the launcher takes it. */
static const char *c_type(const gemmc_kernel_arg *a) {
  if (a->kind == GEMMC_ARG_TENSOR_MAP) return "const void *"; /* a 128-byte CUtensorMap the caller encoded */
  if (a->kind == GEMMC_ARG_POINTER) return "uint64_t";
  if (a->kind == GEMMC_ARG_FLOAT) return a->size_bytes == 8 ? "double" : a->size_bytes == 4 ? "float" : "uint16_t";
  switch (a->size_bytes) {
  case 1: return "int8_t";
  case 2: return "int16_t";
  case 8: return "int64_t";
  default: return "int32_t";
  }
}

static void bytes_array(heap_text *t, const char *name, const unsigned char *data, size_t len) {
  heap_text_printf(t, "static const unsigned char %s[%zu] = {", name, len + 1);
  for (size_t i = 0; i < len; i++) {
    if (i % 24 == 0) heap_text_put(t, "\n  ", 3);
    heap_text_printf(t, "%u,", data[i]);
  }
  heap_text_put(t, "\n  0};\n", 7);
}

static bool is_integer(const char *s) {
  if (!s || !*s) return false;
  if (*s == '-') s++;
  if (!*s) return false;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return false;
  return true;
}

static const gemmc_kernel_arg *find_arg(const gemmc_kernel_metadata *md, const char *name) {
  for (int i = 0; i < md->num_args; i++)
    if (!strcmp(md->args[i].name, name) && md->args[i].kind == GEMMC_ARG_INT) return &md->args[i];
  return NULL;
}

/* P_grid for the conventions gemmc's examples and templates follow; false when none applies. */
static bool grid_helper(heap_text *h, const char *p, const gemmc_kernel_metadata *md) {
  const char *bm = gemmc_kernel_constant(md, "BLOCK_M"), *bn = gemmc_kernel_constant(md, "BLOCK_N");
  const char *block = gemmc_kernel_constant(md, "BLOCK");
  bool has_y = strchr(md->grid_axes, 'y') != NULL;
  if (is_integer(bm) && is_integer(bn) && find_arg(md, "M") && find_arg(md, "N")) {
    bool batched = has_y && find_arg(md, "batch");
    heap_text_printf(
        h,
        "/* The grid of a tile kernel (kernel.json: BLOCK_M = %s, BLOCK_N = %s): one program per BLOCK_M x\n"
        " * BLOCK_N tile of the M x N output on x%s. */\n"
        "static inline void %s_grid(int64_t M, int64_t N%s, unsigned grid[3]) {\n"
        "  grid[0] = (unsigned)(((M + %s - 1) / %s) * ((N + %s - 1) / %s));\n"
        "  grid[1] = %s;\n"
        "  grid[2] = 1;\n"
        "}\n\n",
        bm, bn, batched ? ", the batch on y" : "", p, batched ? ", int64_t batch" : "", bm, bm, bn, bn,
        batched ? "(unsigned)batch" : "1");
    return true;
  }
  if (is_integer(block) && !strcmp(md->grid_axes, "x")) {
    heap_text_printf(h,
                     "/* The grid of a 1-D kernel (kernel.json: BLOCK = %s): one program per BLOCK elements. */\n"
                     "static inline void %s_grid(int64_t elements, unsigned grid[3]) {\n"
                     "  grid[0] = (unsigned)((elements + %s - 1) / %s);\n"
                     "  grid[1] = grid[2] = 1;\n"
                     "}\n\n",
                     block, p, block, block);
    return true;
  }
  return false;
}

static void emit_header(heap_text *h, const char *p, const char *guard, const gemmc_kernel_metadata *md,
                        const char *source_name, bool has_cubin) {
  char source[1024];
  c_comment_body(source_name, source, sizeof source);
  heap_text_printf(h,
                   "/* Generated by gemmc %s from %s: kernel %s for %s%s. Needs only the CUDA driver at run time\n"
                   " * (libcuda.so.1, opened with dlopen): no LLVM, no libgemmc. Link with -ldl -lpthread. */\n"
                   "#ifndef %s\n#define %s\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
                   gemmc_version(), source, md->name, md->target, has_cubin ? " (PTX and cubin)" : " (PTX)", guard,
                   guard);
  heap_text_printf(h, "/* What it was compiled with (kernel.json). */\n");
  char up[160], id[128];
  for (int i = 0; i < md->num_constants; i++) {
    identifier(md->constant_names[i], id, sizeof id);
    upper(id, up, sizeof up);
    if (is_integer(md->constant_values[i]))
      heap_text_printf(h, "#define %s_%s %s\n", p, up, md->constant_values[i]);
    else {
      char value[2048];
      c_string_body(md->constant_values[i], value, sizeof value);
      heap_text_printf(h, "#define %s_%s \"%s\"\n", p, up, value);
    }
  }
  heap_text_printf(h, "#define %s_THREADS_PER_BLOCK %d\n#define %s_DYNAMIC_SHARED_BYTES %lld\n\n", p,
                   md->threads_per_block, p, (long long)md->dynamic_shared_bytes);
  heap_text_printf(h,
                   "/* Loads the kernel into the calling thread's current CUDA context (device 0's primary context,\n"
                   " * made current, when there is none): once per process; later calls return at once. 0 on\n"
                   " * success, else a CUresult, or -1 when there is no CUDA driver (%s_error says more). */\n"
                   "int %s_load(void);\n\n",
                   p, p);
  heap_text_printf(h,
                   "/* Launches %s over grid (grid_x, grid_y, grid_z) on `stream` (a CUstream; NULL: the\n"
                   " * default stream), %d threads per block; loads it first when needed. 0 or a CUresult. */\n"
                   "int %s_launch(void *stream, unsigned grid_x, unsigned grid_y, unsigned grid_z",
                   md->name, md->threads_per_block, p);
  for (int i = 0; i < md->num_args; i++) {
    identifier(md->args[i].name, id, sizeof id);
    heap_text_printf(h, ",\n    %s %s", c_type(&md->args[i]), id);
  }
  heap_text_put(h, ");\n\n", 4);
  heap_text_printf(h, "/* The last failure in words (\"\" when none). */\nconst char *%s_error(void);\n\n", p);
  if (!grid_helper(h, p, md))
    heap_text_printf(h, "/* No grid helper: the kernel follows no convention gemmc knows (grid axes \"%s\"). */\n\n",
                     md->grid_axes);
  heap_text_printf(h, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
}

static void emit_source(heap_text *c, const char *p, const char *header_name, const gemmc_kernel_metadata *md,
                        const char *ptx, size_t ptx_len, const void *cubin, size_t cubin_len) {
  heap_text_printf(c, "/* Generated by gemmc %s: kernel %s (%s), loaded and launched through the CUDA driver. */\n",
                   gemmc_version(), md->name, md->target);
  heap_text_printf(c,
                   "#include \"%s\"\n\n#include <dlfcn.h>\n#include <pthread.h>\n#include <stddef.h>\n#include "
                   "<stdio.h>\n#include <string.h>\n\n",
                   header_name);
  bytes_array(c, "kernel_ptx", (const unsigned char *)ptx, ptx_len);
  if (cubin) bytes_array(c, "kernel_cubin", cubin, cubin_len);
  heap_text_printf(c, "\nstatic const char kernel_name[] = \"%s\";\n\n", md->name);
  heap_text_puts(
      c,
      "/* The driver API as in cuda.h (values are ABI); versioned symbols as cuda.h maps them. */\n"
      "typedef int CUresult;\n"
      "typedef void *CUcontext, *CUmodule, *CUfunction;\n"
      "typedef struct driver {\n"
      "  CUresult (*init)(unsigned);\n"
      "  CUresult (*ctx_get_current)(CUcontext *);\n"
      "  CUresult (*ctx_set_current)(CUcontext);\n"
      "  CUresult (*device_get)(int *, int);\n"
      "  CUresult (*primary_ctx_retain)(CUcontext *, int);\n"
      "  CUresult (*module_load_data_ex)(CUmodule *, const void *, unsigned, int *, void **);\n"
      "  CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);\n"
      "  CUresult (*func_set_attribute)(CUfunction, int, int);\n"
      "  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,\n"
      "                            void *, void **, void **);\n"
      "  CUresult (*get_error_name)(CUresult, const char **);\n"
      "} driver;\n\n"
      "static struct {\n"
      "  pthread_mutex_t lock;\n"
      "  int loaded; /* 1: fn is ready; -1: no driver */\n"
      "  driver api;\n"
      "  CUfunction fn;\n"
      "  char error[1024];\n"
      "} state = {PTHREAD_MUTEX_INITIALIZER, 0, {0}, NULL, \"\"};\n\n"
      "static CUresult fail(CUresult r, const char *what, const char *log) {\n"
      "  const char *name = NULL;\n"
      "  if (state.api.get_error_name) state.api.get_error_name(r, &name);\n"
      "  snprintf(state.error, sizeof state.error, \"%s: %s (%d)%s%s\", what, name ? name : \"CUDA error\", r,\n"
      "           log && *log ? \"\\n\" : \"\", log ? log : \"\");\n"
      "  return r;\n"
      "}\n\n"
      "static int open_driver(void) {\n"
      "  void *lib = dlopen(\"libcuda.so.1\", RTLD_NOW | RTLD_LOCAL);\n"
      "  if (!lib) {\n"
      "    snprintf(state.error, sizeof state.error, \"no CUDA driver (libcuda.so.1 not found)\");\n"
      "    return -1;\n"
      "  }\n"
      "  static const char *const names[] = {\"cuInit\", \"cuCtxGetCurrent\", \"cuCtxSetCurrent\", \"cuDeviceGet\",\n"
      "      \"cuDevicePrimaryCtxRetain\", \"cuModuleLoadDataEx\", \"cuModuleGetFunction\", \"cuFuncSetAttribute\",\n"
      "      \"cuLaunchKernel\", \"cuGetErrorName\"};\n"
      "  void **slots = (void **)&state.api;\n"
      "  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {\n"
      "    void *f = dlsym(lib, names[i]);\n"
      "    if (!f) {\n"
      "      snprintf(state.error, sizeof state.error, \"no CUDA driver (libcuda.so.1 lacks %s)\", names[i]);\n"
      "      return -1;\n"
      "    }\n"
      "    memcpy(&slots[i], &f, sizeof f);\n"
      "  }\n"
      "  return 0;\n"
      "}\n\n"
      "/* The embedded image: the cubin first (when there is one), the PTX when the device refuses it. */\n"
      "static CUresult load_module(CUmodule *module) {\n"
      "  char log[8192] = \"\";\n"
      "  int options[] = {5, 6}; /* CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES */\n"
      "  void *values[] = {log, (void *)(size_t)sizeof log};\n"
      "  CUresult r = 1;\n");
  if (cubin) heap_text_puts(c, "  r = state.api.module_load_data_ex(module, kernel_cubin, 2, options, values);\n");
  heap_text_puts(c, "  if (r != 0) r = state.api.module_load_data_ex(module, kernel_ptx, 2, options, values);\n"
                    "  if (r != 0) return fail(r, \"cuModuleLoadDataEx\", log);\n"
                    "  return 0;\n"
                    "}\n\n");
  heap_text_printf(c,
                   "int %s_load(void) {\n"
                   "  pthread_mutex_lock(&state.lock);\n"
                   "  int r = 0;\n"
                   "  if (state.loaded == 0) {\n"
                   "    r = open_driver();\n"
                   "    if (r == 0 && (r = state.api.init(0)) != 0) fail(r, \"cuInit\", NULL);\n"
                   "    CUcontext ctx = NULL;\n"
                   "    if (r == 0 && (r = state.api.ctx_get_current(&ctx)) != 0) fail(r, \"cuCtxGetCurrent\", NULL);\n"
                   "    if (r == 0 && !ctx) {\n"
                   "      int dev = 0;\n"
                   "      if ((r = state.api.device_get(&dev, 0)) != 0) fail(r, \"cuDeviceGet\", NULL);\n"
                   "      else if ((r = state.api.primary_ctx_retain(&ctx, dev)) != 0) fail(r, "
                   "\"cuDevicePrimaryCtxRetain\", NULL);\n"
                   "      else if ((r = state.api.ctx_set_current(ctx)) != 0) fail(r, \"cuCtxSetCurrent\", NULL);\n"
                   "    }\n"
                   "    CUmodule module = NULL;\n"
                   "    if (r == 0) r = load_module(&module);\n"
                   "    if (r == 0 && (r = state.api.module_get_function(&state.fn, module, kernel_name)) != 0)\n"
                   "      fail(r, \"cuModuleGetFunction\", NULL);\n"
                   "    if (r == 0 && %s_DYNAMIC_SHARED_BYTES > 48 * 1024 &&\n"
                   "        (r = state.api.func_set_attribute(state.fn, 8, (int)%s_DYNAMIC_SHARED_BYTES)) != 0)\n"
                   "      fail(r, \"cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)\", NULL);\n"
                   "    if (r == 0) state.loaded = 1;\n"
                   "    else if (r == -1) state.loaded = -1;\n"
                   "  } else if (state.loaded < 0) {\n"
                   "    r = -1;\n"
                   "  }\n"
                   "  pthread_mutex_unlock(&state.lock);\n"
                   "  return r;\n"
                   "}\n\n",
                   p, p, p);
  heap_text_printf(c, "const char *%s_error(void) { return state.error; }\n\n", p);
  heap_text_printf(c, "int %s_launch(void *stream, unsigned grid_x, unsigned grid_y, unsigned grid_z", p);
  char id[128];
  for (int i = 0; i < md->num_args; i++) {
    identifier(md->args[i].name, id, sizeof id);
    heap_text_printf(c, ",\n    %s %s", c_type(&md->args[i]), id);
  }
  heap_text_printf(c, ") {\n  if (state.loaded != 1) {\n    int r = %s_load();\n    if (r != 0) return r;\n  }\n", p);
  heap_text_printf(c, "  void *params[%d] = {", md->num_args ? md->num_args : 1);
  for (int i = 0; i < md->num_args; i++) {
    identifier(md->args[i].name, id, sizeof id);
    heap_text_printf(c, md->args[i].kind == GEMMC_ARG_TENSOR_MAP ? "%s(void *)%s" : "%s&%s", i ? ", " : "", id);
  }
  if (!md->num_args) heap_text_put(c, "NULL", 4);
  heap_text_printf(
      c,
      "};\n"
      "  CUresult r = state.api.launch_kernel(state.fn, grid_x, grid_y, grid_z, %s_THREADS_PER_BLOCK, 1, 1,\n"
      "                                       %s_DYNAMIC_SHARED_BYTES, stream, params, NULL);\n"
      "  return r ? fail(r, \"cuLaunchKernel\", NULL) : 0;\n"
      "}\n",
      p, p);
}

bool gemmc_aot_emit_c(const gemmc_compiled *c, const char *prefix, const char *header_name, const char *source_name,
                      char **c_text, size_t *c_len, char **h_text, size_t *h_len, char *err, size_t errlen) {
  *c_text = *h_text = NULL;
  *c_len = *h_len = 0;
  const gemmc_kernel_metadata *md = gemmc_compiled_kernel(c);
  size_t ptx_len = 0, cubin_len = 0;
  const char *ptx = gemmc_compiled_ptx(c, &ptx_len);
  const void *cubin = gemmc_compiled_cubin(c, &cubin_len);
  if (!gemmc_compiled_ok(c) || !md || !ptx) {
    snprintf(err, errlen, "--emit=c needs a compile that reached PTX");
    return false;
  }
  if (!includable(header_name)) {
    snprintf(err, errlen, "--emit=c: the header name '%s' cannot be #included (it is empty or holds '\"', '\\', a "
             "control character or two '?' in a row)", header_name ? header_name : "");
    return false;
  }
  char p[128], guard[160];
  identifier(prefix ? prefix : md->name, p, sizeof p);
  upper(p, guard, sizeof guard);
  strncat(guard, "_GEMMC_H", sizeof guard - strlen(guard) - 1);
  heap_text h = {NULL, 0, 0, false}, s = {NULL, 0, 0, false};
  emit_header(&h, p, guard, md, source_name ? source_name : "<input>", cubin != NULL);
  emit_source(&s, p, header_name, md, ptx, ptx_len, cubin, cubin_len);
  if (h.failed || s.failed) {
    free(h.data);
    free(s.data);
    snprintf(err, errlen, "out of memory writing the C source");
    return false;
  }
  *c_text = s.data, *c_len = s.len;
  *h_text = h.data, *h_len = h.len;
  return true;
}
