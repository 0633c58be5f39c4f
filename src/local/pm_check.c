/* pm_check.c - `partition --check`: validate a partition directory as a whole. */
#include "pmesh/pm_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/pm_util.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_quality.h"

/* Owner of a global id: binary search in (gid, rank) pairs sorted by gid. */
typedef struct owner_map {
  int64_t *gid;
  int32_t *rank;
  int64_t n;
} owner_map_t;

/* Position of gid in ascending global-id order (= its global node index), or -1. */
static int64_t position_of(const owner_map_t *om, int64_t gid) {
  int64_t lo = 0, hi = om->n - 1;
  while (lo <= hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (om->gid[mid] == gid) return mid;
    if (om->gid[mid] < gid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int32_t owner_of(const owner_map_t *om, int64_t gid) {
  int64_t pos = position_of(om, gid);
  return pos < 0 ? -1 : om->rank[pos];
}

static int find_neib(const pm_local_t *l, int q) {
  for (int k = 0; k < l->n_neib; k++)
    if (l->neib[k] == q) return k;
  return -1;
}

/* Every element of file `path` is a cell of the partition's dimension (triangles and quadrangles
 * in 2D; tetrahedra, hexahedra, prisms and pyramids in 3D) and every face one of the dimension
 * below. */
static int check_cell_dims(const char *path, const pm_meta_t *meta, const pm_local_t *l) {
  for (int32_t e = 0; e < l->n_elems; e++) {
    const pm_cell_t *c = pm_cell_gmsh(l->elem_type[e]);
    PM_CHECK(c && c->dim == meta->dim, PM_ERR_INCONSISTENT,
             "%s: #ELEMENT %d (global id %lld) has type %d (a %s), but partition.meta says dim %d", path, e + 1,
             (long long)l->elem_gid[e], l->elem_type[e], c ? c->name : "type pmesh does not read", meta->dim);
  }
  for (int g = 0; g < l->n_groups; g++)
    for (int32_t f = 0; f < l->groups[g].n_faces; f++) {
      const pm_cell_t *c = pm_cell_gmsh(l->groups[g].face_type[f]);
      PM_CHECK(c && c->dim == meta->dim - 1, PM_ERR_INCONSISTENT,
               "%s: #GROUP '%s' face %d has type %d (a %s), but a face of a %dD mesh has dimension %d", path,
               l->groups[g].name, f + 1, l->groups[g].face_type[f], c ? c->name : "type pmesh does not read", meta->dim,
               meta->dim - 1);
    }
  return PM_OK;
}

/* Each file: right rank, same partition, groups as in the metadata, internal nodes in ascending
 * global id; and no file for a rank beyond the parts. */
static int check_files(const char *dir, const pm_meta_t *meta, pm_local_t **loc) {
  int P = meta->nparts;
  char path[4096];
  for (int r = 0; r < P; r++) {
    const pm_local_t *l = loc[r];
    PM_CALL(pm_local_path(dir, r, path, sizeof path));
    PM_CHECK(l->has_mesh, PM_ERR_FORMAT, "%s: has only the lecture's tables; pmesh's sections are missing", path);
    PM_CHECK(l->fingerprint == meta->fingerprint && l->nparts == P, PM_ERR_INCONSISTENT,
             "%s: #PARTITION: fingerprint %016llx of %d parts, but partition.meta has %016llx of %d parts: the "
             "file belongs to another partition",
             path, (unsigned long long)l->fingerprint, l->nparts, (unsigned long long)meta->fingerprint, P);
    PM_CHECK(l->n_groups == meta->n_groups, PM_ERR_INCONSISTENT, "%s: #GROUP: %d groups, but partition.meta lists %d",
             path, l->n_groups, meta->n_groups);
    for (int g = 0; g < l->n_groups; g++)
      PM_CHECK(strcmp(l->groups[g].name, meta->group_name[g]) == 0 && l->groups[g].dim == meta->group_dim[g],
               PM_ERR_INCONSISTENT, "%s: #GROUP entry %d is '%s' (dim %d), partition.meta says '%s' (dim %d)", path,
               g + 1, l->groups[g].name, l->groups[g].dim, meta->group_name[g], meta->group_dim[g]);
    PM_CALL(check_cell_dims(path, meta, l));
    for (int32_t i = 1; i < l->n_internal; i++)
      PM_CHECK(l->gid[i] > l->gid[i - 1], PM_ERR_INCONSISTENT,
               "%s: #GLOBALID: internal node %d (global id %lld) is not in ascending global-id order", path, i + 1,
               (long long)l->gid[i]);
  }
  PM_CALL(pm_local_path(dir, P, path, sizeof path));
  struct stat sb;
  PM_CHECK(stat(path, &sb) != 0, PM_ERR_INCONSISTENT, "%s exists, but partition.meta says %d parts", path, P);
  return PM_OK;
}

/* The owner map of the internal nodes of all P ranks, sorted by global id (om->gid and om->rank
 * are the caller's to free, also after a failure). */
static int owner_map_build(int P, pm_local_t **loc, owner_map_t *om) {
  int ierr = PM_OK;
  int64_t *key = NULL, *perm = NULL, n = 0;
  int32_t *rk = NULL;
  for (int r = 0; r < P; r++) n += loc[r]->n_internal;
  PM_TRY(PM_MALLOC(key, n, "owner check"));
  PM_TRY(PM_MALLOC(perm, n, "owner check"));
  PM_TRY(PM_MALLOC(om->gid, n, "owner map"));
  PM_TRY(PM_MALLOC(om->rank, n, "owner map"));
  PM_TRY(PM_MALLOC(rk, n, "owner check"));
  n = 0;
  for (int r = 0; r < P; r++)
    for (int32_t i = 0; i < loc[r]->n_internal; i++) {
      key[n] = loc[r]->gid[i];
      rk[n++] = r;
    }
  PM_TRY(pm_argsort_i64(key, n, perm));
  for (int64_t k = 0; k < n; k++) {
    om->gid[k] = key[perm[k]];
    om->rank[k] = rk[perm[k]];
  }
  om->n = n;
cleanup:
  free(rk);
  free(key);
  free(perm);
  return ierr;
}

/* Every global node internal on exactly one rank, as many as the metadata says. */
static int check_owners(const char *dir, const pm_meta_t *meta, const owner_map_t *om) {
  for (int64_t k = 1; k < om->n; k++)
    PM_CHECK(om->gid[k] != om->gid[k - 1], PM_ERR_INCONSISTENT,
             "global node %lld is internal on two ranks (%d and %d): see %s/local.%d and local.%d, #GLOBALID",
             (long long)om->gid[k], om->rank[k - 1], om->rank[k], dir, om->rank[k - 1], om->rank[k]);
  PM_CHECK(om->n == meta->global_nodes, PM_ERR_INCONSISTENT,
           "%lld nodes are internal on some rank, but partition.meta says global_nodes %lld", (long long)om->n,
           (long long)meta->global_nodes);
  return PM_OK;
}

/* Every node's global index is its position in ascending global-id order. */
static int check_indices(const char *dir, int P, pm_local_t **loc, const owner_map_t *om) {
  char path[4096];
  for (int r = 0; r < P; r++) {
    const pm_local_t *a = loc[r];
    PM_CALL(pm_local_path(dir, r, path, sizeof path));
    for (int32_t i = 0; i < a->n_total + a->n_aux; i++) {
      int64_t pos = position_of(om, a->gid[i]);
      PM_CHECK(pos >= 0, PM_ERR_INCONSISTENT, "%s: #GLOBALID entry %d: global id %lld is internal on no rank", path,
               i + 1, (long long)a->gid[i]);
      PM_CHECK(a->node_index[i] == pos, PM_ERR_INCONSISTENT,
               "%s: #GLOBALID entry %d: global id %lld has index %lld, but its position in ascending global-id "
               "order is %lld",
               path, i + 1, (long long)a->gid[i], (long long)a->node_index[i], (long long)pos);
    }
  }
  return PM_OK;
}

/* Rank r's halo tables (file `path`): its neighbours list it back, its externals come from their
 * owners, and each export list equals the neighbour's import list; counts the exchanged items. */
static int check_tables(const char *dir, const char *path, pm_local_t **loc, int r, const owner_map_t *om,
                        pm_check_stats_t *st) {
  const pm_local_t *a = loc[r];
  char path2[4096];
  for (int k = 0; k < a->n_neib; k++) {
    int q = a->neib[k];
    const pm_local_t *b = loc[q];
    PM_CALL(pm_local_path(dir, q, path2, sizeof path2));
    int kb = find_neib(b, r);
    PM_CHECK(kb >= 0, PM_ERR_INCONSISTENT, "%s: #NEIBPE lists rank %d, but %s does not list rank %d", path, q, path2,
             r);
    for (int32_t j = a->import_index[k]; j < a->import_index[k + 1]; j++) {
      int64_t g = a->gid[a->import_item[j]];
      int32_t w = owner_of(om, g);
      PM_CHECK(w == q, PM_ERR_INCONSISTENT,
               "%s: #IMPORTitems entry %d (node %d, global id %lld) is imported from rank %d, but its owner is "
               "%s%d",
               path, j + 1, a->import_item[j] + 1, (long long)g, q, w < 0 ? "no rank " : "rank ", w);
    }
    int32_t ne = a->export_index[k + 1] - a->export_index[k];
    int32_t ni = b->import_index[kb + 1] - b->import_index[kb];
    PM_CHECK(ne == ni, PM_ERR_INCONSISTENT,
             "%s: #EXPORTindex: %d nodes exported to rank %d, but %s #IMPORTindex imports %d from rank %d", path, ne, q,
             path2, ni, r);
    for (int32_t j = 0; j < ne; j++) {
      int64_t ge = a->gid[a->export_item[a->export_index[k] + j]];
      int64_t gi = b->gid[b->import_item[b->import_index[kb] + j]];
      PM_CHECK(ge == gi, PM_ERR_INCONSISTENT,
               "%s: #EXPORTitems entry %d (export %d to rank %d) is global id %lld, but %s #IMPORTitems entry %d "
               "(import %d from rank %d) is global id %lld",
               path, a->export_index[k] + j + 1, j + 1, q, (long long)ge, path2, b->import_index[kb] + j + 1, j + 1, r,
               (long long)gi);
    }
    st->exchanged_items += ne;
  }
  return PM_OK;
}

/* The shape of element e of a local mesh into q. */
static void measure_element(const pm_local_t *a, int32_t e, pm_quality_t *q) {
  const pm_cell_t *cell = pm_cell_gmsh(a->elem_type[e]);
  if (!cell || cell->dim < 2 || a->elem_ptr[e + 1] - a->elem_ptr[e] != cell->n_verts) return;
  double x[PM_CELL_MAX_VERTS][3];
  for (int i = 0; i < cell->n_verts; i++)
    memcpy(x[i], a->xyz + 3 * (size_t)a->elem_node[a->elem_ptr[e] + i], sizeof x[i]);
  pm_quality_add(q, cell->type, pm_cell_quality(cell, (const double(*)[3])x));
}

/* Rank r's elements (file `path`): each touches an internal node and is owned by the owner of
 * its lowest node; the global indices of those r owns are appended to eidx, their shapes to q. */
static int check_elements(const char *path, const pm_meta_t *meta, const pm_local_t *a, int r, const owner_map_t *om,
                          int64_t *eidx, int64_t *nelem_owned, pm_quality_t *q) {
  for (int32_t e = 0; e < a->n_elems; e++) {
    int64_t gmin = INT64_MAX;
    int touches = 0;
    for (int32_t j = a->elem_ptr[e]; j < a->elem_ptr[e + 1]; j++) {
      int32_t v = a->elem_node[j];
      if (a->gid[v] < gmin) gmin = a->gid[v];
      touches |= v < a->n_internal;
    }
    PM_CHECK(touches, PM_ERR_INCONSISTENT, "%s: #ELEMENT %d (global id %lld) touches no internal node", path, e + 1,
             (long long)a->elem_gid[e]);
    PM_CHECK(owner_of(om, gmin) == a->elem_owner[e], PM_ERR_INCONSISTENT,
             "%s: #ELEMENT %d (global id %lld): owner %d, but its lowest node %lld belongs to rank %d", path, e + 1,
             (long long)a->elem_gid[e], a->elem_owner[e], (long long)gmin, owner_of(om, gmin));
    if (a->elem_owner[e] == r) {
      PM_CHECK(*nelem_owned < meta->global_elems, PM_ERR_INCONSISTENT,
               "%s: #ELEMENT %d: more owned elements than global_elements %lld", path, e + 1,
               (long long)meta->global_elems);
      eidx[(*nelem_owned)++] = a->elem_index[e];
      measure_element(a, e, q);
    }
  }
  return PM_OK;
}

/* The owned elements' global indices (eidx, sorted here) are 0..global_elements-1, each once. */
static int check_owned(const char *dir, const pm_meta_t *meta, int64_t *eidx, int64_t nelem_owned) {
  int ierr = pm_sort_i64(eidx, nelem_owned);
  for (int64_t k = 0; !ierr && k < nelem_owned; k++)
    if (eidx[k] != k)
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "%s: the owned elements' indices are not 0..%lld: index %lld is %s", dir,
                          (long long)meta->global_elems - 1, (long long)(eidx[k] < k ? eidx[k] : k),
                          eidx[k] < k ? "owned twice" : "owned by no rank");
  PM_CALL(ierr);
  PM_CHECK(nelem_owned == meta->global_elems, PM_ERR_INCONSISTENT,
           "%lld elements are owned by the rank whose file lists them, but partition.meta says global_elements "
           "%lld",
           (long long)nelem_owned, (long long)meta->global_elems);
  return PM_OK;
}

static int check_all(const char *dir, const pm_meta_t *meta, pm_local_t **loc, pm_check_stats_t *st) {
  int P = meta->nparts, ierr = PM_OK;
  char path[4096];
  owner_map_t om = {0};
  int64_t *eidx = NULL; /* freed at cleanup, on every path */

  PM_TRY(check_files(dir, meta, loc));
  PM_TRY(owner_map_build(P, loc, &om));
  PM_TRY(check_owners(dir, meta, &om));
  PM_TRY(check_indices(dir, P, loc, &om));

  /* Externals come from their owners; tables mutual and equal; element owners. */
  int64_t nelem_owned = 0, nelem_listed = 0;
  for (int r = 0; r < P; r++) nelem_listed += loc[r]->n_elems;
  /* Every element is owned by a rank that lists it: the files bound the count (and the allocation). */
  PM_TRY_CHECK(meta->global_elems <= nelem_listed, PM_ERR_INCONSISTENT,
               "partition.meta says global_elements %lld, but the %d local files list only %lld elements in all",
               (long long)meta->global_elems, P, (long long)nelem_listed);
  PM_TRY(PM_MALLOC(eidx, meta->global_elems, "element index check"));
  st->external_nodes = st->exchanged_items = 0;
  pm_quality_init(&st->quality);
  for (int r = 0; r < P; r++) {
    PM_TRY(pm_local_path(dir, r, path, sizeof path));
    PM_TRY(check_tables(dir, path, loc, r, &om, st));
    st->external_nodes += loc[r]->n_total - loc[r]->n_internal;
    PM_TRY(check_elements(path, meta, loc[r], r, &om, eidx, &nelem_owned, &st->quality));
  }
  PM_TRY(check_owned(dir, meta, eidx, nelem_owned));
  /* The mesh fingerprint partition stored (version 2) is the one these files give. */
  if (meta->has_mesh_fingerprint) {
    uint64_t fp = pm_fingerprint_parts(P, loc, meta);
    PM_TRY_CHECK(fp == meta->mesh_fingerprint, PM_ERR_INCONSISTENT,
                 "partition.meta: mesh_fingerprint %016llx, but the local meshes' nodes and elements give %016llx: "
                 "coordinates, tags or elements changed after partitioning? Re-run partition",
                 (unsigned long long)meta->mesh_fingerprint, (unsigned long long)fp);
  }
  st->nparts = P;
  st->global_nodes = meta->global_nodes;
  st->global_elems = meta->global_elems;
cleanup:
  free(eidx);
  free(om.gid);
  free(om.rank);
  return ierr;
}

int pm_check_partition(const char *dir, pm_check_stats_t *stats) {
  char path[4096];
  pm_meta_t *meta = NULL;
  pm_local_t **loc = NULL;
  int ierr = PM_OK;
  memset(stats, 0, sizeof *stats);
  PM_TRY(pm_meta_path(dir, path, sizeof path));
  PM_TRY(pm_meta_read(path, &meta));
  /* The last file must exist before an array for nparts files is made (nparts may be forged). */
  PM_TRY(pm_local_path(dir, meta->nparts - 1, path, sizeof path));
  struct stat sb;
  PM_TRY_CHECK(stat(path, &sb) == 0, PM_ERR_IO, "%s/partition.meta says nparts %d, but %s: cannot open: %s", dir,
               meta->nparts, path, strerror(errno));
  PM_TRY(PM_CALLOC(loc, meta->nparts, "local meshes"));
  for (int r = 0; r < meta->nparts; r++) {
    PM_TRY(pm_local_path(dir, r, path, sizeof path));
    PM_TRY(pm_local_read(path, r, &loc[r]));
  }
  PM_TRY(check_all(dir, meta, loc, stats));
cleanup:
  if (loc)
    for (int r = 0; r < meta->nparts; r++) pm_local_destroy(&loc[r]);
  free(loc);
  pm_meta_destroy(&meta);
  return ierr;
}
