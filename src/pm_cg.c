/* pm_cg.c - preconditioned conjugate gradients with fused sweeps.
 *
 * Per iteration, with z = M^-1 r never stored:
 *   sweep 1  p = M^-1 r + beta p                       (beta from the last reduction)
 *   SpMV     q = A p, fused with the local part of p.q  (halo update overlapped with interior rows)
 *   reduce   p.q
 *   sweep 2  x += alpha p, r -= alpha q, fused with the local parts of r.M^-1 r and r.r
 *   reduce   (r.M^-1 r, r.r) together. */
#include "pmesh/pm_cg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

static int allreduce(MPI_Comm comm, double *v, int n, double *t) {
  double t0 = MPI_Wtime();
  PM_CALL_MPI(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm));
  *t += MPI_Wtime() - t0;
  return PM_OK;
}

int pm_cg_solve(const pm_csr_t *a, pm_halo_t *halo, const double *b, double *x, const pm_cg_options_t *opt,
                pm_cg_result_t *res) {
  int ierr = PM_OK;
  int32_t n = a->n, np = a->ncol;
  MPI_Comm comm = pm_halo_comm(halo);
  int rank;
  MPI_Comm_rank(comm, &rank);
  double *r = NULL, *p = NULL, *q = NULL, *dinv = NULL;
  memset(res, 0, sizeof *res);
  double t_start = MPI_Wtime(), t;
  PM_TRY(PM_MALLOC(r, n, "CG residual"));
  PM_TRY(PM_CALLOC(p, np, "CG direction"));
  PM_TRY(PM_MALLOC(q, n, "CG product"));
  PM_TRY(PM_MALLOC(dinv, n, "CG preconditioner"));
  for (int32_t i = 0; i < n; i++) dinv[i] = opt->precond == PM_PRECOND_JACOBI ? 1.0 / a->d[i] : 1.0;

  /* r = b - A x; the norms of b and r and r.M^-1 r in one reduction. */
  PM_TRY(pm_csr_spmv(a, halo, x, q, NULL, &res->t_exchange));
  double s[3] = {0, 0, 0}; /* b.b, r.r, r.z */
  for (int32_t i = 0; i < n; i++) {
    r[i] = b[i] - q[i];
    s[0] += b[i] * b[i];
    s[1] += r[i] * r[i];
    s[2] += r[i] * r[i] * dinv[i];
  }
  PM_TRY(allreduce(comm, s, 3, &res->t_reduce));
  double bnorm = sqrt(s[0]), rr = s[1], rho = s[2], rho_old = 0;
  PM_TRY_CHECK(isfinite(bnorm) && isfinite(rr), PM_ERR_SOLVER, "CG: the right-hand side or residual is NaN or Inf");
  if (bnorm == 0) bnorm = 1; /* b = 0: the absolute residual is the measure */
  double rel = sqrt(rr) / bnorm;
  int it = 0;
  if (opt->monitor > 0 && rank == 0 && opt->out) fprintf(opt->out, "cg: iteration %6d  ||r||/||b|| = %.6e\n", 0, rel);
  while (it < opt->maxit && !(rel <= opt->rtol)) {
    it++;
    double beta = it == 1 ? 0.0 : rho / rho_old;
    t = MPI_Wtime();
    for (int32_t i = 0; i < n; i++) p[i] = r[i] * dinv[i] + beta * p[i];
    res->t_update += MPI_Wtime() - t;
    t = MPI_Wtime();
    double te = 0, pq;
    PM_TRY(pm_csr_spmv(a, halo, p, q, &pq, &te));
    res->t_exchange += te;
    res->t_spmv += MPI_Wtime() - t - te;
    PM_TRY(allreduce(comm, &pq, 1, &res->t_reduce));
    PM_TRY_CHECK(isfinite(pq) && pq > 0, PM_ERR_SOLVER,
                 "CG breakdown at iteration %d: p.Ap = %g (the matrix is not positive definite: check the "
                 "conductivity's sign and that a Dirichlet condition fixes the solution)",
                 it, pq);
    double alpha = rho / pq;
    t = MPI_Wtime();
    /* Four partial sums per dot product: independent chains the CPU can overlap (a single
     * chain is latency-bound); the summation order is fixed, so results stay reproducible. */
    double za[4] = {0, 0, 0, 0}, ra[4] = {0, 0, 0, 0};
    int32_t n4 = n - n % 4;
    for (int32_t i = 0; i < n4; i += 4) {
      for (int l = 0; l < 4; l++) {
        x[i + l] += alpha * p[i + l];
        double ri = r[i + l] - alpha * q[i + l];
        r[i + l] = ri;
        za[l] += ri * ri * dinv[i + l];
        ra[l] += ri * ri;
      }
    }
    for (int32_t i = n4; i < n; i++) {
      x[i] += alpha * p[i];
      double ri = r[i] - alpha * q[i];
      r[i] = ri;
      za[0] += ri * ri * dinv[i];
      ra[0] += ri * ri;
    }
    double s2[2] = {(za[0] + za[1]) + (za[2] + za[3]), (ra[0] + ra[1]) + (ra[2] + ra[3])};
    res->t_update += MPI_Wtime() - t;
    PM_TRY(allreduce(comm, s2, 2, &res->t_reduce));
    rho_old = rho;
    rho = s2[0];
    rr = s2[1];
    PM_TRY_CHECK(isfinite(rho) && isfinite(rr), PM_ERR_SOLVER, "CG: the residual became NaN or Inf at iteration %d",
                 it);
    rel = sqrt(rr) / bnorm;
    if (opt->monitor > 0 && rank == 0 && opt->out && (it % opt->monitor == 0))
      fprintf(opt->out, "cg: iteration %6d  ||r||/||b|| = %.6e\n", it, rel);
  }
  /* Final: the true residual of the returned x (also refreshes x's externals). */
  PM_TRY(pm_csr_spmv(a, halo, x, q, NULL, &res->t_exchange));
  double fin = 0;
  for (int32_t i = 0; i < n; i++) fin += (b[i] - q[i]) * (b[i] - q[i]);
  PM_TRY(allreduce(comm, &fin, 1, &res->t_reduce));
  res->iterations = it;
  res->residual = sqrt(fin) / bnorm;
  res->converged = rel <= opt->rtol;
  res->t_total = MPI_Wtime() - t_start;
cleanup:
  free(r);
  free(p);
  free(q);
  free(dinv);
  return ierr;
}
