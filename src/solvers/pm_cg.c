/* pm_cg.c - preconditioned conjugate gradients with fused sweeps.
 *
 * A general preconditioner runs the textbook PCG (one apply, two reductions per iteration:
 * p.Ap, then r.r and r.z together).  A diagonal one (pm_pc_diagonal_scaling: none, Jacobi)
 * runs the fused path below instead.  Jacobi (diagonal scaling) is applied as CG on the symmetrically scaled system
 *   (S A S) y = S b,  x = S y,  S = D^-1/2,
 * which in exact arithmetic produces the same iterates as the lecture's PCG with M = D, but its
 * operator has a unit diagonal: the product reads no diagonal and the iteration no M^-1.  The
 * operator is a compact copy of the assembled A (pm_csr_compact_copy: eliminated Dirichlet
 * columns dropped); a shell operator (pm_op.h) takes this path only unscaled (none), and Jacobi
 * with it the general one.  The general path uses A itself.
 * The stopping test stays ||r||/||b|| of the unscaled system: r = D^1/2 r~, so
 * ||r||^2 = sum d_i r~_i^2.  Per iteration:
 *   sweep 1  x += alpha p (the previous step's update, deferred), p = r + beta p
 *   SpMV     q = A p, fused with the local part of p.q  (halo update overlapped with interior rows)
 *   reduce   p.q
 *   sweep 2  r -= alpha q, fused with the local parts of r.r and r.D r
 *   reduce   both together.
 * Reproducible mode (opt->reproducible) sums every dot product exactly (pm_exact.h): each rank's
 * terms go into binned accumulators in the same fused sweeps, their sums are reduced exactly and
 * rounded once.  Nothing else depends on the partition: the vector updates are element-wise, and
 * each row's product is summed in global column order (pm_csr.h). */
#include "pmesh/pm_cg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assembly/pm_op_int.h"
#include "base/pm_exact_int.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_exact.h"

static int allreduce(MPI_Comm comm, double *v, int n, double *t) {
  double t0 = MPI_Wtime();
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, comm));
  *t += MPI_Wtime() - t0;
  return PM_OK;
}

struct pm_cg {
  pm_op_t *a; /* the caller's */
  MPI_Comm comm;
  pm_pc_t *pc, *own_pc;  /* own_pc: the `none` made for pc == NULL */
  const double *sc;      /* diagonal path: S (NP entries), NULL for S = I */
  int diagonal;          /* the fused path: pc is a diagonal scaling (S = I for a shell operator) */
  pm_op_t *op;           /* what the iteration multiplies by: own_op on the diagonal path with an
                          * assembled a, else a */
  pm_csr_t *copy;        /* the diagonal path's compact copy of a's matrix, scaled to S A S */
  pm_op_t *own_op;       /* over copy */
  double *r, *p, *q, *z; /* work vectors (z: general path) */
  double t_setup;
  pm_exact_acc_t *acc[4]; /* reproducible mode: the lanes of the exact sums (made at first use) */
};

/* The accumulators of reproducible mode, made at the first reproducible run.  Collective. */
static int exact_setup(pm_cg_t *cg) {
  int ierr = PM_OK;
  if (cg->acc[0]) return PM_OK; /* every rank made them at the same call */
  for (int l = 0; l < 4 && !ierr; l++) ierr = pm_exact_acc_create(&cg->acc[l]);
  return pm_comm_agree(cg->comm, ierr);
}

/* v[j] = the global sum of lanes acc[j lanes .. (j + 1) lanes - 1], exact and rounded once, for
 * j < n <= 3 (one reduction for all).  Collective. */
static int exact_reduce(pm_cg_t *cg, int n, int lanes, double *v, double *t) {
  pm_exact_t s[3];
  for (int j = 0; j < n; j++) {
    pm_exact_zero(&s[j]);
    for (int l = 0; l < lanes; l++) pm_exact_acc_flush(cg->acc[j * lanes + l], &s[j]);
  }
  double t0 = MPI_Wtime();
  PM_CALL(pm_exact_allreduce(s, n, cg->comm));
  *t += MPI_Wtime() - t0;
  for (int j = 0; j < n; j++) v[j] = pm_exact_value(&s[j]);
  return PM_OK;
}

void pm_cg_destroy(pm_cg_t **cg) {
  if (!cg || !*cg) return;
  pm_cg_t *c = *cg;
  pm_op_destroy(&c->own_op);
  pm_csr_destroy(&c->copy);
  pm_pc_destroy(&c->own_pc);
  free(c->r);
  free(c->p);
  free(c->q);
  free(c->z);
  for (int l = 0; l < 4; l++) pm_exact_acc_destroy(&c->acc[l]);
  free(c);
  *cg = NULL;
}

int pm_cg_create(pm_op_t *a, pm_pc_t *pc, pm_cg_t **cg) {
  int ierr = PM_OK;
  PM_CHECK(a && cg, PM_ERR_ARG, "pm_cg_create: the operator or the solver's handle is NULL");
  int32_t n = pm_op_n(a), np = pm_op_n_total(a);
  MPI_Comm comm = pm_op_comm(a);
  const pm_csr_t *csr = pm_op_csr(a);
  pm_cg_t *c = NULL;
  double t0 = MPI_Wtime();
  *cg = NULL;
  /* Allocation failures are agreed before the first exchange, so no rank is left waiting. */
  ierr = PM_CALLOC(c, 1, "CG solver");
  if (!ierr) {
    c->a = a;
    c->op = a;
    c->comm = comm;
    if (!pc) ierr = pm_pc_create_none(&c->own_pc);
    c->pc = pc ? pc : c->own_pc;
  }
  if (!ierr) ierr = PM_MALLOC(c->r, n > 0 ? n : 1, "CG residual");
  if (!ierr) ierr = PM_CALLOC(c->p, np > 0 ? np : 1, "CG direction");
  if (!ierr) ierr = PM_MALLOC(c->q, n > 0 ? n : 1, "CG product");
  PM_TRY(pm_comm_agree(comm, ierr));
  if (!pm_pc_is_setup(c->pc)) PM_TRY(pm_pc_setup(c->pc, a));
  c->diagonal = pm_pc_diagonal_scaling(c->pc, &c->sc) && (csr || !c->sc);
  if (!c->diagonal) ierr = PM_CALLOC(c->z, np > 0 ? np : 1, "CG preconditioned residual");
  /* Only the fused path needs its own operator (scaled); the general one multiplies by A itself,
   * its few explicit zeros included: a copy would double the largest array of the run. */
  if (!ierr && c->diagonal && csr) ierr = pm_csr_compact_copy(csr, c->sc, &c->copy);
  if (!ierr && c->copy) ierr = pm_op_create_csr(c->copy, pm_op_halo(a), &c->own_op);
  if (!ierr && c->own_op) c->op = c->own_op;
  PM_TRY(pm_comm_agree(comm, ierr));
  c->t_setup = MPI_Wtime() - t0;
  *cg = c;
  c = NULL;
cleanup:
  pm_cg_destroy(&c);
  return ierr;
}

double pm_cg_setup_seconds(const pm_cg_t *cg) {
  return cg ? cg->t_setup : 0.0;
}

int pm_cg_solve(pm_op_t *a, pm_pc_t *pc, const double *b, double *x, const pm_cg_options_t *opt, pm_cg_result_t *res) {
  pm_cg_t *cg = NULL;
  memset(res, 0, sizeof *res);
  PM_CALL(pm_cg_create(a, pc, &cg));
  int ierr = pm_cg_run(cg, b, x, opt, res);
  res->t_setup = cg->t_setup;
  res->t_total += cg->t_setup;
  pm_cg_destroy(&cg);
  return ierr;
}

static void monitor(const pm_cg_options_t *opt, int rank, int it, double rel) {
  if (opt->monitor > 0 && rank == 0 && opt->out && it % opt->monitor == 0)
    fprintf(opt->out, "cg: iteration %6d  ||r||/||b|| = %.6e\n", it, rel);
  if (opt->on_iteration) opt->on_iteration(opt->on_iteration_ctx, it, rel);
}

/* The true residual of the returned x (also refreshes x's externals) and the result's figures. */
static int finish(pm_cg_t *cg, const double *b, double *x, double *q, int it, double rel, double bnorm,
                  const pm_cg_options_t *opt, double t_start, pm_cg_result_t *res) {
  double fin = 0;
  int32_t n = pm_op_n(cg->a);
  PM_CALL(pm_op_apply_dot(cg->a, x, q, NULL, NULL, &res->t_exchange));
  if (opt->reproducible) {
    for (int32_t i = 0; i < n; i++) pm_exact_acc_add(cg->acc[0], (b[i] - q[i]) * (b[i] - q[i]));
    PM_CALL(exact_reduce(cg, 1, 1, &fin, &res->t_reduce));
  } else {
    for (int32_t i = 0; i < n; i++) fin += (b[i] - q[i]) * (b[i] - q[i]);
    PM_CALL(allreduce(cg->comm, &fin, 1, &res->t_reduce));
  }
  res->iterations = it;
  res->residual = sqrt(fin) / bnorm;
  res->converged = rel <= opt->rtol;
  res->t_total = MPI_Wtime() - t_start;
  return PM_OK;
}

/* PCG with any preconditioner.  Per iteration: q = A p fused with p.q; reduce; x += alpha p and
 * r -= alpha q fused with r.r; z = M^-1 r; r.z; reduce r.r and r.z together; p = z + beta p. */
static int run_general(pm_cg_t *cg, const double *b, double *x, const pm_cg_options_t *opt, pm_cg_result_t *res) {
  int ierr = PM_OK;
  pm_op_t *op = cg->op;
  int32_t n = pm_op_n(op);
  int rank;
  MPI_Comm_rank(cg->comm, &rank);
  double *r = cg->r, *p = cg->p, *q = cg->q, *z = cg->z;
  double t_start = MPI_Wtime(), t;
  int ex = opt->reproducible;
  pm_exact_acc_t *const *acc = cg->acc; /* exact: lanes b.b, r.r, r.z, then p.q in 0, 1 */

  PM_TRY(pm_op_apply_dot(cg->a, x, q, NULL, NULL, &res->t_exchange));
  double s[3] = {0, 0, 0}; /* b.b, r.r, r.z */
  for (int32_t i = 0; i < n; i++) {
    r[i] = b[i] - q[i];
    if (ex) {
      pm_exact_acc_add(acc[0], b[i] * b[i]);
      pm_exact_acc_add(acc[1], r[i] * r[i]);
    } else {
      s[0] += b[i] * b[i];
      s[1] += r[i] * r[i];
    }
  }
  t = MPI_Wtime();
  PM_TRY(pm_pc_apply(cg->pc, r, z));
  res->t_precond += MPI_Wtime() - t;
  if (ex) {
    for (int32_t i = 0; i < n; i++) pm_exact_acc_add(acc[2], r[i] * z[i]);
    PM_TRY(exact_reduce(cg, 3, 1, s, &res->t_reduce));
  } else {
    for (int32_t i = 0; i < n; i++) s[2] += r[i] * z[i];
    PM_TRY(allreduce(cg->comm, s, 3, &res->t_reduce));
  }
  double bnorm = sqrt(s[0]), rz = s[2];
  PM_TRY_CHECK(isfinite(bnorm) && isfinite(s[1]) && isfinite(rz), PM_ERR_SOLVER,
               "CG: the right-hand side, the residual or the preconditioned residual is NaN or Inf");
  if (bnorm == 0) bnorm = 1;
  double rel = sqrt(s[1]) / bnorm;
  int it = 0;
  monitor(opt, rank, 0, rel);
  if (!(rel <= opt->rtol) && opt->maxit > 0) memcpy(p, z, (size_t)n * sizeof *p);
  while (it < opt->maxit && !(rel <= opt->rtol)) {
    it++;
    t = MPI_Wtime();
    double te = 0, pq;
    PM_TRY(pm_op_apply_dot(op, p, q, ex ? NULL : &pq, ex ? acc : NULL, &te));
    res->t_exchange += te;
    res->t_spmv += MPI_Wtime() - t - te;
    if (ex)
      PM_TRY(exact_reduce(cg, 1, 2, &pq, &res->t_reduce));
    else
      PM_TRY(allreduce(cg->comm, &pq, 1, &res->t_reduce));
    PM_TRY_CHECK(isfinite(pq) && pq > 0, PM_ERR_SOLVER,
                 "CG breakdown at iteration %d: p.Ap = %g (the matrix is not positive definite: check the "
                 "conductivity's sign and that a Dirichlet condition fixes the solution)",
                 it, pq);
    double alpha = rz / pq, s2[2] = {0, 0};
    t = MPI_Wtime();
    for (int32_t i = 0; i < n; i++) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      if (ex)
        pm_exact_acc_add(acc[0], r[i] * r[i]);
      else
        s2[0] += r[i] * r[i];
    }
    res->t_update += MPI_Wtime() - t;
    t = MPI_Wtime();
    PM_TRY(pm_pc_apply(cg->pc, r, z));
    res->t_precond += MPI_Wtime() - t;
    t = MPI_Wtime();
    if (ex)
      for (int32_t i = 0; i < n; i++) pm_exact_acc_add(acc[1], r[i] * z[i]);
    else
      for (int32_t i = 0; i < n; i++) s2[1] += r[i] * z[i];
    res->t_update += MPI_Wtime() - t;
    if (ex)
      PM_TRY(exact_reduce(cg, 2, 1, s2, &res->t_reduce));
    else
      PM_TRY(allreduce(cg->comm, s2, 2, &res->t_reduce));
    PM_TRY_CHECK(isfinite(s2[0]) && isfinite(s2[1]), PM_ERR_SOLVER,
                 "CG: the residual became NaN or Inf at iteration %d", it);
    PM_TRY_CHECK(s2[1] > 0 || s2[0] == 0, PM_ERR_SOLVER,
                 "CG breakdown at iteration %d: r.z = %g (the preconditioner %s is not positive definite)", it, s2[1],
                 pm_pc_name(cg->pc));
    rel = sqrt(s2[0]) / bnorm;
    monitor(opt, rank, it, rel);
    double beta = s2[1] / rz;
    rz = s2[1];
    if (!(rel <= opt->rtol) && it < opt->maxit) {
      t = MPI_Wtime();
      for (int32_t i = 0; i < n; i++) p[i] = z[i] + beta * p[i];
      res->t_update += MPI_Wtime() - t;
    }
  }
  PM_TRY(finish(cg, b, x, q, it, rel, bnorm, opt, t_start, res));
cleanup:
  return ierr;
}

/* Sweep 2: r -= alpha q with the local parts of r~.r~ (s2[0]) and, w given, of r~.W r~ (s2[1];
 * else s2[1] = s2[0]). */
static void update(double *restrict r, const double *restrict q, const double *restrict w, double alpha, int32_t n,
                   double s2[2]) {
  /* Four partial sums per dot product: independent chains the CPU can overlap (a single
   * chain is latency-bound); the summation order is fixed, so results stay reproducible. */
  double za[4] = {0, 0, 0, 0}, ra[4] = {0, 0, 0, 0};
  int32_t n4 = n - n % 4;
  if (w) {
    for (int32_t i = 0; i < n4; i += 4) {
      for (int l = 0; l < 4; l++) {
        double ri = r[i + l] - alpha * q[i + l];
        r[i + l] = ri;
        za[l] += ri * ri;
        ra[l] += ri * ri * w[i + l];
      }
    }
    for (int32_t i = n4; i < n; i++) {
      double ri = r[i] - alpha * q[i];
      r[i] = ri;
      za[0] += ri * ri;
      ra[0] += ri * ri * w[i];
    }
  } else {
    for (int32_t i = 0; i < n4; i += 4) {
      for (int l = 0; l < 4; l++) {
        double ri = r[i + l] - alpha * q[i + l];
        r[i + l] = ri;
        za[l] += ri * ri;
      }
    }
    for (int32_t i = n4; i < n; i++) {
      double ri = r[i] - alpha * q[i];
      r[i] = ri;
      za[0] += ri * ri;
    }
    memcpy(ra, za, sizeof ra);
  }
  s2[0] = (za[0] + za[1]) + (za[2] + za[3]);
  s2[1] = (ra[0] + ra[1]) + (ra[2] + ra[3]);
}

/* Sweep 2 of reproducible mode: r -= alpha q with the terms of r~.r~ and of r~.W r~ (w given)
 * summed exactly, two lanes each (even and odd rows): acc[0..1] and acc[2..3]. */
static void update_exact(pm_exact_acc_t *const *acc, double *restrict r, const double *restrict q,
                         const double *restrict w, double alpha, int32_t n) {
  int32_t n2 = n - n % 2;
  if (w) {
    for (int32_t i = 0; i < n2; i += 2) {
      double r0 = r[i] - alpha * q[i], r1 = r[i + 1] - alpha * q[i + 1];
      r[i] = r0;
      r[i + 1] = r1;
      pm_exact_acc_add(acc[0], r0 * r0);
      pm_exact_acc_add(acc[1], r1 * r1);
      pm_exact_acc_add(acc[2], r0 * r0 * w[i]);
      pm_exact_acc_add(acc[3], r1 * r1 * w[i + 1]);
    }
  } else {
    for (int32_t i = 0; i < n2; i += 2) {
      double r0 = r[i] - alpha * q[i], r1 = r[i + 1] - alpha * q[i + 1];
      r[i] = r0;
      r[i + 1] = r1;
      pm_exact_acc_add(acc[0], r0 * r0);
      pm_exact_acc_add(acc[1], r1 * r1);
    }
  }
  for (int32_t i = n2; i < n; i++) {
    double ri = r[i] - alpha * q[i];
    r[i] = ri;
    pm_exact_acc_add(acc[0], ri * ri);
    if (w) pm_exact_acc_add(acc[2], ri * ri * w[i]);
  }
}

int pm_cg_run(pm_cg_t *cg, const double *b, double *x, const pm_cg_options_t *opt, pm_cg_result_t *res) {
  memset(res, 0, sizeof *res);
  if (opt->reproducible) PM_CALL(exact_setup(cg));
  if (!cg->diagonal) return run_general(cg, b, x, opt, res);
  int ierr = PM_OK;
  pm_op_t *op = cg->op;
  MPI_Comm comm = cg->comm;
  int32_t n = pm_op_n(cg->a);
  int rank, jacobi = cg->sc != NULL;
  MPI_Comm_rank(comm, &rank);
  double *r = cg->r, *p = cg->p, *q = cg->q;
  const double *sc = cg->sc;
  const double *w = jacobi ? pm_op_csr(cg->a)->d : NULL; /* ||r||^2 = sum w r~^2 */
  double t_start = MPI_Wtime(), t;
  int ex = opt->reproducible;
  pm_exact_acc_t *const *acc = cg->acc;

  /* r = b - A x; then the scaled r~ = S r and y = S^-1 x (kept in x); the norms of b and r and
   * r~.r~ and the count of unusable diagonals in one reduction. */
  PM_TRY(pm_op_apply_dot(cg->a, x, q, NULL, NULL, &res->t_exchange));
  double s[3] = {0, 0, 0}; /* b.b, r.r, r~.r~ */
  for (int32_t i = 0; i < n; i++) {
    double ri = b[i] - q[i];
    if (ex) {
      pm_exact_acc_add(acc[0], b[i] * b[i]);
      pm_exact_acc_add(acc[1], ri * ri);
    } else {
      s[0] += b[i] * b[i];
      s[1] += ri * ri;
    }
    if (jacobi) {
      ri *= sc[i];
      x[i] /= sc[i];
    }
    r[i] = ri;
    if (ex)
      pm_exact_acc_add(acc[2], ri * ri);
    else
      s[2] += ri * ri;
  }
  if (ex)
    PM_TRY(exact_reduce(cg, 3, 1, s, &res->t_reduce));
  else
    PM_TRY(allreduce(comm, s, 3, &res->t_reduce));
  double bnorm = sqrt(s[0]), rr = s[1], rho = s[2], rho_old = 0, alpha = 0;
  PM_TRY_CHECK(isfinite(bnorm) && isfinite(rr), PM_ERR_SOLVER, "CG: the right-hand side or residual is NaN or Inf");
  if (bnorm == 0) bnorm = 1; /* b = 0: the absolute residual is the measure */
  double rel = sqrt(rr) / bnorm;
  int it = 0;
  monitor(opt, rank, 0, rel);
  while (it < opt->maxit && !(rel <= opt->rtol)) {
    it++;
    double beta = it == 1 ? 0.0 : rho / rho_old;
    t = MPI_Wtime();
    if (it == 1) {
      memcpy(p, r, (size_t)n * sizeof *p);
    } else {
      for (int32_t i = 0; i < n; i++) {
        x[i] += alpha * p[i];
        p[i] = r[i] + beta * p[i];
      }
    }
    res->t_update += MPI_Wtime() - t;
    t = MPI_Wtime();
    double te = 0, pq;
    PM_TRY(pm_op_apply_dot(op, p, q, ex ? NULL : &pq, ex ? acc : NULL, &te));
    res->t_exchange += te;
    res->t_spmv += MPI_Wtime() - t - te;
    if (ex)
      PM_TRY(exact_reduce(cg, 1, 2, &pq, &res->t_reduce));
    else
      PM_TRY(allreduce(comm, &pq, 1, &res->t_reduce));
    PM_TRY_CHECK(isfinite(pq) && pq > 0, PM_ERR_SOLVER,
                 "CG breakdown at iteration %d: p.Ap = %g (the matrix is not positive definite: check the "
                 "conductivity's sign and that a Dirichlet condition fixes the solution)",
                 it, pq);
    alpha = rho / pq;
    t = MPI_Wtime();
    double s2[2];
    if (ex) {
      update_exact(acc, r, q, w, alpha, n);
      res->t_update += MPI_Wtime() - t;
      PM_TRY(exact_reduce(cg, w ? 2 : 1, 2, s2, &res->t_reduce));
      if (!w) s2[1] = s2[0];
    } else {
      update(r, q, w, alpha, n, s2);
      res->t_update += MPI_Wtime() - t;
      PM_TRY(allreduce(comm, s2, w ? 2 : 1, &res->t_reduce));
      if (!w) s2[1] = s2[0];
    }
    rho_old = rho;
    rho = s2[0];
    rr = s2[1];
    PM_TRY_CHECK(isfinite(rho) && isfinite(rr), PM_ERR_SOLVER, "CG: the residual became NaN or Inf at iteration %d",
                 it);
    rel = sqrt(rr) / bnorm;
    monitor(opt, rank, it, rel);
  }
  /* The last step's update of x, then x = S y. */
  t = MPI_Wtime();
  if (it > 0)
    for (int32_t i = 0; i < n; i++) x[i] += alpha * p[i];
  if (jacobi)
    for (int32_t i = 0; i < n; i++) x[i] *= sc[i];
  res->t_update += MPI_Wtime() - t;
  PM_TRY(finish(cg, b, x, q, it, rel, bnorm, opt, t_start, res));
cleanup:
  return ierr;
}
