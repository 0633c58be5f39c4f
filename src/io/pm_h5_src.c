/* pm_h5_src.c - the rows of a result's mesh whose elements come from the caller, a
 * pm_h5_elements_t (see pm_h5_src.h). */
#include "pm_h5_src.h"

#include <inttypes.h>
#include <string.h>

#include "pmesh/pm_fingerprint.h"

int pm_h5_src_survey(pm_h5_src_t *s, int rank, int nranks, const pm_meta_t *meta, int node_fields, uint64_t *esum) {
  const pm_h5_elements_t *src = s->e;
  const pm_local_t *l = s->l;
  PM_CALL(pm_h5io_check_nodes(rank, l, meta));
  PM_CHECK(node_fields, PM_ERR_ARG,
           "pm_h5: a mesh whose elements the caller gives (pm_h5_options_t.elements) takes node fields only: set "
           "node_fields");
  PM_CHECK(src->get && src->n_items >= 0 && (src->n_items == 0 || src->pos) && src->per >= 1 && src->per <= 64 &&
               meta->global_elems % src->per == 0,
           PM_ERR_ARG,
           "pm_h5: rank %d: the elements given (%d items of %d) do not fit %" PRId64
           " elements (a get function, positions and 1 to 64 elements an item are needed)",
           rank, src->n_items, src->per, meta->global_elems);
  int8_t map[PM_H5_GMSH_CODES];
  pm_h5io_type_map(map);
  for (int t = 0; t < PM_CELL_NTYPES; t++) {
    const pm_cell_t *c = pm_cell_get((pm_cell_type_t)t);
    if (c->dim == meta->dim && c->gmsh_type >= 0 && c->gmsh_type < PM_H5_GMSH_CODES)
      s->nverts[c->gmsh_type] = (int8_t)c->n_verts;
  }
  int32_t nt = l->n_total + l->n_aux;
  uint64_t sum = 0;
  for (int32_t k = 0; k < src->n_items; k++) {
    int32_t i = src->sel ? src->sel[k] : k;
    for (int j = 0; j < src->per; j++) {
      pm_h5_elem_t el;
      src->get(src->ctx, i, j, &el);
      int nv = el.type >= 0 && el.type < PM_H5_GMSH_CODES ? s->nverts[el.type] : 0;
      PM_CHECK(nv > 0, PM_ERR_INCONSISTENT, "rank %d: element %d of item %d has Gmsh type %d, not a cell of a %dD mesh",
               rank, j, i, el.type, meta->dim);
      PM_CHECK(el.owner >= 0 && el.owner < nranks && el.group >= -1 && el.group < meta->n_groups, PM_ERR_INCONSISTENT,
               "rank %d: element %d of item %d: owner %d of %d ranks, group %d of %d", rank, j, i, el.owner, nranks,
               el.group, meta->n_groups);
      int64_t vg[PM_CELL_MAX_VERTS];
      for (int v = 0; v < nv; v++) {
        PM_CHECK(el.node[v] >= 0 && el.node[v] < nt, PM_ERR_INCONSISTENT,
                 "rank %d: element %d of item %d: node %d is %d, not a local node (0 to %d)", rank, j, i, v, el.node[v],
                 nt - 1);
        vg[v] = l->gid[el.node[v]];
      }
      s->own[pm_h5io_cell_of(map, el.type)]++;
      if (!meta->has_mesh_fingerprint) sum += pm_fingerprint_element(src->pos[i] * src->per + j, el.type, nv, vg);
    }
  }
  *esum = sum;
  return PM_OK;
}

/* The local index of the plan's i-th root. */
static inline int32_t item(const pm_h5_src_t *s, const int32_t *order, int32_t i) {
  int32_t k = order ? order[i] : i;
  return s->e->sel ? s->e->sel[k] : k;
}

void pm_h5_src_count_types(const pm_h5_src_t *s, const pm_redist_t *rd, int32_t a, int32_t b, const int8_t *map,
                           int64_t *cnt) {
  const pm_h5_elements_t *src = s->e;
  const int32_t *order = pm_redist_order(rd);
  for (int32_t i = a; i < b; i++) {
    int32_t it = item(s, order, i);
    for (int j = 0; j < src->per; j++) {
      pm_h5_elem_t el;
      src->get(src->ctx, it, j, &el);
      cnt[pm_h5io_cell_of(map, el.type)]++;
    }
  }
}

/* Type, then the nodes' global positions (-1 pads), per element (elem_get's rows). */
void pm_h5_src_elem_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                        const pm_redist_row_t *to, int w) {
  const pm_h5_src_t *s = ctx;
  const pm_h5_elements_t *src = s->e;
  const int32_t *order = pm_redist_order(rd);
  const int64_t *ni = s->l->node_index;
  for (int32_t i = a; i < b; i++) {
    int32_t it = item(s, order, i);
    char *o = dst + (size_t)(to ? to[i - a] : i - a) * w;
    for (int j = 0; j < src->per; j++) {
      pm_h5_elem_t el;
      int64_t row[PM_H5_ELEM_W];
      src->get(src->ctx, it, j, &el);
      int nv = s->nverts[el.type];
      row[0] = el.type;
      for (int v = 0; v < PM_CELL_MAX_VERTS; v++) row[1 + v] = v < nv ? ni[el.node[v]] : -1;
      memcpy(o + sizeof row * (size_t)j, row, sizeof row);
    }
  }
}

/* The nodes' positions only, in s->perm's order (elem_nodes_'s rows), as int64 or int32. */
static inline void nodes_(const pm_h5_src_t *s, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                          const pm_redist_row_t *to, int w, int size) {
  const pm_h5_elements_t *src = s->e;
  const int32_t *order = pm_redist_order(rd);
  const int64_t *ni = s->l->node_index;
  const int8_t *p = s->perm;
  int per = src->per, nv = w / size / per;
  for (int32_t i = a; i < b; i++) {
    int32_t it = item(s, order, i);
    char *o = dst + (size_t)(to ? to[i - a] : i - a) * w;
    for (int j = 0; j < per; j++) {
      pm_h5_elem_t el;
      src->get(src->ctx, it, j, &el);
      for (int v = 0; v < nv; v++) {
        int64_t g = ni[el.node[p[v]]];
        if (size == (int)sizeof(int64_t)) {
          memcpy(o + ((size_t)j * nv + v) * sizeof g, &g, sizeof g);
        } else {
          int32_t g32 = (int32_t)g;
          memcpy(o + ((size_t)j * nv + v) * sizeof g32, &g32, sizeof g32);
        }
      }
    }
  }
}

void pm_h5_src_nodes_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                         const pm_redist_row_t *to, int w) {
  nodes_(ctx, rd, a, b, dst, to, w, (int)sizeof(int64_t));
}

void pm_h5_src_nodes_get32(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                           const pm_redist_row_t *to, int w) {
  nodes_(ctx, rd, a, b, dst, to, w, (int)sizeof(int32_t));
}

/* The elements' owners (group 0) or groups (1) as int32. */
static inline void int_(const pm_h5_src_t *s, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                        const pm_redist_row_t *to, int w, int group) {
  const pm_h5_elements_t *src = s->e;
  const int32_t *order = pm_redist_order(rd);
  for (int32_t i = a; i < b; i++) {
    int32_t it = item(s, order, i);
    char *o = dst + (size_t)(to ? to[i - a] : i - a) * w;
    for (int j = 0; j < src->per; j++) {
      pm_h5_elem_t el;
      src->get(src->ctx, it, j, &el);
      int32_t v = group ? el.group : el.owner;
      memcpy(o + sizeof v * (size_t)j, &v, sizeof v);
    }
  }
}

void pm_h5_src_owner_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                         const pm_redist_row_t *to, int w) {
  int_(ctx, rd, a, b, dst, to, w, 0);
}

void pm_h5_src_group_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                         const pm_redist_row_t *to, int w) {
  int_(ctx, rd, a, b, dst, to, w, 1);
}
