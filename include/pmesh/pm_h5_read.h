/* pm_h5_read.h - restarts: a nodal field of a result file (pm_h5.h's layout), read back onto a
 * partition of the same mesh at any number of ranks. */
#ifndef PMESH_PM_H5_READ_H
#define PMESH_PM_H5_READ_H

#include <mpi.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Read a nodal field for a restart.  Collective.
 *  @param[in]  name    field name; step: a series step, -1 = the last one (a single result
 *                      written by pm_h5_write has its fields in /fields and accepts -1 or 0)
 *  @param[out] values  [NP+NA]: fills the internal nodes 0..N-1 (the caller runs a halo update)
 *  The file may have been written at any number of ranks; it must be of the same mesh
 *  (mesh_fingerprint), otherwise PM_ERR_INCONSISTENT.  Missing file, non-HDF5 file, missing
 *  field or step: PM_ERR_IO / PM_ERR_FORMAT / PM_ERR_ARG with a message saying which. */
PM_EXTERN int pm_h5_read_field(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const char *h5path,
                               const char *name, int step, double *values);

#ifdef __cplusplus
}
#endif
#endif
