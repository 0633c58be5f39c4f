/* pm_run_fine.c - the matrix-free finest level's elements for its result (see pm_run_fine.h).
 *
 * The children of coarse element E are the fine elements 8E .. 8E + 7 (pm_refine.h: child c gets
 * index m E + c), so the coarse elements are pm_h5's items of m children, and the file's rows come
 * out as pm_refine_points_elements would have made them.  Whoever owns E holds every child: a
 * tetrahedron's corner and inner children each have an edge midpoint at E's lowest-tag vertex (a
 * pair of opposite edges always has one edge there), a prism's children a point of a face through
 * it or the vertex itself, a quadrangle's and a hexahedron's their centre, a triangle's and a
 * line's likewise; all of those are that vertex's owner's, who is E's, and a rank keeps every
 * fine element at its nodes.  pm_run_fine_create checks it. */
#include "pm_run_fine.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_refine.h"

/* Child j of coarse element i (pm_h5_elements_t's get). */
static void child_get(const void *ctx, int32_t i, int j, pm_h5_elem_t *el) {
  const pm_run_fine_t *rf = ctx;
  const pm_local_t *f = rf->f;
  int nv = pm_refine_points_child(rf->c, rf->pt, i, j, el->node), lo = 0;
  for (int v = 1; v < nv; v++)
    if (f->gid[el->node[v]] < f->gid[el->node[lo]]) lo = v;
  int32_t n = el->node[lo];
  el->type = rf->c->elem_type[i];
  el->owner = n < f->n_internal ? rf->rank : rf->ext_owner[n - f->n_internal];
  el->group = rf->group ? rf->group[i] : -1;
}

/* Each coarse local element's cell_group as pm_h5 gives a mesh's elements theirs (the last local
 * group that holds the element, by its index in the metadata's list): a child is in its parent's
 * groups.  NULL when no group holds elements.  Not collective. */
static int coarse_groups(const pm_local_t *c, const pm_meta_t *m, int32_t **out) {
  int any = 0;
  for (int k = 0; k < c->n_groups; k++) any |= c->groups[k].elems && c->groups[k].n_elems > 0;
  *out = NULL;
  if (!any) return PM_OK;
  return pm_local_element_groups(c, m, out);
}

/* The owned coarse elements, each with all its children's points here.  Not collective. */
static int owned_items(pm_run_fine_t *rf, int m) {
  const pm_local_t *c = rf->c;
  int32_t n = 0, v[PM_CELL_MAX_VERTS];
  for (int32_t e = 0; e < c->n_elems; e++) n += c->elem_owner[e] == rf->rank;
  PM_CALL(PM_MALLOC(rf->sel, n > 0 ? n : 1, "owned coarse elements"));
  n = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    if (c->elem_owner[e] != rf->rank) continue;
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    PM_CHECK(t && t->n_children == m, PM_ERR_UNSUPPORTED,
             "rank %d: coarse element %" PRId64 " (Gmsh type %d) has %d children, the mesh's cells %d", rf->rank,
             c->elem_gid[e], c->elem_type[e], t ? t->n_children : 0, m);
    for (int ch = 0; ch < m; ch++)
      PM_CHECK(pm_refine_points_child(c, rf->pt, e, ch, v) == t->n_verts, PM_ERR_INCONSISTENT,
               "rank %d: child %d of coarse element %" PRId64
               ", which this rank owns, lacks a refinement point in "
               "its fine mesh (internal error)",
               rf->rank, ch, c->elem_gid[e]);
    rf->sel[n++] = e;
  }
  rf->src.n_items = n;
  return PM_OK;
}

/* The owners of f's external nodes, from its import table.  Not collective. */
static int external_owners(pm_run_fine_t *rf) {
  const pm_local_t *f = rf->f;
  int32_t nx = f->n_total - f->n_internal;
  PM_CALL(PM_MALLOC(rf->ext_owner, nx > 0 ? nx : 1, "fine external node owners"));
  for (int32_t i = 0; i < nx; i++) rf->ext_owner[i] = -1;
  for (int k = 0; k < f->n_neib; k++)
    for (int32_t j = f->import_index[k]; j < f->import_index[k + 1]; j++) {
      int32_t x = f->import_item[j] - f->n_internal;
      PM_CHECK(x >= 0 && x < nx, PM_ERR_INCONSISTENT, "rank %d: import item %d is not an external node", rf->rank,
               f->import_item[j]);
      rf->ext_owner[x] = f->neib[k];
    }
  return PM_OK;
}

int pm_run_fine_create(const pm_partition_t *part, pm_run_fine_t *rf) {
  memset(rf, 0, sizeof *rf);
  rf->c = part->below;
  rf->f = part->local;
  rf->pt = part->points;
  rf->rank = part->rank;
  int ierr = PM_OK, m = 1 << part->meta->dim;
  if (!rf->c || !rf->pt || (rf->c->n_elems > 0 && (!rf->c->elem_owner || !rf->c->elem_index)))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "rank %d: the finest level's result needs the level below with its elements and their place",
                        part->rank);
  if (!ierr) ierr = owned_items(rf, m);
  if (!ierr) ierr = external_owners(rf);
  if (!ierr) ierr = coarse_groups(rf->c, part->meta, &rf->group);
  if (ierr) pm_run_fine_free(rf);
  PM_CALL(pm_comm_agree(part->comm, ierr));
  rf->src.pos = rf->c->elem_index;
  rf->src.sel = rf->sel;
  rf->src.per = m;
  rf->src.get = child_get;
  rf->src.ctx = rf;
  return PM_OK;
}

void pm_run_fine_free(pm_run_fine_t *rf) {
  free(rf->sel);
  free(rf->group);
  free(rf->ext_owner);
  rf->sel = rf->group = rf->ext_owner = NULL;
}
