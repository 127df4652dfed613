/* LEAKS_ALLOWED_BEGIN/END: brackets a call LeakSanitizer must not count (an LLVM fatal error that
 * gemmc turns into a failed call unwinds past LLVM's frames and leaks what they held, as
 * documented); nothing outside ASan builds. */
#ifndef GEMMC_TEST_LEAKS_H
#define GEMMC_TEST_LEAKS_H

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#define LEAKS_ALLOWED_BEGIN() __lsan_disable()
#define LEAKS_ALLOWED_END() __lsan_enable()
#else
#define LEAKS_ALLOWED_BEGIN() ((void)0)
#define LEAKS_ALLOWED_END() ((void)0)
#endif

#endif
