/* A small MessagePack reader (the format of the NT_AMDGPU_METADATA note): headers, payloads, skipping. */
#include "amdgpu_msgpack.h"

#include <stdio.h>
#include <string.h>

#define MSGPACK_MAX_DEPTH 64

void msgpack_reader_init(msgpack_reader *r, const void *data, size_t len, char *err, size_t errlen) {
  r->pos = data;
  r->end = r->pos + len;
  r->err = err;
  r->errlen = errlen;
}

static bool fail(msgpack_reader *r, const char *what) {
  if (r->err && r->errlen)
    snprintf(r->err, r->errlen, "malformed msgpack: %s", what);
  return false;
}

/* Big-endian unsigned integer of n bytes (n <= 8). */
static bool take_be(msgpack_reader *r, size_t n, uint64_t *out) {
  if ((size_t)(r->end - r->pos) < n)
    return fail(r, "truncated");
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++)
    v = (v << 8) | r->pos[i];
  r->pos += n;
  *out = v;
  return true;
}

static bool take_payload(msgpack_reader *r, msgpack_value *v, msgpack_kind kind, uint64_t length) {
  if ((uint64_t)(r->end - r->pos) < length)
    return fail(r, "truncated string or binary");
  v->kind = kind;
  v->bytes = (const char *)r->pos;
  v->length = (uint32_t)length;
  r->pos += length;
  return true;
}

static bool set_uint(msgpack_value *v, uint64_t u) {
  if (u > (uint64_t)INT64_MAX) {
    v->kind = MSGPACK_UINT;
    v->uinteger = u;
  } else {
    v->kind = MSGPACK_INT;
    v->integer = (int64_t)u;
  }
  return true;
}

/* Sign-extends the low `bits` bits of u. */
static int64_t sign_extend(uint64_t u, unsigned bits) {
  if (bits == 64)
    return (int64_t)u;
  uint64_t sign = 1ull << (bits - 1);
  return (int64_t)((u ^ sign) - sign);
}

bool msgpack_read(msgpack_reader *r, msgpack_value *v) {
  memset(v, 0, sizeof *v);
  if (r->pos >= r->end)
    return fail(r, "truncated");
  uint8_t b = *r->pos++;
  uint64_t n = 0;
  if (b <= 0x7f)
    return set_uint(v, b);
  if (b >= 0xe0) {
    v->kind = MSGPACK_INT;
    v->integer = (int8_t)b;
    return true;
  }
  if ((b & 0xf0) == 0x80) {
    v->kind = MSGPACK_MAP;
    v->count = b & 0x0f;
    return true;
  }
  if ((b & 0xf0) == 0x90) {
    v->kind = MSGPACK_ARRAY;
    v->count = b & 0x0f;
    return true;
  }
  if ((b & 0xe0) == 0xa0)
    return take_payload(r, v, MSGPACK_STR, b & 0x1f);
  switch (b) {
  case 0xc0: v->kind = MSGPACK_NIL; return true;
  case 0xc2:
  case 0xc3:
    v->kind = MSGPACK_BOOL;
    v->boolean = b == 0xc3;
    return true;
  case 0xc4: case 0xc5: case 0xc6: /* bin 8/16/32 */
    return take_be(r, 1u << (b - 0xc4), &n) && take_payload(r, v, MSGPACK_BIN, n);
  case 0xc7: case 0xc8: case 0xc9: /* ext 8/16/32: length, type byte, payload */
    return take_be(r, 1u << (b - 0xc7), &n) && take_be(r, 1, &(uint64_t){0}) &&
           take_payload(r, v, MSGPACK_EXT, n);
  case 0xca: { /* float 32 */
    uint32_t bits32;
    float f;
    if (!take_be(r, 4, &n))
      return false;
    bits32 = (uint32_t)n;
    memcpy(&f, &bits32, sizeof f);
    v->kind = MSGPACK_FLOAT;
    v->real = f;
    return true;
  }
  case 0xcb: /* float 64 */
    if (!take_be(r, 8, &n))
      return false;
    v->kind = MSGPACK_FLOAT;
    memcpy(&v->real, &n, sizeof v->real);
    return true;
  case 0xcc: case 0xcd: case 0xce: case 0xcf: /* uint 8/16/32/64 */
    return take_be(r, 1u << (b - 0xcc), &n) && set_uint(v, n);
  case 0xd0: case 0xd1: case 0xd2: case 0xd3: { /* int 8/16/32/64 */
    unsigned bytes = 1u << (b - 0xd0);
    if (!take_be(r, bytes, &n))
      return false;
    v->kind = MSGPACK_INT;
    v->integer = sign_extend(n, bytes * 8);
    return true;
  }
  case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: /* fixext 1/2/4/8/16 */
    return take_be(r, 1, &n) && take_payload(r, v, MSGPACK_EXT, 1u << (b - 0xd4));
  case 0xd9: case 0xda: case 0xdb: /* str 8/16/32 */
    return take_be(r, 1u << (b - 0xd9), &n) && take_payload(r, v, MSGPACK_STR, n);
  case 0xdc: case 0xdd: /* array 16/32 */
    if (!take_be(r, b == 0xdc ? 2 : 4, &n))
      return false;
    v->kind = MSGPACK_ARRAY;
    v->count = (uint32_t)n;
    return true;
  case 0xde: case 0xdf: /* map 16/32 */
    if (!take_be(r, b == 0xde ? 2 : 4, &n))
      return false;
    v->kind = MSGPACK_MAP;
    v->count = (uint32_t)n;
    return true;
  default: return fail(r, "reserved type byte 0xc1");
  }
}

static bool skip_at_depth(msgpack_reader *r, int depth) {
  if (depth > MSGPACK_MAX_DEPTH)
    return fail(r, "nested too deeply");
  msgpack_value v;
  if (!msgpack_read(r, &v))
    return false;
  if (v.kind != MSGPACK_ARRAY && v.kind != MSGPACK_MAP)
    return true;
  /* Every element takes at least one byte: a count beyond the input is malformed, and checking
   * it here keeps a forged count from looping for long. */
  uint64_t elements = (uint64_t)v.count * (v.kind == MSGPACK_MAP ? 2 : 1);
  if (elements > (uint64_t)(r->end - r->pos))
    return fail(r, "element count beyond the input");
  for (uint64_t i = 0; i < elements; i++)
    if (!skip_at_depth(r, depth + 1))
      return false;
  return true;
}

bool msgpack_skip(msgpack_reader *r) { return skip_at_depth(r, 0); }

bool msgpack_is_str(const msgpack_value *v, const char *s) {
  size_t n = strlen(s);
  return v->kind == MSGPACK_STR && v->length == n && memcmp(v->bytes, s, n) == 0;
}

bool msgpack_as_int(const msgpack_value *v, int64_t lo, int64_t hi, int64_t *out) {
  if (v->kind != MSGPACK_INT || v->integer < lo || v->integer > hi)
    return false;
  *out = v->integer;
  return true;
}
