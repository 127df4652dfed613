/* A small MessagePack reader: enough to walk the AMDGPU code object metadata note (maps, arrays, strings, numbers). */
#ifndef GEMMC_LIB_TARGET_AMDGPU_MSGPACK_H
#define GEMMC_LIB_TARGET_AMDGPU_MSGPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum msgpack_kind {
  MSGPACK_NIL,
  MSGPACK_BOOL,
  MSGPACK_INT,   /* fits in int64_t (every positive and negative integer format up to that) */
  MSGPACK_UINT,  /* a uint64 above INT64_MAX */
  MSGPACK_FLOAT,
  MSGPACK_STR,
  MSGPACK_BIN,
  MSGPACK_ARRAY, /* `count` elements follow */
  MSGPACK_MAP,   /* `count` key/value pairs follow */
  MSGPACK_EXT,
} msgpack_kind;

/* One object's header. Strings, binaries and extensions carry their payload (not copied, not
 * NUL-terminated); arrays and maps carry their element count and are read element by element. */
typedef struct msgpack_value {
  msgpack_kind kind;
  bool boolean;
  int64_t integer;
  uint64_t uinteger;
  double real;
  const char *bytes; /* STR, BIN, EXT payload */
  uint32_t length;   /* STR, BIN, EXT payload length */
  uint32_t count;    /* ARRAY elements, MAP pairs */
} msgpack_value;

typedef struct msgpack_reader {
  const uint8_t *pos, *end;
  char *err;
  size_t errlen;
} msgpack_reader;

void msgpack_reader_init(msgpack_reader *r, const void *data, size_t len, char *err, size_t errlen);

/* Reads the next object's header into *v (for STR/BIN/EXT, the payload too). False with a message
 * in the reader's err on truncated input or a reserved type byte (0xc1). */
bool msgpack_read(msgpack_reader *r, msgpack_value *v);

/* Skips one whole object, nested arrays and maps included (at most 64 levels deep). */
bool msgpack_skip(msgpack_reader *r);

/* True when v is the string s. */
bool msgpack_is_str(const msgpack_value *v, const char *s);

/* v as an integer in [lo, hi]; false for other kinds or values out of range. */
bool msgpack_as_int(const msgpack_value *v, int64_t lo, int64_t hi, int64_t *out);

#endif
