/* pm_mass.c - the mass matrix (consistent or lumped) and the lumped node weights of discrete L2
 * norms. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pm_element.h"
#include "pm_problem_int.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_msh.h"

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
    double M[4][4];
    int ierr = pm_element_mass(l, e, l->elem_type[e] == PM_MSH_LINE ? pr->area : 1.0, M);
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

int pm_fem_node_weights(const pm_local_t *l, double *w) {
  PM_CALL(pm_element_need(l));
  memset(w, 0, (size_t)l->n_internal * sizeof *w);
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    const double *X[4];
    for (int a = 0; a < nv; a++) X[a] = l->xyz + 3 * l->elem_node[k0 + a];
    double m;
    if (nv == 2) {
      m = sqrt((X[1][0] - X[0][0]) * (X[1][0] - X[0][0]) + (X[1][1] - X[0][1]) * (X[1][1] - X[0][1]) +
               (X[1][2] - X[0][2]) * (X[1][2] - X[0][2]));
    } else { /* polygon area (shoelace) */
      m = 0;
      for (int a = 0; a < nv; a++) {
        const double *P = X[a], *Q = X[(a + 1) % nv];
        m += P[0] * Q[1] - Q[0] * P[1];
      }
      m = 0.5 * fabs(m);
    }
    for (int a = 0; a < nv; a++)
      if (l->elem_node[k0 + a] < l->n_internal) w[l->elem_node[k0 + a]] += m / nv;
  }
  return PM_OK;
}
