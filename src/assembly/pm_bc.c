/* pm_bc.c - the natural boundary conditions on boundary-face groups: Neumann fluxes into the
 * load, Robin conditions into the matrix and the load. */
#include "pm_bc.h"

#include <stdio.h>

#include "pm_element.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"

/* Face f of group G: its nodes and its map at the quadrature points of its table entry (an end
 * point of a 1D bar weighted by the cross-section).  Errors name the face. */
static int face_map(const pm_local_t *l, const pm_local_group_t *G, int32_t f, double area, const int32_t **fn,
                    pm_element_qp_t *g) {
  int32_t k0 = G->face_ptr[f];
  int nv = G->face_ptr[f + 1] - k0;
  const pm_cell_t *c = pm_cell_gmsh(G->face_type[f]);
  const double *X[PM_CELL_MAX_VERTS];
  *fn = G->face_node + k0;
  const pm_cell_t *cell = l->n_elems > 0 ? pm_cell_gmsh(l->elem_type[0]) : NULL;
  int ierr = PM_OK, dim = cell ? cell->dim : c ? c->dim + 1 : 0;
  if (!c || nv != c->n_verts || c->dim != dim - 1)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "%s faces (type %d, %d nodes) in a %dD mesh: fluxes and Robin conditions go on boundary faces "
                        "(end points in 1D, lines in 2D, triangles and quadrangles in 3D)",
                        c ? c->name : "unknown", G->face_type[f], nv, dim);
  for (int a = 0; !ierr && a < nv; a++) X[a] = l->xyz + 3 * (*fn)[a];
  if (!ierr) ierr = pm_element_geometry(c, X, 0, g);
  if (ierr) {
    char prefix[160];
    snprintf(prefix, sizeof prefix, "group '%s', face %lld: ", G->name, (long long)G->face_gid[f]);
    pm_error_prefix(prefix);
    return ierr;
  }
  if (c->dim == 0)
    for (int q = 0; q < g->n_qp; q++) g->w[q] *= area;
  return PM_OK;
}

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
      const int32_t *fn;
      pm_element_qp_t m;
      ierr = face_map(l, G, f, pr->area, &fn, &m);
      for (int q = 0; q < m.n_qp && !ierr; q++) {
        double v;
        ierr = pm_element_eval(ex, m.p[q], "the Neumann flux", &v);
        for (int a = 0; a < m.nv && !ierr; a++)
          if (fn[a] < l->n_internal) b[fn[a]] += v * m.phi[q][a] * m.w[q];
      }
    }
    pm_expr_destroy(&ex);
    PM_CALL(ierr);
  }
  return PM_OK;
}

/* The Robin terms of one quadrature point of a face (see pm_bc_robin). */
static int robin_point(const pm_local_t *l, const char *name, pm_value_t hval, const pm_expr_t *hx,
                       const pm_expr_t *ux, const int32_t *fn, const pm_element_qp_t *m, int q, pm_csr_t *a,
                       double *b, double *h_int) {
  double hv, uv, w = m->w[q];
  const double *p = m->p[q], *phi = m->phi[q];
  PM_CALL(pm_element_eval(hx, p, "the Robin coefficient h", &hv));
  PM_CHECK(hv >= 0, PM_ERR_ARG,
           "the Robin condition on '%s': the coefficient h '%s' is %g at (%g, %g, %g); h must be >= 0 (a negative "
           "h makes the operator indefinite: the boundary would gain heat in proportion to its temperature)",
           name, pm_value_text(hval), hv, p[0], p[1], p[2]);
  PM_CALL(pm_element_eval(ux, p, "the Robin outside value u_inf", &uv));
  if (h_int) *h_int += w * hv;
  for (int r = 0; r < m->nv; r++) {
    if (fn[r] >= l->n_internal) continue;
    if (b) b[fn[r]] += w * hv * uv * phi[r];
    for (int c = 0; c < m->nv && a; c++) PM_CALL(pm_element_add(a, l, fn[r], fn[c], w * hv * phi[r] * phi[c]));
  }
  return PM_OK;
}

int pm_bc_robin(const pm_local_t *l, const pm_problem_t *pr, double t, pm_csr_t *a, double *b, double *h_int) {
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
      int32_t k0 = G->face_ptr[f], nv = G->face_ptr[f + 1] - k0, mine = 0;
      for (int32_t r = 0; r < nv; r++) mine |= G->face_node[k0 + r] < l->n_internal;
      if (!mine) continue; /* no row of this rank */
      const int32_t *fn;
      pm_element_qp_t m;
      ierr = face_map(l, G, f, pr->area, &fn, &m);
      for (int q = 0; q < m.n_qp && !ierr; q++)
        ierr = robin_point(l, name, pr->robin_h.e[i].value, hx, ux, fn, &m, q, a, b, h_int);
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
