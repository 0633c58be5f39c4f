/* pm_mesh.h - the global mesh a partitioner works on, built from a raw MSH file.
 *
 * Nodes are sorted by global id (the Gmsh node tag), so node index order is global-id order.
 * Elements are the top-dimension cells (lines in 1D; triangles and quadrangles in 2D;
 * tetrahedra, hexahedra, prisms and pyramids in 3D); faces are the (dim-1)-dimensional entities
 * that groups refer to (triangles and quadrangles of physical surfaces in 3D, boundary lines in 2D, points in
 * 1D).  In 3D, lines and points and their physical groups are ignored (counted in
 * n_ignored_lines/points): boundary conditions go on physical surfaces.
 * Nodes that no top-dimension element uses are dropped (they would be empty matrix rows). */
#ifndef PMESH_PM_MESH_H
#define PMESH_PM_MESH_H

#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_msh.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A named group.  Physical groups keep their dimension; the derived group "boundary" has
 *  dim = mesh dim - 1.  Every group has its nodes; a group of dimension dim-1 also lists faces,
 *  a group of the mesh's dimension also lists elements. */
typedef struct pm_group {
  char *name;
  int dim;
  int64_t n_nodes, *nodes; /* ascending node indices */
  int64_t n_faces, *faces; /* ascending face indices */
  int64_t n_elems, *elems; /* ascending element indices */
} pm_group_t;

typedef struct pm_mesh {
  int dim; /* 1, 2 or 3 */

  int64_t n_nodes;
  int64_t *node_gid; /* [n_nodes] ascending Gmsh tags */
  double *xyz;       /* [3*n_nodes] */

  int64_t n_elems;
  int8_t *elem_type;  /* Gmsh code (pm_cell_gmsh) */
  int64_t *elem_gid;  /* Gmsh element tag */
  int64_t *elem_ptr;  /* [n_elems+1] */
  int64_t *elem_node; /* node indices */

  int64_t n_faces;
  int8_t *face_type;
  int64_t *face_gid; /* Gmsh element tag; 0 for faces derived for "boundary" */
  int64_t *face_ptr;
  int64_t *face_node;

  int n_groups;
  pm_group_t *groups; /* physical groups in (dim, tag) order, then "boundary" */

  int64_t n_dropped_nodes;   /* nodes used by no top-dimension element */
  int64_t n_dropped_entries; /* lower-dimension elements dropped (they touch dropped nodes) */
  int64_t first_dropped_gid; /* one dropped node's tag, for the report; 0 if none */
  int64_t n_ignored_lines;   /* 3D: line elements (and their physical curves) not used */
  int64_t n_ignored_points;  /* 3D: point elements (and their physical points) not used */
} pm_mesh_t;

/** Build the global mesh from a raw MSH file.
 *  @param[in]  msh   raw content (not modified, not kept)
 *  @param[out] mesh  new mesh, free with pm_mesh_destroy()
 *  @return PM_OK, PM_ERR_FORMAT (no cells, a surface mesh in 3D space, an inverted or degenerate
 *          volume cell, a facet of three cells, ...),
 *          PM_ERR_MEMORY.  Not collective. */
PM_EXTERN int pm_mesh_from_msh(const pm_msh_t *msh, pm_mesh_t **mesh);

/** Read an MSH file and build its mesh (pm_msh_read + pm_mesh_from_msh).  Not collective. */
PM_EXTERN int pm_mesh_read(const char *path, pm_mesh_t **mesh, uint64_t *checksum);

/** Index of the node with global id gid, or -1.  O(log n).  Not collective. */
PM_EXTERN int64_t pm_mesh_find_node(const pm_mesh_t *mesh, int64_t gid);

/** Free; NULL-safe, sets *mesh to NULL.  Not collective. */
PM_EXTERN void pm_mesh_destroy(pm_mesh_t **mesh);

#ifdef __cplusplus
}
#endif
#endif
