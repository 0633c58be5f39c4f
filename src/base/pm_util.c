/* pm_util.c - sorting, timing and memory helpers. */
#define _POSIX_C_SOURCE 200809L
#include "pm_util.h"

#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "pmesh/pm_error.h"

/* LSD radix sort on (key ^ sign bit) with 16-bit digits, carrying an index payload.  The keys
 * and the payload are sorted in their own arrays with one scratch array each (no copy of the
 * input), and are left untouched if that scratch cannot be allocated. */
static int pm_radix(int64_t *key, int64_t *idx, int64_t n) {
  /* Already in order (common: lists built in ascending order): nothing to do; for an argsort
   * the identity payload is the stable answer. */
  int64_t up = 1;
  while (up < n && key[up - 1] <= key[up]) up++;
  if (up >= n) return PM_OK;
  uint64_t *a = (uint64_t *)key, *b = NULL, *scratch = NULL;
  int64_t *ia = idx, *ib = NULL, *iscratch = NULL;
  int64_t *count = NULL;
  int ierr = PM_OK;
  PM_TRY(PM_MALLOC(scratch, n, "sort keys"));
  if (idx) PM_TRY(PM_MALLOC(iscratch, n, "sort payload"));
  PM_TRY(PM_MALLOC(count, 65536, "sort counts"));
  b = scratch;
  ib = iscratch;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int64_t i = 0; i < n; i++) {
    a[i] = (uint64_t)key[i] ^ (UINT64_C(1) << 63);
    if (a[i] < lo) lo = a[i];
    if (a[i] > hi) hi = a[i];
  }
  for (int shift = 0; shift < 64; shift += 16) {
    if (((lo ^ hi) >> shift) == 0) break; /* all higher digits equal: done */
    memset(count, 0, 65536 * sizeof *count);
    for (int64_t i = 0; i < n; i++) count[(a[i] >> shift) & 0xffff]++;
    int64_t sum = 0;
    for (int d = 0; d < 65536; d++) {
      int64_t c = count[d];
      count[d] = sum;
      sum += c;
    }
    for (int64_t i = 0; i < n; i++) {
      int64_t p = count[(a[i] >> shift) & 0xffff]++;
      b[p] = a[i];
      if (idx) ib[p] = ia[i];
    }
    uint64_t *t = a;
    a = b;
    b = t;
    if (idx) {
      int64_t *u = ia;
      ia = ib;
      ib = u;
    }
  }
  for (int64_t i = 0; i < n; i++) key[i] = (int64_t)(a[i] ^ (UINT64_C(1) << 63));
  if (idx && ia != idx) memcpy(idx, ia, (size_t)n * sizeof *idx);
cleanup:
  free(scratch);
  free(iscratch);
  free(count);
  return ierr;
}

int pm_sort_pairs_i64(int64_t *key, int64_t *idx, int64_t n) {
  return pm_radix(key, idx, n);
}

int pm_sort_i64(int64_t *v, int64_t n) {
  return pm_radix(v, NULL, n);
}

int pm_argsort_i64(const int64_t *key, int64_t n, int64_t *perm) {
  int64_t *k = NULL;
  PM_CALL(PM_MALLOC(k, n, "sort keys"));
  memcpy(k, key, (size_t)n * sizeof *k);
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  int ierr = pm_radix(k, perm, n); /* LSD radix sort is stable: ties keep index order */
  free(k);
  return ierr;
}

int64_t pm_unique_i64(int64_t *v, int64_t n) {
  if (n == 0) return 0;
  int64_t m = 1;
  for (int64_t i = 1; i < n; i++)
    if (v[i] != v[m - 1]) v[m++] = v[i];
  return m;
}

double pm_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t pm_peak_rss(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return (int64_t)ru.ru_maxrss * 1024; /* Linux: kilobytes */
}

void pm_release_free_memory(void) {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

int pm_strdup(const char *s, char **out) {
  size_t n = strlen(s);
  PM_CALL(PM_MALLOC(*out, n + 1, "string"));
  memcpy(*out, s, n + 1);
  return PM_OK;
}
