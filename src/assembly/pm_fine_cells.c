/* pm_fine_cells.c - the pair weights of the matrix-free finest level's hexahedra and prisms
 * (pm_fine_cells.h). */
#include "pm_fine_cells.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pm_element.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_expr.h"

/* A cell's pairs (pm_fine_cells.h's constants) and where each child's pair (a, b), a < b, goes. */
typedef struct pairs {
  const int8_t (*pair)[2];
  int n;
  int16_t slot[PM_CELL_MAX_CHILDREN][PM_CELL_MAX_VERTS][PM_CELL_MAX_VERTS];
} pairs_t;

/* Cell t's pairs: the constants of its Gmsh code, checked against the table's children (the same
 * pairs, met in the same order).  PM_ERR_INCONSISTENT when the table gives others. */
static int make_pairs(const pm_cell_t *t, int code, pairs_t *P) {
  int hex = code == PM_FINE_HEX;
  P->pair = hex ? PM_FINE_HEX_PAIRS : PM_FINE_PRISM_PAIRS;
  P->n = hex ? PM_FINE_HEX_PAIRS_N : PM_FINE_PRISM_PAIRS_N;
  int n = 0, ok = t->n_refined == (hex ? PM_FINE_HEX_POINTS : PM_FINE_PRISM_POINTS) &&
                  t->n_verts == (hex ? PM_FINE_HEX_VERTS : PM_FINE_PRISM_VERTS);
  for (int ch = 0; ok && ch < t->n_children; ch++)
    for (int a = 0; ok && a < t->n_verts; a++)
      for (int b = a + 1; ok && b < t->n_verts; b++) {
        int p = t->child[ch][a], q = t->child[ch][b], lo = p < q ? p : q, hi = p < q ? q : p, j = 0;
        while (j < n && !(P->pair[j][0] == lo && P->pair[j][1] == hi)) j++;
        if (j == n) ok = n < P->n && P->pair[n][0] == lo && P->pair[n++][1] == hi;
        P->slot[ch][a][b] = (int16_t)j;
      }
  PM_CHECK(ok && n == P->n, PM_ERR_INCONSISTENT,
           "the cell table's %s children no longer give the pairs pm_fine_cells.h lists", t->name);
  return PM_OK;
}

/* Element e's pair weights (conductivity ke) into W, in single precision: each child's -K(a, b)
 * summed in double into the pair of its points, then rounded.  Local. */
static int element_weights(const pm_local_t *c, const pm_local_t *f, const pm_refine_points_t *pt, int32_t e,
                           const pm_cell_t *t, const pairs_t *P, double ke, const pm_expr_t *one, const pm_expr_t *zero,
                           float *W) {
  const int nv = t->n_verts;
  double w[PM_FINE_MAX_PAIRS] = {0};
  for (int ch = 0; ch < t->n_children; ch++) {
    int32_t v[PM_CELL_MAX_VERTS];
    double A[PM_ELEMENT_NV][PM_ELEMENT_NV], F[PM_ELEMENT_NV];
    const double *X[PM_CELL_MAX_VERTS];
    /* A child some of whose points this rank lacks has no row here (a rank keeps every fine
     * element at its nodes): it adds nothing. */
    if (pm_refine_points_child(c, pt, e, ch, v) != nv) continue;
    for (int j = 0; j < nv; j++) X[j] = f->xyz + 3 * (int64_t)v[j];
    int ierr = pm_element_stiffness_at(t, X, one, zero, 1.0, A, F);
    if (ierr) {
      char prefix[160];
      snprintf(prefix, sizeof prefix, "child %d of element %lld (%s): ", ch, (long long)c->elem_gid[e], t->name);
      pm_error_prefix(prefix);
      return ierr;
    }
    for (int a = 0; a < nv; a++)
      for (int b = a + 1; b < nv; b++) w[P->slot[ch][a][b]] -= ke * A[a][b];
  }
  for (int j = 0; j < P->n; j++) {
    float s = (float)w[j];
    PM_CHECK(isfinite(s) && (s != 0 || w[j] == 0), PM_ERR_ARG,
             "element %lld: a weight %g of its children's matrices (conductivity %g) is outside single precision's "
             "range; use --fine-operator assembled (or coordinates in other units)",
             (long long)c->elem_gid[e], w[j], ke);
    W[j] = s;
  }
  return PM_OK;
}

int pm_fine_cells_create(const pm_local_t *c, const pm_local_t *f, const pm_refine_points_t *pt, const double *k,
                         double k_all, pm_fine_cells_t *fc) {
  int ierr = PM_OK;
  int64_t total = 0;
  pm_expr_t *one = NULL, *zero = NULL;
  pairs_t pairs[PM_FINE_CODES];
  fc->at = NULL;
  fc->w = NULL;
  for (int code = 0; code < PM_FINE_CODES; code++) pairs[code].n = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    int code = c->elem_type[e];
    if (code == PM_FINE_TET) continue;
    const pm_cell_t *t = code >= 0 && code < PM_FINE_CODES ? pm_cell_gmsh(code) : NULL;
    PM_CHECK(t && (code == PM_FINE_HEX || code == PM_FINE_PRISM), PM_ERR_UNSUPPORTED,
             "--fine-operator matrix-free: element %lld is a %s, not a tetrahedron, hexahedron or prism",
             (long long)c->elem_gid[e], t ? t->name : "cell pmesh does not know");
    if (pairs[code].n == 0) PM_CALL(make_pairs(t, code, &pairs[code]));
    total += pairs[code].n;
  }
  if (total == 0) return PM_OK; /* tetrahedra only */
  PM_TRY(PM_MALLOC(fc->at, (int64_t)c->n_elems + 1, "matrix-free cell offsets"));
  PM_TRY(PM_MALLOC(fc->w, total, "matrix-free pair weights"));
  PM_TRY(pm_expr_create("1", &one)); /* the conductivity is a constant per element, applied after */
  PM_TRY(pm_expr_create("0", &zero));
  total = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    int code = c->elem_type[e];
    if (code == PM_FINE_TET) {
      fc->at[e] = -1;
      continue;
    }
    fc->at[e] = total;
    PM_TRY(element_weights(c, f, pt, e, pm_cell_gmsh(code), &pairs[code], k ? k[e] : k_all, one, zero, fc->w + total));
    total += pairs[code].n;
  }
cleanup:
  pm_expr_destroy(&one);
  pm_expr_destroy(&zero);
  if (ierr) pm_fine_cells_free(fc);
  return ierr;
}

void pm_fine_cells_free(pm_fine_cells_t *fc) {
  free(fc->at);
  free(fc->w);
  fc->at = NULL;
  fc->w = NULL;
}
