/* pm_run_refine.c - a loaded partition refined in parallel (pm_refine.h) into the partition a run
 * solves on: the refined local mesh with its halo and metadata, the level hierarchy kept for
 * geometric multigrid, and the dump that `partition --check` reads.  Apart from pm_run.c so that
 * the run's drivers do not depend on how the mesh they get was made. */
#include <stdlib.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_mg.h"
#include "pmesh/pm_run.h"
#include "solvers/pm_mg_own.h"

/* Free what one pm_partition_refine call made before it failed: the meshes and parents from
 * index `from` on (the earlier ones belong to the partition). */
static void free_new_levels(pm_local_t **mesh, pm_refine_parents_t **par, int from, int to) {
  for (int k = from; k <= to; k++) {
    if (mesh) pm_local_destroy(&mesh[k]);
    if (par && k < to) pm_refine_parents_destroy(&par[k]);
  }
}

int pm_partition_refine(pm_partition_t *part, int levels, int keep) {
  PM_CHECK(part && part->local && part->meta && part->halo, PM_ERR_ARG, "pm_partition_refine: no loaded partition");
  MPI_Comm comm = part->comm;
  int base = part->levels, ierr = PM_OK;
  if (keep && base > 0 && !part->level_mesh)
    ierr = pm_error_set(part->rank == 0 ? PM_ERR_ARG : PM_ERR_REMOTE, __FILE__, __LINE__,
                        "pm_partition_refine: the partition was refined before (%d levels) without keeping its levels; "
                        "multigrid levels can only be kept from the partition as loaded",
                        base);
  PM_CALL(pm_comm_agree(comm, ierr));
  PM_CALL(pm_refine_check(comm, part->local, levels));
  if (levels == 0) return PM_OK;
  PM_CHECK(levels <= 64 - base, PM_ERR_ARG, "pm_partition_refine: %d + %d levels", base, levels);

  int total = base + levels;
  pm_local_t **mesh = NULL, *cur = part->local, *next = NULL;
  pm_refine_parents_t **par = NULL;
  pm_halo_t *halo = NULL;
  pm_meta_t *meta = NULL;
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
    ierr = pm_refine_local(comm, cur, &next, keep ? &par[base + k] : NULL);
    /* Without the hierarchy only two levels live at a time. */
    if (!keep && cur != part->local) pm_local_destroy(&cur);
    PM_TRY(ierr);
    if (keep) mesh[base + k + 1] = next;
    cur = next;
    next = NULL;
  }
  PM_TRY(pm_halo_create(comm, cur, pm_halo_kind(part->halo), &halo));
  PM_TRY(pm_refine_meta(comm, cur, part->meta, &meta));

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
  return PM_OK;

cleanup:
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
