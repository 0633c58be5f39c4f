/* pm_exact_int.h - the private part of pm_exact.c: the fast front end of pm_exact for long fused loops (CG's dot
 * products).
 *
 * One bin per sign and biased exponent (4096) holds the sum of the significands (53-bit integers)
 * of the doubles that fell in it, as a 128-bit integer: adding a term is a few integer
 * instructions and an add-with-carry into a bin that stays in L1, no shifts by the exponent, and
 * 2^75 terms fit before a bin could overflow, so there is no count to keep.  Flushing folds
 * every bin into a pm_exact_t (at its exponent's place) and clears it; it scans all bins (64 KB)
 * rather than have every addition record which it touched (a store per term, which cost more
 * than the scans on CG's long sweeps).  The high words change only on a carry: a branch, not a
 * store, per term.  A loop keeps several
 * accumulators (lanes) when consecutive terms may hit the same bin, so the read-modify-writes of
 * one bin do not form a chain.  Zeros, subnormals, infinities and NaNs take a slower path. */
#ifndef PMESH_PM_EXACT_INT_H
#define PMESH_PM_EXACT_INT_H

#include <stdint.h>
#include <string.h>

#include "pmesh/pm_exact.h"

typedef struct pm_exact_acc {
  int64_t special;             /* as pm_exact_t.special */
  uint64_t lo[4096], hi[4096]; /* [sign << 11 | biased exponent]: low and high word of the sum */
} pm_exact_acc_t;

/** A zeroed accumulator; PM_ERR_MEMORY (recorded) on failure.  Not collective. */
int pm_exact_acc_create(pm_exact_acc_t **acc);
/** Free; NULL-safe, sets *acc to NULL.  Not collective. */
void pm_exact_acc_destroy(pm_exact_acc_t **acc);
/** s += acc exactly, then acc = 0.  Not collective. */
void pm_exact_acc_flush(pm_exact_acc_t *acc, pm_exact_t *s);
/** The slow path of pm_exact_acc_add: a zero, a subnormal, an infinity or a NaN (its bits). */
void pm_exact_acc_special(pm_exact_acc_t *acc, uint64_t bits);

/** acc += x.  Not collective. */
static inline void pm_exact_acc_add(pm_exact_acc_t *restrict acc, double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  uint64_t k = u >> 52, e = k & 0x7FF;
  if (e - 1 >= 0x7FE) { /* e == 0 or e == 0x7FF */
    if (u << 1) pm_exact_acc_special(acc, u);
    return;
  }
  uint64_t m = (u & 0xFFFFFFFFFFFFFull) | 0x10000000000000ull;
  uint64_t lo = acc->lo[k] + m;
  acc->lo[k] = lo;
  if (lo < m) acc->hi[k]++;
}

#endif
