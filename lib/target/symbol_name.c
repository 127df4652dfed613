/* Kernel symbol names: a tt.func name spelled as a valid PTX identifier (an escaping that keeps readable names as they are). */
#include <string.h>

#include "gemmc/target.h"

static bool is_alpha(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_plain(unsigned char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

/* PTX identifiers are [a-zA-Z][a-zA-Z0-9_$]* or [_$%][a-zA-Z0-9_$]+ (PTX ISA, "Identifiers").
 * A name of letters, digits and '_' that PTX accepts is kept as it is. Anything else has each
 * offending byte written `$xx` (two lowercase hex digits): every byte outside [A-Za-z0-9_], a
 * leading digit, and the '_' of the name "_". `$` is never kept, so the escaping is one-to-one:
 * two different tt.func names never meet in one PTX name. Examples: a.b -> a$2eb,
 * 1abc -> $31abc, _ -> $5f, "a b" -> a$20b. */
size_t gemmc_ptx_symbol_name(const char *name, char *out, size_t out_size) {
  static const char hex[] = "0123456789abcdef";
  size_t len = strlen(name), n = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)name[i];
    bool escape = !is_plain(c) || (i == 0 && is_digit(c)) || (len == 1 && c == '_');
    char piece[3] = {(char)c, 0, 0};
    size_t w = 1;
    if (escape) {
      piece[0] = '$';
      piece[1] = hex[c >> 4];
      piece[2] = hex[c & 15];
      w = 3;
    }
    for (size_t k = 0; k < w; k++, n++)
      if (n + 1 < out_size) out[n] = piece[k];
  }
  if (out_size) out[n < out_size ? n : out_size - 1] = 0;
  return n;
}
