/* Maps the compiler's own machine code in one call before LLVM's static constructors run. */
#define _GNU_SOURCE
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* A process runs one compile and exits, and in that time it touches code all over LLVM's 30 MB
 * of text: one page fault after another (hundreds in the static constructors alone, ~1,300 in the
 * first compile), each a trip through the kernel that costs several microseconds on a virtual
 * machine. MADV_POPULATE_READ (Linux 5.14) maps the whole executable segment of the program in
 * one call, from the page cache, in about a millisecond; where the kernel lacks it, madvise fails
 * and nothing changes. Priority 101 runs this before the default-priority constructors. */
static int populate_executable_segment(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
#ifdef MADV_POPULATE_READ
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)4095;
    uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    (void)madvise((void *)start, end - start, MADV_POPULATE_READ);
  }
#else
  (void)info;
#endif
  return 1; /* the first object is the program itself */
}

__attribute__((constructor(101))) static void prefault_program_text(void) {
  dl_iterate_phdr(populate_executable_segment, NULL);
}
