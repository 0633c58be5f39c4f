/* pm_refine_tet.c - the tetrahedron's inner diagonal (pm_refine_tet.h): which of the cell
 * table's three variants a refinement takes, decided from the element alone. */
#include "pm_refine_tet.h"

#include <math.h>

/* Shape measure of a tetrahedron (larger is worse; scale-free): the cube of its squared edge
 * lengths' sum over its squared volume, without square roots.  It only breaks ties between
 * equally long diagonals; it is not pm_cell_quality's radius ratio, which could rank the variants
 * otherwise and so change refined meshes. */
static double tet_shape(const double (*x)[3], const int8_t *v) {
  double e2 = 0, a[3][3];
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      for (int d = 0; d < 3; d++) e2 += (x[v[i]][d] - x[v[j]][d]) * (x[v[i]][d] - x[v[j]][d]);
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) a[i][d] = x[v[i + 1]][d] - x[v[0]][d];
  double vol = a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
               a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  return vol != 0 ? e2 * e2 * e2 / (vol * vol) : INFINITY;
}

/* Whether a is below b by more than rounding: by a relative TIE.  Coordinates that differ in
 * their last bits (a mesh file in ASCII, 16 digits, and the same mesh in binary) must choose
 * alike: lengths or shapes within TIE of each other are a tie, decided by what follows. */
static const double TIE = 1e-8;
static int clearly_below(double a, double b) {
  if (!isfinite(a) || !isfinite(b)) return a < b; /* a flat child's shape is infinite */
  return a < b - TIE * fmax(fabs(a), fabs(b));
}

/* The inner diagonal of tetrahedron e: the shortest of the three, from the element's own
 * coordinates (the same bits on every rank: each refinement point is a sum of the same vertices
 * in the same order).  Diagonals of equal length (structured meshes; equal to a relative 1e-8,
 * TIE) are told apart by the worst shape of the four inner children they make, and equal shapes
 * by the element's vertex tags: the diagonal pairing the vertex of smallest tag with the smaller
 * partner tag wins.  Local. */
int pm_refine_tet_variant(const pm_local_t *c, int32_t e, const pm_cell_t *t) {
  const int32_t *v = c->elem_node + c->elem_ptr[e];
  double x[PM_CELL_MAX_REFINED][3]; /* twice the refinement points: exact sums of two vertices */
  for (int k = 0; k < t->n_refined; k++) {
    int8_t p[PM_CELL_MAX_VERTS];
    int n = pm_cell_refined_parents(t, k, p);
    for (int d = 0; d < 3; d++)
      x[k][d] = n == 1 ? 2 * c->xyz[3 * (int64_t)v[p[0]] + d]
                       : c->xyz[3 * (int64_t)v[p[0]] + d] + c->xyz[3 * (int64_t)v[p[1]] + d];
  }
  double len[PM_CELL_MAX_VARIANTS], shape[PM_CELL_MAX_VARIANTS];
  int64_t partner[PM_CELL_MAX_VARIANTS];
  int s = 0;
  for (int j = 1; j < 4; j++)
    if (c->gid[v[j]] < c->gid[v[s]]) s = j;
  for (int d = 0; d < t->n_variants; d++) {
    const double *a = x[t->variant_diagonal[d][0]], *b = x[t->variant_diagonal[d][1]];
    len[d] = (a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]);
    shape[d] = 0;
    for (int ch = 0; ch < 4; ch++) shape[d] = fmax(shape[d], tet_shape((const double(*)[3])x, t->variant_child[d][ch]));
    for (int h = 0; h < 2; h++) {
      int8_t p[PM_CELL_MAX_VERTS];
      pm_cell_refined_parents(t, t->variant_diagonal[d][h], p);
      if (p[0] == s || p[1] == s) partner[d] = c->gid[v[p[0] == s ? p[1] : p[0]]];
    }
  }
  int best = 0;
  for (int d = 1; d < t->n_variants; d++) {
    int shorter = clearly_below(len[d], len[best]), tie = !shorter && !clearly_below(len[best], len[d]);
    int better = clearly_below(shape[d], shape[best]), same = !better && !clearly_below(shape[best], shape[d]);
    if (shorter || (tie && (better || (same && partner[d] < partner[best])))) best = d;
  }
  return best;
}
