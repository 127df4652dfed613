/* PTX peephole: rewrites of LLVM's PTX whose meaning is unchanged but from which ptxas makes faster code. */
#include "target.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a register name (%r12, %rd7) at *p; its length, or 0. */
static size_t register_name(const char *p, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(p, prefix, n) != 0 || !isdigit((unsigned char)p[n])) return 0;
  while (isdigit((unsigned char)p[n])) n++;
  return n;
}

/* Matches "mul.wide.s32 <ws>%rdD, %rS, C;" at p (after the line's indentation) with C a power of
 * two from 2 to 2^30; fills the names and log2(C) and returns the match's length, or 0. */
static size_t match_wide_shift(const char *p, const char **dst, size_t *dst_len, const char **src, size_t *src_len,
                               int *shift) {
  static const char opcode[] = "mul.wide.s32";
  const char *q = p;
  if (strncmp(q, opcode, sizeof opcode - 1) != 0) return 0;
  q += sizeof opcode - 1;
  if (*q != ' ' && *q != '\t') return 0;
  while (*q == ' ' || *q == '\t') q++;
  if (!(*dst_len = register_name(q, "%rd"))) return 0;
  *dst = q;
  q += *dst_len;
  if (*q++ != ',') return 0;
  while (*q == ' ') q++;
  if (!(*src_len = register_name(q, "%r")) || q[1] == 'd') return 0;
  *src = q;
  q += *src_len;
  if (*q++ != ',') return 0;
  while (*q == ' ') q++;
  char *end;
  long c = strtol(q, &end, 10);
  if (end == q || *end != ';' || c < 2 || c > (1L << 30) || (c & (c - 1))) return 0;
  int k = 0;
  while ((1L << k) < c) k++;
  *shift = k;
  return (size_t)(end + 1 - p);
}

/* `mul.wide.s32 d, s, 2^k` -> `cvt.s64.s32 d, s; shl.b64 d, d, k` (the same 64-bit value).
 * ptxas turns mul.wide of a loop-invariant index into IMAD.WIDE and recomputes it inside the
 * K loop next to the cp.async that uses it (fewer registers, one instruction per address), which
 * stalls the loads' dispatch; from a 64-bit shift it keeps the offset in registers, as it does
 * for Triton's PTX (docs/perf-notes.md, entry 18). Only kernels that issue wgmma: their operands
 * come from shared memory and they have registers to spare, where mma.sync kernels sit at 255
 * and would spill. And only kernels that copy asynchronously (cp.async or TMA): a wgmma kernel
 * whose loads stay synchronous (strides of unknown alignment, element by element) has no copy to
 * stall and sits at 255 registers, where the 64-bit offsets cost spills and a shift and sign
 * extension per element (perf-notes 49). */
bool target_ptx_split_wide_shifts(char **ptx, size_t *len) {
  const char *in = *ptx;
  if (!strstr(in, "wgmma.mma_async") || !strstr(in, "cp.async")) return true;
  size_t count = 0;
  for (const char *p = strstr(in, "mul.wide.s32"); p; p = strstr(p + 1, "mul.wide.s32")) count++;
  if (!count) return true;
  /* Each rewrite adds at most "cvt.s64.s32 \t" + "\n\tshl.b64 \t" + three names + ", 30;" bytes. */
  size_t cap = *len + count * 96 + 1;
  char *out = malloc(cap);
  if (!out) return false;
  size_t o = 0;
  const char *line = in;
  while (*line) {
    const char *eol = strchr(line, '\n');
    size_t line_len = eol ? (size_t)(eol - line) + 1 : strlen(line);
    const char *body = line;
    while (*body == ' ' || *body == '\t') body++;
    const char *dst, *src;
    size_t dst_len, src_len, matched;
    int k;
    if (body < line + line_len && (matched = match_wide_shift(body, &dst, &dst_len, &src, &src_len, &k))) {
      size_t indent = (size_t)(body - line);
      o += (size_t)snprintf(out + o, cap - o, "%.*scvt.s64.s32 \t%.*s, %.*s;\n%.*sshl.b64 \t%.*s, %.*s, %d;",
                            (int)indent, line, (int)dst_len, dst, (int)src_len, src, (int)indent, line,
                            (int)dst_len, dst, (int)dst_len, dst, k);
      size_t rest = line_len - indent - matched; /* the line's tail: comment, newline */
      memcpy(out + o, body + matched, rest);
      o += rest;
    } else {
      memcpy(out + o, line, line_len);
      o += line_len;
    }
    line += line_len;
  }
  out[o] = '\0';
  free(*ptx);
  *ptx = out;
  *len = o;
  return true;
}
