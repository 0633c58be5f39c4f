/* test_mesh3d.c - the global mesh in 3D against geometry and counts from outside pm_mesh:
 *  - the derived group "boundary" of meshgen's box (hexahedra, tetrahedra, prisms; the file's own
 *    "boundary" group renamed first, so that pm_mesh derives it) has exactly the analytic face
 *    count 2 (cx cy + cy cz + cx cz) for cx = nx-1 ... (twice that for tetrahedra; the z faces
 *    twice for prisms), the same faces as the group meshgen wrote, and every face points out of
 *    its cell: its right-hand normal has a positive dot product with face centroid - cell
 *    centroid;
 *  - on every mesh given as an argument (the Gmsh fixtures of tests/common/meshes3d): every
 *    derived face lies on exactly one cell and points out of it, and every physical-surface face
 *    lies on a cell. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_gen.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_msh.h"
#include "tu_check.h"

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int cmp_row(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  for (int i = 0; i < 4; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

static const pm_group_t *find_group(const pm_mesh_t *m, const char *name) {
  for (int g = 0; g < m->n_groups; g++)
    if (strcmp(m->groups[g].name, name) == 0) return &m->groups[g];
  return NULL;
}

/* Node -> cells incidence (CSR). */
typedef struct inc {
  int64_t *ptr, *cell;
} inc_t;

static inc_t incidence(const pm_mesh_t *m) {
  inc_t c = {calloc((size_t)m->n_nodes + 1, sizeof(int64_t)), NULL};
  for (int64_t k = 0; k < m->elem_ptr[m->n_elems]; k++) c.ptr[m->elem_node[k] + 1]++;
  for (int64_t i = 0; i < m->n_nodes; i++) c.ptr[i + 1] += c.ptr[i];
  c.cell = malloc((size_t)c.ptr[m->n_nodes] * sizeof(int64_t) + 1);
  int64_t *fill = calloc((size_t)m->n_nodes + 1, sizeof(int64_t));
  for (int64_t e = 0; e < m->n_elems; e++)
    for (int64_t k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) {
      int64_t v = m->elem_node[k];
      c.cell[c.ptr[v] + fill[v]++] = e;
    }
  free(fill);
  return c;
}

/* The cells holding every node of face f: their count, the last one in *cell. */
static int cells_of_face(const pm_mesh_t *m, const inc_t *c, int64_t f, int64_t *cell) {
  int n = 0;
  int64_t v0 = m->face_node[m->face_ptr[f]];
  for (int64_t q = c->ptr[v0]; q < c->ptr[v0 + 1]; q++) {
    int64_t e = c->cell[q];
    int all = 1;
    for (int64_t k = m->face_ptr[f]; k < m->face_ptr[f + 1] && all; k++) {
      int in = 0;
      for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) in |= m->elem_node[j] == m->face_node[k];
      all = in;
    }
    if (all) {
      n++;
      *cell = e;
    }
  }
  return n;
}

/* Face f's right-hand normal (the cross product of its diagonals for a quadrangle) dotted with
 * face centroid - centroid of cell e. */
static double outwardness(const pm_mesh_t *m, int64_t f, int64_t e) {
  const int64_t *v = m->face_node + m->face_ptr[f];
  int nv = (int)(m->face_ptr[f + 1] - m->face_ptr[f]);
  const double *x[4];
  for (int a = 0; a < nv; a++) x[a] = m->xyz + 3 * v[a];
  double p[3], q[3], n[3], fc[3] = {0, 0, 0}, cc[3] = {0, 0, 0};
  for (int d = 0; d < 3; d++) {
    p[d] = nv == 4 ? x[2][d] - x[0][d] : x[1][d] - x[0][d];
    q[d] = nv == 4 ? x[3][d] - x[1][d] : x[2][d] - x[0][d];
  }
  n[0] = p[1] * q[2] - p[2] * q[1];
  n[1] = p[2] * q[0] - p[0] * q[2];
  n[2] = p[0] * q[1] - p[1] * q[0];
  for (int a = 0; a < nv; a++)
    for (int d = 0; d < 3; d++) fc[d] += x[a][d] / nv;
  int64_t ne = m->elem_ptr[e + 1] - m->elem_ptr[e];
  for (int64_t k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++)
    for (int d = 0; d < 3; d++) cc[d] += m->xyz[3 * m->elem_node[k] + d] / (double)ne;
  return n[0] * (fc[0] - cc[0]) + n[1] * (fc[1] - cc[1]) + n[2] * (fc[2] - cc[2]);
}

/* Every face of group gr lies on a cell (exactly one if `single`) and, if `outward`, points out
 * of it. */
static void check_faces(const pm_mesh_t *m, const inc_t *c, const pm_group_t *gr, int single, int outward) {
  long bad_count = 0, bad_dir = 0;
  for (int64_t i = 0; i < gr->n_faces; i++) {
    int64_t f = gr->faces[i], e = -1;
    int n = cells_of_face(m, c, f, &e);
    if (single ? n != 1 : n < 1) {
      bad_count++;
      continue;
    }
    if (outward && !(outwardness(m, f, e) > 0)) bad_dir++;
  }
  EXPECT(bad_count == 0, "%s: group %s: %ld faces on %s cell", g_what, gr->name, bad_count,
         single ? "not exactly one" : "no");
  EXPECT(bad_dir == 0, "%s: group %s: %ld faces point into their cell", g_what, gr->name, bad_dir);
}

/* The sorted node keys of group gr's faces, one row of 4 per face (-1 padded), rows sorted. */
static int64_t *face_keys(const pm_mesh_t *m, const pm_group_t *gr) {
  int64_t *k = malloc(4 * sizeof(int64_t) * (size_t)(gr->n_faces + 1));
  for (int64_t i = 0; i < gr->n_faces; i++) {
    int64_t f = gr->faces[i], *r = k + 4 * i;
    for (int a = 0; a < 4; a++) r[a] = m->face_ptr[f] + a < m->face_ptr[f + 1] ? m->face_node[m->face_ptr[f] + a] : -1;
    qsort(r, 4, sizeof *r, cmp_i64);
  }
  qsort(k, (size_t)gr->n_faces, 4 * sizeof(int64_t), cmp_row);
  return k;
}

static void test_box(int64_t nx, int64_t ny, int64_t nz, int tet, int prism) {
  char path[64];
  snprintf(path, sizeof path, "test_mesh3d.%ld.msh", (long)getpid());
  pm_gen_t g = {.kind = PM_GEN_BOX, .nx = nx, .ny = ny, .nz = nz, .lx = 1, .ly = 2, .lz = 0.5, .tet = tet, .prism = prism};
  snprintf(g_what, sizeof g_what, "box %lldx%lldx%lld%s", (long long)nx, (long long)ny, (long long)nz,
           tet ? " tet" : prism ? " prism" : "");
  OK(pm_gen_save(path, &g));
  pm_msh_t *msh = NULL;
  OK(pm_msh_read(path, &msh));
  remove(path);
  for (int k = 0; k < msh->n_phys_names; k++) /* hide the file's boundary: pm_mesh derives its own */
    if (strcmp(msh->phys_names[k].name, "boundary") == 0) msh->phys_names[k].name[0] = 'B';
  pm_mesh_t *m = NULL;
  OK(pm_mesh_from_msh(msh, &m));
  int64_t cx = nx - 1, cy = ny - 1, cz = nz - 1;
  int64_t want = tet ? 4 * (cx * cy + cy * cz + cx * cz) : prism ? 4 * cx * cy + 2 * (cy * cz + cx * cz)
                                                                 : 2 * (cx * cy + cy * cz + cx * cz);
  const pm_group_t *b = find_group(m, "boundary"), *bf = find_group(m, "Boundary");
  CHECK(b && bf);
  if (b && bf) {
    EXPECT(b->n_faces == want, "%s: derived boundary has %lld faces, expected %lld", g_what, (long long)b->n_faces,
           (long long)want);
    EXPECT(bf->n_faces == want, "%s: meshgen's boundary has %lld faces, expected %lld", g_what,
           (long long)bf->n_faces, (long long)want);
    if (b->n_faces == bf->n_faces) {
      int64_t *k1 = face_keys(m, b), *k2 = face_keys(m, bf);
      EXPECT(memcmp(k1, k2, 4 * sizeof(int64_t) * (size_t)b->n_faces) == 0, "%s: the derived faces are not meshgen's",
             g_what);
      free(k1);
      free(k2);
    }
    inc_t c = incidence(m);
    check_faces(m, &c, b, 1, 1);
    free(c.ptr);
    free(c.cell);
  }
  pm_mesh_destroy(&m);
  pm_msh_destroy(&msh);
}

static void test_file(const char *path) {
  snprintf(g_what, sizeof g_what, "%s", path);
  pm_mesh_t *m = NULL;
  OK(pm_mesh_read(path, &m, NULL));
  CHECK(m->dim == 3);
  inc_t c = incidence(m);
  for (int g = 0; g < m->n_groups; g++) {
    const pm_group_t *gr = &m->groups[g];
    if (gr->dim != 2) continue;
    int derived = strcmp(gr->name, "boundary") == 0;
    check_faces(m, &c, gr, derived, derived);
  }
  free(c.ptr);
  free(c.cell);
  pm_mesh_destroy(&m);
}

/* a and b hold the same n items of type T. */
#define SAME(a, b, n) ((n) == 0 || memcmp((a), (b), (size_t)(n) * sizeof *(a)) == 0)

/* pm_mesh_read (which hands the file's arrays over to the mesh and compacts them in place) and
 * pm_msh_read + pm_mesh_from_msh (which copies from a file content it leaves untouched) must
 * build the same mesh, field by field. */
static void test_same(const char *path) {
  snprintf(g_what, sizeof g_what, "%s (read vs from_msh)", path);
  pm_mesh_t *a = NULL, *b = NULL;
  pm_msh_t *msh = NULL;
  OK(pm_mesh_read(path, &a, NULL));
  OK(pm_msh_read(path, &msh));
  OK(pm_mesh_from_msh(msh, &b));
  pm_msh_destroy(&msh);
  EXPECT(a->dim == b->dim && a->n_nodes == b->n_nodes && a->n_elems == b->n_elems && a->n_faces == b->n_faces &&
             a->n_groups == b->n_groups,
         "%s: sizes differ", g_what);
  if (a->n_nodes == b->n_nodes && a->n_elems == b->n_elems && a->n_faces == b->n_faces) {
    int64_t ne = a->n_elems, nf = a->n_faces;
    EXPECT(SAME(a->node_gid, b->node_gid, a->n_nodes) && SAME(a->xyz, b->xyz, 3 * a->n_nodes), "%s: nodes differ",
           g_what);
    EXPECT(SAME(a->elem_type, b->elem_type, ne) && SAME(a->elem_gid, b->elem_gid, ne) &&
               SAME(a->elem_ptr, b->elem_ptr, ne + 1) && SAME(a->elem_node, b->elem_node, a->elem_ptr[ne]),
           "%s: elements differ", g_what);
    EXPECT(SAME(a->face_type, b->face_type, nf) && SAME(a->face_gid, b->face_gid, nf) &&
               SAME(a->face_ptr, b->face_ptr, nf + 1) && SAME(a->face_node, b->face_node, a->face_ptr[nf]),
           "%s: faces differ", g_what);
  }
  for (int g = 0; g < a->n_groups && a->n_groups == b->n_groups; g++) {
    const pm_group_t *x = &a->groups[g], *y = &b->groups[g];
    EXPECT(strcmp(x->name, y->name) == 0 && x->dim == y->dim && x->n_nodes == y->n_nodes &&
               x->n_faces == y->n_faces && x->n_elems == y->n_elems && SAME(x->nodes, y->nodes, x->n_nodes) &&
               SAME(x->faces, y->faces, x->n_faces) && SAME(x->elems, y->elems, x->n_elems),
           "%s: group %s differs", g_what, x->name);
  }
  EXPECT(a->n_dropped_nodes == b->n_dropped_nodes && a->n_dropped_entries == b->n_dropped_entries &&
             a->first_dropped_gid == b->first_dropped_gid && a->n_ignored_lines == b->n_ignored_lines &&
             a->n_ignored_points == b->n_ignored_points,
         "%s: the dropped or ignored counts differ", g_what);
  pm_mesh_destroy(&a);
  pm_mesh_destroy(&b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  static const int64_t sizes[][3] = {{2, 2, 2}, {4, 3, 5}, {6, 2, 3}};
  for (int s = 0; s < 3; s++)
    for (int kind = 0; kind < 3; kind++) test_box(sizes[s][0], sizes[s][1], sizes[s][2], kind == 1, kind == 2);
  int same_only = 0; /* after --same: other dimensions, compared only */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--same") == 0) {
      same_only = 1;
      continue;
    }
    if (!same_only) test_file(argv[i]);
    test_same(argv[i]);
  }
  printf("test_mesh3d: %ld checks, %ld failures\n", g_checks, g_fail);
  MPI_Finalize();
  return g_fail ? 1 : 0;
}
