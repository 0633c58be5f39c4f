/* pm_refine.h - parallel uniform refinement of partitioned local meshes.
 *
 * Every rank refines its own local mesh with the cell-type table's templates (pmesh/pm_cell.h):
 * a line into 2 (its midpoint), a triangle into 4 (edge midpoints), a quadrangle into 4 (edge
 * midpoints and its centre), a tetrahedron into 8 (edge midpoints; its inner octahedron cut along
 * the shortest of its three diagonals, decided from the element's own coordinates, equal lengths
 * (to a relative 1e-8, so that coordinates differing in their last bits, as a mesh's ASCII and
 * binary files can, decide alike) by the inner children's shape, then by its vertex tags, so
 * every rank decides alike), a
 * hexahedron into 8 (edge midpoints, face centres, its centre), a prism into 8, a pyramid into 6
 * pyramids and 4 tetrahedra (edge midpoints and its base's centre).  Group faces
 * split alike (a triangle or quadrangle into 4, a line into 2, a point kept).  The fine mesh
 * never exists in one place; ranks exchange only with their neighbours and through one prefix
 * sum.  Each level is a complete local mesh (pm_local_t) in the lecture's structure, as
 * `partition` writes it, so `partition --check` accepts a dump of it.
 *
 * Numbering (independent of the number of ranks and of the partition):
 *   - a coarse vertex keeps its global id (Gmsh tag) and its index;
 *   - new nodes follow the N coarse nodes, counted at coarse node positions then at element
 *     positions: at each coarse node (ascending index) the midpoints of the edges whose smaller
 *     end it is, by the larger end's index, then (3D) the centres of the quadrilateral faces of
 *     3D cells whose smallest vertex it is, by their sorted vertex indices; then the centres of
 *     the quadrangles and hexahedra in element index order.  (1D and 2D: the edges sorted by
 *     (smaller, larger index), then the quadrangles' centres.)  New node i (index N + i) gets
 *     the tag T + 1 + i, T the largest coarse tag, so ascending tags remain the global order;
 *   - child c of coarse element e gets index m*e + c and Gmsh-like tag (t-1)*m + c + 1 from the
 *     coarse tag t, with m = 2^dim (8, 4, 2).  In a mesh with pyramids (10 children) m is 10 for
 *     the tags, and the indices stay dense: child c gets index B + c, B the children of the
 *     elements of lower index (a prefix sum in element order).  A child of a face (a boundary
 *     triangle or quadrangle split in four, a line in two, a 1D end point kept as is) likewise,
 *     so tags stay unique over elements and faces (tag 0, a derived "boundary" face, stays 0).
 * Owners:
 *   - a coarse vertex keeps its owner;
 *   - an edge midpoint goes to the owner of the edge's end with the smaller global id (in 1D
 *     the line's midpoint: that is the line's owner);
 *   - a face centre goes to the owner of the face's vertex with the smallest global id (that
 *     rank keeps every element around the vertex, so both cells of the face);
 *   - a cell centre (quadrangle, hexahedron) goes to the element's owner;
 * and pmesh's partitioning rules hold on every level: a rank keeps every fine element touching
 * one of its internal nodes, and an element (a face) is owned by the rank owning its node with
 * the smallest global id.  Each rank holds at most its part plus its element halo.
 *
 * Group membership: a new node on a group face (an edge midpoint, a quadrangle's centre) joins
 * the face's group; every new node of an element joins the element's groups of its dimension.
 *
 * Supported: lines, triangles, quadrangles, tetrahedra, hexahedra, prisms, pyramids (one
 * dimension per mesh), partitions with the element halo (`partition --halo element`, FEM, the
 * default); local meshes with auxiliary nodes (`--halo edge` partitions) are refused.
 *
 * This header is one level (pm_refine.c); pm_refine_run.h refines several levels with the
 * sizes checked first, and gives a refined partition its metadata and its dump. */
#ifndef PMESH_PM_REFINE_H
#define PMESH_PM_REFINE_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"

#ifdef __cplusplus
extern "C" {
#endif

/** For every fine local node, its coarse parents (local node indices of the coarse mesh): a
 *  vertex has one (itself), an edge midpoint two (the edge's ends, smaller global id first), a
 *  face centre of a 3D cell four (by ascending global id), a cell centre four (quadrangle) or
 *  eight (hexahedron; the element's nodes in its order).  Linear interpolation weights
 *  are 1 / (number of parents): the prolongation of geometric multigrid.  Read-only to callers. */
typedef struct pm_refine_parents {
  int32_t n;     /* fine local nodes (n_total + n_aux of the fine mesh) */
  int32_t *ptr;  /* [n+1] */
  int32_t *node; /* [ptr[n]] coarse local node indices */
} pm_refine_parents_t;

/** Free; NULL-safe, sets *parents to NULL.  Not collective. */
PM_EXTERN void pm_refine_parents_destroy(pm_refine_parents_t **parents);

/** For every coarse element, the fine local node of each of its refinement points (pm_cell.h:
 *  vertices, edge midpoints, quadrilateral face centres, cell centre, in the table's order), and
 *  the tetrahedron's inner diagonal: with the table's templates (child[], variant_child[]) the
 *  fine elements follow from it without being stored (the matrix-free fine operator,
 *  pm_fine_op.h).  The vertices go through the coarse nodes (vert), the other points are listed
 *  per element (node): 24 bytes a tetrahedron.  Read them with pm_refine_point.  Read-only to
 *  callers. */
typedef struct pm_refine_points {
  int32_t n_elems; /* coarse local elements */
  int stride;      /* entries of node per element: the largest n_refined - n_verts of the cells */
  int32_t *node;   /* [n_elems*stride] fine local node of each point past the vertices, -1 when
                      the point is not in the fine mesh */
  int32_t n_coarse; /* coarse local nodes */
  int32_t *vert;    /* [n_coarse] fine local node of each coarse node, -1 when not in it */
  int8_t *variant;  /* [n_elems] the tetrahedron's variant (its inner diagonal), 0 for other cells */
} pm_refine_points_t;
/** The fine local node of refinement point k of coarse element e (-1: not in the fine mesh). */
static inline int32_t pm_refine_point(const pm_refine_points_t *pt, const pm_local_t *coarse, int32_t e, int k) {
  int32_t p0 = coarse->elem_ptr[e], nv = coarse->elem_ptr[e + 1] - p0;
  return k < nv ? pt->vert[coarse->elem_node[p0 + k]] : pt->node[(int64_t)e * pt->stride + (k - nv)];
}
/** Child ch (0 .. n_children - 1 of its cell) of coarse element e as fine local nodes v[] in its
 *  cell's vertex order (a child has its parent's type); returns the child's vertex count, or 0
 *  when one of its points is not in this rank's fine mesh.  Not collective. */
PM_EXTERN int pm_refine_points_child(const pm_local_t *coarse, const pm_refine_points_t *points, int32_t e, int ch,
                                     int32_t *v);
/** Free; NULL-safe, sets *points to NULL.  Not collective. */
PM_EXTERN void pm_refine_points_destroy(pm_refine_points_t **points);
/** Refine every rank's local mesh once.
 *  @param[in]  comm     the partition's communicator: rank r holds part r (coarse->rank, nparts)
 *  @param[in]  coarse   this rank's local mesh with its mesh sections (not modified, not kept)
 *  @param[out] fine     new local mesh, free with pm_local_destroy(); its fingerprint is derived
 *                       from the coarse one (pm_refine_fingerprint)
 *  @param[out] parents  NULL, or the fine nodes' coarse parents (free with
 *                       pm_refine_parents_destroy())
 *  @return PM_OK; PM_ERR_UNSUPPORTED (auxiliary nodes, a lecture file without mesh sections),
 *          PM_ERR_ARG (sizes past 32-bit local or 64-bit global indices), PM_ERR_INCONSISTENT
 *          (local meshes that do not fit together), PM_ERR_MEMORY, PM_ERR_MPI; PM_ERR_REMOTE
 *          when only another rank failed.  Errors are agreed: every rank returns non-zero.
 *  Collective on comm. */
PM_EXTERN int pm_refine_local(MPI_Comm comm, const pm_local_t *coarse, pm_local_t **fine,
                              pm_refine_parents_t **parents);

/** pm_refine_local, also giving the refinement points of the coarse elements (points NULL: not
 *  made; free with pm_refine_points_destroy()).  `elements` = 0 leaves the fine mesh without
 *  elements (n_elems 0, has_mesh 0, its groups without element lists; points required): the
 *  matrix-free finest level's, whose elements are the children the points name and can be made
 *  later by pm_refine_points_elements.  Collective on comm. */
PM_EXTERN int pm_refine_local_points(MPI_Comm comm, const pm_local_t *coarse, int elements, pm_local_t **fine,
                                     pm_refine_parents_t **parents, pm_refine_points_t **points);
/** The elements (and the groups' element lists) of `fine`, refined from `coarse` without them
 *  (pm_refine_local_points with elements 0), made from the points: the same elements, in the
 *  same order, with the same tags, indices and owners as pm_refine_local makes.  fine must have
 *  none; pyramids are refused (their children's indices come from a collective prefix sum).  Not
 *  collective. */
PM_EXTERN int pm_refine_points_elements(const pm_local_t *coarse, const pm_refine_points_t *points, pm_local_t *fine);
/** The partition fingerprint of a refined level: FNV-1a 64 of the coarse one and "refine".
 *  Not collective. */
PM_EXTERN uint64_t pm_refine_fingerprint(uint64_t coarse);

#ifdef __cplusplus
}
#endif
#endif
