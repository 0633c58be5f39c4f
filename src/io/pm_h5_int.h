/* pm_h5_int.h - private: the series of pm_h5.c (its life, the fields) shared with pm_h5_mesh.c
 * (the datasets' row writer and the mesh's datasets). */
#ifndef PMESH_PM_H5_INT_H
#define PMESH_PM_H5_INT_H

#include <stdint.h>

#include "base/pm_alloc_int.h"
#include "halo/pm_redist.h"
#include "pm_h5_src.h"
#include "pm_h5io.h"
#include "pm_xdmf.h"
#include "pmesh/pm_h5.h"

/* pm_h5_options_t as bits. */
enum { H5_NO_PARTITION = 1, H5_NODE_FIELDS = 2 };

struct pm_h5_series {
  MPI_Comm comm;
  int rank, nranks, single, failed; /* single: 1 a single result (pm_h5_result_create), 2 written */
  int flags;                        /* H5_NO_PARTITION, H5_NODE_FIELDS (pm_h5_options_t) */
  unsigned long h5_errors0;         /* pm_h5io_error_count() when the series began */
  const pm_local_t *local;
  const pm_meta_t *meta;
  hid_t file, dxpl;
  pm_h5io_wb_t wb; /* write-behind on the temporary file (fd -1: none) */
  char *h5path, *xmfpath, *h5tmp, *xmftmp;
  pm_redist_t *np, *ep;           /* nodes (internal), elements (owned) */
  int64_t rows;                   /* the plans' rows per round */
  pm_scratch_t chunk, xbuf, conv; /* a round's rows, its exchange buffers, its connectivity by type */
  int32_t *esel;                  /* owned elements' local indices (NULL: every local element is owned) */
  uint64_t mesh_fp;
  const int8_t *perm; /* a one-type mesh's vertex order in its dataset (the table's to_vtk) */
  /* Elements the caller gives (pm_h5_options_t.elements; NULL: the local mesh's, one per root of
   * ep): a root of ep is an item of `per` elements. */
  pm_h5_src_t src;
  int per;
  pm_xdmf_t x;
};

/* Dataset loc/name of [n_global per] (ncols 0) or [n_global per x ncols] from what x carries
 * through plan rd (x NULL: the owner ranks, int32), a group of rounds at a time; a root's row is
 * `per` rows of the dataset.  Collective: every rank creates it and makes one H5Dwrite per group
 * of rounds, with an empty selection where it has no rows. */
int pm_h5_write_rows(pm_h5_series_t *s, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                     int ncols, const pm_redist_t *rd, int per, const pm_redist_src_t *x, const char *center);

/* Mesh, global ids, owner ranks and the elements' groups (groups /mesh and /fields created
 * here); s->x.ttot set, and s->perm for a mesh of one cell type.  Collective. */
int pm_h5_write_mesh(pm_h5_series_t *s);

#endif
