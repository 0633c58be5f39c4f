/* pm_bc.h - private: the natural boundary conditions of the FEM assembly (pm_bc.c). */
#ifndef PMESH_PM_BC_H
#define PMESH_PM_BC_H

#include "pm_problem_int.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_local.h"

/** Add the Neumann fluxes k du/dn = g at time t to the load b [N]: the integral of g phi_i over
 *  each face of the groups (a boundary point of a 1D bar, a line in 2D, a triangle or quadrangle
 *  in 3D) by the quadrature of the face's table entry (pm_cell.h); a point is weighted by the
 *  cross-section. */
int pm_bc_neumann(const pm_local_t *l, const pm_problem_t *pr, double t, double *b);

/** Robin k du/dn = h (u_inf - u) on the faces of each Robin group at time t: the boundary mass
 *  integral of h phi_i phi_j into a, the integral of h u_inf phi_i into b, and the integral of h
 *  over the faces into *h_int (each may be NULL).  Rows of external nodes are skipped (their
 *  owners have them); h_int counts the faces with an internal node.  A point of a 1D bar is
 *  weighted by the cross-section; a line, triangle or quadrangle takes its table entry's
 *  quadrature (exact for h and u_inf linear on a flat face). */
int pm_bc_robin(const pm_local_t *l, const pm_problem_t *pr, double t, pm_csr_t *a, double *b, double *h_int);

#endif
