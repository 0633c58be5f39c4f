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
  double residual;  /* final ||r|| / ||b|| (recomputed from b - A x) */
  int converged;
  double t_total, t_spmv, t_exchange, t_reduce, t_update; /* seconds, t_spmv excludes exchange */
} pm_cg_result_t;

/** Solve A x = b.  x has NP entries and holds the initial guess (its externals are refreshed);
 *  on return its internal entries are the solution and its externals the owners' values.
 *  Returns PM_OK also when maxit was reached without convergence (check res->converged);
 *  PM_ERR_SOLVER on breakdown (p.Ap <= 0), NaN or Inf.  Collective. */
int pm_cg_solve(const pm_csr_t *a, pm_halo_t *halo, const double *b, double *x, const pm_cg_options_t *opt,
                pm_cg_result_t *res);

#ifdef __cplusplus
}
#endif
#endif
