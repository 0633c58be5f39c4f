/* pm_xdmf.h - private: the XDMF file that describes a pmesh HDF5 result to ParaView (one uniform
 * grid, or a temporal collection of grids for a series).
 *
 * The description is built as the HDF5 file is written (pm_xdmf_add_field, pm_xdmf_add_step)
 * and written at the end, to a temporary name that the caller renames.  pm_xdmf_write_raw and the
 * job that runs it on a thread call neither MPI, nor HDF5, nor pmesh's error functions. */
#ifndef PMESH_PM_XDMF_H
#define PMESH_PM_XDMF_H

#include <stdint.h>
#include <threads.h>

#include "pmesh/pm_cell.h"

enum { PM_XDMF_FLOAT64 = 0, PM_XDMF_INT32 = 1, PM_XDMF_INT64 = 2 };

/** Dataset in /mesh of each cell type's connectivity, by pm_cell_type_t ("lines", "triangles",
 *  "quadrangles", "tetrahedra", "hexahedra", "prisms", "pyramids"; NULL for points, never a cell
 *  here). */
extern const char *const pm_xdmf_conn_names[PM_CELL_NTYPES];

typedef struct pm_xdmf_field {
  int step;      /* -1: in every grid */
  char dset[96]; /* dataset path in the .h5 */
  char label[64];
  int on_elements;
  int kind; /* PM_XDMF_FLOAT64, ... */
} pm_xdmf_field_t;

/** What the file describes.  Start from all zeros; pm_xdmf_clear frees it. */
typedef struct pm_xdmf {
  int dim;
  int64_t n_nodes, n_elems, ttot[PM_CELL_NTYPES]; /* ttot: cells by pm_cell_type_t */
  int conn_kind;                                  /* the connectivity's: PM_XDMF_INT32 or PM_XDMF_INT64 */
  int nsteps;                                     /* 0: one uniform grid */
  double *times;
  int nfields;
  pm_xdmf_field_t *fields;
  int fcap, tcap;
} pm_xdmf_t;

/** A field of dataset `dset` (in step `step`, -1: every grid), shown as `label`.  PM_ERR_MEMORY
 *  on failure.  Not collective. */
int pm_xdmf_add_field(pm_xdmf_t *x, int step, const char *dset, const char *label, int on_elements, int kind);

/** One more step, at `time`.  Not collective. */
int pm_xdmf_add_step(pm_xdmf_t *x, double time);

void pm_xdmf_clear(pm_xdmf_t *x);

/** Write the XDMF for h5path to `tmp` (its final name is xmfpath, which tells how to name the
 *  .h5) and sync it.  Sets no pmesh error (it may run on a helper thread): returns 0, or errno
 *  with *created saying whether the file could be created at all. */
int pm_xdmf_write_raw(const pm_xdmf_t *x, const char *h5path, const char *xmfpath, const char *tmp, int *created);

/** Turn pm_xdmf_write_raw's result into a pmesh error (PM_ERR_IO naming tmp) or PM_OK. */
int pm_xdmf_report(const char *tmp, int err, int created);

/** Both: write, then report.  Not collective. */
int pm_xdmf_write(const pm_xdmf_t *x, const char *h5path, const char *xmfpath, const char *tmp);

/** pm_xdmf_write_raw on a helper thread, so that its fsync overlaps the HDF5 file's flush. */
typedef struct pm_xdmf_job {
  const pm_xdmf_t *x;
  const char *h5path, *xmfpath, *tmp;
  int err, created;
  int threaded;
  thrd_t th;
} pm_xdmf_job_t;

/** Start the job (its arguments are borrowed until pm_xdmf_job_join): on a thread when
 *  use_thread is set and a thread starts, else right here. */
void pm_xdmf_job_start(pm_xdmf_job_t *j, const pm_xdmf_t *x, const char *h5path, const char *xmfpath, const char *tmp,
                       int use_thread);

/** Wait for the job's thread, if any (once, before the job's memory goes; a job that is all
 *  zeros was never started and has nothing to wait for); its result is in j->err, j->created. */
void pm_xdmf_job_join(pm_xdmf_job_t *j);

#endif
