/* test_cell.c - the reference-cell table (pm_cell.h) against facts that do not come from it:
 * Euler's formula and closed facet surfaces, outward facets, the basis's Kronecker and partition
 * of unity properties and its gradients by finite differences, quadrature against the exact
 * integrals of monomials over each reference cell, refinement children that tile their parent
 * with positive volume, the file codes Gmsh, VTK and XDMF document, and VTK's orientation rules. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "pmesh/pm_cell.h"
#include "tu_check.h"

static void sub(const double *a, const double *b, double *r) {
  for (int i = 0; i < 3; i++) r[i] = a[i] - b[i];
}
static void cross(const double *a, const double *b, double *r) {
  r[0] = a[1] * b[2] - a[2] * b[1];
  r[1] = a[2] * b[0] - a[0] * b[2];
  r[2] = a[0] * b[1] - a[1] * b[0];
}
static double dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Signed measure of a cell of type t with vertices x, by the divergence theorem for 3D cells
 * (sum over facets of centroid . area-normal / 3, facets split into triangles from their first
 * vertex), the shoelace formula in 2D, the difference in 1D.  Independent of the table's basis. */
static double measure(const pm_cell_t *c, double x[][3]) {
  if (c->dim == 1) return x[1][0] - x[0][0];
  if (c->dim == 2) {
    double s = 0;
    for (int i = 0; i < c->n_verts; i++) {
      const double *p = x[i], *q = x[(i + 1) % c->n_verts];
      s += p[0] * q[1] - q[0] * p[1];
    }
    return 0.5 * s;
  }
  double v = 0;
  for (int f = 0; f < c->n_facets; f++) {
    int nf = pm_cell_get(c->facet_type[f])->n_verts;
    const double *p0 = x[c->facet[f][0]];
    for (int j = 1; j + 1 < nf; j++) {
      const double *p1 = x[c->facet[f][j]], *p2 = x[c->facet[f][j + 1]];
      double n[3], a[3], b[3], g[3];
      sub(p1, p0, a);
      sub(p2, p0, b);
      cross(a, b, n);
      for (int i = 0; i < 3; i++) g[i] = (p0[i] + p1[i] + p2[i]) / 3;
      v += dot(g, n) / 6; /* (area normal = n / 2) . centroid / 3 */
    }
  }
  return v;
}

static double fact(int n) {
  return n <= 1 ? 1 : n * fact(n - 1);
}

/* Exact integral of x^a y^b z^c over the reference cell. */
static double exact_monomial(const pm_cell_t *c, int a, int b, int e) {
  double box1[3] = {a % 2 ? 0 : 2.0 / (a + 1), b % 2 ? 0 : 2.0 / (b + 1), e % 2 ? 0 : 2.0 / (e + 1)};
  switch (c->type) {
    case PM_CELL_LINE:
      return box1[0];
    case PM_CELL_QUAD:
      return box1[0] * box1[1];
    case PM_CELL_HEX:
      return box1[0] * box1[1] * box1[2];
    case PM_CELL_TRI:
      return fact(a) * fact(b) / fact(a + b + 2);
    case PM_CELL_TET:
      return fact(a) * fact(b) * fact(e) / fact(a + b + e + 3);
    case PM_CELL_PRISM:
      return fact(a) * fact(b) / fact(a + b + 2) * box1[2];
    case PM_CELL_PYRAMID: /* the square |x|, |y| <= 1 - z at height z */
      return box1[0] * box1[1] * fact(e) * fact(a + b + 2) / fact(a + b + e + 3);
    default:
      return 1;
  }
}

static void check_topology(const pm_cell_t *c) {
  EXPECT(pm_cell_get(c->type) == c, "%s: pm_cell_get", c->name);
  EXPECT(pm_cell_from_gmsh(c->gmsh_type) == (int)c->type, "%s: pm_cell_from_gmsh(%d)", c->name, c->gmsh_type);
  if (c->dim == 3) EXPECT(c->n_verts - c->n_edges + c->n_facets == 2, "%s: Euler's formula", c->name);
  /* Every edge is used by exactly two facets in 3D (a closed surface), facets' sides are edges. */
  for (int e = 0; c->dim == 3 && e < c->n_edges; e++) {
    int uses = 0;
    for (int f = 0; f < c->n_facets; f++) {
      int nf = pm_cell_get(c->facet_type[f])->n_verts;
      for (int j = 0; j < nf; j++) {
        int a = c->facet[f][j], b = c->facet[f][(j + 1) % nf];
        if ((a == c->edge[e][0] && b == c->edge[e][1]) || (a == c->edge[e][1] && b == c->edge[e][0])) uses++;
      }
    }
    EXPECT(uses == 2, "%s: edge %d is a side of %d facets", c->name, e, uses);
  }
  /* Facets point out: their right-hand normal (3D) or right-hand side (2D) leaves the cell. */
  double g[3] = {0, 0, 0};
  for (int i = 0; i < c->n_verts; i++)
    for (int j = 0; j < 3; j++) g[j] += c->vert[i][j] / c->n_verts;
  for (int f = 0; c->dim >= 2 && f < c->n_facets; f++) {
    const double *p0 = c->vert[c->facet[f][0]], *p1 = c->vert[c->facet[f][1]];
    double n[3], a[3], b[3], d[3];
    sub(p1, p0, a);
    if (c->dim == 3) {
      sub(c->vert[c->facet[f][2]], p0, b);
      cross(a, b, n);
    } else {
      n[0] = a[1], n[1] = -a[0], n[2] = 0;
    }
    sub(p0, g, d);
    EXPECT(dot(n, d) > 0, "%s: facet %d points into the cell", c->name, f);
  }
  double x[PM_CELL_MAX_VERTS][3];
  memcpy(x, c->vert, sizeof x);
  if (c->dim >= 1)
    EXPECT(fabs(measure(c, x) - c->measure) < 1e-14, "%s: measure %g, table %g", c->name, measure(c, x), c->measure);
}

static void check_basis(const pm_cell_t *c) {
  double n[PM_CELL_MAX_VERTS], dn[PM_CELL_MAX_VERTS][3];
  for (int j = 0; j < c->n_verts; j++) {
    pm_cell_basis(c, c->vert[j], n, dn);
    for (int i = 0; i < c->n_verts; i++)
      EXPECT(fabs(n[i] - (i == j)) < 1e-15, "%s: N%d at vertex %d is %g", c->name, i, j, n[i]);
  }
  /* Partition of unity, gradients summing to zero and matching central differences, at points
   * inside the cell: each a weighted mean of the vertices. */
  for (int s = 0; s < 5; s++) {
    double xi[3] = {0, 0, 0}, w = 0;
    for (int i = 0; i < c->n_verts; i++) {
      double wi = 1.0 + (double)((i * 7 + s * 3) % 5);
      for (int j = 0; j < 3; j++) xi[j] += wi * c->vert[i][j];
      w += wi;
    }
    for (int j = 0; j < 3; j++) xi[j] /= w;
    pm_cell_basis(c, xi, n, dn);
    double sum = 0, gsum[3] = {0, 0, 0};
    for (int i = 0; i < c->n_verts; i++) {
      sum += n[i];
      for (int j = 0; j < 3; j++) gsum[j] += dn[i][j];
    }
    EXPECT(fabs(sum - 1) < 1e-14, "%s: sum of the basis %g", c->name, sum);
    for (int j = 0; j < 3; j++) EXPECT(fabs(gsum[j]) < 1e-14, "%s: gradients sum to %g", c->name, gsum[j]);
    for (int j = 0; j < c->dim; j++) {
      double h = 1e-6, xp[3], xm[3], np[PM_CELL_MAX_VERTS], nm[PM_CELL_MAX_VERTS];
      memcpy(xp, xi, sizeof xp);
      memcpy(xm, xi, sizeof xm);
      xp[j] += h;
      xm[j] -= h;
      pm_cell_basis(c, xp, np, NULL);
      pm_cell_basis(c, xm, nm, NULL);
      for (int i = 0; i < c->n_verts; i++)
        EXPECT(fabs((np[i] - nm[i]) / (2 * h) - dn[i][j]) < 1e-8, "%s: dN%d/dx%d", c->name, i, j);
    }
  }
}

/* Degree 2 (and 2 per direction on boxes and the prism's axis, degree 3 on the pyramid) is
 * integrated exactly. */
static void check_quadrature(const pm_cell_t *c) {
  int box = c->type == PM_CELL_QUAD || c->type == PM_CELL_HEX, top = c->type == PM_CELL_PYRAMID ? 3 : 2;
  for (int a = 0; a <= (c->dim >= 1 ? top : 0); a++)
    for (int b = 0; b <= (c->dim >= 2 ? top : 0); b++)
      for (int e = 0; e <= (c->dim == 3 ? top : 0); e++) {
        int simplex_deg = c->type == PM_CELL_PRISM ? a + b : a + b + e;
        if (!box && simplex_deg > top) continue;
        double q = 0;
        for (int k = 0; k < c->n_qp; k++)
          q += c->qw[k] * pow(c->qp[k][0], a) * pow(c->qp[k][1], b) * pow(c->qp[k][2], e);
        double ex = exact_monomial(c, a, b, e);
        EXPECT(fabs(q - ex) < 1e-14, "%s: x^%d y^%d z^%d: rule %.17g, exact %.17g", c->name, a, b, e, q, ex);
      }
}

/* Child k's measure, by its own type's facets. */
static double child_measure(const pm_cell_t *c, int k, const int8_t *ch) {
  const pm_cell_t *t = pm_cell_get(pm_cell_child_type(c, k));
  double x[PM_CELL_MAX_VERTS][3];
  for (int i = 0; i < t->n_verts; i++) pm_cell_refined_point(c, ch[i], x[i]);
  return measure(t, x);
}

static void check_refinement(const pm_cell_t *c) {
  if (c->dim == 0) return;
  EXPECT(c->n_fixed + (c->n_variants ? 4 : 0) == c->n_children, "%s: children", c->name);
  int pyramid = c->type == PM_CELL_PYRAMID;
  EXPECT(c->n_children == (pyramid ? 10 : 1 << c->dim), "%s: %d children", c->name, c->n_children);
  EXPECT(c->n_tet_children == (pyramid ? 4 : 0), "%s: %d tetrahedra children", c->name, c->n_tet_children);
  /* Refinement points are distinct. */
  for (int i = 0; i < c->n_refined; i++)
    for (int j = 0; j < i; j++) {
      double a[3], b[3], d[3];
      pm_cell_refined_point(c, i, a);
      pm_cell_refined_point(c, j, b);
      sub(a, b, d);
      EXPECT(dot(d, d) > 1e-20, "%s: refinement points %d and %d coincide", c->name, i, j);
    }
  int nv = c->n_variants ? c->n_variants : 1;
  for (int v = 0; v < nv; v++) {
    double total = 0;
    for (int k = 0; k < c->n_children; k++) {
      const int8_t *ch = k < c->n_fixed ? c->child[k] : c->variant_child[v][k - c->n_fixed];
      int nvc = pm_cell_get(pm_cell_child_type(c, k))->n_verts;
      for (int i = 0; i < nvc; i++) EXPECT(ch[i] >= 0 && ch[i] < c->n_refined, "%s: child %d", c->name, k);
      double m = child_measure(c, k, ch);
      /* A tetrahedron's children have 1/8 of its volume; others too (uniform split), but a
       * pyramid's tetrahedra 1/16. */
      double want = c->measure / (pyramid ? 8 : c->n_children) / (pyramid && k >= 6 ? 2 : 1);
      EXPECT(fabs(m - want) < 1e-14, "%s: child %d (variant %d) has measure %g", c->name, k, v, m);
      total += m;
      if (k >= c->n_fixed) { /* an inner child has the variant's diagonal as an edge */
        int has = 0;
        for (int i = 0; i < 4; i++) has += ch[i] == c->variant_diagonal[v][0] || ch[i] == c->variant_diagonal[v][1];
        EXPECT(has == 2, "%s: variant %d child %d misses the diagonal", c->name, v, k);
      }
    }
    EXPECT(fabs(total - c->measure) < 1e-14, "%s: children cover %g of %g", c->name, total, c->measure);
  }
}

/* The codes Gmsh, VTK and XDMF document, and VTK's orientation rules: a tetrahedron's, a
 * hexahedron's and a pyramid's first face has its right-hand normal towards the opposite vertex
 * or face, a wedge's first triangle away from the second. */
static void check_files(void) {
  static const struct {
    pm_cell_type_t t;
    int gmsh, vtk, xdmf;
    const char *name;
  } codes[] = {{PM_CELL_POINT, 15, 1, 1, "Polyvertex"}, {PM_CELL_LINE, 1, 3, 2, "Polyline"},
               {PM_CELL_TRI, 2, 5, 4, "Triangle"},      {PM_CELL_QUAD, 3, 9, 5, "Quadrilateral"},
               {PM_CELL_TET, 4, 10, 6, "Tetrahedron"},  {PM_CELL_HEX, 5, 12, 9, "Hexahedron"},
               {PM_CELL_PRISM, 6, 13, 8, "Wedge"},      {PM_CELL_PYRAMID, 7, 14, 7, "Pyramid"}};
  for (size_t i = 0; i < sizeof codes / sizeof *codes; i++) {
    const pm_cell_t *c = pm_cell_get(codes[i].t);
    EXPECT(c->gmsh_type == codes[i].gmsh && c->vtk_type == codes[i].vtk && c->xdmf_type == codes[i].xdmf &&
               strcmp(c->xdmf_name, codes[i].name) == 0,
           "%s: file codes", c->name);
  }
  EXPECT(pm_cell_from_gmsh(14) == -1, "second-order pyramids are not read");
  EXPECT(pm_cell_from_gmsh(11) == -1, "second-order tetrahedra are not read");
  EXPECT(pm_cell_get(PM_CELL_NTYPES) == NULL, "out of range");
  const pm_cell_type_t vol[] = {PM_CELL_TET, PM_CELL_HEX, PM_CELL_PRISM, PM_CELL_PYRAMID};
  for (int k = 0; k < 4; k++) {
    const pm_cell_t *c = pm_cell_get(vol[k]);
    double x[PM_CELL_MAX_VERTS][3], a[3], b[3], n[3], g0[3] = {0, 0, 0}, g1[3] = {0, 0, 0}, d[3];
    int seen[PM_CELL_MAX_VERTS] = {0};
    for (int i = 0; i < c->n_verts; i++) {
      EXPECT(c->to_vtk[i] >= 0 && c->to_vtk[i] < c->n_verts && !seen[c->to_vtk[i]]++, "%s: to_vtk", c->name);
      memcpy(x[i], c->vert[c->to_vtk[i]], sizeof x[i]);
    }
    int base = c->type == PM_CELL_HEX || c->type == PM_CELL_PYRAMID ? 4 : 3; /* the first face's vertices */
    sub(x[1], x[0], a);
    sub(x[base - 1], x[0], b);
    cross(a, b, n);
    for (int i = 0; i < c->n_verts; i++)
      for (int j = 0; j < 3; j++) (i < base ? g0 : g1)[j] += x[i][j];
    for (int j = 0; j < 3; j++) d[j] = g1[j] / (c->n_verts - base) - g0[j] / base;
    double s = dot(n, d);
    EXPECT(c->type == PM_CELL_PRISM ? s < 0 : s > 0, "%s: VTK orientation of the first face", c->name);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  for (int t = 0; t < PM_CELL_NTYPES; t++) {
    const pm_cell_t *c = pm_cell_get((pm_cell_type_t)t);
    check_topology(c);
    check_basis(c);
    check_quadrature(c);
    check_refinement(c);
  }
  check_files();
  if (g_fail) fprintf(stderr, "test_cell: %ld checks failed\n", g_fail);
  MPI_Finalize();
  return g_fail ? 1 : 0;
}
