/* pm_problem.c - a problem defined in C: scheme, sources, conductivities, boundary conditions. */
#include "pmesh/pm_problem.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pm_problem_int.h"
#include "pmesh/pm_error.h"

int pm_problem_create(pm_problem_t **prob) {
  *prob = NULL;
  pm_problem_t *p = NULL;
  PM_CALL(PM_CALLOC(p, 1, "problem"));
  p->scheme = PM_SCHEME_FEM;
  p->area = 1.0;
  *prob = p;
  return PM_OK;
}

static void list_free(pm_problem_list_t *l) {
  for (int i = 0; i < l->n; i++) {
    free(l->e[i].group);
    free((char *)(uintptr_t)l->e[i].value.expr);
  }
  free(l->e);
}

void pm_problem_destroy(pm_problem_t **prob) {
  if (!prob || !*prob) return;
  pm_problem_t *p = *prob;
  list_free(&p->source);
  list_free(&p->conductivity);
  list_free(&p->dirichlet);
  list_free(&p->neumann);
  list_free(&p->robin_h);
  list_free(&p->robin_uinf);
  free(p);
  *prob = NULL;
}

const char *pm_scheme_name(pm_scheme_t scheme) {
  return scheme == PM_SCHEME_FEM ? "fem" : scheme == PM_SCHEME_FDM5 ? "fdm5" : scheme == PM_SCHEME_FDM7 ? "fdm7" : "?";
}

int pm_problem_set_scheme(pm_problem_t *prob, pm_scheme_t scheme) {
  PM_CHECK(scheme == PM_SCHEME_FEM || scheme == PM_SCHEME_FDM5 || scheme == PM_SCHEME_FDM7, PM_ERR_ARG,
           "unknown scheme %d", (int)scheme);
  prob->scheme = scheme;
  return PM_OK;
}

int pm_problem_set_area(pm_problem_t *prob, double area) {
  PM_CHECK(area > 0 && isfinite(area), PM_ERR_ARG, "the cross-section %g is not a positive finite number", area);
  prob->area = area;
  return PM_OK;
}

/* Append (group, value) with copies of the strings. */
static int list_add(pm_problem_list_t *l, const char *group, pm_value_t v, const char *what, int need_group) {
  PM_CHECK(pm_value_is_set(v), PM_ERR_ARG, "the %s%s%s needs an expression or a callback", what, group ? " on " : "",
           group ? group : "");
  PM_CHECK(!need_group || (group && group[0]), PM_ERR_ARG, "the %s needs a group", what);
  PM_CHECK(!group || group[0], PM_ERR_ARG, "the %s: empty group name", what);
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 4;
    PM_CALL(PM_REALLOC(l->e, cap, "problem values"));
    l->cap = cap;
  }
  pm_problem_entry_t e = {NULL, v};
  char *text = NULL;
  if (group) PM_CALL(pm_strdup(group, &e.group));
  if (v.expr && pm_strdup(v.expr, &text)) {
    free(e.group);
    return PM_ERR_MEMORY;
  }
  if (v.expr) e.value.expr = text;
  l->e[l->n++] = e;
  return PM_OK;
}

int pm_problem_set_source(pm_problem_t *prob, const char *group, pm_value_t f) {
  return list_add(&prob->source, group, f, "source", 0);
}

int pm_problem_set_conductivity(pm_problem_t *prob, const char *group, pm_value_t k) {
  return list_add(&prob->conductivity, group, k, "conductivity", 0);
}

int pm_problem_add_dirichlet(pm_problem_t *prob, const char *group, pm_value_t g) {
  return list_add(&prob->dirichlet, group, g, "Dirichlet condition", 1);
}

int pm_problem_add_neumann(pm_problem_t *prob, const char *group, pm_value_t flux) {
  return list_add(&prob->neumann, group, flux, "Neumann flux", 1);
}

int pm_problem_add_robin(pm_problem_t *prob, const char *group, pm_value_t h, pm_value_t u_inf) {
  PM_CHECK(pm_value_is_set(h) && pm_value_is_set(u_inf), PM_ERR_ARG,
           "the Robin condition%s%s needs a coefficient h and an outside value u_inf", group ? " on " : "",
           group ? group : "");
  if (h.expr) { /* a constant h < 0 is refused now; a varying one where the assembly meets it */
    pm_expr_t *ex = NULL;
    PM_CALL(pm_expr_create(h.expr, &ex));
    double hv = pm_expr_eval(ex, 0, 0, 0);
    int is_const = pm_expr_is_const(ex);
    pm_expr_destroy(&ex);
    PM_CHECK(!is_const || hv >= 0, PM_ERR_ARG,
             "the Robin condition on '%s': the coefficient h = %s is negative; h must be >= 0 (a negative h "
             "makes the operator indefinite: the boundary would gain heat in proportion to its temperature)",
             group ? group : "", h.expr);
  }
  PM_CALL(list_add(&prob->robin_h, group, h, "Robin condition", 1));
  int ierr = list_add(&prob->robin_uinf, group, u_inf, "Robin condition", 1);
  if (ierr) { /* keep the two lists in step */
    pm_problem_list_t *l = &prob->robin_h;
    l->n--;
    free(l->e[l->n].group);
    free((char *)(uintptr_t)l->e[l->n].value.expr);
  }
  return ierr;
}

pm_scheme_t pm_problem_scheme(const pm_problem_t *prob) {
  return prob->scheme;
}
double pm_problem_area(const pm_problem_t *prob) {
  return prob->area;
}
int pm_problem_n_dirichlet(const pm_problem_t *prob) {
  return prob->dirichlet.n;
}
int pm_problem_n_robin(const pm_problem_t *prob) {
  return prob->robin_h.n;
}

pm_value_t pm_problem_source(const pm_problem_t *prob) {
  return prob->source.n ? prob->source.e[prob->source.n - 1].value : (pm_value_t){NULL, NULL, NULL};
}

pm_value_t pm_problem_conductivity(const pm_problem_t *prob) {
  return prob->conductivity.n ? prob->conductivity.e[prob->conductivity.n - 1].value : (pm_value_t){NULL, NULL, NULL};
}

static int meta_group(const pm_meta_t *m, const char *name) {
  for (int g = 0; g < m->n_groups; g++)
    if (strcmp(m->group_name[g], name) == 0) return g;
  return -1;
}

/* The lists in the order of pm_problem_item_t (Robin's two values both name PM_PROBLEM_ROBIN). */
enum { N_LISTS = 6 };
static void problem_lists(const pm_problem_t *p, const pm_problem_list_t *lists[N_LISTS]) {
  lists[0] = &p->source;
  lists[1] = &p->conductivity;
  lists[2] = &p->dirichlet;
  lists[3] = &p->neumann;
  lists[4] = &p->robin_h;
  lists[5] = &p->robin_uinf;
}
static pm_problem_item_t list_item(int w) {
  return w >= 4 ? PM_PROBLEM_ROBIN : (pm_problem_item_t)(PM_PROBLEM_SOURCE + w);
}

/* The groups of the metadata of dimension dim (all of them when dim < 0) as "a (dim 2), b (dim 2)"
 * into buf, or "none" when there is none. */
static void list_groups(const pm_meta_t *meta, int dim, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < meta->n_groups && len + 2 < size; k++)
    if (dim < 0 || meta->group_dim[k] == dim)
      len += (size_t)snprintf(buf + len, size - len, "%s%s (dim %d)", len ? ", " : "", meta->group_name[k],
                              meta->group_dim[k]);
  if (!buf[0]) snprintf(buf, size, "none");
}

/* The group of entry e of list w (0 source, 1 conductivity, 2 Dirichlet, 3 Neumann, 4 Robin)
 * against the metadata: it exists and has the dimension the list needs. */
static int check_group(const pm_meta_t *meta, int w, const char *group, const char *what) {
  char groups[2048];
  int g = meta_group(meta, group);
  if (g < 0) {
    list_groups(meta, w <= 1 ? meta->dim : w >= 3 ? meta->dim - 1 : -1, groups, sizeof groups);
    return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "the %s on '%s': the mesh has no group '%s'; its %s are: %s",
                        what, group, group,
                        w <= 1   ? "element groups (of the mesh's dimension)"
                        : w >= 3 ? "boundary groups (one dimension below the mesh's)"
                                 : "groups",
                        groups);
  }
  if (w <= 1 && meta->group_dim[g] != meta->dim) {
    list_groups(meta, meta->dim, groups, sizeof groups);
    return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "the %s on '%s': '%s' is a %dD group; sources and conductivities go on %dD element groups: %s",
                        what, group, group, meta->group_dim[g], meta->dim, groups);
  }
  if (w >= 3 && meta->group_dim[g] != meta->dim - 1) {
    list_groups(meta, meta->dim - 1, groups, sizeof groups);
    return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "the %s on '%s': '%s' is a %dD group; %s go on %dD boundary groups: %s", what, group, group,
                        meta->group_dim[g], w == 3 ? "fluxes" : "Robin conditions", meta->dim - 1, groups);
  }
  return PM_OK;
}

/* The finite differences against the mesh's dimension and what they take. */
static int check_scheme(const pm_problem_t *prob, const pm_meta_t *meta) {
  if (prob->scheme == PM_SCHEME_FDM5)
    PM_CHECK(meta->dim == 2, PM_ERR_ARG,
             "the fdm5 scheme is the 5-point stencil of a 2D grid (meshgen grid) but the mesh is %dD%s", meta->dim,
             meta->dim == 3 ? ": use fdm7, the 7-point stencil of a 3D box (meshgen box)" : "");
  if (prob->scheme == PM_SCHEME_FDM7)
    PM_CHECK(meta->dim == 3, PM_ERR_ARG,
             "the fdm7 scheme is the 7-point stencil of a 3D box of hexahedra (meshgen box) but the mesh is %dD%s",
             meta->dim, meta->dim == 2 ? ": use fdm5, the 5-point stencil of a 2D grid (meshgen grid)" : "");
  return PM_OK;
}

int pm_problem_check(const pm_problem_t *prob, const pm_meta_t *meta, pm_problem_item_t *bad) {
  const pm_problem_list_t *lists[N_LISTS];
  problem_lists(prob, lists);
  static const char *what[N_LISTS] = {"source",       "conductivity",    "Dirichlet condition",
                                      "Neumann flux", "Robin condition", "Robin condition"};
  if (bad) *bad = PM_PROBLEM_NONE;
  PM_CALL(check_scheme(prob, meta));
  int fdm = prob->scheme != PM_SCHEME_FEM;
  const char *sname = pm_scheme_name(prob->scheme);
  for (int w = 0; w < N_LISTS; w++) {
    for (int i = 0; i < lists[w]->n; i++) {
      const pm_problem_entry_t *e = &lists[w]->e[i];
      int ierr = PM_OK;
      if (e->group && w != 5) /* Robin's u_inf has the group of its h */
        ierr = check_group(meta, w, e->group, what[w]);
      if (!ierr && fdm && (w >= 3 || (w <= 1 && e->group)))
        ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "the %s scheme takes %s", sname,
                            w == 3   ? "Dirichlet conditions only (no Neumann flux)"
                            : w >= 4 ? "Dirichlet conditions only (no Robin condition: use the fem scheme)"
                            : w == 0 ? "one source for the whole grid (no group)"
                                     : "one conductivity for the whole grid (no group)");
      if (!ierr && e->value.expr) { /* parses: the ranks would all fail alike later */
        pm_expr_t *ex = NULL;
        ierr = pm_expr_create(e->value.expr, &ex);
        pm_expr_destroy(&ex);
      }
      if (!ierr && w == 1 && pm_value_depends_on_time(e->value))
        ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                            "the conductivity%s%s '%s' depends on the time t: conductivities are constant in time "
                            "(the matrix is assembled once); sources and boundary values may depend on t",
                            e->group ? " on " : "", e->group ? e->group : "", pm_value_text(e->value));
      if (!ierr && w == 4 && pm_value_depends_on_time(e->value))
        ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                            "the Robin condition on '%s': the coefficient h '%s' depends on the time t: h is "
                            "constant in time (the matrix is assembled once); u_inf may depend on t",
                            e->group, pm_value_text(e->value));
      if (ierr) {
        if (bad) *bad = list_item(w);
        return ierr;
      }
    }
  }
  return PM_OK;
}

int pm_problem_depends_on_time(const pm_problem_t *prob, pm_problem_item_t *which) {
  const pm_problem_list_t *lists[N_LISTS];
  problem_lists(prob, lists);
  if (which) *which = PM_PROBLEM_NONE;
  for (int w = 0; w < N_LISTS; w++)
    for (int i = 0; i < lists[w]->n; i++)
      if (pm_value_depends_on_time(lists[w]->e[i].value)) {
        if (which) *which = list_item(w);
        return 1;
      }
  return 0;
}

/* Appends "; " (after the first entry) and the entry to buf of size, with used its length so far. */
static int describe_entry(char *buf, size_t size, size_t *used, const char *group, const char *v1, const char *v2) {
  int n = snprintf(buf + *used, size - *used, "%s%s%s%s%s%s", *used ? "; " : "", group ? group : "", group ? "=" : "",
                   v1, v2 ? "," : "", v2 ? v2 : "");
  if (n < 0 || (size_t)n >= size - *used)
    return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "problem text longer than %zu", size - 1);
  *used += (size_t)n;
  return PM_OK;
}

int pm_problem_describe(const pm_problem_t *prob, pm_problem_item_t item, char *buf, size_t size) {
  PM_CHECK(prob && buf && size > 0, PM_ERR_ARG, "pm_problem_describe: no problem or no buffer");
  const pm_problem_list_t *lists[] = {NULL,           &prob->source, &prob->conductivity, &prob->dirichlet,
                                      &prob->neumann, &prob->robin_h};
  PM_CHECK(item > PM_PROBLEM_NONE && item <= PM_PROBLEM_ROBIN, PM_ERR_ARG, "pm_problem_describe: item %d", (int)item);
  const pm_problem_list_t *l = lists[item];
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < l->n; i++) {
    const char *v2 = item == PM_PROBLEM_ROBIN ? pm_value_text(prob->robin_uinf.e[i].value) : NULL;
    PM_CALL(describe_entry(buf, size, &used, l->e[i].group, pm_value_text(l->e[i].value), v2));
  }
  return PM_OK;
}
