/* pm_partition.c - a partition loaded collectively (metadata, this rank's local mesh, its
 * halo), refined in parallel (pm_refine.h) into the partition a run solves on (the refined
 * local mesh with its halo and metadata, the level hierarchy kept for geometric multigrid), and
 * the dump that `partition --check` reads.  pm_run.c solves on it. */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_partition.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/pm_util.h"
#include "pm_partition_int.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_mg.h"
#include "solvers/pm_mg_int.h"

/* ---------------------------------------------------------------- errors */

int pm_partition_error_alike(int rank, int code, const char *file, int line, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pm_error_set(rank == 0 ? code : PM_ERR_REMOTE, file, line, "%s", msg);
}

int pm_partition_agree_alike(MPI_Comm comm, int rank, int ierr) {
  int all = pm_comm_agree(comm, ierr);
  if (!all) return PM_OK;
  int failed = ierr != PM_OK, everyone = 0;
  if (pm_comm_allreduce(&failed, &everyone, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return all;
  return everyone && rank != 0 ? PM_ERR_REMOTE : all;
}

/* ---------------------------------------------------------------- loading */

int pm_partition_load(MPI_Comm comm, const char *dir, pm_exchange_t kind, pm_partition_t **part) {
  int ierr = PM_OK;
  pm_partition_t *p = NULL;
  char path[4400];
  *part = NULL;
  ierr = PM_CALLOC(p, 1, "partition");
  if (!ierr) {
    p->comm = comm;
    MPI_Comm_rank(comm, &p->rank);
    MPI_Comm_size(comm, &p->size);
    ierr = pm_strdup(dir, &p->dir);
  }
  if (!ierr) ierr = pm_meta_path(dir, path, sizeof path);
  if (!ierr) ierr = pm_meta_read(path, &p->meta);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  PM_TRY(pm_partition_agree_alike(comm, rank, ierr));

  /* The same metadata everywhere, and one part per rank: checks every rank sees alike. */
  uint64_t fp[2] = {p->meta->fingerprint, ~p->meta->fingerprint};
  PM_TRY_CHECK(pm_comm_allreduce(MPI_IN_PLACE, fp, 2, MPI_UINT64_T, MPI_MAX, comm) == MPI_SUCCESS, PM_ERR_MPI,
               "cannot compare the partition's fingerprints across ranks");
  if (fp[0] != ~fp[1])
    PM_TRY(pm_partition_error_alike(rank, PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                                    "%s: the ranks read different metadata (did it change while the job started?)",
                                    path));
  if (p->meta->nparts != p->size)
    PM_TRY(pm_partition_error_alike(rank, PM_ERR_ARG, __FILE__, __LINE__, "%s has %d parts but the job has %d ranks",
                                    dir, p->meta->nparts, p->size));

  /* Every rank its own file. */
  ierr = pm_local_path(dir, rank, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank, &p->local);
  if (!ierr && !p->local->has_mesh)
    ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s: has only the lecture's tables (no #GLOBALID, #ELEMENT)",
                        path);
  if (!ierr && (p->local->fingerprint != p->meta->fingerprint || p->local->nparts != p->meta->nparts))
    ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                        "%s: belongs to another partition than %s/partition.meta (fingerprint %016" PRIx64
                        ", expected %016" PRIx64 "): re-run partition",
                        path, dir, p->local->fingerprint, p->meta->fingerprint);
  PM_TRY(pm_comm_agree(comm, ierr));
  ierr = pm_halo_create(comm, p->local, kind, &p->halo);
  PM_TRY(pm_comm_agree(comm, ierr));
  *part = p;
  p = NULL;
cleanup:
  pm_partition_destroy(&p);
  return ierr;
}

void pm_partition_destroy(pm_partition_t **part) {
  if (!part || !*part) return;
  pm_partition_t *p = *part;
  pm_halo_destroy(&p->halo);
  for (int k = 0; p->level_mesh && k < p->levels; k++) pm_local_destroy(&p->level_mesh[k]); /* [levels]: local */
  for (int k = 0; p->level_parents && k < p->levels; k++) pm_refine_parents_destroy(&p->level_parents[k]);
  free(p->level_mesh);
  free(p->level_parents);
  pm_refine_points_destroy(&p->points);
  if (p->own_below) pm_local_destroy(&p->below);
  pm_local_destroy(&p->local);
  pm_meta_destroy(&p->meta);
  free(p->dir);
  free(p);
  *part = NULL;
}

/* Free what one pm_partition_refine call made before it failed: the meshes and parents from
 * index `from` on (the earlier ones belong to the partition). */
static void free_new_levels(pm_local_t **mesh, pm_refine_parents_t **par, int from, int to) {
  for (int k = from; k <= to; k++) {
    if (mesh) pm_local_destroy(&mesh[k]);
    if (par && k < to) pm_refine_parents_destroy(&par[k]);
  }
}

static int refine(pm_partition_t *part, int levels, int keep, int points);

/* The metadata of a finest level refined without its elements: its element count (the children
 * of the owned elements below) and dimension, which pm_refine_meta takes from elements.
 * Collective on comm. */
static int meta_without_elements(MPI_Comm comm, const pm_local_t *below, const pm_meta_t *in, pm_meta_t *meta) {
  int64_t mine = 0;
  for (int32_t e = 0; e < below->n_elems; e++)
    if (below->elem_owner[e] == below->rank) mine += pm_cell_gmsh(below->elem_type[e])->n_children;
  PM_CALL_MPI(pm_comm_allreduce(&mine, &meta->global_elems, 1, MPI_INT64_T, MPI_SUM, comm));
  meta->dim = in->dim;
  return PM_OK;
}

int pm_partition_refine(pm_partition_t *part, int levels, int keep) {
  return refine(part, levels, keep, 0);
}

int pm_partition_refine_points(pm_partition_t *part, int levels) {
  return refine(part, levels, 1, 1);
}

static int refine(pm_partition_t *part, int levels, int keep, int points) {
  PM_CHECK(part && part->local && part->meta && part->halo, PM_ERR_ARG, "pm_partition_refine: no loaded partition");
  MPI_Comm comm = part->comm;
  int base = part->levels, ierr = PM_OK;
  if (keep && base > 0 && !part->level_mesh)
    ierr = pm_error_set(part->rank == 0 ? PM_ERR_ARG : PM_ERR_REMOTE, __FILE__, __LINE__,
                        "pm_partition_refine: the partition was refined before (%d levels) without keeping its levels; "
                        "multigrid levels can only be kept from the partition as loaded",
                        base);
  PM_CALL(pm_comm_agree(comm, ierr));
  PM_CALL(points ? pm_refine_check_run_points(comm, part->local, levels, 0.0) : pm_refine_check(comm, part->local, levels));
  if (levels == 0) return PM_OK;
  PM_CHECK(levels <= 64 - base, PM_ERR_ARG, "pm_partition_refine: %d + %d levels", base, levels);

  int total = base + levels;
  pm_local_t **mesh = NULL, *cur = part->local, *next = NULL;
  pm_refine_parents_t **par = NULL;
  pm_halo_t *halo = NULL;
  pm_meta_t *meta = NULL;
  pm_refine_points_t *pts = NULL;
  if (keep) {
    ierr = PM_CALLOC(mesh, total + 1, "refinement levels");
    if (!ierr) ierr = PM_CALLOC(par, total, "refinement parents");
    for (int k = 0; !ierr && k < base; k++) {
      mesh[k] = part->level_mesh[k];
      par[k] = part->level_parents[k];
    }
    if (!ierr) mesh[base] = part->local;
  }
  PM_TRY(pm_comm_agree(comm, ierr));
  for (int k = 0; k < levels; k++) {
    int last = points && k == levels - 1; /* the matrix-free finest level: no elements */
    ierr = pm_refine_local_points(comm, cur, !last, &next, keep ? &par[base + k] : NULL, last ? &pts : NULL);
    /* Without the hierarchy only two levels live at a time. */
    if (!keep && cur != part->local) pm_local_destroy(&cur);
    PM_TRY(ierr);
    if (keep) mesh[base + k + 1] = next;
    cur = next;
    next = NULL;
  }
  PM_TRY(pm_halo_create(comm, cur, pm_halo_kind(part->halo), &halo));
  PM_TRY(pm_refine_meta(comm, cur, part->meta, &meta));
  if (pts) PM_TRY(meta_without_elements(comm, mesh[total - 1], part->meta, meta));

  /* Everything made: swap it in (collectively: the halo frees its communicator). */
  pm_halo_destroy(&part->halo);
  pm_meta_destroy(&part->meta);
  if (!keep) pm_local_destroy(&part->local);
  part->halo = halo;
  part->meta = meta;
  part->local = cur;
  free(part->level_mesh);
  free(part->level_parents);
  part->level_mesh = mesh;
  part->level_parents = par;
  part->levels = total;
  pm_refine_points_destroy(&part->points);
  if (part->own_below) pm_local_destroy(&part->below);
  part->points = pts;
  part->below = pts ? mesh[total - 1] : NULL;
  part->own_below = 0;
  return PM_OK;

cleanup:
  pm_refine_points_destroy(&pts);
  pm_halo_destroy(&halo);
  pm_meta_destroy(&meta);
  if (keep) {
    free_new_levels(mesh, par, base + 1, total);
    if (par) pm_refine_parents_destroy(&par[base]);
  } else if (cur != part->local) {
    pm_local_destroy(&cur);
  }
  free(mesh);
  free(par);
  return ierr;
}

int pm_partition_create_mg(const pm_partition_t *part, const pm_amg_options_t *coarse_opt, pm_pc_t **pc) {
  *pc = NULL;
  PM_CHECK(part, PM_ERR_ARG, "pm_partition_create_mg: no partition");
  PM_CHECK(part->levels >= 1 && part->level_mesh && part->level_parents, PM_ERR_ARG,
           "geometric multigrid needs the levels of a refined partition: refine it at least once keeping them "
           "(pm_partition_refine with keep; solve: --refine K with K >= 1); this one was refined %d times%s",
           part->levels, part->levels > 0 ? " without keeping its levels" : "");
  return pm_pc_create_mg(part->levels + 1, (const pm_local_t *const *)part->level_mesh,
                         (const pm_refine_parents_t *const *)part->level_parents, coarse_opt, pc);
}

int pm_partition_take_mg(pm_partition_t *part, const pm_amg_options_t *coarse_opt, pm_pc_t **pc) {
  *pc = NULL;
  PM_CHECK(part, PM_ERR_ARG, "pm_partition_take_mg: no partition");
  PM_CHECK(part->levels >= 1 && part->level_mesh && part->level_parents, PM_ERR_ARG,
           "geometric multigrid needs the levels of a refined partition: refine it at least once keeping them "
           "(pm_partition_refine with keep; solve: --refine K with K >= 1); this one was refined %d times%s",
           part->levels, part->levels > 0 ? " without keeping its levels (or gave them away)" : "");
  PM_CALL(pm_mg_create_owning(part->levels + 1, part->level_mesh, part->level_parents, coarse_opt, pc));
  if (part->points) { /* the matrix-free finest level's mesh below stays the partition's */
    pm_mg_lend_mesh(*pc, part->levels - 1);
    part->own_below = 1;
  }
  /* The levels are the preconditioner's now; part->local (the last mesh) stays the partition's. */
  free(part->level_mesh);
  free(part->level_parents);
  part->level_mesh = NULL;
  part->level_parents = NULL;
  return PM_OK;
}

int pm_partition_dump(const pm_partition_t *part, const char *dir) {
  PM_CHECK(part && part->local && part->meta && dir, PM_ERR_ARG, "pm_partition_dump: no partition or directory");
  return pm_refine_dump(part->comm, part->local, part->meta, dir);
}
