/* pm_exact.h - exact sums of doubles, independent of the order of the terms and of how they are
 * split between ranks, rounded once (correctly, to nearest even) at the end.
 *
 * A pm_exact_t is a fixed-point number wide enough for any sum of doubles: every double is a
 * multiple of 2^-1074 below 2^1024, so 2098 bits plus carry room hold any sum of them exactly.
 * It is kept as PM_EXACT_CHUNKS signed 64-bit chunks of 32 bits each (the upper half of a chunk
 * absorbs carries, so an addition touches at most three chunks and never propagates).  An
 * integer sum is associative, so the partial sums of any partition, added in any order (an
 * MPI reduction tree included), give the same number, and so the same rounded double.
 * Infinities and NaNs are remembered apart: a sum holding one is +-Inf or NaN as in IEEE.
 *
 *   pm_exact_t s;  pm_exact_zero(&s);
 *   for (i = 0; i < n; i++) pm_exact_add(&s, x[i] * y[i]);   // products rounded, sum exact
 *   pm_exact_allreduce(&s, 1, comm);
 *   double dot = pm_exact_value(&s);                          // the same on any rank count
 *
 * Open struct so it can live on the stack; its members are private (use the functions). */
#ifndef PMESH_PM_EXACT_H
#define PMESH_PM_EXACT_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Chunk k weighs 2^(32 k - 1074); 68 chunks of value bits reach 2^1102 (the last double bit is
 * at 2^1023), the top chunk holds the sign and what is above. */
enum { PM_EXACT_CHUNKS = 70 };

typedef struct pm_exact {
  int64_t c[PM_EXACT_CHUNKS]; /* the value, sum of c[k] 2^(32 k - 1074) */
  int64_t special;            /* bits: 1 +Inf, 2 -Inf, 4 NaN seen */
  int64_t pending;            /* additions since the chunks were last normalised */
} pm_exact_t;

/** s = 0.  Not collective. */
PM_EXTERN void pm_exact_zero(pm_exact_t *s);

/** s += x, exactly.  Not collective. */
PM_EXTERN void pm_exact_add(pm_exact_t *s, double x);

/** s += x[0] + ... + x[n-1] (x NULL: nothing) or, with y, s += x[0] y[0] + ... (each product
 *  rounded to double, their sum exact).  Not collective. */
PM_EXTERN void pm_exact_add_array(pm_exact_t *s, const double *x, const double *y, int64_t n);

/** s += t, exactly.  Not collective. */
PM_EXTERN void pm_exact_merge(pm_exact_t *s, const pm_exact_t *t);

/** The sum rounded to the nearest double (ties to even); +-Inf beyond the double range, and
 *  for a sum holding infinities or NaNs what IEEE arithmetic gives.  An exact zero is +0.
 *  Not collective. */
PM_EXTERN double pm_exact_value(const pm_exact_t *s);

/** Sum n exact numbers element-wise over comm, in place, with one MPI_Allreduce (a contiguous
 *  datatype and a commutative user operation, created once and freed at MPI_Finalize).  Every
 *  rank gets the same n numbers whatever the reduction's order.  Returns PM_OK or PM_ERR_MPI.
 *  Collective on comm. */
PM_EXTERN int pm_exact_allreduce(pm_exact_t *s, int n, MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif
