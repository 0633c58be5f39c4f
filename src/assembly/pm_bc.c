/* pm_bc.c - the natural boundary conditions on boundary-face groups: Neumann fluxes into the
 * load, Robin conditions into the matrix and the load. */
#include "pm_bc.h"

#include <math.h>

#include "pm_element.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"

int pm_bc_neumann(const pm_local_t *l, const pm_problem_t *pr, double t, double *b) {
  for (int i = 0; i < pr->neumann.n; i++) {
    int g = pm_local_find_group(l, pr->neumann.e[i].group);
    PM_CHECK(g >= 0, PM_ERR_ARG, "the Neumann flux on '%s': no group of that name", pr->neumann.e[i].group);
    const pm_local_group_t *G = &l->groups[g];
    pm_expr_t *ex = NULL;
    PM_CALL(pm_expr_create_value(pr->neumann.e[i].value, &ex));
    pm_expr_set_time(ex, t);
    int ierr = PM_OK;
    for (int32_t f = 0; f < G->n_faces && !ierr; f++) {
      int32_t k0 = G->face_ptr[f];
      int nv = G->face_ptr[f + 1] - k0;
      double v;
      if (nv == 1) { /* a point of a 1D bar: the flux times the cross-section */
        int32_t a = G->face_node[k0];
        ierr = pm_element_eval(ex, l->xyz + 3 * a, "the Neumann flux", &v);
        if (!ierr && a < l->n_internal) b[a] += v * pr->area;
      } else if (nv == 2) { /* a boundary line: 2-point Gauss */
        const double *X0 = l->xyz + 3 * G->face_node[k0], *X1 = l->xyz + 3 * G->face_node[k0 + 1];
        double L = sqrt((X1[0] - X0[0]) * (X1[0] - X0[0]) + (X1[1] - X0[1]) * (X1[1] - X0[1]) +
                        (X1[2] - X0[2]) * (X1[2] - X0[2]));
        const double *gq = pm_element_gauss2;
        for (int q = 0; q < 2 && !ierr; q++) {
          double p[3];
          for (int d = 0; d < 3; d++) p[d] = X0[d] + gq[q] * (X1[d] - X0[d]);
          ierr = pm_element_eval(ex, p, "the Neumann flux", &v);
          int32_t n0 = G->face_node[k0], n1 = G->face_node[k0 + 1];
          if (!ierr && n0 < l->n_internal) b[n0] += 0.5 * L * v * (1 - gq[q]);
          if (!ierr && n1 < l->n_internal) b[n1] += 0.5 * L * v * gq[q];
        }
      } else {
        ierr =
            pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                         "the Neumann flux on '%s': the group has %d-node faces; fluxes go on boundary lines (2D) or "
                         "end points (1D)",
                         G->name, nv);
      }
    }
    pm_expr_destroy(&ex);
    PM_CALL(ierr);
  }
  return PM_OK;
}

int pm_bc_robin(const pm_local_t *l, const pm_problem_t *pr, double t, pm_csr_t *a, double *b, double *h_int) {
  const double *gq = pm_element_gauss2;
  int32_t n = l->n_internal;
  if (h_int) *h_int = 0.0;
  for (int i = 0; i < pr->robin_h.n; i++) {
    const char *name = pr->robin_h.e[i].group;
    int g = pm_local_find_group(l, name);
    PM_CHECK(g >= 0, PM_ERR_ARG, "the Robin condition on '%s': no group of that name", name);
    const pm_local_group_t *G = &l->groups[g];
    pm_expr_t *hx = NULL, *ux = NULL;
    int ierr = pm_expr_create_value(pr->robin_h.e[i].value, &hx);
    if (!ierr) ierr = pm_expr_create_value(pr->robin_uinf.e[i].value, &ux);
    if (!ierr) pm_expr_set_time(ux, t);
    if (!ierr && pm_expr_depends_on_time(hx))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                          "the Robin condition on '%s': the coefficient h '%s' depends on the time t; it must be "
                          "constant in time (u_inf may depend on t)",
                          name, pm_value_text(pr->robin_h.e[i].value));
    for (int32_t f = 0; f < G->n_faces && !ierr; f++) {
      int32_t k0 = G->face_ptr[f];
      int nv = G->face_ptr[f + 1] - k0, nq = nv == 1 ? 1 : 2;
      const int32_t *fn = G->face_node + k0;
      if (nv != 1 && nv != 2) {
        ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                            "the Robin condition on '%s': the group has %d-node faces; Robin conditions go on "
                            "boundary lines (2D) or end points (1D)",
                            name, nv);
        break;
      }
      if (fn[0] >= n && (nv == 1 || fn[1] >= n)) continue; /* no row of this rank */
      const double *X0 = l->xyz + 3 * fn[0], *X1 = l->xyz + 3 * fn[nv - 1];
      double meas = pr->area; /* a point: the cross-section */
      if (nv == 2)
        meas = sqrt((X1[0] - X0[0]) * (X1[0] - X0[0]) + (X1[1] - X0[1]) * (X1[1] - X0[1]) +
                    (X1[2] - X0[2]) * (X1[2] - X0[2]));
      for (int q = 0; q < nq && !ierr; q++) {
        double p[3], hv, uv, w = meas / nq, phi[2] = {1 - gq[q], gq[q]};
        if (nv == 1) phi[0] = 1.0;
        for (int d = 0; d < 3; d++) p[d] = X0[d] + phi[1] * (X1[d] - X0[d]) * (nv == 2);
        ierr = pm_element_eval(hx, p, "the Robin coefficient h", &hv);
        if (!ierr && hv < 0)
          ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                              "the Robin condition on '%s': the coefficient h '%s' is %g at (%g, %g, %g); h must be "
                              ">= 0 (a negative h makes the operator indefinite: the boundary would gain heat in "
                              "proportion to its temperature)",
                              name, pm_value_text(pr->robin_h.e[i].value), hv, p[0], p[1], p[2]);
        if (!ierr) ierr = pm_element_eval(ux, p, "the Robin outside value u_inf", &uv);
        if (!ierr && h_int) *h_int += w * hv;
        for (int r = 0; r < nv && !ierr; r++) {
          if (fn[r] >= n) continue;
          if (b) b[fn[r]] += w * hv * uv * phi[r];
          for (int c = 0; c < nv && a && !ierr; c++)
            ierr = pm_element_add(a, l, fn[r], fn[c], w * hv * phi[r] * phi[c]);
        }
      }
    }
    pm_expr_destroy(&hx);
    pm_expr_destroy(&ux);
    PM_CALL(ierr);
  }
  return PM_OK;
}

int pm_fem_robin_integral(const pm_local_t *l, const pm_problem_t *pr, double *h_int) {
  *h_int = 0.0;
  if (pr->scheme != PM_SCHEME_FEM) return PM_OK; /* the assembly refuses Robin conditions there */
  return pm_bc_robin(l, pr, 0.0, NULL, NULL, h_int);
}
