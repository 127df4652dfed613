/* The tuner's two steps: parallel compiles (one gemmc_context per worker thread, through the kernel cache, with the driver's JIT) and event timing of launches. */
#include "gemmc/tune.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static gemmc_status status_of(gemmc_status_code code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static gemmc_status status_of(gemmc_status_code code, const char *fmt, ...) {
  gemmc_status s;
  s.code = code;
  s.driver_error = 0;
  s.message[0] = 0;
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s.message, sizeof s.message, fmt, ap);
    va_end(ap);
  }
  return s;
}

/* The work list the threads share: the next source to take, under the lock. */
typedef struct compile_work {
  pthread_mutex_t lock;
  int next, n;
  gemmc_runtime *rt;
  gemmc_cache *cache;
  int driver_version;
  const gemmc_tune_source *sources;
  gemmc_tune_compiled *out;
  FILE *progress;
} compile_work;

/* The first `lines` lines of text, for one-line error reports. */
static void first_lines(const char *text, int lines, char *out, size_t n) {
  size_t len = 0;
  const char *p = text;
  for (int i = 0; i < lines && *p; i++) {
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : p + strlen(p);
  }
  len = (size_t)(p - text);
  while (len && text[len - 1] == '\n') len--;
  if (len >= n) len = n - 1;
  memcpy(out, text, len);
  out[len] = 0;
}

static void compile_one(compile_work *w, int i) {
  const gemmc_tune_source *src = &w->sources[i];
  gemmc_tune_compiled *r = &w->out[i];
  double start = now_ms();
  bool ok = gemmc_cache_compile(w->cache, src->text, src->len, src->filename, &src->options, w->driver_version, &r->image);
  r->compile_ms = now_ms() - start;
  r->cache_hit = ok && gemmc_kernel_image_from_cache(r->image);
  if (!ok) {
    first_lines(r->image ? gemmc_kernel_image_diagnostics(r->image) : "out of memory", 3, r->error, sizeof r->error);
  } else if (w->rt) {
    start = now_ms();
    bool had_cubin = gemmc_kernel_image_cubin(r->image, NULL) != NULL;
    gemmc_status st = gemmc_cache_jit(w->rt, w->cache, r->image);
    r->jit_ms = had_cubin ? 0 : now_ms() - start;
    if (st.code != GEMMC_OK) {
      ok = false;
      first_lines(st.message, 3, r->error, sizeof r->error);
    }
  }
  r->ok = ok;
  if (w->progress) {
    pthread_mutex_lock(&w->lock);
    if (ok)
      fprintf(w->progress, "%s: %s %.1f ms%s\n", src->label ? src->label : "kernel",
              r->cache_hit ? "from the cache in" : "compiled in", r->compile_ms + r->jit_ms,
              r->jit_ms > 0 ? " (with the driver's JIT)" : "");
    else
      fprintf(w->progress, "%s: failed: %s\n", src->label ? src->label : "kernel", r->error);
    fflush(w->progress);
    pthread_mutex_unlock(&w->lock);
  }
}

static void *compile_worker(void *arg) {
  compile_work *w = arg;
  if (w->rt) gemmc_runtime_make_current(w->rt); /* the JIT needs the context on this thread */
  for (;;) {
    pthread_mutex_lock(&w->lock);
    int i = w->next < w->n ? w->next++ : -1;
    pthread_mutex_unlock(&w->lock);
    if (i < 0) break;
    compile_one(w, i);
  }
  return NULL;
}

gemmc_status gemmc_tune_compile(gemmc_runtime *rt, gemmc_cache *cache, int driver_version,
                                const gemmc_tune_source *sources, int n, int threads, FILE *progress,
                                gemmc_tune_compiled *out, double *wall_ms) {
  double start = now_ms();
  if (wall_ms) *wall_ms = 0;
  if (n < 0 || (n && (!sources || !out))) return status_of(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_tune_compile: no sources or results");
  memset(out, 0, (size_t)n * sizeof *out);
  if (threads <= 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    threads = cpus > 0 ? (int)cpus : 1;
  }
  if (threads > n) threads = n;
  compile_work w = {PTHREAD_MUTEX_INITIALIZER, 0, n, rt, cache, driver_version, sources, out, progress};
  pthread_t *ids = threads > 1 ? calloc((size_t)threads, sizeof *ids) : NULL;
  int started = 0;
  for (int t = 0; ids && t < threads; t++)
    if (pthread_create(&ids[started], NULL, compile_worker, &w) == 0) started++;
  /* This thread works too (and alone when no thread could start). */
  compile_worker(&w);
  for (int t = 0; t < started; t++) pthread_join(ids[t], NULL);
  free(ids);
  pthread_mutex_destroy(&w.lock);
  if (rt) gemmc_runtime_make_current(rt);
  if (wall_ms) *wall_ms = now_ms() - start;
  return status_of(GEMMC_OK, NULL);
}

static int compare_doubles(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

/* What both timers share: two events, the per-sample times, the launch count and the last error. */
typedef struct timer {
  gemmc_runtime *rt;
  gemmc_runtime_event *ev0, *ev1;
  double *per;
  int index;
  char err[512];
} timer;

/* Events, room for `samples` times, then `warmup` untimed launches. */
static gemmc_status timer_open(timer *t, gemmc_runtime *rt, gemmc_tune_launch_fn fn, void *user, int warmup, int samples) {
  memset(t, 0, sizeof *t);
  t->rt = rt;
  gemmc_status st = gemmc_runtime_event_create(rt, &t->ev0);
  if (st.code == GEMMC_OK) st = gemmc_runtime_event_create(rt, &t->ev1);
  t->per = calloc((size_t)samples, sizeof *t->per);
  if (!t->per && st.code == GEMMC_OK) st = status_of(GEMMC_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
  for (int i = 0; st.code == GEMMC_OK && i < warmup; i++)
    if (!fn(user, t->index++, t->err, sizeof t->err)) st = status_of(GEMMC_ERROR_DRIVER, "launch failed: %s", t->err);
  return st;
}

/* n launches between the two events on `stream`, waited for; their time in *ms. */
static gemmc_status timer_run(timer *t, gemmc_runtime_stream *stream, gemmc_tune_launch_fn fn, void *user, int n, float *ms) {
  *ms = 0;
  gemmc_status st = gemmc_runtime_event_record(t->rt, t->ev0, stream);
  for (int i = 0; st.code == GEMMC_OK && i < n; i++)
    if (!fn(user, t->index++, t->err, sizeof t->err)) st = status_of(GEMMC_ERROR_DRIVER, "launch failed: %s", t->err);
  if (st.code == GEMMC_OK) st = gemmc_runtime_event_record(t->rt, t->ev1, stream);
  if (st.code == GEMMC_OK) st = gemmc_runtime_event_synchronize(t->rt, t->ev1);
  if (st.code == GEMMC_OK) st = gemmc_runtime_event_elapsed_ms(t->rt, t->ev0, t->ev1, ms);
  return st;
}

/* The median and minimum of the samples (sorted in place) into out, then everything freed. */
static gemmc_status timer_close(timer *t, gemmc_status st, int samples, int launches_per_sample, gemmc_tune_timing *out) {
  if (st.code == GEMMC_OK) {
    double *per = t->per;
    qsort(per, (size_t)samples, sizeof *per, compare_doubles);
    out->median_ms = samples % 2 ? per[samples / 2] : 0.5 * (per[samples / 2 - 1] + per[samples / 2]);
    out->min_ms = per[0];
    out->samples = samples;
    out->launches_per_sample = launches_per_sample;
  }
  free(t->per);
  if (t->ev0) gemmc_runtime_event_destroy(t->rt, t->ev0);
  if (t->ev1) gemmc_runtime_event_destroy(t->rt, t->ev1);
  return st;
}

gemmc_status gemmc_tune_time_cold(gemmc_runtime *rt, gemmc_runtime_stream *stream, gemmc_tune_launch_fn fn,
                                  void *user, int warmup, int samples, size_t flush_bytes, gemmc_tune_timing *out) {
  memset(out, 0, sizeof *out);
  if (!rt || !fn || samples <= 0 || !flush_bytes)
    return status_of(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_tune_time_cold: no runtime, launch, samples or scratch size");
  gemmc_devptr scratch = 0;
  gemmc_status st = gemmc_runtime_mem_alloc(rt, flush_bytes, &scratch);
  if (st.code != GEMMC_OK) return st;
  timer t;
  st = timer_open(&t, rt, fn, user, warmup, samples);
  for (int s = 0; st.code == GEMMC_OK && s < samples; s++) {
    /* The memset goes to the default stream, which `stream` need not wait for: the whole
     * context finishes it before the timed launch. */
    st = gemmc_runtime_memset_d8(rt, scratch, (uint8_t)s, flush_bytes);
    if (st.code == GEMMC_OK) st = gemmc_runtime_synchronize(rt);
    float ms = 0;
    if (st.code == GEMMC_OK) st = timer_run(&t, stream, fn, user, 1, &ms);
    if (st.code == GEMMC_OK) t.per[s] = ms;
  }
  st = timer_close(&t, st, samples, 1, out);
  gemmc_runtime_mem_free(rt, scratch);
  return st;
}

gemmc_status gemmc_tune_time(gemmc_runtime *rt, gemmc_runtime_stream *stream, gemmc_tune_launch_fn fn, void *user,
                             int warmup, int samples, double min_sample_ms, gemmc_tune_timing *out) {
  memset(out, 0, sizeof *out);
  if (!rt || !fn || samples <= 0) return status_of(GEMMC_ERROR_INVALID_ARGUMENT, "gemmc_tune_time: no runtime, launch or samples");
  timer t;
  gemmc_status st = timer_open(&t, rt, fn, user, warmup, samples);
  /* One timed launch sizes the samples. */
  float ms = 0;
  if (st.code == GEMMC_OK) st = timer_run(&t, stream, fn, user, 1, &ms);
  int n = ms > 0 ? (int)(min_sample_ms / ms) + 1 : 20;
  if (n > 1000) n = 1000;
  for (int s = 0; st.code == GEMMC_OK && s < samples; s++) {
    st = timer_run(&t, stream, fn, user, n, &ms);
    if (st.code == GEMMC_OK) t.per[s] = ms / n;
  }
  return timer_close(&t, st, samples, n, out);
}
