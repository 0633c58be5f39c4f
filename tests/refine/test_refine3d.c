/* test_refine3d MESH...: the refinement templates of the cell-type table and refined 3D local
 * meshes, checked against geometry computed here (not by the refinement):
 *   - every child of every template (the tetrahedron's three inner-diagonal variants included, a
 *     pyramid's tetrahedra as tetrahedra),
 *     placed at its refinement points in the parent's reference cell, is positively oriented
 *     (the Jacobian determinant at each of its corners > 0, Gmsh's convention) and the children
 *     fill the parent (their measures sum to the reference cell's);
 *   - each MESH (absolute path), partitioned into np parts in process and refined twice with
 *     pm_refine_local: every fine element is positively oriented at its corners, the owned
 *     elements' total volume is the coarse mesh's, global element counts are 8 times (10 for a
 *     pyramid: 6 pyramids and 4 tetrahedra), and
 *     every fine node sits at the mean of its coarse parents (1 vertex, 2 edge ends, 4 face
 *     vertices, 8 hexahedron vertices);
 *   - groups after one level, against counts from the global mesh's groups: a face group has 4
 *     times the faces and V + E + Q nodes (its faces' distinct vertices, edges, quadrangles), a
 *     volume group V + E + FQ + H (its elements' vertices, edges, quadrilateral faces,
 *     hexahedra). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_refine.h"
#include "tu_check.h"
#include "tu_part.h"

/* The Jacobian determinant at reference point xi of cell type t placed at x[n_verts][3] (2D
 * cells in the xy plane, lines along x). */
static double jac_det(const pm_cell_t *t, const double (*x)[3], const double xi[3]) {
  double n[PM_CELL_MAX_VERTS], dn[PM_CELL_MAX_VERTS][3], J[3][3] = {{0}};
  pm_cell_basis(t, xi, n, dn);
  for (int i = 0; i < t->n_verts; i++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) J[a][b] += x[i][a] * dn[i][b];
  if (t->dim == 1) return J[0][0];
  if (t->dim == 2) return J[0][0] * J[1][1] - J[0][1] * J[1][0];
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* The smallest corner Jacobian of cell t at x, and its measure by the table's quadrature. */
static double corner_min(const pm_cell_t *t, const double (*x)[3], double *measure) {
  double mn = INFINITY, m = 0;
  for (int j = 0; j < t->n_verts; j++) mn = fmin(mn, jac_det(t, x, t->vert[j]));
  for (int q = 0; q < t->n_qp; q++) m += t->qw[q] * jac_det(t, x, t->qp[q]);
  *measure = m;
  return mn;
}

static void check_templates(void) {
  for (int type = PM_CELL_LINE; type < PM_CELL_NTYPES; type++) {
    const pm_cell_t *t = pm_cell_get((pm_cell_type_t)type);
    int nvar = t->n_variants ? t->n_variants : 1;
    for (int v = 0; v < nvar; v++) {
      double total = 0;
      for (int ch = 0; ch < t->n_children; ch++) {
        const int8_t *ref = ch < t->n_fixed ? t->child[ch] : t->variant_child[v][ch - t->n_fixed];
        const pm_cell_t *k = pm_cell_get(pm_cell_child_type(t, ch)); /* a pyramid's last 4: tetrahedra */
        double x[PM_CELL_MAX_VERTS][3], m;
        for (int j = 0; j < k->n_verts; j++) pm_cell_refined_point(t, ref[j], x[j]);
        double mn = corner_min(k, (const double(*)[3])x, &m);
        EXPECT(mn > 1e-12, "%s variant %d child %d: corner Jacobian %g (not positively oriented)", t->name, v, ch, mn);
        total += m;
      }
      EXPECT(fabs(total - t->measure) <= 1e-12 * t->measure, "%s variant %d: children measure %.17g, the cell %.17g",
             t->name, v, total, t->measure);
    }
  }
}

static pm_local_t *local_of(const pm_mesh_t *m, int nparts, int r) {
  pm_local_t *l = NULL;
  int ierr = tu_part_mesh_local(m, nparts, r, PM_PART_METIS_KWAY, PM_ADJACENCY_ELEMENT, &l);
  if (ierr) tu_die(__FILE__, __LINE__, "partition", ierr);
  return l;
}

/* Owned volume and owned element count of a local mesh; every element's corners checked. */
static void volume(MPI_Comm comm, const pm_local_t *l, double *vol, int64_t *ne) {
  int me;
  MPI_Comm_rank(comm, &me);
  double v = 0;
  int64_t n = 0;
  for (int32_t e = 0; e < l->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(l->elem_type[e]);
    double x[PM_CELL_MAX_VERTS][3], m;
    for (int j = 0; j < t->n_verts; j++) memcpy(x[j], l->xyz + 3 * (int64_t)l->elem_node[l->elem_ptr[e] + j], 24);
    double mn = corner_min(t, (const double(*)[3])x, &m);
    EXPECT(mn > 0, "element %lld (a %s): corner Jacobian %g", (long long)l->elem_gid[e], t->name, mn);
    if (l->elem_owner[e] == me) v += m, n++;
  }
  MPI_Allreduce(&v, vol, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&n, ne, 1, MPI_INT64_T, MPI_SUM, comm);
}

/* The children of the owned elements over all ranks: 8 a cell, 10 a pyramid (the table's
 * pyramid is 6 pyramids and 4 tetrahedra, checked in check_templates). */
static int64_t children(MPI_Comm comm, const pm_local_t *l) {
  int me;
  int64_t n = 0, all = 0;
  MPI_Comm_rank(comm, &me);
  for (int32_t e = 0; e < l->n_elems; e++)
    if (l->elem_owner[e] == me) n += l->elem_type[e] == 7 ? 10 : 8;
  MPI_Allreduce(&n, &all, 1, MPI_INT64_T, MPI_SUM, comm);
  return all;
}

static int cmp_key(const void *x, const void *y) {
  const int64_t *a = x, *b = y;
  for (int j = 0; j < 4; j++)
    if (a[j] != b[j]) return a[j] < b[j] ? -1 : 1;
  return 0;
}

/* Sorted key of the vertices v[0..n-1] of cell k (node indices of m), padded with -1. */
static void make_key(const int64_t *nodes, const int8_t *loc, int n, int64_t *key) {
  for (int j = 0; j < 4; j++) key[j] = j < n ? nodes[loc[j]] : -1;
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && key[j - 1] > key[j]; j--) {
      int64_t t = key[j];
      key[j] = key[j - 1];
      key[j - 1] = t;
    }
}

/* The refined node count of group G of m, counted from its cells: distinct vertices, edges,
 * quadrilaterals (faces of a face group; faces of the elements of a volume group) and cells with
 * a centre (hexahedra). */
static int64_t group_nodes_expected(const pm_mesh_t *m, const pm_group_t *G) {
  int volume = G->dim == m->dim;
  int64_t n = volume ? G->n_elems : G->n_faces, cap = n * PM_CELL_MAX_REFINED + 1, nk = 0, centres = 0;
  int64_t(*key)[4] = malloc((size_t)cap * sizeof *key);
  for (int64_t k = 0; k < n; k++) {
    int64_t c = volume ? G->elems[k] : G->faces[k];
    const pm_cell_t *t = pm_cell_gmsh(volume ? m->elem_type[c] : m->face_type[c]);
    const int64_t *nodes = volume ? m->elem_node + m->elem_ptr[c] : m->face_node + m->face_ptr[c];
    int8_t all[PM_CELL_MAX_VERTS];
    for (int j = 0; j < t->n_verts; j++) all[j] = (int8_t)j;
    for (int j = 0; j < t->n_verts; j++) make_key(nodes, all + j, 1, key[nk++]);
    for (int j = 0; j < t->n_edges; j++) make_key(nodes, t->edge[j], 2, key[nk++]);
    if (t->type == PM_CELL_QUAD) make_key(nodes, all, 4, key[nk++]);
    for (int f = 0; t->dim == 3 && f < t->n_facets; f++)
      if (t->facet_type[f] == PM_CELL_QUAD) make_key(nodes, t->facet[f], 4, key[nk++]);
    centres += t->type == PM_CELL_HEX;
  }
  qsort(key, (size_t)nk, sizeof *key, cmp_key);
  int64_t distinct = 0;
  for (int64_t k = 0; k < nk; k++) distinct += k == 0 || cmp_key(key[k], key[k - 1]) != 0;
  free(key);
  return distinct + centres;
}

/* Groups of the once-refined f against the global mesh m's. */
static void check_groups(MPI_Comm comm, const pm_mesh_t *m, const pm_local_t *f) {
  for (int g = 0; g < f->n_groups; g++) {
    const pm_local_group_t *F = &f->groups[g];
    const pm_group_t *G = NULL;
    for (int h = 0; h < m->n_groups; h++)
      if (!strcmp(m->groups[h].name, F->name)) G = &m->groups[h];
    EXPECT(G != NULL, "group '%s' is not the mesh's", F->name);
    if (!G || G->dim < 2) continue;
    int64_t mine[2] = {0, 0}, all[2];
    for (int32_t k = 0; k < F->n_nodes; k++) mine[0] += F->nodes[k] < f->n_internal;
    for (int32_t k = 0; k < F->n_faces; k++) { /* a face counted by the owner of its smallest node */
      int32_t lo = F->face_node[F->face_ptr[k]];
      for (int32_t j = F->face_ptr[k]; j < F->face_ptr[k + 1]; j++)
        if (f->gid[F->face_node[j]] < f->gid[lo]) lo = F->face_node[j];
      mine[1] += lo < f->n_internal;
    }
    MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, comm);
    int64_t want = group_nodes_expected(m, G);
    EXPECT(all[0] == want, "group '%s' (dim %d): %lld refined nodes, expected %lld", F->name, G->dim, (long long)all[0],
           (long long)want);
    EXPECT(all[1] == 4 * G->n_faces, "group '%s': %lld refined faces, expected 4 x %lld", F->name, (long long)all[1],
           (long long)G->n_faces);
  }
}

static void run(MPI_Comm comm, const char *path) {
  int P, ierr;
  MPI_Comm_size(comm, &P);
  snprintf(g_what, sizeof g_what, "%s np %d", tu_base(path), P);
  pm_mesh_t *m = NULL;
  if ((ierr = pm_mesh_read(path, &m, NULL))) tu_die(__FILE__, __LINE__, path, ierr);
  pm_local_t *level[3] = {local_of(m, P, g_rank), NULL, NULL};
  double vol[3];
  int64_t ne[3];
  volume(comm, level[0], &vol[0], &ne[0]);
  for (int K = 1; K <= 2; K++) {
    pm_refine_parents_t *par = NULL;
    if ((ierr = pm_refine_local(comm, level[K - 1], &level[K], &par))) tu_die(__FILE__, __LINE__, "refine", ierr);
    const pm_local_t *c = level[K - 1], *f = level[K];
    volume(comm, f, &vol[K], &ne[K]);
    EXPECT(fabs(vol[K] - vol[0]) <= 1e-11 * vol[0], "K %d: volume %.17g, coarse %.17g", K, vol[K], vol[0]);
    EXPECT(ne[K] == children(comm, c), "K %d: %lld elements, coarse %lld", K, (long long)ne[K], (long long)ne[K - 1]);
    for (int32_t i = 0; i < par->n; i++) {
      int np = par->ptr[i + 1] - par->ptr[i];
      const int32_t *p = par->node + par->ptr[i];
      EXPECT(np == 1 || np == 2 || np == 4 || np == 8, "node %lld: %d parents", (long long)f->gid[i], np);
      for (int d = 0; d < 3; d++) {
        double s = 0, scale = 0;
        for (int k = 0; k < np; k++) s += c->xyz[3 * p[k] + d], scale = fmax(scale, fabs(c->xyz[3 * p[k] + d]));
        EXPECT(fabs(s / np - f->xyz[3 * i + d]) <= 1e-14 * (1 + scale), "node %lld is not at its parents' mean",
               (long long)f->gid[i]);
      }
    }
    pm_refine_parents_destroy(&par);
    if (K == 1) check_groups(comm, m, f);
  }
  if (g_rank == 0)
    printf("test_refine3d %s np %d: volume %.6g, elements %lld %lld %lld\n", tu_base(path), P, vol[0], (long long)ne[0],
           (long long)ne[1], (long long)ne[2]);
  for (int k = 0; k < 3; k++) pm_local_destroy(&level[k]);
  pm_mesh_destroy(&m);
  g_what[0] = '\0';
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &g_rank);
  check_templates();
  for (int a = 1; a < argc; a++) run(comm, argv[a]);
  long bad = 0;
  MPI_Allreduce(&g_fail, &bad, 1, MPI_LONG, MPI_SUM, comm);
  if (g_rank == 0) printf("test_refine3d: %s (%ld failures)\n", bad ? "FAIL" : "ok", bad);
  MPI_Finalize();
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
