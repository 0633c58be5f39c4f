/* pm_amg_int.h - the private part of pm_amg.c: the set-up of an AMG hierarchy (the levels and
 * the V-cycle are pm_amg_cycle.h's), shared with geometric multigrid (pm_mg.c), whose coarsest
 * level is an AMG hierarchy. */
#ifndef PMESH_PM_AMG_INT_H
#define PMESH_PM_AMG_INT_H

#include <stdio.h>

#include "pm_amg_cycle.h"
#include "pmesh/pm_amg.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_op.h"

/** An empty hierarchy (no handle to free) with the options opt (NULL: the defaults, unchecked).
 *  Not collective. */
void pm_amg_hier_init(pm_amg_hier_t *h, const pm_amg_options_t *opt);

/** PM_OK when op has an assembled matrix; else PM_ERR_ARG, its message naming the
 *  preconditioner `who`.  Agreed on the operator's communicator.  Collective. */
int pm_amg_need_matrix(pm_op_t *op, const char *who);

/** Level 0 from the caller's operator and halo: the hierarchy's communicator (a duplicate of
 *  the halo's) and level 0's rank-order layout.  Collective. */
int pm_amg_setup_begin(pm_amg_hier_t *h, const pm_csr_t *a, pm_halo_t *halo);

/** Global rows, nonzeros and ranks of level l into h->info.  Collective on the level's
 *  communicator. */
int pm_amg_level_stats(pm_amg_hier_t *h, int l);

/** lv->lmax, the Lanczos estimate of the largest eigenvalue of D^-1 A.  Collective on the
 *  level's communicator. */
int pm_amg_level_lmax(pm_amg_hier_t *h, pm_amg_level_t *lv);

/** Aggregation levels below level `first` (its operator, halo and layout set; the levels
 *  above it complete with their prolongators, stats and lmax) until coarse_size, max_levels
 *  levels from `first` on, or stagnation, agglomerating small levels (rows_per_rank); then
 *  every level's smoother, the coarsest level's factor and h->info (the same on every rank,
 *  idle ones included).  Errors are agreed on h->comm.  Collective on h->comm. */
int pm_amg_setup_finish(pm_amg_hier_t *h, int first);

/** Frees a hierarchy (partial or complete); NULL-safe.  Not collective. */
void pm_amg_hier_destroy(void *h);

/** The JSON view's per-level arrays: rows (already opened by the caller's `"rows": [`), then
 *  "nonzeros" and "ranks", closed.  Not collective. */
void pm_amg_view_level_arrays(FILE *out, const pm_amg_info_t *in);

#endif
