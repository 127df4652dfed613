/* Structure-aware mutations of .tir text for libFuzzer: edge values, consistent shape and layout changes, and scale. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

/* libFuzzer's own byte-level mutation, for the share of mutations that are not ours. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

/* ------------------------------------------------------------------ a tiny text buffer */

typedef struct text {
  char *data;
  size_t len, cap;
  bool overflow; /* went past the cap: the mutation is dropped */
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->len + n > t->cap) {
    t->overflow = true;
    return;
  }
  memcpy(t->data + t->len, s, n);
  t->len += n;
}

static void puts_text(text *t, const char *s) { put(t, s, strlen(s)); }

/* xorshift64*: deterministic per libFuzzer seed. */
typedef struct rng {
  uint64_t s;
} rng;

static uint64_t next(rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 0x2545F4914F6CDD1DULL;
}

static size_t below(rng *r, size_t n) { return n ? (size_t)(next(r) % n) : 0; }

/* ------------------------------------------------------------------ numbers */

/* Numbers are only scaled below this, so that the mutator's own arithmetic never overflows. */
#define BIG (1LL << 40)

static bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '%' ||
         c == '#' || c == '@' || c == '^' || c == '.' || c == '$' || c == '-';
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* A number token at [start, end): a digit run that is not part of a name (%c128, i32, #loc3), but
 * may be a shape dim (tensor<128x64x..>: preceded or followed by an 'x' next to a digit). */
static bool number_at(const char *s, size_t len, size_t i, size_t *end) {
  if (!is_digit(s[i])) return false;
  if (i > 0) {
    char p = s[i - 1];
    bool dim = p == 'x' && i > 1 && is_digit(s[i - 2]);
    if (is_ident(p) && !dim && p != '-') return false;
    if (p == '-' && i > 1 && is_ident(s[i - 2])) return false;
  }
  size_t j = i;
  while (j < len && is_digit(s[j])) j++;
  if (j < len && (s[j] == '.' || (is_ident(s[j]) && s[j] != 'x' && s[j] != '-'))) return false;
  *end = j;
  return true;
}

/* Offsets of every number token; returns how many (at most max). */
static size_t find_numbers(const char *s, size_t len, size_t *starts, size_t *ends, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < len && n < max; i++) {
    size_t e;
    if (number_at(s, len, i, &e)) {
      starts[n] = i;
      ends[n] = e;
      n++;
      i = e;
    } else {
      while (i + 1 < len && is_ident(s[i]) && is_ident(s[i + 1])) i++; /* skip the rest of a name */
    }
  }
  return n;
}

/* Values at the edges of integer types, of shapes and of the limits gemmc checks. */
static const char *const edge_values[] = {
    "0", "1", "-1", "2", "3", "5", "7", "8", "15", "16", "17", "31", "32", "33", "63", "64", "65", "127", "128",
    "129", "255", "256", "511", "512", "1023", "1024", "2048", "4096", "8192", "16384", "16385", "32768",
    "65535", "65536", "1048576", "1048577", "2097152", "2147483647", "2147483648", "-2147483648", "4294967295",
    "4294967296", "9223372036854775807", "-9223372036854775808", "18446744073709551615", "0x7FFFFFFF",
    "0xFFFFFFFF", "0x80000000", "0xFFFFFFFFFFFFFFFF", "1e999", "1.5", "99999999999999999999"};

static size_t mutate_edge_value(rng *r, const char *in, size_t len, text *out) {
  static size_t starts[4096], ends[4096];
  size_t n = find_numbers(in, len, starts, ends, 4096);
  if (!n) return 0;
  size_t k = below(r, n);
  put(out, in, starts[k]);
  puts_text(out, edge_values[below(r, sizeof edge_values / sizeof edge_values[0])]);
  put(out, in + ends[k], len - ends[k]);
  return out->overflow ? 0 : out->len;
}

/* Every number equal to one of the shape dims scaled by 2 or 1/2 at once: shapes, make_range
 * ends and the constants that go with them stay consistent. */
static size_t mutate_scale_shapes(rng *r, const char *in, size_t len, text *out) {
  static size_t starts[4096], ends[4096];
  size_t n = find_numbers(in, len, starts, ends, 4096);
  size_t dims[4096], nd = 0;
  for (size_t i = 0; i < n; i++) /* numbers that are shape dims: followed by 'x' */
    if (ends[i] < len && in[ends[i]] == 'x' && ends[i] - starts[i] < 10) dims[nd++] = i;
  if (!nd) return 0;
  size_t pick = dims[below(r, nd)];
  long long v = strtoll(in + starts[pick], NULL, 10);
  if (v < 1 || v >= BIG) return 0;
  long long nv = (below(r, 2) || v < 2) ? v * 2 : v / 2;
  if (below(r, 8) == 0) nv = v * 64; /* now and then far past the limits */
  char from[32], to[32];
  snprintf(from, sizeof from, "%lld", v);
  snprintf(to, sizeof to, "%lld", nv);
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if ((size_t)(ends[i] - starts[i]) != strlen(from) || memcmp(in + starts[i], from, strlen(from))) continue;
    put(out, in + at, starts[i] - at);
    puts_text(out, to);
    at = ends[i];
  }
  put(out, in + at, len - at);
  return out->overflow ? 0 : out->len;
}

/* ------------------------------------------------------------------ layouts */

/* Reads "[a, b, ..]" at p into v; returns the characters read (0: not a list). */
static size_t read_list(const char *p, const char *end, long long *v, int *n) {
  const char *q = p;
  if (q >= end || *q != '[') return 0;
  q++;
  *n = 0;
  while (q < end && *q != ']' && *n < 8) {
    while (q < end && (*q == ' ' || *q == ',')) q++;
    char *e;
    long long x = strtoll(q, &e, 10);
    if (e == q) return 0;
    v[(*n)++] = x;
    q = e;
    while (q < end && *q == ' ') q++;
  }
  if (q >= end || *q != ']') return 0;
  return (size_t)(q - p + 1);
}

static void write_list(text *out, const long long *v, int n) {
  puts_text(out, "[");
  for (int i = 0; i < n; i++) {
    char b[32];
    snprintf(b, sizeof b, "%s%lld", i ? ", " : "", v[i]);
    puts_text(out, b);
  }
  puts_text(out, "]");
}

/* One layout parameter list changed so that the layout stays as valid as it was: a factor of 2
 * moved between dims (products kept), two entries swapped, or sizePerThread doubled/halved. */
static void change_list(rng *r, const char *key, long long *v, int n) {
  if (n < 1) return;
  size_t a = below(r, (size_t)n), b = below(r, (size_t)n);
  if (!strcmp(key, "sizePerThread")) {
    if (below(r, 2) && v[a] > 1) v[a] /= 2;
    else if (v[a] > -BIG && v[a] < BIG) v[a] *= below(r, 16) ? 2 : 1024;
    return;
  }
  if (below(r, 2)) {
    long long t = v[a];
    v[a] = v[b];
    v[b] = t;
  } else if (v[a] % 2 == 0 && a != b && v[b] > -BIG && v[b] < BIG) {
    v[a] /= 2;
    v[b] *= 2;
  }
}

static size_t mutate_layout(rng *r, const char *in, size_t len, text *out) {
  static const char *const keys[] = {"sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "instrShape"};
  size_t cand[1024], nc = 0;
  for (size_t i = 0; i + 1 < len && nc < 1024; i++)
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
      size_t kl = strlen(keys[k]);
      if (i + kl + 4 < len && !memcmp(in + i, keys[k], kl) && !memcmp(in + i + kl, " = [", 4)) cand[nc++] = i;
    }
  if (!nc) return 0;
  size_t at = cand[below(r, nc)];
  const char *key = NULL;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    if (at + strlen(keys[k]) <= len && !memcmp(in + at, keys[k], strlen(keys[k]))) key = keys[k];
  if (!key) return 0;
  size_t list_at = at + strlen(key) + 3;
  long long v[8];
  int n;
  size_t used = read_list(in + list_at, in + len, v, &n);
  if (!used) return 0;
  change_list(r, key, v, n);
  put(out, in, list_at);
  write_list(out, v, n);
  put(out, in + list_at + used, len - list_at - used);
  return out->overflow ? 0 : out->len;
}

/* ttg.num-warps doubled or halved together with the first warpsPerCTA entry of every layout. */
static size_t mutate_num_warps(rng *r, const char *in, size_t len, text *out) {
  static const char key[] = "\"ttg.num-warps\" = ";
  const char *p = NULL;
  for (size_t i = 0; i + sizeof key < len; i++)
    if (!memcmp(in + i, key, sizeof key - 1)) {
      p = in + i;
      break;
    }
  if (!p) return 0;
  bool up = below(r, 2);
  size_t at = 0;
  for (size_t i = 0; i < len;) {
    const char *hit = NULL;
    size_t skip = 0;
    if (in + i == p) {
      hit = in + i + sizeof key - 1;
      skip = sizeof key - 1;
    } else if (i + 15 < len && !memcmp(in + i, "warpsPerCTA = [", 15)) {
      hit = in + i + 15;
      skip = 15;
    }
    if (!hit) {
      i++;
      continue;
    }
    char *e;
    long long v = strtoll(hit, &e, 10);
    if (e == hit) {
      i++;
      continue;
    }
    long long nv = up && v > -BIG && v < BIG ? v * 2 : (v > 1 ? v / 2 : v);
    put(out, in + at, i + skip - at);
    char b[32];
    snprintf(b, sizeof b, "%lld", nv);
    puts_text(out, b);
    at = (size_t)(e - in);
    i = at;
  }
  put(out, in + at, len - at);
  return out->overflow ? 0 : out->len;
}

/* ------------------------------------------------------------------ scale */

/* A line `%name = op ...` with no region, copied k times right after itself with fresh result
 * names: hundreds or thousands of values in one block (a loop body, an else region, a reduce
 * body, a kernel), which random bytes never reach. */
static size_t mutate_duplicate_op(rng *r, const char *in, size_t len, text *out) {
  size_t lines[4096], nl = 0;
  for (size_t i = 0; i < len && nl < 4096; i++) {
    if (i && in[i - 1] != '\n') continue;
    size_t j = i;
    while (j < len && in[j] == ' ') j++;
    if (j >= len || in[j] != '%') continue;
    const char *eol = memchr(in + j, '\n', len - j);
    size_t e = eol ? (size_t)(eol - in) : len;
    if (e > j + 1 && (in[e - 1] == '{' || in[e - 2] == '{')) continue; /* an op with a region */
    const char *eq = memchr(in + j, '=', e - j);
    const char *colon = memchr(in + j, ':', (size_t)(eq ? eq - (in + j) : 0));
    const char *comma = memchr(in + j, ',', (size_t)(eq ? eq - (in + j) : 0));
    if (!eq || colon || comma) continue; /* one result only */
    lines[nl++] = i;
  }
  if (!nl) return 0;
  size_t start = lines[below(r, nl)];
  const char *eol = memchr(in + start, '\n', len - start);
  size_t end = eol ? (size_t)(eol - in) + 1 : len;
  size_t name_at = start;
  while (in[name_at] == ' ') name_at++;
  size_t name_end = name_at + 1;
  while (name_end < end && is_ident(in[name_end])) name_end++;
  static const size_t counts[] = {2, 10, 100, 300, 1000, 3000};
  size_t k = counts[below(r, sizeof counts / sizeof counts[0])];
  put(out, in, end);
  if (end == len && (len == 0 || in[len - 1] != '\n')) puts_text(out, "\n");
  for (size_t c = 0; c < k && !out->overflow; c++) {
    char suffix[32];
    snprintf(suffix, sizeof suffix, "_fz%zu", c);
    put(out, in + start, name_end - start);
    puts_text(out, suffix);
    put(out, in + name_end, end - name_end);
  }
  put(out, in + end, len - end);
  return out->overflow ? 0 : out->len;
}

/* A whole line removed or copied elsewhere (structure-level edits). */
static size_t mutate_lines(rng *r, const char *in, size_t len, text *out) {
  size_t lines[8192], nl = 0;
  for (size_t i = 0; i < len && nl < 8192; i++)
    if (!i || in[i - 1] == '\n') lines[nl++] = i;
  if (nl < 2) return 0;
  size_t a = below(r, nl), b = below(r, nl);
  size_t a_end = a + 1 < nl ? lines[a + 1] : len;
  if (below(r, 2)) { /* delete line a */
    put(out, in, lines[a]);
    put(out, in + a_end, len - a_end);
  } else { /* copy line a before line b */
    put(out, in, lines[b]);
    put(out, in + lines[a], a_end - lines[a]);
    put(out, in + lines[b], len - lines[b]);
  }
  return out->overflow ? 0 : out->len;
}

/* ------------------------------------------------------------------ entry point */

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed) {
  rng r = {(uint64_t)seed * 0x9E3779B97F4A7C15ULL + 1};
  size_t kind = below(&r, 10);
  if (kind < 3 || size == 0) return LLVMFuzzerMutate(data, size, max_size);
  char *in = malloc(size + 1); /* NUL-terminated: the number readers use strtoll */
  char *buf = malloc(max_size ? max_size : 1);
  if (!in || !buf) {
    free(in);
    free(buf);
    return LLVMFuzzerMutate(data, size, max_size);
  }
  memcpy(in, data, size);
  in[size] = 0;
  text out = {buf, 0, max_size, false};
  size_t n = 0;
  switch (kind) {
  case 3: n = mutate_edge_value(&r, in, size, &out); break;
  case 4: n = mutate_scale_shapes(&r, in, size, &out); break;
  case 5: n = mutate_layout(&r, in, size, &out); break;
  case 6: n = mutate_num_warps(&r, in, size, &out); break;
  case 7: n = mutate_duplicate_op(&r, in, size, &out); break;
  case 8: n = mutate_lines(&r, in, size, &out); break;
  default: n = mutate_edge_value(&r, in, size, &out); break;
  }
  if (n > 0 && n <= max_size) memcpy(data, buf, n);
  free(in);
  free(buf);
  return n > 0 && n <= max_size ? n : LLVMFuzzerMutate(data, size, max_size);
}
