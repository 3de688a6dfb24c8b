/*
 * Fault-injecting LD_PRELOAD shim for the durability tests (compiled at test
 * time, see faultShim.ts). It wraps the libc calls libuv makes for file I/O
 * (write family, fsync, fdatasync, ftruncate, rename) and, for files whose
 * path contains FAULT_SCOPE, logs each call and can fail or drop the Nth one.
 * libuv runs file I/O on its thread pool, so the state is under a mutex.
 *
 * Control file ($FAULT_CTL), re-read on every call in scope; one line:
 *   <generation> <op> <nth> <errno|DROP> <count> <path-substring>
 * op: write | fsync | ftruncate | rename. Calls of `op` on matching paths are
 * counted from 1 per generation; calls nth .. nth+count-1 fail with errno
 * (count 0: every call from nth on). DROP makes an fsync return 0 unsynced.
 * Log ($FAULT_LOG): one line per call in scope, "<op> <path> <injected>".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long gen = -1, seen = 0;
static int log_fd = -2;

enum { PASS = 0, FAIL = 1, DROP = 2 };

static void path_of_fd(int fd, char *out, size_t size) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, out, size - 1);
  out[n < 0 ? 0 : n] = 0;
}

static int errno_named(const char *name) {
  if (!strcmp(name, "ENOSPC")) return ENOSPC;
  if (!strcmp(name, "EIO")) return EIO;
  if (!strcmp(name, "EDQUOT")) return EDQUOT;
  return EIO;
}

/* Decides the fate of one call; PASS when out of scope. Sets errno for FAIL. */
static int decide(const char *op, const char *path) {
  const char *scope = getenv("FAULT_SCOPE");
  if (!scope || !*scope || !strstr(path, scope)) return PASS;
  int verdict = PASS, err = 0, slow = 0;
  pthread_mutex_lock(&lock);
  const char *ctl = getenv("FAULT_CTL");
  char line[1024] = "";
  if (ctl) {
    int fd = open(ctl, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      ssize_t n = read(fd, line, sizeof line - 1);
      line[n < 0 ? 0 : n] = 0;
      close(fd);
    }
  }
  long g = -1, nth = 0, count = 0;
  char cop[32] = "", cerr[32] = "", pattern[512] = "";
  if (sscanf(line, "%ld %31s %ld %31s %ld %511s", &g, cop, &nth, cerr, &count, pattern) == 6) {
    if (g != gen) {
      gen = g;
      seen = 0;
    }
    if (!strcmp(cop, op) && strstr(path, pattern)) {
      seen++;
      if (seen >= nth && (count == 0 || seen < nth + count)) {
        if (!strcmp(cerr, "DROP")) verdict = DROP;
        else if (!strcmp(cerr, "SLOW_EIO")) { /* fails with EIO after 300 ms: a write held in flight */
          verdict = FAIL;
          err = EIO;
          slow = 1;
        } else {
          verdict = FAIL;
          err = errno_named(cerr);
        }
      }
    }
  }
  const char *logp = getenv("FAULT_LOG");
  if (log_fd == -2) log_fd = logp ? open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600) : -1;
  if (log_fd >= 0) {
    char msg[1200];
    int len = snprintf(msg, sizeof msg, "%s %s %s\n", op, path, verdict == FAIL ? cerr : verdict == DROP ? "DROP" : "-");
    if (len > 0) syscall(SYS_write, log_fd, msg, (size_t)len);
  }
  pthread_mutex_unlock(&lock);
  if (slow) usleep(300000);
  if (verdict == FAIL) errno = err;
  return verdict;
}

static int decide_fd(const char *op, int fd) {
  if (fd <= 2 || fd == log_fd) return PASS;
  const char *scope = getenv("FAULT_SCOPE");
  if (!scope || !*scope) return PASS;
  char path[4096];
  path_of_fd(fd, path, sizeof path);
  return decide(op, path);
}

#define REAL(ret, name, ...) \
  static ret (*real)(__VA_ARGS__); \
  if (!real) real = (ret (*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

ssize_t write(int fd, const void *buf, size_t n) {
  REAL(ssize_t, "write", int, const void *, size_t);
  if (decide_fd("write", fd) == FAIL) return -1;
  return real(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  REAL(ssize_t, "pwrite", int, const void *, size_t, off_t);
  if (decide_fd("write", fd) == FAIL) return -1;
  return real(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off) {
  REAL(ssize_t, "pwrite64", int, const void *, size_t, off_t);
  if (decide_fd("write", fd) == FAIL) return -1;
  return real(fd, buf, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int cnt) {
  REAL(ssize_t, "writev", int, const struct iovec *, int);
  if (decide_fd("write", fd) == FAIL) return -1;
  return real(fd, iov, cnt);
}

ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off) {
  REAL(ssize_t, "pwritev", int, const struct iovec *, int, off_t);
  if (decide_fd("write", fd) == FAIL) return -1;
  return real(fd, iov, cnt, off);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off) {
  REAL(ssize_t, "pwritev64", int, const struct iovec *, int, off_t);
  if (decide_fd("write", fd) == FAIL) return -1;
  return real(fd, iov, cnt, off);
}

int fsync(int fd) {
  REAL(int, "fsync", int);
  int v = decide_fd("fsync", fd);
  if (v == FAIL) return -1;
  if (v == DROP) return 0;
  return real(fd);
}

int fdatasync(int fd) {
  REAL(int, "fdatasync", int);
  int v = decide_fd("fsync", fd);
  if (v == FAIL) return -1;
  if (v == DROP) return 0;
  return real(fd);
}

int ftruncate(int fd, off_t len) {
  REAL(int, "ftruncate", int, off_t);
  if (decide_fd("ftruncate", fd) == FAIL) return -1;
  return real(fd, len);
}

int ftruncate64(int fd, off_t len) {
  REAL(int, "ftruncate64", int, off_t);
  if (decide_fd("ftruncate", fd) == FAIL) return -1;
  return real(fd, len);
}

int rename(const char *from, const char *to) {
  REAL(int, "rename", const char *, const char *);
  char both[8200];
  snprintf(both, sizeof both, "%s>%s", from, to);
  if (decide("rename", both) == FAIL) return -1;
  return real(from, to);
}
