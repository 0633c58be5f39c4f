/* pm_element.h - private: the element kernels of the assembly (stiffness, load and mass of one
 * linear line, P1 triangle or Q1 quadrangle, with their quadrature rules), the checked evaluation
 * of the problem's expressions at a point, and the addition of an element entry to a matrix row. */
#ifndef PMESH_PM_ELEMENT_H
#define PMESH_PM_ELEMENT_H

#include <stdint.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_local.h"

/** The 2-point Gauss rule on [0, 1]: its points (each weight is 1/2). */
extern const double pm_element_gauss2[2];

/** PM_ERR_ARG when the local mesh has no elements (a lecture table file, or one released by
 *  pm_local_release): nothing to integrate over, refused rather than an empty sum. */
int pm_element_need(const pm_local_t *l);

/** *v = e at the point p; a NaN or Inf is reported with `what` and the point. */
int pm_element_eval(const pm_expr_t *e, const double *p, const char *what, double *v);

/** Element stiffness K[nv][nv] and load F[nv] of element e for the conductivity k and the source
 *  f; `area` multiplies both for a line (the cross-section of a 1D bar). */
int pm_element_stiffness(const pm_local_t *l, int32_t e, const pm_expr_t *k, const pm_expr_t *f, double area,
                         double K[4][4], double F[4]);

/** Element mass M[a][b] = integral of phi_a phi_b (times `area` for lines), with the quadrature
 *  points of pm_element_stiffness: exact for lines and triangles, and for Q1 on parallelograms. */
int pm_element_mass(const pm_local_t *l, int32_t e, double area, double M[4][4]);

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
