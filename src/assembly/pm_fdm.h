/* pm_fdm.h - private: the 5-point finite-difference scheme (pm_fdm.c), called by the assembly
 * when the problem's scheme is PM_SCHEME_FDM5. */
#ifndef PMESH_PM_FDM_H
#define PMESH_PM_FDM_H

#include <stdint.h>

#include "pm_problem_int.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_local.h"

/** The 5-point scheme: each unknown node needs two neighbours along x and two along y at equal
 *  distances (a structured grid); a_ij = -k(midpoint)/h_ij^2, d_i = sum k/h^2, b_i = f(x_i).
 *  fx and kx are the compiled entries of src and cond (the last one applies, none has a group);
 *  a node without the four neighbours needs fixed[i] (a Dirichlet value).  Adds to a->d, which
 *  the caller zeroes. */
int pm_fdm5_assemble(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                     const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, pm_csr_t *a, double *b,
                     const char *fixed);

/** The 5-point scheme's load at the N internal nodes: the source at each node (fx: the compiled
 *  entries of src).  Refuses Neumann and Robin conditions and sources on groups. */
int pm_fdm5_load(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src, pm_expr_t **fx, double *f);

#endif
