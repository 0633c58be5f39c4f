/* meshgen.c - writes the lecture's special meshes as ordinary Gmsh MSH 4.1 ASCII files.
 *
 *   meshgen line NE DX -o FILE                 the 1D bar: NE lines of length DX
 *   meshgen grid NX NY [LX LY] [--tri] -o FILE  an NX x NY node grid of quads (or triangles)
 *   meshgen box NX NY NZ [LX LY LZ] [--tet|--prism|--pyramid] -o FILE   a box of hexahedra (or
 *                                                          tets, prisms, pyramids)
 *
 * The point is that the lecture's 1D bar and 8x8 grid then reach the solver through the same
 * reader, partitioner and physical groups as any Gmsh mesh: no special code paths.  The meshes
 * and their atomic output are the library's (pm_gen.h); this is options -> pm_gen_save. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_gen.h"
#include "pmesh/pm_version.h"

static const char *const usage_text =
    "usage: meshgen line NE DX -o FILE\n"
    "       meshgen grid NX NY [LX LY] [--tri] -o FILE\n"
    "       meshgen box NX NY NZ [LX LY LZ] [--tet | --prism | --pyramid] -o FILE\n"
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
    "  box NX NY NZ NX x NY x NZ nodes (each >= 2) on [0,LX]x[0,LY]x[0,LZ] (default unit\n"
    "               spacing), tags (k*NY+j)*NX+i+1; hexahedra, or six tetrahedra per cell with\n"
    "               --tet, two prisms per cell with --prism, or six pyramids per cell (apex\n"
    "               at its centre, a node after the grid's) with --pyramid; physical surfaces \"xmin\",\n"
    "               \"xmax\", \"ymin\", \"ymax\", \"zmin\", \"zmax\" and \"boundary\", physical\n"
    "               volume \"domain\".\n"
    "\n"
    "  -o FILE      output file (required); written to FILE.tmp.<pid>, then renamed\n"
    "  --tri        grid: triangles instead of quadrangles\n"
    "  --tet        box: tetrahedra instead of hexahedra\n"
    "  --prism      box: prisms instead of hexahedra\n"
    "  --pyramid    box: pyramids instead of hexahedra\n"
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

enum mode { MODE_NONE, MODE_LINE, MODE_GRID, MODE_BOX };

typedef struct options {
  enum mode mode;
  const char *output;
  int tri, tet, prism, pyramid;
  int64_t ne;         /* line */
  double dx;          /* line */
  int64_t nx, ny, nz; /* grid, box (nz) */
  double lx, ly, lz;  /* grid, box (lz) */
} options_t;

/* Parse a whole argument as an integer in [lo, hi]; reports and returns -1 otherwise. */
static int parse_int(const char *what, const char *s, long long lo, long long hi, int64_t *out) {
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

/* The box's sizes: NX NY NZ [LX LY LZ]. */
static int parse_box(int npos, const char **pos, options_t *o) {
  o->mode = MODE_BOX;
  if (npos != 4 && npos != 7) {
    error("'box' takes NX NY NZ or NX NY NZ LX LY LZ (got %d numbers)", npos - 1);
    return -1;
  }
  if (o->tri) {
    error("option '--tri' applies to 'grid' only (a box takes --tet, --prism or --pyramid)");
    return -1;
  }
  if (o->tet + o->prism + o->pyramid > 1) {
    error("options '--tet', '--prism' and '--pyramid' exclude each other");
    return -1;
  }
  if (parse_int("NX", pos[1], 2, PM_GEN_MAX_NODES / 4, &o->nx)) return -1;
  if (parse_int("NY", pos[2], 2, PM_GEN_MAX_NODES / 4, &o->ny)) return -1;
  if (parse_int("NZ", pos[3], 2, PM_GEN_MAX_NODES / 4, &o->nz)) return -1;
  /* Each factor is <= 2.5e8: NX*NY cannot overflow, and is checked before the third factor. */
  if (o->nx * o->ny > PM_GEN_MAX_NODES / 2 || o->nx * o->ny * o->nz > PM_GEN_MAX_NODES) {
    error("NX*NY*NZ is too many nodes (at most %lld)", PM_GEN_MAX_NODES);
    return -1;
  }
  o->lx = (double)(o->nx - 1);
  o->ly = (double)(o->ny - 1);
  o->lz = (double)(o->nz - 1);
  if (npos == 7) {
    if (parse_positive("LX", pos[4], &o->lx)) return -1;
    if (parse_positive("LY", pos[5], &o->ly)) return -1;
    if (parse_positive("LZ", pos[6], &o->lz)) return -1;
  }
  return 0;
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
    } else if (strcmp(a, "--tet") == 0) {
      o->tet = 1;
    } else if (strcmp(a, "--prism") == 0) {
      o->prism = 1;
    } else if (strcmp(a, "--pyramid") == 0) {
      o->pyramid = 1;
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
    error("missing mesh kind: 'line', 'grid' or 'box' (try 'meshgen --help')");
    return -1;
  }
  if (strcmp(pos[0], "line") == 0) {
    o->mode = MODE_LINE;
    if (npos != 3) {
      error("'line' takes exactly 2 numbers: NE DX (got %d)", npos - 1);
      return -1;
    }
    if (o->tri || o->tet || o->prism || o->pyramid) {
      error("option '%s' applies to '%s' only",
            o->tri     ? "--tri"
            : o->tet   ? "--tet"
            : o->prism ? "--prism"
                       : "--pyramid",
            o->tri ? "grid" : "box");
      return -1;
    }
    if (parse_int("NE", pos[1], 1, PM_GEN_MAX_NODES - 1, &o->ne)) return -1;
    if (parse_positive("DX", pos[2], &o->dx)) return -1;
    if (!isfinite((double)o->ne * o->dx)) {
      error("the bar length NE*DX = %s*%s overflows", pos[1], pos[2]);
      return -1;
    }
  } else if (strcmp(pos[0], "box") == 0) {
    if (parse_box(npos, pos, o)) return -1;
  } else if (strcmp(pos[0], "grid") == 0) {
    o->mode = MODE_GRID;
    if (o->tet || o->prism || o->pyramid) {
      error("option '%s' applies to 'box' only", o->tet ? "--tet" : o->prism ? "--prism" : "--pyramid");
      return -1;
    }
    if (npos != 3 && npos != 5) {
      error("'grid' takes NX NY or NX NY LX LY (got %d numbers)", npos - 1);
      return -1;
    }
    if (parse_int("NX", pos[1], 2, PM_GEN_MAX_NODES / 2, &o->nx)) return -1;
    if (parse_int("NY", pos[2], 2, PM_GEN_MAX_NODES / 2, &o->ny)) return -1;
    /* Both factors are <= 5e8, so the product cannot overflow int64_t. */
    if (o->nx * o->ny > PM_GEN_MAX_NODES) {
      error("NX*NY = %lld nodes is too many (at most %lld)", (long long)(o->nx * o->ny), PM_GEN_MAX_NODES);
      return -1;
    }
    o->lx = (double)(o->nx - 1);
    o->ly = (double)(o->ny - 1);
    if (npos == 5) {
      if (parse_positive("LX", pos[3], &o->lx)) return -1;
      if (parse_positive("LY", pos[4], &o->ly)) return -1;
    }
  } else {
    error("unknown mesh kind '%s': expected 'line', 'grid' or 'box'", pos[0]);
    return -1;
  }
  if (!o->output) {
    error("missing output file: -o FILE");
    return -1;
  }
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
  pm_gen_t g = {.kind = o.mode == MODE_LINE   ? PM_GEN_LINE
                        : o.mode == MODE_GRID ? PM_GEN_GRID
                                              : PM_GEN_BOX,
                .ne = o.ne,
                .dx = o.dx,
                .nx = o.nx,
                .ny = o.ny,
                .lx = o.lx,
                .ly = o.ly,
                .tri = o.tri,
                .nz = o.nz,
                .lz = o.lz,
                .tet = o.tet,
                .prism = o.prism,
                .pyramid = o.pyramid};
  if (pm_gen_save(o.output, &g) == PM_OK) return EXIT_SUCCESS;
  error("%s", pm_error_message());
  return EXIT_FAILURE;
}
