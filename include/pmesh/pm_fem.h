/* pm_fem.h - assembly of heat conduction / Poisson, -div(k grad u) = f, on a local mesh:
 * Galerkin FEM on every cell of the reference-cell table (linear lines, P1 triangles and
 * tetrahedra, Q1 quadrangles and hexahedra, linear prisms; degree-2 quadrature) or the 5-point
 * finite-difference scheme on structured grids; Dirichlet values eliminated symmetrically (as the
 * lecture does), Neumann fluxes k du/dn = g and Robin conditions k du/dn = h (u_inf - u) (FEM: a
 * boundary mass term R in the matrix, h u_inf in the load) on boundary-face groups.  For the
 * transient problem du/dt - div(k grad u) = f, the mass matrix and the backward-Euler system
 * M/dt + K (+ R), and the load at a given time for data that depend on t.  Unless a function
 * takes a time, time-dependent data are evaluated at t = 0.  The problem
 * (values, groups, scheme) is a pm_problem_t (pm_problem.h); groups missing from a local mesh
 * are reported with the part of the problem that names them. */
#ifndef PMESH_PM_FEM_H
#define PMESH_PM_FEM_H

#include <stdint.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_export.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Assemble A (structure from pm_csr_create with edges_only = (scheme == FDM5)), b [N] and the
 *  Dirichlet values into u [NP] (other entries 0).  Every local error is reported with the group
 *  or element concerned.  Not collective.
 *  @param[out] n_fixed  internal nodes with a Dirichlet value */
PM_EXTERN int pm_fem_assemble(const pm_local_t *local, const pm_problem_t *prob, pm_csr_t *a, double *b, double *u,
                              int64_t *n_fixed);

/** Mark the nodes with a Dirichlet value: fixed[i] = 1 (else 0) for the NP local nodes, and
 *  u[i] = the value at marked nodes (other entries of u untouched; later groups win).
 *  Not collective.
 *  @param[in] t  the time at which values that depend on t are evaluated (0 for a steady
 *                problem; values that do not depend on t ignore it) */
PM_EXTERN int pm_fem_dirichlet(const pm_local_t *local, const pm_problem_t *prob, double t, char *fixed, double *u);

typedef enum pm_mass { PM_MASS_CONSISTENT, PM_MASS_LUMPED } pm_mass_t;

/** Mass matrix M_ij = integral of phi_i phi_j (times the cross-section for 1D bars), with the
 *  stiffness's quadrature (exact for affine cells); PM_MASS_LUMPED puts the
 *  row sums on the diagonal.  For PM_SCHEME_FDM5 the mass is the identity (the nodal value), so
 *  only PM_MASS_LUMPED is accepted (PM_ERR_ARG otherwise).  m has the structure of the
 *  stiffness (pm_csr_create with the same edges_only); its values are overwritten.  Not collective. */
PM_EXTERN int pm_fem_mass(const pm_local_t *local, const pm_problem_t *prob, pm_mass_t kind, pm_csr_t *m);

/** Backward Euler for du/dt - div(k grad u) = f: (M/dt + K) u^{n+1} = (M/dt) u^n + f, with
 *  data constant in time (for data that depend on t see pm_fem_assemble_operator: the matrix a
 *  below stays right, b is the one of t = 0).  Assembles, like pm_fem_assemble,
 *    a = M/dt + K with Dirichlet rows made identity rows and Dirichlet columns moved right,
 *    b = f + Neumann - sum over Dirichlet columns c of (M/dt + K)_ic g_c (b_i = g_i on fixed rows),
 *    m = M with the rows and columns of Dirichlet nodes zeroed,
 *    u = Dirichlet values (other entries 0).
 *  The right-hand side of a step is then b + (m u^n) / dt.  This equals (M/dt) u^n + f minus the
 *  eliminated columns whenever u^n holds the Dirichlet values on Dirichlet nodes (so callers set
 *  them in u^0), and it does not depend on what u^n holds there.  m and a have the same
 *  structure.  Not collective.
 *  @param[in]  kind, dt  mass matrix kind; time step (> 0) */
PM_EXTERN int pm_fem_assemble_transient(const pm_local_t *local, const pm_problem_t *prob, pm_mass_t kind, double dt,
                                        pm_csr_t *a, pm_csr_t *m, double *b, double *u, int64_t *n_fixed);

/** The backward-Euler operators without the Dirichlet elimination, for data that change in time:
 *  a = M/dt + K + R and m = M (the kind of pm_fem_mass) with every row and column kept (the rows
 *  of Dirichlet nodes are assembled like the others; callers replace them).  The structures are
 *  those of pm_fem_assemble_transient.  A step to time t then has the right-hand side
 *    f(t) + (m u^n)/dt - a w  on the other rows, w = the Dirichlet values at t (0 elsewhere),
 *  and g(t) on the Dirichlet rows, for the eliminated matrix of pm_fem_assemble_transient, where
 *  u^n holds g(t - dt) on the Dirichlet nodes.  Not collective. */
PM_EXTERN int pm_fem_assemble_operator(const pm_local_t *local, const pm_problem_t *prob, pm_mass_t kind, double dt,
                                       pm_csr_t *a, pm_csr_t *m);

/** The load vector at time t for the N internal rows, without Dirichlet elimination: the source
 *  integrals (fdm5: the source at the nodes), the Neumann flux integrals and the Robin integrals
 *  of h u_inf.  Not collective.
 *  @param[out] f  [N] */
PM_EXTERN int pm_fem_load(const pm_local_t *local, const pm_problem_t *prob, double t, double *f);

/** The integral of the Robin coefficient h over this rank's faces of the Robin groups that touch
 *  an internal node (0 without Robin conditions, and for fdm5).  Summed over the ranks (faces on
 *  rank boundaries count more than once), it is positive exactly when some h > 0, which makes a
 *  steady problem without Dirichlet values non-singular.  PM_ERR_ARG when h < 0 somewhere.
 *  Not collective. */
PM_EXTERN int pm_fem_robin_integral(const pm_local_t *local, const pm_problem_t *prob, double *h_int);

/** Lumped-mass weight of each internal node (its share of the measure of its elements: each
 *  element's measure, by its quadrature, split equally between its vertices), for discrete L2
 *  norms.  w has N entries.  Not collective. */
PM_EXTERN int pm_fem_node_weights(const pm_local_t *local, double *w);


#ifdef __cplusplus
}
#endif
#endif
