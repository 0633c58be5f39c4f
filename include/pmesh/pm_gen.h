/* pm_gen.h - the lecture's structured meshes as ordinary Gmsh MSH 4.1 ASCII files: the 1D bar,
 * the NX x NY node grid of quadrangles (or two triangles per cell) and the NX x NY x NZ node box
 * of hexahedra (or six tetrahedra or two prisms per cell), every boundary a named
 * physical group, so that they reach the solver through the same reader, partitioner and groups
 * as any Gmsh mesh.  Nodes are classified on the lowest-dimensional entity they lie on, as Gmsh
 * does (corner nodes on points, edge nodes on curves).  `meshgen` is its command line. */
#ifndef PMESH_PM_GEN_H
#define PMESH_PM_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest mesh written: beyond ~1e9 nodes the ASCII file would be tens of gigabytes, which is
 *  never what was meant; the limit also keeps every count far inside int64_t. */
#define PM_GEN_MAX_NODES 1000000000LL

typedef enum pm_gen_kind { PM_GEN_LINE, PM_GEN_GRID, PM_GEN_BOX } pm_gen_kind_t;

/** A mesh to write.  Line: NE >= 1 elements of length DX > 0, nodes 1..NE+1 at x = (i-1) DX,
 *  physical points "xmin", "xmax", physical curve "bar".  Grid: NX, NY >= 2 nodes on [0, LX] x
 *  [0, LY] (LX, LY > 0), tags j NX + i + 1 row by row from the bottom-left, quadrangles or
 *  (tri) two triangles per cell, physical curves "bottom", "right", "top", "left" and physical
 *  surface "domain".  Box: NX, NY, NZ >= 2 nodes on [0, LX] x [0, LY] x [0, LZ], tags
 *  (k NY + j) NX + i + 1, hexahedra, or (tet) six tetrahedra per cell around its diagonal from
 *  the lowest to the highest corner (every cell alike, so the faces match), or (prism) two prisms
 *  per cell (its bottom split along the same diagonal as the grid's triangles), or (pyramid) six
 *  pyramids per cell, one on each face, their apex the cell's centre (nodes after the grid's, in
 *  cell order); boundary faces
 *  (quadrangles, or the cells' triangles) in physical surfaces "xmin", "xmax", "ymin", "ymax",
 *  "zmin", "zmax" and "boundary", cells in physical volume "domain".  Every cell has positive
 *  orientation and every boundary face points out of the box. */
typedef struct pm_gen {
  pm_gen_kind_t kind;
  int64_t ne;              /* line */
  double dx;               /* line */
  int64_t nx, ny;          /* grid, box */
  double lx, ly;           /* grid, box */
  int tri;                 /* grid */
  int64_t nz;              /* box */
  double lz;               /* box */
  int tet, prism, pyramid; /* box: tetrahedra, prisms or pyramids instead of hexahedra */
} pm_gen_t;

/** Write the mesh to an open stream.  PM_ERR_ARG for sizes out of the ranges above (or more
 *  than PM_GEN_MAX_NODES nodes), PM_ERR_IO when a write fails.  Not collective. */
PM_EXTERN int pm_gen_write(FILE *f, const pm_gen_t *g);

/** Write the mesh to `path` under a temporary name (path.tmp.PID), renamed when complete: a
 *  failure (a full disk, a directory that cannot be written) leaves no partial file and keeps
 *  what `path` held.  Not collective. */
PM_EXTERN int pm_gen_save(const char *path, const pm_gen_t *g);

#ifdef __cplusplus
}
#endif
#endif
