/* pm_fingerprint.c - the partition-independent mesh fingerprint (see pm_fingerprint.h). */
#include "pmesh/pm_fingerprint.h"

#include <inttypes.h>
#include <string.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_meta.h"

static uint64_t mix64(uint64_t h) { /* splitmix64's finalizer */
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

/* Word-wise hash (each word mixed in with splitmix64). */
static uint64_t hash_words(const uint64_t *w, int n, uint64_t seed) {
  uint64_t h = mix64(seed);
  for (int i = 0; i < n; i++) h = mix64(h ^ (w[i] + 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1)));
  return h;
}

static uint64_t hash_node(int64_t index, int64_t gid, const double *xyz) {
  uint64_t w[5];
  w[0] = (uint64_t)index;
  w[1] = (uint64_t)gid;
  for (int d = 0; d < 3; d++) {
    double x = xyz[d] == 0.0 ? 0.0 : xyz[d]; /* -0 == +0 */
    memcpy(&w[2 + d], &x, sizeof x);
  }
  return hash_words(w, 5, 0x6e6f6465ULL);
}

/* The element's index, type and every node's global id; cells of at most 4 nodes hash 6 words
 * (their vertices padded with 0), as every partition written before 3D cells did. */
static uint64_t hash_elem(int64_t index, int type, int nv, const int64_t *vgid) {
  uint64_t w[2 + PM_CELL_MAX_VERTS] = {(uint64_t)index, (uint64_t)type};
  for (int k = 0; k < nv && k < PM_CELL_MAX_VERTS; k++) w[2 + k] = (uint64_t)vgid[k];
  return hash_words(w, nv <= 4 ? 6 : 2 + nv, 0x656c656dULL);
}

/* Add local mesh l's share (its internal nodes, the elements rank `owner` owns) to sums[0]
 * (nodes) and sums[1] (elements); counts[0], counts[1] (NULL to skip) count them. */
static void add_local(const pm_local_t *l, int owner, uint64_t sums[2], uint64_t *counts) {
  for (int32_t i = 0; i < l->n_internal; i++)
    sums[0] += hash_node(l->node_index[i], l->gid[i], &l->xyz[3 * (int64_t)i]);
  uint64_t ne = 0;
  for (int32_t e = 0; e < l->n_elems; e++) {
    if (l->elem_owner[e] != owner) continue;
    int64_t vg[PM_CELL_MAX_VERTS] = {0};
    int nv = l->elem_ptr[e + 1] - l->elem_ptr[e];
    for (int k = 0; k < nv && k < PM_CELL_MAX_VERTS; k++) vg[k] = l->gid[l->elem_node[l->elem_ptr[e] + k]];
    sums[1] += hash_elem(l->elem_index[e], l->elem_type[e], nv, vg);
    ne++;
  }
  if (counts) {
    counts[0] += (uint64_t)l->n_internal;
    counts[1] += ne;
  }
}

/* sums[0]: the nodes' hashes, sums[1]: the elements'. */
static uint64_t final(int64_t nodes, int64_t elems, int dim, const uint64_t sums[2]) {
  uint64_t w[5] = {(uint64_t)nodes, (uint64_t)elems, (uint64_t)dim, sums[0], sums[1]};
  return hash_words(w, 5, 0x6d657368ULL);
}

uint64_t pm_fingerprint_mesh(const pm_mesh_t *m) {
  uint64_t s[2] = {0, 0};
  for (int64_t i = 0; i < m->n_nodes; i++) s[0] += hash_node(i, m->node_gid[i], &m->xyz[3 * i]);
  for (int64_t e = 0; e < m->n_elems; e++) {
    int64_t vg[PM_CELL_MAX_VERTS] = {0};
    int nv = (int)(m->elem_ptr[e + 1] - m->elem_ptr[e]);
    for (int k = 0; k < nv && k < PM_CELL_MAX_VERTS; k++) vg[k] = m->node_gid[m->elem_node[m->elem_ptr[e] + k]];
    s[1] += hash_elem(e, m->elem_type[e], nv, vg);
  }
  return final(m->n_nodes, m->n_elems, m->dim, s);
}

uint64_t pm_fingerprint_element(int64_t index, int gmsh_type, int nv, const int64_t *vgid) {
  return hash_elem(index, gmsh_type, nv, vgid);
}

/* mine: this rank's node and element sums, then its node and element counts.  Collective. */
static int reduce(MPI_Comm comm, const pm_meta_t *meta, const uint64_t mine[4], uint64_t *fp) {
  uint64_t all[4];
  PM_CALL_MPI(pm_comm_allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, comm));
  PM_CHECK(all[2] == (uint64_t)meta->global_nodes && all[3] == (uint64_t)meta->global_elems, PM_ERR_INCONSISTENT,
           "the local meshes own %" PRIu64 " nodes and %" PRIu64 " elements but partition.meta says %" PRId64
           " and %" PRId64 ": local files and metadata from different partitions?",
           all[2], all[3], meta->global_nodes, meta->global_elems);
  *fp = final(meta->global_nodes, meta->global_elems, meta->dim, all);
  return PM_OK;
}

int pm_fingerprint_local(MPI_Comm comm, const pm_local_t *l, const pm_meta_t *meta, uint64_t *fp) {
  int rank, ierr = PM_OK;
  uint64_t mine[4] = {0, 0, 0, 0};
  MPI_Comm_rank(comm, &rank);
  if (!l || !meta || !fp) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_fingerprint_local: NULL argument");
  } else if (!l->has_mesh) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "rank %d: the local mesh has no coordinates or elements (a lecture file with the "
                        "tables only); re-partition with partition to get a full local mesh",
                        rank);
  } else {
    add_local(l, rank, mine, mine + 2); /* hashes in mine[0..1], counts in mine[2..3] */
  }
  PM_CALL(pm_comm_agree(comm, ierr));
  return reduce(comm, meta, mine, fp);
}

int pm_fingerprint_local_sum(MPI_Comm comm, const pm_local_t *l, const pm_meta_t *meta, uint64_t elem_sum,
                             int64_t n_elems, uint64_t *fp) {
  int rank, ierr = PM_OK;
  uint64_t mine[4] = {0, elem_sum, 0, (uint64_t)n_elems};
  MPI_Comm_rank(comm, &rank);
  if (!l || !meta || !fp) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_fingerprint_local_sum: NULL argument");
  } else if (!l->xyz && l->n_internal > 0) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "rank %d: the local mesh has no coordinates (a lecture file with the tables only); "
                        "re-partition with partition to get a full local mesh",
                        rank);
  } else {
    for (int32_t i = 0; i < l->n_internal; i++)
      mine[0] += hash_node(l->node_index[i], l->gid[i], &l->xyz[3 * (int64_t)i]);
    mine[2] = (uint64_t)l->n_internal;
  }
  PM_CALL(pm_comm_agree(comm, ierr));
  return reduce(comm, meta, mine, fp);
}

uint64_t pm_fingerprint_parts(int nparts, pm_local_t *const *local, const pm_meta_t *meta) {
  uint64_t sums[2] = {0, 0};
  for (int r = 0; r < nparts; r++) add_local(local[r], r, sums, NULL);
  return final(meta->global_nodes, meta->global_elems, meta->dim, sums);
}
