/* pm_amg_cycle.c - the V-cycle: polynomial smoothers, restriction and prolongation through the
 * coarse levels' halos, and the coarsest level's dense Cholesky solve.
 *
 * Smoothing before the coarse correction starts from zero and leaves the residual that is
 * restricted; smoothing after it starts from the corrected iterate.  Both apply the same
 * polynomial in D^-1 A (Chebyshev, or damped/l1 Jacobi sweeps), which is self-adjoint in the A
 * inner product, so the cycle is symmetric; it is positive definite when the smoother reduces
 * every error component, which the upper end of the interval (1.1 times the Lanczos estimate,
 * itself from below) ensures.  A level on fewer ranks (pm_amg_agglom.h) changes only who owns
 * the coarse rows in P and P^T: the ranks idle below it restrict, wait for the correction and
 * prolongate it. */
#include "pm_amg_cycle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

/* The Chebyshev interval as fractions of the estimate: above it (the estimate is from below)
 * and a tenth of it below, where the coarse correction takes over (PETSc's GAMG uses the same). */
static const double CHEB_HI = 1.1, CHEB_LO = 0.1;

int pm_amg_smoother_setup(pm_amg_hier_t *h, pm_amg_level_t *lv) {
  const pm_csr_t *a = lv->a;
  int32_t n = a->n;
  PM_CALL(PM_MALLOC(lv->dinv, n + 1, "smoother diagonal"));
  for (int32_t i = 0; i < n; i++) {
    double d = a->d ? a->d[i] : 1.0;
    if (h->opt.smoother == PM_AMG_L1_JACOBI) {
      d = fabs(d);
      for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) d += fabs(a->amat[k]);
    }
    lv->dinv[i] = d != 0.0 ? 1.0 / d : 1.0;
  }
  lv->omega = h->opt.smoother == PM_AMG_L1_JACOBI ? 1.0 : 4.0 / (3.0 * lv->lmax);
  return PM_OK;
}

/* r -= A w (q: scratch), then w = alpha w + beta Dinv r and x += w, in one sweep.  zero: x was
 * zero, so x = w. */
static int smooth(const pm_amg_hier_t *h, pm_amg_level_t *lv, const double *b, double *x, int zero, int want_r) {
  const pm_csr_t *a = lv->a;
  int32_t n = a->n;
  double *r = lv->r, *q = lv->q, *w = lv->w;
  const double *dinv = lv->dinv;
  int k = h->opt.sweeps, cheb = h->opt.smoother == PM_AMG_CHEBYSHEV;
  double hi = CHEB_HI * lv->lmax, lo = CHEB_LO * lv->lmax;
  double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta, rho = 1.0 / sigma;
  double c0 = cheb ? 1.0 / theta : lv->omega;
  if (zero) {
    for (int32_t i = 0; i < n; i++) {
      r[i] = b[i];
      w[i] = c0 * dinv[i] * b[i];
      x[i] = w[i];
    }
  } else {
    PM_CALL(pm_csr_spmv(a, lv->halo, x, q, NULL, NULL));
    for (int32_t i = 0; i < n; i++) {
      r[i] = b[i] - q[i];
      w[i] = c0 * dinv[i] * r[i];
      x[i] += w[i];
    }
  }
  for (int s = 1; s < k; s++) {
    double al = 0.0, be = lv->omega;
    if (cheb) {
      double rn = 1.0 / (2.0 * sigma - rho);
      al = rn * rho;
      be = 2.0 * rn / delta;
      rho = rn;
    }
    PM_CALL(pm_csr_spmv(a, lv->halo, w, q, NULL, NULL));
    for (int32_t i = 0; i < n; i++) {
      double ri = r[i] - q[i];
      double wi = al * w[i] + be * dinv[i] * ri;
      r[i] = ri;
      w[i] = wi;
      x[i] += wi;
    }
  }
  if (want_r) {
    PM_CALL(pm_csr_spmv(a, lv->halo, w, q, NULL, NULL));
    for (int32_t i = 0; i < n; i++) r[i] -= q[i];
  }
  return PM_OK;
}

/* ---------------------------------------------------------------- the coarsest level */

void pm_amg_direct_free(pm_amg_direct_t *d) {
  free(d->l);
  free(d->y);
  free(d->count);
  free(d->off);
  memset(d, 0, sizeof *d);
}

typedef struct trip {
  int64_t i, j;
  double v;
} trip_t;

int pm_amg_direct_setup(pm_amg_hier_t *h, pm_amg_level_t *lv) {
  int ierr = PM_OK, P;
  const pm_csr_t *a = lv->a;
  const pm_dmat_t *dm = lv->dm;
  pm_amg_direct_t *d = &h->dir;
  trip_t *mine = NULL, *all = NULL;
  int *cnt = NULL, *off = NULL;
  MPI_Comm comm = dm->comm;
  MPI_Comm_size(comm, &P);
  int32_t n = a->n, N = (int32_t)dm->nglobal;
  d->n = N;
  int32_t nm = n + a->index[n];
  ierr = PM_MALLOC(d->count, P, "coarse counts");
  if (!ierr) ierr = PM_MALLOC(d->off, P, "coarse offsets");
  if (!ierr) ierr = PM_CALLOC(d->l, (size_t)N * N + 1, "coarse factor");
  if (!ierr) ierr = PM_MALLOC(d->y, (size_t)N + 1, "coarse vector");
  if (!ierr) ierr = PM_MALLOC(mine, (size_t)nm + 1, "coarse rows");
  if (!ierr) ierr = PM_MALLOC(cnt, 2 * (size_t)P, "coarse counts");
  PM_TRY(pm_comm_agree(comm, ierr));
  off = cnt + P;
  for (int q = 0; q < P; q++) {
    d->count[q] = (int)(dm->range[q + 1] - dm->range[q]);
    d->off[q] = (int)dm->range[q];
  }
  int32_t w = 0;
  for (int32_t i = 0; i < n; i++) {
    int64_t gi = dm->gid[i];
    mine[w++] = (trip_t){gi, gi, a->d ? a->d[i] : 1.0};
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) mine[w++] = (trip_t){gi, dm->gid[a->item[k]], a->amat[k]};
  }
  int bytes = (int)(w * sizeof(trip_t));
  PM_TRY_MPI(MPI_Allgather(&bytes, 1, MPI_INT, cnt, 1, MPI_INT, comm));
  size_t total = 0;
  for (int q = 0; q < P; q++) {
    off[q] = (int)total;
    total += (size_t)cnt[q];
  }
  ierr = PM_MALLOC(all, total / sizeof(trip_t) + 1, "coarse matrix");
  PM_TRY(pm_comm_agree(comm, ierr));
  {
    MPI_Request rq;
    int rc = pm_comm_wait(MPI_Iallgatherv(mine, bytes, MPI_BYTE, all, cnt, off, MPI_BYTE, comm, &rq), &rq);
    if (rc != MPI_SUCCESS) {
      ierr = pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Allgatherv (coarsest level)");
      goto cleanup;
    }
  }
  double *L = d->l;
  for (size_t t = 0; t < total / sizeof(trip_t); t++) L[all[t].i * N + all[t].j] += all[t].v;
  /* Cholesky, row-major lower triangle: L[i][j] for j <= i. */
  for (int32_t j = 0; j < N && !ierr; j++) {
    double s = L[(size_t)j * N + j];
    for (int32_t k = 0; k < j; k++) s -= L[(size_t)j * N + k] * L[(size_t)j * N + k];
    if (!(s > 0) || !isfinite(s)) {
      ierr = pm_error_set(PM_ERR_SOLVER, __FILE__, __LINE__,
                          "AMG: the coarsest operator (%d rows) is not positive definite (pivot %g at row %d): the "
                          "matrix is singular or indefinite (a steady problem needs a Dirichlet condition)",
                          (int)N, s, (int)j);
      break;
    }
    double ljj = sqrt(s);
    L[(size_t)j * N + j] = ljj;
    for (int32_t i = j + 1; i < N; i++) {
      double t = L[(size_t)i * N + j];
      const double *li = L + (size_t)i * N, *lj = L + (size_t)j * N;
      for (int32_t k = 0; k < j; k++) t -= li[k] * lj[k];
      L[(size_t)i * N + j] = t / ljj;
    }
  }
  /* Every rank computed the same factor from the same data: the failure is everyone's. */
cleanup:
  free(mine);
  free(all);
  free(cnt);
  return ierr;
}

static int direct_solve(pm_amg_hier_t *h, pm_amg_level_t *lv, const double *b, double *x) {
  pm_amg_direct_t *d = &h->dir;
  int32_t N = d->n, n = lv->a->n;
  int rank = lv->dm->rank;
  MPI_Request rq;
  PM_CALL_MPI(
      pm_comm_wait(MPI_Iallgatherv(b, n, MPI_DOUBLE, d->y, d->count, d->off, MPI_DOUBLE, lv->dm->comm, &rq), &rq));
  const double *L = d->l;
  double *y = d->y;
  for (int32_t i = 0; i < N; i++) {
    double s = y[i];
    const double *li = L + (size_t)i * N;
    for (int32_t k = 0; k < i; k++) s -= li[k] * y[k];
    y[i] = s / li[i];
  }
  for (int32_t i = N - 1; i >= 0; i--) {
    double s = y[i];
    for (int32_t k = i + 1; k < N; k++) s -= L[(size_t)k * N + i] * y[k];
    y[i] = s / L[(size_t)i * N + i];
  }
  memcpy(x, y + d->off[rank], (size_t)n * sizeof *x);
  return PM_OK;
}

/* ---------------------------------------------------------------- the cycle */

static int cycle(pm_amg_hier_t *h, int l, const double *b, double *x) {
  pm_amg_level_t *lv = &h->lev[l];
  if (l == h->nlev - 1) {
    if (h->direct) return direct_solve(h, lv, b, x);
    PM_CALL(smooth(h, lv, b, x, 1, 0));
    return smooth(h, lv, b, x, 0, 0);
  }
  pm_amg_level_t *cv = &h->lev[l + 1];
  const pm_amg_p_t *p = lv->p;
  /* P's columns: the next level's layout, or the transfer layout when the next level is on
   * fewer ranks (its owned rows are the next level's, in the same order). */
  const pm_dmat_t *t = lv->xdm ? lv->xdm : cv->dm;
  double *tb = lv->xdm ? lv->xv : cv->b, *tx = lv->xdm ? lv->xv : cv->x;
  int32_t n = lv->a->n, nc = t->n;
  PM_CALL(smooth(h, lv, b, x, 1, 1));
  /* b_c = P^T r: the local rows' sums, the externals' parts accumulated at their owners. */
  memset(tb, 0, (size_t)t->ncol * sizeof *tb);
  for (int32_t i = 0; i < n; i++) {
    double ri = lv->r[i];
    for (int32_t k = p->ptr[i]; k < p->ptr[i + 1]; k++) tb[p->col[k]] += p->val[k] * ri;
  }
  PM_CALL(pm_halo_accumulate(t->halo, tb, MPI_DOUBLE, 1));
  if (!cv->idle) {
    if (tb != cv->b) memcpy(cv->b, tb, (size_t)nc * sizeof *tb);
    PM_CALL(cycle(h, l + 1, cv->b, cv->x));
    if (tx != cv->x) memcpy(tx, cv->x, (size_t)nc * sizeof *tx);
  }
  /* x += P x_c, with x_c's externals from their owners. */
  PM_CALL(pm_halo_update(t->halo, tx, MPI_DOUBLE, 1));
  for (int32_t i = 0; i < n; i++) {
    double s = 0;
    for (int32_t k = p->ptr[i]; k < p->ptr[i + 1]; k++) s += p->val[k] * tx[p->col[k]];
    x[i] += s;
  }
  return smooth(h, lv, b, x, 0, 0);
}

int pm_amg_vcycle(pm_amg_hier_t *h, const double *r, double *z) {
  double t = MPI_Wtime();
  PM_CALL(cycle(h, 0, r, z));
  h->t_cycle += MPI_Wtime() - t;
  h->info.cycles++;
  return PM_OK;
}
