/* pm_alloc.c - checked allocation and the huge-page policy for large memory (see pm_alloc.h). */
#define _POSIX_C_SOURCE 200809L /* posix_memalign */
#define _DEFAULT_SOURCE         /* madvise, MADV_HUGEPAGE */
#include "pmesh/pm_alloc.h"

#include <stdint.h>
#include <stdlib.h>

#include "pm_alloc_int.h"
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "pmesh/pm_error.h"

static int alloc_fail(size_t n, size_t size, const char *what, const char *file, int line) {
  if (size && n > SIZE_MAX / size)
    return pm_error_set(PM_ERR_MEMORY, file, line,
                        "cannot allocate %s: %zu items of %zu bytes overflow the address space", what, n, size);
  return pm_error_set(PM_ERR_MEMORY, file, line, "out of memory allocating %s (%zu x %zu bytes)", what, n, size);
}

/* Advise huge pages for [p, p + bytes); advice only, it changes no content. */
static void advise_huge(void *p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  (void)madvise(p, bytes, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

/* An array's 2 MiB-aligned interior: the block itself stays malloc's (realloc-able), as glibc's
 * glibc.malloc.hugetlb=1 tunable does for all of malloc. */
static void advise_array(void *p, size_t bytes) {
  const uintptr_t huge = (uintptr_t)PM_ALLOC_HUGE_PAGE;
  if (!p || bytes < PM_ALLOC_ARRAY_HUGE) return;
  uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), b = ((uintptr_t)p + bytes) & ~(huge - 1);
  if (b > a) advise_huge((void *)a, (size_t)(b - a));
}

int pm_malloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  *ptr = NULL;
  if (size && n > SIZE_MAX / size) return alloc_fail(n, size, what, file, line);
  size_t bytes = n * size;
  *ptr = malloc(bytes ? bytes : 1);
  if (!*ptr) return alloc_fail(n, size, what, file, line);
  advise_array(*ptr, bytes);
  return PM_OK;
}

int pm_calloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  *ptr = NULL;
  if (size && n > SIZE_MAX / size) return alloc_fail(n, size, what, file, line);
  *ptr = calloc(n ? n : 1, size ? size : 1);
  if (!*ptr) return alloc_fail(n, size, what, file, line);
  advise_array(*ptr, n * size); /* pages of a fresh mapping are still untouched */
  return PM_OK;
}

int pm_realloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  if (size && n > SIZE_MAX / size) return alloc_fail(n, size, what, file, line);
  size_t bytes = n * size;
  void *p = realloc(*ptr, bytes ? bytes : 1);
  if (!p) return alloc_fail(n, size, what, file, line); /* *ptr still valid */
  advise_array(p, bytes);
  *ptr = p;
  return PM_OK;
}

int pm_malloc_buffer_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  const size_t huge = PM_ALLOC_HUGE_PAGE;
  *ptr = NULL;
  if (size && n > SIZE_MAX / size) return pm_malloc_(ptr, n, size, what, file, line); /* reports */
  size_t bytes = n * size;
  if (bytes < PM_ALLOC_BUFFER_HUGE) return pm_malloc_(ptr, n, size, what, file, line);
  bytes = (bytes + huge - 1) / huge * huge;
  if (posix_memalign(ptr, huge, bytes) != 0) {
    *ptr = NULL;
    return pm_malloc_(ptr, n, size, what, file, line); /* unaligned, or the error */
  }
  advise_huge(*ptr, bytes);
  return PM_OK;
}

int pm_scratch_get_(pm_scratch_t *b, size_t bytes, void **out, const char *file, int line) {
  if (bytes > b->size || !b->p) {
    size_t want = bytes > 2 * b->size ? bytes : 2 * b->size;
    if (want < PM_ALLOC_HUGE_PAGE) want = PM_ALLOC_HUGE_PAGE;
    pm_scratch_free(b);
    int ierr = pm_malloc_buffer_(&b->p, want, 1, "scratch buffer", file, line);
    if (ierr) return ierr;
    b->size = want;
  }
  *out = b->p;
  return PM_OK;
}

void pm_scratch_free(pm_scratch_t *b) {
  if (!b) return;
  free(b->p);
  b->p = NULL;
  b->size = 0;
}
