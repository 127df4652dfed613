/* gemmc_matmul's tuning results: shape classes and the per-device file of winners (one appended line per tuned class). */
#include "matmul_tune.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void mm_tuning_db_init(mm_tuning_db *db, const char *cache_dir, const gemmc_device_info *dev) {
  memset(db, 0, sizeof *db);
  if (!cache_dir) return;
  char device[96];
  size_t n = 0;
  for (const char *p = dev->name; *p && n + 1 < sizeof device; p++) {
    char c = *p;
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
    device[n++] = plain ? c : '_';
  }
  device[n] = 0;
  char dir[4200], path[4400];
  snprintf(dir, sizeof dir, "%s/tuning", cache_dir);
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) return;
  snprintf(path, sizeof path, "%s/%s-sm%d%d-%dsm-drv%d-gemmc%s.tsv", dir, device, dev->compute_capability_major,
           dev->compute_capability_minor, dev->multiprocessor_count, dev->driver_version, gemmc_version());
  db->path = strdup(path);
}

void mm_tuning_db_free(mm_tuning_db *db) {
  free(db->path);
  free(db->items);
  memset(db, 0, sizeof *db);
}

static int64_t pow2_bucket(int64_t v) {
  if (v <= 1) return 1;
  return (int64_t)1 << (int)lround(log2((double)v));
}

void mm_shape_class(const mm_problem *p, uint64_t div, uint32_t unit, bool batch_invariant, char *out, size_t n) {
  char nbucket[32];
  if (batch_invariant) snprintf(nbucket, sizeof nbucket, "any");
  else snprintf(nbucket, sizeof nbucket, "%lld", (long long)pow2_bucket(p->N));
  snprintf(out, n, "%s%s.%s.%s%s.e%d%d%d%d.d%llx.u%x.M%lld.N%s.K%lld.B%lld", batch_invariant ? "bi." : "", mm_dtype_ir(p->at),
           mm_dtype_ir(p->out), p->acc == MM_ACC_I32 ? "i32" : p->acc == MM_ACC_F16 ? "f16" : "f32", p->tf32 ? ".tf32" : "",
           p->has_alpha, p->has_c, p->has_bias, (int)p->act, (unsigned long long)div, unit, (long long)pow2_bucket(p->M), nbucket,
           (long long)pow2_bucket(p->K), (long long)pow2_bucket(p->batch));
}

static void remember(mm_tuning_db *db, const char *cls, int config, int split) {
  for (int i = 0; i < db->count; i++)
    if (!strcmp(db->items[i].cls, cls)) {
      db->items[i].config = config;
      db->items[i].split = split;
      return;
    }
  if (db->count == db->cap) {
    int cap = db->cap ? db->cap * 2 : 32;
    mm_tuned *grown = realloc(db->items, (size_t)cap * sizeof *grown);
    if (!grown) return;
    db->items = grown;
    db->cap = cap;
  }
  mm_tuned *t = &db->items[db->count++];
  snprintf(t->cls, sizeof t->cls, "%s", cls);
  t->config = config;
  t->split = split;
}

/* Lines "class<TAB>config name<TAB>split<TAB>ms"; unknown config names (an older table) are skipped. */
static void load(mm_tuning_db *db) {
  db->loaded = true;
  if (!db->path) return;
  FILE *f = fopen(db->path, "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    char cls[192], name[96];
    int split = 1;
    if (sscanf(line, "%191[^\t]\t%95[^\t]\t%d", cls, name, &split) != 3) continue;
    int config = mm_config_find(name);
    if (config >= 0 && split >= 1) remember(db, cls, config, split);
  }
  fclose(f);
}

bool mm_tuning_db_lookup(mm_tuning_db *db, const char *cls, int *config, int *split) {
  if (!db->loaded) load(db);
  for (int i = 0; i < db->count; i++)
    if (!strcmp(db->items[i].cls, cls)) {
      *config = db->items[i].config;
      *split = db->items[i].split;
      return true;
    }
  return false;
}

void mm_tuning_db_store(mm_tuning_db *db, const char *cls, int config, int split, double ms) {
  if (!db->loaded) load(db);
  remember(db, cls, config, split);
  if (!db->path) return;
  char line[512];
  int n = snprintf(line, sizeof line, "%s\t%s\t%d\t%.5f\n", cls, matmul_configs[config].name, split, ms);
  if (n <= 0 || n >= (int)sizeof line) return;
  /* One write of one short line with O_APPEND: lines of concurrent tuners never interleave. */
  int fd = open(db->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  ssize_t written = write(fd, line, (size_t)n);
  (void)written;
  close(fd);
}
