/* pm_refine_run.c - refining K times: the size estimate and refusal made before anything is
 * allocated, the level loop, and the dump of a refined partition that `partition --check`
 * reads. */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_refine_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/pm_util.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_meta.h"

/* The largest cell dimension of the local mesh (1 when it has no elements). */
static int local_dim(const pm_local_t *c) {
  int dim = 1;
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    if (t && t->dim > dim) dim = t->dim;
  }
  return dim;
}

void pm_refine_estimate(const pm_local_t *c, int levels, pm_refine_estimate_t *est) {
  /* Elements and nodes both grow by the children per element, 2^dim (2D: V + E + F ~ 4V; 3D
   * tetrahedra V + E ~ 8V, hexahedra V + E + F + C ~ 8V), a little less near the halo, so these
   * are upper estimates; a pyramid's elements grow faster. */
  int dim = local_dim(c), k = levels > 0 ? levels : 0;
  double m = (double)(1 << dim), f = pow(m, k), E = 0, EN = 0;
  /* Each cell type's descendants after k levels and their vertex entries, by the table's
   * children and their types (a pyramid's 6 pyramids and 4 tetrahedra: 1.58 times 8^3 cells at
   * k = 3). */
  double de[PM_CELL_NTYPES], dn[PM_CELL_NTYPES];
  for (int t = 0; t < PM_CELL_NTYPES; t++) de[t] = 1, dn[t] = pm_cell_get((pm_cell_type_t)t)->n_verts;
  for (int l = 0; l < k; l++) {
    double ne[PM_CELL_NTYPES], nn[PM_CELL_NTYPES];
    for (int t = 0; t < PM_CELL_NTYPES; t++) {
      const pm_cell_t *cell = pm_cell_get((pm_cell_type_t)t);
      ne[t] = nn[t] = 0;
      for (int ch = 0; ch < cell->n_children; ch++) {
        pm_cell_type_t ct = pm_cell_child_type(cell, ch);
        ne[t] += de[ct];
        nn[t] += dn[ct];
      }
    }
    memcpy(de, ne, sizeof de);
    memcpy(dn, nn, sizeof dn);
  }
  for (int32_t e = 0; e < c->n_elems; e++) {
    int t = pm_cell_from_gmsh(c->elem_type[e]);
    E += t >= 0 ? de[t] : f;
    EN += t >= 0 ? dn[t] : (c->elem_ptr[e + 1] - c->elem_ptr[e]) * f;
  }
  double V = (double)(c->n_total + c->n_aux) * f;
  /* A level: per element type, tag, index, owner, offset and group entry (29 bytes) and 4 per
   * node entry; per node tag, index, coordinates, tables and group entries (~56 bytes).  The
   * step to the last level holds both meshes and its work arrays (~40 bytes per element edge,
   * about 1.5 edges per element node entry in 3D, ~72 per quadrilateral face record, and ~64
   * per fine node). */
  double per_entry = dim == 3 ? 40 * 1.5 + 72 * 0.75 : 40;
  double fine = E * 29 + EN * 4 + V * 56, coarse = fine / m, work = EN / m * per_entry + V * 64;
  est->elems = E;
  est->elem_nodes = EN;
  est->nodes = V;
  est->bytes = levels > 0 ? fine + coarse + work : fine;
  est->work = levels > 0 ? work : 0.0;
}

/* Memory available to this machine's ranks, in bytes (0 if unknown): MemAvailable, capped by a
 * cgroup v2 limit (containers see the host's MemAvailable).  PMESH_REFINE_MEMORY=BYTES
 * overrides it (tests; batch systems that limit memory otherwise). */
static double mem_available(void) {
  const char *env = getenv("PMESH_REFINE_MEMORY");
  char *end = NULL;
  if (env && *env) {
    double v = strtod(env, &end);
    if (end != env && *end == '\0' && v > 0) return v;
  }
  FILE *fp = fopen("/proc/meminfo", "r");
  char line[256];
  double kb = 0, avail = 0;
  if (fp) {
    while (fgets(line, sizeof line, fp))
      if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    fclose(fp);
  }
  if (kb > 0) {
    avail = kb * 1024.0;
  } else {
    long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    avail = pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
  }
  double max = 0, cur = 0;
  fp = fopen("/sys/fs/cgroup/memory.max", "r");
  if (fp) {
    if (fscanf(fp, "%lf", &max) != 1) max = 0; /* "max": no limit */
    fclose(fp);
  }
  fp = fopen("/sys/fs/cgroup/memory.current", "r");
  if (fp) {
    if (fscanf(fp, "%lf", &cur) != 1) cur = 0;
    fclose(fp);
  }
  if (max > 0 && (avail == 0 || max - cur < avail)) avail = max - cur > 0 ? max - cur : 1;
  return avail;
}

static int check(MPI_Comm comm, const pm_local_t *c, int levels, double run_bytes, int points);

int pm_refine_check(MPI_Comm comm, const pm_local_t *c, int levels) {
  return pm_refine_check_run(comm, c, levels, 0.0);
}

/* pm_refine_estimate for a last level without elements (pm_refine_local_points with elements
 * 0): its nodes and the points of the level below instead of its elements, and the work of the
 * last step with the edges sorted at 12 bytes a slot and 32 an edge (about 29 per element node
 * entry of the level below in 3D), quadrilateral faces only where the cells have some. */
void pm_refine_estimate_points(const pm_local_t *c, int levels, pm_refine_estimate_t *est) {
  pm_refine_estimate(c, levels, est);
  if (levels < 1) return;
  int dim = local_dim(c), quads = 0;
  for (int32_t e = 0; e < c->n_elems && !quads; e++) quads = pm_cell_gmsh(c->elem_type[e])->n_verts > dim + 1;
  double m = (double)(1 << dim), E = est->elems, EN = est->elem_nodes, V = est->nodes;
  double per_entry = dim == 3 ? 29 + (quads ? 72 * 0.75 : 0) : 29;
  double fine = V * 56 + E / m * 24 + V / m * 4, coarse = (E * 29 + EN * 4 + V * 56) / m;
  double work = EN / m * per_entry + V * 64;
  est->bytes = fine + coarse + work;
  est->work = work;
}

int pm_refine_check_run(MPI_Comm comm, const pm_local_t *c, int levels, double run_bytes) {
  return check(comm, c, levels, run_bytes, 0);
}

int pm_refine_check_run_points(MPI_Comm comm, const pm_local_t *c, int levels, double run_bytes) {
  return check(comm, c, levels, run_bytes, 1);
}

static int check(MPI_Comm comm, const pm_local_t *c, int levels, double run_bytes, int points) {
  int rank, ierr = PM_OK;
  MPI_Comm_rank(comm, &rank);
  pm_refine_estimate_t est = {0};
  if (levels < 0) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "refinement levels %d: must be 0 or more", levels);
  } else if (!c || !c->has_mesh) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "rank %d: no local mesh to refine", rank);
  } else {
    if (points)
      pm_refine_estimate_points(c, levels, &est);
    else
      pm_refine_estimate(c, levels, &est);
    double run = est.bytes - est.work + run_bytes * est.nodes;
    est.bytes = run > est.bytes ? run : est.bytes;
    double lim = (double)INT32_MAX;
    if (est.elem_nodes > lim || est.nodes > lim)
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                          "refining %d times gives rank %d about %.3g elements (%.3g element node entries) and %.3g "
                          "nodes, from %d elements and %d nodes: more than 32-bit local indices hold (%d); refine "
                          "fewer times or use more ranks",
                          levels, rank, est.elems, est.elem_nodes, est.nodes, c->n_elems, c->n_total + c->n_aux,
                          INT32_MAX);
  }
  PM_CALL(pm_comm_agree(comm, ierr));
  /* Global counts and tags in 64 bits; memory per machine (the ranks sharing its memory). */
  double m = 2.0, mine[4] = {0, 0, 0, 0}, all[4];
  int64_t tmax = 0;
  for (int32_t i = 0; i < c->n_internal; i++) tmax = c->gid[i] > tmax ? c->gid[i] : tmax;
  for (int32_t e = 0; e < c->n_elems; e++) tmax = c->elem_gid[e] > tmax ? c->elem_gid[e] : tmax;
  for (int g = 0; g < c->n_groups; g++)
    for (int32_t k = 0; k < c->groups[g].n_faces; k++)
      tmax = c->groups[g].face_gid[k] > tmax ? c->groups[g].face_gid[k] : tmax;
  mine[0] = (double)c->n_internal;
  mine[1] = (double)tmax;
  mine[2] = local_dim(c);
  MPI_Comm node = MPI_COMM_NULL;
  int mpi = pm_comm_allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, comm);
  double nsum = 0;
  if (mpi == MPI_SUCCESS) mpi = pm_comm_allreduce(&mine[0], &nsum, 1, MPI_DOUBLE, MPI_SUM, comm);
  if (mpi == MPI_SUCCESS) mpi = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  double need = 0, nranks = 0, one = 1;
  if (mpi == MPI_SUCCESS) mpi = pm_comm_allreduce(&est.bytes, &need, 1, MPI_DOUBLE, MPI_SUM, node);
  if (mpi == MPI_SUCCESS) mpi = pm_comm_allreduce(&one, &nranks, 1, MPI_DOUBLE, MPI_SUM, node);
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  PM_CHECK(mpi == MPI_SUCCESS, PM_ERR_MPI, "rank %d: a reduction of the refinement estimate failed", rank);
  m = (double)(1 << (int)all[2]);
  double f = pow(m, levels), lim = 4.0e18;
  PM_CHECK(nsum * f < lim && all[1] * f < lim, PM_ERR_ARG,
           "refining %d times gives about %.3g nodes and tags up to %.3g (from %.0f nodes, largest tag %.0f): more "
           "than 64-bit global ids hold; refine fewer times",
           levels, nsum * f, all[1] * f, nsum, all[1]);
  double avail = mem_available();
  if (avail > 0 && need > avail)
    ierr = pm_error_set(PM_ERR_MEMORY, __FILE__, __LINE__,
                        "refining %d times%s needs about %.3g GB on the machine of rank %d (%.0f ranks there, this one "
                        "%.3g GB for %.3g elements) but only %.3g GB are available; refine fewer times or use more "
                        "machines",
                        levels, run_bytes > 0 ? " and running on the fine mesh" : "", need / 1e9, rank, nranks,
                        est.bytes / 1e9, est.elems, avail / 1e9);
  PM_CALL(pm_comm_agree(comm, ierr));
  return PM_OK;
}

int pm_refine(MPI_Comm comm, int levels, pm_local_t **local) {
  PM_CALL(pm_refine_check(comm, local ? *local : NULL, levels));
  pm_local_t *cur = *local, *next = NULL;
  for (int k = 0; k < levels; k++) {
    int ierr = pm_refine_local(comm, cur, &next, NULL);
    if (cur != *local) pm_local_destroy(&cur);
    if (ierr) {
      pm_error_trace(__FILE__, __LINE__);
      return ierr;
    }
    cur = next;
    next = NULL;
  }
  if (cur != *local) {
    pm_local_destroy(local);
    *local = cur;
  }
  return PM_OK;
}

/* A copy of meta that owns its strings. */
static int meta_copy(const pm_meta_t *in, pm_meta_t **out) {
  pm_meta_t *m = NULL;
  int ierr = PM_CALLOC(m, 1, "partition metadata");
  if (ierr) return ierr;
  *m = *in;
  m->source = m->method = m->halo = NULL;
  m->group_name = NULL;
  m->group_dim = NULL;
  m->n_groups = 0;
  if (in->source) ierr = pm_strdup(in->source, &m->source);
  if (!ierr && in->method) ierr = pm_strdup(in->method, &m->method);
  if (!ierr && in->halo) ierr = pm_strdup(in->halo, &m->halo);
  int ng = in->n_groups > 0 ? in->n_groups : 0;
  if (!ierr && ng) ierr = PM_CALLOC(m->group_name, ng, "group names");
  if (!ierr && ng) ierr = PM_MALLOC(m->group_dim, ng, "group dimensions");
  for (int g = 0; !ierr && g < ng; g++) {
    m->group_dim[g] = in->group_dim[g];
    m->n_groups = g + 1; /* the names so far are freed on failure */
    ierr = pm_strdup(in->group_name[g], &m->group_name[g]);
  }
  if (ierr) pm_meta_destroy(&m);
  *out = m;
  return ierr;
}

int pm_refine_meta(MPI_Comm comm, const pm_local_t *f, const pm_meta_t *in, pm_meta_t **meta) {
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  *meta = NULL;
  /* Counts from the owned entities, then the mesh fingerprint (pm_fingerprint's definition). */
  int64_t mine[2] = {f->n_internal, 0}, all[2], dmax = local_dim(f), dim = 0;
  for (int32_t e = 0; e < f->n_elems; e++) mine[1] += f->elem_owner[e] == rank;
  int mpi = pm_comm_allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, comm);
  if (mpi == MPI_SUCCESS) mpi = pm_comm_allreduce(&dmax, &dim, 1, MPI_INT64_T, MPI_MAX, comm);
  PM_CHECK(mpi == MPI_SUCCESS, PM_ERR_MPI, "rank %d: a reduction of the refined mesh's counts failed", rank);
  pm_meta_t *m = NULL;
  int ierr = meta_copy(in, &m);
  if (!ierr && f->fingerprint != in->fingerprint) { /* refined levels have the element halo */
    free(m->halo);
    m->halo = NULL;
    ierr = pm_strdup("element", &m->halo);
  }
  PM_CALL(pm_comm_agree(comm, ierr));
  m->version = PM_META_VERSION;
  m->nparts = P;
  m->dim = (int)dim;
  m->global_nodes = all[0];
  m->global_elems = all[1];
  m->fingerprint = f->fingerprint;
  m->has_mesh_fingerprint = 1;
  /* The refinements between `in` and f: each applies pm_refine_fingerprint once. */
  int k = 0;
  for (uint64_t fp = in->fingerprint; fp != f->fingerprint && k <= 64; k++) fp = pm_refine_fingerprint(fp);
  if (k > 0 && k <= 64) {
    if (in->refine_levels == 0) {
      m->coarse_fingerprint = in->fingerprint;
      m->coarse_mesh_fingerprint = in->mesh_fingerprint;
      m->coarse_global_nodes = in->global_nodes;
      m->coarse_global_elems = in->global_elems;
    }
    m->refine_levels = in->refine_levels + k;
  }
  /* A finest level without its elements (pm_refine_local_points) has no mesh fingerprint until
   * they are made (the caller counts its elements and gives its dimension). */
  int with_elements = f->has_mesh, all_with = 0;
  mpi = pm_comm_allreduce(&with_elements, &all_with, 1, MPI_INT, MPI_MIN, comm);
  if (mpi != MPI_SUCCESS) ierr = pm_error_set(PM_ERR_MPI, __FILE__, __LINE__, "rank %d: a reduction failed", rank);
  m->has_mesh_fingerprint = all_with;
  m->mesh_fingerprint = 0;
  if (!ierr && all_with) ierr = pm_fingerprint_local(comm, f, m, &m->mesh_fingerprint);
  if (ierr) {
    pm_meta_destroy(&m);
    return ierr;
  }
  *meta = m;
  return PM_OK;
}

int pm_refine_dump(MPI_Comm comm, const pm_local_t *f, const pm_meta_t *in, const char *dir) {
  int rank, ierr = PM_OK;
  char path[4400];
  MPI_Comm_rank(comm, &rank);
  if (rank == 0 && mkdir(dir, 0777) != 0 && errno != EEXIST)
    ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot create directory: %s", dir, strerror(errno));
  PM_CALL(pm_comm_agree(comm, ierr));
  ierr = pm_local_path(dir, rank, path, sizeof path);
  if (!ierr) ierr = pm_local_write(f, path);
  PM_CALL(pm_comm_agree(comm, ierr));
  pm_meta_t *m = NULL;
  PM_CALL(pm_refine_meta(comm, f, in, &m));
  if (rank == 0) {
    ierr = pm_meta_path(dir, path, sizeof path);
    if (!ierr) ierr = pm_meta_write(m, path);
  }
  pm_meta_destroy(&m);
  PM_CALL(pm_comm_agree(comm, ierr));
  return PM_OK;
}
