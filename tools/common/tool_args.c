/* Command-line value parsing shared by the tools: whole-text, range-checked integers. */
#include "tool_args.h"

#include <errno.h>
#include <stdlib.h>

bool tool_parse_int(const char *text, long lo, long hi, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || end == text || *end || v < lo || v > hi) return false;
  *out = (int)v;
  return true;
}
