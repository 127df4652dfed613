/* SHA-256 (FIPS 180-4): the kernel cache's keys and entry checksums. */
#ifndef GEMMC_RUNTIME_SHA256_H
#define GEMMC_RUNTIME_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_state {
  uint32_t h[8];
  uint64_t bytes;     /* message length so far */
  uint8_t block[64];  /* the partial block */
  size_t used;        /* bytes in block */
} sha256_state;

void sha256_init(sha256_state *s);
void sha256_update(sha256_state *s, const void *data, size_t len);
void sha256_final(sha256_state *s, uint8_t digest[32]);
/* digest as 64 lower-case hex digits and a NUL. */
void sha256_hex(const uint8_t digest[32], char out[65]);

#endif
