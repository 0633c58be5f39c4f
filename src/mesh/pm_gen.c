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

#undef OUT
#undef XYZ

static int check(const pm_gen_t *g) {
  PM_CHECK(g, PM_ERR_ARG, "pm_gen: no mesh");
  if (g->kind == PM_GEN_LINE) {
    PM_CHECK(g->ne >= 1 && g->ne < PM_GEN_MAX_NODES, PM_ERR_ARG, "pm_gen: NE = %lld is out of range (1..%lld)",
             (long long)g->ne, PM_GEN_MAX_NODES - 1);
    PM_CHECK(g->dx > 0 && isfinite(g->dx) && isfinite((double)g->ne * g->dx), PM_ERR_ARG,
             "pm_gen: DX = %g: the bar length must be finite and > 0", g->dx);
    return PM_OK;
  }
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
  int rc = g->kind == PM_GEN_LINE ? write_line(f, g) : write_grid(f, g);
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
  int rc = g->kind == PM_GEN_LINE ? write_line(f, g) : write_grid(f, g);
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
