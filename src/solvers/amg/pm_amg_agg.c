/* pm_amg_agg.c - strength, aggregates, the smoothed prolongator, the eigenvalue estimate. */
#include "pm_amg_agg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

void pm_amg_p_destroy(pm_amg_p_t **p) {
  if (!p || !*p) return;
  free((*p)->ptr);
  free((*p)->gcol);
  free((*p)->col);
  free((*p)->val);
  free(*p);
  *p = NULL;
}

static inline int strong(double aij, double di, double dj, double theta) {
  return aij != 0.0 && fabs(aij) >= theta * sqrt(fabs(di * dj));
}

enum { FREE = -2, LEFT_OUT = -1 };

int pm_amg_aggregate(const pm_csr_t *a, const double *d, double theta, int32_t *agg, int32_t *nagg) {
  int ierr = PM_OK;
  int32_t n = a->n, k = 0;
  int32_t *join = NULL;
  PM_TRY(PM_MALLOC(join, n + 1, "aggregation"));
  /* Rows without any off-diagonal (eliminated Dirichlet rows, decoupled nodes) stay out: the
   * smoother alone solves them.  Any other row is aggregated, even when all its ties are weak:
   * a row left out is never coarse-corrected, and a threshold above the operator's typical
   * tie would leave most rows out. */
  for (int32_t i = 0; i < n; i++) {
    agg[i] = LEFT_OUT;
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++)
      if (a->amat[q] != 0.0) {
        agg[i] = FREE;
        break;
      }
  }
  /* Phase 1: a free row whose strong internal neighbours are all free founds an aggregate with
   * them (a row whose strong neighbours are all external waits for phase 3). */
  for (int32_t i = 0; i < n; i++) {
    if (agg[i] != FREE) continue;
    int ok = 1, any = 0;
    for (int32_t q = a->index[i]; q < a->index[i + 1] && ok; q++) {
      int32_t j = a->item[q];
      if (j >= n || !strong(a->amat[q], d[i], d[j], theta)) continue;
      any = 1;
      ok = agg[j] == FREE;
    }
    if (!ok || !any) continue;
    agg[i] = k;
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) {
      int32_t j = a->item[q];
      if (j < n && strong(a->amat[q], d[i], d[j], theta)) agg[j] = k;
    }
    k++;
  }
  /* Phase 2: a free row joins the phase-1 aggregate it is most strongly tied to. */
  for (int32_t i = 0; i < n; i++) {
    join[i] = -1;
    if (agg[i] != FREE) continue;
    double best = 0;
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) {
      int32_t j = a->item[q];
      if (j >= n || agg[j] < 0 || !strong(a->amat[q], d[i], d[j], theta)) continue;
      double s = fabs(a->amat[q]) / sqrt(fabs(d[i] * d[j]));
      if (s > best) {
        best = s;
        join[i] = agg[j];
      }
    }
  }
  for (int32_t i = 0; i < n; i++)
    if (join[i] >= 0) agg[i] = join[i];
  /* Phase 3: what is left forms aggregates with its free strong neighbours (a row with only
   * weak ties: with its free neighbours, so a level whose ties all fall below the threshold
   * still coarsens). */
  for (int32_t i = 0; i < n; i++) {
    if (agg[i] != FREE) continue;
    int has_strong = 0;
    for (int32_t q = a->index[i]; q < a->index[i + 1] && !has_strong; q++)
      has_strong = strong(a->amat[q], d[i], d[a->item[q]], theta);
    agg[i] = k;
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) {
      int32_t j = a->item[q];
      if (j < n && agg[j] == FREE && (has_strong ? strong(a->amat[q], d[i], d[j], theta) : a->amat[q] != 0.0))
        agg[j] = k;
    }
    k++;
  }
  *nagg = k;
cleanup:
  free(join);
  return ierr;
}

int pm_amg_prolongator(const pm_csr_t *a, const int64_t *cagg, double omega, pm_amg_p_t **pp) {
  int ierr = PM_OK;
  int32_t n = a->n;
  pm_amg_p_t *p = NULL;
  *pp = NULL;
  PM_TRY(PM_CALLOC(p, 1, "prolongator"));
  p->n = n;
  PM_TRY(PM_MALLOC(p->ptr, n + 1, "prolongator rows"));
  /* Upper bound: one entry per nonzero of A plus the row's own aggregate. */
  size_t cap = (size_t)a->index[n] + (size_t)n + 1;
  PM_TRY(PM_MALLOC(p->gcol, cap, "prolongator columns"));
  PM_TRY(PM_MALLOC(p->val, cap, "prolongator values"));
  int32_t w = 0;
  p->ptr[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    double di = a->d ? a->d[i] : 1.0, s = omega / di;
    int32_t b = w;
    if (cagg[i] >= 0) {
      p->gcol[w] = cagg[i];
      p->val[w++] = 1.0 - omega;
    }
    for (int32_t q = a->index[i]; q < a->index[i + 1] && s != 0.0; q++) {
      int64_t c = cagg[a->item[q]];
      if (c < 0 || a->amat[q] == 0.0) continue;
      int32_t at = b;
      while (at < w && p->gcol[at] != c) at++;
      if (at == w) {
        p->gcol[w] = c;
        p->val[w++] = 0.0;
      }
      p->val[at] -= s * a->amat[q];
    }
    p->ptr[i + 1] = w;
  }
  PM_TRY(PM_REALLOC(p->gcol, w + 1, "prolongator columns"));
  PM_TRY(PM_REALLOC(p->val, w + 1, "prolongator values"));
  *pp = p;
  p = NULL;
cleanup:
  pm_amg_p_destroy(&p);
  return ierr;
}

/* Largest eigenvalue of the symmetric tridiagonal matrix (diag a[m], off-diagonal b[m-1]):
 * bisection on the Sturm count. */
static double tridiag_max(const double *a, const double *b, int m) {
  double lo = INFINITY, hi = -INFINITY;
  for (int i = 0; i < m; i++) {
    double r = (i > 0 ? fabs(b[i - 1]) : 0) + (i < m - 1 ? fabs(b[i]) : 0);
    lo = fmin(lo, a[i] - r);
    hi = fmax(hi, a[i] + r);
  }
  for (int it = 0; it < 100 && hi - lo > 1e-12 * fmax(1.0, fabs(hi)); it++) {
    double x = 0.5 * (lo + hi), q = 1;
    int above = 0; /* eigenvalues greater than x */
    for (int i = 0; i < m; i++) {
      q = a[i] - x - (i > 0 ? b[i - 1] * b[i - 1] / q : 0);
      if (q == 0) q = 1e-300;
      above += q > 0;
    }
    if (above > 0)
      lo = x;
    else
      hi = x;
  }
  return hi;
}

static double hash01(int64_t g) {
  uint64_t z = (uint64_t)g + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

enum { LANCZOS_MAX = 32 };

int pm_amg_lmax(const pm_csr_t *a, pm_halo_t *halo, pm_op_t *op, const int64_t *gid, int steps, double *work,
                double *lmax) {
  int32_t n = a->n, np = a->ncol;
  MPI_Comm comm = op ? pm_op_comm(op) : pm_halo_comm(halo);
  double *r = work, *z = work + np, *p = work + 2 * (size_t)np, *q = work + 3 * (size_t)np;
  double alpha[LANCZOS_MAX], beta[LANCZOS_MAX], td[LANCZOS_MAX], te[LANCZOS_MAX];
  if (steps > LANCZOS_MAX) steps = LANCZOS_MAX;
  double rz = 0;
  for (int32_t i = 0; i < n; i++) {
    double di = a->d ? a->d[i] : 1.0;
    r[i] = hash01(gid[i]) - 0.5;
    z[i] = r[i] / di;
    p[i] = z[i];
    rz += r[i] * z[i];
  }
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, &rz, 1, MPI_DOUBLE, MPI_SUM, comm));
  int m = 0;
  while (m < steps && rz > 0) {
    double pq;
    if (op) { /* a shell operator (the matrix-free finest level): its product, then p.q */
      PM_CALL(pm_op_apply(op, p, q));
      pq = 0;
      for (int32_t i = 0; i < n; i++) pq += p[i] * q[i];
    } else {
      PM_CALL(pm_csr_spmv(a, halo, p, q, &pq, NULL));
    }
    PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, &pq, 1, MPI_DOUBLE, MPI_SUM, comm));
    if (!(pq > 0) || !isfinite(pq)) break;
    alpha[m] = rz / pq;
    double rz2 = 0;
    for (int32_t i = 0; i < n; i++) {
      double di = a->d ? a->d[i] : 1.0;
      r[i] -= alpha[m] * q[i];
      z[i] = r[i] / di;
      rz2 += r[i] * z[i];
    }
    PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, &rz2, 1, MPI_DOUBLE, MPI_SUM, comm));
    beta[m] = rz2 / rz;
    rz = rz2;
    for (int32_t i = 0; i < n; i++) p[i] = z[i] + beta[m] * p[i];
    m++;
    if (!isfinite(rz)) break;
  }
  if (m == 0) {
    *lmax = 1.0; /* no positive direction (an empty or zero operator): any value serves */
    return PM_OK;
  }
  for (int k = 0; k < m; k++) {
    td[k] = 1.0 / alpha[k] + (k > 0 ? beta[k - 1] / alpha[k - 1] : 0.0);
    if (k < m - 1) te[k] = sqrt(beta[k]) / alpha[k];
  }
  *lmax = tridiag_max(td, te, m);
  return PM_OK;
}
