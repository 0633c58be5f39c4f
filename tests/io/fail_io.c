/* fail_io.c - fault injection for the h5_faults test: an LD_PRELOAD library that makes pwrite or
 * pread fail on one MPI rank (or all), from its Nth call on a file whose name contains ".h5".
 * That is where HDF5 and ROMIO do their I/O, and a full disk or a bad block fails that way.
 * Likewise fsync on a file whose name contains ".xmf" (pm_h5 syncs the XDMF before renaming
 * it; stdio's own writes go to libc's internal write, which no preload can replace), and
 * rename from a name containing ".tmp." (putting a result in place).
 *
 *   PMESH_FAULT_OP    pwrite (fails with ENOSPC), pread, fsync or rename (fail with EIO)
 *   PMESH_FAULT_RANK  the rank (PMI_RANK, set by MPICH's mpiexec) whose calls fail, or "all"
 *   PMESH_FAULT_AT    N >= 1: the Nth call and every later one fail (a full disk stays full)
 *   PMESH_FAULT_COUNT a path: at a normal exit, append "RANK PWRITES PREADS FSYNCS RENAMES" (how many
 *                     calls a run makes, so that the test can fail each one in turn)
 *   PMESH_FAULT_SITES a path: append "RANK OP N SITE" for each counted call, SITE being the return
 *                     addresses of the call's frames in pmesh and the program (object+offset,
 *                     the same in every run): which path of pmesh's code the Nth call comes from.
 *                     Calls with the same SITE reach pmesh through the same HDF5 call and the
 *                     same error handling, so the test fails the first call of each SITE.
 * Built without sanitizers; load it only into the MPI processes (mpiexec -genv LD_PRELOAD). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PWRITE, PREAD, FSYNC, RENAME, NOPS };
static const char *const names[NOPS] = {"pwrite", "pread", "fsync", "rename"};
static long calls[NOPS]; /* the calls each op counts (see fails) */

/* Whether fd's file name contains part. */
static int fd_is(int fd, const char *part) {
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  return strstr(path, part) != NULL;
}

/* Appends "RANK OP K SITE" to PMESH_FAULT_SITES: the frames of the backtrace in the program and
 * in libpmesh (not in HDF5, MPI, libc or this library), each as object+offset.  One write() of a
 * line shorter than PIPE_BUF, so that the lines of several ranks do not mix. */
static void record_site(int op, long k) {
  const char *path = getenv("PMESH_FAULT_SITES"), *me = getenv("PMI_RANK");
  if (!path) return;
  void *frames[128];
  int n = backtrace(frames, 128);
  Dl_info self;
  if (!dladdr(calls, &self)) return;
  char line[4000];
  int len = snprintf(line, sizeof line, "%s %s %ld", me ? me : "-1", names[op], k);
  for (int i = 1; i < n && len < (int)sizeof line - 100; i++) {
    Dl_info d;
    if (!dladdr(frames[i], &d) || !d.dli_fname || d.dli_fbase == self.dli_fbase) continue;
    const char *base = strrchr(d.dli_fname, '/');
    base = base ? base + 1 : d.dli_fname;
    if (strncmp(base, "libpmesh", 8) != 0 && (strncmp(base, "lib", 3) == 0 || strncmp(base, "ld-", 3) == 0)) continue;
    len += snprintf(line + len, sizeof line - (size_t)len, " %s+%lx", base,
                    (unsigned long)((char *)frames[i] - (char *)d.dli_fbase));
  }
  len += snprintf(line + len, sizeof line - (size_t)len, "\n");
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)len) < 0) { /* a missing line shows as a missing site */
  }
  close(fd);
}

/* Whether this call of op, which counts (it concerns the files op is about), fails. */
static int fails(int op, int counts) {
  if (!counts) return 0;
  long k = ++calls[op];
  record_site(op, k);
  const char *want = getenv("PMESH_FAULT_OP"), *r = getenv("PMESH_FAULT_RANK"), *at = getenv("PMESH_FAULT_AT");
  const char *me = getenv("PMI_RANK");
  if (!want || !r || !at || strcmp(want, names[op]) != 0) return 0;
  if (strcmp(r, "all") != 0 && (!me || atoi(r) != atoi(me))) return 0;
  return k >= atol(at);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) {
  static ssize_t (*real)(int, const void *, size_t, off_t);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "pwrite");
  if (fails(PWRITE, fd_is(fd, ".h5"))) {
    errno = ENOSPC;
    return -1;
  }
  return real(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off) {
  static ssize_t (*real)(int, void *, size_t, off_t);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "pread");
  if (fails(PREAD, fd_is(fd, ".h5"))) {
    errno = EIO;
    return -1;
  }
  return real(fd, buf, n, off);
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "fsync");
  if (fails(FSYNC, fd_is(fd, ".xmf"))) {
    errno = EIO;
    return -1;
  }
  return real(fd);
}

int rename(const char *from, const char *to) {
  static int (*real)(const char *, const char *);
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "rename");
  if (fails(RENAME, strstr(from, ".tmp.") != NULL)) {
    errno = EIO;
    return -1;
  }
  return real(from, to);
}

__attribute__((destructor)) static void report(void) {
  const char *path = getenv("PMESH_FAULT_COUNT"), *me = getenv("PMI_RANK");
  if (!path) return;
  FILE *fp = fopen(path, "a");
  if (!fp) return;
  fprintf(fp, "%s %ld %ld %ld %ld\n", me ? me : "-1", calls[PWRITE], calls[PREAD], calls[FSYNC], calls[RENAME]);
  fclose(fp);
}
