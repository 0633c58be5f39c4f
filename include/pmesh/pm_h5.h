/* pm_h5.h - results in one parallel HDF5 file plus an XDMF file that ParaView opens.
 *
 * Every rank writes its own part of one file through the MPI-IO driver with collective
 * transfers; nothing is gathered to rank 0 and the file's content is in global order, so it is
 * the same for any number of ranks.  Each node's and element's values are contributed exactly
 * once, by the owner (internal nodes; elements with elem_owner == rank; or, for a mesh whose
 * elements are given by a callback, pm_h5_elements_t, by the rank that gives them).  Internally the values
 * are first redistributed (a private plan) so that rank r writes one contiguous slab of each
 * dataset: our own two-phase I/O, which keeps every transfer a large contiguous collective
 * write whatever the partition looks like.
 *
 * File layout (format "pmesh-h5", version PM_H5_FORMAT_VERSION):
 *   /mesh/coordinates   [n_nodes x 3] float64   nodes in global order (ascending Gmsh tag)
 *   /mesh/global_id     [n_nodes]     int64     Gmsh node tags
 *   /mesh/triangles     [n_tri x 3]   int     0-based rows of /mesh/coordinates   (if any)
 *   /mesh/quadrangles   [n_quad x 4]  int                                             (if any)
 *   /mesh/lines         [n_line x 2]  int                                        (1D meshes)
 *   /mesh/tetrahedra    [n_tet x 4]   int                                (3D meshes, if any)
 *   /mesh/hexahedra     [n_hex x 8]   int                                (3D meshes, if any)
 *   /mesh/prisms        [n_prism x 6] int                                (3D meshes, if any)
 *   /mesh/pyramids      [n_pyr x 5]   int                                (3D meshes, if any)
 *   int: int32 while the mesh has fewer than 2^31 nodes, else int64 (the XDMF file says which).
 *   Rows list a cell's nodes in VTK's/XDMF's order (the cell table's to_vtk): Gmsh's, but for
 *   the prism (XDMF Wedge), whose row is its Gmsh nodes 0, 2, 1, 3, 5, 4.
 *   /mesh/mixed         [sum (1 + n_verts) n_type] int  XDMF Mixed topology (only for meshes
 *                       of several cell types): per cell the table's xdmf_type (4 triangle,
 *                       5 quadrangle, 6 tetrahedron, 9 hexahedron, 8 wedge, 7 pyramid), then its row
 *   Elements keep the global element order (elem_index) within each type; the XDMF cells
 *   (and every element field) are in global element order.
 *   /fields/<name>      [n_nodes] or [n_elems]  float64 or int32  (pm_h5_write)
 *   /fields/node_rank   [n_nodes] int32   owner rank of each node        (not with no_partition)
 *   /fields/cell_rank   [n_elems] int32   owner rank of each element     (not with no_partition)
 *   /fields/cell_group  [n_elems] int32   each element's physical group: its index in the
 *                       partition's group list (root attribute cell_group_names), -1 for none
 *   /steps/<k>/<name>   the fields of step k = 0, 1, ... of a series; group attribute "time"
 *   Each field dataset has a string attribute "center": "node" or "cell".
 *   Root attributes: format, format_version, pmesh_version, nranks, dim, global_nodes,
 *   global_elems, n_triangles, n_quadrangles, n_lines (3D: also n_tetrahedra, n_hexahedra,
 *   n_prisms, n_pyramids), mesh_fingerprint (uint64, pm_fingerprint.h),
 *   partition_fingerprint (uint64), mesh_file, mesh_file_checksum (uint64), cell_group_names
 *   ("INDEX=NAME; ..." for the groups of the mesh's dimension), n_steps and times (series),
 *   then the caller's attributes (problem parameters, iterations, residual, ...); nranks and
 *   partition_fingerprint are left out with pm_h5_options_t.no_partition.
 *
 * Both files are written under temporary names ("PATH.tmp.PID") and renamed into place only when
 * complete (h5 first, then xmf), so an interrupted run leaves the previous result intact.
 * Names of fields and attributes: letters, digits, '_' and '-' only.
 *
 * Errors: every HDF5 call is checked (PM_ERR_IO naming the operation, dataset and file, with
 * HDF5's own reason); HDF5's automatic error printing is switched off during pmesh's calls; an
 * error on any rank is agreed so that every rank returns it and none hangs.
 *
 * Threads: while a file is written, helper threads run beside the caller (one rank per node
 * syncs the file to disk as it grows, rank 0 writes the XDMF file, a watchdog times HDF5's
 * collective calls).  None of them calls MPI or HDF5, so MPI_THREAD_FUNNELED is enough:
 * initialise MPI with MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), as solve
 * does.  Below that level (MPI_Init gives MPICH's default, MPI_THREAD_SINGLE), asked with
 * MPI_Query_thread, the write-behind and the XDMF thread do not start: the same file, written
 * by the calling thread alone.  The watchdog still runs: it only prints and ends the process. */
#ifndef PMESH_PM_H5_H
#define PMESH_PM_H5_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PM_H5_FORMAT_VERSION = 2 }; /* 2: connectivity int32 below 2^31 nodes (1: always int64) */

/** One field to write.  The caller owns `data`; it is only read during the call. */
typedef struct pm_h5_field {
  const char *name;
  int on_elements; /* 0 nodal: one value per local node (NP+NA), only internal nodes' values
                      are written; 1: one value per local element, only owned ones written */
  int is_int;      /* 0: double, 1: int32 */
  const void *data;
} pm_h5_field_t;

/** One root attribute.  Every rank must pass the same attributes. */
typedef struct pm_h5_attr {
  const char *name;
  int kind; /* 0 double, 1 int64, 2 string */
  double d;
  int64_t i;
  const char *s;
} pm_h5_attr_t;

enum { PM_H5_ATTR_DOUBLE = 0, PM_H5_ATTR_INT64 = 1, PM_H5_ATTR_STRING = 2 };

/** Write one result: mesh, owner ranks, `fields` under /fields, attributes.  Collective on comm.
 *  @param[in] local, meta  this rank's local mesh (with coordinates and elements) and the
 *                          partition's metadata (global counts, dimension)
 *  @param[in] fields       nfields fields (may be 0)
 *  @param[in] attrs        nattrs root attributes, the same on every rank
 *  @param[in] h5path       the HDF5 file; xmfpath: the XDMF file (may be NULL: no XDMF)
 *  @return PM_OK or the agreed error (PM_ERR_IO, PM_ERR_ARG, PM_ERR_INCONSISTENT, ...). */
PM_EXTERN int pm_h5_write(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const pm_h5_field_t *fields,
                          int nfields, const pm_h5_attr_t *attrs, int nattrs, const char *h5path, const char *xmfpath);

/** A time series: the mesh once, then one group of fields per step; XDMF temporal collection. */
typedef struct pm_h5_series pm_h5_series_t;

/** One element of a result's mesh as a pm_h5_elements_t gives it. */
typedef struct pm_h5_elem {
  int type;                        /* Gmsh code, a cell of the mesh's dimension */
  int32_t node[PM_CELL_MAX_VERTS]; /* its nodes as local nodes of the series' local mesh, in Gmsh's order */
  int32_t owner;                   /* its owner rank (/fields/cell_rank) */
  int32_t group;                   /* /fields/cell_group: its index in meta's group list, -1 for none */
} pm_h5_elem_t;

/** Elements that a result's mesh takes from the caller, a few at a time while the file is
 *  written, instead of from the local mesh's element arrays: a mesh whose elements are never
 *  stored (solve's matrix-free finest level makes them from the coarser level's).  They come in
 *  items of `per` elements at consecutive global positions: this rank gives n_items items;
 *  item k (local index i = sel ? sel[k] : k) holds the global elements pos[i] per .. pos[i] per
 *  + per - 1, and get(ctx, i, j, &elem) gives its j-th.  Every global element is given by
 *  exactly one rank (whatever its owner); get is called several times per element (a survey
 *  that checks them and counts their types, then once per dataset), on the calling thread,
 *  during pm_h5_series_create only.  pos and sel are read during that call only. */
typedef struct pm_h5_elements {
  int32_t n_items;
  const int64_t *pos;
  const int32_t *sel; /* may be NULL */
  int per;            /* 1 ..  64 */
  void (*get)(const void *ctx, int32_t i, int j, pm_h5_elem_t *elem);
  const void *ctx;
} pm_h5_elements_t;

/** What a series or a single result may leave out (pm_h5_series_create, pm_h5_result_create).
 *  A zero-initialised struct, or NULL in its place, writes everything. */
typedef struct pm_h5_options {
  /** Nonzero: leave out the owner ranks (/fields/node_rank, /fields/cell_rank and their XDMF
   *  attributes) and the nranks and partition_fingerprint attributes, so that a result whose
   *  values do not depend on the partition (a reproducible solve) is the same file, byte for
   *  byte, for any number of ranks. */
  int no_partition;
  /** Nonzero: the series writes node fields only; what it needs for element fields (the owned
   *  elements' plan) goes once the mesh is written, and the mesh's elements may then be freed
   *  (pm_local_release) before the series ends. */
  int node_fields;
  /** Not NULL: the mesh's elements come from here (node_fields must be set) and the local
   *  mesh's element arrays are not read: it needs its nodes and coordinates only. */
  const pm_h5_elements_t *elements;
} pm_h5_options_t;

/** Start a series: opens the temporary file and writes the mesh and owner ranks.  Collective.
 *  @param[in]  local, meta  borrowed; they must outlive the series
 *  @param[in]  h5path       the HDF5 file; xmfpath: the XDMF file (may be NULL: no XDMF)
 *  @param[in]  opt          what to leave out (NULL: nothing)
 *  @param[out] s            the series; pm_h5_series_close ends it */
PM_EXTERN int pm_h5_series_create(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const char *h5path,
                                  const char *xmfpath, const pm_h5_options_t *opt, pm_h5_series_t **s);

/** Start a single result in two parts, the file pm_h5_write makes: the mesh and owner ranks now,
 *  its fields later with one pm_h5_series_write (under /fields; `time` is ignored), then
 *  pm_h5_series_close.  solve writes the mesh before it solves, while the mesh is still in the
 *  caches, and u after.  Arguments as pm_h5_series_create's (opt NULL: leave out nothing).
 *  Collective. */
PM_EXTERN int pm_h5_result_create(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const char *h5path,
                                  const char *xmfpath, const pm_h5_options_t *opt, pm_h5_series_t **s);

/** Append step k (k = 0, 1, ...) at `time` with its fields (under /steps/k; a single result's
 *  one write: under /fields).  Collective. */
PM_EXTERN int pm_h5_series_write(pm_h5_series_t *s, double time, const pm_h5_field_t *fields, int nfields);

/** Finish a series.  ok = 1: write the attributes and the XDMF, move both files into place;
 *  ok = 0: abandon it, remove the temporaries and keep the previous result.  Frees *s and sets
 *  it to NULL (accepts NULL).  Collective. */
PM_EXTERN int pm_h5_series_close(pm_h5_series_t **s, const pm_h5_attr_t *attrs, int nattrs, int ok);

#ifdef __cplusplus
}
#endif
#endif
