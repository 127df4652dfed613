/* Maps the compiler's machine code and a heap reserve in a few calls before LLVM's static constructors run. */
#define _GNU_SOURCE
#include <link.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* The Linux values, for C libraries whose headers predate them (the kernel then says EINVAL). */
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* A gemmc process runs one compile and exits. In that time it touches code all over LLVM's 30 MB
 * of text and about 4 MB of fresh heap, one page fault at a time: ~500 before main (most in
 * LLVM's static constructors) and ~1,200 in the tutorial matmul's compile, each a trip through
 * the kernel that costs several microseconds on a virtual machine. MADV_POPULATE_READ and
 * MADV_POPULATE_WRITE (Linux 5.14) map the program's executable segment (from the page cache) and
 * a heap reserve in one call each, about 2 ms for both; the process then takes ~260 faults in
 * all (docs/perf-notes.md, entry 65). Where the kernel lacks them madvise fails and nothing
 * changes. In the static-LLVM build LLVM is part of the program, and priority 101 runs this
 * before its default-priority constructors, on a heap that is still empty; where LLVM is a shared
 * library its constructors have run already and only the heap reserve still helps. */
enum { HEAP_RESERVE_BYTES = 8 << 20 };

static int populate_executable_segment(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  (void)data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
    uintptr_t start = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)4095;
    uintptr_t end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    (void)madvise((void *)start, end - start, MADV_POPULATE_READ);
  }
  return 1; /* the first object is the program itself */
}

/* The heap grows by the reserve now and keeps what it frees (one compile, then exit);
 * allocations up to 4 MiB stay on it instead of getting fresh mmaps of their own. */
static void populate_heap_reserve(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33) /* mallinfo2 */
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
  mallopt(M_TOP_PAD, HEAP_RESERVE_BYTES);
  /* A request past the top chunk's free bytes makes the heap grow, by the request and the pad */
  size_t top_free = mallinfo2().keepcost;
  char *start = sbrk(0);
  void *first = malloc(top_free + 4096);
  char *end = sbrk(0);
  if (start != (char *)-1 && end > start) (void)madvise(start, (size_t)(end - start), MADV_POPULATE_WRITE);
  __asm__ volatile("" : : "r"(first) : "memory"); /* or the compiler drops the malloc/free pair */
  free(first);
#endif
}

__attribute__((constructor(101))) static void prefault_compiler(void) {
  dl_iterate_phdr(populate_executable_segment, NULL);
  populate_heap_reserve();
}
