/* pm_amg_agg.h - smoothed aggregation's coarsening (private): strength of connection, the
 * aggregates, the prolongator P = (I - w D^-1 A) P_tent, and the estimate of the largest
 * eigenvalue of D^-1 A that sets w (and the Chebyshev smoother's interval).
 *
 * Aggregation is decoupled: every aggregate lies inside one rank and belongs to it, so the
 * ranks need not agree on anything but the numbering of the aggregates (a prefix sum), and the
 * hierarchy does not depend on message order.  The price is aggregates cut at rank boundaries
 * (slightly more of them, and a few more CG iterations as np grows); a rank's last few rows
 * never wait for a neighbour's decision. */
#ifndef PMESH_PM_AMG_AGG_H
#define PMESH_PM_AMG_AGG_H

#include <stdint.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_op.h"

/** The prolongator of one level: rows are the fine level's owned rows, columns coarse rows.
 *  gcol holds the coarse global ids while the coarse level is built; col its local ids after. */
typedef struct pm_amg_p {
  int32_t n;     /* fine rows */
  int32_t *ptr;  /* [n+1] */
  int64_t *gcol; /* [nnz] coarse global ids */
  int32_t *col;  /* [nnz] coarse local ids (NULL until the coarse layout exists) */
  double *val;   /* [nnz] */
} pm_amg_p_t;

void pm_amg_p_destroy(pm_amg_p_t **p);

/** Aggregates of the owned rows: agg[i] = the local aggregate of row i (0..*nagg-1), or -1 for
 *  a row with no off-diagonal at all (an eliminated Dirichlet row, a decoupled node): it gets an
 *  empty row of P and is left to the smoother.  A row whose ties are all weak is aggregated with
 *  its free neighbours in the last phase.  Row j is a strong
 *  neighbour of i when a_ij != 0 and |a_ij| >= threshold sqrt(d_i d_j); d has NP entries
 *  (externals valid).  Vanek's three phases: whole strong neighbourhoods, then rows joining the
 *  aggregate they are most strongly tied to, then what is left.  Not collective. */
int pm_amg_aggregate(const pm_csr_t *a, const double *d, double threshold, int32_t *agg, int32_t *nagg);

/** The smoothed prolongator P = (I - omega D^-1 A) P_tent, P_tent(j, c) = 1 when row j lies in
 *  aggregate c.  cagg has NP entries: the coarse global id of each local column's aggregate, or
 *  -1 (externals from a halo update).  Not collective. */
int pm_amg_prolongator(const pm_csr_t *a, const int64_t *cagg, double omega, pm_amg_p_t **p);

/** An estimate (from below, a few per cent at most off) of the largest eigenvalue of D^-1 A: `steps`
 *  steps of CG with the preconditioner D on a pseudo-random right-hand side (a function of the
 *  rows' global ids gid[N]), whose Lanczos tridiagonal matrix gives the estimate.  x and work
 *  are scratch of 4 NP entries.  Collective. */
int pm_amg_lmax(const pm_csr_t *a, pm_halo_t *halo, pm_op_t *op, const int64_t *gid, int steps, double *work,
                double *lmax);

#endif
