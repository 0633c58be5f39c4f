/* pm_cg.h - parallel preconditioned conjugate gradients for any operator (pm_op.h: an assembled
 * matrix or the caller's product) and any preconditioner (pm_pc.h), with the vector updates and
 * the dot products fused into as few sweeps as the algorithm allows and two reductions per
 * iteration.  A diagonal preconditioner (none, Jacobi) of an assembled operator runs as CG on
 * the symmetrically scaled system, as the lecture's PCG with M = D but one sweep shorter. */
#ifndef PMESH_PM_CG_H
#define PMESH_PM_CG_H

#include <stdio.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_pc.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_cg_options {
  double rtol; /* stop when ||r|| / ||b|| <= rtol (0: run maxit iterations) */
  int maxit;
  int monitor; /* print the residual every `monitor` iterations on rank 0 (0: never) */
  FILE *out;   /* where the monitor prints (rank 0) */
  /* 1: every dot product and norm is summed exactly and rounded once (pm_exact.h), so that with
   * a diagonal preconditioner (none, Jacobi) the iterates, the residual history, the iteration
   * count and the final residual are bitwise the same for any number of ranks and any
   * partition (a shell operator's product must then not depend on them either: pm_csr_spmv's
   * rows do not).  Costs extra time per iteration (docs/solve.md: Reproducible results). */
  int reproducible;
  /* Optional: called on every rank with ||r||/||b|| before the first iteration (0) and after
   * each one (the same values on every rank).  Not collective. */
  void (*on_iteration)(void *ctx, int iteration, double rel_residual);
  void *on_iteration_ctx;
} pm_cg_options_t;

typedef struct pm_cg_result {
  int iterations;
  double residual; /* final ||r|| / ||b|| (recomputed from b - A x) */
  int converged;
  double t_total, t_spmv, t_exchange, t_reduce, t_update; /* seconds, t_spmv excludes exchange (but
                                                           * a shell operator's, inside its apply) */
  double t_setup;   /* of t_total: pm_cg_create's (operator copy, preconditioner set-up); 0 from pm_cg_run */
  double t_precond; /* of t_total: applying the preconditioner (0 for a diagonal one, fused into CG) */
} pm_cg_result_t;

/** A CG solver for one operator, set up once and run for many right-hand sides (a transient
 *  run's steps): for a diagonal preconditioner of an assembled operator the copy it iterates
 *  with (pm_csr_compact_copy; scaled to a unit diagonal), the preconditioner's set-up
 *  (pm_pc_setup from `a`, unless it was set up already) and the work vectors.  Errors (a failed
 *  set-up: Jacobi meeting a diagonal entry that is not positive or an operator without a
 *  diagonal, AMG given a shell operator, ...) are agreed on every rank.  Collective.
 *  @param[in]  a   the operator (N rows, NP columns); must outlive the solver
 *  @param[in]  pc  the preconditioner, NULL for none; must outlive the solver
 *  @param[out] cg  the solver; pm_cg_destroy frees it */
typedef struct pm_cg pm_cg_t;
PM_EXTERN int pm_cg_create(pm_op_t *a, pm_pc_t *pc, pm_cg_t **cg);
/** Free; NULL-safe, sets *cg to NULL (the preconditioner is the caller's).  Not collective. */
PM_EXTERN void pm_cg_destroy(pm_cg_t **cg);
/** Seconds pm_cg_create took (operator copy, preconditioner set-up).  Not collective. */
PM_EXTERN double pm_cg_setup_seconds(const pm_cg_t *cg);

/** Solve A x = b.  b has N entries; x has NP entries and holds the initial guess (its externals
 *  are refreshed); on return its internal entries are the solution and its externals the
 *  owners' values.  Returns PM_OK also when maxit was reached without convergence (check res->converged);
 *  PM_ERR_SOLVER on breakdown (p.Ap <= 0), NaN or Inf.  Collective. */
PM_EXTERN int pm_cg_run(pm_cg_t *cg, const double *b, double *x, const pm_cg_options_t *opt, pm_cg_result_t *res);

/** pm_cg_create + pm_cg_run + pm_cg_destroy; res->t_total includes the set-up.  Collective. */
PM_EXTERN int pm_cg_solve(pm_op_t *a, pm_pc_t *pc, const double *b, double *x, const pm_cg_options_t *opt,
                          pm_cg_result_t *res);

#ifdef __cplusplus
}
#endif
#endif
