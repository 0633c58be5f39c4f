/* tu_part.h - for the unit programs: every rank partitions a small mesh the same way, in
 * memory, and keeps its own local mesh (what `partition` + pm_local_read give, without files). */
#ifndef PMESH_TU_PART_H
#define PMESH_TU_PART_H

#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_part.h"

/** Rank `rank` of `nparts` parts of the mesh at `path` (method, halo kind; METIS seed 1,
 *  partition fingerprint 1); *dim is the mesh's dimension.  Not collective. */
int tu_part_local(const char *path, int nparts, int rank, pm_part_method_t method, pm_adjacency_t halo,
                  pm_local_t **local, int *dim);

/** The same from a mesh already in memory (not modified).  Not collective. */
int tu_part_mesh_local(const pm_mesh_t *mesh, int nparts, int rank, pm_part_method_t method, pm_adjacency_t halo,
                       pm_local_t **local);

#endif
