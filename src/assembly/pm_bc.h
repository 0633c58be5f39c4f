/* pm_bc.h - private: the natural boundary conditions of the FEM assembly (pm_bc.c). */
#ifndef PMESH_PM_BC_H
#define PMESH_PM_BC_H

#include "pm_problem_int.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_local.h"

/** Add the Neumann fluxes k du/dn = g at time t to the load b [N]: a point of a 1D bar times the
 *  cross-section, a boundary line by 2-point Gauss. */
int pm_bc_neumann(const pm_local_t *l, const pm_problem_t *pr, double t, double *b);

/** Robin k du/dn = h (u_inf - u) on the faces of each Robin group at time t: the boundary mass
 *  integral of h phi_i phi_j into a, the integral of h u_inf phi_i into b, and the integral of h
 *  over the faces into *h_int (each may be NULL).  Rows of external nodes are skipped (their
 *  owners have them); h_int counts the faces with an internal node.  A point of a 1D bar is
 *  weighted by the cross-section; a line takes the 2-point Gauss rule (exact for h and u_inf
 *  linear along it). */
int pm_bc_robin(const pm_local_t *l, const pm_problem_t *pr, double t, pm_csr_t *a, double *b, double *h_int);

#endif
