/* pm_h5_mesh.c - the datasets of a pm_h5 result (pm_h5.c is the series around them): the row
 * writer every dataset goes through, fields included, and the mesh's datasets (coordinates,
 * global ids, connectivity by cell type, owner ranks, groups).
 *
 * How a dataset is written: every entity (node, element) is an item with a global position.  A
 * redistribution plan (pm_redist) moves it from its owner to the rank whose block ("slab") of the
 * global order holds that position, and each rank writes its slab as contiguous hyperslabs.
 * Both go in rounds of a few thousand rows through small buffers that stay in cache, while
 * pm_h5.c's write-behind thread makes the file durable as it grows.  Element connectivity goes
 * per type: each rank counts the elements of each type in its slab of the global element
 * order, and an MPI_Exscan over those counts places its rows.
 *
 * A collective H5Dwrite waits for every rank at its entry and at its exit, and the file system
 * serialises the ranks' writes into one file, so no rank's exchange can hide behind another's
 * write: alternatives that tried (ROMIO's collective buffering, one writing rank, a shared-memory
 * window, writing in turns, a packing thread) were slower; see docs/h5-notes.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halo/pm_redist.h"
#include "pm_h5_int.h"
#include "pm_h5_src.h"
#include "pm_h5io.h"
#include "pm_xdmf.h"

/* A narrow dataset moves several rounds per exchange and per H5Dwrite, up to WRITE_ROW_BYTES
 * per round row (2 MiB per write with the default rounds): fewer collective calls. */
enum { WRITE_ROW_BYTES = 64 };

/* The rows below gather node_index[] at an element's nodes, and Gmsh numbers the nodes of an
 * element far apart: every row would wait on loads from all over a large array.  A row asks for
 * the entries of the element AHEAD rows on. */
enum { AHEAD = 64 };

#if defined(__GNUC__)
#define PREFETCH_(p) __builtin_prefetch(p)
#else
#define PREFETCH_(p) ((void)(p))
#endif

/* Prefetch node_index at the nodes of the element of row i + AHEAD, if that is below b, with
 * the caller's arrays (order, esel, ptr, en, ni: the callers write rows through a char pointer,
 * which could alias any member).  A macro: GCC 12 finds a function that only prefetches to
 * have no effect and deletes its calls. */
#define PREFETCH_NODES_(i)                                                                        \
  do {                                                                                            \
    if (b - (i) > AHEAD) {                                                                        \
      int32_t r_ = (i) + AHEAD;                                                                   \
      int32_t k_ = order ? order[r_] : r_, e_ = esel ? esel[k_] : k_, n_ = ptr[e_ + 1] - ptr[e_]; \
      const int32_t *nd_ = en + ptr[e_];                                                          \
      for (int v_ = 0; v_ < n_; v_++) PREFETCH_(ni + nd_[v_]);                                    \
    }                                                                                             \
  } while (0)

/* Owned elements in transit (a pm_redist_get_t): type, then the nodes' global positions (-1 pads). */
static void elem_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst, const pm_redist_row_t *to,
                     int w) {
  const pm_h5_series_t *s = ctx;
  const pm_local_t *l = s->local;
  const int32_t *order = pm_redist_order(rd), *esel = s->esel, *ptr = l->elem_ptr, *en = l->elem_node;
  const int64_t *ni = l->node_index;
  const int8_t *type = l->elem_type;
  for (int32_t i = a; i < b; i++) {
    PREFETCH_NODES_(i);
    int32_t k = order ? order[i] : i, e = esel ? esel[k] : k, at = ptr[e], n = ptr[e + 1] - at;
    int64_t it[PM_H5_ELEM_W];
    it[0] = type[e];
    for (int v = 0; v < PM_CELL_MAX_VERTS; v++) it[1 + v] = v < n ? ni[en[at + v]] : -1;
    memcpy(dst + (size_t)(to ? to[i - a] : i - a) * w, it, sizeof it);
  }
}

/* Owned elements' node positions only (a mesh of one type, in s->perm's order), nv = w / size of them per row, as
 * int64 (size 8) or as int32 (size 4: positions below 2^31, pm_h5io_conn_narrow).  The two
 * pm_redist_get_t's below fix size, so that the loop is compiled for each. */
static inline void elem_nodes_(const pm_h5_series_t *s, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                               const pm_redist_row_t *to, int w, int size) {
  const pm_local_t *l = s->local;
  const int32_t *order = pm_redist_order(rd), *esel = s->esel, *ptr = l->elem_ptr, *en = l->elem_node;
  const int64_t *ni = l->node_index;
  const int8_t *p = s->perm;
  int nv = w / size;
  for (int32_t i = a; i < b; i++) {
    PREFETCH_NODES_(i);
    int32_t k = order ? order[i] : i;
    const int32_t *nd = en + ptr[esel ? esel[k] : k];
    char *o = dst + (size_t)(to ? to[i - a] : i - a) * w;
    if (nv == 3 && size == (int)sizeof(int64_t)) { /* the usual cases, straight-line */
      int64_t it[3] = {ni[nd[p[0]]], ni[nd[p[1]]], ni[nd[p[2]]]};
      memcpy(o, it, sizeof it);
    } else if (nv == 3) {
      int32_t it[3] = {(int32_t)ni[nd[p[0]]], (int32_t)ni[nd[p[1]]], (int32_t)ni[nd[p[2]]]};
      memcpy(o, it, sizeof it);
    } else {
      for (int v = 0; v < nv; v++) /* rows are aligned to their element size */
        if (size == (int)sizeof(int64_t))
          ((int64_t *)(void *)o)[v] = ni[nd[p[v]]];
        else
          ((int32_t *)(void *)o)[v] = (int32_t)ni[nd[p[v]]];
    }
  }
}

static void elem_nodes_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                           const pm_redist_row_t *to, int w) {
  elem_nodes_(ctx, rd, a, b, dst, to, w, (int)sizeof(int64_t));
}

/* The same as int32 (connectivity stored narrow, pm_h5io_conn_narrow). */
static void elem_nodes_get32(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                             const pm_redist_row_t *to, int w) {
  elem_nodes_(ctx, rd, a, b, dst, to, w, (int)sizeof(int32_t));
}

/* Rounds c..c+m-1 of plan rd into s->chunk (*buf, *rows rows): what x carries or, with x NULL,
 * the rank each row comes from.  Collective unless x is NULL. */
static int take_rounds(pm_h5_series_t *s, const pm_redist_t *rd, int c, int m, const pm_redist_src_t *x,
                       const void **buf, int64_t *rows) {
  int ierr = PM_OK;
  double t0 = pm_h5io_prof_now();
  *rows = pm_redist_rows(rd, c, m);
  if (x) {
    ierr = pm_redist_forward(rd, c, m, x, &s->chunk, &s->xbuf);
  } else {
    int32_t *from = NULL;
    ierr = PM_SCRATCH_GET(&s->chunk, sizeof(int32_t) * (size_t)(*rows > 0 ? *rows : 1), from);
    if (!ierr) pm_redist_sources(rd, c, m, from);
  }
  *buf = s->chunk.p;
  pm_h5io_prof_add(PM_H5_PROF_EXCHANGE, pm_h5io_prof_now() - t0);
  return ierr;
}

int pm_h5_write_rows(pm_h5_series_t *s, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                     int ncols, const pm_redist_t *rd, int per, const pm_redist_src_t *x, const char *center) {
  int ierr = PM_OK, w = x ? x->width : (int)sizeof(int32_t);
  hid_t ds = -1;
  pm_h5io_out_t o = {s->file, s->dxpl, s->h5path, &s->wb};
  pm_redist_info_t in;
  char where[300];
  pm_redist_get_info(rd, &in);
  snprintf(where, sizeof where, "dataset %s/%s of %s", gname, name, s->h5path);
  STEP(s->comm, pm_h5io_dset_create(loc, name, ftype, ncols, in.n_global * per, center, where, &ds));
  int m = w < WRITE_ROW_BYTES ? WRITE_ROW_BYTES / w : 1; /* rounds per write */
  for (int c = 0; c < in.nrounds; c += m) {
    const void *buf = NULL;
    int64_t rows = 0;
    STEP(s->comm, take_rounds(s, rd, c, m, x, &buf, &rows));
    STEP(s->comm, pm_h5io_dset_put(&o, ds, mtype, ncols, (in.lo + (int64_t)c * in.rows_per_round) * per, rows * per,
                                   buf, where));
  }
cleanup:
  pm_h5io_close(&ds, H5Dclose);
  return ierr;
}

/* The rows of each cell type in this rank's slab of the global element order, from what each
 * rank sends to it (cnt[t], by pm_cell_type_t).  Collective. */
static int slab_type_counts(pm_h5_series_t *s, const int8_t *map, const int64_t own[PM_H5_NT], int64_t cnt[PM_H5_NT]) {
  const pm_local_t *l = s->local;
  const pm_redist_t *ep = s->ep;
  int ierr = PM_OK, p = s->nranks;
  int64_t *per = NULL;
  pm_redist_info_t in;
  pm_redist_get_info(ep, &in);
  memset(cnt, 0, PM_H5_NT * sizeof *cnt);
  if (in.identity) {
    memcpy(cnt, own, PM_H5_NT * sizeof *cnt);
    return PM_OK;
  }
  const int32_t *order = pm_redist_order(ep);
  ierr = PM_CALLOC(per, 2 * PM_H5_NT * (size_t)p, "element counts");
  STEP(s->comm, ierr);
  for (int r = 0; r < p; r++) {
    int32_t a, b;
    pm_redist_roots_to(ep, r, &a, &b);
    for (int32_t i = a; i < b; i++) {
      if (s->src.e) { /* an item: the types of its elements */
        pm_h5_src_count_types(&s->src, ep, i, i + 1, map, per + PM_H5_NT * r);
        continue;
      }
      int32_t k = order ? order[i] : i;
      per[PM_H5_NT * r + pm_h5io_cell_of(map, l->elem_type[s->esel ? s->esel[k] : k])]++;
    }
  }
  PM_TRY_MPI(pm_comm_alltoall(per, per + PM_H5_NT * p, PM_H5_NT, MPI_INT64_T, s->comm));
  for (int r = 0; r < p; r++)
    for (int t = 0; t < PM_H5_NT; t++) cnt[t] += per[PM_H5_NT * p + PM_H5_NT * r + t];
cleanup:
  free(per);
  return ierr;
}

/* Several cell types: each round's rows split by type into the per-type datasets, and XDMF's
 * Mixed list.  Each rank's rows of a type start at the exclusive scan of the slabs' counts.
 * Collective. */
static int write_mixed(pm_h5_series_t *s, hid_t g, const int8_t *map, const int64_t own[PM_H5_NT],
                       const int64_t ttot[PM_H5_NT]) {
  const pm_redist_t *ep = s->ep;
  pm_h5io_out_t o = {s->file, s->dxpl, s->h5path, &s->wb};
  int ierr = PM_OK;
  int64_t tcnt[PM_H5_NT], tlo[PM_H5_NT], done[PM_H5_NT], mdone = 0;
  int narrow = s->x.conn_kind == PM_XDMF_INT32; /* pm_h5_series_create's choice */
  hid_t ds[PM_H5_NT], dm = -1;
  char where[PM_H5_NT][300], wmixed[300];
  pm_redist_info_t in;
  pm_redist_get_info(ep, &in);
  for (int t = 0; t < PM_H5_NT; t++) {
    ds[t] = -1;
    tlo[t] = done[t] = 0;
  }
  STEP(s->comm, slab_type_counts(s, map, own, tcnt));
  PM_TRY_MPI(pm_comm_exscan(tcnt, tlo, PM_H5_NT, MPI_INT64_T, MPI_SUM, s->comm));
  if (s->rank == 0) memset(tlo, 0, sizeof tlo);
  for (int t = 0; t < PM_H5_NT; t++)
    if (ttot[t] > 0) {
      snprintf(where[t], sizeof where[t], "dataset /mesh/%s of %s", pm_xdmf_conn_names[t], s->h5path);
      STEP(s->comm, pm_h5io_dset_create(g, pm_xdmf_conn_names[t], pm_h5io_conn_ftype(narrow),
                                        pm_cell_get((pm_cell_type_t)t)->n_verts, ttot[t], NULL, where[t], &ds[t]));
    }
  snprintf(wmixed, sizeof wmixed, "dataset /mesh/mixed of %s", s->h5path);
  STEP(s->comm,
       pm_h5io_dset_create(g, "mixed", pm_h5io_conn_ftype(narrow), 0, pm_h5io_mixed_len(ttot), NULL, wmixed, &dm));
  int64_t mlo = pm_h5io_mixed_len(tlo);
  int64_t row_room = PM_H5_ELEM_W; /* per row: each present type's columns, then the Mixed list's */
  for (int t = 0; t < PM_H5_NT; t++)
    if (ttot[t] > 0) row_room += pm_cell_get((pm_cell_type_t)t)->n_verts;
  pm_redist_src_t x = {(int)sizeof(int64_t) * PM_H5_ELEM_W * s->per, NULL, s->src.e ? pm_h5_src_elem_get : elem_get,
                       s->src.e ? (const void *)&s->src : s};
  for (int c = 0; c < in.nrounds; c++) {
    const void *buf = NULL;
    int64_t rows = 0, *split = NULL, *tr[PM_H5_NT], cnt[PM_H5_NT], mlen = 0, at = 0;
    STEP(s->comm, take_rounds(s, ep, c, 1, &x, &buf, &rows));
    rows *= s->per; /* elements */
    STEP(s->comm, PM_SCRATCH_GET(&s->conv, sizeof(int64_t) * (size_t)(row_room * rows + 1), split));
    for (int t = 0; t < PM_H5_NT; t++) {
      tr[t] = ttot[t] > 0 ? split + at : NULL;
      at += ttot[t] > 0 ? pm_cell_get((pm_cell_type_t)t)->n_verts * rows : 0;
    }
    pm_h5io_elem_split(buf, rows, tr, split + at, cnt, &mlen);
    for (int t = 0; t < PM_H5_NT; t++)
      if (ttot[t] > 0) {
        int nv = pm_cell_get((pm_cell_type_t)t)->n_verts;
        pm_h5io_conn_pack(tr[t], cnt[t] * nv, narrow);
        STEP(s->comm, pm_h5io_dset_put(&o, ds[t], pm_h5io_conn_mtype(narrow), nv, tlo[t] + done[t], cnt[t], tr[t],
                                       where[t]));
        done[t] += cnt[t];
      }
    pm_h5io_conn_pack(split + at, mlen, narrow);
    STEP(s->comm, pm_h5io_dset_put(&o, dm, pm_h5io_conn_mtype(narrow), 0, mlo + mdone, mlen, split + at, wmixed));
    mdone += mlen;
  }
cleanup:
  for (int t = 0; t < PM_H5_NT; t++) pm_h5io_close(&ds[t], H5Dclose);
  pm_h5io_close(&dm, H5Dclose);
  return ierr;
}

/* Connectivity: one dataset per cell type, in XDMF's vertex order; where types mix, also XDMF's
 * Mixed list.  Collective. */
static int write_elements(pm_h5_series_t *s, hid_t g) {
  const pm_local_t *l = s->local;
  int ierr = PM_OK, ntypes = 0, one = 0;
  int64_t own[PM_H5_NT], ttot[PM_H5_NT];
  int8_t map[PM_H5_GMSH_CODES];
  pm_redist_info_t in;
  pm_redist_get_info(s->ep, &in);
  pm_h5io_type_map(map);
  memset(own, 0, sizeof own);
  if (s->src.e)
    memcpy(own, s->src.own, sizeof own);
  else
    for (int32_t k = 0; k < in.n_roots; k++) own[pm_h5io_cell_of(map, l->elem_type[s->esel ? s->esel[k] : k])]++;
  PM_TRY_MPI(pm_comm_allreduce(own, ttot, PM_H5_NT, MPI_INT64_T, MPI_SUM, s->comm));
  memcpy(s->x.ttot, ttot, sizeof ttot);
  for (int t = 0; t < PM_H5_NT; t++)
    if (ttot[t] > 0) {
      ntypes++;
      one = t;
    }
  if (ntypes == 1) { /* the usual mesh: the slab's rows are the dataset's rows, positions only */
    const pm_cell_t *c = pm_cell_get((pm_cell_type_t)one);
    int nv = c->n_verts;
    s->perm = s->src.perm = c->to_vtk;
    int narrow = s->x.conn_kind == PM_XDMF_INT32, size = narrow ? (int)sizeof(int32_t) : (int)sizeof(int64_t);
    pm_redist_src_t x = {size * nv, NULL, narrow ? elem_nodes_get32 : elem_nodes_get, s};
    if (s->src.e)
      x = (pm_redist_src_t){size * nv * s->per, NULL, narrow ? pm_h5_src_nodes_get32 : pm_h5_src_nodes_get, &s->src};
    STEP(s->comm, pm_h5_write_rows(s, g, "/mesh", pm_xdmf_conn_names[one], pm_h5io_conn_ftype(narrow),
                                   pm_h5io_conn_mtype(narrow), nv, s->ep, s->per, &x, NULL));
  } else {
    STEP(s->comm, write_mixed(s, g, map, own, ttot));
  }
cleanup:
  return ierr;
}

int pm_h5_write_mesh(pm_h5_series_t *s) {
  const pm_local_t *l = s->local;
  int ierr = PM_OK;
  hid_t g = -1, gf = -1;
  int32_t *groups = NULL;
  H5_STEP(s->comm, g = pm_h5io_group_create(s->file, "mesh"), "creating group /mesh in %s", s->h5path);
  H5_STEP(s->comm, gf = pm_h5io_group_create(s->file, "fields"), "creating group /fields in %s", s->h5path);
  pm_redist_src_t xyz = {3 * (int)sizeof(double), l->xyz, NULL, NULL};
  pm_redist_src_t gid = {(int)sizeof(int64_t), l->gid, NULL, NULL};
  STEP(s->comm,
       pm_h5_write_rows(s, g, "/mesh", "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, s->np, 1, &xyz, NULL));
  STEP(s->comm,
       pm_h5_write_rows(s, g, "/mesh", "global_id", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, s->np, 1, &gid, "node"));
  int ranks = !(s->flags & H5_NO_PARTITION);
  if (ranks)
    STEP(s->comm,
         pm_h5_write_rows(s, gf, "/fields", "node_rank", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, s->np, 1, NULL, "node"));
  STEP(s->comm, write_elements(s, g));
  /* The local elements' owners are the ranks they come from; a source's are its own. */
  pm_redist_src_t own = {(int)sizeof(int32_t) * s->per, NULL, pm_h5_src_owner_get, &s->src};
  if (ranks)
    STEP(s->comm, pm_h5_write_rows(s, gf, "/fields", "cell_rank", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, s->ep, s->per,
                                   s->src.e ? &own : NULL, "cell"));
  pm_redist_src_t grp = {(int)sizeof(int32_t) * s->per, NULL, pm_h5_src_group_get, &s->src};
  if (!s->src.e) {
    STEP(s->comm, pm_local_element_groups(l, s->meta, &groups));
    grp = (pm_redist_src_t){(int)sizeof(int32_t), groups, NULL, NULL};
  }
  STEP(s->comm, pm_h5_write_rows(s, gf, "/fields", "cell_group", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, s->ep, s->per,
                                 &grp, "cell"));
cleanup:
  free(groups);
  pm_h5io_close(&g, H5Gclose);
  pm_h5io_close(&gf, H5Gclose);
  return ierr;
}
