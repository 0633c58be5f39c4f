/* pm_error.c - the recorded error message, its trace, and checked allocation. */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "pmesh/pm_error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

static char pm_msg[2048];
static char pm_where[1024];
static int pm_have_msg;
/* The record is shared by threads (partition writes local files on a second thread): the first
 * error recorded wins, and the updates are serialised. */
static pthread_mutex_t pm_msg_lock = PTHREAD_MUTEX_INITIALIZER;

const char *pm_error_name(int code) {
  switch (code) {
#define PM_ERROR_CASE_(name, value, text)                                                 \
  case value:                                                                             \
    return text;
    PM_ERROR_LIST(PM_ERROR_CASE_)
#undef PM_ERROR_CASE_
  }
  return "unknown error";
}

static const char *pm_basename(const char *file) {
  /* Keep "src/x.c" rather than the absolute build path. */
  const char *s = strstr(file, "/src/");
  if (!s) s = strstr(file, "/tools/");
  if (!s) s = strstr(file, "/tests/");
  return s ? s + 1 : file;
}

int pm_error_set(int code, const char *file, int line, const char *fmt, ...) {
  pthread_mutex_lock(&pm_msg_lock);
  if (!pm_have_msg) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pm_msg, sizeof pm_msg, fmt, ap);
    va_end(ap);
    snprintf(pm_where, sizeof pm_where, "%s:%d", pm_basename(file), line);
    pm_have_msg = 1;
  }
  pthread_mutex_unlock(&pm_msg_lock);
  return code;
}

void pm_error_trace(const char *file, int line) {
  pthread_mutex_lock(&pm_msg_lock);
  size_t len = strlen(pm_where);
  if (len + 64 < sizeof pm_where)
    snprintf(pm_where + len, sizeof pm_where - len, " <- %s:%d", pm_basename(file), line);
  pthread_mutex_unlock(&pm_msg_lock);
}

const char *pm_error_message(void) { return pm_msg; }
const char *pm_error_where(void) { return pm_where; }

void pm_error_prefix(const char *prefix) {
  char tmp[sizeof pm_msg];
  pthread_mutex_lock(&pm_msg_lock);
  snprintf(tmp, sizeof tmp, "%s%s", prefix, pm_msg);
  memcpy(pm_msg, tmp, sizeof pm_msg);
  pthread_mutex_unlock(&pm_msg_lock);
}

void pm_error_clear(void) {
  pthread_mutex_lock(&pm_msg_lock);
  pm_msg[0] = '\0';
  pm_where[0] = '\0';
  pm_have_msg = 0;
  pthread_mutex_unlock(&pm_msg_lock);
}

static int pm_alloc_fail(size_t n, size_t size, const char *what, const char *file, int line) {
  if (size && n > SIZE_MAX / size)
    return pm_error_set(PM_ERR_MEMORY, file, line,
                        "cannot allocate %s: %zu items of %zu bytes overflow the address space",
                        what, n, size);
  return pm_error_set(PM_ERR_MEMORY, file, line, "out of memory allocating %s (%zu x %zu bytes)",
                      what, n, size);
}

/* Large arrays (mesh, graph, local meshes) are filled in a few passes each; with 4 KiB pages,
 * faulting them in was ~17% of partition's time on a 1M-node mesh (and TLB misses slow the
 * passes that index them).  Ask for transparent huge pages on the 2 MiB-aligned interior of
 * allocations of 4 MiB or more, as glibc's glibc.malloc.hugetlb=1 tunable does for all of
 * malloc.  Advice only: it changes no content and is ignored where unsupported. */
static void pm_advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const uintptr_t huge = (uintptr_t)2 << 20;
  if (!p || bytes < ((size_t)4 << 20)) return;
  uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (b > a) (void)madvise((void *)a, (size_t)(b - a), MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

int pm_malloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  *ptr = NULL;
  if (size && n > SIZE_MAX / size) return pm_alloc_fail(n, size, what, file, line);
  size_t bytes = n * size;
  *ptr = malloc(bytes ? bytes : 1);
  if (!*ptr) return pm_alloc_fail(n, size, what, file, line);
  pm_advise_huge(*ptr, bytes);
  return PM_OK;
}

int pm_calloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  *ptr = NULL;
  if (size && n > SIZE_MAX / size) return pm_alloc_fail(n, size, what, file, line);
  *ptr = calloc(n ? n : 1, size ? size : 1);
  if (!*ptr) return pm_alloc_fail(n, size, what, file, line);
  pm_advise_huge(*ptr, n * size); /* pages of a fresh mapping are still untouched */
  return PM_OK;
}

int pm_realloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  if (size && n > SIZE_MAX / size) return pm_alloc_fail(n, size, what, file, line);
  size_t bytes = n * size;
  void *p = realloc(*ptr, bytes ? bytes : 1);
  if (!p) return pm_alloc_fail(n, size, what, file, line); /* *ptr still valid */
  pm_advise_huge(p, bytes);
  *ptr = p;
  return PM_OK;
}
