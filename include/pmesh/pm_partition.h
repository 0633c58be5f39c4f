/* pm_partition.h - a partition loaded for SPMD work: every rank's local mesh with its halo and
 * the partition's metadata, read collectively in one call (pm_partition_load); refined in
 * parallel in place (pm_partition_refine), with the levels kept for geometric multigrid
 * (pm_partition_create_mg, pm_partition_take_mg); written back as a partition directory that
 * `partition --check` validates and `solve -p` loads (pm_partition_dump).  pm_run.h solves on it.
 *
 * Every call here is collective on the partition's communicator unless it says otherwise; errors
 * are agreed: every rank returns an error code when any failed, the failing rank its own (with
 * the message recorded, pm_error.h) and the others PM_ERR_REMOTE. */
#ifndef PMESH_PM_PARTITION_H
#define PMESH_PM_PARTITION_H

#include <mpi.h>

#include "pmesh/pm_amg.h"
#include "pmesh/pm_export.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_pc.h"
#include "pmesh/pm_refine.h"
#include "pmesh/pm_refine_run.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded partition: what a rank needs for SPMD work on its part.  Open struct, read-only to
 *  the caller; everything belongs to it.  After pm_partition_refine, local, halo and meta are the
 *  refined mesh's (dir stays the directory it was loaded from). */
typedef struct pm_partition {
  MPI_Comm comm; /* the caller's communicator (borrowed; the halo holds its own duplicate) */
  int rank, size;
  char *dir;         /* the partition directory */
  pm_meta_t *meta;   /* DIR/partition.meta: global counts, groups, fingerprints */
  pm_local_t *local; /* this rank's local mesh (DIR/local.RANK), with coordinates and elements */
  pm_halo_t *halo;   /* the halo exchange over local's tables */
  /* Uniform refinement (pm_partition_refine; 0 and NULL for a partition as loaded): */
  int levels;                          /* refinements of the loaded partition */
  pm_local_t **level_mesh;             /* NULL, or (kept) [levels+1] meshes, coarse (as loaded) to
                                          fine: level_mesh[levels] == local */
  pm_refine_parents_t **level_parents; /* NULL, or (kept) [levels]: fine nodes' coarse parents */
  /* pm_partition_refine_points: the refinement points of level_mesh[levels-1]'s elements as
   * nodes of local (the matrix-free fine operator, pm_fine_op.h); NULL otherwise. */
  pm_refine_points_t *points;
  pm_local_t *below; /* with points: the mesh they refer to (level levels-1), also when the
                        levels were given to multigrid (pm_partition_take_mg keeps it) */
  int own_below;     /* below is the partition's own (not one of level_mesh) */
} pm_partition_t;

/** Load a partition: every rank reads the metadata and its own local file, checks that the
 *  metadata is the same on every rank, that the job has as many ranks as the partition has
 *  parts, that the local file has a mesh and belongs to this partition (fingerprint), and builds
 *  the halo with back-end `kind`.  Errors are agreed (see above; a wrong rank count is reported
 *  by rank 0).  Collective on comm.
 *  @param[in]  comm  the communicator whose ranks are the parts (MPI_ERRORS_RETURN advised)
 *  @param[out] part  the loaded partition; pm_partition_destroy frees it */
PM_EXTERN int pm_partition_load(MPI_Comm comm, const char *dir, pm_exchange_t kind, pm_partition_t **part);

/** Free; NULL-safe, sets *part to NULL.  Collective (the halo's communicator is freed). */
PM_EXTERN void pm_partition_destroy(pm_partition_t **part);

/** Refine a loaded partition uniformly `levels` times in parallel, in place (pm_refine.h: how
 *  elements split, the rank-independent numbering of new nodes and their owners; only the
 *  element halo, `partition --halo element`, is supported).  On success part->local is the
 *  refined local mesh, part->halo its halo (the same exchange back-end), part->meta the refined
 *  partition's metadata (pm_refine_meta: global counts, partition and mesh fingerprints), and
 *  part->levels grows by `levels`; a result written from it is the fine mesh's, the same file
 *  for any number of ranks, and pm_h5_read_field reads results of the same refinement.
 *  The sizes are checked before anything is allocated (pm_refine_check: a negative count, 32-bit
 *  local or 64-bit global indices, the machine's memory; the message gives the figures).
 *  On failure the partition is left as it was (errors agreed).  Collective on part->comm.
 *  @param[in,out] part    a loaded (or already refined) partition
 *  @param[in]     levels  0 (nothing changes) or more
 *  @param[in]     keep    nonzero: keep every level's mesh and the parents between levels in
 *                         part->level_mesh / level_parents (pm_partition_create_mg needs them;
 *                         they cost about a third of the finest mesh's memory more); a partition
 *                         refined earlier without keeping them cannot keep them now (PM_ERR_ARG)
 *  @return PM_OK, or an error of pm_refine_check / pm_refine_local / pm_halo_create. */
PM_EXTERN int pm_partition_refine(pm_partition_t *part, int levels, int keep);

/** pm_partition_refine keeping the levels, the last one without its elements, and with the
 *  refinement points of the level below (part->points, part->below: what pm_fine_op.h needs to
 *  apply the finest operator from the level below; a result's mesh is written from them too,
 *  pm_refine_points_child giving each child's nodes).  pm_partition_take_mg then leaves part->below to the partition.
 *  Collective on part->comm. */
PM_EXTERN int pm_partition_refine_points(pm_partition_t *part, int levels);
/** A geometric multigrid preconditioner (pm_mg.h) over the levels of a partition refined with
 *  `keep` (at least one level): the refinements as a V-cycle, the partition as loaded solved by
 *  AMG with `coarse_opt` (NULL: defaults; also the smoother's options).  The partition is
 *  borrowed until pm_pc_setup returns (pm_run_steady / pm_run_transient set it up); PM_ERR_ARG
 *  (naming what is missing) for a partition without kept levels.  Not collective. */
PM_EXTERN int pm_partition_create_mg(const pm_partition_t *part, const pm_amg_options_t *coarse_opt, pm_pc_t **pc);

/** pm_partition_create_mg, but the preconditioner takes the partition's coarser levels (the
 *  meshes and parents kept by pm_partition_refine; part->local stays the partition's) and frees
 *  each as soon as its set-up no longer needs it, so a solve does not carry them: afterwards
 *  the partition has no kept levels (part->level_mesh and level_parents NULL; part->levels
 *  unchanged), and can give no second multigrid preconditioner.  Not collective. */
PM_EXTERN int pm_partition_take_mg(pm_partition_t *part, const pm_amg_options_t *coarse_opt, pm_pc_t **pc);

/** Write the partition's local meshes (DIR/local.RANK) and, on rank 0, its metadata
 *  (DIR/partition.meta) so that `partition --check DIR` validates it and `solve -p DIR` loads
 *  it: after pm_partition_refine the refined partition, otherwise a copy of the loaded one.
 *  DIR is created if missing (not emptied); files are written through temporary names.
 *  Collective on part->comm. */
PM_EXTERN int pm_partition_dump(const pm_partition_t *part, const char *dir);

#ifdef __cplusplus
}
#endif
#endif
