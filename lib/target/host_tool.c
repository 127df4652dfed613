/* Running the host tools a target needs (ptxas, ld.lld): finding them, temporary files, posix_spawn with captured output. */
#include "target.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ; /* for posix_spawn: tools inherit our environment */

/* Output kept from a tool: enough for ptxas -v on many kernels or a screenful of errors. */
#define TOOL_OUTPUT_MAX (1u << 20)

static bool is_executable_file(const char *path) {
  struct stat st;
  return access(path, X_OK) == 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool target_find_tool(const char *name, const char *const *fallbacks, char *path_out, size_t path_len) {
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/local/bin:/usr/bin:/bin";
  char candidate[4096];
  while (*path) {
    const char *end = strchr(path, ':');
    size_t dir_len = end ? (size_t)(end - path) : strlen(path);
    /* An empty PATH entry means the current directory. */
    int n = dir_len ? snprintf(candidate, sizeof candidate, "%.*s/%s", (int)dir_len, path, name)
                    : snprintf(candidate, sizeof candidate, "./%s", name);
    if (n > 0 && (size_t)n < sizeof candidate && is_executable_file(candidate)) {
      if (path_out && path_len)
        snprintf(path_out, path_len, "%s", candidate);
      return true;
    }
    path += dir_len;
    if (*path == ':')
      path++;
  }
  for (size_t i = 0; fallbacks && fallbacks[i]; i++) {
    if (is_executable_file(fallbacks[i])) {
      if (path_out && path_len)
        snprintf(path_out, path_len, "%s", fallbacks[i]);
      return true;
    }
  }
  return false;
}

bool target_write_temp_file(const void *data, size_t len, const char *suffix, char *path_out,
                            size_t path_len, char *err, size_t errlen) {
  const char *dir = getenv("TMPDIR");
  if (!dir || !*dir)
    dir = "/tmp";
  int n = snprintf(path_out, path_len, "%s/gemmc-XXXXXX%s", dir, suffix);
  if (n < 0 || (size_t)n >= path_len)
    return target_fail(err, errlen, "temporary directory path too long: %s", dir);
  int fd = mkstemps(path_out, (int)strlen(suffix));
  if (fd < 0)
    return target_fail(err, errlen, "cannot create a temporary file in %s: %s", dir, strerror(errno));
  const char *bytes = data;
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, bytes + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      int saved = errno;
      close(fd);
      unlink(path_out);
      return target_fail(err, errlen, "cannot write %s: %s", path_out, strerror(saved));
    }
    done += (size_t)w;
  }
  if (close(fd) != 0) {
    unlink(path_out);
    return target_fail(err, errlen, "cannot write %s: %s", path_out, strerror(errno));
  }
  return true;
}

bool target_read_file(const char *path, size_t max_bytes, void **data_out, size_t *len_out,
                      char *err, size_t errlen) {
  *data_out = NULL;
  *len_out = 0;
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return target_fail(err, errlen, "cannot open %s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max_bytes) {
    close(fd);
    return target_fail(err, errlen, "%s is not a regular file of at most %zu bytes", path, max_bytes);
  }
  size_t size = (size_t)st.st_size;
  char *buf = malloc(size ? size : 1);
  if (!buf) {
    close(fd);
    return target_fail(err, errlen, "out of memory reading %s (%zu bytes)", path, size);
  }
  size_t done = 0;
  while (done < size) {
    ssize_t r = read(fd, buf + done, size - done);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    done += (size_t)r;
  }
  close(fd);
  if (done != size) {
    free(buf);
    return target_fail(err, errlen, "cannot read %s", path);
  }
  *data_out = buf;
  *len_out = size;
  return true;
}

bool target_spawn_and_capture(char *const argv[], char **output, int *exit_status, char *err,
                              size_t errlen) {
  int fds[2];
  if (pipe(fds) != 0)
    return target_fail(err, errlen, "pipe: %s", strerror(errno));
  /* Close-on-exec so that only the dup2'ed copies reach the child (pipe2 is GNU-only). */
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return target_fail(err, errlen, "cannot run %s: %s", argv[0], strerror(rc));
  }

  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  bool out_of_memory = buf == NULL;
  for (;;) {
    char chunk[4096];
    ssize_t r = read(fds[0], chunk, sizeof chunk);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break;
    /* Keep reading past the cap (dropping the rest) so the child never blocks on a full pipe. */
    if (out_of_memory || len + (size_t)r + 1 > TOOL_OUTPUT_MAX)
      continue;
    if (len + (size_t)r + 1 > cap) {
      size_t new_cap = cap;
      while (len + (size_t)r + 1 > new_cap)
        new_cap *= 2;
      char *grown = realloc(buf, new_cap);
      if (!grown) {
        out_of_memory = true;
        continue;
      }
      buf = grown;
      cap = new_cap;
    }
    memcpy(buf + len, chunk, (size_t)r);
    len += (size_t)r;
  }
  close(fds[0]);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      free(buf);
      return target_fail(err, errlen, "waitpid: %s", strerror(errno));
    }
  }
  if (out_of_memory) {
    free(buf);
    return target_fail(err, errlen, "out of memory reading the output of %s", argv[0]);
  }
  buf[len] = '\0';
  *output = buf;
  *exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return true;
}
