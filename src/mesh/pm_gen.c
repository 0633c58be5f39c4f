/* pm_gen.c - the lecture's structured meshes written as Gmsh MSH 4.1 ASCII (see pm_gen.h). */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_gen.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_error.h"

/* ---------------------------------------------------------------------------------------
 * Writers.  Each returns 0, or -1 as soon as a write fails (errno tells why). */

/* Every write goes through OUT so that a full disk is noticed at once. */
#define OUT(...)                                \
  do {                                          \
    if (fprintf(f, __VA_ARGS__) < 0) return -1; \
  } while (0)

/* %.17g so that every coordinate reads back to the same double. */
#define XYZ "%.17g %.17g 0\n"

static int write_header(FILE *f) {
  OUT("$MeshFormat\n4.1 0 8\n$EndMeshFormat\n");
  return 0;
}

/* The 1D bar.  Entities: point 1 (x = 0, physical "xmin"), point 2 (x = NE*DX, "xmax"),
 * curve 1 from point 1 to point 2 ("bar").  Lines have tags 1..NE; the two point elements
 * NE+1 and NE+2. */
static int write_line(FILE *f, const pm_gen_t *o) {
  const int64_t ne = o->ne, nn = ne + 1;
  const double xl = (double)ne * o->dx;
  int64_t i;

  if (write_header(f)) return -1;
  OUT("$PhysicalNames\n3\n0 1 \"xmin\"\n0 2 \"xmax\"\n1 3 \"bar\"\n$EndPhysicalNames\n");
  OUT("$Entities\n2 1 0 0\n");
  OUT("1 0 0 0 1 1\n");
  OUT("2 %.17g 0 0 1 2\n", xl);
  OUT("1 0 0 0 %.17g 0 0 1 3 2 1 -2\n", xl);
  OUT("$EndEntities\n");

  /* Node 1 on point 1, node NE+1 on point 2, nodes 2..NE inside the curve. */
  OUT("$Nodes\n3 %lld 1 %lld\n", (long long)nn, (long long)nn);
  OUT("0 1 0 1\n1\n0 0 0\n");
  OUT("0 2 0 1\n%lld\n" XYZ, (long long)nn, xl, 0.0);
  OUT("1 1 0 %lld\n", (long long)(ne - 1)); /* empty for NE == 1, as Gmsh writes it */
  for (i = 2; i <= ne; i++) OUT("%lld\n", (long long)i);
  for (i = 2; i <= ne; i++) OUT(XYZ, (double)(i - 1) * o->dx, 0.0);
  OUT("$EndNodes\n");

  OUT("$Elements\n3 %lld 1 %lld\n", (long long)(ne + 2), (long long)(ne + 2));
  OUT("0 1 15 1\n%lld 1\n", (long long)(ne + 1));
  OUT("0 2 15 1\n%lld %lld\n", (long long)(ne + 2), (long long)nn);
  OUT("1 1 1 %lld\n", (long long)ne);
  for (i = 1; i <= ne; i++) OUT("%lld %lld %lld\n", (long long)i, (long long)i, (long long)(i + 1));
  OUT("$EndElements\n");
  return 0;
}

/* Coordinate of grid line i of n on [0, L]; the last one is L exactly. */
static double grid_coord(int64_t i, int64_t n, double len) {
  return i == n - 1 ? len : (double)i * len / (double)(n - 1);
}

/* Node (i, j) of boundary curve c (1 bottom, 2 right, 3 top, 4 left) at step p along it;
 * the curves run counter-clockwise: 1->2->3->4 around the domain, each from its first
 * point to its second (as in the $Entities section). */
static void curve_node(int c, int64_t p, int64_t nx, int64_t ny, int64_t *i, int64_t *j) {
  switch (c) {
    case 1:
      *i = p, *j = 0;
      break;
    case 2:
      *i = nx - 1, *j = p;
      break;
    case 3:
      *i = nx - 1 - p, *j = ny - 1;
      break;
    default:
      *i = 0, *j = ny - 1 - p;
      break;
  }
}

/* The grid.  Entities: points 1..4 at the corners (counter-clockwise from (0,0)), curves
 * 1 bottom, 2 right, 3 top, 4 left (physical tags 1..4 of the same names), surface 1
 * (physical tag 5, "domain").  Cells have element tags 1..C (row by row from the bottom-left;
 * with --tri, cell k gives triangles 2k-1 and 2k), then the boundary lines curve by curve. */
static int write_grid(FILE *f, const pm_gen_t *o) {
  const int64_t nx = o->nx, ny = o->ny, nn = nx * ny;
  const int64_t ncell = (nx - 1) * (ny - 1), ncellel = o->tri ? 2 * ncell : ncell;
  const int64_t nline = 2 * (nx - 1) + 2 * (ny - 1);
  const double lx = o->lx, ly = o->ly;
  const int64_t corner_i[4] = {0, nx - 1, nx - 1, 0}, corner_j[4] = {0, 0, ny - 1, ny - 1};
  int c;
  int64_t i, j, p, tag;

  if (write_header(f)) return -1;
  OUT("$PhysicalNames\n5\n1 1 \"bottom\"\n1 2 \"right\"\n1 3 \"top\"\n1 4 \"left\"\n"
      "2 5 \"domain\"\n$EndPhysicalNames\n");
  OUT("$Entities\n4 4 1 0\n");
  OUT("1 0 0 0 0\n");
  OUT("2 %.17g 0 0 0\n", lx);
  OUT("3 %.17g %.17g 0 0\n", lx, ly);
  OUT("4 0 %.17g 0 0\n", ly);
  OUT("1 0 0 0 %.17g 0 0 1 1 2 1 -2\n", lx);
  OUT("2 %.17g 0 0 %.17g %.17g 0 1 2 2 2 -3\n", lx, lx, ly);
  OUT("3 0 %.17g 0 %.17g %.17g 0 1 3 2 3 -4\n", ly, lx, ly);
  OUT("4 0 0 0 0 %.17g 0 1 4 2 4 -1\n", ly);
  OUT("1 0 0 0 %.17g %.17g 0 1 5 4 1 2 3 4\n", lx, ly);
  OUT("$EndEntities\n");

  /* Nodes: corners on the points, edge nodes on the curves, the rest on the surface.  An
   * entity without nodes of its own (NX or NY == 2) still gets an empty block, as Gmsh
   * writes it, so that Gmsh reads and rewrites these files unchanged. */
  OUT("$Nodes\n9 %lld 1 %lld\n", (long long)nn, (long long)nn);
  for (c = 0; c < 4; c++) {
    i = corner_i[c], j = corner_j[c];
    OUT("0 %d 0 1\n%lld\n" XYZ, c + 1, (long long)(j * nx + i + 1), grid_coord(i, nx, lx), grid_coord(j, ny, ly));
  }
  for (c = 1; c <= 4; c++) {
    const int64_t len = (c % 2 == 1) ? nx - 1 : ny - 1;
    OUT("1 %d 0 %lld\n", c, (long long)(len - 1));
    for (p = 1; p < len; p++) {
      curve_node(c, p, nx, ny, &i, &j);
      OUT("%lld\n", (long long)(j * nx + i + 1));
    }
    for (p = 1; p < len; p++) {
      curve_node(c, p, nx, ny, &i, &j);
      OUT(XYZ, grid_coord(i, nx, lx), grid_coord(j, ny, ly));
    }
  }
  OUT("2 1 0 %lld\n", (long long)((nx - 2) * (ny - 2)));
  for (j = 1; j < ny - 1; j++)
    for (i = 1; i < nx - 1; i++) OUT("%lld\n", (long long)(j * nx + i + 1));
  for (j = 1; j < ny - 1; j++) {
    const double y = grid_coord(j, ny, ly);
    for (i = 1; i < nx - 1; i++) OUT(XYZ, grid_coord(i, nx, lx), y);
  }
  OUT("$EndNodes\n");

  OUT("$Elements\n5 %lld 1 %lld\n", (long long)(ncellel + nline), (long long)(ncellel + nline));
  tag = ncellel;
  for (c = 1; c <= 4; c++) {
    const int64_t len = (c % 2 == 1) ? nx - 1 : ny - 1;
    OUT("1 %d 1 %lld\n", c, (long long)len);
    for (p = 0; p < len; p++) {
      int64_t i1, j1;
      curve_node(c, p, nx, ny, &i, &j);
      curve_node(c, p + 1, nx, ny, &i1, &j1);
      OUT("%lld %lld %lld\n", (long long)++tag, (long long)(j * nx + i + 1), (long long)(j1 * nx + i1 + 1));
    }
  }
  OUT("2 1 %d %lld\n", o->tri ? 2 : 3, (long long)ncellel);
  tag = 0;
  for (j = 0; j < ny - 1; j++) {
    for (i = 0; i < nx - 1; i++) {
      const long long a = (long long)(j * nx + i + 1), b = a + 1;
      const long long d = (long long)((j + 1) * nx + i + 1), e = d + 1; /* d above a */
      if (o->tri) {
        /* Diagonal a-e; both triangles counter-clockwise. */
        OUT("%lld %lld %lld %lld\n", (long long)++tag, a, b, e);
        OUT("%lld %lld %lld %lld\n", (long long)++tag, a, e, d);
      } else {
        OUT("%lld %lld %lld %lld %lld\n", (long long)++tag, a, b, e, d);
      }
    }
  }
  OUT("$EndElements\n");
  return 0;
}

/* The box's node (i, j, k). */
static long long box_node(const pm_gen_t *o, int64_t i, int64_t j, int64_t k) {
  return (long long)((k * o->ny + j) * o->nx + i + 1);
}

/* Boundary face f of the box: axis a = f / 2 at its low (f even) or high end.  The face's grid
 * runs over the other two axes u, v, taken so that e_u x e_v = e_a; (i0, j0) is the node
 * count along u and v. */
static void box_face_axes(int f, int *a, int *u, int *v) {
  *a = f / 2;
  *u = (*a + 1) % 3;
  *v = (*a + 2) % 3;
}

/* The node at grid position (p, q) of face f. */
static long long box_face_node(const pm_gen_t *o, int f, int64_t p, int64_t q) {
  int a, u, v;
  box_face_axes(f, &a, &u, &v);
  const int64_t n[3] = {o->nx, o->ny, o->nz};
  int64_t ijk[3];
  ijk[a] = f % 2 ? n[a] - 1 : 0;
  ijk[u] = p;
  ijk[v] = q;
  return box_node(o, ijk[0], ijk[1], ijk[2]);
}

/* Face f is split into triangles when the cells' faces there are triangles. */
static int box_face_tri(const pm_gen_t *o, int f) {
  return o->tet || (o->prism && f / 2 == 2);
}

static int64_t box_face_count(const pm_gen_t *o, int f) {
  int a, u, v;
  box_face_axes(f, &a, &u, &v);
  const int64_t n[3] = {o->nx, o->ny, o->nz};
  return (n[u] - 1) * (n[v] - 1) * (box_face_tri(o, f) ? 2 : 1);
}

/* The elements of face f, from tag *tag + 1 on: counter-clockwise seen from outside (the high
 * end's (u, v) order, reversed at the low end); triangles split along the diagonal from the
 * face cell's lowest corner to its highest, as the cells' own faces are. */
static int box_write_face(FILE *f, const pm_gen_t *o, int face, int64_t *tag) {
  int a, u, v;
  box_face_axes(face, &a, &u, &v);
  const int64_t n[3] = {o->nx, o->ny, o->nz};
  const int tri = box_face_tri(o, face), low = face % 2 == 0;
  OUT("2 %d %d %lld\n", face + 1, tri ? 2 : 3, (long long)box_face_count(o, face));
  for (int64_t q = 0; q < n[v] - 1; q++)
    for (int64_t p = 0; p < n[u] - 1; p++) {
      long long c00 = box_face_node(o, face, p, q), c10 = box_face_node(o, face, p + 1, q);
      long long c11 = box_face_node(o, face, p + 1, q + 1), c01 = box_face_node(o, face, p, q + 1);
      if (low) { /* reverse the orientation: swap the roles of u and v */
        long long t = c10;
        c10 = c01;
        c01 = t;
      }
      if (tri) {
        OUT("%lld %lld %lld %lld\n", (long long)++*tag, c00, c10, c11);
        OUT("%lld %lld %lld %lld\n", (long long)++*tag, c00, c11, c01);
      } else {
        OUT("%lld %lld %lld %lld %lld\n", (long long)++*tag, c00, c10, c11, c01);
      }
    }
  return 0;
}

/* Cells a box cell is split into, and the Gmsh type of the cells. */
static int box_per(const pm_gen_t *o) {
  return o->tet || o->pyramid ? 6 : o->prism ? 2 : 1;
}
static int box_type(const pm_gen_t *o) {
  return o->tet ? 4 : o->prism ? 6 : o->pyramid ? 7 : 5;
}

/* The cells of the box, tags 1..C in cell order (i fastest), the tetrahedra, prisms or pyramids
 * of a cell consecutive.  A cell's corner (di, dj, dk) is c[di + 2 dj + 4 dk]; its centre (a
 * pyramids' apex) is node NN + 1 + the cell's number. */
static int box_write_cells(FILE *f, const pm_gen_t *o) {
  const int64_t ncell = (o->nx - 1) * (o->ny - 1) * (o->nz - 1), nn = o->nx * o->ny * o->nz;
  const int per = box_per(o);
  /* The six paths from corner 0 to corner 7 along the axes, each a tetrahedron; those from an
   * odd permutation of the axes are listed with two vertices swapped, so that all are positive. */
  static const int8_t kuhn[6][4] = {{0, 1, 3, 7}, {0, 5, 1, 7}, {0, 3, 2, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 6, 4, 7}};
  /* A pyramid on each face, its base counter-clockwise seen from the centre. */
  static const int8_t face[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {1, 5, 7, 3}, {2, 3, 7, 6}, {0, 2, 6, 4}};
  int64_t tag = 0;
  OUT("3 1 %d %lld\n", box_type(o), (long long)(ncell * per));
  for (int64_t k = 0; k < o->nz - 1; k++)
    for (int64_t j = 0; j < o->ny - 1; j++)
      for (int64_t i = 0; i < o->nx - 1; i++) {
        long long c[8];
        for (int m = 0; m < 8; m++) c[m] = box_node(o, i + (m & 1), j + (m >> 1 & 1), k + (m >> 2));
        if (o->tet) {
          for (int t = 0; t < 6; t++)
            OUT("%lld %lld %lld %lld %lld\n", (long long)++tag, c[kuhn[t][0]], c[kuhn[t][1]], c[kuhn[t][2]],
                c[kuhn[t][3]]);
        } else if (o->pyramid) {
          long long apex = nn + 1 + tag / 6;
          for (int t = 0; t < 6; t++)
            OUT("%lld %lld %lld %lld %lld %lld\n", (long long)++tag, c[face[t][0]], c[face[t][1]], c[face[t][2]],
                c[face[t][3]], apex);
        } else if (o->prism) {
          OUT("%lld %lld %lld %lld %lld %lld %lld\n", (long long)++tag, c[0], c[1], c[3], c[4], c[5], c[7]);
          OUT("%lld %lld %lld %lld %lld %lld %lld\n", (long long)++tag, c[0], c[3], c[2], c[4], c[7], c[6]);
        } else {
          OUT("%lld %lld %lld %lld %lld %lld %lld %lld %lld\n", (long long)++tag, c[0], c[1], c[3], c[2], c[4], c[5],
              c[7], c[6]);
        }
      }
  return 0;
}

/* The box.  Entities: surfaces 1..6 (xmin, xmax, ymin, ymax, zmin, zmax: physical tags 1..6,
 * and 7 "boundary"), volume 1 bounded by them (physical tag 8, "domain"); no points or curves,
 * and every node on the volume. */
static int write_box(FILE *f, const pm_gen_t *o) {
  const int64_t ncentre = o->pyramid ? (o->nx - 1) * (o->ny - 1) * (o->nz - 1) : 0;
  const int64_t nn = o->nx * o->ny * o->nz + ncentre;
  const int64_t ncell = (o->nx - 1) * (o->ny - 1) * (o->nz - 1) * box_per(o);
  const double len[3] = {o->lx, o->ly, o->lz};
  static const char *const names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};

  if (write_header(f)) return -1;
  OUT("$PhysicalNames\n8\n");
  for (int s = 0; s < 6; s++) OUT("2 %d \"%s\"\n", s + 1, names[s]);
  OUT("2 7 \"boundary\"\n3 8 \"domain\"\n$EndPhysicalNames\n");
  OUT("$Entities\n0 0 6 1\n");
  for (int s = 0; s < 6; s++) {
    double lo[3] = {0, 0, 0}, hi[3] = {o->lx, o->ly, o->lz};
    lo[s / 2] = hi[s / 2] = s % 2 ? len[s / 2] : 0;
    OUT("%d %.17g %.17g %.17g %.17g %.17g %.17g 2 %d 7 0\n", s + 1, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], s + 1);
  }
  OUT("1 0 0 0 %.17g %.17g %.17g 1 8 6 -1 2 -3 4 -5 6\n", o->lx, o->ly, o->lz);
  OUT("$EndEntities\n");

  OUT("$Nodes\n1 %lld 1 %lld\n3 1 0 %lld\n", (long long)nn, (long long)nn, (long long)nn);
  for (int64_t t = 1; t <= nn; t++) OUT("%lld\n", (long long)t);
  for (int64_t k = 0; k < o->nz; k++) {
    const double z = grid_coord(k, o->nz, o->lz);
    for (int64_t j = 0; j < o->ny; j++) {
      const double y = grid_coord(j, o->ny, o->ly);
      for (int64_t i = 0; i < o->nx; i++) OUT("%.17g %.17g %.17g\n", grid_coord(i, o->nx, o->lx), y, z);
    }
  }
  for (int64_t k = 0; k < o->nz - 1 && ncentre; k++) /* the cells' centres, in cell order */
    for (int64_t j = 0; j < o->ny - 1; j++)
      for (int64_t i = 0; i < o->nx - 1; i++)
        OUT("%.17g %.17g %.17g\n", 0.5 * (grid_coord(i, o->nx, o->lx) + grid_coord(i + 1, o->nx, o->lx)),
            0.5 * (grid_coord(j, o->ny, o->ly) + grid_coord(j + 1, o->ny, o->ly)),
            0.5 * (grid_coord(k, o->nz, o->lz) + grid_coord(k + 1, o->nz, o->lz)));
  OUT("$EndNodes\n");

  int64_t nface = 0;
  for (int s = 0; s < 6; s++) nface += box_face_count(o, s);
  OUT("$Elements\n7 %lld 1 %lld\n", (long long)(ncell + nface), (long long)(ncell + nface));
  if (box_write_cells(f, o)) return -1;
  int64_t tag = ncell;
  for (int s = 0; s < 6; s++)
    if (box_write_face(f, o, s, &tag)) return -1;
  OUT("$EndElements\n");
  return 0;
}

#undef OUT
#undef XYZ

static int write_any(FILE *f, const pm_gen_t *g) {
  return g->kind == PM_GEN_LINE ? write_line(f, g) : g->kind == PM_GEN_GRID ? write_grid(f, g) : write_box(f, g);
}

static int check_box(const pm_gen_t *g) {
  const int64_t m = PM_GEN_MAX_NODES;
  PM_CHECK(g->nx >= 2 && g->ny >= 2 && g->nz >= 2 && g->nx <= m / 4 && g->ny <= m / 4 && g->nz <= m / 4 &&
               g->nx * g->ny <= m / 2 && g->nx * g->ny * g->nz <= m,
           PM_ERR_ARG, "pm_gen: a %lld x %lld x %lld box: NX, NY, NZ must be >= 2 with at most %lld nodes",
           (long long)g->nx, (long long)g->ny, (long long)g->nz, (long long)m);
  PM_CHECK(g->lx > 0 && g->ly > 0 && g->lz > 0 && isfinite(g->lx) && isfinite(g->ly) && isfinite(g->lz), PM_ERR_ARG,
           "pm_gen: the box's lengths %g x %g x %g must be finite and > 0", g->lx, g->ly, g->lz);
  PM_CHECK(g->tet + g->prism + g->pyramid <= 1 && g->tet >= 0 && g->prism >= 0 && g->pyramid >= 0, PM_ERR_ARG,
           "pm_gen: a box of tetrahedra, of prisms or of pyramids: one of them");
  PM_CHECK(!g->pyramid || 2 * g->nx * g->ny * g->nz <= m, PM_ERR_ARG,
           "pm_gen: a %lld x %lld x %lld box of pyramids (and its cells' centres) has more than %lld nodes",
           (long long)g->nx, (long long)g->ny, (long long)g->nz, (long long)m);
  return PM_OK;
}

static int check(const pm_gen_t *g) {
  PM_CHECK(g, PM_ERR_ARG, "pm_gen: no mesh");
  if (g->kind == PM_GEN_LINE) {
    PM_CHECK(g->ne >= 1 && g->ne < PM_GEN_MAX_NODES, PM_ERR_ARG, "pm_gen: NE = %lld is out of range (1..%lld)",
             (long long)g->ne, PM_GEN_MAX_NODES - 1);
    PM_CHECK(g->dx > 0 && isfinite(g->dx) && isfinite((double)g->ne * g->dx), PM_ERR_ARG,
             "pm_gen: DX = %g: the bar length must be finite and > 0", g->dx);
    return PM_OK;
  }
  if (g->kind == PM_GEN_BOX) return check_box(g);
  PM_CHECK(g->kind == PM_GEN_GRID, PM_ERR_ARG, "pm_gen: unknown mesh kind %d", (int)g->kind);
  PM_CHECK(g->nx >= 2 && g->ny >= 2 && g->nx <= PM_GEN_MAX_NODES / 2 && g->ny <= PM_GEN_MAX_NODES / 2 &&
               g->nx * g->ny <= PM_GEN_MAX_NODES,
           PM_ERR_ARG, "pm_gen: a %lld x %lld grid: NX, NY must be >= 2 with at most %lld nodes", (long long)g->nx,
           (long long)g->ny, PM_GEN_MAX_NODES);
  PM_CHECK(g->lx > 0 && g->ly > 0 && isfinite(g->lx) && isfinite(g->ly), PM_ERR_ARG,
           "pm_gen: the grid's lengths %g x %g must be finite and > 0", g->lx, g->ly);
  return PM_OK;
}

int pm_gen_write(FILE *f, const pm_gen_t *g) {
  PM_CALL(check(g));
  errno = 0;
  int rc = write_any(f, g);
  PM_CHECK(rc == 0, PM_ERR_IO, "writing the mesh: %s", errno ? strerror(errno) : "write error");
  return PM_OK;
}

int pm_gen_save(const char *path, const pm_gen_t *g) {
  enum { BUF = 1 << 22 }; /* 4 MiB: a 1000x1000 grid is ~60 MB of text */
  PM_CALL(check(g));
  PM_CHECK(path && *path, PM_ERR_ARG, "pm_gen: no output file");
  size_t n = strlen(path) + 32;
  char *tmp = NULL, *buf = NULL;
  PM_CALL(PM_MALLOC(tmp, n, "file name"));
  if (PM_MALLOC(buf, BUF, "output buffer")) {
    free(tmp);
    return PM_ERR_MEMORY;
  }
  snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) {
    int ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "cannot create '%s': %s (is the directory writable?)", tmp,
                            strerror(errno));
    free(tmp);
    free(buf);
    return ierr;
  }
  (void)setvbuf(f, buf, _IOFBF, BUF); /* if refused, stdio's own buffer is slower */
  errno = 0;
  int rc = write_any(f, g);
  if (rc == 0 && fflush(f) != 0) rc = -1;
  if (rc == 0 && ferror(f)) rc = -1;
  int saved = errno;
  if (fclose(f) != 0 && rc == 0) {
    rc = -1;
    saved = errno;
  }
  int ierr = PM_OK;
  if (rc != 0)
    ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "cannot write '%s': %s (disk full?)", tmp,
                        saved ? strerror(saved) : "write error");
  else if (rename(tmp, path) != 0)
    ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
  if (ierr) remove(tmp);
  free(tmp);
  free(buf); /* after fclose: the stream used it */
  return ierr;
}
