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

#include "base/pm_comm_int.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

/* The Chebyshev interval as fractions of the estimate: above it (the estimate is from below)
 * and a fifth of it below, where the coarse correction takes over.  PETSc's GAMG takes a tenth,
 * hypre three tenths; a fifth took one iteration fewer than a tenth on every benchmark grid and
 * on the triangle mesh (degree 2: a narrower interval damps its upper end harder). */
static const double CHEB_HI = 1.1, CHEB_LO = 0.2;

/* The kinds of fused sweep (pm_amg_kern.h): the start from a nonzero iterate, a smoothing step,
 * and the last step's residual. */
typedef enum pass_kind { PASS_START, PASS_STEP, PASS_LAST } pass_kind_t;

typedef struct pm_amg_pass {
  void *v;              /* the vector multiplied (its externals refreshed first) */
  const void *b;        /* the right-hand side */
  void *r, *w, *wn, *x; /* residual, direction, next direction, iterate */
  double al, be;        /* wn = al w + be Dinv r (START: w = be Dinv r) */
  int set;              /* x = w instead of x += w (x was zero) */
} pm_amg_pass_t;

/* The polynomial's coefficients: Chebyshev's three-term recurrence, or Jacobi's constant damping. */
typedef struct smooth_coef {
  int cheb;
  double c0, omega, sigma, rho, delta;
} smooth_coef_t;

static void smooth_coef_init(const pm_amg_hier_t *h, const pm_amg_level_t *lv, smooth_coef_t *c) {
  double hi = CHEB_HI * lv->lmax, lo = CHEB_LO * lv->lmax, theta = 0.5 * (hi + lo);
  c->cheb = h->opt.smoother == PM_AMG_CHEBYSHEV;
  c->omega = lv->omega;
  c->delta = 0.5 * (hi - lo);
  c->sigma = theta / c->delta;
  c->rho = 1.0 / c->sigma;
  c->c0 = c->cheb ? 1.0 / theta : lv->omega;
}

static void smooth_coef_next(smooth_coef_t *c, double *al, double *be) {
  *al = 0.0;
  *be = c->omega;
  if (c->cheb) {
    double rn = 1.0 / (2.0 * c->sigma - c->rho);
    *al = rn * c->rho;
    *be = 2.0 * rn / c->delta;
    c->rho = rn;
  }
}

int pm_amg_smoother_setup(pm_amg_hier_t *h, pm_amg_level_t *lv) {
  const pm_csr_t *a = lv->a;
  int32_t n = a->n;
  int single = h->opt.precision != PM_AMG_DOUBLE;
  PM_CALL(pm_malloc_(&lv->dinv, (size_t)n + 1, single ? sizeof(float) : sizeof(double), "smoother diagonal", __FILE__,
                     __LINE__));
  for (int32_t i = 0; i < n; i++) {
    double d = a->d ? a->d[i] : 1.0;
    if (h->opt.smoother == PM_AMG_L1_JACOBI) {
      d = fabs(d);
      for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) d += fabs(a->amat[k]);
    }
    d = d != 0.0 ? 1.0 / d : 1.0;
    if (single)
      ((float *)lv->dinv)[i] = (float)d;
    else
      ((double *)lv->dinv)[i] = d;
  }
  lv->omega = h->opt.smoother == PM_AMG_L1_JACOBI ? 1.0 : 4.0 / (3.0 * lv->lmax);
  return PM_OK;
}

static int pm_amg_direct_solve(pm_amg_hier_t *h, pm_amg_level_t *lv);

#define T float
#define V float
#define R(name) name##_s
#include "pm_amg_rows.h"
#undef V
#undef R
#define V double
#define R(name) name##_w
#include "pm_amg_rows.h"
#undef T
#undef V
#undef R
#define T double
#define V double
#define R(name) name##_d
#include "pm_amg_rows.h"
#undef T
#undef V
#undef R

#define T float
#define F(name) name##_s
#define MPI_T MPI_FLOAT
#define ROWS_WIDE rows_w
#include "pm_amg_kern.h"
#undef ROWS_WIDE
#undef T
#undef F
#undef MPI_T
#define T double
#define F(name) name##_d
#define MPI_T MPI_DOUBLE
#include "pm_amg_kern.h"
#undef T
#undef F
#undef MPI_T

int pm_amg_level_values(pm_amg_hier_t *h, int l) {
  pm_amg_level_t *lv = &h->lev[l];
  int single = h->opt.precision != PM_AMG_DOUBLE;
  lv->own_values = single;
  lv->wide = single && l == 0 && (h->wide0 || h->opt.precision == PM_AMG_MIXED);
  if (lv->p) PM_CALL(single ? level_row_weights_s(lv) : level_row_weights_d(lv));
  PM_CALL(single ? level_values_s(lv, 1) : level_values_d(lv, 0));
  if (!lv->p) return PM_OK;
  /* What the cycle does not read goes, before P^T is built beside it: P's global ids and, in
   * single, the double values of P (copied or reduced to row weights above) and of the levels
   * the hierarchy made (not the caller's, nor the coarsest, still to be factored). */
  free(lv->p->gcol);
  lv->p->gcol = NULL;
  if (single) {
    free(lv->p->val);
    lv->p->val = NULL;
    if (lv->own) {
      free(lv->own->amat);
      free(lv->own->d);
      lv->own->amat = NULL;
      lv->own->d = NULL;
    }
  }
  int32_t ncol = lv->xdm ? lv->xdm->ncol : h->lev[l + 1].dm->ncol;
  return single ? level_transpose_s(lv, ncol) : level_transpose_d(lv, ncol);
}

/* ---------------------------------------------------------------- the coarsest level */

void pm_amg_direct_free(pm_amg_direct_t *d) {
  free(d->l);
  free(d->y);
  free(d->bl);
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
  if (!ierr) ierr = PM_MALLOC(d->bl, (size_t)n + 1, "coarse right-hand side");
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

/* y = the coarsest level's solution for the right-hand sides d->bl of every rank. */
static int pm_amg_direct_solve(pm_amg_hier_t *h, pm_amg_level_t *lv) {
  pm_amg_direct_t *d = &h->dir;
  int32_t N = d->n, n = lv->a->n;
  MPI_Request rq;
  PM_CALL_MPI(
      pm_comm_wait(MPI_Iallgatherv(d->bl, n, MPI_DOUBLE, d->y, d->count, d->off, MPI_DOUBLE, lv->dm->comm, &rq), &rq));
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
  return PM_OK;
}

/* ---------------------------------------------------------------- the cycle */

int pm_amg_vcycle(pm_amg_hier_t *h, const double *r, double *z) {
  double t = MPI_Wtime();
  if (h->opt.precision != PM_AMG_DOUBLE) {
    pm_amg_level_t *lv = &h->lev[0];
    float *b = lv->b, *x = lv->x;
    int32_t n = lv->a->n;
    for (int32_t i = 0; i < n; i++) b[i] = (float)r[i];
    PM_CALL(cycle_s(h, 0, b, x));
    for (int32_t i = 0; i < n; i++) z[i] = (double)x[i];
  } else {
    PM_CALL(cycle_d(h, 0, r, z));
  }
  h->t_cycle += MPI_Wtime() - t;
  h->info.cycles++;
  return PM_OK;
}
