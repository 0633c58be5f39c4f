/* pm_mg.h - geometric multigrid over uniform refinement levels (pm_refine.h) as a pm_pc_t.
 *
 * The hierarchy is AMG's (pm_amg.h) whose top levels take their prolongator from the
 * refinement instead of from aggregation:
 *  - prolongation from each refinement: a fine vertex copies its coarse value, an edge midpoint
 *    averages its edge's two ends, a quadrangle's centre its four nodes (weights 1 / number of
 *    parents, pm_refine_parents_t); restriction is its transpose;
 *  - Dirichlet nodes (rows of the operator without a nonzero off-diagonal: eliminated rows) have
 *    an empty row of P and are left to the smoother, which solves them exactly; a coarse node
 *    whose fine vertex is such a row is not a coarse unknown at all (the correction there is 0);
 *  - the coarse operators are Galerkin products P^T A P (not rediscretised on each mesh): they
 *    need nothing but the finest operator, and keep the cycle a variational method;
 *  - every level has its own rows, tables and pm_halo, and AMG's smoother (by default Chebyshev
 *    over Jacobi, `sweeps` before and after the coarse correction, its interval from a Lanczos
 *    estimate on that level);
 *  - at the partitioned (coarsest) mesh's level AMG continues with its own aggregation levels
 *    and the coarsest level's dense Cholesky factor, with the given AMG options (coarse_size,
 *    max_levels counted from that level, threshold).
 * Apply: one symmetric V-cycle over all levels, as AMG's. */
#ifndef PMESH_PM_MG_H
#define PMESH_PM_MG_H

#include "pmesh/pm_amg.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_pc.h"
#include "pmesh/pm_refine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A geometric multigrid preconditioner over nlevels meshes, each the uniform refinement of the
 *  one before.  The operator given to pm_pc_setup must be assembled on the finest mesh
 *  (N = meshes[nlevels-1]->n_internal rows, NP columns in its local numbering, its halo).
 *  @param[in] nlevels    number of meshes, 1 (AMG on meshes[0] alone) to PM_AMG_MAX_LEVELS - 1
 *  @param[in] meshes     [nlevels] this rank's local meshes, coarse to fine (pm_refine_local)
 *  @param[in] parents    [nlevels-1] parents[l]: the coarse parents in meshes[l] of the nodes of
 *                        meshes[l+1] (pm_refine_local's `parents`)
 *  @param[in] coarse_opt AMG options for the smoother and for the levels below meshes[0]
 *                        (NULL: the defaults), checked here
 *  @param[out] pc        the preconditioner; the hierarchy is built by pm_pc_setup
 *  The meshes and parents are borrowed: they must stay valid until pm_pc_setup has returned
 *  (nothing of them is kept after it); the arrays of pointers are copied.  PM_ERR_ARG for a bad
 *  count, a NULL mesh or parents, parents not covering their fine mesh, or bad options.
 *  Not collective. */
int pm_pc_create_mg(int nlevels, const pm_local_t *const *meshes, const pm_refine_parents_t *const *parents,
                    const pm_amg_options_t *coarse_opt, pm_pc_t **pc);

/** The hierarchy of a geometric multigrid preconditioner after its set-up (info->geometric: the
 *  levels whose prolongator comes from the refinement); PM_ERR_ARG for another kind of
 *  preconditioner or before the set-up.  Not collective. */
int pm_mg_get_info(const pm_pc_t *pc, pm_amg_info_t *info);

#ifdef __cplusplus
}
#endif
#endif
