/* pm_refine_run.h - refining a partition's local meshes several levels at once (pm_refine.h
 * refines one): the sizes checked before anything is allocated, the levels run, and the refined
 * partition's metadata and dump (a directory that `partition --check` validates). */
#ifndef PMESH_PM_REFINE_RUN_H
#define PMESH_PM_REFINE_RUN_H

#include <mpi.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_refine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Sizes of this rank's local mesh after `levels` refinements (upper estimates) and the bytes
 *  refining needs at the last level (the two finest levels and the work arrays; `work`: the
 *  work arrays alone, freed when the refinement returns).  Not collective. */
typedef struct pm_refine_estimate {
  double elems, elem_nodes, nodes, bytes, work;
} pm_refine_estimate_t;
PM_EXTERN void pm_refine_estimate(const pm_local_t *coarse, int levels, pm_refine_estimate_t *est);

/** Refuse `levels` before anything is allocated: negative, or so many that some rank's refined
 *  mesh would overflow 32-bit local indices, the global counts or tags overflow 64 bits, or the
 *  ranks sharing a node would need more memory than it has available (MemAvailable).  The
 *  message gives the figures.  Collective on comm. */
PM_EXTERN int pm_refine_check(MPI_Comm comm, const pm_local_t *coarse, int levels);

/** pm_refine_check counting also `run_bytes` per fine node that the caller will hold besides the
 *  meshes after the refinement (matrix, vectors, preconditioner, output buffers; the
 *  refinement's work arrays are freed by then, so the need is the larger of the refinement's
 *  and the run's); 0: the refinement alone.  Collective on comm. */
PM_EXTERN int pm_refine_check_run(MPI_Comm comm, const pm_local_t *coarse, int levels, double run_bytes);

/** The same for a last level refined without its elements (pm_partition_refine_points, the
 *  matrix-free finest level): the fine nodes and the refinement points instead of the fine
 *  elements; `run_bytes` per fine node besides the meshes.  Collective on comm. */
PM_EXTERN void pm_refine_estimate_points(const pm_local_t *coarse, int levels, pm_refine_estimate_t *est);
PM_EXTERN int pm_refine_check_run_points(MPI_Comm comm, const pm_local_t *coarse, int levels, double run_bytes);
/** Refine `levels` times (0: nothing changes): *local is replaced by its refinement (the coarse
 *  mesh is freed); on failure *local is left unchanged.  Runs pm_refine_check first.
 *  Collective on comm. */
PM_EXTERN int pm_refine(MPI_Comm comm, int levels, pm_local_t **local);

/** The partition metadata of a refined partition: `meta_in` (the coarse partition's: source,
 *  method, seed, groups) with the local meshes' global counts and dimension, the fine partition
 *  fingerprint (fine->fingerprint), the mesh fingerprint (pm_fingerprint_local) and halo
 *  "element" (the coarse one kept when `fine` is the coarse partition itself, 0 levels), and the
 *  refinement: refine_levels (meta_in's plus the levels between meta_in's fingerprint and
 *  fine's) and the coarse partition's fingerprints and counts (pm_meta.h, version 3).
 *  @param[out] meta  new metadata owning its strings; free with pm_meta_destroy()
 *  Collective on comm. */
PM_EXTERN int pm_refine_meta(MPI_Comm comm, const pm_local_t *fine, const pm_meta_t *meta_in, pm_meta_t **meta);

/** Write this rank's (refined) local mesh to DIR/local.R and, on rank 0, DIR/partition.meta
 *  made by pm_refine_meta() from `meta_in`, so that `partition --check DIR` validates the
 *  refined partition.  DIR is created if missing; files are written through temporary names.
 *  Collective on comm. */
PM_EXTERN int pm_refine_dump(MPI_Comm comm, const pm_local_t *fine, const pm_meta_t *meta_in, const char *dir);

#ifdef __cplusplus
}
#endif
#endif
