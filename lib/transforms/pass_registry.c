/* The pass registry: the table of passes built from passes.def, lookup by name, option parsing. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gemmc/passes.h"

/* The table ends with a sentinel so that it is a valid array even when passes.def is empty. */
static const gemmc_pass_info pass_table[] = {
#define GEMMC_PASS(name, alias, fn, help) {name, alias, help, fn},
#include "gemmc/passes.def"
#undef GEMMC_PASS
    {NULL, NULL, NULL, NULL},
};

enum { PASS_COUNT = (int)(sizeof pass_table / sizeof pass_table[0]) - 1 };

const gemmc_pass_info *gemmc_pass_lookup(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < PASS_COUNT; i++) {
    const gemmc_pass_info *p = &pass_table[i];
    if (strcmp(p->name, name) == 0) return p;
    if (p->alias && strcmp(p->alias, name) == 0) return p;
  }
  return NULL;
}

const gemmc_pass_info *gemmc_pass_list(int *count) {
  if (count) *count = PASS_COUNT;
  return pass_table;
}

/* Options are written "a=1,b=2" (our form) or "a=1 b=2" (MLIR's pass option form, as in
 * Triton's lit tests), possibly inside braces; any of these characters separates entries. */
static bool is_option_separator(char c) {
  return c == ',' || c == '{' || c == '}' || isspace((unsigned char)c);
}

int64_t gemmc_pass_option_int(const char *options, const char *key, int64_t default_value, bool *ok) {
  if (!options || !key) return default_value;
  size_t key_len = strlen(key);
  int64_t result = default_value;
  const char *p = options;
  /* Every entry is scanned so that a later repetition of a key wins, as with command lines. */
  while (*p) {
    while (*p && is_option_separator(*p)) p++;
    if (!*p) break;
    const char *entry = p;
    while (*p && !is_option_separator(*p)) p++;
    size_t entry_len = (size_t)(p - entry);
    const char *eq = memchr(entry, '=', entry_len);
    size_t name_len = eq ? (size_t)(eq - entry) : entry_len;
    if (name_len != key_len || memcmp(entry, key, key_len) != 0) continue;
    if (!eq) {
      if (ok) *ok = false; /* "key" with no value is not an integer */
      continue;
    }
    const char *value = eq + 1;
    size_t value_len = (size_t)(p - value);
    char digits[32];
    if (value_len == 0 || value_len >= sizeof digits) {
      if (ok) *ok = false;
      continue;
    }
    memcpy(digits, value, value_len);
    digits[value_len] = 0;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(digits, &end, 10);
    if (errno || end == digits || *end) {
      if (ok) *ok = false;
      continue;
    }
    result = (int64_t)v;
  }
  return result;
}
