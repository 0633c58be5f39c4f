/* pm_cell.c - the reference-cell table (pm_cell.h): topology, file codes, quadrature, basis and
 * refinement templates of every cell type pmesh supports. */
#include "pmesh/pm_cell.h"

#include <stddef.h>

/* Two-point Gauss abscissa 1/sqrt(3); the degree-2 rules of the unit triangle (points at 1/6 and
 * 2/3) and the unit tetrahedron (Keast's four points at (5 -+ sqrt 5)/20 and (5 + 3 sqrt 5)/20). */
#define G2 0.57735026918962576451
#define T1 (1.0 / 6.0)
#define T2 (2.0 / 3.0)
#define KA 0.58541019662496845446
#define KB 0.13819660112501051518
/* The pyramid's collapsed rule: xi = a (1 - c), eta = b (1 - c), zeta = c with a, b the two Gauss
 * points +-1/sqrt(3) and c the two Gauss-Jacobi points of weight (1 - c)^2 on [0, 1] (the roots of
 * c^2 - 2c/3 + 1/15: 1/3 -+ sqrt(2/45)), weights WJ1, WJ2 (they sum to 1/3).  Exact for every
 * monomial of degree 3, so for the stiffness and mass of an affine pyramid. */
#define PJ1 0.12251482265544137787
#define PJ2 0.54415184401122528879
#define WJ1 0.23254745125350790274
#define WJ2 0.10078588207982543059
#define PA1 (G2 * (1 - PJ1))
#define PA2 (G2 * (1 - PJ2))

static const pm_cell_t cells[PM_CELL_NTYPES] = {
    [PM_CELL_POINT] = {.type = PM_CELL_POINT,
                       .name = "point",
                       .dim = 0,
                       .n_verts = 1,
                       .measure = 1,
                       .gmsh_type = 15,
                       .vtk_type = 1,
                       .xdmf_type = 1,
                       .xdmf_name = "Polyvertex",
                       .to_vtk = {0},
                       .n_qp = 1,
                       .qw = {1},
                       .n_refined = 1,
                       .n_children = 1,
                       .n_fixed = 1,
                       .child = {{0}}},
    [PM_CELL_LINE] = {.type = PM_CELL_LINE,
                      .name = "line",
                      .dim = 1,
                      .n_verts = 2,
                      .n_edges = 1,
                      .n_facets = 2,
                      .vert = {{-1, 0, 0}, {1, 0, 0}},
                      .edge = {{0, 1}},
                      .facet_type = {PM_CELL_POINT, PM_CELL_POINT},
                      .facet = {{0}, {1}},
                      .measure = 2,
                      .gmsh_type = 1,
                      .vtk_type = 3,
                      .xdmf_type = 2,
                      .xdmf_name = "Polyline",
                      .to_vtk = {0, 1},
                      .n_qp = 2,
                      .qp = {{-G2, 0, 0}, {G2, 0, 0}},
                      .qw = {1, 1},
                      .n_refined = 3,
                      .n_children = 2,
                      .n_fixed = 2,
                      .child = {{0, 2}, {2, 1}}},
    [PM_CELL_TRI] = {.type = PM_CELL_TRI,
                     .name = "triangle",
                     .dim = 2,
                     .n_verts = 3,
                     .n_edges = 3,
                     .n_facets = 3,
                     .vert = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
                     .edge = {{0, 1}, {1, 2}, {2, 0}},
                     .facet_type = {PM_CELL_LINE, PM_CELL_LINE, PM_CELL_LINE},
                     .facet = {{0, 1}, {1, 2}, {2, 0}},
                     .measure = 0.5,
                     .gmsh_type = 2,
                     .vtk_type = 5,
                     .xdmf_type = 4,
                     .xdmf_name = "Triangle",
                     .to_vtk = {0, 1, 2},
                     .n_qp = 3,
                     .qp = {{T1, T1, 0}, {T2, T1, 0}, {T1, T2, 0}},
                     .qw = {T1, T1, T1},
                     .n_refined = 6,
                     .n_children = 4,
                     .n_fixed = 4,
                     .child = {{0, 3, 5}, {3, 1, 4}, {5, 4, 2}, {3, 4, 5}}},
    [PM_CELL_QUAD] = {.type = PM_CELL_QUAD,
                      .name = "quadrangle",
                      .dim = 2,
                      .n_verts = 4,
                      .n_edges = 4,
                      .n_facets = 4,
                      .vert = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
                      .edge = {{0, 1}, {1, 2}, {2, 3}, {3, 0}},
                      .facet_type = {PM_CELL_LINE, PM_CELL_LINE, PM_CELL_LINE, PM_CELL_LINE},
                      .facet = {{0, 1}, {1, 2}, {2, 3}, {3, 0}},
                      .measure = 4,
                      .gmsh_type = 3,
                      .vtk_type = 9,
                      .xdmf_type = 5,
                      .xdmf_name = "Quadrilateral",
                      .to_vtk = {0, 1, 2, 3},
                      .n_qp = 4,
                      .qp = {{-G2, -G2, 0}, {G2, -G2, 0}, {G2, G2, 0}, {-G2, G2, 0}},
                      .qw = {1, 1, 1, 1},
                      .n_refined = 9,
                      .n_children = 4,
                      .n_fixed = 4,
                      .child = {{0, 4, 8, 7}, {4, 1, 5, 8}, {8, 5, 2, 6}, {7, 8, 6, 3}}},
    [PM_CELL_TET] = {.type = PM_CELL_TET,
                     .name = "tetrahedron",
                     .dim = 3,
                     .n_verts = 4,
                     .n_edges = 6,
                     .n_facets = 4,
                     .vert = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
                     .edge = {{0, 1}, {1, 2}, {2, 0}, {3, 0}, {3, 2}, {3, 1}},
                     .facet_type = {PM_CELL_TRI, PM_CELL_TRI, PM_CELL_TRI, PM_CELL_TRI},
                     .facet = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}},
                     .measure = 1.0 / 6.0,
                     .gmsh_type = 4,
                     .vtk_type = 10,
                     .xdmf_type = 6,
                     .xdmf_name = "Tetrahedron",
                     .to_vtk = {0, 1, 2, 3},
                     .n_qp = 4,
                     .qp = {{KB, KB, KB}, {KA, KB, KB}, {KB, KA, KB}, {KB, KB, KA}},
                     .qw = {1.0 / 24, 1.0 / 24, 1.0 / 24, 1.0 / 24},
                     .n_refined = 10,
                     .n_children = 8,
                     .n_fixed = 4,
                     .child = {{0, 4, 6, 7}, {4, 1, 5, 9}, {6, 5, 2, 8}, {7, 9, 8, 3}},
                     .n_variants = 3,
                     .variant_diagonal = {{4, 8}, {6, 9}, {5, 7}},
                     .variant_child = {{{4, 8, 5, 6}, {4, 8, 6, 7}, {4, 8, 7, 9}, {4, 8, 9, 5}},
                                       {{6, 9, 4, 5}, {6, 9, 5, 8}, {6, 9, 8, 7}, {6, 9, 7, 4}},
                                       {{5, 7, 6, 4}, {5, 7, 8, 6}, {5, 7, 9, 8}, {5, 7, 4, 9}}}},
    [PM_CELL_HEX] =
        {.type = PM_CELL_HEX,
         .name = "hexahedron",
         .dim = 3,
         .n_verts = 8,
         .n_edges = 12,
         .n_facets = 6,
         .vert = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1}, {-1, -1, 1}, {1, -1, 1}, {1, 1, 1}, {-1, 1, 1}},
         .edge = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3}, {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}},
         .facet_type = {PM_CELL_QUAD, PM_CELL_QUAD, PM_CELL_QUAD, PM_CELL_QUAD, PM_CELL_QUAD, PM_CELL_QUAD},
         .facet = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {0, 4, 7, 3}},
         .measure = 8,
         .gmsh_type = 5,
         .vtk_type = 12,
         .xdmf_type = 9,
         .xdmf_name = "Hexahedron",
         .to_vtk = {0, 1, 2, 3, 4, 5, 6, 7},
         .n_qp = 8,
         .qp = {{-G2, -G2, -G2},
                {G2, -G2, -G2},
                {G2, G2, -G2},
                {-G2, G2, -G2},
                {-G2, -G2, G2},
                {G2, -G2, G2},
                {G2, G2, G2},
                {-G2, G2, G2}},
         .qw = {1, 1, 1, 1, 1, 1, 1, 1},
         .n_refined = 27,
         .n_children = 8,
         .n_fixed = 8,
         .child = {{0, 8, 20, 9, 10, 22, 26, 25},
                   {8, 1, 11, 20, 22, 12, 23, 26},
                   {20, 11, 2, 13, 26, 23, 14, 24},
                   {9, 20, 13, 3, 25, 26, 24, 15},
                   {10, 22, 26, 25, 4, 16, 21, 17},
                   {22, 12, 23, 26, 16, 5, 18, 21},
                   {26, 23, 14, 24, 21, 18, 6, 19},
                   {25, 26, 24, 15, 17, 21, 19, 7}}},
    /* VTK's wedge lists its first triangle with the normal pointing away from the second; Gmsh's
     * points towards it: the two orders differ by a reflection. */
    [PM_CELL_PRISM] = {.type = PM_CELL_PRISM,
                       .name = "prism",
                       .dim = 3,
                       .n_verts = 6,
                       .n_edges = 9,
                       .n_facets = 5,
                       .vert = {{0, 0, -1}, {1, 0, -1}, {0, 1, -1}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}},
                       .edge = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 4}, {2, 5}, {3, 4}, {3, 5}, {4, 5}},
                       .facet_type = {PM_CELL_TRI, PM_CELL_TRI, PM_CELL_QUAD, PM_CELL_QUAD, PM_CELL_QUAD},
                       .facet = {{0, 2, 1}, {3, 4, 5}, {0, 1, 4, 3}, {1, 2, 5, 4}, {0, 3, 5, 2}},
                       .measure = 1,
                       .gmsh_type = 6,
                       .vtk_type = 13,
                       .xdmf_type = 8,
                       .xdmf_name = "Wedge",
                       .to_vtk = {0, 2, 1, 3, 5, 4},
                       .n_qp = 6,
                       .qp = {{T1, T1, -G2}, {T2, T1, -G2}, {T1, T2, -G2}, {T1, T1, G2}, {T2, T1, G2}, {T1, T2, G2}},
                       .qw = {T1, T1, T1, T1, T1, T1},
                       .n_refined = 18,
                       .n_children = 8,
                       .n_fixed = 8,
                       .child = {{0, 6, 7, 8, 15, 17},
                                 {6, 1, 9, 15, 10, 16},
                                 {7, 9, 2, 17, 16, 11},
                                 {8, 15, 17, 3, 12, 13},
                                 {15, 10, 16, 12, 4, 14},
                                 {17, 16, 11, 13, 14, 5},
                                 {6, 9, 7, 15, 16, 17},
                                 {15, 16, 17, 12, 14, 13}}},
    /* Refinement points: vertices 0-4 (4 the apex), edge midpoints 5-12, the base's centre 13. */
    [PM_CELL_PYRAMID] = {.type = PM_CELL_PYRAMID,
                         .name = "pyramid",
                         .dim = 3,
                         .n_verts = 5,
                         .n_edges = 8,
                         .n_facets = 5,
                         .vert = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0, 0, 1}},
                         .edge = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 4}, {2, 3}, {2, 4}, {3, 4}},
                         .facet_type = {PM_CELL_TRI, PM_CELL_TRI, PM_CELL_TRI, PM_CELL_TRI, PM_CELL_QUAD},
                         .facet = {{0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}, {0, 3, 2, 1}},
                         .measure = 4.0 / 3.0,
                         .gmsh_type = 7,
                         .vtk_type = 14,
                         .xdmf_type = 7,
                         .xdmf_name = "Pyramid",
                         .to_vtk = {0, 1, 2, 3, 4},
                         .n_qp = 8,
                         .qp = {{-PA1, -PA1, PJ1},
                                {PA1, -PA1, PJ1},
                                {PA1, PA1, PJ1},
                                {-PA1, PA1, PJ1},
                                {-PA2, -PA2, PJ2},
                                {PA2, -PA2, PJ2},
                                {PA2, PA2, PJ2},
                                {-PA2, PA2, PJ2}},
                         .qw = {WJ1, WJ1, WJ1, WJ1, WJ2, WJ2, WJ2, WJ2},
                         .n_refined = 14,
                         .n_children = 10,
                         .n_fixed = 10,
                         .n_tet_children = 4,
                         .child = {{0, 5, 13, 6, 7}, /* the base corners' pyramids */
                                   {5, 1, 8, 13, 9},
                                   {13, 8, 2, 10, 11},
                                   {6, 13, 10, 3, 12},
                                   {7, 9, 11, 12, 4},  /* below the apex */
                                   {7, 12, 11, 9, 13}, /* upside down, its apex the base's centre */
                                   {5, 13, 7, 9},      /* a tetrahedron at each base edge */
                                   {8, 13, 9, 11},
                                   {10, 13, 11, 12},
                                   {6, 13, 12, 7}}},
};

const pm_cell_t *pm_cell_get(pm_cell_type_t type) {
  return (int)type >= 0 && type < PM_CELL_NTYPES ? &cells[type] : NULL;
}

/* Gmsh's codes of the table's types are small (at most 15): a direct index, since the reader
 * and the boundary derivation ask once per element and per facet. */
enum { GMSH_CODES = 16 };
/* clang-format off */
static const int8_t from_gmsh[GMSH_CODES] = {
    -1, PM_CELL_LINE, PM_CELL_TRI, PM_CELL_QUAD, PM_CELL_TET, PM_CELL_HEX, PM_CELL_PRISM, PM_CELL_PYRAMID, /* 0..7 */
    -1, -1,           -1,          -1,           -1,          -1,          -1,            PM_CELL_POINT};
/* clang-format on */

int pm_cell_from_gmsh(int gmsh_type) {
  return gmsh_type >= 0 && gmsh_type < GMSH_CODES ? from_gmsh[gmsh_type] : -1;
}

const pm_cell_t *pm_cell_gmsh(int gmsh_type) {
  return pm_cell_get((pm_cell_type_t)pm_cell_from_gmsh(gmsh_type));
}

/* Barycentric basis of the unit simplex of dimension d (d + 1 functions). */
static void simplex_basis(int d, const double *xi, double *n, double (*dn)[3]) {
  n[0] = 1;
  for (int i = 0; i < d; i++) {
    n[0] -= xi[i];
    n[i + 1] = xi[i];
  }
  if (!dn) return;
  for (int i = 0; i <= d; i++)
    for (int j = 0; j < 3; j++) dn[i][j] = j < d ? (i == 0 ? -1.0 : (i == j + 1 ? 1.0 : 0.0)) : 0.0;
}

/* Multilinear basis of [-1,1]^d: vertex i's function is prod_j (1 + xi_j v_ij) / 2. */
static void box_basis(const pm_cell_t *c, const double *xi, double *n, double (*dn)[3]) {
  for (int i = 0; i < c->n_verts; i++) {
    double f[3];
    for (int j = 0; j < 3; j++) f[j] = j < c->dim ? 0.5 * (1 + xi[j] * c->vert[i][j]) : 1.0;
    n[i] = f[0] * f[1] * f[2];
    if (!dn) continue;
    for (int j = 0; j < 3; j++) {
      double g = j < c->dim ? 0.5 * c->vert[i][j] : 0.0;
      for (int k = 0; k < 3; k++)
        if (k != j) g *= f[k];
      dn[i][j] = g;
    }
  }
}

/* Prism: the triangle's barycentric function times the line's (1 -+ z)/2. */
static void prism_basis(const double *xi, double *n, double (*dn)[3]) {
  double l[3], dl[3][3], h[2] = {0.5 * (1 - xi[2]), 0.5 * (1 + xi[2])};
  simplex_basis(2, xi, l, dl);
  for (int i = 0; i < 6; i++) {
    int a = i % 3, b = i / 3;
    n[i] = l[a] * h[b];
    if (dn) {
      dn[i][0] = dl[a][0] * h[b];
      dn[i][1] = dl[a][1] * h[b];
      dn[i][2] = l[a] * (b ? 0.5 : -0.5);
    }
  }
}

/* Pyramid: with s = 1 - zeta, base vertex i's function is (s + x_i xi)(s + y_i eta) / (4 s) and the
 * apex's zeta; in the collapsed coordinates a = xi / s, b = eta / s the base functions are
 * s (1 + x_i a)(1 + y_i b) / 4, and their gradients depend on a and b only.  At the apex (s = 0)
 * a and b are taken 0: the limit along the axis. */
static void pyramid_basis(const pm_cell_t *c, const double *xi, double *n, double (*dn)[3]) {
  double s = 1 - xi[2], a = s > 0 ? xi[0] / s : 0, b = s > 0 ? xi[1] / s : 0;
  for (int i = 0; i < 4; i++) {
    double x = c->vert[i][0], y = c->vert[i][1], fa = 1 + x * a, fb = 1 + y * b;
    n[i] = 0.25 * s * fa * fb;
    if (dn) {
      dn[i][0] = 0.25 * x * fb;
      dn[i][1] = 0.25 * y * fa;
      dn[i][2] = 0.25 * (x * y * a * b - 1);
    }
  }
  n[4] = xi[2];
  if (dn) dn[4][0] = dn[4][1] = 0, dn[4][2] = 1;
}

void pm_cell_basis(const pm_cell_t *cell, const double xi[3], double *n, double (*dn)[3]) {
  switch (cell->type) {
    case PM_CELL_TRI:
    case PM_CELL_TET:
      simplex_basis(cell->dim, xi, n, dn);
      break;
    case PM_CELL_PRISM:
      prism_basis(xi, n, dn);
      break;
    case PM_CELL_PYRAMID:
      pyramid_basis(cell, xi, n, dn);
      break;
    case PM_CELL_POINT:
      n[0] = 1;
      if (dn) dn[0][0] = dn[0][1] = dn[0][2] = 0;
      break;
    default: /* line, quadrangle, hexahedron */
      box_basis(cell, xi, n, dn);
  }
}

pm_cell_type_t pm_cell_child_type(const pm_cell_t *cell, int ch) {
  return ch >= cell->n_children - cell->n_tet_children ? PM_CELL_TET : cell->type;
}

int pm_cell_refined_parents(const pm_cell_t *cell, int k, int8_t parent[PM_CELL_MAX_VERTS]) {
  if (k < cell->n_verts) {
    parent[0] = (int8_t)k;
    return 1;
  }
  k -= cell->n_verts;
  if (k < cell->n_edges) {
    parent[0] = cell->edge[k][0];
    parent[1] = cell->edge[k][1];
    return 2;
  }
  k -= cell->n_edges;
  if (cell->dim == 3)
    for (int f = 0; f < cell->n_facets; f++) {
      if (cell->facet_type[f] != PM_CELL_QUAD) continue;
      if (k-- > 0) continue;
      for (int j = 0; j < 4; j++) parent[j] = cell->facet[f][j];
      return 4;
    }
  for (int j = 0; j < cell->n_verts; j++) parent[j] = (int8_t)j; /* the cell centre */
  return cell->n_verts;
}

void pm_cell_refined_point(const pm_cell_t *cell, int k, double xi[3]) {
  int8_t p[PM_CELL_MAX_VERTS];
  int n = pm_cell_refined_parents(cell, k, p);
  for (int j = 0; j < 3; j++) {
    double s = 0;
    for (int i = 0; i < n; i++) s += cell->vert[p[i]][j];
    xi[j] = s / n;
  }
}
