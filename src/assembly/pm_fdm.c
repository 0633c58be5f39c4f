/* pm_fdm.c - the 5-point finite-difference scheme on an axis-aligned structured grid: its
 * matrix and its load (the source at the nodes). */
#include "pm_fdm.h"

#include <math.h>

#include "pm_element.h"
#include "pmesh/pm_error.h"

/* The 5-point scheme: each unknown node needs two neighbours along x and two along y at equal
 * distances (a structured grid); a_ij = -k(midpoint)/h_ij^2, d_i = sum k/h^2, b_i = f(x_i). */
int pm_fdm5_assemble(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                     const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, pm_csr_t *a, double *b,
                     const char *fixed) {
  PM_CHECK(pr->neumann.n == 0, PM_ERR_ARG, "the fdm5 scheme takes Dirichlet conditions only (no Neumann flux)");
  for (int i = 0; i < src->n; i++)
    PM_CHECK(!src->e[i].group, PM_ERR_ARG, "the fdm5 scheme takes one source for the whole grid (no group)");
  for (int i = 0; i < cond->n; i++)
    PM_CHECK(!cond->e[i].group, PM_ERR_ARG, "the fdm5 scheme takes one conductivity for the whole grid (no group)");
  const pm_expr_t *f = fx[src->n - 1], *k = kx[cond->n - 1];
  for (int32_t i = 0; i < a->n; i++) {
    const double *xi = l->xyz + 3 * i;
    double fv, kv, mid[3];
    PM_CALL(pm_element_eval(f, xi, "the source", &fv));
    b[i] = fv;
    int nx = 0, ny = 0;
    double hx = -1, hy = -1;
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) {
      const double *xj = l->xyz + 3 * a->item[q];
      double dx = xj[0] - xi[0], dy = xj[1] - xi[1], h = sqrt(dx * dx + dy * dy);
      int along_x = fabs(dy) <= 1e-12 * h, along_y = fabs(dx) <= 1e-12 * h;
      PM_CHECK(h > 0 && (along_x || along_y), PM_ERR_ARG,
               "fdm5 scheme: nodes %lld and %lld are not on a grid line: the 5-point scheme needs an axis-aligned "
               "structured grid of quadrangles (meshgen grid)",
               (long long)l->gid[i], (long long)l->gid[a->item[q]]);
      double *hh = along_x ? &hx : &hy;
      PM_CHECK(*hh < 0 || fabs(*hh - h) <= 1e-9 * h, PM_ERR_ARG,
               "fdm5 scheme: node %lld has unequal grid spacings %g and %g", (long long)l->gid[i], *hh, h);
      *hh = h;
      nx += along_x;
      ny += along_y;
      for (int d = 0; d < 3; d++) mid[d] = 0.5 * (xi[d] + xj[d]);
      PM_CALL(pm_element_eval(k, mid, "the conductivity", &kv));
      a->amat[q] = -kv / (h * h);
      a->d[i] += kv / (h * h);
    }
    PM_CHECK(fixed[i] || (nx == 2 && ny == 2), PM_ERR_ARG,
             "fdm5 scheme: node %lld at (%g, %g) has %d grid neighbours along x and %d along y but no Dirichlet "
             "value: put a Dirichlet condition on the whole boundary of the grid",
             (long long)l->gid[i], xi[0], xi[1], nx, ny);
  }
  return PM_OK;
}

int pm_fdm5_load(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src, pm_expr_t **fx, double *f) {
  PM_CHECK(pr->neumann.n == 0 && pr->robin_h.n == 0, PM_ERR_ARG,
           "the fdm5 scheme takes Dirichlet conditions only (no Neumann flux, no Robin condition)");
  for (int i = 0; i < src->n; i++)
    PM_CHECK(!src->e[i].group, PM_ERR_ARG, "the fdm5 scheme takes one source for the whole grid (no group)");
  for (int32_t i = 0; i < l->n_internal; i++)
    PM_CALL(pm_element_eval(fx[src->n - 1], l->xyz + 3 * i, "the source", &f[i]));
  return PM_OK;
}
