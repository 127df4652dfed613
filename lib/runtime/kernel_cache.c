/* The on-disk kernel cache: keys, entries written atomically (temp file + rename), checksummed reads, LRU eviction, compile-through-cache. */
#include "kernel_image.h"
#include "sha256.h"
#include "heap_text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ENTRY_MAGIC "gemmc-kernel-cache 1\n"
#define ENTRY_SUFFIX ".gck"
#define KERNELS_SUBDIR "kernels-v1"
/* A temporary file older than this was left by a process that died while writing. */
#define STALE_TEMP_SECONDS 3600

struct gemmc_cache {
  char *dir;         /* NULL: the disk cache is off */
  char *kernels_dir; /* dir/kernels-v1 */
  uint64_t max_bytes;
};

/* ------------------------------------------------------------------ opening */

static bool fail_msg(char *err, size_t errlen, const char *fmt, const char *a, const char *b) {
  if (err && errlen) snprintf(err, errlen, fmt, a, b);
  return false;
}

/* mkdir -p with mode 0700; an existing folder is fine. */
static bool make_dirs(const char *path, char *err, size_t errlen) {
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return fail_msg(err, errlen, "cache folder name too long: %s%s", path, "");
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = 0;
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) return fail_msg(err, errlen, "cannot create %s: %s", buf, strerror(errno));
    *p = '/';
  }
  if (mkdir(buf, 0700) != 0 && errno != EEXIST) return fail_msg(err, errlen, "cannot create %s: %s", buf, strerror(errno));
  struct stat st;
  if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode)) return fail_msg(err, errlen, "%s is not a folder%s", buf, "");
  return true;
}

/* "512M", "2G", "1048576" -> bytes; 0 when malformed. */
static uint64_t parse_size(const char *s) {
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || v <= 0) return 0;
  switch (*end) {
  case 'k': case 'K': v *= 1024.0; end++; break;
  case 'm': case 'M': v *= 1048576.0; end++; break;
  case 'g': case 'G': v *= 1073741824.0; end++; break;
  default: break;
  }
  if (*end == 'B' || *end == 'b') end++;
  return *end ? 0 : (uint64_t)v;
}

bool gemmc_cache_open(const char *dir, uint64_t max_bytes, gemmc_cache **out, char *err, size_t errlen) {
  *out = NULL;
  char path[4096];
  const char *env = getenv("GEMMC_CACHE_DIR");
  bool off = false;
  if (dir) {
    off = !*dir;
    snprintf(path, sizeof path, "%s", dir);
  } else if (env) {
    off = !*env || !strcmp(env, "off") || !strcmp(env, "0");
    snprintf(path, sizeof path, "%s", env);
  } else {
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg) snprintf(path, sizeof path, "%s/gemmc", xdg);
    else if (home && *home) snprintf(path, sizeof path, "%s/.cache/gemmc", home);
    else return fail_msg(err, errlen, "no cache folder: set GEMMC_CACHE_DIR (or HOME)%s%s", "", "");
  }
  gemmc_cache *c = calloc(1, sizeof *c);
  if (!c) return fail_msg(err, errlen, "out of memory%s%s", "", "");
  if (!max_bytes) {
    const char *limit = getenv("GEMMC_CACHE_MAX_SIZE");
    max_bytes = limit ? parse_size(limit) : 0;
    if (!max_bytes) max_bytes = 1ull << 30;
  }
  c->max_bytes = max_bytes;
  if (!off) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') path[--n] = 0;
    c->dir = kernel_image_copy(path, n);
    c->kernels_dir = malloc(n + sizeof KERNELS_SUBDIR + 2);
    if (!c->dir || !c->kernels_dir) {
      gemmc_cache_close(c);
      return fail_msg(err, errlen, "out of memory%s%s", "", "");
    }
    snprintf(c->kernels_dir, n + sizeof KERNELS_SUBDIR + 2, "%s/%s", path, KERNELS_SUBDIR);
    if (!make_dirs(c->kernels_dir, err, errlen)) {
      gemmc_cache_close(c);
      return false;
    }
  }
  *out = c;
  return true;
}

void gemmc_cache_close(gemmc_cache *cache) {
  if (!cache) return;
  free(cache->dir);
  free(cache->kernels_dir);
  free(cache);
}

const char *gemmc_cache_dir(const gemmc_cache *cache) { return cache ? cache->dir : NULL; }

/* ------------------------------------------------------------------ keys */

static void hash_field(sha256_state *s, const char *tag, const void *data, size_t len) {
  uint64_t n = len;
  sha256_update(s, tag, strlen(tag) + 1);
  sha256_update(s, &n, sizeof n);
  if (len) sha256_update(s, data, len);
}

static void hash_int(sha256_state *s, const char *tag, int64_t v) { hash_field(s, tag, &v, sizeof v); }

static void hash_str(sha256_state *s, const char *tag, const char *str) {
  hash_field(s, tag, str ? str : "", str ? strlen(str) : 0);
}

void gemmc_cache_key(const char *text, size_t len, const gemmc_compile_options *opts, int driver_version,
                     char key_out[65]) {
  gemmc_compile_options defaults;
  if (!opts) {
    gemmc_compile_options_init(&defaults);
    opts = &defaults;
  }
  sha256_state s;
  sha256_init(&s);
  hash_str(&s, "format", ENTRY_MAGIC);
  hash_str(&s, "gemmc", gemmc_version());
  hash_int(&s, "driver", driver_version);
  hash_str(&s, "target", opts->target ? opts->target : "(default)");
  hash_int(&s, "num_warps", opts->num_warps);
  hash_int(&s, "num_stages", opts->num_stages);
  hash_int(&s, "opt_level", opts->opt_level);
  hash_int(&s, "stage", opts->stage);
  hash_int(&s, "waves_per_eu", opts->waves_per_eu);
  hash_int(&s, "matrix_instr_nonkdim", opts->matrix_instr_nonkdim);
  hash_int(&s, "kpack", opts->kpack);
  hash_int(&s, "tma", opts->tma);
  hash_int(&s, "warp_specialize", opts->warp_specialize);
  hash_int(&s, "disable_fp_fusion", opts->disable_fp_fusion);
  if (opts->cluster_size > 1) hash_int(&s, "cluster_size", opts->cluster_size); /* keys from before it stay */
  hash_int(&s, "num_defines", opts->num_defines);
  for (int i = 0; i < opts->num_defines; i++) {
    hash_str(&s, "define", opts->defines[i].name);
    hash_str(&s, "value", opts->defines[i].value);
  }
  hash_field(&s, "text", text, len);
  uint8_t digest[32];
  sha256_final(&s, digest);
  sha256_hex(digest, key_out);
}

/* ------------------------------------------------------------------ entries */

static void entry_path(const gemmc_cache *c, const char *key, char *out, size_t n) {
  snprintf(out, n, "%s/%s%s", c->kernels_dir, key, ENTRY_SUFFIX);
}

static void buf_section(heap_text *b, const char *name, const void *data, size_t len) {
  char head[96];
  int n = snprintf(head, sizeof head, "section %s %zu\n", name, len);
  heap_text_put(b, head, (size_t)n);
  heap_text_put(b, data, len);
  heap_text_put(b, "\n", 1);
}

/* The entry's bytes: magic, key, sections, then `end <sha256 of all before>`. */
static bool entry_encode(const gemmc_kernel_image *img, heap_text *b) {
  memset(b, 0, sizeof *b);
  heap_text_put(b, ENTRY_MAGIC, strlen(ENTRY_MAGIC));
  char line[96];
  int n = snprintf(line, sizeof line, "key %s\n", img->key);
  heap_text_put(b, line, (size_t)n);
  buf_section(b, "meta", img->meta_text, img->meta_len);
  buf_section(b, "ptx", img->ptx, img->ptx_len);
  if (img->cubin) buf_section(b, "cubin", img->cubin, img->cubin_len);
  buf_section(b, "json", img->json ? img->json : "", img->json ? img->json_len : 0);
  if (b->failed) return false;
  sha256_state s;
  sha256_init(&s);
  sha256_update(&s, b->data, b->len);
  uint8_t digest[32];
  char hex[65];
  sha256_final(&s, digest);
  sha256_hex(digest, hex);
  n = snprintf(line, sizeof line, "end %s\n", hex);
  heap_text_put(b, line, (size_t)n);
  return !b->failed;
}

/* Parses and checks an entry; fills img (PTX, cubin, json, description). */
static bool entry_decode(const unsigned char *data, size_t len, const char *key, gemmc_kernel_image *img) {
  size_t magic = strlen(ENTRY_MAGIC);
  if (len < magic + 80 || memcmp(data, ENTRY_MAGIC, magic)) return false;
  /* The checksum line is the last 69 bytes: "end " + 64 hex + "\n". */
  const size_t trailer = 4 + 64 + 1;
  if (memcmp(data + len - trailer, "end ", 4) || data[len - 1] != '\n') return false;
  sha256_state s;
  sha256_init(&s);
  sha256_update(&s, data, len - trailer);
  uint8_t digest[32];
  char hex[65];
  sha256_final(&s, digest);
  sha256_hex(digest, hex);
  if (memcmp(hex, data + len - trailer + 4, 64)) return false;
  size_t at = magic, end = len - trailer;
  if (end - at < 69 || memcmp(data + at, "key ", 4) || memcmp(data + at + 4, key, 64) || data[at + 68] != '\n') return false;
  at += 69;
  bool have_meta = false, have_ptx = false;
  while (at < end) {
    const unsigned char *nl = memchr(data + at, '\n', end - at);
    if (!nl) return false;
    char head[96];
    size_t hlen = (size_t)(nl - (data + at));
    if (hlen >= sizeof head) return false;
    memcpy(head, data + at, hlen);
    head[hlen] = 0;
    char name[32];
    size_t size = 0;
    if (sscanf(head, "section %31s %zu", name, &size) != 2) return false;
    at += hlen + 1;
    if (size > end - at || end - at - size < 1 || data[at + size] != '\n') return false;
    void *copy = kernel_image_copy(data + at, size);
    if (!copy) return false;
    if (!strcmp(name, "meta")) {
      if (!kernel_image_parse_metadata(img, copy, size)) return false; /* it owns copy now */
      have_meta = true;
    } else if (!strcmp(name, "ptx")) {
      free(img->ptx);
      img->ptx = copy, img->ptx_len = size, have_ptx = true;
    } else if (!strcmp(name, "cubin")) {
      free(img->cubin);
      img->cubin = copy, img->cubin_len = size;
    } else if (!strcmp(name, "json")) {
      free(img->json);
      img->json = copy, img->json_len = size;
    } else {
      free(copy);
    }
    at += size + 1;
  }
  return have_meta && have_ptx;
}

static bool read_file(const char *path, unsigned char **data, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size > (off_t)1 << 31) {
    close(fd);
    return false;
  }
  size_t size = (size_t)st.st_size, got = 0;
  unsigned char *buf = malloc(size);
  while (buf && got < size) {
    ssize_t n = read(fd, buf + got, size - got);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      break;
    }
    got += (size_t)n;
  }
  close(fd);
  if (!buf || got != size) {
    free(buf);
    return false;
  }
  *data = buf;
  *len = size;
  return true;
}

/* A hit: the whole entry, checked. A damaged entry counts as a miss (the compile replaces it). */
static bool entry_read(const gemmc_cache *c, const char *key, gemmc_kernel_image *img) {
  char path[4200];
  entry_path(c, key, path, sizeof path);
  unsigned char *data = NULL;
  size_t len = 0;
  if (!read_file(path, &data, &len)) return false;
  bool ok = entry_decode(data, len, key, img);
  free(data);
  if (ok) utimensat(AT_FDCWD, path, NULL, 0); /* recently used: evicted last */
  return ok;
}

/* Writes to a temporary file in the same folder, then renames it over the entry: readers in
 * other processes see the old entry, the new one, or none, never a part. */
static bool write_atomically(const char *dir, const char *final_path, const char *data, size_t len) {
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s/tmp-%ld-XXXXXX", dir, (long)getpid());
  int fd = mkstemp(tmp);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, data + done, len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += (size_t)n;
  }
  bool ok = done == len;
  ok = close(fd) == 0 && ok;
  if (ok) ok = rename(tmp, final_path) == 0;
  if (!ok) unlink(tmp);
  return ok;
}

typedef struct entry_file {
  char name[96];
  int64_t bytes;
  struct timespec mtime;
} entry_file;

static int older_first(const void *a, const void *b) {
  const entry_file *x = a, *y = b;
  if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Lists the entries (and removes stale temporary files). Other processes may remove files
 * while we look: a file that vanished is skipped. */
static bool list_entries(const gemmc_cache *c, entry_file **out, int *count, int64_t *total) {
  *out = NULL;
  *count = 0;
  *total = 0;
  DIR *d = opendir(c->kernels_dir);
  if (!d) return false;
  int cap = 0;
  time_t now = time(NULL);
  for (struct dirent *e; (e = readdir(d));) {
    size_t n = strlen(e->d_name);
    bool is_entry = n > strlen(ENTRY_SUFFIX) && !strcmp(e->d_name + n - strlen(ENTRY_SUFFIX), ENTRY_SUFFIX);
    bool is_temp = !strncmp(e->d_name, "tmp-", 4);
    if ((!is_entry && !is_temp) || n >= sizeof((entry_file *)0)->name) continue;
    struct stat st;
    if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
    if (is_temp) {
      if (now - st.st_mtime > STALE_TEMP_SECONDS) unlinkat(dirfd(d), e->d_name, 0);
      continue;
    }
    if (*count == cap) {
      cap = cap ? cap * 2 : 64;
      entry_file *grown = realloc(*out, (size_t)cap * sizeof *grown);
      if (!grown) {
        closedir(d);
        return false;
      }
      *out = grown;
    }
    entry_file *f = &(*out)[(*count)++];
    snprintf(f->name, sizeof f->name, "%s", e->d_name);
    f->bytes = (int64_t)st.st_size;
    f->mtime = st.st_mtim;
    *total += f->bytes;
  }
  closedir(d);
  return true;
}

bool gemmc_cache_stats_get(const gemmc_cache *cache, gemmc_cache_stats *out) {
  memset(out, 0, sizeof *out);
  if (!cache || !cache->dir) return cache != NULL;
  entry_file *files = NULL;
  int count = 0;
  int64_t total = 0;
  bool ok = list_entries(cache, &files, &count, &total);
  free(files);
  out->entries = count;
  out->bytes = total;
  return ok;
}

bool gemmc_cache_trim(gemmc_cache *cache, uint64_t target_bytes) {
  if (!cache || !cache->dir) return cache != NULL;
  entry_file *files = NULL;
  int count = 0;
  int64_t total = 0;
  if (!list_entries(cache, &files, &count, &total)) {
    free(files);
    return false;
  }
  qsort(files, (size_t)count, sizeof *files, older_first);
  char path[4200];
  for (int i = 0; i < count && total > (int64_t)target_bytes; i++) {
    snprintf(path, sizeof path, "%s/%s", cache->kernels_dir, files[i].name);
    if (unlink(path) == 0 || errno == ENOENT) total -= files[i].bytes;
  }
  free(files);
  return true;
}

static void entry_write(gemmc_cache *c, const gemmc_kernel_image *img) {
  heap_text b;
  if (!entry_encode(img, &b)) {
    free(b.data);
    return;
  }
  char path[4200];
  entry_path(c, img->key, path, sizeof path);
  write_atomically(c->kernels_dir, path, b.data, b.len);
  free(b.data);
  gemmc_cache_stats stats;
  if (gemmc_cache_stats_get(c, &stats) && (uint64_t)stats.bytes > c->max_bytes) gemmc_cache_trim(c, c->max_bytes / 4 * 3);
}

/* ------------------------------------------------------------------ compiling through the cache */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Fills img from a successful compile. */
static bool image_from_compile(gemmc_kernel_image *img, const gemmc_compiled *compiled) {
  size_t len = 0;
  const char *ptx = gemmc_compiled_ptx(compiled, &len);
  const gemmc_kernel_metadata *md = gemmc_compiled_kernel(compiled);
  if (!ptx || !md) return false;
  img->ptx = kernel_image_copy(ptx, len);
  img->ptx_len = len;
  const void *cubin = gemmc_compiled_cubin(compiled, &len);
  if (cubin && len) {
    img->cubin = kernel_image_copy(cubin, len);
    img->cubin_len = len;
    if (!img->cubin) return false;
  }
  const char *json = gemmc_compiled_metadata_json(compiled, &len);
  img->json = kernel_image_copy(json ? json : "", json ? len : 0);
  img->json_len = json ? len : 0;
  size_t meta_len = 0;
  char *meta = kernel_image_serialize_metadata(md, &meta_len);
  /* One code path for hits and misses: the description is always read back from its text. */
  return img->ptx && img->json && meta && kernel_image_parse_metadata(img, meta, meta_len);
}

bool gemmc_cache_compile(gemmc_cache *cache, const char *text, size_t len, const char *filename,
                         const gemmc_compile_options *opts, int driver_version, gemmc_kernel_image **out) {
  double start = now_ms();
  gemmc_kernel_image *img = kernel_image_new();
  *out = img;
  if (!img) return false;
  gemmc_compile_options defaults;
  if (!opts) {
    gemmc_compile_options_init(&defaults);
    opts = &defaults;
  }
  if (opts->stage != GEMMC_STAGE_PTX && opts->stage != GEMMC_STAGE_CUBIN) {
    kernel_image_set_diagnostics(img, "error: gemmc_cache_compile keeps NVIDIA kernels: it needs the PTX or cubin stage\n");
    return false;
  }
  gemmc_cache_key(text, len, opts, driver_version, img->key);
  if (cache && cache->dir && entry_read(cache, img->key, img)) {
    img->ok = img->from_cache = true;
    img->times.total_ms = now_ms() - start;
    return true;
  }
  gemmc_context *ctx = gemmc_context_create();
  if (!ctx) {
    kernel_image_set_diagnostics(img, "error: out of memory\n");
    return false;
  }
  gemmc_compiled *compiled = NULL;
  bool ok = gemmc_compile(ctx, text, len, filename, opts, &compiled);
  if (ok) {
    img->times = *gemmc_compiled_phase_times(compiled);
    ok = image_from_compile(img, compiled);
    if (!ok) kernel_image_set_diagnostics(img, "error: out of memory keeping the compiled kernel\n");
  } else {
    kernel_image_set_diagnostics(img, compiled ? gemmc_compiled_diagnostics(compiled) : "error: out of memory\n");
  }
  gemmc_compiled_destroy(compiled);
  gemmc_context_destroy(ctx);
  img->ok = ok;
  if (ok && cache && cache->dir) entry_write(cache, img);
  img->times.total_ms = now_ms() - start;
  return ok;
}

bool gemmc_cache_add_cubin(gemmc_cache *cache, gemmc_kernel_image *img, const void *cubin, size_t len) {
  if (!img || !img->ok || !cubin || !len) return false;
  unsigned char *copy = kernel_image_copy(cubin, len);
  if (!copy) return false;
  free(img->cubin);
  img->cubin = copy;
  img->cubin_len = len;
  if (cache && cache->dir) entry_write(cache, img);
  return true;
}
