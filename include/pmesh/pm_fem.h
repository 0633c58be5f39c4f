/* pm_fem.h - assembly of steady heat conduction / Poisson, -div(k grad u) = f, on a local mesh:
 * Galerkin FEM (linear lines, P1 triangles, Q1 quadrangles with 2x2 Gauss) or the 5-point
 * finite-difference scheme on structured grids; Dirichlet values eliminated symmetrically (as the
 * lecture does), Neumann fluxes k du/dn = g on boundary-face groups. */
#ifndef PMESH_PM_FEM_H
#define PMESH_PM_FEM_H

#include <stdint.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_local.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An expression in x, y, z (libmatheval syntax: + - * / ^, sin, cos, exp, sqrt, pi, e, ...). */
typedef struct pm_expr pm_expr_t;
/** Parse `text`; PM_ERR_ARG naming the text when it does not parse or uses other variables. */
int pm_expr_create(const char *text, pm_expr_t **expr);
double pm_expr_eval(const pm_expr_t *expr, double x, double y, double z);
int pm_expr_is_const(const pm_expr_t *expr);
void pm_expr_destroy(pm_expr_t **expr);

typedef enum pm_scheme { PM_SCHEME_FEM, PM_SCHEME_FDM5 } pm_scheme_t;

/** A value on a group: "GROUP=EXPR" (for sources and conductivities GROUP may be NULL: default). */
typedef struct pm_group_value {
  const char *group;
  const char *expr;
} pm_group_value_t;

typedef struct pm_problem {
  pm_scheme_t scheme;
  double area;                     /* cross-section of 1D bars (k and f are per unit volume) */
  int n_source, n_conductivity;    /* in order; later entries override earlier ones */
  const pm_group_value_t *source;  /* group NULL: every element */
  const pm_group_value_t *conductivity;
  int n_dirichlet, n_neumann;
  const pm_group_value_t *dirichlet; /* node groups: u = value */
  const pm_group_value_t *neumann;   /* boundary-face groups: k du/dn = value (outward) */
} pm_problem_t;

/** Assemble A (structure from pm_csr_create with edges_only = (scheme == FDM5)), b [N] and the
 *  Dirichlet values into u [NP] (other entries 0).  Every local error is reported with the group
 *  or element concerned.  Not collective.
 *  @param[out] n_fixed  internal nodes with a Dirichlet value */
int pm_fem_assemble(const pm_local_t *local, const pm_problem_t *prob, pm_csr_t *a, double *b, double *u,
                    int64_t *n_fixed);

/** Lumped-mass weight of each internal node (its share of the measure of its elements), for
 *  discrete L2 norms.  w has N entries.  Not collective. */
int pm_fem_node_weights(const pm_local_t *local, double *w);

/** Index of a group by name, or -1. */
int pm_fem_find_group(const pm_local_t *local, const char *name);

#ifdef __cplusplus
}
#endif
#endif
