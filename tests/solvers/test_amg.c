/* test_amg.c - the AMG preconditioner and its pieces, run under mpiexec.
 *
 *   test_amg MESH [--halo edge]
 *
 * Every rank partitions MESH (METIS, one part per rank) and assembles -lap u = f with Dirichlet
 * values on `boundary` (FEM, or the 5-point scheme with --halo edge), as test_cg does.  Checks:
 *  - aggregates: every row with a nonzero off-diagonal lies in exactly one aggregate of its
 *    rank, every aggregate is used, rows without one (eliminated Dirichlet rows) stay out;
 *  - P: with omega = 0 every aggregated row has the single entry 1 (P_tent); smoothed, the row
 *    sums are 1 - omega (A 1)_i / a_ii wherever row i and its neighbours are aggregated;
 *  - P^T A P from distributed rows equals a dense product of the gathered A and P (rank 0);
 *  - the coarsest solve is exact: one level (the fine matrix factored) makes CG converge at once;
 *  - the AMG-CG solution equals the Jacobi-CG one to the solver tolerance, in at most 30
 *    iterations, with operator complexity below 2 and at least two levels;
 *  - agglomeration (rows_per_rank): the levels are on the ranks the rule gives (a level of R
 *    rows whose parent is on S ranks goes onto max(1, R / rows_per_rank) of them when R <
 *    rows_per_rank S); the solution is the one without agglomeration, in at most 2 more
 *    iterations; with only the coarsest level moved (the same hierarchy) one V-cycle gives the
 *    same vector as the coarsest level factored on every rank, so the direct solve on fewer
 *    ranks is as exact; on a 1D operator whose rank 1 owns no row the solution is the exact
 *    one, and a coarsest level that is not positive definite fails on every rank, the idle
 *    ones included, without a hang;
 *  - bad options are refused with PM_ERR_ARG. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_amg.h"
#include "pmesh/pm_cg.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_pc.h"
#include "pmesh/pm_problem.h"
#include "solvers/amg/pm_amg_agg.h"
#include "solvers/amg/pm_amg_rap.h"
#include "solvers/amg/pm_dmat.h"
#include "tu_check.h"
#include "tu_part.h"

/* Printed at the end: the ranks per level of the agglomerated hierarchies, and whether the
 * hierarchy with only the coarsest level moved could be compared. */
static char g_note[512];

static void note_ranks(const char *what, const pm_amg_info_t *in) {
  size_t at = strlen(g_note);
  at += (size_t)snprintf(g_note + at, sizeof g_note - at, "%s%s ranks", at ? "; " : "", what);
  for (int l = 0; l < in->levels && at < sizeof g_note; l++)
    at += (size_t)snprintf(g_note + at, sizeof g_note - at, "%s%d", l ? "," : " ", in->ranks[l]);
}

typedef struct trip {
  int64_t i, j;
  double v;
} trip_t;

/* Gather triplets onto rank 0 (returns the count there). */
static trip_t *gather(MPI_Comm comm, const trip_t *t, int n, int *total) {
  int size, bytes = n * (int)sizeof(trip_t);
  MPI_Comm_size(comm, &size);
  int *cnt = calloc((size_t)size, sizeof *cnt), *off = calloc((size_t)size, sizeof *off);
  MPI_Gather(&bytes, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
  int s = 0;
  for (int q = 0; q < size; q++) {
    off[q] = s;
    s += cnt[q];
  }
  trip_t *all = malloc((size_t)s + sizeof(trip_t));
  MPI_Gatherv(t, bytes, MPI_BYTE, all, cnt, off, MPI_BYTE, 0, comm);
  *total = s / (int)sizeof(trip_t);
  free(cnt);
  free(off);
  return all;
}

/* The pieces on the fine level: aggregates, P, and P^T A P against a dense product. */
static void test_pieces(MPI_Comm comm, const pm_csr_t *a, pm_halo_t *halo) {
  int size;
  MPI_Comm_size(comm, &size);
  int32_t n = a->n, np = a->ncol, nagg = 0;
  double *d = malloc(((size_t)np + 1) * sizeof *d);
  int32_t *agg = malloc(((size_t)n + 1) * sizeof *agg);
  int64_t *cagg = malloc(((size_t)np + 1) * sizeof *cagg), *gid = malloc(((size_t)np + 1) * sizeof *gid);
  for (int32_t i = 0; i < n; i++) d[i] = a->d[i];
  OK(pm_halo_update(halo, d, MPI_DOUBLE, 1));
  OK(pm_amg_aggregate(a, d, 0.0, agg, &nagg));
  int *used = calloc((size_t)nagg + 1, sizeof *used);
  for (int32_t i = 0; i < n; i++) {
    int off = 0;
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) off |= a->amat[k] != 0.0;
    EXPECT(agg[i] >= -1 && agg[i] < nagg, "row %d: aggregate %d of %d", i, agg[i], nagg);
    EXPECT(off ? agg[i] >= 0 : agg[i] == -1, "row %d (off-diagonals %d) in aggregate %d", i, off, agg[i]);
    if (agg[i] >= 0) used[agg[i]]++;
  }
  for (int32_t c = 0; c < nagg; c++) EXPECT(used[c] > 0, "aggregate %d is empty", c);
  /* Numbering as the hierarchy does: a prefix sum over ranks. */
  int64_t *crange = calloc((size_t)size + 1, sizeof *crange), *range = calloc((size_t)size + 1, sizeof *range);
  int64_t mine = nagg, mrow = n;
  MPI_Allgather(&mine, 1, MPI_INT64_T, crange + 1, 1, MPI_INT64_T, comm);
  MPI_Allgather(&mrow, 1, MPI_INT64_T, range + 1, 1, MPI_INT64_T, comm);
  for (int q = 0; q < size; q++) {
    crange[q + 1] += crange[q];
    range[q + 1] += range[q];
  }
  for (int32_t i = 0; i < n; i++) {
    cagg[i] = agg[i] >= 0 ? crange[g_rank] + agg[i] : -1;
    gid[i] = range[g_rank] + i;
  }
  OK(pm_halo_update(halo, cagg, MPI_INT64_T, 1));
  OK(pm_halo_update(halo, gid, MPI_INT64_T, 1));
  pm_amg_p_t *pt = NULL, *p = NULL;
  OK(pm_amg_prolongator(a, cagg, 0.0, &pt));
  for (int32_t i = 0; i < n; i++) {
    int32_t len = pt->ptr[i + 1] - pt->ptr[i];
    if (agg[i] < 0) {
      EXPECT(len == 0, "P_tent row %d of a left-out row has %d entries", i, len);
      continue;
    }
    EXPECT(len == 1 && pt->gcol[pt->ptr[i]] == cagg[i] && pt->val[pt->ptr[i]] == 1.0,
           "P_tent row %d: %d entries, not the single 1 in column %lld", i, len, (long long)cagg[i]);
  }
  const double omega = 0.6;
  OK(pm_amg_prolongator(a, cagg, omega, &p));
  int checked = 0;
  for (int32_t i = 0; i < n; i++) {
    int all = cagg[i] >= 0;
    double rs = a->d[i];
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) {
      if (a->amat[k] == 0.0) continue;
      all &= cagg[a->item[k]] >= 0;
      rs += a->amat[k];
    }
    if (!all) continue;
    double s = 0;
    for (int32_t k = p->ptr[i]; k < p->ptr[i + 1]; k++) s += p->val[k];
    double want = 1.0 - omega * rs / a->d[i];
    EXPECT(fabs(s - want) <= 1e-12 * (1 + fabs(want)), "P row %d sums to %.17g, not %.17g", i, s, want);
    checked++;
  }
  int tot_checked = checked;
  MPI_Allreduce(MPI_IN_PLACE, &tot_checked, 1, MPI_INT, MPI_SUM, comm);
  EXPECT(tot_checked > 0, "no row of P was checked");

  /* P^T A P distributed against the dense product of the gathered A and P. */
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  pm_dmat_t *fdm = NULL, *cdm = NULL;
  pm_csr_t *ac = NULL;
  OK(pm_dmat_create(dup, n, range, gid + n, np - n, 0, &fdm));
  OK(pm_amg_rap(a, fdm, p, crange, &cdm, &ac));
  EXPECT(cdm->nglobal == crange[size] && ac->n == crange[g_rank + 1] - crange[g_rank], "coarse sizes");
  int nt = 0, cap = a->index[n] + n + p->ptr[n] + ac->index[ac->n] + ac->n + 1;
  trip_t *ta = malloc((size_t)cap * sizeof *ta);
  int na = 0, npp = 0, nac = 0;
  for (int32_t i = 0; i < n; i++) {
    ta[nt++] = (trip_t){gid[i], gid[i], a->d[i]};
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) ta[nt++] = (trip_t){gid[i], gid[a->item[k]], a->amat[k]};
  }
  na = nt;
  for (int32_t i = 0; i < n; i++)
    for (int32_t k = p->ptr[i]; k < p->ptr[i + 1]; k++) {
      EXPECT(cdm->gid[p->col[k]] == p->gcol[k], "P local column %d is not coarse id %lld", p->col[k],
             (long long)p->gcol[k]);
      ta[nt++] = (trip_t){gid[i], p->gcol[k], p->val[k]};
    }
  npp = nt - na;
  for (int32_t i = 0; i < ac->n; i++) {
    ta[nt++] = (trip_t){cdm->gid[i], cdm->gid[i], ac->d[i]};
    for (int32_t k = ac->index[i]; k < ac->index[i + 1]; k++)
      ta[nt++] = (trip_t){cdm->gid[i], cdm->gid[ac->item[k]], ac->amat[k]};
  }
  nac = nt - na - npp;
  int ga, gp, gc;
  trip_t *A = gather(comm, ta, na, &ga), *Pm = gather(comm, ta + na, npp, &gp),
         *C = gather(comm, ta + na + npp, nac, &gc);
  if (g_rank == 0) {
    int64_t N = range[size], M = crange[size];
    /* P's rows by fine id (a counting sort of the triplets), then C = sum over A's entries
     * a_ij P(i,:)^T P(j,:) into a dense M x M array. */
    int *pp = calloc((size_t)N + 1, sizeof *pp), *pi = malloc(((size_t)gp + 1) * sizeof *pi);
    for (int t = 0; t < gp; t++) pp[Pm[t].i + 1]++;
    for (int64_t i = 0; i < N; i++) pp[i + 1] += pp[i];
    int *fill = calloc((size_t)N + 1, sizeof *fill);
    for (int t = 0; t < gp; t++) pi[pp[Pm[t].i] + fill[Pm[t].i]++] = t;
    double *dC = calloc((size_t)(M * M), sizeof *dC), *ref = calloc((size_t)(M * M), sizeof *ref);
    for (int t = 0; t < gc; t++) dC[C[t].i * M + C[t].j] += C[t].v;
    for (int t = 0; t < ga; t++) {
      if (A[t].v == 0.0) continue;
      for (int k1 = pp[A[t].i]; k1 < pp[A[t].i + 1]; k1++)
        for (int k2 = pp[A[t].j]; k2 < pp[A[t].j + 1]; k2++) {
          const trip_t *p1 = &Pm[pi[k1]], *p2 = &Pm[pi[k2]];
          ref[p1->j * M + p2->j] += p1->v * A[t].v * p2->v;
        }
    }
    double err = 0, scale = 0;
    for (int64_t c = 0; c < M * M; c++) {
      err = fmax(err, fabs(ref[c] - dC[c]));
      scale = fmax(scale, fabs(ref[c]));
    }
    EXPECT(err <= 1e-12 * scale,
           "P^T A P differs from the product of the gathered A and P by %g (scale %g, %lld x %lld)", err, scale,
           (long long)M, (long long)M);
    free(pp);
    free(pi);
    free(fill);
    free(dC);
    free(ref);
  }
  free(A);
  free(Pm);
  free(C);
  free(ta);
  pm_csr_destroy(&ac);
  pm_dmat_destroy(&cdm);
  pm_dmat_destroy(&fdm);
  MPI_Comm_free(&dup);
  pm_amg_p_destroy(&pt);
  pm_amg_p_destroy(&p);
  free(d);
  free(agg);
  free(cagg);
  free(gid);
  free(used);
  free(crange);
  free(range);
}

/* The ranks of each level as the agglomeration rule gives them (the expectation, written
 * independently of pm_amg_agglom.c); returns how many levels moved onto fewer ranks. */
static int check_ranks(const pm_amg_info_t *in, int size, int64_t rpr, const char *what) {
  int S = size, moved = 0;
  EXPECT(in->ranks[0] >= 1 && in->ranks[0] <= size, "%s: level 0 on %d of %d ranks", what, in->ranks[0], size);
  for (int l = 1; l < in->levels; l++) {
    int64_t R = in->rows[l];
    if (rpr > 0 && R < rpr * S) {
      int k = R / rpr < 1 ? 1 : (int)(R / rpr);
      EXPECT(in->ranks[l] == k, "%s: level %d (%lld rows, parent on %d ranks) on %d ranks, expected %d", what, l,
             (long long)R, S, in->ranks[l], k);
      S = k;
      moved++;
    } else {
      EXPECT(in->ranks[l] >= 1 && in->ranks[l] <= S, "%s: level %d (%lld rows) on %d ranks, expected 1 to %d", what, l,
             (long long)R, in->ranks[l], S);
    }
  }
  EXPECT(!in->coarse_direct || in->coarse_ranks == S, "%s: coarsest level factored on %d ranks, expected %d", what,
         in->coarse_ranks, S);
  return moved;
}

static double max_diff(MPI_Comm comm, const double *x, const double *y, int32_t n, double *scale) {
  double v[2] = {0, 0};
  for (int32_t i = 0; i < n; i++) {
    v[0] = fmax(v[0], fabs(x[i] - y[i]));
    v[1] = fmax(v[1], fabs(y[i]));
  }
  pm_comm_allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm);
  *scale = v[1];
  return v[0];
}

/* The mesh's operator with and without agglomeration (coarse_size as the main test's). */
static void test_agglom_mesh(MPI_Comm comm, pm_op_t *a, const double *b, const double *u0, int64_t coarse_size) {
  int size;
  MPI_Comm_size(comm, &size);
  int32_t n = pm_op_n(a), np = pm_op_n_total(a);
  pm_cg_options_t opt = {.rtol = 1e-10, .maxit = 10000};
  pm_amg_options_t ao;
  pm_amg_options_default(&ao);
  ao.coarse_size = coarse_size;
  ao.precision = PM_AMG_DOUBLE; /* one V-cycle compared at 1e-12 below */
  pm_amg_info_t i0, i1;
  pm_cg_result_t r0, r1;
  pm_pc_t *pc0 = NULL, *pc1 = NULL;
  double *x0 = malloc(((size_t)np + 1) * sizeof *x0), *x1 = malloc(((size_t)np + 1) * sizeof *x1), scale;
  memcpy(x0, u0, ((size_t)np + 1) * sizeof *u0);
  memcpy(x1, u0, ((size_t)np + 1) * sizeof *u0);
  /* Without; and with a small rows_per_rank, so that the levels move in several steps. */
  ao.rows_per_rank = 0;
  OK(pm_pc_create_amg(&ao, &pc0));
  OK(pm_cg_solve(a, pc0, b, x0, &opt, &r0));
  OK(pm_amg_get_info(pc0, &i0));
  EXPECT(check_ranks(&i0, size, 0, "no agglomeration") == 0, "levels moved without agglomeration");
  ao.rows_per_rank = 30;
  OK(pm_pc_create_amg(&ao, &pc1));
  OK(pm_cg_solve(a, pc1, b, x1, &opt, &r1));
  OK(pm_amg_get_info(pc1, &i1));
  int moved = check_ranks(&i1, size, 30, "rows_per_rank 30");
  note_ranks("rows_per_rank 30:", &i1);
  EXPECT(size == 1 || i1.rows[i1.levels - 1] >= 30 * size || moved > 0, "rows_per_rank 30: no level moved");
  EXPECT(r0.converged && r1.converged, "converged without %d, with %d agglomeration", r0.converged, r1.converged);
  EXPECT(r1.iterations <= r0.iterations + 2, "%d iterations with agglomeration, %d without", r1.iterations,
         r0.iterations);
  double d = max_diff(comm, x1, x0, n, &scale);
  EXPECT(d <= 1e-8 * scale, "solutions with and without agglomeration differ by %g (scale %g)", d, scale);
  pm_pc_destroy(&pc1);
  /* Only the coarsest level moved: rows_per_rank at most every other coarse level's rows per
   * rank. */
  int64_t rpr = i0.levels > 2 ? INT64_MAX : i0.rows[i0.levels - 1] + 1;
  for (int l = 1; l + 1 < i0.levels; l++)
    if (i0.rows[l] / size < rpr) rpr = i0.rows[l] / size;
  /* (A hierarchy that stopped for stagnation, one row per rank, would go on below a moved level.) */
  int64_t last = i0.rows[i0.levels - 1];
  if (size > 1 && i0.levels >= 2 && i0.coarse_direct && last <= coarse_size && rpr >= 1 && last < rpr * size) {
    ao.rows_per_rank = rpr;
    OK(pm_pc_create_amg(&ao, &pc1));
    OK(pm_pc_setup(pc1, a));
    OK(pm_amg_get_info(pc1, &i1));
    EXPECT(check_ranks(&i1, size, rpr, "coarsest moved") == 1, "rows_per_rank %lld: not only the coarsest moved",
           (long long)rpr);
    int same = i1.levels == i0.levels;
    for (int l = 0; same && l < i0.levels; l++) same = i1.rows[l] == i0.rows[l] && i1.nonzeros[l] == i0.nonzeros[l];
    EXPECT(same, "rows_per_rank %lld: another hierarchy than without agglomeration", (long long)rpr);
    note_ranks("coarsest moved:", &i1);
    OK(pm_pc_apply(pc0, b, x0));
    OK(pm_pc_apply(pc1, b, x1));
    d = max_diff(comm, x1, x0, n, &scale);
    EXPECT(d <= 1e-12 * scale, "one V-cycle: coarsest on %d ranks and on all differ by %g (scale %g)", i1.coarse_ranks,
           d, scale);
    pm_pc_destroy(&pc1);
  }
  pm_pc_destroy(&pc0);
  free(x0);
  free(x1);
}

/* u_i' = (2 + shift) u_i - u_{i-1} - u_{i+1} over global rows 0..N-1, rank 1 owning none. */
static void lap1d(MPI_Comm comm, int64_t N, double shift, pm_csr_t **a, pm_dmat_t **dm) {
  int size, rank;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  int owners = size > 1 ? size - 1 : 1, slot = rank > 1 ? rank - 1 : rank;
  int32_t n = size > 1 && rank == 1 ? 0 : (int32_t)(N * (slot + 1) / owners - N * slot / owners);
  int64_t r0 = size > 1 && rank == 1 ? N * 1 / owners : N * slot / owners, ext[2];
  int32_t next = 0;
  if (n > 0 && r0 > 0) ext[next++] = r0 - 1;
  if (n > 0 && r0 + n < N) ext[next++] = r0 + n;
  OK(pm_dmat_create(comm, n, NULL, ext, next, 1, dm));
  pm_csr_t t = {0};
  t.n = n;
  t.ncol = (*dm)->ncol;
  t.d = malloc(((size_t)n + 1) * sizeof *t.d);
  t.index = malloc(((size_t)n + 1) * sizeof *t.index);
  t.item = malloc((2 * (size_t)n + 1) * sizeof *t.item);
  t.amat = malloc((2 * (size_t)n + 1) * sizeof *t.amat);
  t.index[0] = 0;
  for (int32_t i = 0, w = 0; i < n; i++) {
    int64_t g = r0 + i;
    t.d[i] = 2.0 + shift;
    if (g > 0) {
      t.item[w] = pm_dmat_find(*dm, g - 1);
      t.amat[w++] = -1.0;
    }
    if (g + 1 < N) {
      t.item[w] = pm_dmat_find(*dm, g + 1);
      t.amat[w++] = -1.0;
    }
    t.index[i + 1] = w;
  }
  OK(pm_csr_compact_copy(&t, NULL, a));
  free(t.d);
  free(t.index);
  free(t.item);
  free(t.amat);
}

static double smooth_u(int64_t g) {
  return 1.0 + sin(0.01 * (double)g);
}

/* The 1D operator over ranks one of which owns no row: exact solution with and without
 * agglomeration; then a coarsest level that is not positive definite on fewer ranks. */
static void test_agglom_1d(MPI_Comm comm) {
  int size;
  MPI_Comm_size(comm, &size);
  const int64_t N = 3000, rpr = 150;
  pm_csr_t *a = NULL;
  pm_dmat_t *dm = NULL;
  lap1d(comm, N, 0.1, &a, &dm);
  pm_op_t *op = NULL;
  OK(pm_op_create_csr(a, dm->halo, &op));
  int32_t n = a->n, np = a->ncol;
  double *b = malloc(((size_t)n + 1) * sizeof *b), *ue = malloc(((size_t)np + 1) * sizeof *ue);
  double *x = malloc(((size_t)np + 1) * sizeof *x);
  for (int32_t i = 0; i < np; i++) ue[i] = smooth_u(dm->gid[i]);
  for (int32_t i = 0; i < n; i++) {
    b[i] = a->d[i] * ue[i];
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) b[i] += a->amat[k] * ue[a->item[k]];
  }
  pm_cg_options_t opt = {.rtol = 1e-12, .maxit = 1000};
  pm_amg_options_t ao;
  pm_amg_options_default(&ao);
  ao.coarse_size = 10;
  int its[2] = {0, 0};
  for (int with = 0; with < 2; with++) {
    pm_pc_t *pc = NULL;
    pm_cg_result_t r;
    pm_amg_info_t in;
    ao.rows_per_rank = with ? rpr : 0;
    memset(x, 0, ((size_t)np + 1) * sizeof *x);
    OK(pm_pc_create_amg(&ao, &pc));
    OK(pm_cg_solve(op, pc, b, x, &opt, &r));
    OK(pm_amg_get_info(pc, &in));
    its[with] = r.iterations;
    double scale, d = max_diff(comm, x, ue, n, &scale);
    /* cond(A) < 41: the error is below 41 times the relative residual. */
    EXPECT(r.converged && d <= 1e-10 * scale, "1D, rows_per_rank %lld: %d iterations, error %g (scale %g)",
           (long long)ao.rows_per_rank, r.iterations, d, scale);
    EXPECT(in.ranks[0] == (size > 1 ? size - 1 : 1), "1D: level 0 on %d ranks", in.ranks[0]);
    int moved = check_ranks(&in, size, ao.rows_per_rank, with ? "1D, agglomerated" : "1D");
    if (with) note_ranks("1D:", &in);
    EXPECT(!with || size == 1 || moved > 0, "1D: no level moved");
    EXPECT(!with || in.coarse_ranks == 1, "1D: coarsest level on %d ranks", in.coarse_ranks);
    pm_pc_destroy(&pc);
  }
  EXPECT(its[1] <= its[0] + 2, "1D: %d iterations with agglomeration, %d without", its[1], its[0]);
  pm_op_destroy(&op);
  pm_csr_destroy(&a);
  pm_dmat_destroy(&dm);
  /* Shifted below zero the operator is indefinite: the set-up gets through to the coarsest
   * level (on one rank), whose factorisation fails; every rank returns an error. */
  lap1d(comm, N, -0.01, &a, &dm);
  pm_pc_t *pc = NULL;
  ao.rows_per_rank = rpr;
  OK(pm_pc_create_amg(&ao, &pc));
  OK(pm_op_create_csr(a, dm->halo, &op));
  int rc = pm_pc_setup(pc, op), rank;
  MPI_Comm_rank(comm, &rank);
  EXPECT(rc == (rank == 0 ? PM_ERR_SOLVER : PM_ERR_REMOTE), "indefinite 1D: set-up returned %d (%s)", rc,
         pm_error_message());
  EXPECT(rank > 0 || strstr(pm_error_message(), "not positive definite"), "indefinite 1D: '%s'", pm_error_message());
  pm_error_clear();
  pm_pc_destroy(&pc);
  pm_op_destroy(&op);
  pm_csr_destroy(&a);
  pm_dmat_destroy(&dm);
  free(b);
  free(ue);
  free(x);
}

static void test_options(void) {
  pm_amg_options_t o;
  pm_pc_t *pc = NULL;
  pm_amg_smoother_t s;
  struct {
    int what;
    double v;
  } bad[] = {{0, 1.0}, {0, -0.1}, {1, 0}, {2, 0}, {3, 0}, {3, 1e9}, {4, 7}, {5, -1}, {5, 2e9}, {6, 3}, {6, -1}};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    pm_amg_options_default(&o);
    EXPECT(pm_amg_options_check(&o) == PM_OK, "the defaults are refused");
    if (bad[k].what == 0) o.threshold = bad[k].v;
    if (bad[k].what == 1) o.sweeps = (int)bad[k].v;
    if (bad[k].what == 2) o.max_levels = (int)bad[k].v;
    if (bad[k].what == 3) o.coarse_size = (int64_t)bad[k].v;
    if (bad[k].what == 4) o.smoother = (pm_amg_smoother_t)(int)bad[k].v;
    if (bad[k].what == 5) o.rows_per_rank = (int64_t)bad[k].v;
    if (bad[k].what == 6) o.precision = (pm_amg_precision_t)(int)bad[k].v;
    EXPECT(pm_pc_create_amg(&o, &pc) == PM_ERR_ARG && !pc, "bad option %zu accepted", k);
    pm_error_clear();
  }
  EXPECT(pm_amg_smoother_parse("gauss", &s) == PM_ERR_ARG && strstr(pm_error_message(), "chebyshev"),
         "unknown smoother: '%s'", pm_error_message());
  pm_error_clear();
  EXPECT(pm_amg_smoother_parse("l1-jacobi", &s) == PM_OK && s == PM_AMG_L1_JACOBI, "l1-jacobi");
  pm_amg_precision_t pr;
  EXPECT(pm_amg_precision_parse("half", &pr) == PM_ERR_ARG && strstr(pm_error_message(), "single, double or mixed"),
         "unknown precision: '%s'", pm_error_message());
  pm_error_clear();
  EXPECT(pm_amg_precision_parse("double", &pr) == PM_OK && pr == PM_AMG_DOUBLE, "double");
  EXPECT(pm_amg_precision_parse("mixed", &pr) == PM_OK && pr == PM_AMG_MIXED, "mixed");
  EXPECT(!strcmp(pm_amg_precision_name(PM_AMG_SINGLE), "single"), "the name of single");
  pm_amg_options_default(&o);
  EXPECT(o.precision == PM_AMG_SINGLE, "the default cycle precision is not single");
  OK(pm_pc_create_jacobi(&pc));
  pm_amg_info_t info;
  EXPECT(pm_amg_get_info(pc, &info) == PM_ERR_ARG, "info of a Jacobi preconditioner");
  pm_error_clear();
  pm_pc_destroy(&pc);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int size;
  MPI_Comm_rank(comm, &g_rank);
  MPI_Comm_size(comm, &size);
  if (argc < 2) {
    if (g_rank == 0) fprintf(stderr, "usage: test_amg MESH [--halo edge]\n");
    MPI_Finalize();
    return 2;
  }
  int fdm = argc > 3 && !strcmp(argv[2], "--halo") && !strcmp(argv[3], "edge");
  pm_local_t *local = NULL;
  pm_adjacency_t hk = fdm ? PM_ADJACENCY_EDGE : PM_ADJACENCY_ELEMENT;
  int dim = 0;
  OK(tu_part_local(argv[1], size, g_rank, PM_PART_METIS_KWAY, hk, &local, &dim));

  pm_halo_t *halo = NULL;
  OK(pm_halo_create(comm, local, pm_exchange_default(), &halo));
  const char *exact = dim == 1 ? "x^2" : "x^2 + y^2";
  pm_problem_t *prob = NULL;
  OK(pm_problem_create(&prob));
  OK(pm_problem_set_scheme(prob, fdm ? PM_SCHEME_FDM5 : PM_SCHEME_FEM));
  OK(pm_problem_set_source(prob, NULL, pm_value_expr("1 + x")));
  OK(pm_problem_set_conductivity(prob, NULL, pm_value_expr("1 + x*x")));
  OK(pm_problem_add_dirichlet(prob, "boundary", pm_value_expr(exact)));
  pm_csr_t *a = NULL;
  int32_t n = local->n_internal, np = local->n_total + local->n_aux;
  double *b = calloc((size_t)n + 1, sizeof *b), *u0 = calloc((size_t)np + 1, sizeof *u0);
  int64_t nfixed = 0;
  OK(pm_csr_create(local, fdm, &a));
  OK(pm_fem_assemble(local, prob, a, b, u0, &nfixed));
  pm_problem_destroy(&prob);

  test_pieces(comm, a, halo);
  test_options();
  pm_op_t *op = NULL;
  OK(pm_op_create_csr(a, halo, &op));

  /* AMG against Jacobi; then the one-level hierarchy (the coarsest solve alone). */
  pm_cg_options_t opt = {.rtol = 1e-10, .maxit = 10000};
  pm_cg_result_t rj, ra, r1;
  pm_pc_t *jac = NULL, *amg = NULL, *one = NULL;
  double *xj = malloc(((size_t)np + 1) * sizeof *xj), *xa = malloc(((size_t)np + 1) * sizeof *xa);
  double *x1 = malloc(((size_t)np + 1) * sizeof *x1);
  memcpy(xj, u0, ((size_t)np + 1) * sizeof *u0);
  memcpy(xa, u0, ((size_t)np + 1) * sizeof *u0);
  memcpy(x1, u0, ((size_t)np + 1) * sizeof *u0);
  pm_amg_options_t ao;
  pm_amg_options_default(&ao);
  int64_t nglob = n;
  MPI_Allreduce(MPI_IN_PLACE, &nglob, 1, MPI_INT64_T, MPI_SUM, comm);
  ao.coarse_size = nglob < 200 ? 4 : 50; /* the bundled meshes are small: make a real hierarchy */
  OK(pm_pc_create_jacobi(&jac));
  OK(pm_pc_create_amg(&ao, &amg));
  OK(pm_cg_solve(op, jac, b, xj, &opt, &rj));
  OK(pm_cg_solve(op, amg, b, xa, &opt, &ra));
  pm_amg_info_t info;
  OK(pm_amg_get_info(amg, &info));
  EXPECT(ra.converged && ra.residual < 1e-9, "AMG: converged %d, residual %g", ra.converged, ra.residual);
  EXPECT(ra.iterations <= 30, "AMG: %d iterations (Jacobi %d)", ra.iterations, rj.iterations);
  /* Aggregates stay inside ranks: with a row or two per rank coarsening stops at one row per rank. */
  EXPECT(info.levels >= 2 && info.rows[info.levels - 1] <= (ao.coarse_size > size ? ao.coarse_size : size),
         "AMG: %d levels, coarsest %lld rows", info.levels, (long long)info.rows[info.levels - 1]);
  EXPECT(info.operator_complexity >= 1 && info.operator_complexity < 2, "operator complexity %g",
         info.operator_complexity);
  EXPECT(info.geometric == 0, "AMG reports %d geometric levels", info.geometric);
  EXPECT(info.cycles == ra.iterations + 1, "%ld cycles for %d iterations", info.cycles, ra.iterations);
  /* The coarsest solve alone: exact in double (one iteration); in single the factor's solution is
   * rounded to float, which CG corrects in one more. */
  pm_cg_result_t rs, rd;
  double *xd = malloc(((size_t)np + 1) * sizeof *xd);
  for (int prec = 0; prec < 2; prec++) {
    pm_amg_options_default(&ao);
    ao.max_levels = 1;
    ao.coarse_size = PM_AMG_DENSE_MAX;
    ao.precision = prec ? PM_AMG_DOUBLE : PM_AMG_SINGLE;
    memcpy(x1, u0, ((size_t)np + 1) * sizeof *u0);
    OK(pm_pc_create_amg(&ao, &one));
    OK(pm_cg_solve(op, one, b, x1, &opt, &r1));
    EXPECT(r1.converged && r1.iterations <= (prec ? 1 : 2), "the coarsest solve alone (%s): %d iterations, residual %g",
           pm_amg_precision_name(ao.precision), r1.iterations, r1.residual);
    pm_pc_destroy(&one);
  }
  /* The cycle in double: the same hierarchy, the same solution, at most one iteration fewer. */
  pm_amg_options_default(&ao);
  ao.coarse_size = nglob < 200 ? 4 : 50;
  ao.precision = PM_AMG_DOUBLE;
  memcpy(xd, u0, ((size_t)np + 1) * sizeof *u0);
  OK(pm_pc_create_amg(&ao, &one));
  OK(pm_cg_solve(op, one, b, xd, &opt, &rd));
  pm_pc_destroy(&one);
  EXPECT(rd.converged && ra.iterations <= rd.iterations + 1 && rd.iterations <= ra.iterations + 1,
         "AMG iterations: %d with the cycle in single, %d in double", ra.iterations, rd.iterations);
  /* Single reaches a tolerance far below its own precision: CG's residual is double. */
  opt.rtol = 1e-13;
  memcpy(xd, u0, ((size_t)np + 1) * sizeof *u0);
  ao.precision = PM_AMG_SINGLE;
  OK(pm_pc_create_amg(&ao, &one));
  OK(pm_cg_solve(op, one, b, xd, &opt, &rs));
  pm_pc_destroy(&one);
  EXPECT(rs.converged && rs.iterations <= 2 * ra.iterations + 5, "single cycle to 1e-13: converged %d in %d iterations",
         rs.converged, rs.iterations);
  /* Mixed (float vectors, the finest operator's own doubles read as floats) is the single cycle
   * without its copy of the finest values: the same iterations and solution, bit for bit. */
  {
    pm_cg_result_t rm;
    double *xm = malloc(((size_t)np + 1) * sizeof *xm);
    memcpy(xm, u0, ((size_t)np + 1) * sizeof *u0);
    ao.precision = PM_AMG_MIXED;
    OK(pm_pc_create_amg(&ao, &one));
    OK(pm_cg_solve(op, one, b, xm, &opt, &rm));
    pm_pc_destroy(&one);
    int same = rm.iterations == rs.iterations && rm.residual == rs.residual;
    for (int32_t i = 0; i < n; i++) same &= xm[i] == xd[i];
    EXPECT(same, "mixed cycle: %d iterations, residual %.17g; single: %d, %.17g (or another solution)", rm.iterations,
           rm.residual, rs.iterations, rs.residual);
    free(xm);
  }
  opt.rtol = 1e-10;
  free(xd);
  double dmax = 0, scale = 0;
  for (int32_t i = 0; i < n; i++) {
    dmax = fmax(dmax, fmax(fabs(xa[i] - xj[i]), fabs(x1[i] - xj[i])));
    scale = fmax(scale, fabs(xj[i]));
  }
  double v[2] = {dmax, scale};
  pm_comm_allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm);
  EXPECT(v[0] <= 1e-8 * v[1], "AMG and Jacobi solutions differ by %g (scale %g)", v[0], v[1]);
  if (g_rank == 0 && !g_fail) pm_pc_view(amg, stdout, 0);
  test_agglom_mesh(comm, op, b, u0, nglob < 200 ? 4 : 50);
  if (fdm) test_agglom_1d(comm);
  pm_pc_destroy(&jac);
  pm_pc_destroy(&amg);
  pm_pc_destroy(&one);
  free(xj);
  free(xa);
  free(x1);
  pm_op_destroy(&op);
  pm_csr_destroy(&a);
  pm_halo_destroy(&halo);
  pm_local_destroy(&local);
  free(b);
  free(u0);
  int fails = g_fail > 0;
  pm_comm_allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, comm);
  if (g_rank == 0)
    printf("test_amg: %s (%d ranks, iterations amg %d, jacobi %d, coarsest alone %d; %s)\n",
           fails ? "FAILED" : "passed", size, ra.iterations, rj.iterations, r1.iterations, g_note);
  MPI_Finalize();
  return fails ? 1 : 0;
}
