/* pm_fdm.c - the finite-difference schemes on an axis-aligned structured grid of quadrangles
 * (5 points, fdm5) or box of hexahedra (7 points, fdm7): their matrix and their load (the source
 * at the nodes).  One code for both: the stencil has two neighbours along each of the mesh's
 * axes, found in the matrix's edge pattern. */
#include "pm_fdm.h"

#include <math.h>

#include "pm_element.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"

/* The scheme's name and dimension (2: fdm5, 3: fdm7). */
static const char *scheme_name(const pm_problem_t *pr, int *dim) {
  *dim = pr->scheme == PM_SCHEME_FDM7 ? 3 : 2;
  return pm_scheme_name(pr->scheme);
}

/* What the schemes take: Dirichlet conditions, one source and one conductivity. */
static int check_data(const pm_problem_t *pr, const char *name, const pm_problem_list_t *src,
                      const pm_problem_list_t *cond) {
  PM_CHECK(pr->neumann.n == 0 && pr->robin_h.n == 0, PM_ERR_ARG,
           "the %s scheme takes Dirichlet conditions only (no Neumann flux, no Robin condition: use the fem scheme)",
           name);
  for (int i = 0; i < src->n; i++)
    PM_CHECK(!src->e[i].group, PM_ERR_ARG, "the %s scheme takes one source for the whole grid (no group)", name);
  for (int i = 0; i < cond->n; i++)
    PM_CHECK(!cond->e[i].group, PM_ERR_ARG, "the %s scheme takes one conductivity for the whole grid (no group)", name);
  return PM_OK;
}

/* Every element is the grid's cell: a quadrangle in 2D, a hexahedron in 3D (the table's cell of
 * the dimension with 2^dim vertices). */
static int check_cells(const pm_local_t *l, const char *name, int dim) {
  for (int32_t e = 0; e < l->n_elems; e++) {
    const pm_cell_t *c = pm_cell_gmsh(l->elem_type[e]);
    PM_CHECK(c && c->dim == dim && c->n_verts == 1 << dim, PM_ERR_ARG,
             "the %s scheme: element %lld is a %s: the %d-point scheme needs an axis-aligned %s of %s (%s)", name,
             (long long)l->elem_gid[e], c ? c->name : "cell of an unknown type", 2 * dim + 1, dim == 3 ? "box" : "grid",
             dim == 3 ? "hexahedra" : "quadrangles",
             dim == 3 ? "meshgen box, without --tet or --prism" : "meshgen grid, without --tri");
  }
  return PM_OK;
}

/* The axis (0, 1, 2) along which the step d lies, or -1 when it is no grid line. */
static int step_axis(const double d[3], double h) {
  int axis = -1;
  for (int k = 0; k < 3; k++) {
    if (fabs(d[k]) <= 1e-12 * h) continue;
    if (axis >= 0) return -1;
    axis = k;
  }
  return axis;
}

/* a_ij = -k(midpoint)/h_ij^2 and d_i = sum k/h^2 over the grid neighbours of row i, each axis's
 * two at one spacing; a node without two neighbours on each axis needs a Dirichlet value. */
static int stencil_row(const pm_local_t *l, const char *name, int dim, const pm_expr_t *k, pm_csr_t *a, int32_t i,
                       const char *fixed) {
  const double *xi = l->xyz + 3 * i;
  int cnt[3] = {0, 0, 0};
  double hh[3] = {-1, -1, -1};
  for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) {
    const double *xj = l->xyz + 3 * a->item[q];
    double d[3] = {xj[0] - xi[0], xj[1] - xi[1], xj[2] - xi[2]}, mid[3], kv;
    double h = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    int ax = h > 0 ? step_axis(d, h) : -1;
    PM_CHECK(ax >= 0 && ax < dim, PM_ERR_ARG,
             "%s scheme: nodes %lld and %lld are not on a grid line: the %d-point scheme needs an axis-aligned "
             "structured %s (%s)",
             name, (long long)l->gid[i], (long long)l->gid[a->item[q]], 2 * dim + 1,
             dim == 3 ? "box of hexahedra" : "grid of quadrangles", dim == 3 ? "meshgen box" : "meshgen grid");
    PM_CHECK(hh[ax] < 0 || fabs(hh[ax] - h) <= 1e-9 * h, PM_ERR_ARG,
             "%s scheme: node %lld has unequal grid spacings %g and %g along %c", name, (long long)l->gid[i], hh[ax], h,
             "xyz"[ax]);
    hh[ax] = h;
    cnt[ax]++;
    for (int c = 0; c < 3; c++) mid[c] = 0.5 * (xi[c] + xj[c]);
    PM_CALL(pm_element_eval(k, mid, "the conductivity", &kv));
    a->amat[q] = -kv / (h * h);
    a->d[i] += kv / (h * h);
  }
  int full = cnt[0] == 2 && cnt[1] == 2 && (dim < 3 || cnt[2] == 2);
  if (dim == 3)
    PM_CHECK(fixed[i] || full, PM_ERR_ARG,
             "%s scheme: node %lld at (%g, %g, %g) has %d, %d and %d grid neighbours along x, y and z but no "
             "Dirichlet value: put a Dirichlet condition on the whole boundary of the box",
             name, (long long)l->gid[i], xi[0], xi[1], xi[2], cnt[0], cnt[1], cnt[2]);
  else
    PM_CHECK(fixed[i] || full, PM_ERR_ARG,
             "%s scheme: node %lld at (%g, %g) has %d grid neighbours along x and %d along y but no Dirichlet "
             "value: put a Dirichlet condition on the whole boundary of the grid",
             name, (long long)l->gid[i], xi[0], xi[1], cnt[0], cnt[1]);
  return PM_OK;
}

int pm_fdm_assemble(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                    const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, pm_csr_t *a, double *b,
                    const char *fixed) {
  int dim;
  const char *name = scheme_name(pr, &dim);
  PM_CALL(check_data(pr, name, src, cond));
  PM_CALL(check_cells(l, name, dim));
  const pm_expr_t *f = fx[src->n - 1], *k = kx[cond->n - 1];
  for (int32_t i = 0; i < a->n; i++) {
    PM_CALL(pm_element_eval(f, l->xyz + 3 * i, "the source", &b[i]));
    PM_CALL(stencil_row(l, name, dim, k, a, i, fixed));
  }
  return PM_OK;
}

int pm_fdm_load(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src, pm_expr_t **fx, double *f) {
  int dim;
  const char *name = scheme_name(pr, &dim);
  PM_CALL(check_data(pr, name, src, &(pm_problem_list_t){0, 0, NULL}));
  for (int32_t i = 0; i < l->n_internal; i++)
    PM_CALL(pm_element_eval(fx[src->n - 1], l->xyz + 3 * i, "the source", &f[i]));
  return PM_OK;
}
