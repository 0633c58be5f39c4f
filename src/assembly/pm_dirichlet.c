/* pm_dirichlet.c - Dirichlet conditions: the values on the nodes of their groups, and their
 * symmetric elimination from an assembled system. */
#include "pm_dirichlet.h"

#include <string.h>

#include "pm_element.h"
#include "pm_problem_int.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"

int pm_fem_dirichlet(const pm_local_t *l, const pm_problem_t *pr, double t, char *fixed, double *u) {
  int ierr = PM_OK;
  int32_t np = l->n_total;
  pm_expr_t *dx = NULL;
  memset(fixed, 0, (size_t)np);
  for (int i = 0; i < pr->dirichlet.n; i++) {
    int g = pm_local_find_group(l, pr->dirichlet.e[i].group);
    PM_TRY_CHECK(g >= 0, PM_ERR_ARG, "the Dirichlet condition on '%s': no group of that name",
                 pr->dirichlet.e[i].group);
    PM_TRY(pm_expr_create_value(pr->dirichlet.e[i].value, &dx));
    pm_expr_set_time(dx, t);
    const pm_local_group_t *G = &l->groups[g];
    for (int32_t k = 0; k < G->n_nodes; k++) {
      int32_t v = G->nodes[k];
      if (v >= np) continue; /* auxiliary nodes are no unknowns */
      PM_TRY(pm_element_eval(dx, l->xyz + 3 * v, "the Dirichlet value", &u[v]));
      fixed[v] = 1;
    }
    pm_expr_destroy(&dx);
  }
cleanup:
  pm_expr_destroy(&dx);
  return ierr;
}

/* Fixed rows become identity rows, fixed columns move to the right (with M/dt included: the
 * Dirichlet values are constant in time).  M loses the rows and columns of fixed nodes, so
 * (M u^n)/dt adds nothing to fixed rows and does not read u^n there. */
int pm_dirichlet_eliminate(const pm_local_t *l, const char *fixed, const double *u, pm_csr_t *a, pm_csr_t *m, double *b,
                           int64_t *n_fixed) {
  int32_t n = l->n_internal;
  int64_t nf = 0;
  for (int32_t i = 0; i < n; i++) {
    if (fixed[i]) {
      a->d[i] = 1.0;
      b[i] = u[i];
      for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) a->amat[k] = 0.0;
      if (m) {
        m->d[i] = 0.0;
        for (int32_t k = m->index[i]; k < m->index[i + 1]; k++) m->amat[k] = 0.0;
      }
      nf++;
      continue;
    }
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) {
      int32_t c = a->item[k];
      if (fixed[c]) {
        b[i] -= a->amat[k] * u[c];
        a->amat[k] = 0.0;
        if (m) m->amat[k] = 0.0;
      }
    }
    PM_CHECK(a->d[i] > 0, PM_ERR_ARG, "node %lld: diagonal %g is not positive (is the conductivity positive?)",
             (long long)l->gid[i], a->d[i]);
  }
  *n_fixed = nf;
  return PM_OK;
}
