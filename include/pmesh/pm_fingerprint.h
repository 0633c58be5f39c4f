/* pm_fingerprint.h - the mesh fingerprint: one 64-bit value that identifies a mesh whatever its
 * partition.
 *
 * It hashes the global counts and dimension with the sum of per-node hashes (position in the
 * global order, Gmsh tag, coordinates; -0 and +0 alike) and per-element hashes (position, Gmsh
 * type, node tags).  A sum does not depend on the order of its terms, so the global mesh, the
 * local meshes of any partition and any number of ranks give the same value.  partition stores
 * it in partition.meta (version 2); result files carry it, and a restart refuses a file of
 * another mesh. */
#ifndef PMESH_PM_FINGERPRINT_H
#define PMESH_PM_FINGERPRINT_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The fingerprint of a global mesh.  Not collective. */
PM_EXTERN uint64_t pm_fingerprint_mesh(const pm_mesh_t *mesh);

/** The same fingerprint from the local meshes of a partition, one per rank of comm: each rank
 *  hashes its internal nodes and the elements it owns, and one MPI_Allreduce sums them.
 *  Collective on comm; the error is agreed.
 *  @param[in]  local  this rank's local mesh, with coordinates and elements
 *  @param[in]  meta   the partition's metadata (global counts and dimension)
 *  @param[out] fp     the fingerprint (on every rank)
 *  @return PM_OK; PM_ERR_ARG for a lecture file without coordinates or elements;
 *          PM_ERR_INCONSISTENT when the local meshes' counts are not meta's. */
PM_EXTERN int pm_fingerprint_local(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, uint64_t *fp);

/** One element's term of the fingerprint's sum: its position in the global element order, its
 *  Gmsh type and its nodes' global ids (tags) in its own order.  With
 *  pm_fingerprint_local_sum, a caller that holds a mesh's elements in another form (made from
 *  coarser ones as they are needed) hashes them itself.  Not collective. */
PM_EXTERN uint64_t pm_fingerprint_element(int64_t index, int gmsh_type, int nv, const int64_t *vgid);

/** pm_fingerprint_local with the elements' part given: this rank's internal nodes are hashed
 *  here, elem_sum is the sum (mod 2^64) of pm_fingerprint_element over the n_elems elements this
 *  rank stands for (every element counted by exactly one rank).  local needs its coordinates,
 *  not its elements.  Collective on comm; the error is agreed.
 *  @return PM_OK; PM_ERR_ARG for a local mesh without coordinates; PM_ERR_INCONSISTENT when the
 *          counts are not meta's. */
PM_EXTERN int pm_fingerprint_local_sum(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, uint64_t elem_sum,
                                       int64_t n_elems, uint64_t *fp);

/** The same fingerprint from all local meshes of a partition held in one process (partition
 *  --check): local[r] is rank r's.  The counts are not checked.  Not collective. */
PM_EXTERN uint64_t pm_fingerprint_parts(int nparts, pm_local_t *const *local, const pm_meta_t *meta);

#ifdef __cplusplus
}
#endif
#endif
