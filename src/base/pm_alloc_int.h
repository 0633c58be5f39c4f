/* pm_alloc_int.h - the private part of pm_alloc.c: the allocation policy for large memory, and
 * the buffers built on it.
 *
 * Large memory asks the kernel for transparent huge pages (2 MiB, madvise; advice only, ignored
 * where unsupported), because the first touch of each fresh 4 KiB page is expensive on the
 * virtual machines pmesh runs on and large arrays are touched whole:
 *   - arrays (PM_MALLOC, PM_CALLOC, PM_REALLOC) stay malloc's, so they can be realloc'd; from
 *     PM_ALLOC_ARRAY_HUGE bytes on, the 2 MiB-aligned interior of the block is advised;
 *   - buffers that are filled whole and reused (PM_MALLOC_BUFFER, and pm_scratch_t on top of
 *     it) are, from PM_ALLOC_BUFFER_HUGE bytes on, aligned to 2 MiB and rounded up to whole
 *     2 MiB pages, all advised.
 * Everything is released with free(). */
#ifndef PMESH_PM_ALLOC_INT_H
#define PMESH_PM_ALLOC_INT_H

#include <stddef.h>

#include "pmesh/pm_alloc.h"

/* The huge page size asked for, and from how many bytes on an array or a buffer asks. */
#define PM_ALLOC_HUGE_PAGE ((size_t)2 << 20)
#define PM_ALLOC_ARRAY_HUGE ((size_t)4 << 20)
#define PM_ALLOC_BUFFER_HUGE ((size_t)256 << 10)

/** A buffer of n*size bytes that is filled whole, usually more than once (exchange buffers, I/O
 *  rounds): from PM_ALLOC_BUFFER_HUGE bytes on, on whole huge pages (see above); smaller ones
 *  as pm_malloc_.  Not to be realloc'd.  Not collective. */
int pm_malloc_buffer_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line);
#define PM_MALLOC_BUFFER(ptr, n, what) \
  pm_malloc_buffer_((void **)&(ptr), (size_t)(n), sizeof(*(ptr)), (what), __FILE__, __LINE__)

/** A reusable buffer that grows: many uses in a row go through the same memory, which stays
 *  mapped and warm between them.  Start from {NULL, 0}; the owner frees it with
 *  pm_scratch_free.  Its content does not survive a call that grows it. */
typedef struct pm_scratch {
  void *p;
  size_t size;
} pm_scratch_t;

/** At least `bytes` bytes of b in *out (grown at least twofold, and to one huge page at least,
 *  so that it is seldom reallocated).  PM_ERR_MEMORY on failure (b is then empty).  Not
 *  collective. */
int pm_scratch_get_(pm_scratch_t *b, size_t bytes, void **out, const char *file, int line);
#define PM_SCRATCH_GET(b, bytes, ptr) pm_scratch_get_((b), (size_t)(bytes), (void **)&(ptr), __FILE__, __LINE__)

/** Release b's memory; b is empty again (NULL-safe).  Not collective. */
void pm_scratch_free(pm_scratch_t *b);

#endif
