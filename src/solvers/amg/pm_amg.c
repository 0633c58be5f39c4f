/* pm_amg.c - the AMG preconditioner: options, the hierarchy's set-up level by level, and the
 * pm_pc glue (setup, apply, view, destroy). */
#include "pmesh/pm_amg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_comm_int.h"
#include "pm_amg_agg.h"
#include "pm_amg_agglom.h"
#include "pm_amg_cycle.h"
#include "pm_amg_int.h"
#include "pm_amg_rap.h"
#include "pm_dmat.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

static const char *const smoother_names[PM_AMG_SMOOTHER_COUNT] = {"chebyshev", "jacobi", "l1-jacobi"};
static const char *const precision_names[PM_AMG_PRECISION_COUNT] = {"single", "double", "mixed"};

/* Lanczos steps of the eigenvalue estimate: 3-4 per cent below the converged value on the
 * triangle mesh, inside the 10 per cent the smoother's interval allows (PETSc and hypre take 10
 * too). */
enum { LANCZOS_STEPS = 10 };

void pm_amg_options_default(pm_amg_options_t *opt) {
  opt->threshold = 0.08;
  opt->smoother = PM_AMG_CHEBYSHEV;
  opt->sweeps = 2;
  opt->max_levels = 10;
  opt->coarse_size = 500;
  opt->rows_per_rank = 2000;
  opt->precision = PM_AMG_SINGLE;
}

void pm_amg_options_default_dim(pm_amg_options_t *opt, int dim) {
  pm_amg_options_default(opt);
  /* In 3D the coarse levels' stencils are denser and their ties weaker: 0.08 cuts them into small
   * aggregates (operator complexity 2.3 on a 60^3 box) for one iteration less than 0.02
   * (complexity 1.5); docs/solve.md has the table. */
  if (dim == 3) opt->threshold = 0.02;
}

int pm_amg_options_check(const pm_amg_options_t *o) {
  PM_CHECK(o, PM_ERR_ARG, "AMG options: NULL");
  PM_CHECK(o->threshold >= 0 && o->threshold < 1, PM_ERR_ARG,
           "AMG strength threshold %g is out of range: expected 0 <= threshold < 1", o->threshold);
  PM_CHECK((int)o->smoother >= 0 && o->smoother < PM_AMG_SMOOTHER_COUNT, PM_ERR_ARG, "AMG smoother %d is unknown",
           (int)o->smoother);
  PM_CHECK(o->sweeps >= 1 && o->sweeps <= 100, PM_ERR_ARG, "AMG smoothing sweeps %d out of range: expected 1 to 100",
           o->sweeps);
  PM_CHECK(o->max_levels >= 1 && o->max_levels <= PM_AMG_MAX_LEVELS, PM_ERR_ARG,
           "AMG level count %d out of range: expected 1 to %d", o->max_levels, (int)PM_AMG_MAX_LEVELS);
  PM_CHECK(o->coarse_size >= 1 && o->coarse_size <= PM_AMG_DENSE_MAX, PM_ERR_ARG,
           "AMG coarse size %lld out of range: expected 1 to %d (the coarsest level is factored densely)",
           (long long)o->coarse_size, (int)PM_AMG_DENSE_MAX);
  PM_CHECK(o->rows_per_rank >= 0 && o->rows_per_rank <= PM_AMG_ROWS_PER_RANK_MAX, PM_ERR_ARG,
           "AMG rows per rank %lld out of range: expected 0 (no agglomeration onto fewer ranks) to %d",
           (long long)o->rows_per_rank, (int)PM_AMG_ROWS_PER_RANK_MAX);
  PM_CHECK((int)o->precision >= 0 && o->precision < PM_AMG_PRECISION_COUNT, PM_ERR_ARG,
           "AMG cycle precision %d is unknown", (int)o->precision);
  return PM_OK;
}

const char *pm_amg_smoother_name(pm_amg_smoother_t s) {
  return (int)s >= 0 && s < PM_AMG_SMOOTHER_COUNT ? smoother_names[s] : "unknown";
}

int pm_amg_smoother_parse(const char *name, pm_amg_smoother_t *s) {
  for (int k = 0; name && k < PM_AMG_SMOOTHER_COUNT; k++)
    if (!strcmp(name, smoother_names[k])) {
      *s = (pm_amg_smoother_t)k;
      return PM_OK;
    }
  return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                      "unknown AMG smoother '%s': expected chebyshev, jacobi or l1-jacobi", name ? name : "(null)");
}

const char *pm_amg_precision_name(pm_amg_precision_t p) {
  return (int)p >= 0 && p < PM_AMG_PRECISION_COUNT ? precision_names[p] : "unknown";
}

int pm_amg_precision_parse(const char *name, pm_amg_precision_t *p) {
  for (int k = 0; name && k < PM_AMG_PRECISION_COUNT; k++)
    if (!strcmp(name, precision_names[k])) {
      *p = (pm_amg_precision_t)k;
      return PM_OK;
    }
  return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                      "unknown AMG cycle precision '%s': expected single, double or mixed", name ? name : "(null)");
}

/* ---------------------------------------------------------------- set-up */

static void level_free(pm_amg_level_t *lv) {
  pm_csr_destroy(&lv->own);
  pm_dmat_destroy(&lv->dm);
  pm_dmat_destroy(&lv->xdm);
  if (lv->sub != MPI_COMM_NULL) MPI_Comm_free(&lv->sub);
  pm_amg_p_destroy(&lv->p);
  free(lv->pt.ptr);
  free(lv->pt.row);
  free(lv->pt.val);
  if (lv->own_values) {
    if (!lv->wide) {
      free(lv->va);
      free(lv->vd);
    }
    free(lv->vp);
  }
  free(lv->vw);
  free(lv->xv);
  free(lv->dinv);
  free(lv->x);
  free(lv->b);
  free(lv->r);
  free(lv->q);
  free(lv->w);
  free(lv->opx);
  free(lv->opy);
  memset(lv, 0, sizeof *lv);
  lv->sub = MPI_COMM_NULL;
}

void pm_amg_hier_init(pm_amg_hier_t *h, const pm_amg_options_t *opt) {
  memset(h, 0, sizeof *h);
  h->comm = MPI_COMM_NULL;
  for (int l = 0; l < PM_AMG_MAX_LEVELS; l++) h->lev[l].sub = MPI_COMM_NULL;
  if (opt)
    h->opt = *opt;
  else
    pm_amg_options_default(&h->opt);
}

void pm_amg_hier_destroy(void *ctx) {
  pm_amg_hier_t *h = ctx;
  if (!h) return;
  for (int l = 0; l < PM_AMG_MAX_LEVELS; l++) level_free(&h->lev[l]); /* a failed set-up leaves a partial level */
  pm_amg_direct_free(&h->dir);
  if (h->comm != MPI_COMM_NULL) MPI_Comm_free(&h->comm);
  free(h);
}

/* Level 0's layout: global ids by rank order (an exclusive scan), the externals' ids from their
 * owners through the caller's halo, tables in the caller's external order. */
static int fine_layout(pm_amg_hier_t *h, pm_amg_level_t *lv) {
  int ierr = PM_OK, P, rank;
  const pm_csr_t *a = lv->a;
  int64_t *gid = NULL, *range = NULL;
  MPI_Comm_size(h->comm, &P);
  MPI_Comm_rank(h->comm, &rank);
  ierr = PM_MALLOC(gid, (size_t)a->ncol + 1, "fine global ids");
  if (!ierr) ierr = PM_MALLOC(range, (size_t)P + 1, "fine ranges");
  PM_TRY(pm_comm_agree(h->comm, ierr));
  int64_t mine = a->n;
  {
    MPI_Request rq;
    int rc = pm_comm_wait(MPI_Iallgather(&mine, 1, MPI_INT64_T, range + 1, 1, MPI_INT64_T, h->comm, &rq), &rq);
    if (rc != MPI_SUCCESS) {
      ierr = pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Allgather (AMG fine layout)");
      goto cleanup;
    }
  }
  range[0] = 0;
  for (int q = 0; q < P; q++) range[q + 1] += range[q];
  for (int32_t i = 0; i < a->n; i++) gid[i] = range[rank] + i;
  PM_TRY(pm_halo_update(lv->halo, gid, MPI_INT64_T, 1));
  PM_TRY(pm_dmat_create(h->comm, a->n, range, gid + a->n, a->ncol - a->n, 0, &lv->dm));
cleanup:
  free(gid);
  free(range);
  return ierr;
}

static int vec(void **v, size_t n, size_t size, const char *what) {
  return pm_calloc_(v, n, size, what, __FILE__, __LINE__);
}

/* The level's vectors in the cycle's precision.  Level 0 of a double cycle works in the
 * caller's r and z: no x, b there. */
static int level_work(pm_amg_hier_t *h, int l) {
  pm_amg_level_t *lv = &h->lev[l];
  size_t m = (size_t)lv->a->ncol + 1, es = h->opt.precision != PM_AMG_DOUBLE ? sizeof(float) : sizeof(double);
  if (lv->xdm) PM_CALL(vec(&lv->xv, (size_t)lv->xdm->ncol + 1, es, "level transfer vector"));
  if (l > 0 || es == sizeof(float)) {
    PM_CALL(vec(&lv->x, m, es, "level correction"));
    PM_CALL(vec(&lv->b, m, es, "level right-hand side"));
  }
  PM_CALL(vec(&lv->r, m, es, "level residual"));
  PM_CALL(vec(&lv->q, m, es, "level next direction"));
  PM_CALL(vec(&lv->w, m, es, "level direction"));
  return PM_OK;
}

/* Global rows, nonzeros (explicit zeros not counted) and ranks owning rows of a level. */
int pm_amg_level_stats(pm_amg_hier_t *h, int l) {
  const pm_csr_t *a = h->lev[l].a;
  int64_t v[3] = {a->n, a->n, a->n > 0};
  for (int32_t k = 0; k < a->index[a->n]; k++) v[1] += a->amat[k] != 0.0;
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_SUM, h->lev[l].dm->comm));
  h->info.rows[l] = v[0];
  h->info.nonzeros[l] = v[1];
  h->info.ranks[l] = (int)v[2];
  return PM_OK;
}

/* Coarsen level l: aggregates, P, and level l+1 = P^T A P, on fewer ranks when it is small
 * (pm_amg_agglom.h).  *stop: no coarser level was made (coarsening stagnated).  Errors are
 * agreed on level l's communicator, or after the split only among level l+1's ranks. */
static int coarsen(pm_amg_hier_t *h, int l, int *stop) {
  int ierr = PM_OK, P, rank;
  pm_amg_level_t *lv = &h->lev[l], *cv = &h->lev[l + 1];
  MPI_Comm comm = lv->dm->comm;
  const pm_csr_t *a = lv->a;
  int32_t n = a->n, ncol = a->ncol, nagg = 0;
  double *d = NULL;
  int32_t *agg = NULL;
  int64_t *cagg = NULL, *crange = NULL, *orange = NULL;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  *stop = 0;
  ierr = PM_MALLOC(d, (size_t)ncol + 1, "level diagonal");
  if (!ierr) ierr = PM_MALLOC(agg, (size_t)n + 1, "aggregates");
  if (!ierr) ierr = PM_MALLOC(cagg, (size_t)ncol + 1, "aggregate ids");
  if (!ierr) ierr = PM_MALLOC(crange, 2 * ((size_t)P + 1), "coarse ranges");
  PM_TRY(pm_comm_agree(comm, ierr));
  orange = crange + P + 1;
  for (int32_t i = 0; i < n; i++) d[i] = a->d ? a->d[i] : 1.0;
  PM_TRY(pm_halo_update(lv->halo, d, MPI_DOUBLE, 1));
  ierr = pm_amg_aggregate(a, d, h->opt.threshold, agg, &nagg);
  PM_TRY(pm_comm_agree(comm, ierr));
  int64_t mine = nagg;
  PM_TRY_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, crange + 1, 1, MPI_INT64_T, comm));
  crange[0] = 0;
  for (int q = 0; q < P; q++) crange[q + 1] += crange[q];
  int64_t nc = crange[P];
  if (nc == 0 || nc >= h->info.rows[l]) {
    *stop = 1;
    goto cleanup;
  }
  for (int32_t i = 0; i < n; i++) cagg[i] = agg[i] >= 0 ? crange[rank] + agg[i] : -1;
  PM_TRY(pm_halo_update(lv->halo, cagg, MPI_INT64_T, 1));
  ierr = pm_amg_prolongator(a, cagg, 4.0 / (3.0 * lv->lmax), &lv->p);
  PM_TRY(pm_comm_agree(comm, ierr));
  /* The aggregates keep their ids (numbered by the rank that made them); on fewer ranks only
   * their owners change. */
  int k = pm_amg_agglom_ranks(nc, P, h->opt.rows_per_rank);
  if (k < P) pm_amg_agglom_range(nc, P, k, orange);
  PM_TRY(pm_amg_rap(a, lv->dm, lv->p, k < P ? orange : crange, &cv->dm, &cv->own));
  if (k < P) {
    PM_TRY(pm_amg_agglom_level(comm, k, &cv->dm, &cv->own, &cv->sub, &lv->xdm));
    cv->idle = cv->dm == NULL;
  }
  if (!cv->idle) {
    cv->a = cv->own;
    cv->halo = cv->dm->halo;
  }
cleanup:
  free(d);
  free(agg);
  free(cagg);
  free(crange);
  return ierr;
}

int pm_amg_level_lmax(pm_amg_hier_t *h, pm_amg_level_t *lv) {
  int ierr = PM_OK;
  double *work = NULL;
  (void)h;
  ierr = PM_MALLOC(work, 4 * ((size_t)lv->a->ncol + 1), "eigenvalue estimate");
  PM_TRY(pm_comm_agree(lv->dm->comm, ierr));
  ierr = pm_amg_lmax(lv->a, lv->halo, lv->op, lv->dm->gid, LANCZOS_STEPS, work, &lv->lmax);
  PM_TRY(pm_comm_agree(lv->dm->comm, ierr));
cleanup:
  free(work);
  return ierr;
}

int pm_amg_setup_begin(pm_amg_hier_t *h, const pm_csr_t *a, pm_halo_t *halo) {
  h->t_setup = MPI_Wtime();
  PM_CALL_MPI(pm_comm_dup(pm_halo_comm(halo), &h->comm));
  PM_CALL_MPI(MPI_Comm_set_errhandler(h->comm, MPI_ERRORS_RETURN));
  h->nlev = 1;
  h->lev[0].a = a;
  h->lev[0].halo = halo;
  return fine_layout(h, &h->lev[0]);
}

/* Aggregation levels from `first` on (max_levels counts them, `first` included).  A rank
 * returns as soon as it is idle on the next level; the others go on among themselves, so the
 * errors are agreed on each level's communicator only. */
static int build_levels(pm_amg_hier_t *h, int first) {
  for (int l = first;; l++) {
    pm_amg_level_t *lv = &h->lev[l];
    PM_CALL(pm_amg_level_stats(h, l));
    int last =
        h->info.rows[l] <= h->opt.coarse_size || l - first == h->opt.max_levels - 1 || l == PM_AMG_MAX_LEVELS - 1;
    if (!last || h->info.rows[l] > PM_AMG_DENSE_MAX) PM_CALL(pm_amg_level_lmax(h, lv));
    if (!last) {
      int stop = 0;
      PM_CALL(coarsen(h, l, &stop));
      if (!stop) h->nlev++;
      last = stop || h->lev[l + 1].idle;
    }
    if (last) return PM_OK;
  }
}

/* Work vectors and smoothers of the levels this rank is on, and the coarsest level's factor. */
static int finish_levels(pm_amg_hier_t *h) {
  for (int l = 0; l < h->nlev && !h->lev[l].idle; l++) {
    pm_amg_level_t *lv = &h->lev[l];
    int ierr = level_work(h, l);
    if (!ierr && (l < h->nlev - 1 || h->info.rows[l] > PM_AMG_DENSE_MAX)) ierr = pm_amg_smoother_setup(h, lv);
    if (!ierr) ierr = pm_amg_level_values(h, l);
    PM_CALL(pm_comm_agree(lv->dm->comm, ierr));
  }
  pm_amg_level_t *last = &h->lev[h->nlev - 1];
  if (last->idle) return PM_OK;
  h->direct = h->info.rows[h->nlev - 1] <= PM_AMG_DENSE_MAX;
  if (h->direct) PM_CALL(pm_comm_agree(last->dm->comm, pm_amg_direct_setup(h, last)));
  MPI_Comm_size(last->dm->comm, &h->info.coarse_ranks);
  return PM_OK;
}

int pm_amg_setup_finish(pm_amg_hier_t *h, int first) {
  /* A rank idle below some level leaves the loops there and waits here for the others. */
  PM_CALL(pm_comm_agree(h->comm, build_levels(h, first)));
  PM_CALL(pm_comm_agree(h->comm, finish_levels(h)));
  /* The cycle reads the levels' halos, not their global ids (8 bytes a column). */
  for (int l = 0; l < h->nlev; l++) pm_dmat_release_ids(h->lev[l].dm);
  h->info.levels = h->nlev;
  h->info.coarse_direct = h->direct;
  double rows = 0, nnz = 0;
  for (int l = 0; l < h->nlev; l++) {
    rows += (double)h->info.rows[l];
    nnz += (double)h->info.nonzeros[l];
  }
  h->info.grid_complexity = h->info.rows[0] ? rows / (double)h->info.rows[0] : 1.0;
  h->info.operator_complexity = h->info.nonzeros[0] ? nnz / (double)h->info.nonzeros[0] : 1.0;
  /* Rank 0 is on every level: its account of the hierarchy is everyone's. */
  PM_CALL_MPI(pm_comm_bcast(&h->info, (int)sizeof h->info, MPI_BYTE, 0, h->comm));
  for (int l = h->nlev; l < h->info.levels; l++) h->lev[l].idle = 1;
  h->nlev = h->info.levels;
  h->info.setup_seconds = MPI_Wtime() - h->t_setup;
  return PM_OK;
}

int pm_amg_need_matrix(pm_op_t *op, const char *who) {
  int ierr = PM_OK;
  if (!pm_op_csr(op))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "%s builds its hierarchy from the matrix's entries, but the operator '%s' is a shell operator "
                        "without an assembled matrix: give the solver an operator from pm_op_create_csr, or use the "
                        "Jacobi or none preconditioner",
                        who, pm_op_name(op));
  return pm_comm_agree(pm_op_comm(op), ierr);
}

static int amg_setup(void *ctx, pm_op_t *op) {
  pm_amg_hier_t *h = ctx;
  PM_CALL(pm_amg_need_matrix(op, "AMG"));
  PM_CALL(pm_amg_setup_begin(h, pm_op_csr(op), pm_op_halo(op)));
  return pm_amg_setup_finish(h, 0);
}

static int amg_apply(void *ctx, const double *r, double *z) {
  pm_amg_hier_t *h = ctx;
  PM_CALL(pm_amg_vcycle(h, r, z));
  h->info.cycle_seconds = h->t_cycle / (double)h->info.cycles;
  return PM_OK;
}

void pm_amg_view_level_arrays(FILE *out, const pm_amg_info_t *in) {
  for (int l = 0; l < in->levels; l++) fprintf(out, "%s%lld", l ? ", " : "", (long long)in->rows[l]);
  fprintf(out, "], \"nonzeros\": [");
  for (int l = 0; l < in->levels; l++) fprintf(out, "%s%lld", l ? ", " : "", (long long)in->nonzeros[l]);
  fprintf(out, "], \"ranks\": [");
  for (int l = 0; l < in->levels; l++) fprintf(out, "%s%d", l ? ", " : "", in->ranks[l]);
  fprintf(out, "]");
}

static int amg_view(void *ctx, FILE *out, int json) {
  const pm_amg_hier_t *h = ctx;
  const pm_amg_info_t *in = &h->info;
  const pm_amg_options_t *o = &h->opt;
  if (json) {
    fprintf(
        out,
        "\"levels\": %d, \"operator_complexity\": %.6f, \"grid_complexity\": %.6f, \"setup_seconds\": %.6f, "
        "\"cycle_seconds\": %.9f, \"cycles\": %ld,\n    \"smoother\": \"%s\", \"sweeps\": %d, \"threshold\": %.17g, "
        "\"max_levels\": %d, \"coarse_size\": %lld, \"rows_per_rank\": %lld, \"coarse_solve\": \"%s\", "
        "\"coarse_ranks\": %d, \"precision\": \"%s\",\n"
        "    \"rows\": [",
        in->levels, in->operator_complexity, in->grid_complexity, in->setup_seconds, in->cycle_seconds, in->cycles,
        pm_amg_smoother_name(o->smoother), o->sweeps, o->threshold, o->max_levels, (long long)o->coarse_size,
        (long long)o->rows_per_rank, in->coarse_direct ? "cholesky" : "smoother", in->coarse_ranks,
        pm_amg_precision_name(o->precision));
    pm_amg_view_level_arrays(out, in);
    return PM_OK;
  }
  fprintf(out,
          "amg: %d levels, operator complexity %.3f, grid complexity %.3f; set-up %.3f s, %.3f ms per V-cycle "
          "(%ld cycles)\n",
          in->levels, in->operator_complexity, in->grid_complexity, in->setup_seconds, 1e3 * in->cycle_seconds,
          in->cycles);
  fprintf(out, "amg: smoother %s x%d, cycle in %s precision, threshold %g, ", pm_amg_smoother_name(o->smoother),
          o->sweeps, pm_amg_precision_name(o->precision), o->threshold);
  if (o->rows_per_rank)
    fprintf(out, "levels below %lld rows per rank on fewer ranks, ", (long long)o->rows_per_rank);
  else
    fprintf(out, "no agglomeration, ");
  fprintf(out, "coarsest level ");
  if (in->coarse_direct)
    fprintf(out, "factored (dense Cholesky on %d rank%s)\n", in->coarse_ranks, in->coarse_ranks == 1 ? "" : "s");
  else
    fprintf(out, "smoothed\n");
  for (int l = 0; l < in->levels; l++)
    fprintf(out, "  level %d: %12lld rows %14lld nonzeros  %5.1f per row  %d ranks\n", l, (long long)in->rows[l],
            (long long)in->nonzeros[l], in->rows[l] ? (double)in->nonzeros[l] / (double)in->rows[l] : 0.0,
            in->ranks[l]);
  return PM_OK;
}

static const pm_pc_ops_t amg_ops = {"amg", amg_setup, amg_apply, NULL, amg_view, pm_amg_hier_destroy};

int pm_pc_create_amg(const pm_amg_options_t *opt, pm_pc_t **pc) {
  pm_amg_hier_t *h = NULL;
  *pc = NULL;
  if (opt) PM_CALL(pm_amg_options_check(opt));
  PM_CALL(PM_CALLOC(h, 1, "AMG preconditioner"));
  pm_amg_hier_init(h, opt);
  return pm_pc_create(&amg_ops, h, pc);
}

int pm_amg_get_info(const pm_pc_t *pc, pm_amg_info_t *info) {
  PM_CHECK(pc && !strcmp(pm_pc_name(pc), "amg"), PM_ERR_ARG, "pm_amg_get_info: not an AMG preconditioner");
  PM_CHECK(pm_pc_is_setup(pc), PM_ERR_ARG, "pm_amg_get_info: the AMG preconditioner is not set up");
  *info = ((const pm_amg_hier_t *)pm_pc_context(pc))->info;
  return PM_OK;
}
