/* pm_cg.h - parallel conjugate gradients, unpreconditioned or with diagonal scaling (Jacobi),
 * as in the lecture, with the vector updates, the Jacobi step and the dot products fused into as
 * few sweeps as the algorithm allows and two reductions per iteration. */
#ifndef PMESH_PM_CG_H
#define PMESH_PM_CG_H

#include <stdio.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_halo.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_precond { PM_PRECOND_NONE, PM_PRECOND_JACOBI } pm_precond_t;

typedef struct pm_cg_options {
  pm_precond_t precond;
  double rtol; /* stop when ||r|| / ||b|| <= rtol (0: run maxit iterations) */
  int maxit;
  int monitor; /* print the residual every `monitor` iterations on rank 0 (0: never) */
  FILE *out;   /* where the monitor prints (rank 0) */
} pm_cg_options_t;

typedef struct pm_cg_result {
  int iterations;
  double residual; /* final ||r|| / ||b|| (recomputed from b - A x) */
  int converged;
  double t_total, t_spmv, t_exchange, t_reduce, t_update; /* seconds, t_spmv excludes exchange */
  double t_setup; /* of t_total: pm_cg_create's (operator copy, scaling); 0 from pm_cg_run */
} pm_cg_result_t;

/** A CG solver for one matrix, set up once and run for many right-hand sides (a transient
 *  run's steps): the operator copy (pm_csr_compact_copy; scaled to a unit diagonal for Jacobi)
 *  and the work vectors.  `a` and `halo` must outlive it.  Fails (PM_ERR_SOLVER) on every rank
 *  when Jacobi meets a diagonal entry that is not positive.  Collective. */
typedef struct pm_cg pm_cg_t;
int pm_cg_create(const pm_csr_t *a, pm_halo_t *halo, pm_precond_t precond, pm_cg_t **cg);
void pm_cg_destroy(pm_cg_t **cg);

/** Solve A x = b.  x has NP entries and holds the initial guess (its externals are refreshed);
 *  on return its internal entries are the solution and its externals the owners' values.
 *  opt->precond is ignored (the solver's, from pm_cg_create, applies).
 *  Returns PM_OK also when maxit was reached without convergence (check res->converged);
 *  PM_ERR_SOLVER on breakdown (p.Ap <= 0), NaN or Inf.  Collective. */
int pm_cg_run(pm_cg_t *cg, const double *b, double *x, const pm_cg_options_t *opt, pm_cg_result_t *res);

/** pm_cg_create + pm_cg_run + pm_cg_destroy (with opt->precond); res->t_total includes the
 *  set-up.  Collective. */
int pm_cg_solve(const pm_csr_t *a, pm_halo_t *halo, const double *b, double *x, const pm_cg_options_t *opt,
                pm_cg_result_t *res);

#ifdef __cplusplus
}
#endif
#endif
