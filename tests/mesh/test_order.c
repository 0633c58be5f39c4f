/* test_order.c - pm_mesh_reorder against the test's own computation.  Serial.
 *
 * For every bundled mesh, and for square.msh with its nodes scrambled by the test first:
 *  - the mesh stays the same mesh: the same coordinates (a permutation, reported by node_perm),
 *    every element with the same type and the same node coordinates in the same order, every
 *    face's and every group's nodes and elements at the same places; node ids unchanged and
 *    element ids the same set, ascending;
 *  - the numbering is local: on the scrambled mesh the mean id distance between the nodes of an
 *    element falls from about a third of the node count (random) to below sqrt(node count) (a
 *    curve through a 2D mesh keeps neighbours about a row of the mesh apart), and in 3D (meshgen's
 *    box, a Gmsh tetrahedral mesh) below n^(2/3) (a plane apart); on an 8x8 grid and an 8x8x8
 *    box, consecutive nodes along the curve are one grid step apart (the 2D and 3D curves);
 *  - a mesh on the x axis (the bar) is numbered left to right;
 *  - "none" changes nothing; unknown names are refused. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_gen.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_order.h"
#include "tu_check.h"

/* A deep copy of the arrays the test compares. */
typedef struct snap {
  int64_t n, ne, nf;
  double *xyz;
  int8_t *etype;
  int64_t *eptr, *enode, *egid, *fnode;
} snap_t;

static snap_t take(const pm_mesh_t *m) {
  snap_t s = {m->n_nodes, m->n_elems, m->n_faces, NULL, NULL, NULL, NULL, NULL, NULL};
  s.xyz = malloc(3 * (size_t)s.n * sizeof *s.xyz);
  memcpy(s.xyz, m->xyz, 3 * (size_t)s.n * sizeof *s.xyz);
  s.etype = malloc((size_t)s.ne + 1);
  memcpy(s.etype, m->elem_type, (size_t)s.ne);
  s.eptr = malloc(((size_t)s.ne + 1) * sizeof *s.eptr);
  memcpy(s.eptr, m->elem_ptr, ((size_t)s.ne + 1) * sizeof *s.eptr);
  s.enode = malloc(((size_t)s.eptr[s.ne] + 1) * sizeof *s.enode);
  memcpy(s.enode, m->elem_node, (size_t)s.eptr[s.ne] * sizeof *s.enode);
  s.egid = malloc(((size_t)s.ne + 1) * sizeof *s.egid);
  memcpy(s.egid, m->elem_gid, (size_t)s.ne * sizeof *s.egid);
  s.fnode = malloc(((size_t)m->face_ptr[s.nf] + 1) * sizeof *s.fnode);
  memcpy(s.fnode, m->face_node, (size_t)m->face_ptr[s.nf] * sizeof *s.fnode);
  return s;
}

static void drop(snap_t *s) {
  free(s->xyz);
  free(s->etype);
  free(s->eptr);
  free(s->enode);
  free(s->egid);
  free(s->fnode);
}

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

static int same_point(const double *a, const double *b) {
  return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* Mean |id(a) - id(b)| over pairs of nodes of an element. */
static double spread(const pm_mesh_t *m) {
  double s = 0;
  long c = 0;
  for (int64_t e = 0; e < m->n_elems; e++)
    for (int64_t p = m->elem_ptr[e]; p < m->elem_ptr[e + 1]; p++)
      for (int64_t q = p + 1; q < m->elem_ptr[e + 1]; q++) {
        int64_t d = m->elem_node[p] - m->elem_node[q];
        s += (double)(d < 0 ? -d : d);
        c++;
      }
  return c ? s / (double)c : 0;
}

/* Reorder m and check it is the same mesh as before. */
static void check_same(const char *name, pm_mesh_t *m) {
  snap_t s = take(m);
  int64_t *gid0 = malloc((size_t)m->n_nodes * sizeof *gid0), *perm = NULL;
  memcpy(gid0, m->node_gid, (size_t)m->n_nodes * sizeof *gid0);
  /* Groups by coordinates of their nodes (sums are order-free) and by element count. */
  double *gsum = calloc(2 * (size_t)m->n_groups + 1, sizeof *gsum);
  for (int g = 0; g < m->n_groups; g++)
    for (int64_t k = 0; k < m->groups[g].n_nodes; k++) {
      gsum[2 * g] += m->xyz[3 * m->groups[g].nodes[k]];
      gsum[2 * g + 1] += m->xyz[3 * m->groups[g].nodes[k] + 1];
    }
  OK(pm_mesh_reorder(m, PM_ORDER_HILBERT, &perm));
  EXPECT(perm != NULL, "%s: no permutation returned", name);
  if (!perm) return;
  int64_t *inv = malloc((size_t)m->n_nodes * sizeof *inv);
  for (int64_t k = 0; k < m->n_nodes; k++) inv[perm[k]] = k;
  long bad = 0;
  for (int64_t k = 0; k < m->n_nodes; k++) {
    bad += !same_point(m->xyz + 3 * k, s.xyz + 3 * perm[k]);
    bad += m->node_gid[k] != gid0[k];
  }
  EXPECT(bad == 0, "%s: %ld node coordinates or ids do not follow the permutation", name, bad);
  /* Elements: match old ones by their first node's new index and the full node list. */
  long emiss = 0;
  int64_t *seen = calloc((size_t)m->n_elems + 1, sizeof *seen);
  for (int64_t e = 0; e < s.ne; e++) {
    int found = 0;
    int64_t len = s.eptr[e + 1] - s.eptr[e];
    for (int64_t f = 0; f < m->n_elems && !found; f++) {
      if (seen[f] || m->elem_ptr[f + 1] - m->elem_ptr[f] != len || m->elem_type[f] != s.etype[e]) continue;
      int all = 1;
      for (int64_t q = 0; q < len && all; q++) all = m->elem_node[m->elem_ptr[f] + q] == inv[s.enode[s.eptr[e] + q]];
      if (all) found = 1, seen[f] = 1;
    }
    emiss += !found;
  }
  EXPECT(emiss == 0, "%s: %ld elements lost their nodes, type or node order", name, emiss);
  long gbad = 0;
  for (int64_t e = 0; e + 1 < m->n_elems; e++) gbad += m->elem_gid[e] >= m->elem_gid[e + 1];
  qsort(s.egid, (size_t)s.ne, sizeof *s.egid, cmp_i64);
  for (int64_t e = 0; e < m->n_elems; e++) gbad += m->elem_gid[e] != s.egid[e];
  EXPECT(gbad == 0, "%s: element ids are not the old set in ascending order", name);
  long fbad = 0;
  for (int64_t q = 0; q < m->face_ptr[m->n_faces]; q++) fbad += m->face_node[q] != inv[s.fnode[q]];
  EXPECT(fbad == 0, "%s: %ld face node references do not follow the nodes", name, fbad);
  for (int g = 0; g < m->n_groups; g++) {
    double sx = 0, sy = 0;
    long asc = 0;
    for (int64_t k = 0; k < m->groups[g].n_nodes; k++) {
      sx += m->xyz[3 * m->groups[g].nodes[k]];
      sy += m->xyz[3 * m->groups[g].nodes[k] + 1];
      if (k) asc += m->groups[g].nodes[k - 1] >= m->groups[g].nodes[k];
    }
    for (int64_t k = 1; k < m->groups[g].n_elems; k++) asc += m->groups[g].elems[k - 1] >= m->groups[g].elems[k];
    double tol = 1e-9 * (1.0 + (double)m->groups[g].n_nodes);
    EXPECT(asc == 0, "%s: group %s lists are not ascending", name, m->groups[g].name);
    EXPECT(sx - gsum[2 * g] < tol && gsum[2 * g] - sx < tol && sy - gsum[2 * g + 1] < tol && gsum[2 * g + 1] - sy < tol,
           "%s: group %s has other nodes after reordering", name, m->groups[g].name);
  }
  free(seen);
  free(inv);
  free(perm);
  free(gid0);
  free(gsum);
  drop(&s);
}

static pm_mesh_t *read_mesh(const char *name) {
  char path[1024];
  const char *dir = getenv("PMESH_MESHES");
  snprintf(path, sizeof path, "%s/%s.msh", dir ? dir : "meshes", name);
  pm_mesh_t *m = NULL;
  OK(pm_mesh_read(path, &m, NULL));
  return m;
}

/* Mesh m (square.msh, 513 nodes of unstructured triangles; a 3D box; a 3D Gmsh mesh), its nodes
 * dealt out in a scrambled order, then reordered: the spread must fall below n^((d-1)/d) (a curve
 * through a d-dimensional mesh keeps neighbours about a row (2D) or a plane (3D) of the mesh
 * apart). */
static void scrambled(const char *name, pm_mesh_t *m) {
  int64_t n = m->n_nodes, *perm = malloc((size_t)n * sizeof *perm), *inv = malloc((size_t)n * sizeof *inv);
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  unsigned long r = 12345;
  for (int64_t i = n - 1; i > 0; i--) { /* Fisher-Yates with a fixed LCG: the same every run */
    r = r * 6364136223846793005ul + 1442695040888963407ul;
    int64_t j = (int64_t)((r >> 33) % (unsigned long)(i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  double *xyz = malloc(3 * (size_t)n * sizeof *xyz);
  for (int64_t k = 0; k < n; k++) {
    inv[perm[k]] = k;
    memcpy(xyz + 3 * k, m->xyz + 3 * perm[k], 3 * sizeof *xyz);
  }
  memcpy(m->xyz, xyz, 3 * (size_t)n * sizeof *xyz);
  for (int64_t q = 0; q < m->elem_ptr[m->n_elems]; q++) m->elem_node[q] = inv[m->elem_node[q]];
  for (int64_t q = 0; q < m->face_ptr[m->n_faces]; q++) m->face_node[q] = inv[m->face_node[q]];
  for (int g = 0; g < m->n_groups; g++) {
    for (int64_t k = 0; k < m->groups[g].n_nodes; k++) m->groups[g].nodes[k] = inv[m->groups[g].nodes[k]];
    qsort(m->groups[g].nodes, (size_t)m->groups[g].n_nodes, sizeof(int64_t), cmp_i64);
  }
  double before = spread(m);
  check_same(name, m);
  double after = spread(m), bound = m->dim == 3 ? pow((double)n, 2.0 / 3.0) : sqrt((double)n);
  printf("scrambled %s (%lld nodes): mean id distance within elements %.1f before, %.1f after (bound %.1f)\n", name,
         (long long)n, before, after, bound);
  EXPECT(before > 0.2 * (double)n, "%s: the scrambled mesh is not scrambled (spread %.1f)", name, before);
  EXPECT(after < bound, "%s: the Hilbert order is not local: spread %.1f of %lld nodes", name, after, (long long)n);
  free(xyz);
  free(perm);
  free(inv);
  pm_mesh_destroy(&m);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  const char *names[] = {"bar", "square", "mixed", "lshape", "disk_hole"};
  for (int k = 0; k < 5; k++) {
    pm_mesh_t *m = read_mesh(names[k]);
    double before = spread(m);
    check_same(names[k], m);
    printf("%s: %lld nodes, mean id distance within elements %.1f before, %.1f after\n", names[k],
           (long long)m->n_nodes, before, spread(m));
    if (m->dim == 1) {
      long back = 0;
      for (int64_t i = 0; i + 1 < m->n_nodes; i++) back += m->xyz[3 * (i + 1)] <= m->xyz[3 * i];
      EXPECT(back == 0, "bar: %ld nodes are not numbered left to right", back);
    }
    pm_mesh_destroy(&m);
  }
  scrambled("square", read_mesh("square"));
  /* 3D: meshgen's box of hexahedra and tetrahedra, and Gmsh's tetrahedra around a hole. */
  for (int tet = 0; tet < 2; tet++) {
    pm_gen_t g = {.kind = PM_GEN_BOX, .nx = 14, .ny = 12, .nz = 10, .lx = 1, .ly = 1, .lz = 1, .tet = tet};
    char path[64];
    snprintf(path, sizeof path, "test_order.%ld.msh", (long)getpid());
    OK(pm_gen_save(path, &g));
    pm_mesh_t *b = NULL;
    OK(pm_mesh_read(path, &b, NULL));
    remove(path);
    scrambled(tet ? "box of tetrahedra" : "box of hexahedra", b);
  }
  /* The curve itself: on an 8^d node grid (8 = 2^3, so each node sits in its own dyadic cell of
   * the curve's third level) consecutive nodes along a Hilbert curve are grid neighbours, one
   * step apart.  A 2D curve through a 3D grid, or a row-by-row order, jumps. */
  for (int d = 2; d <= 3; d++) {
    pm_gen_t g = {.kind = d == 3 ? PM_GEN_BOX : PM_GEN_GRID, .nx = 8, .ny = 8, .nz = 8, .lx = 7, .ly = 7, .lz = 7};
    char gpath[64];
    snprintf(gpath, sizeof gpath, "test_order.%ld.msh", (long)getpid());
    OK(pm_gen_save(gpath, &g));
    pm_mesh_t *b = NULL;
    OK(pm_mesh_read(gpath, &b, NULL));
    remove(gpath);
    OK(pm_mesh_reorder(b, PM_ORDER_HILBERT, NULL));
    long jumps = 0;
    for (int64_t k = 0; k + 1 < b->n_nodes; k++) {
      double step = 0;
      for (int c = 0; c < 3; c++) step += fabs(b->xyz[3 * (k + 1) + c] - b->xyz[3 * k + c]);
      jumps += fabs(step - 1.0) > 1e-9;
    }
    EXPECT(jumps == 0, "%dD Hilbert curve on an 8^%d grid: %ld steps between consecutive nodes are not one grid step", d,
           d, jumps);
    pm_mesh_destroy(&b);
  }
  const char *tests = getenv("PMESH_TESTS");
  char path[2048];
  snprintf(path, sizeof path, "%s/common/meshes3d/tet_hole_41.msh", tests ? tests : "tests");
  pm_mesh_t *th = NULL;
  OK(pm_mesh_read(path, &th, NULL));
  scrambled("tet_hole_41", th);
  pm_mesh_t *m = read_mesh("mixed");
  snap_t s = take(m);
  OK(pm_mesh_reorder(m, PM_ORDER_NONE, NULL));
  EXPECT(memcmp(s.xyz, m->xyz, 3 * (size_t)s.n * sizeof *s.xyz) == 0 &&
             memcmp(s.enode, m->elem_node, (size_t)s.eptr[s.ne] * sizeof *s.enode) == 0,
         "order none changed the mesh");
  drop(&s);
  pm_mesh_destroy(&m);
  pm_order_t o;
  EXPECT(pm_order_parse("hilbert", &o) == PM_OK && o == PM_ORDER_HILBERT, "hilbert not parsed");
  EXPECT(pm_order_parse("none", &o) == PM_OK && o == PM_ORDER_NONE, "none not parsed");
  EXPECT(pm_order_parse("rcm", &o) == PM_ERR_ARG && strstr(pm_error_message(), "expected none or hilbert"),
         "an unknown order was not refused clearly: %s", pm_error_message());
  EXPECT(strcmp(pm_order_name(PM_ORDER_HILBERT), "hilbert") == 0, "name of hilbert");
  if (!g_fail) printf("test_order: all checks passed\n");
  MPI_Finalize();
  return g_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
