/* test_msh.c - unit test of the Gmsh reader (pm_msh_).  Serial; run as `test_msh DIR` with DIR
 * the fixture folder tests/mesh/msh.
 *
 * The expected values are written out below from the fixtures' text (sq22.msh as Gmsh wrote it,
 * and the hand-written files), not taken from the reader.  The same square mesh saved by Gmsh as
 * MSH 2.2 and 4.1, ASCII and binary, with parametric coordinates, and rewritten big-endian by
 * msh/make_be.py must read to the same nodes (coordinates bit for bit), elements and
 * memberships; so must the ASCII files with Windows line ends (sq*crlf.msh).  The structured
 * meshes of pm_gen read back to their description. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_gen.h"
#include "pmesh/pm_msh.h"
#include "tu_check.h"

static const char *dir;

static pm_msh_t *load(const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  pm_msh_t *m = NULL;
  if (pm_msh_read(path, &m)) {
    fprintf(stderr, "test_msh: cannot read %s: %s\n", path, pm_error_message());
    exit(EXIT_FAILURE);
  }
  return m;
}

/* FNV-1a 64 of the whole file, computed here independently of pm_scan. */
static void check_checksum(const char *name, const pm_msh_t *m) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "rb");
  CHECK(fp != NULL);
  if (!fp) return;
  uint64_t h = 0xcbf29ce484222325ULL;
  int64_t n = 0;
  int c;
  while ((c = fgetc(fp)) != EOF) {
    h = (h ^ (uint64_t)(unsigned char)c) * 0x100000001b3ULL;
    n++;
  }
  fclose(fp);
  CHECK(m->checksum == h);
  CHECK(m->file_bytes == n);
}

static int same_double(double a, double b) {
  return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- the square of sq.geo, as Gmsh wrote it in sq22.msh ---- */

static const double sq_xyz[13][3] = {{0, 0, 0},
                                     {0.5, 0, 0},
                                     {1, 0, 0},
                                     {1, 1, 0},
                                     {0.5, 1, 0},
                                     {0, 1, 0},
                                     {0.75, 0, 0},
                                     {1, 0.499999999998694, 0},
                                     {0.75, 1, 0},
                                     {0, 0.5000000000020591, 0},
                                     {0.5, 0.499999999998694, 0},
                                     {0.25, 0.2500000000001883, 0},
                                     {0.25, 0.7500000000001882, 0}};

/* element tag = row + 1: type, physical tag, entity, nodes */
static const int sq_elem[21][7] = {{15, 1, 1, 1},          {1, 2, 1, 1, 2},         {1, 2, 2, 2, 7},
                                   {1, 2, 2, 7, 3},        {1, 3, 3, 3, 8},         {1, 3, 3, 8, 4},
                                   {1, 7, 4, 4, 9},        {1, 7, 4, 9, 5},         {1, 7, 5, 5, 6},
                                   {2, 10, 1, 10, 1, 12},  {2, 10, 1, 11, 5, 13},   {2, 10, 1, 11, 10, 12},
                                   {2, 10, 1, 10, 11, 13}, {2, 10, 1, 5, 6, 13},    {2, 10, 1, 1, 2, 12},
                                   {2, 10, 1, 2, 11, 12},  {2, 10, 1, 6, 10, 13},   {2, 11, 2, 7, 11, 2},
                                   {2, 11, 2, 11, 9, 5},   {3, 11, 2, 11, 7, 3, 8}, {3, 11, 2, 11, 8, 4, 9}};

static void check_names(const pm_msh_t *m, int n, const int *dims, const int *tags, const char *const *names) {
  CHECK(m->n_phys_names == n);
  for (int i = 0; i < n && i < m->n_phys_names; i++) {
    CHECK(m->phys_names[i].dim == dims[i]);
    CHECK(m->phys_names[i].tag == tags[i]);
    CHECK(strcmp(m->phys_names[i].name, names[i]) == 0);
  }
}

static void check_square(const char *name, int major, int binary) {
  pm_msh_t *m = load(name);
  long before = g_fail;
  CHECK(m->version_major == major);
  CHECK(m->version_minor == (major == 2 ? 2 : 1));
  CHECK(m->binary == binary);
  CHECK(m->n_nodes == 13);
  for (int64_t i = 0; i < m->n_nodes && m->n_nodes == 13; i++) {
    int64_t t = m->node_tag[i];
    CHECK(t >= 1 && t <= 13);
    if (t < 1 || t > 13) continue;
    for (int c = 0; c < 3; c++) CHECK(same_double(m->xyz[3 * i + c], sq_xyz[t - 1][c]));
  }
  CHECK(m->n_elems == 21);
  int seen[22] = {0};
  for (int64_t e = 0; e < m->n_elems && m->n_elems == 21; e++) {
    int64_t t = m->elem_tag[e];
    CHECK(t >= 1 && t <= 21);
    if (t < 1 || t > 21) continue;
    seen[t]++;
    const int *x = sq_elem[t - 1];
    CHECK(m->elem_type[e] == x[0]);
    CHECK(m->elem_entity[e] == x[2]);
    int k = pm_msh_type_nodes(x[0]);
    CHECK(m->elem_ptr[e + 1] - m->elem_ptr[e] == k);
    for (int j = 0; j < k; j++) CHECK(m->elem_node[m->elem_ptr[e] + j] == x[3 + j]);
  }
  for (int t = 1; t <= 21; t++) CHECK(seen[t] == 1);
  /* one membership per element, the physical tag of sq22.msh */
  CHECK(m->n_member == 21);
  int member[22] = {0};
  for (int64_t i = 0; i < m->n_member; i++) {
    int64_t e = m->member_elem[i];
    CHECK(e >= 0 && e < m->n_elems);
    if (e < 0 || e >= m->n_elems) continue;
    int64_t t = m->elem_tag[e];
    CHECK(m->member_phys[i] == sq_elem[t - 1][1]);
    member[t]++;
  }
  for (int t = 1; t <= 21; t++) CHECK(member[t] == 1);
  static const int dims[] = {0, 1, 1, 1, 2, 2}, tags[] = {1, 2, 3, 7, 10, 11};
  static const char *const names[] = {"corner", "bottom", "right", "top", "tris", "quads"};
  check_names(m, 6, dims, tags, names);
  check_checksum(name, m);
  if (g_fail > before) fprintf(stderr, "test_msh: %s differs from sq22.msh\n", name);
  pm_msh_destroy(&m);
  CHECK(m == NULL);
}

/* ---- same raw content up to element and membership order ---- */

static const pm_msh_t *cmp_mesh;
static int cmp_elem(const void *a, const void *b) {
  int64_t x = cmp_mesh->elem_tag[*(const int64_t *)a], y = cmp_mesh->elem_tag[*(const int64_t *)b];
  return (x > y) - (x < y);
}
static int cmp_pair(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

static int64_t *sorted_elems(const pm_msh_t *m) {
  int64_t *idx = malloc((size_t)(m->n_elems + 1) * sizeof *idx);
  for (int64_t i = 0; i < m->n_elems; i++) idx[i] = i;
  cmp_mesh = m;
  qsort(idx, (size_t)m->n_elems, sizeof *idx, cmp_elem);
  return idx;
}

static int64_t *sorted_members(const pm_msh_t *m) { /* (element tag, physical tag) pairs */
  int64_t *p = malloc((size_t)(2 * m->n_member + 2) * sizeof *p);
  for (int64_t i = 0; i < m->n_member; i++) {
    p[2 * i] = m->elem_tag[m->member_elem[i]];
    p[2 * i + 1] = m->member_phys[i];
  }
  qsort(p, (size_t)m->n_member, 2 * sizeof *p, cmp_pair);
  return p;
}

static void check_same(const char *na, const char *nb) {
  pm_msh_t *a = load(na), *b = load(nb);
  long before = g_fail;
  CHECK(a->n_nodes == b->n_nodes);
  if (a->n_nodes == b->n_nodes) {
    /* Gmsh writes the nodes of this mesh in the same order in every format */
    CHECK(memcmp(a->node_tag, b->node_tag, (size_t)a->n_nodes * sizeof *a->node_tag) == 0);
    CHECK(memcmp(a->xyz, b->xyz, (size_t)(3 * a->n_nodes) * sizeof *a->xyz) == 0);
  }
  CHECK(a->n_elems == b->n_elems);
  if (a->n_elems == b->n_elems) {
    int64_t *ia = sorted_elems(a), *ib = sorted_elems(b);
    for (int64_t i = 0; i < a->n_elems; i++) {
      int64_t ea = ia[i], eb = ib[i];
      CHECK(a->elem_tag[ea] == b->elem_tag[eb]);
      CHECK(a->elem_type[ea] == b->elem_type[eb]);
      CHECK(a->elem_entity[ea] == b->elem_entity[eb]);
      int64_t ka = a->elem_ptr[ea + 1] - a->elem_ptr[ea], kb = b->elem_ptr[eb + 1] - b->elem_ptr[eb];
      CHECK(ka == kb);
      if (ka == kb)
        CHECK(memcmp(a->elem_node + a->elem_ptr[ea], b->elem_node + b->elem_ptr[eb], (size_t)ka * sizeof(int64_t)) ==
              0);
    }
    free(ia);
    free(ib);
  }
  CHECK(a->n_member == b->n_member);
  if (a->n_member == b->n_member) {
    int64_t *pa = sorted_members(a), *pb = sorted_members(b);
    CHECK(memcmp(pa, pb, (size_t)(2 * a->n_member) * sizeof *pa) == 0);
    free(pa);
    free(pb);
  }
  CHECK(a->n_phys_names == b->n_phys_names);
  for (int i = 0; i < a->n_phys_names && i < b->n_phys_names; i++) {
    CHECK(a->phys_names[i].dim == b->phys_names[i].dim);
    CHECK(a->phys_names[i].tag == b->phys_names[i].tag);
    CHECK(strcmp(a->phys_names[i].name, b->phys_names[i].name) == 0);
  }
  if (g_fail > before) fprintf(stderr, "test_msh: %s and %s differ\n", na, nb);
  pm_msh_destroy(&a);
  pm_msh_destroy(&b);
}

/* ---- hand-written files ---- */

static void check_elems(const pm_msh_t *m, int64_t n, const int *type, const int64_t *tag, const int *entity,
                        const int64_t *nodes) {
  CHECK(m->n_elems == n);
  if (m->n_elems != n) return;
  int64_t off = 0;
  for (int64_t e = 0; e < n; e++) {
    CHECK(m->elem_type[e] == type[e]);
    CHECK(m->elem_tag[e] == tag[e]);
    CHECK(m->elem_entity[e] == entity[e]);
    int k = pm_msh_type_nodes(type[e]);
    CHECK(m->elem_ptr[e] == off && m->elem_ptr[e + 1] == off + k);
    for (int j = 0; j < k; j++) CHECK(m->elem_node[off + j] == nodes[off + j]);
    off += k;
  }
}

static void check_nodes(const pm_msh_t *m, int64_t n, const int64_t *tag, const double *xyz) {
  CHECK(m->n_nodes == n);
  if (m->n_nodes != n) return;
  for (int64_t i = 0; i < n; i++) {
    CHECK(m->node_tag[i] == tag[i]);
    for (int c = 0; c < 3; c++) CHECK(same_double(m->xyz[3 * i + c], xyz[3 * i + c]));
  }
}

static void check_members(const pm_msh_t *m, int64_t n, const int64_t *elem, const int *phys) {
  CHECK(m->n_member == n);
  if (m->n_member != n) return;
  for (int64_t i = 0; i < n; i++) {
    CHECK(m->member_elem[i] == elem[i]);
    CHECK(m->member_phys[i] == phys[i]);
  }
}

/* sparse, unordered, 64-bit node tags; 0, 2 and 3 element tags; skipped sections */
static void check_sparse22(void) {
  pm_msh_t *m = load("sparse22.msh");
  static const int64_t ntag[] = {1000, 7, 42, 99999999999, 3};
  static const double xyz[] = {0, 0, 0, 1.5, 0, 0, 1.5, 2.25, 0, 0, 2.25, -0.125, 0.75, 1e-3, 0};
  check_nodes(m, 5, ntag, xyz);
  static const int type[] = {2, 2, 1, 1, 15}, ent[] = {4, 4, 1, 0, 3};
  static const int64_t etag[] = {10, 20, 5, 6, 8};
  static const int64_t nodes[] = {1000, 7, 42, 1000, 42, 99999999999, 1000, 7, 7, 42, 3};
  check_elems(m, 5, type, etag, ent, nodes);
  static const int64_t melem[] = {0, 1, 2};
  static const int mphys[] = {9, 9, 5};
  check_members(m, 3, melem, mphys);
  static const int dims[] = {1, 2}, tags[] = {5, 9};
  static const char *const names[] = {"outer edge", "the plate"};
  check_names(m, 2, dims, tags, names);
  CHECK(m->version_major == 2 && m->binary == 0);
  check_checksum("sparse22.msh", m);
  pm_msh_destroy(&m);
}

/* 4.1: entity with two physical tags, parametric nodes, unknown section, $NodeData */
static void check_sparse41(void) {
  pm_msh_t *m = load("sparse41.msh");
  static const int64_t ntag[] = {500, 3, 77, 12, 4};
  static const double xyz[] = {0, 0, 0, 0.5, 0, 0, 1, 0, 0, 1, 1, 0, 0.25, 0.75, 0.5};
  check_nodes(m, 5, ntag, xyz);
  static const int type[] = {15, 1, 1, 1, 2, 3}, ent[] = {17, 1, 1, 2, 5, 5};
  static const int64_t etag[] = {60, 11, 12, 13, 1, 2};
  static const int64_t nodes[] = {500, 500, 3, 3, 77, 12, 4, 500, 77, 12, 500, 77, 12, 4};
  check_elems(m, 6, type, etag, ent, nodes);
  /* curve 1 is in groups 3 and 4, surface 5 in group 8; point 17 and curve 2 in none */
  static const int64_t melem[] = {1, 2, 1, 2, 4, 5};
  static const int mphys[] = {3, 3, 4, 4, 8, 8};
  check_members(m, 6, melem, mphys);
  static const int dims[] = {1, 1, 2}, tags[] = {3, 4, 8};
  static const char *const names[] = {"wall", "inflow", "fluid"};
  check_names(m, 3, dims, tags, names);
  CHECK(m->version_major == 4 && m->version_minor == 1 && m->binary == 0);
  check_checksum("sparse41.msh", m);
  pm_msh_destroy(&m);
}

/* what meshio writes: 2.2 with gmsh:physical and gmsh:geometrical tags, $NodeData */
static void check_meshio(void) {
  pm_msh_t *m = load("meshio22.msh");
  static const int64_t ntag[] = {1, 2, 3, 4};
  static const double xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
  check_nodes(m, 4, ntag, xyz);
  static const int type[] = {1, 1, 2, 2}, ent[] = {1, 2, 3, 3};
  static const int64_t etag[] = {1, 2, 3, 4};
  static const int64_t nodes[] = {1, 2, 3, 4, 1, 2, 3, 1, 3, 4};
  check_elems(m, 4, type, etag, ent, nodes);
  static const int64_t melem[] = {0, 1, 2, 3};
  static const int mphys[] = {1, 1, 2, 2};
  check_members(m, 4, melem, mphys);
  pm_msh_destroy(&m);

  /* meshio's 4.1 without $Entities: no memberships */
  m = load("meshio41.msh");
  check_nodes(m, 4, ntag, xyz);
  static const int ent41[] = {1, 1, 1, 1};
  check_elems(m, 4, type, etag, ent41, nodes);
  CHECK(m->n_member == 0);
  CHECK(m->n_phys_names == 0);
  pm_msh_destroy(&m);
}

/* $Elements before $Nodes: node references are checked at the end */
static void check_late(void) {
  pm_msh_t *m = load("late22.msh");
  static const int64_t ntag[] = {3, 2, 1};
  static const double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  check_nodes(m, 3, ntag, xyz);
  static const int type[] = {2, 1}, ent[] = {1, 1};
  static const int64_t etag[] = {1, 2};
  static const int64_t nodes[] = {3, 2, 1, 1, 2};
  check_elems(m, 2, type, etag, ent, nodes);
  static const int64_t melem[] = {0, 1};
  static const int mphys[] = {1, 4};
  check_members(m, 2, melem, mphys);
  pm_msh_destroy(&m);
}

/* A physical tag used in two dimensions and named in one, and a name no element uses: both
 * valid (groups are a dimension and a tag), unlike a name whose tag is used only in another
 * dimension (tests/mesh/bad/name_dim*.msh). */
static void check_names_valid(void) {
  static const char *const files[] = {"names41.msh", "names22.msh"};
  for (int f = 0; f < 2; f++) {
    pm_msh_t *m = load(files[f]);
    static const int type[] = {1, 2}, ent[] = {1, 1};
    static const int64_t etag[] = {1, 2};
    static const int64_t nodes[] = {1, 2, 1, 2, 3};
    check_elems(m, 2, type, etag, ent, nodes);
    static const int64_t melem[] = {0, 1};
    static const int mphys[] = {5, 5};
    check_members(m, 2, melem, mphys);
    static const int dims[] = {2, 1}, tags[] = {5, 9};
    static const char *const names[] = {"domain", "spare"};
    check_names(m, 2, dims, tags, names);
    pm_msh_destroy(&m);
  }
}

static void check_errors(void) {
  char path[4096];
  pm_msh_t *m = (pm_msh_t *)&m; /* must come back NULL */
  struct {
    const char *file;
    int code;
  } bad[] = {{"../bad/type9.msh", PM_ERR_UNSUPPORTED},
             {"../bad/version40.msh", PM_ERR_UNSUPPORTED},
             {"../bad/nodes_fewer.msh", PM_ERR_FORMAT},
             {"../bad/elem_entity41.msh", PM_ERR_FORMAT},
             {"../bad/node_entity41b.msh", PM_ERR_FORMAT},
             {"../bad/name_dim22.msh", PM_ERR_FORMAT},
             {"../bad/partitioned_parent.msh", PM_ERR_FORMAT},
             {"../bad/partitioned_gmsh41b.msh", PM_ERR_UNSUPPORTED},
             {"../bad/no_such_file.msh", PM_ERR_IO}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, bad[i].file);
    int code = pm_msh_read(path, &m);
    CHECK(code == bad[i].code);
    CHECK(m == NULL);
    CHECK(strstr(pm_error_message(), path) != NULL); /* messages name the file */
    pm_error_clear();
  }
}

/* pm_gen's meshes read back: the counts and coordinates of pm_gen.h's description; bad sizes and
 * an unwritable directory refused, leaving no file. */
static void check_gen(void) {
  const char *path = "test_msh_gen.msh";
  pm_gen_t grid = {.kind = PM_GEN_GRID, .nx = 4, .ny = 3, .lx = 6.0, .ly = 1.0, .tri = 1},
           line = {.kind = PM_GEN_LINE, .ne = 5, .dx = 0.5};
  pm_msh_t *m = NULL;
  CHECK(pm_gen_save(path, &grid) == PM_OK && pm_msh_read(path, &m) == PM_OK);
  if (m) {
    /* 12 nodes; 2 x 3 cells of 2 triangles; 2 (3 + 2) boundary lines. */
    CHECK(m->n_nodes == 12 && m->n_elems == 12 + 10 && m->n_phys_names == 5);
    for (int64_t k = 0; k < m->n_nodes; k++) {
      int64_t t = m->node_tag[k] - 1, i = t % 4, j = t / 4;
      CHECK(m->xyz[3 * k] == 2.0 * (double)i && m->xyz[3 * k + 1] == 0.5 * (double)j && m->xyz[3 * k + 2] == 0);
    }
    pm_msh_destroy(&m);
  }
  CHECK(pm_gen_save(path, &line) == PM_OK && pm_msh_read(path, &m) == PM_OK);
  if (m) {
    CHECK(m->n_nodes == 6 && m->n_elems == 5 + 2 && m->n_phys_names == 3);
    for (int64_t k = 0; k < m->n_nodes; k++) CHECK(m->xyz[3 * k] == 0.5 * (double)(m->node_tag[k] - 1));
    pm_msh_destroy(&m);
  }
  remove(path);
  pm_gen_t bad = grid;
  bad.nx = 1;
  CHECK(pm_gen_save(path, &bad) == PM_ERR_ARG);
  bad = line;
  bad.dx = -1;
  CHECK(pm_gen_save(path, &bad) == PM_ERR_ARG);
  pm_error_clear();
  CHECK(pm_gen_save("no_such_dir/x.msh", &line) == PM_ERR_IO && strstr(pm_error_message(), "cannot create"));
  pm_error_clear();
  FILE *f = fopen(path, "r");
  CHECK(f == NULL);
  if (f) fclose(f);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_msh DIR (the tests/mesh/msh folder)\n");
    return EXIT_FAILURE;
  }
  dir = argv[1];
  CHECK(pm_msh_type_nodes(PM_MSH_POINT) == 1 && pm_msh_type_dim(PM_MSH_POINT) == 0);
  CHECK(pm_msh_type_nodes(PM_MSH_LINE) == 2 && pm_msh_type_dim(PM_MSH_LINE) == 1);
  CHECK(pm_msh_type_nodes(PM_MSH_TRI) == 3 && pm_msh_type_dim(PM_MSH_TRI) == 2);
  CHECK(pm_msh_type_nodes(PM_MSH_QUAD) == 4 && pm_msh_type_dim(PM_MSH_QUAD) == 2);
  CHECK(pm_msh_type_nodes(4) == 4 && pm_msh_type_dim(4) == 3);
  CHECK(pm_msh_type_nodes(5) == 8 && pm_msh_type_dim(5) == 3);
  CHECK(pm_msh_type_nodes(6) == 6 && pm_msh_type_dim(6) == 3);
  CHECK(pm_msh_type_nodes(7) == 5 && pm_msh_type_dim(7) == 3);
  CHECK(pm_msh_type_nodes(9) == -1 && pm_msh_type_dim(14) == -1 && pm_msh_type_nodes(11) == -1);
  pm_msh_destroy(NULL);
  pm_msh_t *none = NULL;
  pm_msh_destroy(&none);

  static const char *const sq[] = {"sq22.msh",   "sq22b.msh",  "sq22be.msh", "sq22crlf.msh", "sq41.msh",    "sq41b.msh",
                                   "sq41be.msh", "sq41b4.msh", "sq41p.msh",  "sq41pb.msh",   "sq41crlf.msh"};
  for (size_t i = 0; i < sizeof sq / sizeof sq[0]; i++) {
    int binary = strchr(sq[i] + 4, 'b') != NULL && strstr(sq[i], "crlf") == NULL;
    check_square(sq[i], sq[i][2] == '2' ? 2 : 4, binary);
    if (i > 0) check_same("sq22.msh", sq[i]);
  }
  check_sparse22();
  check_sparse41();
  check_meshio();
  check_late();
  check_names_valid();
  check_errors();
  check_gen();
  if (g_fail) {
    fprintf(stderr, "test_msh: %ld checks failed\n", g_fail);
    return EXIT_FAILURE;
  }
  printf("test_msh: all checks passed\n");
  return EXIT_SUCCESS;
}
