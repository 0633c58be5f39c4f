/* pm_fine_cells.h - private: the matrix-free finest level's hexahedra and prisms (pm_fine_op.c).
 *
 * A tetrahedron's eight children are fixed linear maps of its six edge weights (pm_fine_op.c), so
 * the product forms them in registers from 24 bytes.  A hexahedron's or prism's children are
 * multilinear cells whose matrices depend on the parent's shape at every quadrature point: they
 * are made once from the children's coordinates and kept in edge form, as the tetrahedra's: a
 * child's pair (a, b) has the weight W = -K(a, b), and (K x)_a is the sum over its pairs of
 * W (x_a - x_b), since the rows of a Laplacian sum to zero.  Kept in single precision (a relative
 * 6e-8 each), the weights then perturb the conductances, not the row sums: the matrix stays a
 * Laplacian, whose solution moves by about as much (the entries rounded one by one would leave
 * rows that no longer sum to zero, a perturbation the condition number amplifies: 1e-6 relative
 * on a prism box refined twice).  8 x 28 floats a coarse hexahedron (about 112 bytes a fine node,
 * against about 330 for an assembled 27-point row in double), 8 x 15 a prism.  The product walks
 * each coarse element's refinement points (27 for a hexahedron, 18 for a prism) and its
 * children's weights. */
#ifndef PMESH_PM_FINE_CELLS_H
#define PMESH_PM_FINE_CELLS_H

#include <stdint.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_refine.h"

enum { PM_FINE_TET = 4 }; /* the Gmsh code of the cell pm_fine_op.c forms in registers */

typedef struct pm_fine_cells {
  int64_t *at; /* [coarse elements] where element e's children's matrices start in k; -1 for a tetrahedron */
  float *k;    /* per element, per child, its pairs' weights -K(a, b), a < b, row by row (nv (nv - 1) / 2) */
} pm_fine_cells_t;

/** The children's matrices of every coarse element that is no tetrahedron (the conductivity of
 *  element e: k ? k[e] : k_all), from the fine nodes' coordinates.  A child some of whose points
 *  this rank lacks touches no internal node (a rank keeps every fine element at its nodes): its
 *  matrix is left zero.  PM_ERR_UNSUPPORTED for a cell without fixed children, PM_ERR_FORMAT for
 *  an inverted child, PM_ERR_ARG for an entry outside single precision's range.  Local. */
int pm_fine_cells_create(const pm_local_t *c, const pm_local_t *f, const pm_refine_points_t *pt, const double *k,
                         double k_all, pm_fine_cells_t *fc);

/** Free what pm_fine_cells_create made (a zeroed object: nothing). */
void pm_fine_cells_free(pm_fine_cells_t *fc);

/** yv[0 .. t->n_refined - 1] = the children's matrices of coarse element e (of cell t) times the
 *  points' values xv, or with diag their diagonals (xv unread). */
static inline void pm_fine_cells_apply(const pm_fine_cells_t *fc, const pm_cell_t *t, int32_t e, int diag,
                                       const double *xv, double *yv) {
  const float *W = fc->k + fc->at[e];
  const int nv = t->n_verts;
  for (int a = 0; a < t->n_refined; a++) yv[a] = 0;
  for (int ch = 0; ch < t->n_children; ch++) {
    const int8_t *r = t->child[ch];
    for (int a = 0; a < nv; a++)
      for (int b = a + 1; b < nv; b++, W++) {
        if (diag) {
          yv[r[a]] += *W;
          yv[r[b]] += *W;
          continue;
        }
        double d = *W * (xv[r[a]] - xv[r[b]]);
        yv[r[a]] += d;
        yv[r[b]] -= d;
      }
  }
}

#endif
