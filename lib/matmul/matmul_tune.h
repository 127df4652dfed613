/* gemmc_matmul's tuning results: shape classes and the per-device file of winners next to the kernel cache. */
#ifndef GEMMC_MATMUL_TUNE_H
#define GEMMC_MATMUL_TUNE_H

#include "matmul_internal.h"

typedef struct mm_tuned {
  char cls[192];
  int config, split;
} mm_tuned;

/* The winners of one device (name, compute capability, SMs), driver and gemmc version, read
 * from and appended to DIR/tuning/<device>.tsv. */
typedef struct mm_tuning_db {
  char *path; /* NULL: no disk cache, winners live only in memory */
  bool loaded;
  mm_tuned *items;
  int count, cap;
} mm_tuning_db;

void mm_tuning_db_init(mm_tuning_db *db, const char *cache_dir, const gemmc_device_info *dev);
void mm_tuning_db_free(mm_tuning_db *db);
/* The shape class of p: types, epilogue, argument facts, and M, N, K, batch rounded to powers of
 * two (batch_invariant: N, cuBLAS's m, left out). */
void mm_shape_class(const mm_problem *p, uint64_t div, uint32_t unit, bool batch_invariant, char *out, size_t n);
bool mm_tuning_db_lookup(mm_tuning_db *db, const char *cls, int *config, int *split);
/* Remembers a winner (in memory and, when there is a folder, appended to the file; the last line
 * for a class wins, so processes tuning at once never corrupt it). */
void mm_tuning_db_store(mm_tuning_db *db, const char *cls, int config, int split, double ms);

#endif
