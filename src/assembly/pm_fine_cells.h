/* pm_fine_cells.h - private: the matrix-free finest level's hexahedra and prisms (pm_fine_op.c).
 *
 * A tetrahedron's eight children are fixed linear maps of its six edge weights (pm_fine_op.c), so
 * the product forms them in registers from 24 bytes.  A hexahedron's or prism's children are
 * multilinear cells whose matrices depend on the parent's shape at every quadrature point: they
 * are made once from the children's coordinates and kept in edge form, as the tetrahedra's: the
 * pair (p, q) of refinement points that share a child has the weight W = -sum over those children
 * of K(p, q), and (K x)_p is the sum over p's pairs of W (x_p - x_q), since the rows of a
 * Laplacian sum to zero.  Kept in single precision (a relative 6e-8 each), the weights perturb
 * the conductances, not the row sums: the matrix stays a Laplacian, whose solution moves by about
 * as much (entries rounded one by one would leave rows that no longer sum to zero, a perturbation
 * the condition number amplifies: 1e-6 relative on a prism box refined twice).  A hexahedron's 27
 * points make 158 pairs (its children's 8 x 28 merged): 632 bytes a coarse element, about 80 a
 * fine node, against about 330 for an assembled 27-point row in double. */
#ifndef PMESH_PM_FINE_CELLS_H
#define PMESH_PM_FINE_CELLS_H

#include <stdint.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_refine.h"

/* Gmsh codes: the tetrahedron (formed in registers by pm_fine_op.c), the two cells kept here, and
 * the codes below PM_FINE_CODES that tables by code cover. */
enum { PM_FINE_TET = 4, PM_FINE_HEX = 5, PM_FINE_PRISM = 6, PM_FINE_CODES = 8 };

/* A hexahedron's and a prism's vertices and refinement points (the cell table's, checked). */
enum { PM_FINE_HEX_VERTS = 8, PM_FINE_HEX_POINTS = 27, PM_FINE_PRISM_VERTS = 6, PM_FINE_PRISM_POINTS = 18 };

/* The pairs of refinement points that share a child (the cell table's children, pm_cell.c, in
 * the order they meet them), of the hexahedron (27 points) and the prism (18): constants, so that
 * the product's loops unroll with fixed offsets as the tetrahedron's do.  pm_fine_cells_create
 * derives them from the table and refuses a table that no longer gives these. */
static const int8_t PM_FINE_HEX_PAIRS[][2] = {
    {0, 8},   {0, 20},  {0, 9},   {0, 10},  {0, 22},  {0, 26},  {0, 25},  {8, 20},  {8, 9},   {8, 10},  {8, 22},
    {8, 26},  {8, 25},  {9, 20},  {10, 20}, {20, 22}, {20, 26}, {20, 25}, {9, 10},  {9, 22},  {9, 26},  {9, 25},
    {10, 22}, {10, 26}, {10, 25}, {22, 26}, {22, 25}, {25, 26}, {1, 8},   {8, 11},  {8, 12},  {8, 23},  {1, 11},
    {1, 20},  {1, 22},  {1, 12},  {1, 23},  {1, 26},  {11, 20}, {11, 22}, {11, 12}, {11, 23}, {11, 26}, {12, 20},
    {20, 23}, {12, 22}, {22, 23}, {12, 23}, {12, 26}, {23, 26}, {2, 20},  {13, 20}, {14, 20}, {20, 24}, {2, 11},
    {11, 13}, {11, 14}, {11, 24}, {2, 13},  {2, 26},  {2, 23},  {2, 14},  {2, 24},  {13, 26}, {13, 23}, {13, 14},
    {13, 24}, {14, 26}, {24, 26}, {14, 23}, {23, 24}, {14, 24}, {9, 13},  {3, 9},   {9, 24},  {9, 15},  {3, 20},
    {15, 20}, {3, 13},  {13, 25}, {13, 15}, {3, 25},  {3, 26},  {3, 24},  {3, 15},  {24, 25}, {15, 25}, {15, 26},
    {15, 24}, {4, 10},  {10, 16}, {10, 21}, {10, 17}, {4, 22},  {16, 22}, {21, 22}, {17, 22}, {4, 26},  {16, 26},
    {21, 26}, {17, 26}, {4, 25},  {16, 25}, {21, 25}, {17, 25}, {4, 16},  {4, 21},  {4, 17},  {16, 21}, {16, 17},
    {17, 21}, {5, 22},  {18, 22}, {12, 16}, {5, 12},  {12, 18}, {12, 21}, {16, 23}, {5, 23},  {18, 23}, {21, 23},
    {5, 26},  {18, 26}, {5, 16},  {16, 18}, {5, 18},  {5, 21},  {18, 21}, {6, 26},  {19, 26}, {6, 23},  {19, 23},
    {14, 21}, {14, 18}, {6, 14},  {14, 19}, {21, 24}, {18, 24}, {6, 24},  {19, 24}, {6, 21},  {19, 21}, {6, 18},
    {18, 19}, {6, 19},  {19, 25}, {7, 25},  {7, 26},  {17, 24}, {7, 24},  {15, 17}, {15, 21}, {15, 19}, {7, 15},
    {17, 19}, {7, 17},  {7, 21},  {7, 19},
};
static const int8_t PM_FINE_PRISM_PAIRS[][2] = {
    {0, 6},   {0, 7},   {0, 8},   {0, 15},  {0, 17},  {6, 7},   {6, 8},   {6, 15},  {6, 17},  {7, 8},   {7, 15},
    {7, 17},  {8, 15},  {8, 17},  {15, 17}, {1, 6},   {6, 9},   {6, 10},  {6, 16},  {1, 9},   {1, 15},  {1, 10},
    {1, 16},  {9, 15},  {9, 10},  {9, 16},  {10, 15}, {15, 16}, {10, 16}, {7, 9},   {2, 7},   {7, 16},  {7, 11},
    {2, 9},   {9, 17},  {9, 11},  {2, 17},  {2, 16},  {2, 11},  {16, 17}, {11, 17}, {11, 16}, {3, 8},   {8, 12},
    {8, 13},  {3, 15},  {12, 15}, {13, 15}, {3, 17},  {12, 17}, {13, 17}, {3, 12},  {3, 13},  {12, 13}, {4, 15},
    {14, 15}, {10, 12}, {4, 10},  {10, 14}, {12, 16}, {4, 16},  {14, 16}, {4, 12},  {12, 14}, {4, 14},  {14, 17},
    {5, 17},  {13, 16}, {5, 16},  {11, 13}, {11, 14}, {5, 11},  {13, 14}, {5, 13},  {5, 14},
};

enum {
  PM_FINE_HEX_PAIRS_N = sizeof PM_FINE_HEX_PAIRS / sizeof *PM_FINE_HEX_PAIRS,       /* 158 */
  PM_FINE_PRISM_PAIRS_N = sizeof PM_FINE_PRISM_PAIRS / sizeof *PM_FINE_PRISM_PAIRS, /* 75 */
  PM_FINE_MAX_PAIRS = PM_FINE_HEX_PAIRS_N
};

#if defined(__GNUC__)
#define PM_FINE_INLINE inline __attribute__((always_inline))
#else
#define PM_FINE_INLINE inline
#endif

typedef struct pm_fine_cells {
  int64_t *at; /* [coarse elements] where element e's weights start in w; -1: a tetrahedron */
  float *w;    /* per element, its cell's pairs' weights (PM_FINE_HEX_PAIRS' or PM_FINE_PRISM_PAIRS' order) */
} pm_fine_cells_t;

/** Free what pm_fine_cells_create made (a zeroed object: nothing). */
void pm_fine_cells_free(pm_fine_cells_t *fc);

/** The children's matrices of every coarse element that is no tetrahedron (the conductivity of
 *  element e: k ? k[e] : k_all), from the fine nodes' coordinates.  PM_ERR_UNSUPPORTED for a cell
 *  other than a hexahedron or prism, PM_ERR_INCONSISTENT when the cell table's children no longer
 *  give the pairs above, PM_ERR_FORMAT for an inverted child, PM_ERR_ARG for a weight outside
 *  single precision's range.  Local. */
int pm_fine_cells_create(const pm_local_t *c, const pm_local_t *f, const pm_refine_points_t *pt, const double *k,
                         double k_all, pm_fine_cells_t *fc);

/* yv = the pairs' matrix (weights W) times xv, or with diag its diagonal (xv unread). */
static PM_FINE_INLINE void pm_fine_pairs_apply(const int8_t (*P)[2], int n, int n_points, int diag, const float *W,
                                               const double *xv, double *yv) {
  for (int p = 0; p < n_points; p++) yv[p] = 0;
#pragma GCC unroll 160
  for (int j = 0; j < n; j++) {
    if (diag) {
      yv[P[j][0]] += W[j];
      yv[P[j][1]] += W[j];
    } else {
      double d = W[j] * (xv[P[j][0]] - xv[P[j][1]]);
      yv[P[j][0]] += d;
      yv[P[j][1]] -= d;
    }
  }
}

/** yv[0 .. points - 1] = the children's matrices of coarse element e (Gmsh code `code`: a
 *  hexahedron or a prism) times its points' values xv, or with diag their diagonal (xv unread). */
static inline void pm_fine_cells_apply(const pm_fine_cells_t *fc, int code, int32_t e, int diag, const double *xv,
                                       double *yv) {
  const float *W = fc->w + fc->at[e];
  if (code == PM_FINE_HEX) {
    if (diag)
      pm_fine_pairs_apply(PM_FINE_HEX_PAIRS, PM_FINE_HEX_PAIRS_N, PM_FINE_HEX_POINTS, 1, W, xv, yv);
    else
      pm_fine_pairs_apply(PM_FINE_HEX_PAIRS, PM_FINE_HEX_PAIRS_N, PM_FINE_HEX_POINTS, 0, W, xv, yv);
  } else {
    if (diag)
      pm_fine_pairs_apply(PM_FINE_PRISM_PAIRS, PM_FINE_PRISM_PAIRS_N, PM_FINE_PRISM_POINTS, 1, W, xv, yv);
    else
      pm_fine_pairs_apply(PM_FINE_PRISM_PAIRS, PM_FINE_PRISM_PAIRS_N, PM_FINE_PRISM_POINTS, 0, W, xv, yv);
  }
}

#endif
