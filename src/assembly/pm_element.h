/* pm_element.h - private: the element kernels of the assembly.  One isoparametric kernel for every
 * cell of the reference-cell table (pm_cell.h): the map from the reference cell, its Jacobian and
 * the basis gradients at the table's quadrature points, and from them the stiffness, load and mass
 * of a line, triangle, quadrangle, tetrahedron, hexahedron or prism, and the measure of a boundary
 * face.  Also the checked evaluation of the problem's expressions at a point, and the addition of
 * an element entry to a matrix row. */
#ifndef PMESH_PM_ELEMENT_H
#define PMESH_PM_ELEMENT_H

#include <stdint.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_local.h"

enum { PM_ELEMENT_NV = PM_CELL_MAX_VERTS };

/** A cell's map at the quadrature points of its table entry. */
typedef struct pm_element_qp {
  int n_qp, nv;
  int affine;                                    /* a simplex: its gradients are grad[0] at every q */
  int flat;                                      /* a cell of a 2D mesh (z constant): no z gradients */
  double p[PM_CELL_MAX_QP][3];                   /* the physical points */
  const double (*phi)[PM_CELL_MAX_VERTS];        /* basis values phi[q][a] (the type's, shared) */
  double grad[PM_CELL_MAX_QP][PM_CELL_MAX_VERTS][3]; /* physical gradients (when asked) */
  double w[PM_CELL_MAX_QP];                      /* weight times the measure's Jacobian */
} pm_element_qp_t;

/** PM_ERR_ARG when the local mesh has no elements (a lecture table file, or one released by
 *  pm_local_release): nothing to integrate over, refused rather than an empty sum. */
int pm_element_need(const pm_local_t *l);

/** *v = e at the point p; a NaN or Inf is reported with `what` and the point. */
int pm_element_eval(const pm_expr_t *e, const double *p, const char *what, double *v);

/** The map of the cell `c` with vertices X[0..c->n_verts-1] at the table's quadrature points.
 *  A 3D cell takes the determinant of its 3x3 Jacobian, which must be positive (the table's
 *  orientation; an inverted or flat cell is refused).  A cell of lower dimension (a line or a
 *  planar cell of a 1D or 2D mesh, a boundary face of a 3D mesh) takes the measure of its tangent
 *  vectors, sqrt(det J^T J) (the length of the tangent, the norm of the cross product of the two
 *  tangents), so either orientation is accepted, and its gradients are the tangential ones
 *  J (J^T J)^-1 dN.  A point has weight 1.  `grads` = 0 skips the gradients; a simplex's are
 *  computed once, in grad[0]. */
int pm_element_geometry(const pm_cell_t *c, const double *const *X, int grads, pm_element_qp_t *g);

/** The table entry of element e and its vertices' coordinates; PM_ERR_FORMAT for a type the table
 *  lacks or a vertex count that is not the type's. */
int pm_element_cell(const pm_local_t *l, int32_t e, const pm_cell_t **c, const double *X[PM_CELL_MAX_VERTS]);

/** Element stiffness K[a][b] = integral of k grad phi_a . grad phi_b and load F[a] = integral of
 *  f phi_a of element e (a, b < its vertex count), k and f taken at the quadrature points; `area`
 *  multiplies both for a line (the cross-section of a 1D bar) and is ignored for other cells. */
int pm_element_stiffness(const pm_local_t *l, int32_t e, const pm_expr_t *k, const pm_expr_t *f, double area,
                         double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double F[PM_ELEMENT_NV]);

/** pm_element_stiffness for a cell `c` given by its vertices' coordinates X (the same sums,
 *  bit for bit): what the matrix-free fine operator (pm_fine_op.c) uses for children that exist
 *  only in registers. */
int pm_element_stiffness_at(const pm_cell_t *c, const double *const *X, const pm_expr_t *k, const pm_expr_t *f,
                            double area, double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double F[PM_ELEMENT_NV]);

/** The load F alone of pm_element_stiffness_at (the same sums; a 3D cell's volume > 0 checked as
 *  there): without the gradients, which a multilinear cell computes at every point.  The
 *  matrix-free fine operator's right-hand side. */
int pm_element_load_at(const pm_cell_t *c, const double *const *X, const pm_expr_t *f, double F[PM_ELEMENT_NV]);

/** Element mass M[a][b] = integral of phi_a phi_b (times `area` for lines), with the quadrature
 *  of pm_element_stiffness: exact for affine cells (simplices, parallelograms, parallelepipeds,
 *  prisms with parallel triangles), degree 2 per direction on the others. */
int pm_element_mass(const pm_local_t *l, int32_t e, double area, double M[PM_ELEMENT_NV][PM_ELEMENT_NV]);

/** a(row, col) += v for local nodes row (internal) and col; PM_ERR_INCONSISTENT when the
 *  structure has no such entry.  Inline: it is called for every entry of every element. */
static inline int pm_element_add(pm_csr_t *a, const pm_local_t *l, int32_t row, int32_t col, double v) {
  if (row == col) {
    a->d[row] += v;
    return PM_OK;
  }
  /* A short row is scanned by local column: no global id to load (the binary search by global
   * id was the assembly's largest cost on big meshes). */
  int32_t k = a->index[row], end = a->index[row + 1];
  if (end - k <= 32) {
    while (k < end && a->item[k] != col) k++;
    if (k == end) k = -1;
  } else {
    k = pm_csr_find(a, l->gid, row, col);
  }
  PM_CHECK(k >= 0, PM_ERR_INCONSISTENT, "internal error: node %lld does not couple to node %lld",
           (long long)l->gid[row], (long long)l->gid[col]);
  a->amat[k] += v;
  return PM_OK;
}

#endif
