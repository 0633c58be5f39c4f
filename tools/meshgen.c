/* meshgen.c - writes the lecture's special meshes as ordinary Gmsh MSH 4.1 ASCII files.
 *
 *   meshgen line NE DX -o FILE                 the 1D bar: NE lines of length DX
 *   meshgen grid NX NY [LX LY] [--tri] -o FILE  an NX x NY node grid of quads (or triangles)
 *
 * The point is that the lecture's 1D bar and 8x8 grid then reach the solver through the same
 * reader, partitioner and physical groups as any Gmsh mesh: no special code paths.  Nodes are
 * classified on the lowest-dimensional entity they lie on, as Gmsh does (corner nodes on
 * points, edge nodes on curves), and every boundary has a named physical group.
 *
 * Output goes to FILE.tmp.<pid> in the same directory and is renamed to FILE only when
 * complete, so a failure (bad disk, disk full) never leaves a partial mesh behind. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_version.h"

/* Largest mesh accepted: beyond ~1e9 nodes the ASCII file would be tens of gigabytes, which
 * is never what was meant; the limit also keeps every count far inside int64_t. */
#define MESHGEN_MAX_NODES 1000000000LL

static const char *const usage_text =
    "usage: meshgen line NE DX -o FILE\n"
    "       meshgen grid NX NY [LX LY] [--tri] -o FILE\n"
    "       meshgen --help | --version\n"
    "\n"
    "Writes a Gmsh MSH 4.1 ASCII mesh.\n"
    "\n"
    "  line NE DX   1D bar of NE >= 1 line elements of length DX > 0: nodes 1..NE+1 at\n"
    "               x = (i-1)*DX; physical points \"xmin\", \"xmax\" and physical curve \"bar\".\n"
    "  grid NX NY   NX x NY nodes (NX, NY >= 2) on [0,LX]x[0,LY] (default LX = NX-1,\n"
    "               LY = NY-1: unit spacing), tags j*NX+i+1 row by row from the bottom-left;\n"
    "               quadrangles, or two triangles per cell with --tri; physical curves\n"
    "               \"bottom\", \"right\", \"top\", \"left\" and physical surface \"domain\".\n"
    "\n"
    "  -o FILE      output file (required); written to FILE.tmp.<pid>, then renamed\n"
    "  --tri        grid: triangles instead of quadrangles\n"
    "  -h, --help   show this help and exit\n"
    "  --version    show the version and exit\n";

static void error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

static void error(const char *fmt, ...) {
  va_list ap;
  fputs("meshgen: error: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

/* ---------------------------------------------------------------------------------------
 * Option parsing */

enum mode { MODE_NONE, MODE_LINE, MODE_GRID };

typedef struct options {
  enum mode mode;
  const char *output;
  int tri;
  int64_t ne;     /* line */
  double dx;      /* line */
  int64_t nx, ny; /* grid */
  double lx, ly;  /* grid */
} options_t;

/* Parse a whole argument as an integer in [lo, hi]; reports and returns -1 otherwise. */
static int parse_int(const char *what, const char *s, long long lo, long long hi,
                     int64_t *out) {
  char *end;
  long long v;
  errno = 0;
  v = strtoll(s, &end, 10);
  if (end == s || *end != '\0') {
    error("%s must be an integer, got '%s'", what, s);
    return -1;
  }
  if (errno == ERANGE || v < lo || v > hi) {
    error("%s = %s is out of range (allowed %lld..%lld)", what, s, lo, hi);
    return -1;
  }
  *out = (int64_t)v;
  return 0;
}

/* Parse a whole argument as a finite number > 0; reports and returns -1 otherwise. */
static int parse_positive(const char *what, const char *s, double *out) {
  char *end;
  double v;
  errno = 0;
  v = strtod(s, &end);
  if (end == s || *end != '\0') {
    error("%s must be a number, got '%s'", what, s);
    return -1;
  }
  if (errno == ERANGE || !isfinite(v) || !(v > 0.0)) {
    error("%s = %s is out of range (must be finite and > 0)", what, s);
    return -1;
  }
  *out = v;
  return 0;
}

/* An argument that starts with '-' but is a number ("-1", "-.5") is a (bad) value, so that
 * the user is told "NE must be >= 1" rather than "unknown option '-1'". */
static int looks_numeric(const char *s) {
  return s[0] == '-' && (s[1] == '.' || (s[1] >= '0' && s[1] <= '9'));
}

/* Returns 0 to go on, 1 for "done, exit 0" (--help, --version), -1 on error (reported). */
static int parse_args(int argc, char **argv, options_t *o) {
  const char *pos[8];
  int npos = 0, i;

  memset(o, 0, sizeof(*o));
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_text, stdout);
      return 1;
    }
    if (strcmp(a, "--version") == 0) {
      printf("meshgen (pmesh) %s\n", PMESH_VERSION);
      return 1;
    }
  }
  for (i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
      if (i + 1 >= argc) {
        error("option '%s' needs a value (the output file)", a);
        return -1;
      }
      if (argv[i + 1][0] == '\0') {
        error("option '%s': the output file name is empty", a);
        return -1;
      }
      o->output = argv[++i];
    } else if (strcmp(a, "--tri") == 0) {
      o->tri = 1;
    } else if (a[0] == '-' && a[1] != '\0' && !looks_numeric(a)) {
      error("unknown option '%s' (try 'meshgen --help')", a);
      return -1;
    } else {
      if (npos == (int)(sizeof(pos) / sizeof(pos[0]))) {
        error("too many arguments (try 'meshgen --help')");
        return -1;
      }
      pos[npos++] = a;
    }
  }

  if (npos == 0) {
    error("missing mesh kind: 'line' or 'grid' (try 'meshgen --help')");
    return -1;
  }
  if (strcmp(pos[0], "line") == 0) {
    o->mode = MODE_LINE;
    if (npos != 3) {
      error("'line' takes exactly 2 numbers: NE DX (got %d)", npos - 1);
      return -1;
    }
    if (o->tri) {
      error("option '--tri' applies to 'grid' only");
      return -1;
    }
    if (parse_int("NE", pos[1], 1, MESHGEN_MAX_NODES - 1, &o->ne)) return -1;
    if (parse_positive("DX", pos[2], &o->dx)) return -1;
    if (!isfinite((double)o->ne * o->dx)) {
      error("the bar length NE*DX = %s*%s overflows", pos[1], pos[2]);
      return -1;
    }
  } else if (strcmp(pos[0], "grid") == 0) {
    o->mode = MODE_GRID;
    if (npos != 3 && npos != 5) {
      error("'grid' takes NX NY or NX NY LX LY (got %d numbers)", npos - 1);
      return -1;
    }
    if (parse_int("NX", pos[1], 2, MESHGEN_MAX_NODES / 2, &o->nx)) return -1;
    if (parse_int("NY", pos[2], 2, MESHGEN_MAX_NODES / 2, &o->ny)) return -1;
    /* Both factors are <= 5e8, so the product cannot overflow int64_t. */
    if (o->nx * o->ny > MESHGEN_MAX_NODES) {
      error("NX*NY = %lld nodes is too many (at most %lld)", (long long)(o->nx * o->ny),
            MESHGEN_MAX_NODES);
      return -1;
    }
    o->lx = (double)(o->nx - 1);
    o->ly = (double)(o->ny - 1);
    if (npos == 5) {
      if (parse_positive("LX", pos[3], &o->lx)) return -1;
      if (parse_positive("LY", pos[4], &o->ly)) return -1;
    }
  } else {
    error("unknown mesh kind '%s': expected 'line' or 'grid'", pos[0]);
    return -1;
  }
  if (!o->output) {
    error("missing output file: -o FILE");
    return -1;
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------
 * Writers.  Each returns 0, or -1 as soon as a write fails (errno tells why). */

/* Every write goes through OUT so that a full disk is noticed at once. */
#define OUT(...)                                                                          \
  do {                                                                                    \
    if (fprintf(f, __VA_ARGS__) < 0) return -1;                                           \
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
static int write_line(FILE *f, const options_t *o) {
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
  case 1: *i = p, *j = 0; break;
  case 2: *i = nx - 1, *j = p; break;
  case 3: *i = nx - 1 - p, *j = ny - 1; break;
  default: *i = 0, *j = ny - 1 - p; break;
  }
}

/* The grid.  Entities: points 1..4 at the corners (counter-clockwise from (0,0)), curves
 * 1 bottom, 2 right, 3 top, 4 left (physical tags 1..4 of the same names), surface 1
 * (physical tag 5, "domain").  Cells have element tags 1..C (row by row from the bottom-left;
 * with --tri, cell k gives triangles 2k-1 and 2k), then the boundary lines curve by curve. */
static int write_grid(FILE *f, const options_t *o) {
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
    OUT("0 %d 0 1\n%lld\n" XYZ, c + 1, (long long)(j * nx + i + 1), grid_coord(i, nx, lx),
        grid_coord(j, ny, ly));
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
      OUT("%lld %lld %lld\n", (long long)++tag, (long long)(j * nx + i + 1),
          (long long)(j1 * nx + i1 + 1));
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

/* ---------------------------------------------------------------------------------------
 * Atomic output: write FILE.tmp.<pid>, check every step, rename over FILE. */

static int write_file(const options_t *o) {
  static char buf[1 << 22]; /* 4 MiB: a 1000x1000 grid is ~60 MB of text */
  size_t n = strlen(o->output) + 32;
  char *tmp = malloc(n);
  FILE *f;
  int rc, saved;

  if (!tmp) {
    error("out of memory");
    return -1;
  }
  snprintf(tmp, n, "%s.tmp.%ld", o->output, (long)getpid());
  f = fopen(tmp, "w");
  if (!f) {
    error("cannot create '%s': %s (is the directory writable?)", tmp, strerror(errno));
    free(tmp);
    return -1;
  }
  (void)setvbuf(f, buf, _IOFBF, sizeof(buf)); /* if refused, stdio's own buffer is slower */
  errno = 0;
  rc = o->mode == MODE_LINE ? write_line(f, o) : write_grid(f, o);
  if (rc == 0 && fflush(f) != 0) rc = -1;
  if (rc == 0 && ferror(f)) rc = -1;
  saved = errno;
  if (fclose(f) != 0 && rc == 0) {
    rc = -1;
    saved = errno;
  }
  if (rc != 0) {
    error("cannot write '%s': %s (disk full?)", tmp, saved ? strerror(saved) : "write error");
    remove(tmp);
    free(tmp);
    return -1;
  }
  if (rename(tmp, o->output) != 0) {
    error("cannot rename '%s' to '%s': %s", tmp, o->output, strerror(errno));
    remove(tmp);
    free(tmp);
    return -1;
  }
  free(tmp);
  return 0;
}

int main(int argc, char **argv) {
  options_t o;
  int rc = parse_args(argc, argv, &o);
  if (rc > 0) {
    if (fflush(stdout) != 0 || ferror(stdout)) {
      error("cannot write to standard output: %s", strerror(errno));
      return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
  }
  if (rc < 0) return EXIT_FAILURE;
  return write_file(&o) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
