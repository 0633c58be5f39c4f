/* pm_cell.h - the reference cells: what pmesh knows of each cell type, in one table.
 *
 * Every stage that needs to know a cell type (the Gmsh reader, the partitioner's dual graph, the
 * local files, the FEM kernels, the refinement, the HDF5/XDMF writer, the checks) reads it here
 * instead of switching on the type: a cell's vertices in the reference cell, its edges and its
 * facets (the faces of a 3D cell, the edges of a 2D cell, the end points of a line) as local
 * vertex lists, the codes and vertex order of Gmsh, VTK and XDMF, a quadrature rule, the linear
 * (P1 / Q1 / prism) basis, and the uniform refinement template.
 *
 * Conventions:
 * - The vertex order is Gmsh's (so a Gmsh element's nodes are the cell's vertices as they are).
 *   Reference cells are Gmsh's: lines, quadrangles and hexahedra on [-1,1]^d, triangles and
 *   tetrahedra the unit simplex, prisms a unit triangle times [-1,1], pyramids the square
 *   [-1,1]^2 at z = 0 below the apex (0, 0, 1).
 * - A cell of positive orientation has a positive Jacobian determinant (Gmsh writes its volume
 *   cells so); facets are listed counter-clockwise seen from outside the cell, so their normal by
 *   the right-hand rule points out.
 * - Refinement points are numbered: the vertices (0..n_verts-1), then the edge midpoints in edge
 *   order, then the centres of the quadrilateral faces of a 3D cell in face order, then the cell
 *   centre of a quadrangle or hexahedron.  A child lists its vertices as refinement points, in
 *   the parent's orientation.  A tetrahedron's four corner children are fixed; its inner
 *   octahedron is cut along one of three diagonals, each a variant of four children, which the
 *   caller chooses from the element alone (the shortest diagonal keeps the shapes from
 *   degrading level after level).  A pyramid's children are six pyramids (four at its base
 *   corners, one below its apex, one upside down between them) and four tetrahedra.
 * - A pyramid's basis is rational (Bedrosian's): bilinear on its base, linear on its triangles,
 *   so it joins hexahedra and prisms on quadrangles and tetrahedra on triangles; its quadrature
 *   is the collapsed (Duffy) product rule, 2 x 2 Gauss points times 2 Gauss-Jacobi points. */
#ifndef PMESH_PM_CELL_H
#define PMESH_PM_CELL_H

#include <stdint.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_cell_type {
  PM_CELL_POINT = 0,
  PM_CELL_LINE,
  PM_CELL_TRI,
  PM_CELL_QUAD,
  PM_CELL_TET,
  PM_CELL_HEX,
  PM_CELL_PRISM,
  PM_CELL_PYRAMID,
  PM_CELL_NTYPES
} pm_cell_type_t;

enum {
  PM_CELL_MAX_VERTS = 8,
  PM_CELL_MAX_EDGES = 12,
  PM_CELL_MAX_FACETS = 6,
  PM_CELL_MAX_FACET_VERTS = 4,
  PM_CELL_MAX_QP = 8,
  PM_CELL_MAX_CHILDREN = 10, /* a pyramid's: 6 pyramids and 4 tetrahedra */
  PM_CELL_MAX_REFINED = 27,  /* refinement points of a hexahedron: 8 + 12 + 6 + 1 */
  PM_CELL_MAX_VARIANTS = 3
};

typedef struct pm_cell {
  pm_cell_type_t type;
  const char *name; /* "tetrahedron", ... */
  int dim;
  int n_verts, n_edges, n_facets;
  double vert[PM_CELL_MAX_VERTS][3]; /* reference coordinates */
  int8_t edge[PM_CELL_MAX_EDGES][2];
  pm_cell_type_t facet_type[PM_CELL_MAX_FACETS];
  int8_t facet[PM_CELL_MAX_FACETS][PM_CELL_MAX_FACET_VERTS]; /* facet_type's n_verts entries */
  double measure;                                            /* of the reference cell */

  int gmsh_type;                    /* Gmsh's element type */
  int vtk_type;                     /* VTK's cell type */
  int xdmf_type;                    /* XDMF's code in a Mixed topology */
  const char *xdmf_name;            /* XDMF's TopologyType */
  int8_t to_vtk[PM_CELL_MAX_VERTS]; /* VTK/XDMF vertex k is the cell's vertex to_vtk[k] */

  /* Quadrature exact for the stiffness and mass matrices of an affine cell (degree 2; Q1 cells
   * 2 per direction). */
  int n_qp;
  double qp[PM_CELL_MAX_QP][3];
  double qw[PM_CELL_MAX_QP];

  /* Uniform refinement (see the conventions above). */
  int n_refined;      /* refinement points */
  int n_children;     /* children of one refinement (8 in 3D, 10 for a pyramid, 4 in 2D, 2 in 1D) */
  int n_fixed;        /* children listed in child[]; the others come from a variant */
  int n_tet_children; /* the last children are tetrahedra (a pyramid's 4); the others have the
                         cell's own type: pm_cell_child_type */
  int8_t child[PM_CELL_MAX_CHILDREN][PM_CELL_MAX_VERTS];
  int n_variants;                                   /* 0, or 3 for a tetrahedron */
  int8_t variant_diagonal[PM_CELL_MAX_VARIANTS][2]; /* refinement points the variant's cut joins */
  int8_t variant_child[PM_CELL_MAX_VARIANTS][4][4];
} pm_cell_t;

/** The table entry of `type`, or NULL for a value out of range.  Not collective. */
PM_EXTERN const pm_cell_t *pm_cell_get(pm_cell_type_t type);

/** The cell type of Gmsh element type `gmsh_type`, or -1 when pmesh does not read it.  Not
 *  collective. */
PM_EXTERN int pm_cell_from_gmsh(int gmsh_type);

/** The table entry of Gmsh element type `gmsh_type` (pm_cell_get(pm_cell_from_gmsh(...))), or
 *  NULL when pmesh does not read it.  Meshes and local files keep Gmsh's codes as their cell
 *  types; this is how every stage reads what a code means.  Not collective. */
PM_EXTERN const pm_cell_t *pm_cell_gmsh(int gmsh_type);

/** The basis at reference point xi: n[i] the value of vertex i's function and dn[i] its gradient
 *  in reference coordinates (dn may be NULL).  Linear on simplices, multilinear on quadrangles and
 *  hexahedra, linear times linear on prisms, rational on pyramids (at the apex itself, where a
 *  pyramid's gradients have no limit, those along its axis).  Not collective. */
PM_EXTERN void pm_cell_basis(const pm_cell_t *cell, const double xi[3], double *n, double (*dn)[3]);

/** The type of child ch of a refinement of `cell` (0 <= ch < cell->n_children): the cell's own,
 *  or a tetrahedron for a pyramid's last four.  Not collective. */
PM_EXTERN pm_cell_type_t pm_cell_child_type(const pm_cell_t *cell, int ch);

/** Reference coordinates of refinement point k (0 <= k < cell->n_refined).  Not collective. */
PM_EXTERN void pm_cell_refined_point(const pm_cell_t *cell, int k, double xi[3]);

/** The refinement points' parents as vertex lists: point k is the mean of the cell's vertices
 *  parent[0..*n-1] (1 for a vertex, 2 for an edge midpoint, 4 for a face centre, 8 for a
 *  hexahedron's centre, 4 for a quadrangle's).  Returns the count.  Not collective. */
PM_EXTERN int pm_cell_refined_parents(const pm_cell_t *cell, int k, int8_t parent[PM_CELL_MAX_VERTS]);

#ifdef __cplusplus
}
#endif
#endif
