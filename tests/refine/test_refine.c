/* test_refine MESH METHOD [MESH METHOD]...: for each mesh, every rank partitions MESH in process (np parts) and refines
 * its local mesh twice with pm_refine_local; each level is checked against expectations computed from the coarse global
 * mesh, not by refining it:
 *   - the exchange works on the refined tables (pm_halo_selftest: every external gets its
 *     owner's global id);
 *   - total area (length in 1D) is the coarse mesh's;
 *   - each face group: 2^K times the faces (counted at their owner), its nodes grow by one per
 *     face and level, and every refined node of it lies on one of its straight coarse faces;
 *     each element group: m^K times the elements;
 *   - parents: a vertex has itself, a midpoint two, a centre four, and every fine node is at
 *     the mean of its parents;
 *   - the owned nodes (index, tag, coordinates) and elements (index, type, tag, node tags),
 *     gathered in global order, are byte for byte those of the same refinement on one rank. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_msh.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_refine.h"
#include "tu_check.h"
#include "tu_part.h"

/* This rank's part of the mesh, partitioned into `nparts` (the method's own choice). */
static pm_local_t *local_of(const pm_mesh_t *m, pm_part_method_t method, int nparts, int r) {
  pm_local_t *l = NULL;
  int ierr = tu_part_mesh_local(m, nparts, r, method, PM_ADJACENCY_ELEMENT, &l);
  if (ierr) tu_die(__FILE__, __LINE__, "partition", ierr);
  return l;
}

static double cell_measure(int type, const double *const *x) {
  if (type == PM_MSH_LINE) return hypot(x[1][0] - x[0][0], x[1][1] - x[0][1]);
  int n = type == PM_MSH_TRI ? 3 : 4;
  double a = 0;
  for (int j = 0; j < n; j++) a += x[j][0] * x[(j + 1) % n][1] - x[(j + 1) % n][0] * x[j][1];
  return 0.5 * a;
}

static double dist_to_segment(const double *p, const double *a, const double *b) {
  double dx = b[0] - a[0], dy = b[1] - a[1], t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / (dx * dx + dy * dy);
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
}

/* Owned nodes as (index, tag, x, y, z) rows and owned elements as (index, type, tag, 4 node
 * tags) rows, in global order, gathered on rank 0 of comm. */
static void gather_rows(MPI_Comm comm, const pm_local_t *l, int64_t **nodes, int64_t *nn, int64_t **elems,
                        int64_t *ne) {
  int P, me;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  int32_t no = 0;
  for (int32_t e = 0; e < l->n_elems; e++) no += l->elem_owner[e] == me;
  int64_t *rows[2];
  int cnt[2] = {5 * l->n_internal, 7 * no};
  rows[0] = malloc((size_t)cnt[0] * 8 + 8);
  rows[1] = malloc((size_t)cnt[1] * 8 + 8);
  for (int32_t i = 0; i < l->n_internal; i++) {
    rows[0][5 * i] = l->node_index[i];
    rows[0][5 * i + 1] = l->gid[i];
    memcpy(&rows[0][5 * i + 2], l->xyz + 3 * i, 24);
  }
  for (int32_t e = 0, k = 0; e < l->n_elems; e++) {
    if (l->elem_owner[e] != me) continue;
    int64_t *r = rows[1] + 7 * k++;
    r[0] = l->elem_index[e], r[1] = l->elem_type[e], r[2] = l->elem_gid[e], r[3] = r[4] = r[5] = r[6] = 0;
    for (int32_t j = l->elem_ptr[e]; j < l->elem_ptr[e + 1]; j++) r[3 + j - l->elem_ptr[e]] = l->gid[l->elem_node[j]];
  }
  int64_t *out[2];
  int64_t total[2];
  for (int s = 0; s < 2; s++) {
    int *rc = malloc((size_t)P * sizeof *rc), *rd = malloc((size_t)P * sizeof *rd), w = s ? 7 : 5;
    MPI_Gather(&cnt[s], 1, MPI_INT, rc, 1, MPI_INT, 0, comm);
    int64_t t = 0;
    for (int q = 0; me == 0 && q < P; q++) rd[q] = (int)t, t += rc[q];
    int64_t *all = malloc((size_t)t * 8 + 8), *sorted = malloc((size_t)t * 8 + 8);
    MPI_Gatherv(rows[s], cnt[s], MPI_INT64_T, all, rc, rd, MPI_INT64_T, 0, comm);
    /* rows in global order: row with index i goes to slot i */
    for (int64_t k = 0; me == 0 && k < t / w; k++) {
      int64_t i = all[w * k];
      if (i >= 0 && i < t / w) memcpy(sorted + w * i, all + w * k, (size_t)w * 8);
    }
    out[s] = sorted;
    total[s] = t / w;
    free(all);
    free(rc);
    free(rd);
    free(rows[s]);
  }
  *nodes = out[0], *nn = total[0], *elems = out[1], *ne = total[1];
}

static void run(MPI_Comm comm, const char *name, const char *how) {
  int P, ierr;
  MPI_Comm_size(comm, &P);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", getenv("PMESH_MESHES") ? getenv("PMESH_MESHES") : ".", name);
  pm_part_method_t method = strcmp(how, "rcb") == 0 ? PM_PART_RCB : PM_PART_METIS_KWAY;
  pm_mesh_t *m = NULL;
  if ((ierr = pm_mesh_read(path, &m, NULL))) tu_die(__FILE__, __LINE__, path, ierr);
  int mult = m->dim == 2 ? 4 : 2;
  double size = 0;
  for (int64_t i = 0; i < m->n_nodes; i++)
    for (int d = 0; d < 2; d++) size = fmax(size, fabs(m->xyz[3 * i + d]));
  /* Coarse measure, from the global mesh. */
  double measure0 = 0;
  for (int64_t e = 0; e < m->n_elems; e++) {
    const double *x[4];
    for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) x[j - m->elem_ptr[e]] = m->xyz + 3 * m->elem_node[j];
    measure0 += cell_measure(m->elem_type[e], x);
  }
  pm_local_t *level[3] = {local_of(m, method, P, g_rank), NULL, NULL}, *serial[3] = {NULL, NULL, NULL};
  if (g_rank == 0) serial[0] = local_of(m, method, 1, 0);
  pm_refine_parents_t *par = NULL;
  for (int K = 1; K <= 2; K++) {
    if ((ierr = pm_refine_local(comm, level[K - 1], &level[K], K == 1 ? &par : NULL)))
      tu_die(__FILE__, __LINE__, "pm_refine_local", ierr);
    if (g_rank == 0 && (ierr = pm_refine_local(MPI_COMM_SELF, serial[K - 1], &serial[K], NULL)))
      tu_die(__FILE__, __LINE__, "pm_refine_local (one rank)", ierr);
    const pm_local_t *f = level[K];
    /* The exchange on the refined tables. */
    pm_halo_t *halo = NULL;
    int64_t wrong = -1;
    if ((ierr = pm_halo_create(comm, f, PM_EXCHANGE_ISEND, &halo)) || (ierr = pm_halo_selftest(halo, f, NULL, &wrong)))
      tu_die(__FILE__, __LINE__, "halo", ierr);
    EXPECT(wrong == 0, "K %d: %lld externals got a wrong value from the refined tables", K, (long long)wrong);
    pm_halo_destroy(&halo);
    /* Measure; face and element groups. */
    double meas = 0;
    int G = m->n_groups;
    int64_t *cnt = calloc((size_t)(3 * G + 1), sizeof *cnt), *all = calloc((size_t)(3 * G + 1), sizeof *all);
    for (int32_t e = 0; e < f->n_elems; e++) {
      if (f->elem_owner[e] != g_rank) continue;
      const double *x[4];
      for (int32_t j = f->elem_ptr[e]; j < f->elem_ptr[e + 1]; j++)
        x[j - f->elem_ptr[e]] = f->xyz + 3 * f->elem_node[j];
      meas += cell_measure(f->elem_type[e], x);
    }
    for (int g = 0; g < G; g++) {
      const pm_local_group_t *L = &f->groups[g];
      const pm_group_t *C = &m->groups[g];
      EXPECT(strcmp(L->name, C->name) == 0, "group %d is '%s', not '%s'", g, L->name, C->name);
      for (int32_t k = 0; k < L->n_nodes; k++) {
        int32_t v = L->nodes[k];
        if (v >= f->n_internal) continue;
        cnt[3 * g]++;
        if (m->dim == 2 && C->dim == 1) { /* on one of the group's straight coarse faces */
          double best = INFINITY;
          for (int64_t q = 0; q < C->n_faces; q++) {
            int64_t fc = C->faces[q];
            best = fmin(best, dist_to_segment(f->xyz + 3 * v, m->xyz + 3 * m->face_node[m->face_ptr[fc]],
                                              m->xyz + 3 * m->face_node[m->face_ptr[fc] + 1]));
          }
          EXPECT(best <= 1e-13 * size, "K %d: node %lld of group '%s' is %g off its coarse faces", K,
                 (long long)f->gid[v], C->name, best);
        }
      }
      for (int32_t q = 0; q < L->n_faces; q++) { /* counted at the owner of the face's lowest tag */
        int32_t lo = L->face_node[L->face_ptr[q]];
        for (int32_t j = L->face_ptr[q]; j < L->face_ptr[q + 1]; j++)
          if (f->gid[L->face_node[j]] < f->gid[lo]) lo = L->face_node[j];
        cnt[3 * g + 1] += lo < f->n_internal;
      }
      for (int32_t k = 0; k < L->n_elems; k++) cnt[3 * g + 2] += f->elem_owner[L->elems[k]] == g_rank;
    }
    double measure = 0;
    MPI_Allreduce(&meas, &measure, 1, MPI_DOUBLE, MPI_SUM, comm);
    MPI_Allreduce(cnt, all, 3 * G, MPI_INT64_T, MPI_SUM, comm);
    EXPECT(fabs(measure - measure0) <= 1e-12 * fabs(measure0), "K %d: measure %.17g, coarse %.17g", K, measure,
           measure0);
    for (int g = 0; g < G; g++) {
      const pm_group_t *C = &m->groups[g];
      int64_t split = m->dim == 2 && C->dim == 1 ? (1 << K) : 1; /* 1D end points stay points */
      int64_t want_nodes = C->n_nodes + (split - 1) * C->n_faces;
      int64_t want_elems = C->n_elems * (K == 1 ? mult : mult * mult);
      if (C->dim < m->dim) {
        EXPECT(all[3 * g] == want_nodes, "K %d: group '%s' has %lld nodes, want %lld", K, C->name,
               (long long)all[3 * g], (long long)want_nodes);
      }
      EXPECT(all[3 * g + 1] == split * C->n_faces, "K %d: group '%s' has %lld faces, want %lld", K, C->name,
             (long long)all[3 * g + 1], (long long)(split * C->n_faces));
      EXPECT(all[3 * g + 2] == want_elems, "K %d: group '%s' has %lld elements, want %lld", K, C->name,
             (long long)all[3 * g + 2], (long long)want_elems);
    }
    free(cnt);
    free(all);
    /* The same nodes and elements as on one rank, byte for byte. */
    int64_t *nr, nn, *er, ne;
    gather_rows(comm, f, &nr, &nn, &er, &ne);
    if (g_rank == 0) {
      int64_t *sn, snn, *se, sne;
      gather_rows(MPI_COMM_SELF, serial[K], &sn, &snn, &se, &sne);
      EXPECT(nn == snn && ne == sne, "K %d: %lld nodes and %lld elements, on one rank %lld and %lld", K, (long long)nn,
             (long long)ne, (long long)snn, (long long)sne);
      if (nn == snn && ne == sne) {
        EXPECT(memcmp(nr, sn, (size_t)nn * 40) == 0, "K %d: the refined nodes differ from one g_rank's", K);
        EXPECT(memcmp(er, se, (size_t)ne * 56) == 0, "K %d: the refined elements differ from one g_rank's", K);
      }
      free(sn);
      free(se);
    }
    free(nr);
    free(er);
  }
  /* Parents of the first level. */
  const pm_local_t *c = level[0], *f = level[1];
  EXPECT(par && par->n == f->n_total, "parents for %d nodes, the fine mesh has %d", par ? par->n : -1, f->n_total);
  int64_t N = m->n_nodes;
  for (int32_t i = 0; par && i < par->n; i++) {
    int np = par->ptr[i + 1] - par->ptr[i];
    const int32_t *p = par->node + par->ptr[i];
    if (f->node_index[i] < N) {
      EXPECT(np == 1 && c->gid[p[0]] == f->gid[i], "vertex %lld: %d parents", (long long)f->gid[i], np);
    } else {
      EXPECT(np == 2 || (np == 4 && m->dim == 2), "new node %lld: %d parents", (long long)f->gid[i], np);
    }
    for (int d = 0; d < 3; d++) {
      double s = 0;
      for (int k = 0; k < np; k++) s += c->xyz[3 * p[k] + d];
      EXPECT(fabs(s / np - f->xyz[3 * i + d]) <= 1e-15 * size, "node %lld is not at its parents' mean",
             (long long)f->gid[i]);
    }
  }
  pm_refine_parents_destroy(&par);
  for (int k = 0; k < 3; k++) {
    pm_local_destroy(&level[k]);
    pm_local_destroy(&serial[k]);
  }
  pm_mesh_destroy(&m);
  if (g_rank == 0) printf("test_refine %s np %d: checked K 1, 2\n", name, P);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &g_rank);
  if (argc < 3 || argc % 2 == 0) {
    fprintf(stderr, "usage: test_refine MESH metis|rcb [MESH metis|rcb]...\n");
    MPI_Abort(comm, 1);
  }
  for (int a = 1; a + 1 < argc; a += 2) run(comm, argv[a], argv[a + 1]);
  long bad = 0;
  MPI_Allreduce(&g_fail, &bad, 1, MPI_LONG, MPI_SUM, comm);
  if (g_rank == 0) printf("test_refine: %s (%ld failures)\n", bad ? "FAIL" : "ok", bad);
  MPI_Finalize();
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
