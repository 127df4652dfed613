/* The AMDGPU code object's metadata note read back: ELF64 notes, NT_AMDGPU_METADATA (msgpack) into gemmc_amdgpu_code_object. */
#include "gemmc/amdgpu.h"

#include "amdgpu_msgpack.h"
#include "target.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ELF constants (elf.h has no AMDGPU values; these are from LLVM's BinaryFormat/ELF.h). */
enum {
  ELF_MACHINE_AMDGPU = 224,
  ELF_OSABI_AMDGPU_HSA = 64,
  ELF_SECTION_NOTE = 7,
  NOTE_AMDGPU_METADATA = 32,
  /* The HSA ABI version byte counts from code object version 2 (0) up. */
  ELF_ABI_VERSION_TO_CODE_OBJECT = 2,
};

/* Kernels, arguments and strings live in a list of chunks freed together. */
typedef struct pool_chunk {
  struct pool_chunk *next;
  max_align_t data[];
} pool_chunk;

typedef struct code_object {
  gemmc_amdgpu_code_object public; /* first: the caller's pointer points here */
  pool_chunk *chunks;
} code_object;

static void *pool_alloc(code_object *co, size_t bytes) {
  pool_chunk *c = calloc(1, sizeof *c + bytes);
  if (!c)
    return NULL;
  c->next = co->chunks;
  co->chunks = c;
  return c->data;
}

static const char *pool_string(code_object *co, const msgpack_value *v) {
  char *s = pool_alloc(co, (size_t)v->length + 1);
  if (s) {
    memcpy(s, v->bytes, v->length);
    s[v->length] = '\0';
  }
  return s;
}

void gemmc_amdgpu_code_object_free(gemmc_amdgpu_code_object *public_co) {
  code_object *co = (code_object *)public_co;
  if (!co)
    return;
  while (co->chunks) {
    pool_chunk *next = co->chunks->next;
    free(co->chunks);
    co->chunks = next;
  }
  free(co);
}

/* ------------------------------------------------------------------ ELF */

static uint64_t read_le(const unsigned char *p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;)
    v = (v << 8) | p[i];
  return v;
}

/* Finds the NT_AMDGPU_METADATA note's descriptor in the SHT_NOTE sections. */
static bool find_metadata_note(const unsigned char *elf, size_t len, const unsigned char **desc,
                               size_t *desc_len, char *err, size_t errlen) {
  uint64_t shoff = read_le(elf + 0x28, 8);
  uint64_t shentsize = read_le(elf + 0x3a, 2), shnum = read_le(elf + 0x3c, 2);
  if (shentsize < 64 || shoff > len || shnum > (len - shoff) / shentsize)
    return target_fail(err, errlen, "code object: section headers outside the file");
  for (uint64_t i = 0; i < shnum; i++) {
    const unsigned char *sh = elf + shoff + i * shentsize;
    if (read_le(sh + 4, 4) != ELF_SECTION_NOTE)
      continue;
    uint64_t off = read_le(sh + 0x18, 8), size = read_le(sh + 0x20, 8);
    if (off > len || size > len - off)
      return target_fail(err, errlen, "code object: note section outside the file");
    /* Each note: namesz, descsz, type, then name and descriptor, each padded to 4 bytes. */
    uint64_t at = 0;
    while (size - at >= 12) {
      const unsigned char *n = elf + off + at;
      uint64_t namesz = read_le(n, 4), descsz = read_le(n + 4, 4), type = read_le(n + 8, 4);
      uint64_t name_padded = (namesz + 3) & ~3ull, desc_padded = (descsz + 3) & ~3ull;
      if (name_padded > size - at - 12 || desc_padded > size - at - 12 - name_padded)
        return target_fail(err, errlen, "code object: truncated note");
      if (type == NOTE_AMDGPU_METADATA && namesz == 7 && memcmp(n + 12, "AMDGPU", 7) == 0) {
        *desc = n + 12 + name_padded;
        *desc_len = descsz;
        return true;
      }
      at += 12 + name_padded + desc_padded;
    }
  }
  return target_fail(err, errlen, "code object: no NT_AMDGPU_METADATA note (not a code object version 3+)");
}

/* ------------------------------------------------------------------ the msgpack document */

typedef struct note_reader {
  msgpack_reader mp;
  code_object *co;
  char *err;
  size_t errlen;
} note_reader;

static bool out_of_memory(note_reader *r) { return target_fail(r->err, r->errlen, "out of memory"); }

static bool bad_value(note_reader *r, const char *key) {
  return target_fail(r->err, r->errlen, "code object metadata: bad value for %s", key);
}

/* Reads an integer value of key `key` into *out (range [lo, hi]). */
static bool read_int(note_reader *r, const char *key, int64_t lo, int64_t hi, int64_t *out) {
  msgpack_value v;
  if (!msgpack_read(&r->mp, &v))
    return false;
  if (!msgpack_as_int(&v, lo, hi, out))
    return bad_value(r, key);
  return true;
}

static bool read_string(note_reader *r, const char *key, const char **out) {
  msgpack_value v;
  if (!msgpack_read(&r->mp, &v))
    return false;
  if (v.kind != MSGPACK_STR)
    return bad_value(r, key);
  *out = pool_string(r->co, &v);
  return *out ? true : out_of_memory(r);
}

static bool read_bool(note_reader *r, const char *key, bool *out) {
  msgpack_value v;
  if (!msgpack_read(&r->mp, &v))
    return false;
  int64_t i = 0;
  if (v.kind == MSGPACK_BOOL)
    *out = v.boolean;
  else if (msgpack_as_int(&v, 0, 1, &i))
    *out = i != 0;
  else
    return bad_value(r, key);
  return true;
}

/* Reads a map header and checks that its pairs can fit in what is left. */
static bool read_map(note_reader *r, const char *what, uint32_t *count) {
  msgpack_value v;
  if (!msgpack_read(&r->mp, &v))
    return false;
  if (v.kind != MSGPACK_MAP)
    return target_fail(r->err, r->errlen, "code object metadata: %s is not a map", what);
  if ((uint64_t)v.count * 2 > (uint64_t)(r->mp.end - r->mp.pos))
    return target_fail(r->err, r->errlen, "code object metadata: %s is truncated", what);
  *count = v.count;
  return true;
}

static bool read_array(note_reader *r, const char *what, uint32_t *count) {
  msgpack_value v;
  if (!msgpack_read(&r->mp, &v))
    return false;
  if (v.kind != MSGPACK_ARRAY)
    return target_fail(r->err, r->errlen, "code object metadata: %s is not an array", what);
  if ((uint64_t)v.count > (uint64_t)(r->mp.end - r->mp.pos))
    return target_fail(r->err, r->errlen, "code object metadata: %s is truncated", what);
  *count = v.count;
  return true;
}

static bool read_key(note_reader *r, msgpack_value *key) {
  if (!msgpack_read(&r->mp, key))
    return false;
  if (key->kind != MSGPACK_STR)
    return target_fail(r->err, r->errlen, "code object metadata: a map key is not a string");
  return true;
}


static bool read_arg(note_reader *r, gemmc_kernarg *a) {
  uint32_t pairs = 0;
  if (!read_map(r, ".args entry", &pairs))
    return false;
  bool has_offset = false, has_size = false;
  for (uint32_t i = 0; i < pairs; i++) {
    msgpack_value key;
    int64_t n = 0;
    if (!read_key(r, &key))
      return false;
    bool ok;
    if (msgpack_is_str(&key, ".offset")) {
      ok = read_int(r, ".offset", 0, INT32_MAX, &n);
      a->offset = (int)n;
      has_offset = true;
    } else if (msgpack_is_str(&key, ".size")) {
      ok = read_int(r, ".size", 0, INT32_MAX, &n);
      a->size = (int)n;
      has_size = true;
    } else if (msgpack_is_str(&key, ".value_kind")) {
      ok = read_string(r, ".value_kind", &a->value_kind);
    } else if (msgpack_is_str(&key, ".address_space")) {
      ok = read_string(r, ".address_space", &a->address_space);
    } else {
      ok = msgpack_skip(&r->mp);
    }
    if (!ok)
      return false;
  }
  if (!has_offset || !has_size || !a->value_kind)
    return target_fail(r->err, r->errlen, "code object metadata: an argument lacks .offset, .size or .value_kind");
  a->hidden = strncmp(a->value_kind, "hidden_", 7) == 0;
  return true;
}

static bool read_args(note_reader *r, gemmc_amdgpu_kernel_info *k) {
  uint32_t count = 0;
  if (!read_array(r, ".args", &count))
    return false;
  gemmc_kernarg *args = pool_alloc(r->co, (count ? count : 1) * sizeof *args);
  if (!args)
    return out_of_memory(r);
  for (uint32_t i = 0; i < count; i++)
    if (!read_arg(r, &args[i]))
      return false;
  k->kernargs = args;
  k->num_kernargs = (int)count;
  return true;
}

/* The keys every code object v3+ kernel has (AMDGPUUsage, "Code Object V3 Metadata"). */
enum {
  SEEN_NAME = 1 << 0,
  SEEN_SYMBOL = 1 << 1,
  SEEN_KERNARG_SIZE = 1 << 2,
  SEEN_KERNARG_ALIGN = 1 << 3,
  SEEN_GROUP = 1 << 4,
  SEEN_PRIVATE = 1 << 5,
  SEEN_WAVEFRONT = 1 << 6,
  SEEN_SGPR = 1 << 7,
  SEEN_VGPR = 1 << 8,
  SEEN_MAX_FLAT = 1 << 9,
  SEEN_ALL = (1 << 10) - 1,
};

static const char *const required_keys[] = {
    ".name", ".symbol", ".kernarg_segment_size", ".kernarg_segment_align", ".group_segment_fixed_size",
    ".private_segment_fixed_size", ".wavefront_size", ".sgpr_count", ".vgpr_count", ".max_flat_workgroup_size",
};

/* An int-valued kernel key: where it goes and which required bit it sets (0: optional). */
typedef struct int_key {
  const char *key;
  size_t offset; /* in gemmc_amdgpu_kernel_info */
  bool is_int64;
  unsigned seen;
} int_key;

#define KERNEL_INT(k, field, seen) {k, offsetof(gemmc_amdgpu_kernel_info, field), false, seen}
#define KERNEL_INT64(k, field, seen) {k, offsetof(gemmc_amdgpu_kernel_info, field), true, seen}
static const int_key kernel_int_keys[] = {
    KERNEL_INT(".kernarg_segment_size", kernarg_segment_size, SEEN_KERNARG_SIZE),
    KERNEL_INT(".kernarg_segment_align", kernarg_segment_align, SEEN_KERNARG_ALIGN),
    KERNEL_INT64(".group_segment_fixed_size", group_segment_fixed_size, SEEN_GROUP),
    KERNEL_INT64(".private_segment_fixed_size", private_segment_fixed_size, SEEN_PRIVATE),
    KERNEL_INT(".wavefront_size", wavefront_size, SEEN_WAVEFRONT),
    KERNEL_INT(".sgpr_count", sgpr_count, SEEN_SGPR),
    KERNEL_INT(".vgpr_count", vgpr_count, SEEN_VGPR),
    KERNEL_INT(".agpr_count", agpr_count, 0),
    KERNEL_INT(".sgpr_spill_count", sgpr_spill_count, 0),
    KERNEL_INT(".vgpr_spill_count", vgpr_spill_count, 0),
    KERNEL_INT(".max_flat_workgroup_size", max_flat_workgroup_size, SEEN_MAX_FLAT),
};

static const int_key *find_int_key(const msgpack_value *key) {
  for (size_t i = 0; i < sizeof kernel_int_keys / sizeof kernel_int_keys[0]; i++)
    if (msgpack_is_str(key, kernel_int_keys[i].key))
      return &kernel_int_keys[i];
  return NULL;
}

static bool check_kernel(note_reader *r, const gemmc_amdgpu_kernel_info *k, unsigned seen) {
  for (size_t i = 0; i < sizeof required_keys / sizeof required_keys[0]; i++)
    if (!(seen & (1u << i)))
      return target_fail(r->err, r->errlen, "code object metadata: kernel %s has no %s", k->name ? k->name : "?",
                         required_keys[i]);
  for (int i = 0; i < k->num_kernargs; i++) {
    const gemmc_kernarg *a = &k->kernargs[i];
    if ((int64_t)a->offset + a->size > k->kernarg_segment_size)
      return target_fail(r->err, r->errlen,
                         "code object metadata: kernel %s argument %d (%s, offset %d, size %d) ends past "
                         "the kernarg segment (%d bytes)",
                         k->name, i, a->value_kind, a->offset, a->size, k->kernarg_segment_size);
  }
  return true;
}

static bool read_kernel(note_reader *r, gemmc_amdgpu_kernel_info *k) {
  uint32_t pairs = 0;
  if (!read_map(r, "a kernel", &pairs))
    return false;
  unsigned seen = 0;
  for (uint32_t i = 0; i < pairs; i++) {
    msgpack_value key;
    if (!read_key(r, &key))
      return false;
    bool ok = true;
    const int_key *ik = find_int_key(&key);
    if (ik) {
      int64_t n = 0;
      ok = read_int(r, ik->key, 0, ik->is_int64 ? INT64_MAX : INT32_MAX, &n);
      if (ik->is_int64) {
        memcpy((char *)k + ik->offset, &n, sizeof n);
      } else {
        int narrow = (int)n;
        memcpy((char *)k + ik->offset, &narrow, sizeof narrow);
      }
      seen |= ik->seen;
    } else if (msgpack_is_str(&key, ".name")) {
      ok = read_string(r, ".name", &k->name);
      seen |= SEEN_NAME;
    } else if (msgpack_is_str(&key, ".symbol")) {
      ok = read_string(r, ".symbol", &k->symbol);
      seen |= SEEN_SYMBOL;
    } else if (msgpack_is_str(&key, ".args")) {
      ok = read_args(r, k);
    } else if (msgpack_is_str(&key, ".uses_dynamic_stack")) {
      ok = read_bool(r, ".uses_dynamic_stack", &k->uses_dynamic_stack);
    } else {
      ok = msgpack_skip(&r->mp);
    }
    if (!ok)
      return false;
  }
  for (int i = 0; i < k->num_kernargs; i++)
    k->num_explicit_kernargs += !k->kernargs[i].hidden;
  return check_kernel(r, k, seen);
}

static bool read_document(note_reader *r) {
  gemmc_amdgpu_code_object *out = &r->co->public;
  uint32_t pairs = 0;
  if (!read_map(r, "the note", &pairs))
    return false;
  bool has_kernels = false;
  for (uint32_t i = 0; i < pairs; i++) {
    msgpack_value key;
    if (!read_key(r, &key))
      return false;
    bool ok = true;
    if (msgpack_is_str(&key, "amdhsa.target")) {
      ok = read_string(r, "amdhsa.target", &out->target);
    } else if (msgpack_is_str(&key, "amdhsa.version")) {
      uint32_t n = 0;
      ok = read_array(r, "amdhsa.version", &n);
      for (uint32_t j = 0; ok && j < n; j++) {
        int64_t v = 0;
        ok = read_int(r, "amdhsa.version", 0, INT32_MAX, &v);
        if (j < 2)
          out->metadata_version[j] = (int)v;
      }
    } else if (msgpack_is_str(&key, "amdhsa.kernels")) {
      uint32_t n = 0;
      ok = read_array(r, "amdhsa.kernels", &n);
      gemmc_amdgpu_kernel_info *kernels = ok ? pool_alloc(r->co, (n ? n : 1) * sizeof *kernels) : NULL;
      if (ok && !kernels)
        return out_of_memory(r);
      for (uint32_t j = 0; ok && j < n; j++)
        ok = read_kernel(r, &kernels[j]);
      if (ok) {
        out->kernels = kernels;
        out->num_kernels = (int)n;
        has_kernels = true;
      }
    } else {
      ok = msgpack_skip(&r->mp);
    }
    if (!ok)
      return false;
  }
  if (!has_kernels)
    return target_fail(r->err, r->errlen, "code object metadata: no amdhsa.kernels");
  return true;
}

bool gemmc_amdgpu_read_code_object(const void *elf_data, size_t len, gemmc_amdgpu_code_object **out, char *err,
                                   size_t errlen) {
  if (out)
    *out = NULL;
  const unsigned char *elf = elf_data;
  if (!elf || !out || len < 64 || memcmp(elf, "\x7f" "ELF", 4) != 0)
    return target_fail(err, errlen, "not an ELF file");
  if (elf[4] != 2 || elf[5] != 1)
    return target_fail(err, errlen, "not a little-endian 64-bit ELF file");
  if (read_le(elf + 0x12, 2) != ELF_MACHINE_AMDGPU)
    return target_fail(err, errlen, "not an AMDGPU ELF file (e_machine %u)", (unsigned)read_le(elf + 0x12, 2));
  if (elf[7] != ELF_OSABI_AMDGPU_HSA)
    return target_fail(err, errlen, "not an AMD HSA code object (OS/ABI %u)", elf[7]);
  const unsigned char *desc = NULL;
  size_t desc_len = 0;
  if (!find_metadata_note(elf, len, &desc, &desc_len, err, errlen))
    return false;
  code_object *co = calloc(1, sizeof *co);
  if (!co)
    return target_fail(err, errlen, "out of memory");
  co->public.code_object_version = elf[8] + ELF_ABI_VERSION_TO_CODE_OBJECT;
  note_reader r = {{0}, co, err, errlen};
  msgpack_reader_init(&r.mp, desc, desc_len, err, errlen);
  if (!read_document(&r)) {
    gemmc_amdgpu_code_object_free(&co->public);
    return false;
  }
  for (int i = 0; i < co->public.num_kernels; i++) {
    gemmc_amdgpu_kernel_info *k = (gemmc_amdgpu_kernel_info *)&co->public.kernels[i];
    k->target = co->public.target;
    k->code_object_version = co->public.code_object_version;
  }
  *out = &co->public;
  return true;
}

const gemmc_amdgpu_kernel_info *gemmc_amdgpu_code_object_kernel(const gemmc_amdgpu_code_object *co,
                                                                const char *name) {
  for (int i = 0; co && name && i < co->num_kernels; i++)
    if (co->kernels[i].name && strcmp(co->kernels[i].name, name) == 0)
      return &co->kernels[i];
  return NULL;
}
