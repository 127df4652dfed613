/* The CHECK macro and pass/fail counters shared by the C unit tests that report with a message. */
#ifndef GEMMC_TEST_CHECK_H
#define GEMMC_TEST_CHECK_H

#include <stdio.h>

static int failures;
static int checks;

/* Counts the check; on failure prints the place, the condition and a printf-style message. */
#define CHECK(cond, ...)                                                                         \
  do {                                                                                           \
    checks++;                                                                                    \
    if (!(cond)) {                                                                               \
      failures++;                                                                                \
      printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                     \
      printf(__VA_ARGS__);                                                                       \
      printf("\n");                                                                              \
    }                                                                                            \
  } while (0)

#endif
