/* pm_quality.c - the shape measure of a cell (pm_quality.h): radius ratios of simplices, the
 * smallest corner scaled Jacobian of the other cells, and their statistics over a mesh.  The
 * corners of quadrangles, hexahedra, prisms and pyramids come from the cell table's edges, so a
 * new cell type needs no code here beyond its ideal corner value. */
#include "pmesh/pm_quality.h"

#include <math.h>
#include <string.h>

#include "pmesh/pm_error.h"

static void sub3(const double *a, const double *b, double *d) {
  for (int k = 0; k < 3; k++) d[k] = a[k] - b[k];
}
static double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double *a, const double *b, double *c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
static double norm3(const double *a) {
  return sqrt(dot3(a, a));
}

/* R / r = (a b c / 4A) / (A / s) = a b c s / (4 A^2), A from the cross product (any plane). */
static double tri_ratio(const double (*x)[3]) {
  double u[3], v[3], w[3], c[3];
  sub3(x[1], x[0], u);
  sub3(x[2], x[0], v);
  sub3(x[2], x[1], w);
  cross3(u, v, c);
  double a = norm3(u), b = norm3(v), e = norm3(w), area = 0.5 * norm3(c), s = 0.5 * (a + b + e);
  if (!(area > 1e-14 * s * s)) return INFINITY;
  return a * b * e * s / (4 * area * area);
}

/* r = 3V / S (S the faces' total area); the circumcentre relative to x0 is
 * (|a|^2 (b x c) + |b|^2 (c x a) + |c|^2 (a x b)) / (2 a . (b x c)). */
static double tet_ratio(const double (*x)[3]) {
  double a[3], b[3], c[3], bc[3], ca[3], ab[3], o[3];
  sub3(x[1], x[0], a);
  sub3(x[2], x[0], b);
  sub3(x[3], x[0], c);
  cross3(b, c, bc);
  cross3(c, a, ca);
  cross3(a, b, ab);
  double det = dot3(a, bc), aa = dot3(a, a), bb = dot3(b, b), cc = dot3(c, c);
  double scale = sqrt(aa > bb ? (aa > cc ? aa : cc) : (bb > cc ? bb : cc));
  if (!(fabs(det) > 1e-14 * scale * scale * scale)) return INFINITY;
  for (int k = 0; k < 3; k++) o[k] = (aa * bc[k] + bb * ca[k] + cc * ab[k]) / (2 * det);
  /* The fourth face: (x2 - x1) x (x3 - x1) = b x c + c x a + a x b. */
  double f[3] = {bc[0] + ca[0] + ab[0], bc[1] + ca[1] + ab[1], bc[2] + ca[2] + ab[2]};
  double area = 0.5 * (norm3(bc) + norm3(ca) + norm3(ab) + norm3(f));
  return norm3(o) * area / (0.5 * fabs(det)); /* R S / (3 V), V = |det| / 6 */
}

enum { MAX_CORNERS = 8 };

/* The cell's corners: a vertex and the vertices joined to it by an edge of the table, ordered so
 * that the reference cell's corner is positively oriented (counter-clockwise in 2D).  A vertex
 * with four edges (a pyramid's apex) is four corners, each of three edges in turn around it.
 * Returns the count; n the edges of a corner (dim). */
static int cell_corners(const pm_cell_t *cell, int cv[MAX_CORNERS], int cnb[MAX_CORNERS][3], int *n) {
  int nc = 0;
  *n = cell->dim;
  for (int v = 0; v < cell->n_verts; v++) {
    int all[4], k = 0;
    for (int e = 0; e < cell->n_edges && k < 4; e++)
      if (cell->edge[e][0] == v || cell->edge[e][1] == v)
        all[k++] = cell->edge[e][0] == v ? cell->edge[e][1] : cell->edge[e][0];
    for (int s = 0; s < (k > 3 ? k : 1) && nc < MAX_CORNERS; s++, nc++) {
      int *nb = cnb[nc];
      for (int i = 0; i < *n; i++) nb[i] = all[(s + i) % k];
      cv[nc] = v;
      double d[3][3] = {{0}}, c[3];
      for (int i = 0; i < *n; i++) sub3(cell->vert[nb[i]], cell->vert[v], d[i]);
      cross3(d[0], d[1], c);
      double orient = cell->dim == 3 ? dot3(c, d[2]) : c[2];
      if (orient < 0) {
        int t = nb[0];
        nb[0] = nb[1];
        nb[1] = t;
      }
    }
  }
  return nc;
}

/* 1 / min over corners of the scaled Jacobian over its ideal value; the sign of the corners'
 * sum picks the orientation, a corner of the other sign (or zero) makes the cell infinite. */
static double corner_ratio(const pm_cell_t *cell, const double (*x)[3], double ideal) {
  double sj[MAX_CORNERS], normal[3] = {0, 0, 0}, total = 0;
  double cr[MAX_CORNERS][3];
  int cv[MAX_CORNERS], cnb[MAX_CORNERS][3], n, nc = cell_corners(cell, cv, cnb, &n);
  for (int v = 0; v < nc; v++) {
    const int *nb = cnb[v];
    double d[3][3], len = 1;
    for (int i = 0; i < n; i++) {
      sub3(x[nb[i]], x[cv[v]], d[i]);
      len *= norm3(d[i]);
    }
    if (!(len > 0)) return INFINITY;
    cross3(d[0], d[1], cr[v]);
    if (cell->dim == 3) {
      sj[v] = dot3(cr[v], d[2]) / len;
      total += sj[v];
    } else {
      sj[v] = 1 / len; /* times the corner's area along the cell's normal, below */
      for (int k = 0; k < 3; k++) normal[k] += cr[v][k];
    }
  }
  if (cell->dim == 2) { /* the cell's plane: the mean of its corners' normals */
    double nn = norm3(normal);
    if (!(nn > 0)) return INFINITY;
    for (int v = 0; v < nc; v++) sj[v] *= dot3(cr[v], normal) / nn;
    total = 1;
  }
  double sign = total < 0 ? -1 : 1, lo = INFINITY;
  for (int v = 0; v < nc; v++)
    if (sign * sj[v] < lo) lo = sign * sj[v];
  lo /= ideal;
  return lo > 1e-14 ? 1 / lo : INFINITY;
}

double pm_cell_quality(const pm_cell_t *cell, const double (*x)[3]) {
  switch (cell->type) {
    case PM_CELL_TRI:
      return tri_ratio(x);
    case PM_CELL_TET:
      return tet_ratio(x);
    case PM_CELL_QUAD:
    case PM_CELL_HEX:
      return corner_ratio(cell, x, 1);
    case PM_CELL_PRISM:
      return corner_ratio(cell, x, 0.86602540378443864676); /* sin 60 deg */
    case PM_CELL_PYRAMID: /* every corner of the pyramid with all edges equal: 1 / sqrt 2 */
      return corner_ratio(cell, x, 0.70710678118654752440);
    default:
      return 1;
  }
}

const char *pm_quality_name(pm_cell_type_t type) {
  switch (type) {
    case PM_CELL_TRI:
    case PM_CELL_TET:
      return "radius ratio";
    case PM_CELL_QUAD:
    case PM_CELL_HEX:
    case PM_CELL_PRISM:
    case PM_CELL_PYRAMID:
      return "1/min scaled Jacobian";
    default:
      return "none";
  }
}

void pm_quality_init(pm_quality_t *q) {
  memset(q, 0, sizeof *q);
}

void pm_quality_add(pm_quality_t *q, pm_cell_type_t type, double measure) {
  if ((int)type < 0 || type >= PM_CELL_NTYPES) return;
  q->count[type]++;
  if (isinf(measure) || isnan(measure)) {
    q->degenerate[type]++;
    q->worst[type] = INFINITY;
    return;
  }
  q->sum[type] += measure;
  if (measure > q->worst[type]) q->worst[type] = measure;
}

void pm_quality_merge(pm_quality_t *a, const pm_quality_t *b) {
  for (int t = 0; t < PM_CELL_NTYPES; t++) {
    a->count[t] += b->count[t];
    a->degenerate[t] += b->degenerate[t];
    a->sum[t] += b->sum[t];
    if (b->worst[t] > a->worst[t]) a->worst[t] = b->worst[t];
  }
}

double pm_quality_mean(const pm_quality_t *q, pm_cell_type_t type) {
  if ((int)type < 0 || type >= PM_CELL_NTYPES || !q->count[type]) return 0;
  if (q->degenerate[type]) return INFINITY;
  return q->sum[type] / (double)q->count[type];
}

int pm_mesh_quality(const pm_mesh_t *mesh, pm_quality_t *q) {
  PM_CHECK(mesh && q, PM_ERR_ARG, "pm_mesh_quality: NULL argument");
  double x[PM_CELL_MAX_VERTS][3];
  for (int64_t e = 0; e < mesh->n_elems; e++) {
    const pm_cell_t *cell = pm_cell_gmsh(mesh->elem_type[e]);
    PM_CHECK(cell && mesh->elem_ptr[e + 1] - mesh->elem_ptr[e] == cell->n_verts, PM_ERR_INCONSISTENT,
             "pm_mesh_quality: element %lld (tag %lld) of type %d has %lld nodes", (long long)e,
             (long long)mesh->elem_gid[e], mesh->elem_type[e], (long long)(mesh->elem_ptr[e + 1] - mesh->elem_ptr[e]));
    if (cell->dim < 2) continue;
    for (int i = 0; i < cell->n_verts; i++)
      memcpy(x[i], mesh->xyz + 3 * mesh->elem_node[mesh->elem_ptr[e] + i], sizeof x[i]);
    pm_quality_add(q, cell->type, pm_cell_quality(cell, (const double(*)[3])x));
  }
  return 0;
}
