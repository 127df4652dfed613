/* gemmc kernel cache: compile once per (IR text, options, target, gemmc version, driver version), on disk and shared by every process. */
#ifndef GEMMC_CACHE_H
#define GEMMC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gemmc/gemmc.h"
#include "gemmc/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ the cache folder
 *
 * Where: `dir` when given, else $GEMMC_CACHE_DIR, else $XDG_CACHE_HOME/gemmc, else
 * ~/.cache/gemmc. $GEMMC_CACHE_DIR=off (or an empty dir argument "") turns the disk cache off:
 * every compile then compiles, and nothing is written.
 *
 * Entries live in DIR/kernels-v1/<key>.gck; DIR/tuning holds gemmc_matmul's tuned configs.
 * Every entry is written to a temporary file in the same folder and renamed into place, so
 * a reader sees a whole entry or none, and any number of processes and threads may compile,
 * read and evict at once (there are no locks: two processes that miss on the same key both
 * compile, and one entry remains). An entry carries a SHA-256 of its contents; a damaged or
 * truncated one is ignored (and replaced by the next compile).
 *
 * Size: at most `max_bytes` (0: $GEMMC_CACHE_MAX_SIZE, which takes K/M/G suffixes, else
 * 1 GiB). After each write, when the folder holds more, the least recently used entries go
 * (a hit refreshes an entry's modification time) until it holds 3/4 of the limit.
 *
 * The object holds only the folder's name and limits: one cache may be used by many threads. */
typedef struct gemmc_cache gemmc_cache;

/* Opens (creating folders as needed) the cache. On failure *out is NULL and err says why.
 * The folder is made with mode 0700. */
bool gemmc_cache_open(const char *dir, uint64_t max_bytes, gemmc_cache **out, char *err, size_t errlen);
void gemmc_cache_close(gemmc_cache *cache);
/* The folder in use, or NULL when the disk cache is off. Owned by the cache. */
const char *gemmc_cache_dir(const gemmc_cache *cache);

typedef struct gemmc_cache_stats {
  int64_t entries;
  int64_t bytes;
} gemmc_cache_stats;
/* Counts the entries now on disk (a folder scan). */
bool gemmc_cache_stats_get(const gemmc_cache *cache, gemmc_cache_stats *out);
/* Evicts least recently used entries until at most `target_bytes` remain (0: removes all). */
bool gemmc_cache_trim(gemmc_cache *cache, uint64_t target_bytes);

/* ------------------------------------------------------------------ compiled kernels */

/* What a compile leaves for loading and launching: PTX, a cubin when there is one, the kernel
 * description and kernel.json. Immutable except through gemmc_cache_add_cubin; owned by the
 * caller (gemmc_kernel_image_destroy). */
typedef struct gemmc_kernel_image gemmc_kernel_image;

/* The cache key of a compile (64 hex digits in key_out): SHA-256 over gemmc's version, the
 * driver version, the target, every option that changes the output (num_warps, num_stages,
 * opt_level, stage, the AMD knobs, the -D constants in order) and the text. Entries hold NVIDIA
 * kernels (the PTX and cubin stages). */
void gemmc_cache_key(const char *text, size_t len, const gemmc_compile_options *opts, int driver_version,
                     char key_out[65]);

/* gemmc_compile through the cache: a hit reads the entry (no gemmc context, no LLVM); a miss
 * compiles in a fresh gemmc_context (so that threads may call this at once) and stores the
 * result. `cache` NULL compiles without a disk cache. `driver_version` is the CUDA driver's
 * (gemmc_device_info.driver_version; 0 without a driver): it is part of the key because entries
 * also keep the cubin the driver's JIT made (gemmc_cache_add_cubin).
 *
 * Returns true on success. *out is set in both cases (NULL only when memory ran out); on
 * failure it holds only diagnostics. A failure to write the entry is not an error. */
bool gemmc_cache_compile(gemmc_cache *cache, const char *text, size_t len, const char *filename,
                         const gemmc_compile_options *opts, int driver_version, gemmc_kernel_image **out);

/* Stores a cubin for img (the driver's JIT of its PTX, or ptxas') in img and in its entry. */
bool gemmc_cache_add_cubin(gemmc_cache *cache, gemmc_kernel_image *img, const void *cubin, size_t len);

/* Makes sure img has a cubin: when it has none, the driver's JIT compiles its PTX for rt's device
 * (gemmc_runtime_compile_ptx) and the cubin joins img and its entry, so that the next process
 * loads it without a JIT. Threads may call this at once (each after gemmc_runtime_make_current). */
gemmc_status gemmc_cache_jit(gemmc_runtime *rt, gemmc_cache *cache, gemmc_kernel_image *img);

/* Loads img into rt (its cubin when it has one, else its PTX), finds its kernel and opts in to its
 * dynamic shared memory when that is above 48 KiB. A cubin the device rejects (made for another
 * GPU sharing the cache folder) is replaced by a fresh JIT of the PTX. */
gemmc_status gemmc_cache_load(gemmc_runtime *rt, gemmc_cache *cache, gemmc_kernel_image *img,
                              gemmc_runtime_module **module, gemmc_runtime_kernel **kernel);

void gemmc_kernel_image_destroy(gemmc_kernel_image *img);
bool gemmc_kernel_image_ok(const gemmc_kernel_image *img);
/* Diagnostics of a failed compile ("" otherwise). */
const char *gemmc_kernel_image_diagnostics(const gemmc_kernel_image *img);
/* True when the image came from a cache entry rather than a compile. */
bool gemmc_kernel_image_from_cache(const gemmc_kernel_image *img);
/* The key (64 hex digits). */
const char *gemmc_kernel_image_key(const gemmc_kernel_image *img);
const char *gemmc_kernel_image_ptx(const gemmc_kernel_image *img, size_t *len);
/* NULL when there is no cubin yet. */
const void *gemmc_kernel_image_cubin(const gemmc_kernel_image *img, size_t *len);
const gemmc_kernel_metadata *gemmc_kernel_image_metadata(const gemmc_kernel_image *img);
const char *gemmc_kernel_image_metadata_json(const gemmc_kernel_image *img, size_t *len);
/* Phase times of the compile (all zero for a cache hit) and, in total_ms, the whole call. */
const gemmc_phase_times *gemmc_kernel_image_times(const gemmc_kernel_image *img);

#ifdef __cplusplus
}
#endif
#endif /* GEMMC_CACHE_H */
