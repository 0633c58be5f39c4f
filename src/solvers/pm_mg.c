/* pm_mg.c - geometric multigrid: the prolongators of the refinement levels, then AMG's own
 * set-up (pm_amg_setup_finish) below the partitioned mesh, and the pm_pc glue.  The V-cycle is
 * AMG's (pm_amg_cycle.c): only where P comes from differs. */
#include "pmesh/pm_mg.h"

#include <stdlib.h>
#include <string.h>

#include "pm_mg_int.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "solvers/amg/pm_amg_cycle.h"
#include "solvers/amg/pm_amg_int.h"
#include "solvers/amg/pm_amg_rap.h"

typedef struct pm_mg {
  pm_amg_hier_t *h;
  int nmesh;
  const pm_local_t **meshes;           /* borrowed until the set-up returns */
  const pm_refine_parents_t **parents; /* likewise */
  /* pm_mg_take_levels: the coarser meshes [0, nmesh-1) and all parents are owned, and freed as
   * soon as the set-up no longer needs them. */
  int owns;
  pm_local_t **own_mesh;         /* [nmesh] the same pointers, owned (NULL when borrowed) */
  pm_refine_parents_t **own_par; /* [nmesh] likewise */
  pm_mg_coarse_t coarse;         /* what the set-up is asked for */
  pm_mg_assemble_t assemble;     /* the rediscretisation, NULL: Galerkin products */
  void *assemble_ctx;
  int rediscretized; /* what the set-up did */
  /* A shell (matrix-free) finest operator: its Dirichlet rows (the caller's, pm_mg_set_fixed_rows),
   * and level 0's stand-in matrix (sizes and diagonal, no entries) and halo. */
  const char *fixed;
  pm_csr_t *shell_a;
  pm_halo_t *shell_halo;
} pm_mg_t;

/* Level l's mesh (l < nmesh - 1) and the parents of level l + 1 in it, when owned.  Not
 * collective. */
static void release_mesh(pm_mg_t *g, int l) {
  if (!g->owns) return;
  pm_local_destroy(&g->own_mesh[l]);
  g->meshes[l] = NULL;
}
static void release_parents(pm_mg_t *g, int l) {
  if (!g->owns) return;
  pm_refine_parents_destroy(&g->own_par[l]);
  g->parents[l] = NULL;
}
static void release_levels(pm_mg_t *g) {
  for (int l = 0; l + 1 < g->nmesh; l++) {
    release_mesh(g, l);
    release_parents(g, l);
  }
  g->owns = 0;
}

static void mg_destroy(void *ctx) {
  pm_mg_t *g = ctx;
  if (!g) return;
  release_levels(g);
  pm_amg_hier_destroy(g->h);
  pm_csr_destroy(&g->shell_a);
  pm_halo_destroy(&g->shell_halo);
  free(g->meshes);
  free(g->parents);
  free(g->own_mesh);
  free(g->own_par);
  free(g);
}

/* Insertion sort of a row's entries by the global ids of their columns (rows are short). */
static void sort_row(int32_t *item, double *val, int32_t n, const int64_t *gid) {
  for (int32_t i = 1; i < n; i++) {
    int32_t c = item[i], j = i - 1;
    double v = val[i];
    while (j >= 0 && gid[item[j]] > gid[c]) {
      item[j + 1] = item[j];
      val[j + 1] = val[j];
      j--;
    }
    item[j + 1] = c;
    val[j + 1] = v;
  }
}

/* The coarse level from the operator `am` assembled on the coarser mesh (rows its owned nodes,
 * columns its nodes), turned in place into the operator of the coarse unknowns (cfree; cid
 * their ids in the rank-order numbering crange, also at the externals), and the layout that
 * it and P's columns need, as pm_amg_rap makes it; *map receives each coarse mesh node's local
 * coarse index (-1: none), for P's columns.  No second copy of the operator and no global ids
 * of P: this level's set-up is the peak of a multigrid solve's memory.  Errors agreed.
 * Collective. */
static int rediscretized(MPI_Comm comm, int rank, pm_csr_t *am, int32_t ntot, const int8_t *cfree, const int64_t *cid,
                         const int64_t *crange, const pm_refine_parents_t *par, const int32_t *row2node,
                         const int8_t *keep, int32_t nfine, pm_dmat_t **cdm, int32_t **map) {
  int ierr = PM_OK;
  int64_t c0 = crange[rank];
  int32_t nk = (int32_t)(crange[rank + 1] - c0), nco = am->n, next = 0;
  int64_t *ext = NULL;
  int8_t *ref = NULL;
  ierr = PM_CALLOC(ref, (size_t)ntot + 1, "coarse externals");
  if (!ierr) ierr = PM_MALLOC(*map, (size_t)ntot + 1, "coarse columns");
  PM_TRY(pm_comm_agree(comm, ierr));
  for (int32_t i = 0; i < nco; i++)
    for (int32_t k = am->index[i]; cfree[i] && k < am->index[i + 1]; k++)
      if (am->amat[k] != 0.0 && cid[am->item[k]] >= 0) ref[am->item[k]] = 1;
  for (int32_t r = 0; r < nfine; r++) {
    int32_t v = row2node ? row2node[r] : r;
    for (int32_t k = par->ptr[v]; keep[r] && k < par->ptr[v + 1]; k++)
      if (cid[par->node[k]] >= 0) ref[par->node[k]] = 1;
  }
  for (int32_t j = nco; j < ntot; j++) next += ref[j];
  ierr = PM_MALLOC(ext, (size_t)next + 1, "coarse externals");
  PM_TRY(pm_comm_agree(comm, ierr));
  for (int32_t j = nco, w = 0; j < ntot; j++)
    if (ref[j]) ext[w++] = cid[j];
  PM_TRY(pm_dmat_create(comm, nk, crange, ext, next, 1, cdm));
  for (int32_t j = 0; j < ntot; j++)
    (*map)[j] = j < nco ? (cid[j] >= 0 ? (int32_t)(cid[j] - c0) : -1) : ref[j] ? pm_dmat_find(*cdm, cid[j]) : -1;
  /* In place: row r <= i and entry w <= k, so nothing is overwritten before it is read. */
  const int64_t *gid = (*cdm)->gid;
  int32_t r = 0, w = 0;
  for (int32_t i = 0; i < nco; i++) {
    int32_t k0 = am->index[i], k1 = am->index[i + 1], b = w;
    if (!cfree[i]) continue;
    am->d[r] = am->d[i];
    am->index[r] = b;
    for (int32_t k = k0; k < k1; k++) {
      int32_t j = (*map)[am->item[k]];
      if (am->amat[k] == 0.0 || j < 0) continue;
      am->item[w] = j;
      am->amat[w++] = am->amat[k];
    }
    sort_row(am->item + b, am->amat + b, w - b, gid);
    r++;
  }
  am->index[r] = w;
  am->n = r;
  am->ncol = (*cdm)->ncol;
  /* Shrink to the coarse rows (a failed shrink keeps the larger block), then the row runs. */
  int32_t *ix = realloc(am->item, ((size_t)w + 1) * sizeof *ix);
  double *vx = realloc(am->amat, ((size_t)w + 1) * sizeof *vx);
  if (ix) am->item = ix;
  if (vx) am->amat = vx;
  free(am->runs);
  am->runs = NULL;
  ierr = r == nk ? pm_csr_compact(am)
                 : pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                                "geometric multigrid: rank %d: %d coarse rows, expected %d", rank, (int)r, (int)nk);
  PM_TRY(pm_comm_agree(comm, ierr));
cleanup:
  if (ierr) {
    pm_dmat_destroy(cdm);
    free(*map);
    *map = NULL;
  }
  free(ext);
  free(ref);
  return ierr;
}

/* Whether row i has a nonzero off-diagonal: rows without one (eliminated Dirichlet rows) get no
 * coarse correction. */
static int coupled(const pm_csr_t *a, int32_t i) {
  for (int32_t k = a->index[i]; k < a->index[i + 1]; k++)
    if (a->amat[k] != 0.0) return 1;
  return 0;
}

/* Which owned coarse nodes are coarse unknowns (cfree[c] = 1): a coarse vertex keeps its owner,
 * so each owned coarse node is the single parent of an owned fine node, and is an unknown when
 * that node's row is coupled (keep[r], computed here with node2row).  Collective: a coarse
 * node that is no fine vertex is agreed on as an error. */
static int mark_unknowns(MPI_Comm comm, int rank, const pm_csr_t *a, const char *fixed, int32_t nfo,
                         const pm_local_t *cm, const pm_refine_parents_t *par, const int32_t *row2node,
                         int32_t *node2row, int8_t *keep, int8_t *cfree) {
  int32_t n = a->n, nco = cm->n_internal, bad = -1;
  int ierr = PM_OK;
  for (int32_t v = 0; v < nfo; v++) node2row[v] = -1;
  for (int32_t r = 0; r < n; r++) {
    node2row[row2node ? row2node[r] : r] = r;
    keep[r] = (int8_t)(fixed ? !fixed[r] : coupled(a, r)); /* a shell level: its Dirichlet rows */
  }
  for (int32_t c = 0; c < nco; c++) cfree[c] = -1;
  for (int32_t v = 0; v < nfo; v++) {
    if (par->ptr[v + 1] - par->ptr[v] != 1) continue;
    int32_t c = par->node[par->ptr[v]], r = node2row[v];
    if (c >= 0 && c < nco) cfree[c] = (int8_t)(r >= 0 && keep[r]);
  }
  for (int32_t c = 0; c < nco && bad < 0; c++)
    if (cfree[c] < 0) bad = c;
  if (bad >= 0)
    ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                        "geometric multigrid: rank %d: owned node %d of the coarser mesh (global id %lld) is no "
                        "owned vertex of the finer one: the meshes are not one refinement of the other",
                        rank, (int)bad, cm->gid ? (long long)cm->gid[bad] : -1LL);
  return pm_comm_agree(comm, ierr);
}

/* The coarse unknowns numbered in rank order: crange[P+1], their global ids cid on every node
 * of cm (-1 for none; the externals' from their owners) and their nodes crow2node.  *stop: no
 * coarse unknown anywhere (cid and crow2node are then not set).  Collective. */
static int number_unknowns(MPI_Comm comm, int P, int rank, const pm_local_t *cm, const int8_t *cfree, int64_t *crange,
                           int64_t *cid, int32_t *crow2node, int *stop) {
  int ierr = PM_OK;
  int32_t nco = cm->n_internal, nk = 0;
  pm_halo_t *ch = NULL;
  for (int32_t c = 0; c < nco; c++) nk += cfree[c];
  int64_t mine = nk;
  int rc = MPI_Allgather(&mine, 1, MPI_INT64_T, crange + 1, 1, MPI_INT64_T, comm);
  if (rc != MPI_SUCCESS) return pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Allgather (geometric multigrid layout)");
  crange[0] = 0;
  for (int q = 0; q < P; q++) crange[q + 1] += crange[q];
  if (crange[P] == 0) {
    *stop = 1;
    return PM_OK;
  }
  for (int32_t c = 0, k = 0; c < nco; c++) {
    cid[c] = cfree[c] ? crange[rank] + k : -1;
    if (cfree[c]) crow2node[k++] = c;
  }
  ierr = pm_halo_create(comm, cm, pm_exchange_default(), &ch);
  if (!ierr) ierr = pm_halo_update(ch, cid, MPI_INT64_T, 1);
  ierr = pm_comm_agree(comm, ierr);
  pm_halo_destroy(&ch);
  return ierr;
}

/* P's weights: 1 / (number of parents) to each parent that is a coarse unknown, in columns map[]
 * (rediscretised: local coarse indices) or else cid[] (global ids, for the Galerkin product). */
static void fill_prolongator(pm_amg_p_t *p, const pm_refine_parents_t *par, const int32_t *row2node, const int8_t *keep,
                             const int64_t *cid, const int32_t *map) {
  for (int32_t r = 0; r < p->n; r++) {
    int32_t v = row2node ? row2node[r] : r, w = p->ptr[r];
    double wt = 1.0 / (double)(par->ptr[v + 1] - par->ptr[v]);
    for (int32_t k = par->ptr[v]; keep[r] && k < par->ptr[v + 1]; k++) {
      int32_t c = par->node[k];
      if (cid[c] < 0) continue;
      if (map)
        p->col[w] = map[c];
      else
        p->gcol[w] = cid[c];
      p->val[w++] = wt;
    }
  }
}

/* Level l+1 from level l, whose rows are the owned nodes row2node[] of `fm` (NULL: row i is node
 * i), and the refinement's parents into `cm`.  The coarse unknowns are cm's owned nodes whose
 * fine vertex is a coupled row, numbered in rank order; *crow2node receives their nodes.
 * *stop: no coarse unknown is left anywhere (level l is then the last geometric one). */
static int geo_coarsen(pm_mg_t *g, int l, const pm_local_t *fm, const pm_local_t *cm, const pm_refine_parents_t *par,
                       const int32_t *row2node, int32_t **crow2node, int *stop) {
  pm_amg_hier_t *h = g->h;
  int ierr = PM_OK, P, rank;
  pm_amg_level_t *lv = &h->lev[l], *cv = &h->lev[l + 1];
  const pm_csr_t *a = lv->a;
  int32_t n = a->n, nfo = fm->n_internal, nco = cm->n_internal;
  int32_t *node2row = NULL;
  int8_t *keep = NULL, *cfree = NULL;
  int64_t *cid = NULL, *crange = NULL;
  pm_amg_p_t *p = NULL;
  pm_csr_t *am = NULL;
  MPI_Comm_size(h->comm, &P);
  MPI_Comm_rank(h->comm, &rank);
  *stop = 0;
  *crow2node = NULL;
  ierr = PM_MALLOC(node2row, (size_t)nfo + 1, "fine rows of the nodes");
  if (!ierr) ierr = PM_MALLOC(keep, (size_t)n + 1, "coupled rows");
  if (!ierr) ierr = PM_MALLOC(cfree, (size_t)nco + 1, "coarse unknowns");
  if (!ierr) ierr = PM_MALLOC(cid, (size_t)cm->n_total + 1, "coarse ids");
  if (!ierr) ierr = PM_MALLOC(crange, (size_t)P + 1, "coarse ranges");
  if (!ierr) ierr = PM_MALLOC(*crow2node, (size_t)nco + 1, "coarse rows' nodes");
  if (!ierr) ierr = PM_CALLOC(p, 1, "geometric prolongator");
  if (!ierr) ierr = PM_MALLOC(p->ptr, (size_t)n + 1, "geometric prolongator");
  PM_TRY(pm_comm_agree(h->comm, ierr));
  PM_TRY(mark_unknowns(h->comm, rank, a, l == 0 && lv->op ? g->fixed : NULL, nfo, cm, par, row2node, node2row, keep,
                       cfree));
  PM_TRY(number_unknowns(h->comm, P, rank, cm, cfree, crange, cid, *crow2node, stop));
  if (*stop) goto cleanup;
  p->n = n;
  p->ptr[0] = 0;
  for (int32_t r = 0; r < n; r++) {
    int32_t v = row2node ? row2node[r] : r, m = 0;
    for (int32_t k = par->ptr[v]; keep[r] && k < par->ptr[v + 1]; k++) m += cid[par->node[k]] >= 0;
    p->ptr[r + 1] = p->ptr[r] + m;
  }
  int32_t *map = NULL; /* rediscretised: the coarse mesh's nodes' local coarse indices */
  if (g->rediscretized) {
    /* The mesh's row of P's weights is no longer needed, and the assembly is a peak. */
    free(node2row);
    node2row = NULL;
    ierr = g->assemble(g->assemble_ctx, cm, &am);
    if (!ierr && (am->n != nco || am->ncol != cm->n_total))
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "geometric multigrid: rank %d: the operator assembled on a coarser mesh has %d rows and %d "
                          "columns, expected %d and %d",
                          rank, (int)am->n, (int)am->ncol, (int)nco, (int)cm->n_total);
    PM_TRY(pm_comm_agree(h->comm, ierr));
    PM_TRY(rediscretized(h->comm, rank, am, cm->n_total, cfree, cid, crange, par, row2node, keep, n, &cv->dm, &map));
    cv->own = am;
    am = NULL;
    ierr = PM_MALLOC(p->col, (size_t)p->ptr[n] + 1, "geometric prolongator");
  } else {
    ierr = PM_MALLOC(p->gcol, (size_t)p->ptr[n] + 1, "geometric prolongator");
  }
  if (!ierr) ierr = PM_MALLOC(p->val, (size_t)p->ptr[n] + 1, "geometric prolongator");
  if (ierr) free(map);
  PM_TRY(pm_comm_agree(h->comm, ierr));
  fill_prolongator(p, par, row2node, keep, cid, map);
  free(map);
  if (!g->rediscretized) PM_TRY(pm_amg_rap(a, lv->dm, p, crange, &cv->dm, &cv->own));
  /* The cycle reads P's local columns only. */
  free(p->gcol);
  p->gcol = NULL;
  cv->a = cv->own;
  cv->halo = cv->dm->halo;
  lv->p = p;
  p = NULL;
cleanup:
  if (ierr || *stop) {
    free(*crow2node);
    *crow2node = NULL;
  }
  pm_amg_p_destroy(&p);
  pm_csr_destroy(&am);
  free(node2row);
  free(keep);
  free(cfree);
  free(cid);
  free(crange);
  return ierr;
}

/* Level 0 on a shell operator: a stand-in matrix with its sizes and diagonal and no entries (the
 * products are the operator's), the finest mesh's halo for its layout.  Errors agreed. */
static int shell_level(pm_mg_t *g, pm_op_t *op, const pm_local_t *fine) {
  MPI_Comm comm = pm_op_comm(op);
  int32_t n = pm_op_n(op);
  int ierr = PM_OK;
  if (!pm_op_has_diagonal(op) || !g->fixed || g->nmesh < 2)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "geometric multigrid on the shell operator '%s' needs its diagonal, its Dirichlet rows "
                        "(pm_mg_set_fixed_rows) and at least one refinement level",
                        pm_op_name(op));
  else if (n != fine->n_internal || pm_op_n_total(op) != fine->n_total)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "geometric multigrid: the shell operator '%s' has %d rows, %d columns; the finest mesh %d "
                        "internal, %d internal + external nodes",
                        pm_op_name(op), (int)n, (int)pm_op_n_total(op), (int)fine->n_internal, (int)fine->n_total);
  PM_CALL(pm_comm_agree(comm, ierr));
  pm_csr_t *a = NULL;
  ierr = PM_CALLOC(a, 1, "matrix-free level");
  if (!ierr) {
    g->shell_a = a;
    a->n = n;
    a->ncol = fine->n_total;
    ierr = PM_MALLOC(a->d, (size_t)n + 1, "matrix-free level's diagonal");
  }
  if (!ierr) ierr = PM_CALLOC(a->index, (size_t)n + 1, "matrix-free level");
  if (!ierr) ierr = pm_op_diagonal(op, a->d);
  if (!ierr) ierr = pm_halo_create(comm, fine, pm_exchange_default(), &g->shell_halo);
  return pm_comm_agree(comm, ierr);
}

/* Level 0's product buffers for a shell operator: y [n] and, for a single-precision cycle, x
 * [ncol] in double.  Errors agreed. */
static int shell_buffers(pm_amg_hier_t *h, pm_op_t *op) {
  pm_amg_level_t *lv = &h->lev[0];
  lv->op = op;
  int ierr = PM_MALLOC(lv->opy, (size_t)lv->a->n + 1, "matrix-free level's product");
  if (!ierr && h->opt.precision != PM_AMG_DOUBLE)
    ierr = PM_MALLOC(lv->opx, (size_t)lv->a->ncol + 1, "matrix-free level's product");
  return pm_comm_agree(h->comm, ierr);
}

static int mg_setup(void *ctx, pm_op_t *op) {
  pm_mg_t *g = ctx;
  pm_amg_hier_t *h = g->h;
  int ierr = PM_OK, K = g->nmesh - 1, geo = 0;
  int32_t *row2node = NULL, *next = NULL;
  const pm_local_t *fine = g->meshes[K];
  int shell = pm_op_csr(op) == NULL;
  if (shell) PM_CALL(shell_level(g, op, fine));
  if (!shell) PM_CALL(pm_amg_need_matrix(op, "geometric multigrid"));
  const pm_csr_t *a = shell ? g->shell_a : pm_op_csr(op);
  pm_halo_t *halo = shell ? g->shell_halo : pm_op_halo(op);
  if (a->n != fine->n_internal || a->ncol != fine->n_total)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "geometric multigrid: rank %d: the operator (%d rows, %d columns) is not one of the finest "
                        "mesh (%d internal, %d internal + external nodes)",
                        (int)fine->rank, (int)a->n, (int)a->ncol, (int)fine->n_internal, (int)fine->n_total);
  PM_CALL(pm_comm_agree(pm_halo_comm(halo), ierr));
  g->rediscretized = g->coarse == PM_MG_COARSE_REDISCRETIZE && g->assemble != NULL;
  if (shell && !g->rediscretized)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "geometric multigrid on the shell operator '%s': its coarser operators must be rediscretised "
                        "(an assembler, pm_mg_set_assembler; --mg-coarse rediscretize): Galerkin products need the "
                        "finest operator's entries",
                        pm_op_name(op));
  PM_CALL(pm_comm_agree(pm_op_comm(op), ierr));
  PM_CALL(pm_amg_setup_begin(h, a, halo));
  if (shell) PM_CALL(shell_buffers(h, op));
  for (int l = 0; l < K; l++) {
    int m = K - l, stop = 0;
    PM_TRY(pm_amg_level_stats(h, l));
    PM_TRY(pm_amg_level_lmax(h, &h->lev[l]));
    PM_TRY(geo_coarsen(g, l, g->meshes[m], g->meshes[m - 1], g->parents[m - 1], row2node, &next, &stop));
    /* Mesh m (the finest is the caller's) and the parents into m - 1 are used up. */
    if (m < K) release_mesh(g, m);
    release_parents(g, m - 1);
    free(row2node);
    row2node = next;
    next = NULL;
    if (stop) break;
    h->nlev++;
    geo++;
  }
  h->info.geometric = geo;
  PM_TRY(pm_amg_setup_finish(h, geo));
  if (shell) { /* the smoother has its inverse; the shell level's products never read it */
    free(g->shell_a->d);
    free(g->shell_a->index); /* no entries: read by the set-up's statistics only */
    g->shell_a->d = NULL;
    g->shell_a->index = NULL;
    h->lev[0].vd = NULL;
  }
cleanup:
  /* Built or failed, the levels are not needed again: a failed set-up is not retried. */
  release_levels(g);
  free(row2node);
  return ierr;
}

static int mg_apply(void *ctx, const double *r, double *z) {
  pm_amg_hier_t *h = ((pm_mg_t *)ctx)->h;
  PM_CALL(pm_amg_vcycle(h, r, z));
  h->info.cycle_seconds = h->t_cycle / (double)h->info.cycles;
  return PM_OK;
}

static const char *level_kind(const pm_amg_info_t *in, int l) {
  if (l == in->levels - 1) return in->coarse_direct ? "coarsest (factored)" : "coarsest (smoothed)";
  return l < in->geometric ? "refinement P" : "aggregation P";
}

static const char *coarse_name(const pm_mg_t *g) {
  return g->rediscretized ? "rediscretized" : "galerkin";
}

static int mg_view(void *ctx, FILE *out, int json) {
  const pm_mg_t *g = ctx;
  const pm_amg_hier_t *h = g->h;
  const pm_amg_info_t *in = &h->info;
  const pm_amg_options_t *o = &h->opt;
  if (json) {
    fprintf(out,
            "\"levels\": %d, \"geometric\": %d, \"coarse_operators\": \"%s\", \"operator_complexity\": %.6f, "
            "\"grid_complexity\": %.6f, \"setup_seconds\": %.6f, \"cycle_seconds\": %.9f, \"cycles\": %ld,\n    "
            "\"smoother\": \"%s\", \"sweeps\": %d, \"threshold\": %.17g, \"max_levels\": %d, \"coarse_size\": %lld, "
            "\"rows_per_rank\": %lld, \"coarse_solve\": \"%s\", \"coarse_ranks\": %d, \"precision\": \"%s\",\n    "
            "\"rows\": [",
            in->levels, in->geometric, coarse_name(g), in->operator_complexity, in->grid_complexity, in->setup_seconds,
            in->cycle_seconds, in->cycles, pm_amg_smoother_name(o->smoother), o->sweeps, o->threshold, o->max_levels,
            (long long)o->coarse_size, (long long)o->rows_per_rank, in->coarse_direct ? "cholesky" : "smoother",
            in->coarse_ranks, pm_amg_precision_name(o->precision));
    pm_amg_view_level_arrays(out, in);
    return PM_OK;
  }
  fprintf(out,
          "mg: %d levels (%d from the refinement), %s coarse operators, operator complexity %.3f, grid "
          "complexity %.3f; set-up %.3f s, %.3f ms per V-cycle (%ld cycles)\n",
          in->levels, in->geometric, g->rediscretized ? "rediscretized" : "Galerkin", in->operator_complexity,
          in->grid_complexity, in->setup_seconds, 1e3 * in->cycle_seconds, in->cycles);
  fprintf(
      out,
      "mg: smoother %s x%d, cycle in %s precision; below the partitioned mesh AMG, threshold %g, coarse size %lld\n",
      pm_amg_smoother_name(o->smoother), o->sweeps, pm_amg_precision_name(o->precision), o->threshold,
      (long long)o->coarse_size);
  for (int l = 0; l < in->levels; l++)
    fprintf(out, "  level %d: %12lld rows %14lld nonzeros  %5.1f per row  %d ranks  %s\n", l, (long long)in->rows[l],
            (long long)in->nonzeros[l], in->rows[l] ? (double)in->nonzeros[l] / (double)in->rows[l] : 0.0, in->ranks[l],
            level_kind(in, l));
  return PM_OK;
}

static const pm_pc_ops_t mg_ops = {"mg", mg_setup, mg_apply, NULL, mg_view, mg_destroy};

static int create(int nlevels, const pm_local_t *const *meshes, const pm_refine_parents_t *const *parents,
                  pm_local_t **own_mesh, pm_refine_parents_t **own_par, const pm_amg_options_t *coarse_opt,
                  pm_pc_t **pc) {
  pm_mg_t *g = NULL;
  *pc = NULL;
  PM_CHECK(nlevels >= 1 && nlevels <= PM_AMG_MAX_LEVELS - 1, PM_ERR_ARG,
           "geometric multigrid: %d meshes: expected 1 to %d", nlevels, (int)PM_AMG_MAX_LEVELS - 1);
  PM_CHECK(meshes && (nlevels == 1 || parents), PM_ERR_ARG, "geometric multigrid: NULL meshes or parents");
  for (int l = 0; l < nlevels; l++) {
    PM_CHECK(meshes[l], PM_ERR_ARG, "geometric multigrid: mesh %d is NULL", l);
    if (l == 0) continue;
    const pm_refine_parents_t *pa = parents[l - 1];
    PM_CHECK(pa && pa->n >= meshes[l]->n_total, PM_ERR_ARG,
             "geometric multigrid: the parents of mesh %d are missing or cover %d of its %d nodes", l,
             pa ? (int)pa->n : 0, (int)meshes[l]->n_total);
  }
  if (coarse_opt) PM_CALL(pm_amg_options_check(coarse_opt));
  int ierr = PM_CALLOC(g, 1, "geometric multigrid");
  if (!ierr) ierr = PM_CALLOC(g->h, 1, "geometric multigrid");
  if (!ierr) ierr = PM_CALLOC(g->meshes, (size_t)nlevels, "geometric multigrid meshes");
  if (!ierr) ierr = PM_CALLOC(g->parents, (size_t)nlevels, "geometric multigrid parents");
  if (!ierr && own_mesh) ierr = PM_CALLOC(g->own_mesh, (size_t)nlevels, "geometric multigrid meshes");
  if (!ierr && own_mesh) ierr = PM_CALLOC(g->own_par, (size_t)nlevels, "geometric multigrid parents");
  if (ierr) {
    mg_destroy(g);
    return ierr;
  }
  g->nmesh = nlevels;
  g->coarse = PM_MG_COARSE_REDISCRETIZE;
  for (int l = 0; l < nlevels; l++) g->meshes[l] = meshes[l];
  for (int l = 0; l + 1 < nlevels; l++) g->parents[l] = parents[l];
  for (int l = 0; own_mesh && l + 1 < nlevels; l++) {
    g->own_mesh[l] = own_mesh[l];
    g->own_par[l] = own_par[l];
  }
  pm_amg_hier_init(g->h, coarse_opt);
  g->h->wide0 = 1;                       /* the finest operator is a refined run's largest array: no float copy */
  PM_CALL(pm_pc_create(&mg_ops, g, pc)); /* on failure it freed g, but not the levels */
  g->owns = own_mesh != NULL;
  return PM_OK;
}

void pm_mg_options_default_dim(pm_amg_options_t *opt, int dim) {
  pm_amg_options_default_dim(opt, dim);
  /* In 3D the AMG below the refinement levels, with 2 steps and 0.02, is the V-cycle's weak
   * part: a third step on every level and stronger coarse aggregates cost what the iterations
   * they save cost. */
  if (dim == 3) {
    opt->sweeps = 3;
    opt->threshold = 0.05;
  }
}

int pm_pc_create_mg(int nlevels, const pm_local_t *const *meshes, const pm_refine_parents_t *const *parents,
                    const pm_amg_options_t *coarse_opt, pm_pc_t **pc) {
  return create(nlevels, meshes, parents, NULL, NULL, coarse_opt, pc);
}

int pm_mg_create_owning(int nlevels, pm_local_t **meshes, pm_refine_parents_t **parents,
                        const pm_amg_options_t *coarse_opt, pm_pc_t **pc) {
  PM_CHECK(meshes && parents, PM_ERR_ARG, "geometric multigrid: NULL meshes or parents");
  return create(nlevels, (const pm_local_t *const *)meshes, (const pm_refine_parents_t *const *)parents, meshes,
                parents, coarse_opt, pc);
}

void pm_mg_lend_mesh(pm_pc_t *pc, int l) {
  pm_mg_t *g = pc ? pm_pc_context(pc) : NULL;
  if (g && g->owns && l >= 0 && l + 1 < g->nmesh) g->own_mesh[l] = NULL;
}

static int get_mg(pm_pc_t *pc, const char *who, pm_mg_t **g) {
  PM_CHECK(pc && !strcmp(pm_pc_name(pc), "mg"), PM_ERR_ARG, "%s: not a geometric multigrid preconditioner", who);
  *g = pm_pc_context(pc);
  return PM_OK;
}

int pm_mg_set_coarse(pm_pc_t *pc, pm_mg_coarse_t how) {
  pm_mg_t *g = NULL;
  PM_CALL(get_mg(pc, "pm_mg_set_coarse", &g));
  PM_CHECK(how == PM_MG_COARSE_REDISCRETIZE || how == PM_MG_COARSE_GALERKIN, PM_ERR_ARG,
           "pm_mg_set_coarse: unknown kind of coarse operators %d", (int)how);
  g->coarse = how;
  return PM_OK;
}

int pm_mg_set_assembler(pm_pc_t *pc, pm_mg_assemble_t assemble, void *ctx) {
  pm_mg_t *g = NULL;
  if (!pc || strcmp(pm_pc_name(pc), "mg") != 0) return PM_OK; /* nothing to do for the others */
  PM_CALL(get_mg(pc, "pm_mg_set_assembler", &g));
  g->assemble = assemble;
  g->assemble_ctx = ctx;
  return PM_OK;
}

int pm_mg_set_fixed_rows(pm_pc_t *pc, const char *fixed) {
  pm_mg_t *g = NULL;
  if (!pc || strcmp(pm_pc_name(pc), "mg") != 0) return PM_OK; /* nothing to do for the others */
  PM_CALL(get_mg(pc, "pm_mg_set_fixed_rows", &g));
  g->fixed = fixed;
  return PM_OK;
}

int pm_mg_get_info(const pm_pc_t *pc, pm_amg_info_t *info) {
  PM_CHECK(pc && !strcmp(pm_pc_name(pc), "mg"), PM_ERR_ARG, "pm_mg_get_info: not a geometric multigrid preconditioner");
  PM_CHECK(pm_pc_is_setup(pc), PM_ERR_ARG, "pm_mg_get_info: the geometric multigrid preconditioner is not set up");
  *info = ((const pm_mg_t *)pm_pc_context(pc))->h->info;
  return PM_OK;
}
