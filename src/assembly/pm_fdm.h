/* pm_fdm.h - private: the finite-difference schemes (pm_fdm.c), the 5-point stencil on a 2D grid
 * and the 7-point stencil on a 3D box, called by the assembly when the problem's scheme is
 * PM_SCHEME_FDM5 or PM_SCHEME_FDM7. */
#ifndef PMESH_PM_FDM_H
#define PMESH_PM_FDM_H

#include <stdint.h>

#include "pm_problem_int.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_local.h"

/** The 5-point (2D) or 7-point (3D) scheme of pr->scheme: every element is a quadrangle (fdm5) or
 *  a hexahedron (fdm7), and each unknown node needs two neighbours along each axis at equal
 *  distances (a structured grid; the spacings of different axes may differ); a_ij =
 *  -k(midpoint)/h_ij^2, d_i = sum k/h^2, b_i = f(x_i) (the stencil divided by h^2, not scaled).
 *  fx and kx are the compiled entries of src and cond (the last one applies, none has a group);
 *  a node without all its neighbours needs fixed[i] (a Dirichlet value).  a holds the edge
 *  pattern (pm_csr_create with edges_only).  Adds to a->d, which the caller zeroes. */
int pm_fdm_assemble(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                    const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, pm_csr_t *a, double *b,
                    const char *fixed);

/** The finite differences' load at the N internal nodes: the source at each node (fx: the
 *  compiled entries of src).  Refuses Neumann and Robin conditions and sources on groups. */
int pm_fdm_load(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src, pm_expr_t **fx, double *f);

#endif
