/* pm_quality.h - the shape of a cell from its vertex coordinates, and its sums over a mesh.
 *
 * One measure per cell, always "1-ish is ideal, larger is worse, infinite for a flat, tangled or
 * inverted cell", so that the worst cell of any type is the largest value:
 * - tetrahedron: the radius ratio R / r (circumradius over inradius), 3 for the regular one;
 * - triangle: the 2D radius ratio R / r, 2 for the equilateral one;
 * - quadrangle, hexahedron, prism and pyramid: 1 / (the smallest corner scaled Jacobian), where a
 *   corner's scaled Jacobian is the determinant of its edge vectors over the product of their
 *   lengths (for a quadrangle the signed area of the corner's two edges over their lengths),
 *   divided by the value of the ideal cell (1 for the square and the cube, sin 60 deg at a
 *   prism's corners, which meet an equilateral triangle and an orthogonal edge, 1/sqrt 2 at
 *   every corner of the pyramid with equal edges, whose apex is four corners: three of its edges
 *   in turn).  1 for the square, the cube, the right equilateral prism and that pyramid;
 *   sqrt(1 + s^2) for a cube sheared by x += s z.  It is chosen over the ratio of the largest to
 *   the smallest corner Jacobian because it is scale-free per corner and sees skew: a
 *   parallelepiped has equal Jacobians at every corner, however flat.
 * The measure does not depend on the cell's orientation: a cell whose corners all have negative
 * Jacobians is measured as its mirror image; one whose corners disagree is tangled (infinite).
 * Points and lines have no shape; pm_cell_quality returns 1 for them. */
#ifndef PMESH_PM_QUALITY_H
#define PMESH_PM_QUALITY_H

#include <stdint.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_export.h"
#include "pmesh/pm_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The shape measure of one cell (see above) from its vertices' coordinates x[0..n_verts-1]
 *  in the cell's (Gmsh) vertex order; 2D cells may lie in any plane (z = 0 in a 2D mesh).
 *  INFINITY for a degenerate cell.  Not collective. */
PM_EXTERN double pm_cell_quality(const pm_cell_t *cell, const double (*x)[3]);

/** What the measure is for a cell type, for reports: "radius ratio" (triangles, tetrahedra),
 *  "1/min scaled Jacobian" (quadrangles, hexahedra, prisms, pyramids), "none" (points, lines). */
PM_EXTERN const char *pm_quality_name(pm_cell_type_t type);

/** Shape statistics per cell type (indexed by pm_cell_type_t). */
typedef struct pm_quality {
  int64_t count[PM_CELL_NTYPES];      /* cells measured */
  int64_t degenerate[PM_CELL_NTYPES]; /* of them infinite */
  double worst[PM_CELL_NTYPES];       /* largest measure (0 when count is 0) */
  double sum[PM_CELL_NTYPES];         /* of the finite measures */
} pm_quality_t;

/** Empties q.  Not collective. */
PM_EXTERN void pm_quality_init(pm_quality_t *q);

/** Adds one cell's measure to q.  Not collective. */
PM_EXTERN void pm_quality_add(pm_quality_t *q, pm_cell_type_t type, double measure);

/** Adds b's cells to a (to merge ranks' or files' statistics).  Not collective. */
PM_EXTERN void pm_quality_merge(pm_quality_t *a, const pm_quality_t *b);

/** The mean measure of a type's cells: INFINITY if one is degenerate, 0 if there is none.  Not
 *  collective. */
PM_EXTERN double pm_quality_mean(const pm_quality_t *q, pm_cell_type_t type);

/** Measures every top-dimension cell of a global mesh into q (after pm_quality_init).  Not
 *  collective. */
PM_EXTERN int pm_mesh_quality(const pm_mesh_t *mesh, pm_quality_t *q);

#ifdef __cplusplus
}
#endif
#endif
