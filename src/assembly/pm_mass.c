/* pm_mass.c - the mass matrix (consistent or lumped) and the lumped node weights of discrete L2
 * norms. */
#include <stdio.h>
#include <string.h>

#include "pm_element.h"
#include "pm_problem_int.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"

int pm_fem_mass(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, pm_csr_t *m) {
  PM_CALL(pm_element_need(l));
  int32_t n = l->n_internal;
  memset(m->d, 0, (size_t)n * sizeof *m->d);
  memset(m->amat, 0, (size_t)m->index[n] * sizeof *m->amat);
  if (pr->scheme != PM_SCHEME_FEM) {
    PM_CHECK(kind == PM_MASS_LUMPED, PM_ERR_ARG,
             "the %s scheme has no consistent mass matrix (its mass is the nodal value, the identity): use "
             "the lumped mass",
             pm_scheme_name(pr->scheme));
    for (int32_t i = 0; i < n; i++) m->d[i] = 1.0;
    return PM_OK;
  }
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    double M[PM_ELEMENT_NV][PM_ELEMENT_NV];
    int ierr = pm_element_mass(l, e, pr->area, M);
    if (ierr) {
      char prefix[128];
      snprintf(prefix, sizeof prefix, "element %lld: ", (long long)l->elem_gid[e]);
      pm_error_prefix(prefix);
      return ierr;
    }
    for (int i = 0; i < nv; i++) {
      int32_t r = l->elem_node[k0 + i];
      if (r >= n) continue;
      for (int j = 0; j < nv; j++) PM_CALL(pm_element_add(m, l, r, l->elem_node[k0 + j], M[i][j]));
    }
  }
  if (kind == PM_MASS_LUMPED) /* every element of an internal node is local: its row is complete */
    for (int32_t i = 0; i < n; i++)
      for (int32_t k = m->index[i]; k < m->index[i + 1]; k++) {
        m->d[i] += m->amat[k];
        m->amat[k] = 0.0;
      }
  return PM_OK;
}

/* A cell's measure, by its quadrature (exact for the multilinear Jacobian of every cell in the
 * table), split equally between its vertices. */
int pm_fem_node_weights(const pm_local_t *l, double *w) {
  PM_CALL(pm_element_need(l));
  memset(w, 0, (size_t)l->n_internal * sizeof *w);
  for (int32_t e = 0; e < l->n_elems; e++) {
    const pm_cell_t *c;
    const double *X[PM_CELL_MAX_VERTS];
    pm_element_qp_t g;
    int ierr = pm_element_cell(l, e, &c, X);
    if (!ierr) ierr = pm_element_geometry(c, X, 0, &g);
    if (ierr) {
      char prefix[128];
      snprintf(prefix, sizeof prefix, "element %lld: ", (long long)l->elem_gid[e]);
      pm_error_prefix(prefix);
      return ierr;
    }
    double m = 0;
    for (int q = 0; q < g.n_qp; q++) m += g.w[q];
    int32_t k0 = l->elem_ptr[e];
    for (int a = 0; a < c->n_verts; a++)
      if (l->elem_node[k0 + a] < l->n_internal) w[l->elem_node[k0 + a]] += m / c->n_verts;
  }
  return PM_OK;
}
