/* test_h5.c - MPI driver for pm_h5: writes results of a partition directory, reads them back.
 *
 *   test_h5 write  DIR OUT [--time | --shuffle | --corrupt-type|nodes|index|dup]
 *                                 OUT.h5/.xmf: u = x + 2y + 3z + 3 (nodal), cx = element centroid x
 *                                 (cell), tag = Gmsh element tag (cell, int32); prints the mesh
 *                                 fingerprint (--time: and the seconds and bytes written;
 *                                 --shuffle: each rank reverses its internal nodes and elements first)
 *   test_h5 source DIR OUT PER    OUT.h5/.xmf: the mesh from a pm_h5_elements_t source of items of PER
 *                                 elements (PER 1, or any dividing the elements at one rank), u only
 *   test_h5 series DIR OUT        OUT.h5/.xmf: 3 steps at t = 0.5, 1, 1.5 with u = (k+1)(x + 2y + 3z + 3)
 *   test_h5 read   DIR FILE [STEP [FACTOR [NAME]]]
 *                                 pm_h5_read_field (default: step -1, factor 1, field u) and check
 *                                 every internal node's value is exactly FACTOR (x + 2y + 3z + 3)
 *   test_h5 abandon DIR OUT       a series closed with ok = 0: OUT.h5/.xmf keep their content
 *   test_h5 crash  DIR OUT        a series interrupted (MPI_Abort) before its close
 *   test_h5 all    DIR            write + series + read back, self-checking (the ctest unit);
 *                                 also a node-fields series (node_fields): an element
 *                                 field refused, the mesh's elements released once it is created
 * The expected values come from the coordinates (a linear field is exact at every node).
 * Exit status 0 on success; on failure every rank exits non-zero with a message. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_h5_read.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"

static int rank_, nranks_;

static double lin(const double *xyz) {
  return xyz[0] + 2.0 * xyz[1] + 3.0 * xyz[2] + 3.0; /* z = 0 in 2D */
}

static int load(const char *dir, pm_local_t **l, pm_meta_t **m) {
  char path[4400];
  int ierr = pm_meta_path(dir, path, sizeof path);
  if (!ierr) ierr = pm_meta_read(path, m);
  if (!ierr && (*m)->nparts != nranks_)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "%s has %d parts; run with mpiexec -n %d", dir, (*m)->nparts,
                        (*m)->nparts);
  if (!ierr) ierr = pm_local_path(dir, rank_, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank_, l);
  return pm_comm_agree(MPI_COMM_WORLD, ierr);
}

/* Nodal u = f (x + 2y + 3z + 3) on every local node; cell centroid x and tag. */
static int make_fields(const pm_local_t *l, double f, double **u, double **cx, int32_t **tag) {
  int32_t nt = l->n_total + l->n_aux;
  PM_CALL(PM_MALLOC(*u, nt, "u"));
  PM_CALL(PM_MALLOC(*cx, l->n_elems, "cx"));
  PM_CALL(PM_MALLOC(*tag, l->n_elems, "tag"));
  for (int32_t i = 0; i < nt; i++) (*u)[i] = f * lin(&l->xyz[3 * (int64_t)i]);
  for (int32_t e = 0; e < l->n_elems; e++) {
    double s = 0;
    int32_t a = l->elem_ptr[e], b = l->elem_ptr[e + 1];
    for (int32_t k = a; k < b; k++) s += l->xyz[3 * (int64_t)l->elem_node[k]];
    (*cx)[e] = s / (b - a);
    (*tag)[e] = (int32_t)l->elem_gid[e];
  }
  return PM_OK;
}

#define SWAP_(T, a, b) \
  do {                 \
    T t_ = (a);        \
    (a) = (b);         \
    (b) = t_;          \
  } while (0)

/* Reverse the local order of the internal nodes and of the elements (what pm_h5 sees of them),
 * so that no rank lists its items in global order: the output must not change. */
static int shuffle(pm_local_t *l) {
  int32_t n = l->n_internal, ne = l->n_elems, *perm = NULL, *ptr = NULL, *node = NULL;
  int ierr = PM_MALLOC(perm, (size_t)l->n_total + l->n_aux + 1, "shuffle");
  if (!ierr) ierr = PM_MALLOC(ptr, (size_t)ne + 1, "shuffle");
  if (!ierr) ierr = PM_MALLOC(node, (size_t)l->elem_ptr[ne] + 1, "shuffle");
  if (ierr) goto done;
  for (int32_t i = 0; i < l->n_total + l->n_aux; i++) perm[i] = i < n ? n - 1 - i : i;
  for (int32_t i = 0; i < n / 2; i++) {
    int32_t j = n - 1 - i;
    SWAP_(int64_t, l->gid[i], l->gid[j]);
    SWAP_(int64_t, l->node_index[i], l->node_index[j]);
    for (int d = 0; d < 3; d++) SWAP_(double, l->xyz[3 * i + d], l->xyz[3 * j + d]);
  }
  for (int32_t k = 0; k < l->export_index[l->n_neib]; k++) l->export_item[k] = perm[l->export_item[k]];
  ptr[0] = 0;
  for (int32_t e = 0; e < ne; e++) { /* new element e is old element ne - 1 - e */
    int32_t o = ne - 1 - e, a = l->elem_ptr[o], b = l->elem_ptr[o + 1];
    ptr[e + 1] = ptr[e] + (b - a);
    for (int32_t k = a; k < b; k++) node[ptr[e] + (k - a)] = perm[l->elem_node[k]];
  }
  for (int32_t e = 0; e < ne / 2; e++) {
    int32_t o = ne - 1 - e;
    SWAP_(int8_t, l->elem_type[e], l->elem_type[o]);
    SWAP_(int64_t, l->elem_gid[e], l->elem_gid[o]);
    SWAP_(int64_t, l->elem_index[e], l->elem_index[o]);
    SWAP_(int32_t, l->elem_owner[e], l->elem_owner[o]);
  }
  memcpy(l->elem_ptr, ptr, sizeof(int32_t) * ((size_t)ne + 1));
  memcpy(l->elem_node, node, sizeof(int32_t) * (size_t)ptr[ne]);
done:
  free(perm);
  free(ptr);
  free(node);
  return ierr;
}

/* corrupt: what pm_h5 must refuse, made on the last rank: the first element gets a type that is
 * no cell (1) or a type with another number of nodes (2); the first internal node's global
 * position is past the end (3); the second internal node takes the first one's position (4). */
static int do_write(const char *dir, const char *out, int timed, int shuffled, int corrupt) {
  pm_local_t *l = NULL;
  pm_meta_t *m = NULL;
  double *u = NULL, *cx = NULL;
  int32_t *tag = NULL;
  char h5[4400], xmf[4400];
  uint64_t fp = 0;
  int ierr = load(dir, &l, &m);
  if (!ierr && shuffled) ierr = pm_comm_agree(MPI_COMM_WORLD, shuffle(l));
  if (!ierr) ierr = pm_comm_agree(MPI_COMM_WORLD, make_fields(l, 1.0, &u, &cx, &tag));
  if (!ierr) ierr = pm_fingerprint_local(MPI_COMM_WORLD, l, m, &fp);
  /* The fingerprint partition stored (from the global mesh) is the one the local meshes give. */
  if (!ierr && m->has_mesh_fingerprint && fp != m->mesh_fingerprint) {
    if (rank_ == 0)
      fprintf(stderr,
              "test_h5: partition.meta mesh_fingerprint %016" PRIx64 " but the local meshes give %016" PRIx64 "\n",
              m->mesh_fingerprint, fp);
    ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__, "partition.meta and the local meshes disagree");
  }
  if (!ierr && corrupt && rank_ == nranks_ - 1) {
    if (corrupt <= 2 && l->n_elems > 0) {
      int nv = l->elem_ptr[1] - l->elem_ptr[0];
      l->elem_type[0] = corrupt == 1 ? PM_MSH_POINT : nv == 3 ? PM_MSH_QUAD : PM_MSH_TRI;
    }
    if (corrupt == 3 && l->n_internal > 0) l->node_index[0] = m->global_nodes;
    if (corrupt == 4 && l->n_internal > 1) l->node_index[1] = l->node_index[0];
  }
  if (!ierr) {
    snprintf(h5, sizeof h5, "%s.h5", out);
    snprintf(xmf, sizeof xmf, "%s.xmf", out);
    pm_h5_field_t fields[3] = {{"u", 0, 0, u}, {"cx", 1, 0, cx}, {"tag", 1, 1, tag}};
    pm_h5_attr_t attrs[4] = {{"iterations", PM_H5_ATTR_INT64, 0, 42, NULL},
                             {"residual", PM_H5_ATTR_DOUBLE, 1.5e-9, 0, NULL},
                             {"problem", PM_H5_ATTR_STRING, 0, 0, "u = x + 2y + 3"},
                             {"kappa", PM_H5_ATTR_DOUBLE, 2.0, 0, NULL}};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    ierr = pm_h5_write(MPI_COMM_WORLD, l, m, fields, 3, attrs, 4, h5, xmf);
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (!ierr && rank_ == 0) {
      struct stat sb;
      long long bytes = stat(h5, &sb) == 0 ? (long long)sb.st_size : -1;
      printf("fingerprint %016" PRIx64 "\n", fp);
      if (timed)
        printf("write seconds %.6f bytes %lld MB/s %.1f (np %d, nodes %" PRId64 ", elements %" PRId64
               "; includes H5Fflush (MPI_File_sync), close, XDMF and renames)\n",
               tmax, bytes, bytes / 1e6 / tmax, nranks_, m->global_nodes, m->global_elems);
    }
  }
  free(u);
  free(cx);
  free(tag);
  pm_local_destroy(&l);
  pm_meta_destroy(&m);
  return ierr;
}

/* ------------------------------------------------------------------ source: elements by callback */

/* The local mesh's elements as a pm_h5_elements_t of items of `per` elements: item q is the
 * elements q per .. q per + per - 1, given by the owner of its first one (which must hold them
 * all: per 1 always does, any per at one rank). */
typedef struct src_ctx {
  const pm_local_t *l;
  int per;
  int32_t *at;    /* [global elements]: the local element of each index, -1 */
  int32_t *group; /* [local elements]: cell_group as pm_h5 makes it */
  int64_t *pos;   /* [local elements]: item of each element (where it is an item's first) */
  int32_t *sel;   /* the items given */
} src_ctx_t;

static void src_get(const void *ctx, int32_t i, int j, pm_h5_elem_t *el) {
  const src_ctx_t *c = ctx;
  const pm_local_t *l = c->l;
  int32_t e = c->at[c->pos[i] * c->per + j], p = l->elem_ptr[e];
  el->type = l->elem_type[e];
  for (int v = 0; v < l->elem_ptr[e + 1] - p; v++) el->node[v] = l->elem_node[p + v];
  el->owner = l->elem_owner[e];
  el->group = c->group[e];
}

static int src_make(const pm_local_t *l, const pm_meta_t *m, int per, src_ctx_t *c, pm_h5_elements_t *src) {
  memset(c, 0, sizeof *c);
  c->l = l;
  c->per = per;
  PM_CALL(PM_MALLOC(c->at, m->global_elems, "source"));
  PM_CALL(PM_MALLOC(c->group, l->n_elems + 1, "source"));
  PM_CALL(PM_MALLOC(c->pos, l->n_elems + 1, "source"));
  PM_CALL(PM_MALLOC(c->sel, l->n_elems + 1, "source"));
  for (int64_t g = 0; g < m->global_elems; g++) c->at[g] = -1;
  for (int32_t e = 0; e < l->n_elems; e++) {
    c->at[l->elem_index[e]] = e;
    c->group[e] = -1;
  }
  for (int k = 0; k < l->n_groups; k++)
    for (int j = 0; j < m->n_groups; j++)
      if (l->groups[k].elems && strcmp(m->group_name[j], l->groups[k].name) == 0)
        for (int32_t i = 0; i < l->groups[k].n_elems; i++) c->group[l->groups[k].elems[i]] = j;
  int32_t n = 0;
  for (int32_t e = 0; e < l->n_elems; e++) {
    if (l->elem_owner[e] != rank_ || l->elem_index[e] % per != 0) continue;
    for (int j = 0; j < per; j++)
      PM_CHECK(c->at[l->elem_index[e] + j] >= 0, PM_ERR_ARG, "rank %d: element %" PRId64 " is not local: use per 1",
               rank_, l->elem_index[e] + j);
    c->pos[e] = l->elem_index[e] / per;
    c->sel[n++] = e;
  }
  *src = (pm_h5_elements_t){n, c->pos, c->sel, per, src_get, c};
  return PM_OK;
}

/* OUT.h5/.xmf: the mesh through a source of items of `per` elements, with u, and the mesh
 * fingerprint computed from the source (partition.meta's is hidden from pm_h5). */
static int do_source(const char *dir, const char *out, int per) {
  pm_local_t *l = NULL;
  pm_meta_t *m = NULL;
  pm_h5_series_t *s = NULL;
  double *u = NULL, *cx = NULL;
  int32_t *tag = NULL;
  char h5[4400], xmf[4400];
  src_ctx_t c;
  pm_h5_elements_t src;
  memset(&c, 0, sizeof c);
  int ierr = load(dir, &l, &m);
  if (!ierr) ierr = pm_comm_agree(MPI_COMM_WORLD, make_fields(l, 1.0, &u, &cx, &tag));
  if (!ierr) ierr = pm_comm_agree(MPI_COMM_WORLD, src_make(l, m, per, &c, &src));
  snprintf(h5, sizeof h5, "%s.h5", out);
  snprintf(xmf, sizeof xmf, "%s.xmf", out);
  uint64_t fp = m ? m->mesh_fingerprint : 0;
  if (m) m->has_mesh_fingerprint = 0;
  pm_h5_options_t opt = {.node_fields = 1, .elements = &src};
  if (!ierr) ierr = pm_h5_result_create(MPI_COMM_WORLD, l, m, h5, xmf, &opt, &s);
  pm_h5_field_t fields[1] = {{"u", 0, 0, u}};
  if (!ierr) ierr = pm_h5_series_write(s, 0.0, fields, 1);
  if (s) ierr = pm_h5_series_close(&s, NULL, 0, !ierr) ? (ierr ? ierr : PM_ERR_IO) : ierr;
  if (!ierr && rank_ == 0)
    printf("source of %d elements an item: fingerprint %016" PRIx64 " (partition.meta)\n", per, fp);
  free(c.at);
  free(c.group);
  free(c.pos);
  free(c.sel);
  free(u);
  free(cx);
  free(tag);
  pm_local_destroy(&l);
  pm_meta_destroy(&m);
  return ierr;
}

/* mode 0: complete; 1: abandon (ok = 0); 2: interrupted (MPI_Abort before the close); 3: a
 * single result (pm_h5_result_create) written more than once: its second write must fail. */
static int do_series(const char *dir, const char *out, int mode) {
  pm_local_t *l = NULL;
  pm_meta_t *m = NULL;
  pm_h5_series_t *s = NULL;
  double *u = NULL, *cx = NULL;
  int32_t *tag = NULL;
  char h5[4400], xmf[4400];
  int ierr = load(dir, &l, &m);
  snprintf(h5, sizeof h5, "%s.h5", out);
  snprintf(xmf, sizeof xmf, "%s.xmf", out);
  if (!ierr)
    ierr = mode == 3 ? pm_h5_result_create(MPI_COMM_WORLD, l, m, h5, xmf, NULL, &s)
                     : pm_h5_series_create(MPI_COMM_WORLD, l, m, h5, xmf, NULL, &s);
  for (int k = 0; k < 3 && !ierr; k++) {
    free(u);
    free(cx);
    free(tag);
    u = cx = NULL;
    tag = NULL;
    ierr = pm_comm_agree(MPI_COMM_WORLD, make_fields(l, k + 1.0, &u, &cx, &tag));
    pm_h5_field_t fields[2] = {{"u", 0, 0, u}, {"cx", 1, 0, cx}};
    if (!ierr) ierr = pm_h5_series_write(s, 0.5 * (k + 1), fields, k == 0 ? 2 : 1);
    if (!ierr && mode == 2 && k == 1) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank_ == 0) fprintf(stderr, "test_h5: interrupting the series after step 1\n");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  pm_h5_attr_t attrs[1] = {{"iterations", PM_H5_ATTR_INT64, 0, 3, NULL}};
  int ierr2 = pm_h5_series_close(&s, attrs, 1, !ierr && mode == 0);
  if (!ierr) ierr = ierr2;
  free(u);
  free(cx);
  free(tag);
  pm_local_destroy(&l);
  pm_meta_destroy(&m);
  return ierr;
}

/* A node-fields series (pm_h5_options_t.node_fields) refuses an element field; the mesh's elements may go
 * once it is created, and its steps then read back as do_series' do. */
static int do_nodes(const char *dir, const char *out) {
  pm_local_t *l = NULL;
  pm_meta_t *m = NULL;
  pm_h5_series_t *s = NULL;
  double *u = NULL, *cx = NULL;
  int32_t *tag = NULL;
  char h5[4400], xmf[4400];
  const pm_h5_options_t node_only = {.node_fields = 1};
  snprintf(h5, sizeof h5, "%s.h5", out);
  snprintf(xmf, sizeof xmf, "%s.xmf", out);
  int ierr = load(dir, &l, &m);
  if (!ierr) ierr = pm_h5_series_create(MPI_COMM_WORLD, l, m, h5, xmf, &node_only, &s);
  if (!ierr) ierr = pm_comm_agree(MPI_COMM_WORLD, make_fields(l, 1.0, &u, &cx, &tag));
  if (!ierr) {
    pm_h5_field_t cell[1] = {{"cx", 1, 0, cx}};
    int refused = pm_h5_series_write(s, 0.5, cell, 1);
    if (rank_ == 0 && refused) printf("a node-fields series refuses an element field: %s\n", pm_error_message());
    pm_error_clear();
    pm_h5_series_close(&s, NULL, 0, 0);
    if (refused != PM_ERR_ARG)
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "rank %d: an element field written to a node-fields series returned %d", rank_, refused);
  }
  if (!ierr) ierr = pm_h5_series_create(MPI_COMM_WORLD, l, m, h5, xmf, &node_only, &s);
  if (!ierr) pm_local_release(l, PM_LOCAL_ELEMENTS);
  for (int k = 0; k < 3 && !ierr; k++) {
    for (int32_t i = 0; i < l->n_total + l->n_aux; i++) u[i] = (k + 1.0) * lin(&l->xyz[3 * (int64_t)i]);
    pm_h5_field_t fields[1] = {{"u", 0, 0, u}};
    ierr = pm_h5_series_write(s, 0.5 * (k + 1), fields, 1);
  }
  int ierr2 = s ? pm_h5_series_close(&s, NULL, 0, !ierr) : PM_OK;
  if (!ierr) ierr = ierr2;
  free(u);
  free(cx);
  free(tag);
  pm_local_destroy(&l);
  pm_meta_destroy(&m);
  return ierr;
}

static int do_read(const char *dir, const char *file, int step, const char *name, double factor) {
  pm_local_t *l = NULL;
  pm_meta_t *m = NULL;
  double *v = NULL;
  int ierr = load(dir, &l, &m);
  if (!ierr) ierr = pm_comm_agree(MPI_COMM_WORLD, PM_MALLOC(v, l->n_total + l->n_aux, "values"));
  if (!ierr) {
    for (int32_t i = 0; i < l->n_total + l->n_aux; i++) v[i] = NAN;
    ierr = pm_h5_read_field(MPI_COMM_WORLD, l, m, file, name, step, v);
  }
  if (!ierr) {
    int32_t bad = 0, first = -1;
    for (int32_t i = 0; i < l->n_internal; i++)
      if (v[i] != factor * lin(&l->xyz[3 * (int64_t)i])) {
        if (first < 0) first = i;
        bad++;
      }
    if (bad)
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "rank %d: %d of %d values differ from %g (x + 2y + 3z + 3); first: node %" PRId64 " read %.17g",
                          rank_, bad, l->n_internal, factor, l->gid[first], v[first]);
    ierr = pm_comm_agree(MPI_COMM_WORLD, ierr);
  }
  if (!ierr && rank_ == 0)
    printf("read %s step %d field %s: every internal node equals %g (x + 2y + 3z + 3)\n", file, step, name, factor);
  free(v);
  pm_local_destroy(&l);
  pm_meta_destroy(&m);
  return ierr;
}

int main(int argc, char **argv) {
  /* pm_h5's helper threads make no MPI call: FUNNELED (see pm_h5.h).  PMESH_TEST_THREAD_LEVEL=single
   * asks for less: pm_h5 must then start no thread of its own, and write the same file. */
  const char *level = getenv("PMESH_TEST_THREAD_LEVEL");
  int provided = 0;
  MPI_Init_thread(&argc, &argv, level && strcmp(level, "single") == 0 ? MPI_THREAD_SINGLE : MPI_THREAD_FUNNELED,
                  &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int ierr = PM_OK;
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "write") == 0 && argc >= 4) {
    const char *opt = argc > 4 ? argv[4] : "";
    ierr = do_write(argv[2], argv[3], strcmp(opt, "--time") == 0, strcmp(opt, "--shuffle") == 0,
                    strcmp(opt, "--corrupt-type") == 0    ? 1
                    : strcmp(opt, "--corrupt-nodes") == 0 ? 2
                    : strcmp(opt, "--corrupt-index") == 0 ? 3
                    : strcmp(opt, "--corrupt-dup") == 0   ? 4
                                                          : 0);
  } else if (strcmp(mode, "source") == 0 && argc == 5) {
    ierr = do_source(argv[2], argv[3], atoi(argv[4]));
  } else if (strcmp(mode, "series") == 0 && argc == 4) {
    ierr = do_series(argv[2], argv[3], 0);
  } else if (strcmp(mode, "abandon") == 0 && argc == 4) {
    ierr = do_series(argv[2], argv[3], 1);
  } else if (strcmp(mode, "twice") == 0 && argc == 4) {
    ierr = do_series(argv[2], argv[3], 3);
  } else if (strcmp(mode, "crash") == 0 && argc == 4) {
    ierr = do_series(argv[2], argv[3], 2);
  } else if (strcmp(mode, "read") == 0 && argc >= 4 && argc <= 7) {
    int step = argc > 4 ? atoi(argv[4]) : -1;
    double factor = argc > 5 ? atof(argv[5]) : 1.0;
    const char *name = argc > 6 ? argv[6] : "u";
    ierr = do_read(argv[2], argv[3], step, name, factor);
  } else if (strcmp(mode, "all") == 0 && argc == 3) {
    char out[64];
    snprintf(out, sizeof out, "unit_h5_np%d", nranks_);
    ierr = do_write(argv[2], out, 0, 0, 0);
    if (!ierr) {
      char f[80];
      snprintf(f, sizeof f, "%s.h5", out);
      ierr = do_read(argv[2], f, -1, "u", 1.0);
    }
    snprintf(out, sizeof out, "unit_h5s_np%d", nranks_);
    if (!ierr) ierr = do_series(argv[2], out, 0);
    for (int k = -1; k < 3 && !ierr; k++) {
      char f[80];
      snprintf(f, sizeof f, "%s.h5", out);
      ierr = do_read(argv[2], f, k, "u", k < 0 ? 3.0 : k + 1.0);
    }
    snprintf(out, sizeof out, "unit_h5n_np%d", nranks_);
    if (!ierr) ierr = do_nodes(argv[2], out);
    for (int k = -1; k < 3 && !ierr; k++) {
      char f[80];
      snprintf(f, sizeof f, "%s.h5", out);
      ierr = do_read(argv[2], f, k, "u", k < 0 ? 3.0 : k + 1.0);
    }
  } else {
    if (rank_ == 0)
      fprintf(
          stderr,
          "usage: test_h5 write|series|abandon|crash|twice DIR OUT | read DIR FILE [STEP [FACTOR [NAME]]] | all DIR\n");
    MPI_Finalize();
    return 2;
  }
  if (ierr) {
    fprintf(stderr, "test_h5: rank %d: error: %s [%s]\n", rank_, pm_error_message(), pm_error_where());
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  MPI_Finalize();
  return EXIT_SUCCESS;
}
