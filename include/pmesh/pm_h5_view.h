/* pm_h5_view.h - partition --view: a global mesh and its partition written in pm_h5.h's layout for
 * ParaView. */
#ifndef PMESH_PM_H5_VIEW_H
#define PMESH_PM_H5_VIEW_H

#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Write a global mesh with its partition (part id per node, and per element: the part of its
 *  node with the smallest index, the local meshes' rule) in the layout above, fields "part"
 *  (/fields/part and /fields/elem_part).  Serial HDF5, needs no MPI.  Not collective. */
PM_EXTERN int pm_h5_write_partition(const pm_mesh_t *mesh, const int32_t *part, int nparts,
                                    uint64_t partition_fingerprint, const char *h5path, const char *xmfpath);

#ifdef __cplusplus
}
#endif
#endif
