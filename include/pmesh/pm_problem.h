/* pm_problem.h - a heat-conduction (Poisson) problem defined in C: -div(k grad u) = f, or with
 * a time derivative du/dt - div(k grad u) = f, with the discretisation scheme, sources and
 * conductivities per element group, Dirichlet values on node groups and Neumann fluxes
 * k du/dn = g on boundary-face groups.  Every value is an expression or a C callback
 * (pm_value_t).  Groups are named as in the mesh (its physical groups, and "boundary"); they
 * are looked up when the problem is assembled (pm_fem.h) or checked (pm_problem_check).
 *
 *   pm_problem_t *prob;
 *   pm_problem_create(&prob);
 *   pm_problem_set_source(prob, NULL, pm_value_fn(my_f, &params));
 *   pm_problem_set_conductivity(prob, "insulation", pm_value_expr("0.1"));
 *   pm_problem_add_dirichlet(prob, "boundary", pm_value_expr("x + 2*y"));
 *   ... pm_run_steady(part, prob, ...) (pm_run.h) ... pm_problem_destroy(&prob); */
#ifndef PMESH_PM_PROBLEM_H
#define PMESH_PM_PROBLEM_H

#include "pmesh/pm_expr.h"
#include "pmesh/pm_local.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_scheme {
  PM_SCHEME_FEM, /* Galerkin FEM: lines, P1 triangles, Q1 quadrangles */
  PM_SCHEME_FDM5 /* the 5-point finite differences on an axis-aligned structured grid (halo edge) */
} pm_scheme_t;

/** The parts of a problem, to say which one a check found wrong. */
typedef enum pm_problem_item {
  PM_PROBLEM_NONE,
  PM_PROBLEM_SOURCE,
  PM_PROBLEM_CONDUCTIVITY,
  PM_PROBLEM_DIRICHLET,
  PM_PROBLEM_NEUMANN
} pm_problem_item_t;

typedef struct pm_problem pm_problem_t;

/** An empty problem: scheme FEM, cross-section 1, source 0 and conductivity 1 everywhere, no
 *  boundary condition.  Not collective. */
int pm_problem_create(pm_problem_t **prob);
/** Free; NULL-safe, sets *prob to NULL.  Not collective. */
void pm_problem_destroy(pm_problem_t **prob);

/** The scheme (PM_SCHEME_FDM5 takes one source and one conductivity for the whole grid and
 *  Dirichlet conditions only).  Not collective. */
int pm_problem_set_scheme(pm_problem_t *prob, pm_scheme_t scheme);
/** The cross-section of 1D bars (> 0; k and f are per unit volume).  Not collective. */
int pm_problem_set_area(pm_problem_t *prob, double area);

/** Source f and conductivity k on the elements of `group` (a group of the mesh's dimension), or
 *  on every element when group is NULL.  Calls apply in order: a later call overrides an
 *  earlier one on the elements it covers.  Expressions are copied; a callback's ctx is
 *  borrowed.  Not collective. */
int pm_problem_set_source(pm_problem_t *prob, const char *group, pm_value_t f);
int pm_problem_set_conductivity(pm_problem_t *prob, const char *group, pm_value_t k);

/** u = g on the nodes of `group` (any dimension); where groups share nodes, the later call
 *  wins.  Values are constant in time in a transient run.  Not collective. */
int pm_problem_add_dirichlet(pm_problem_t *prob, const char *group, pm_value_t g);
/** k du/dn = flux (outward) on the faces of `group` (a boundary group, one dimension below the
 *  mesh's); several fluxes on one face add up.  Not collective. */
int pm_problem_add_neumann(pm_problem_t *prob, const char *group, pm_value_t flux);

/** Check the problem against a partition's metadata before anything is assembled: every group
 *  named exists and has the right dimension (the message lists the groups there are), the
 *  scheme takes what is set (fdm5: no groups, no Neumann flux), every expression parses.  `bad` (may be NULL) receives
 * the part found wrong.  Not collective. */
int pm_problem_check(const pm_problem_t *prob, const pm_meta_t *meta, pm_problem_item_t *bad);

/** What was set: the scheme, the cross-section, the number of Dirichlet conditions, and the
 *  value of the last source and conductivity set (an unset value when none was: the defaults
 *  apply).  The values stay valid while the problem lives.  Not collective. */
pm_scheme_t pm_problem_scheme(const pm_problem_t *prob);
double pm_problem_area(const pm_problem_t *prob);
int pm_problem_n_dirichlet(const pm_problem_t *prob);
pm_value_t pm_problem_source(const pm_problem_t *prob);
pm_value_t pm_problem_conductivity(const pm_problem_t *prob);

#ifdef __cplusplus
}
#endif
#endif
