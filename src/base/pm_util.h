/* pm_util.h - private helpers shared by pmesh's modules: sorting, timing, memory, strings. */
#ifndef PMESH_PM_UTIL_H
#define PMESH_PM_UTIL_H

#include <stddef.h>
#include <stdint.h>

/** Sort int64 values ascending (radix sort, linear time). */
int pm_sort_i64(int64_t *v, int64_t n);
/** Stable order of keys: perm[i] = index of the i-th smallest key (ties by index). */
int pm_argsort_i64(const int64_t *key, int64_t n, int64_t *perm);
/** Sort keys ascending and carry idx along, stably (ties keep their order); on failure (no
 *  memory for the scratch) both arrays are unchanged. */
int pm_sort_pairs_i64(int64_t *key, int64_t *idx, int64_t n);
/** Remove adjacent duplicates of a sorted array; returns the new length. */
int64_t pm_unique_i64(int64_t *v, int64_t n);
/** Wall-clock seconds (monotonic). */
double pm_wtime(void);
/** Peak resident set size of this process so far, in bytes (0 if unknown). */
int64_t pm_peak_rss(void);
/** Hand the pages the allocator holds free back to the system (glibc's malloc_trim; nothing
 *  elsewhere): between the stages of a run, so that one stage's freed temporaries do not stay in
 *  the next stage's peak. */
void pm_release_free_memory(void);
/** Duplicate a string (PM_ERR_MEMORY on failure). */
int pm_strdup(const char *s, char **out);

#endif
