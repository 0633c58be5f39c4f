/* pm_alloc.h - checked allocation: every allocation is checked for overflow and failure, and a
 * failure records PM_ERR_MEMORY naming what was allocated (pm_error.h), so callers write
 * PM_TRY(PM_MALLOC(p, n, "what")).  Large arrays may be placed on huge pages (advice to the
 * kernel only); everything is released with free(). */
#ifndef PMESH_PM_ALLOC_H
#define PMESH_PM_ALLOC_H

#include <stddef.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Allocate n*size bytes (checked for overflow; n == 0 gives a valid 1-byte block).
 *  On failure records PM_ERR_MEMORY naming `what` and returns it (*ptr is NULL, or unchanged for
 *  pm_realloc_).  Not collective. */
PM_EXTERN int pm_malloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line);
PM_EXTERN int pm_calloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line);
PM_EXTERN int pm_realloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line);
#define PM_MALLOC(ptr, n, what) pm_malloc_((void **)&(ptr), (size_t)(n), sizeof(*(ptr)), (what), __FILE__, __LINE__)
#define PM_CALLOC(ptr, n, what) pm_calloc_((void **)&(ptr), (size_t)(n), sizeof(*(ptr)), (what), __FILE__, __LINE__)
#define PM_REALLOC(ptr, n, what) pm_realloc_((void **)&(ptr), (size_t)(n), sizeof(*(ptr)), (what), __FILE__, __LINE__)

#ifdef __cplusplus
}
#endif
#endif
