/* pm_fine_cells.c - the children's matrices of the matrix-free finest level's hexahedra and
 * prisms (pm_fine_cells.h). */
#include "pm_fine_cells.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pm_element.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_expr.h"

/* The floats of one coarse element of cell t: each child's pairs. */
static int64_t cell_floats(const pm_cell_t *t) {
  return (int64_t)t->n_children * t->n_verts * (t->n_verts - 1) / 2;
}

/* Element e's children's pair weights -K(a, b) (conductivity ke) into K, in single precision.
 * Local. */
static int element_matrices(const pm_local_t *c, const pm_local_t *f, const pm_refine_points_t *pt, int32_t e,
                            const pm_cell_t *t, double ke, const pm_expr_t *one, const pm_expr_t *zero, float *K) {
  const int nv = t->n_verts;
  for (int ch = 0; ch < t->n_children; ch++) {
    int32_t v[PM_CELL_MAX_VERTS];
    double A[PM_ELEMENT_NV][PM_ELEMENT_NV], F[PM_ELEMENT_NV];
    const double *X[PM_CELL_MAX_VERTS];
    if (pm_refine_points_child(c, pt, e, ch, v) != nv) { /* points this rank lacks: no row here */
      for (int64_t j = 0; j < (int64_t)nv * (nv - 1) / 2; j++) *K++ = 0.0f;
      continue;
    }
    for (int j = 0; j < nv; j++) X[j] = f->xyz + 3 * (int64_t)v[j];
    int ierr = pm_element_stiffness_at(t, X, one, zero, 1.0, A, F);
    if (ierr) {
      char prefix[160];
      snprintf(prefix, sizeof prefix, "child %d of element %lld (%s): ", ch, (long long)c->elem_gid[e], t->name);
      pm_error_prefix(prefix);
      return ierr;
    }
    for (int a = 0; a < nv; a++)
      for (int b = a + 1; b < nv; b++) {
        double d = -ke * A[a][b];
        float s = (float)d;
        PM_CHECK(isfinite(s) && (s != 0 || d == 0), PM_ERR_ARG,
                 "element %lld: an entry %g of a child's matrix (conductivity %g) is outside single precision's "
                 "range; use --fine-operator assembled (or coordinates in other units)",
                 (long long)c->elem_gid[e], d, ke);
        *K++ = s;
      }
  }
  return PM_OK;
}

int pm_fine_cells_create(const pm_local_t *c, const pm_local_t *f, const pm_refine_points_t *pt, const double *k,
                         double k_all, pm_fine_cells_t *fc) {
  int ierr = PM_OK;
  int64_t total = 0;
  pm_expr_t *one = NULL, *zero = NULL;
  fc->at = NULL;
  fc->k = NULL;
  for (int32_t e = 0; e < c->n_elems; e++)
    if (c->elem_type[e] != PM_FINE_TET) {
      const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
      PM_CHECK(t && t->dim == 3 && t->n_fixed == t->n_children && t->n_refined <= PM_CELL_MAX_REFINED,
               PM_ERR_UNSUPPORTED, "--fine-operator matrix-free: element %lld is a %s, not a tetrahedron, hexahedron or prism",
               (long long)c->elem_gid[e], t ? t->name : "cell pmesh does not know");
      total += cell_floats(t);
    }
  if (total == 0) return PM_OK; /* tetrahedra only */
  PM_TRY(PM_MALLOC(fc->at, (int64_t)c->n_elems + 1, "matrix-free cell offsets"));
  PM_TRY(PM_MALLOC(fc->k, total, "matrix-free children's matrices"));
  PM_TRY(pm_expr_create("1", &one)); /* the conductivity is a constant per element, applied after */
  PM_TRY(pm_expr_create("0", &zero));
  total = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    if (c->elem_type[e] == PM_FINE_TET) {
      fc->at[e] = -1;
      continue;
    }
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    fc->at[e] = total;
    PM_TRY(element_matrices(c, f, pt, e, t, k ? k[e] : k_all, one, zero, fc->k + total));
    total += cell_floats(t);
  }
cleanup:
  pm_expr_destroy(&one);
  pm_expr_destroy(&zero);
  if (ierr) pm_fine_cells_free(fc);
  return ierr;
}

void pm_fine_cells_free(pm_fine_cells_t *fc) {
  free(fc->at);
  free(fc->k);
  fc->at = NULL;
  fc->k = NULL;
}
