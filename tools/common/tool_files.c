/* File helpers shared by the command-line tools: is an output about to overwrite an input? */
#include "tool_files.h"

#include <string.h>
#include <sys/stat.h>

bool tool_same_file(const char *a, const char *b) {
  if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-")) return false;
  if (!strcmp(a, b)) return true;
  struct stat sa, sb;
  if (stat(a, &sa) != 0 || stat(b, &sb) != 0) return false; /* one does not exist yet */
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
