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
 *  - the coarse operators are, by default, the problem assembled again on each coarser mesh
 *    (rediscretised, through the caller's pm_mg_assemble_t: the same scheme, coefficients and
 *    Dirichlet elimination as the finest operator), restricted to the coarse unknowns; or, with
 *    pm_mg_set_coarse(PM_MG_COARSE_GALERKIN) or without an assembler, Galerkin products
 *    P^T A P, which need nothing but the finest operator.  For linear and bilinear elements with
 *    constant coefficients both are the same matrix; rediscretising costs one coarse assembly
 *    instead of a parallel triple product and its temporaries;
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
#include "pmesh/pm_csr.h"
#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_pc.h"
#include "pmesh/pm_refine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A geometric multigrid preconditioner over nlevels meshes, each the uniform refinement of the
 *  one before.  The operator given to pm_pc_setup must be the matrix assembled on the finest
 *  mesh (pm_op_create_csr: N = meshes[nlevels-1]->n_internal rows, NP columns in its local
 *  numbering, its halo), or a shell operator of those sizes with a diagonal whose Dirichlet rows
 *  were given (pm_mg_set_fixed_rows): its level is smoothed with its own products, its
 *  prolongation is the refinement's, and the coarser operators must be rediscretised (an
 *  assembler set, pm_mg_set_assembler; Galerkin products need entries).  Other shells: PM_ERR_ARG.
 *  @param[in] nlevels    number of meshes, 1 (AMG on meshes[0] alone) to PM_AMG_MAX_LEVELS - 1
 *  @param[in] meshes     [nlevels] this rank's local meshes, coarse to fine (pm_refine_local)
 *  @param[in] parents    [nlevels-1] parents[l]: the coarse parents in meshes[l] of the nodes of
 *                        meshes[l+1] (pm_refine_local's `parents`)
 *  @param[in] coarse_opt AMG options for the smoother and for the levels below meshes[0]
 *                        (NULL: pm_amg_options_default's; pm_mg_options_default_dim gives
 *                        multigrid's own for the mesh's dimension), checked here
 *  @param[out] pc        the preconditioner; the hierarchy is built by pm_pc_setup
 *  The meshes and parents are borrowed: they must stay valid until pm_pc_setup has returned
 *  (nothing of them is kept after it); the arrays of pointers are copied.  PM_ERR_ARG for a bad
 *  count, a NULL mesh or parents, parents not covering their fine mesh, or bad options.
 *  Not collective. */
/** The AMG options multigrid takes by default on meshes of dimension dim: AMG's
 *  (pm_amg_options_default_dim), but in 3D 3 smoothing steps and the strength threshold 0.05.
 *  The refinement levels' V-cycle then converges as fast as its own levels allow: the bracket
 *  refined 3 times takes 11 iterations instead of 15 in the same time (docs/solve.md, mg).
 *  Not collective. */
PM_EXTERN void pm_mg_options_default_dim(pm_amg_options_t *opt, int dim);

PM_EXTERN int pm_pc_create_mg(int nlevels, const pm_local_t *const *meshes, const pm_refine_parents_t *const *parents,
                              const pm_amg_options_t *coarse_opt, pm_pc_t **pc);

/** How the coarse operators of the refinement levels are made. */
typedef enum pm_mg_coarse {
  PM_MG_COARSE_REDISCRETIZE, /* assembled on each coarser mesh (the default; needs an assembler) */
  PM_MG_COARSE_GALERKIN      /* P^T A P */
} pm_mg_coarse_t;

/** The operator of the caller's problem assembled on `mesh` (one of the coarser meshes given to
 *  pm_pc_create_mg), exactly as the finest one was (rows its owned nodes, columns its nodes,
 *  Dirichlet rows and columns eliminated); the preconditioner frees it.  Not collective: the
 *  set-up agrees its errors. */
typedef int (*pm_mg_assemble_t)(void *ctx, const pm_local_t *mesh, pm_csr_t **a);

/** Choose the coarse operators of the next set-up (default PM_MG_COARSE_REDISCRETIZE, which
 *  falls back to Galerkin products when no assembler is set).  PM_ERR_ARG for another kind of
 *  preconditioner or an unknown value.  Not collective. */
PM_EXTERN int pm_mg_set_coarse(pm_pc_t *pc, pm_mg_coarse_t how);

/** The assembler of the rediscretised coarse operators, used by the next set-up (ctx must stay
 *  valid until it returns); pm_run_steady and pm_run_transient set their own.  Does nothing for
 *  another kind of preconditioner or pc NULL.  Not collective. */
PM_EXTERN int pm_mg_set_assembler(pm_pc_t *pc, pm_mg_assemble_t assemble, void *ctx);

/** For a shell finest operator (the matrix-free fine level, pm_fine_op.h): fixed[i] != 0 marks
 *  its eliminated Dirichlet rows (identity rows, which get no coarse correction), i < N; with an
 *  assembled operator they are found from the entries instead.  Borrowed until the next set-up
 *  returns.  Does nothing for another kind of preconditioner or pc NULL.  Not collective. */
PM_EXTERN int pm_mg_set_fixed_rows(pm_pc_t *pc, const char *fixed);

/** The hierarchy of a geometric multigrid preconditioner after its set-up (info->geometric: the
 *  levels whose prolongator comes from the refinement); PM_ERR_ARG for another kind of
 *  preconditioner or before the set-up.  Not collective. */
PM_EXTERN int pm_mg_get_info(const pm_pc_t *pc, pm_amg_info_t *info);

#ifdef __cplusplus
}
#endif
#endif
