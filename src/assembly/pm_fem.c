/* pm_fem.c - the global assembly of -div(k grad u) = f: the Galerkin FEM sums of element
 * matrices and loads (steady, backward Euler, operators only, load only), delegating the
 * finite differences (pm_fdm.c), the boundary terms (pm_bc.c), the Dirichlet elimination (pm_dirichlet.c) and
 * the mass matrix (pm_mass.c). */
#include "pmesh/pm_fem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pm_bc.h"
#include "pm_dirichlet.h"
#include "pm_element.h"
#include "pm_fdm.h"
#include "pm_problem_int.h"
#include "pmesh/pm_error.h"


/* Which expression applies on each element: the default, then group overrides in order (later
 * wins).  When the last entry has no group it covers every element, and no per-element array is
 * made: at 8 bytes an element it was the largest array a refined run's assembly added. */
typedef struct elem_expr {
  const pm_expr_t *all;   /* every element's, or NULL */
  const pm_expr_t **each; /* [n_elems] when the elements differ, else NULL */
} elem_expr_t;

static int per_element(const pm_local_t *l, const pm_problem_list_t *list, pm_expr_t **ex, elem_expr_t *out,
                       const char *what) {
  const pm_problem_entry_t *gv = list->e;
  int uniform = list->n > 0 && !gv[list->n - 1].group;
  *out = (elem_expr_t){uniform ? ex[list->n - 1] : NULL, NULL};
  for (int i = 0; i < list->n; i++) /* every group named must exist, used or not */
    PM_CHECK(!gv[i].group || pm_local_find_group(l, gv[i].group) >= 0, PM_ERR_ARG,
             "the %s on '%s': no group of that name", what, gv[i].group);
  if (uniform) return PM_OK;
  PM_CALL(PM_MALLOC(out->each, l->n_elems > 0 ? l->n_elems : 1, what));
  for (int32_t e = 0; e < l->n_elems; e++) out->each[e] = NULL;
  for (int i = 0; i < list->n; i++) {
    if (!gv[i].group) {
      for (int32_t e = 0; e < l->n_elems; e++) out->each[e] = ex[i];
      continue;
    }
    const pm_local_group_t *g = &l->groups[pm_local_find_group(l, gv[i].group)];
    for (int32_t k = 0; k < g->n_elems; k++) out->each[g->elems[k]] = ex[i];
  }
  return PM_OK;
}

static const pm_expr_t *expr_of(const elem_expr_t *x, int32_t e) {
  return x->each ? x->each[e] : x->all;
}

/* Element e's matrix and load with its own conductivity and source; errors name the element. */
static int element_matrices(const pm_local_t *l, const pm_problem_t *pr, const elem_expr_t *ke, const elem_expr_t *fe,
                            int32_t e, double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double F[PM_ELEMENT_NV]) {
  const pm_expr_t *k = expr_of(ke, e), *f = expr_of(fe, e);
  PM_CHECK(f && k, PM_ERR_ARG, "element %lld has no %s", (long long)l->elem_gid[e], f ? "conductivity" : "source");
  int ierr = pm_element_stiffness(l, e, k, f, pr->area, K, F);
  if (ierr) {
    char prefix[128];
    snprintf(prefix, sizeof prefix, "element %lld: ", (long long)l->elem_gid[e]);
    pm_error_prefix(prefix);
  }
  return ierr;
}

static int assemble_fem(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                        const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, pm_csr_t *a, double *b) {
  int ierr = PM_OK;
  elem_expr_t fe = {0}, ke = {0};
  PM_TRY(per_element(l, src, fx, &fe, "source"));
  PM_TRY(per_element(l, cond, kx, &ke, "conductivity"));
  int32_t n = l->n_internal;
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    double K[PM_ELEMENT_NV][PM_ELEMENT_NV], F[PM_ELEMENT_NV];
    PM_TRY(element_matrices(l, pr, &ke, &fe, e, K, F));
    for (int i = 0; i < nv; i++) {
      int32_t r = l->elem_node[k0 + i];
      if (r >= n) continue;
      b[r] += F[i];
      for (int j = 0; j < nv; j++) PM_TRY(pm_element_add(a, l, r, l->elem_node[k0 + j], K[i][j]));
    }
  }
cleanup:
  free(fe.each);
  free(ke.each);
  return ierr;
}

/* The defaults (read only, but the list type is not const). */
static pm_problem_entry_t default_source = {NULL, {"0", NULL, NULL}}, default_cond = {NULL, {"1", NULL, NULL}};

/* Free an array of n compiled expressions (NULL-safe). */
static void exprs_free(pm_expr_t **x, int n) {
  if (x)
    for (int i = 0; i < n; i++) pm_expr_destroy(&x[i]);
  free(x);
}

/* The problem's sources and conductivities, or f = 0 and k = 1 everywhere when it has none. */
static void data_lists(const pm_problem_t *pr, pm_problem_list_t *src, pm_problem_list_t *cond) {
  *src = pr->source.n ? pr->source : (pm_problem_list_t){1, 1, &default_source};
  *cond = pr->conductivity.n ? pr->conductivity : (pm_problem_list_t){1, 1, &default_cond};
}

/* Compile the sources (at time t) into *fx and the conductivities into *kx; the caller frees both
 * with exprs_free, also after a failure. */
static int compile_data(const pm_problem_list_t *src, const pm_problem_list_t *cond, double t, pm_expr_t ***fx,
                        pm_expr_t ***kx) {
  PM_CALL(PM_CALLOC(*fx, src->n, "sources"));
  PM_CALL(PM_CALLOC(*kx, cond->n, "conductivities"));
  for (int i = 0; i < src->n; i++) PM_CALL(pm_expr_create_value(src->e[i].value, &(*fx)[i]));
  for (int i = 0; i < src->n; i++) pm_expr_set_time((*fx)[i], t);
  for (int i = 0; i < cond->n; i++) PM_CALL(pm_expr_create_value(cond->e[i].value, &(*kx)[i]));
  return PM_OK;
}

/* Steady (m == NULL) or backward-Euler assembly with the data at time t, then (when `eliminate`)
 * the symmetric elimination. */
static int assemble(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, double dt, double t, int eliminate,
                    pm_csr_t *a, pm_csr_t *m, double *b, double *u, int64_t *n_fixed) {
  PM_CALL(pm_element_need(l));
  int ierr = PM_OK;
  int32_t n = l->n_internal, np = l->n_total;
  pm_expr_t **fx = NULL, **kx = NULL;
  char *fixed = NULL;
  PM_CHECK(!m || (dt > 0 && isfinite(dt)), PM_ERR_ARG, "the time step %g is not a positive finite number", dt);
  PM_CHECK(!m || (m->n == a->n && m->index[n] == a->index[n]), PM_ERR_ARG,
           "the mass matrix needs the structure of the system matrix");
  pm_problem_list_t src, cond;
  data_lists(pr, &src, &cond);
  PM_TRY(compile_data(&src, &cond, t, &fx, &kx));
  for (int i = 0; i < cond.n; i++)
    PM_TRY_CHECK(!pm_expr_depends_on_time(kx[i]), PM_ERR_ARG,
                 "the conductivity '%s' depends on the time t: conductivities are constant in time",
                 pm_value_text(cond.e[i].value));
  memset(b, 0, (size_t)n * sizeof *b);
  memset(u, 0, (size_t)np * sizeof *u);
  memset(a->d, 0, (size_t)n * sizeof *a->d);
  memset(a->amat, 0, (size_t)a->index[n] * sizeof *a->amat);

  /* Dirichlet values on every local node (internal and external) of the groups; later wins. */
  PM_TRY(PM_CALLOC(fixed, np, "Dirichlet marks"));
  PM_TRY(pm_fem_dirichlet(l, pr, t, fixed, u));
  if (pr->scheme != PM_SCHEME_FEM) {
    PM_TRY(pm_fdm_assemble(l, pr, &src, &cond, fx, kx, a, b, fixed));
  } else {
    PM_TRY(assemble_fem(l, pr, &src, &cond, fx, kx, a, b));
    PM_TRY(pm_bc_neumann(l, pr, t, b));
    PM_TRY(pm_bc_robin(l, pr, t, a, b, NULL));
  }
  if (m) { /* a = M/dt + K: the same structure, entry by entry */
    PM_TRY(pm_fem_mass(l, pr, kind, m));
    for (int32_t i = 0; i < n; i++) a->d[i] += m->d[i] / dt;
    for (int32_t k = 0; k < a->index[n]; k++) a->amat[k] += m->amat[k] / dt;
  }
  if (eliminate)
    PM_TRY(pm_dirichlet_eliminate(l, fixed, u, a, m, b, n_fixed));
  else
    *n_fixed = 0;
cleanup:
  exprs_free(fx, src.n);
  exprs_free(kx, cond.n);
  free(fixed);
  return ierr;
}

int pm_fem_assemble(const pm_local_t *l, const pm_problem_t *pr, pm_csr_t *a, double *b, double *u, int64_t *n_fixed) {
  return assemble(l, pr, PM_MASS_CONSISTENT, 0.0, 0.0, 1, a, NULL, b, u, n_fixed);
}

int pm_fem_assemble_transient(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, double dt, pm_csr_t *a,
                              pm_csr_t *m, double *b, double *u, int64_t *n_fixed) {
  PM_CHECK(m, PM_ERR_ARG, "pm_fem_assemble_transient: no mass matrix");
  return assemble(l, pr, kind, dt, 0.0, 1, a, m, b, u, n_fixed);
}

int pm_fem_assemble_operator(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, double dt, pm_csr_t *a,
                             pm_csr_t *m) {
  int ierr = PM_OK;
  double *b = NULL, *u = NULL;
  int64_t nf = 0;
  PM_CHECK(m, PM_ERR_ARG, "pm_fem_assemble_operator: no mass matrix");
  PM_TRY(PM_MALLOC(b, l->n_internal > 0 ? l->n_internal : 1, "load (discarded)"));
  PM_TRY(PM_MALLOC(u, l->n_total > 0 ? l->n_total : 1, "Dirichlet values (discarded)"));
  ierr = assemble(l, pr, kind, dt, 0.0, 0, a, m, b, u, &nf);
cleanup:
  free(b);
  free(u);
  return ierr;
}

/* The element loads of the FEM into f [N]. */
static int load_fem(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                    const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, double *f) {
  int ierr = PM_OK;
  int32_t n = l->n_internal;
  elem_expr_t fe = {0}, ke = {0};
  PM_TRY(per_element(l, src, fx, &fe, "source"));
  PM_TRY(per_element(l, cond, kx, &ke, "conductivity"));
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    double K[PM_ELEMENT_NV][PM_ELEMENT_NV], F[PM_ELEMENT_NV];
    PM_TRY(element_matrices(l, pr, &ke, &fe, e, K, F));
    for (int i = 0; i < nv; i++)
      if (l->elem_node[k0 + i] < n) f[l->elem_node[k0 + i]] += F[i];
  }
cleanup:
  free(fe.each);
  free(ke.each);
  return ierr;
}

int pm_fem_load(const pm_local_t *l, const pm_problem_t *pr, double t, double *f) {
  PM_CALL(pm_element_need(l));
  int ierr = PM_OK;
  pm_expr_t **fx = NULL, **kx = NULL;
  pm_problem_list_t src, cond;
  data_lists(pr, &src, &cond);
  memset(f, 0, (size_t)l->n_internal * sizeof *f);
  PM_TRY(compile_data(&src, &cond, t, &fx, &kx));
  if (pr->scheme != PM_SCHEME_FEM) { /* the source at the nodes, as pm_fdm_assemble puts it */
    PM_TRY(pm_fdm_load(l, pr, &src, fx, f));
    goto cleanup;
  }
  PM_TRY(load_fem(l, pr, &src, &cond, fx, kx, f));
  PM_TRY(pm_bc_neumann(l, pr, t, f));
  PM_TRY(pm_bc_robin(l, pr, t, NULL, f, NULL));
cleanup:
  exprs_free(fx, src.n);
  exprs_free(kx, cond.n);
  return ierr;
}
