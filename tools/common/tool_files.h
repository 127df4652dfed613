/* File helpers shared by the command-line tools (gemmc, gemmc-opt). */
#ifndef GEMMC_TOOL_FILES_H
#define GEMMC_TOOL_FILES_H

#include <stdbool.h>

/* True when paths a and b name one existing file (same device and inode, so links, "./x" and
 * "../dir/x" spellings all count), or are the same string. "-" (standard input or output) is
 * never the same as anything. */
bool tool_same_file(const char *a, const char *b);

#endif
