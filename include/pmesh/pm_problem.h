/* pm_problem.h - a heat-conduction (Poisson) problem defined in C: -div(k grad u) = f, or with
 * a time derivative du/dt - div(k grad u) = f, with the discretisation scheme, sources and
 * conductivities per element group, Dirichlet values on node groups, Neumann fluxes
 * k du/dn = g and Robin (convective) conditions k du/dn = h (u_inf - u) on boundary-face groups.
 * Every value is an expression or a C callback (pm_value_t); in a transient run the source and
 * the boundary values may depend on the time t (pm_expr.h), the conductivity and h may not.
 * Groups are named as in the mesh (its physical groups, and "boundary"); they are looked up when
 * the problem is assembled (pm_fem.h) or checked (pm_problem_check).
 *
 *   pm_problem_t *prob;
 *   pm_problem_create(&prob);
 *   pm_problem_set_source(prob, NULL, pm_value_fn(my_f, &params));
 *   pm_problem_set_conductivity(prob, "insulation", pm_value_expr("0.1"));
 *   pm_problem_add_dirichlet(prob, "boundary", pm_value_expr("x + 2*y"));
 *   ... pm_run_steady(part, prob, ...) (pm_run.h) ... pm_problem_destroy(&prob); */
#ifndef PMESH_PM_PROBLEM_H
#define PMESH_PM_PROBLEM_H

#include <stddef.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_scheme {
  PM_SCHEME_FEM,  /* Galerkin FEM */
  PM_SCHEME_FDM5, /* the 5-point finite differences on an axis-aligned structured grid (halo edge) */
  PM_SCHEME_FDM7  /* the 7-point finite differences on an axis-aligned box of hexahedra (halo edge) */
} pm_scheme_t;

/** "fem", "fdm5", "fdm7" ("?" for another value).  Not collective. */
PM_EXTERN const char *pm_scheme_name(pm_scheme_t scheme);

/** The parts of a problem, to say which one a check found wrong. */
typedef enum pm_problem_item {
  PM_PROBLEM_NONE,
  PM_PROBLEM_SOURCE,
  PM_PROBLEM_CONDUCTIVITY,
  PM_PROBLEM_DIRICHLET,
  PM_PROBLEM_NEUMANN,
  PM_PROBLEM_ROBIN
} pm_problem_item_t;

typedef struct pm_problem pm_problem_t;

/** An empty problem: scheme FEM, cross-section 1, source 0 and conductivity 1 everywhere, no
 *  boundary condition.  Not collective. */
PM_EXTERN int pm_problem_create(pm_problem_t **prob);
/** Free; NULL-safe, sets *prob to NULL.  Not collective. */
PM_EXTERN void pm_problem_destroy(pm_problem_t **prob);

/** The scheme (the finite differences, PM_SCHEME_FDM5 on a 2D grid and PM_SCHEME_FDM7 on a 3D
 *  box, take one source and one conductivity for the whole grid and Dirichlet conditions only:
 *  no Neumann flux, no Robin condition).  Not collective. */
PM_EXTERN int pm_problem_set_scheme(pm_problem_t *prob, pm_scheme_t scheme);
/** The cross-section of 1D bars (> 0; k and f are per unit volume).  Not collective. */
PM_EXTERN int pm_problem_set_area(pm_problem_t *prob, double area);

/** Source f and conductivity k on the elements of `group` (a group of the mesh's dimension), or
 *  on every element when group is NULL.  Calls apply in order: a later call overrides an
 *  earlier one on the elements it covers.  Expressions are copied; a callback's ctx is
 *  borrowed.  Not collective. */
PM_EXTERN int pm_problem_set_source(pm_problem_t *prob, const char *group, pm_value_t f);
PM_EXTERN int pm_problem_set_conductivity(pm_problem_t *prob, const char *group, pm_value_t k);

/** u = g on the nodes of `group` (any dimension); where groups share nodes, the later call
 *  wins.  In a transient run g may depend on t: the values are set at every step's time.  Not
 *  collective. */
PM_EXTERN int pm_problem_add_dirichlet(pm_problem_t *prob, const char *group, pm_value_t g);
/** k du/dn = flux (outward) on the faces of `group` (a boundary group, one dimension below the
 *  mesh's); several fluxes on one face add up.  Not collective. */
PM_EXTERN int pm_problem_add_neumann(pm_problem_t *prob, const char *group, pm_value_t flux);
/** Robin (convective) condition k du/dn = h (u_inf - u) (outward) on the faces of `group` (a
 *  boundary group, as for pm_problem_add_neumann): the boundary mass integral of h phi_i phi_j
 *  joins the matrix and the integral of h u_inf phi_i the load.  FEM only (pm_problem_check and
 *  the assembly refuse it with fdm5 and fdm7).  h >= 0 keeps the operator symmetric positive definite; a
 *  negative h (a boundary that gains heat in proportion to its temperature) is refused: here
 *  when h is a constant expression, otherwise where the assembly meets it.  h may not depend on
 *  t (the matrix is assembled once); u_inf may.  With h > 0 somewhere, a steady problem needs no
 *  Dirichlet condition.  Several conditions on one face add up.  Not collective. */
PM_EXTERN int pm_problem_add_robin(pm_problem_t *prob, const char *group, pm_value_t h, pm_value_t u_inf);

/** Check the problem against a partition's metadata before anything is assembled: every group
 *  named exists and has the right dimension (the message lists the groups of the right
 *  dimension), a Dirichlet group is not empty, the scheme fits the mesh's dimension (fdm5 2D,
 *  fdm7 3D) and takes what is set (fdm5, fdm7: no groups, no Neumann flux, no Robin condition), every
 *  expression parses, the conductivity and Robin's h do not depend on t.  `bad` (may be NULL)
 *  receives the part found wrong.  Not collective. */
PM_EXTERN int pm_problem_check(const pm_problem_t *prob, const pm_meta_t *meta, pm_problem_item_t *bad);

/** Whether any value of the problem depends on the time t (pm_value_depends_on_time), and the
 *  first part that does into `which` (may be NULL; PM_PROBLEM_NONE when none does).  A steady run
 *  refuses such a problem.  Not collective. */
PM_EXTERN int pm_problem_depends_on_time(const pm_problem_t *prob, pm_problem_item_t *which);

/** What was set: the scheme, the cross-section, the number of Dirichlet and Robin conditions, and the
 *  value of the last source and conductivity set (an unset value when none was: the defaults
 *  apply).  The values stay valid while the problem lives.  Not collective. */
PM_EXTERN pm_scheme_t pm_problem_scheme(const pm_problem_t *prob);
PM_EXTERN double pm_problem_area(const pm_problem_t *prob);
PM_EXTERN int pm_problem_n_dirichlet(const pm_problem_t *prob);
PM_EXTERN int pm_problem_n_robin(const pm_problem_t *prob);
PM_EXTERN pm_value_t pm_problem_source(const pm_problem_t *prob);
PM_EXTERN pm_value_t pm_problem_conductivity(const pm_problem_t *prob);

/** Every value of one part of the problem as text, in the order set: "[GROUP=]VALUE" entries
 *  separated by "; " (Robin: "GROUP=H,U_INF"; a callback reads "(C function)"), "" when none was
 *  set.  What a result file records (pm_run.h).  Not collective.
 *  @param[out] buf  size bytes, always terminated
 *  @return PM_OK, or PM_ERR_ARG when the text does not fit (buf then holds its beginning) */
PM_EXTERN int pm_problem_describe(const pm_problem_t *prob, pm_problem_item_t item, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
