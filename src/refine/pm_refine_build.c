/* pm_refine_build.c - the fine local mesh of one refinement level from its numbering
 * (pm_refine.c): nodes and tables, then elements and groups. */
#include "pm_refine_build.h"

#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pmesh/pm_error.h"

/* Nodes (internal by index, externals by owner then index), tables, coordinates.  Local. */
int pm_refine_build_nodes(work_t *w, pm_local_t *f, int32_t **fine_cand) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  int64_t *key = NULL, *perm = NULL;
  ext_rec_t *ext = NULL, *exp = NULL;
  int32_t *slot = NULL, *fc = NULL, ni = 0, nx = 0;
  for (int32_t k = 0; k < w->nc; k++) {
    w->lid[k] = -1;
    if (w->cown[k] == w->rank)
      ni++;
    else if (w->used[k])
      nx++;
  }
  PM_TRY_CHECK((int64_t)ni + nx <= INT32_MAX, PM_ERR_ARG, "rank %d: more than %d refined local nodes", w->rank,
               INT32_MAX);
  PM_TRY(PM_MALLOC(key, ni, "refinement: nodes"));
  PM_TRY(PM_MALLOC(perm, ni, "refinement: nodes"));
  PM_TRY(PM_MALLOC(ext, nx, "refinement: nodes"));
  PM_TRY(PM_MALLOC(fc, ni + nx, "refinement: nodes"));
  ni = nx = 0;
  for (int32_t k = 0; k < w->nc; k++) {
    if (w->cown[k] == w->rank) {
      fc[ni] = k;
      key[ni++] = w->cidx[k];
    } else if (w->used[k]) {
      ext[nx++] = (ext_rec_t){w->cown[k], k, w->cidx[k]};
    }
  }
  PM_TRY(pm_argsort_i64(key, ni, perm));
  for (int32_t i = 0; i < ni; i++) key[i] = fc[perm[i]];
  for (int32_t i = 0; i < ni; i++) fc[i] = (int32_t)key[i];
  qsort(ext, (size_t)nx, sizeof *ext, cmp_ext);
  for (int32_t i = 0; i < nx; i++) fc[ni + i] = ext[i].cand;
  int32_t nt = ni + nx;
  for (int32_t i = 0; i < nt; i++) w->lid[fc[i]] = i;
  f->n_internal = ni;
  f->n_total = nt;
  f->n_aux = 0;
  PM_TRY(PM_MALLOC(f->gid, nt, "refined nodes"));
  PM_TRY(PM_MALLOC(f->node_index, nt, "refined nodes"));
  PM_TRY(PM_MALLOC(f->xyz, 3 * (int64_t)nt, "refined nodes"));
  for (int32_t i = 0; i < nt; i++) {
    int32_t k = fc[i];
    PM_TRY_CHECK(w->cidx[k] >= 0 && w->cidx[k] < w->fine_nodes, PM_ERR_INCONSISTENT,
                 "rank %d: refined node without a global index (internal error)", w->rank);
    f->gid[i] = cand_gid(w, k);
    f->node_index[i] = w->cidx[k];
    double *x = f->xyz + 3 * (int64_t)i;
    if (k < w->nv) {
      memcpy(x, c->xyz + 3 * (int64_t)k, 3 * sizeof *x);
    } else if (k < w->nv + w->ne) { /* the same ends in the same order on every rank: the same bits */
      const double *a = c->xyz + 3 * (int64_t)w->edge[k - w->nv].a, *b = c->xyz + 3 * (int64_t)w->edge[k - w->nv].b;
      for (int d = 0; d < 3; d++) x[d] = 0.5 * (a[d] + b[d]);
    } else if (k < w->nv + w->ne + w->nf) { /* vertices by global index: the same bits everywhere */
      const int32_t *v = w->face[k - w->nv - w->ne].v;
      for (int d = 0; d < 3; d++)
        x[d] = 0.25 * (c->xyz[3 * (int64_t)v[0] + d] + c->xyz[3 * (int64_t)v[1] + d] + c->xyz[3 * (int64_t)v[2] + d] +
                       c->xyz[3 * (int64_t)v[3] + d]);
    } else { /* a cell centre: its vertices in the element's order */
      int32_t e = w->cent_elem[k - w->nv - w->ne - w->nf], n = c->elem_ptr[e + 1] - c->elem_ptr[e];
      const int32_t *v = c->elem_node + c->elem_ptr[e];
      for (int d = 0; d < 3; d++) {
        double sum = 0;
        for (int32_t j = 0; j < n; j++) sum += c->xyz[3 * (int64_t)v[j] + d];
        x[d] = sum / n;
      }
    }
  }
  /* Neighbours: the owners of the externals and the ranks that asked (the same ranks: both
   * are the ranks sharing a kept element; the union guards the tables' shapes). */
  PM_TRY(PM_MALLOC(slot, w->P, "refinement: neighbours"));
  for (int q = 0; q < w->P; q++) slot[q] = -1;
  for (int32_t i = 0; i < nx; i++) slot[ext[i].owner] = 0;
  for (int64_t r = 0; r < w->nreq; r++) slot[w->req_rank[r]] = 0;
  int nn = 0;
  for (int q = 0; q < w->P; q++)
    if (slot[q] == 0) slot[q] = nn++;
  f->n_neib = nn;
  PM_TRY(PM_MALLOC(f->neib, nn, "refined neighbours"));
  for (int q = 0; q < w->P; q++)
    if (slot[q] >= 0) f->neib[slot[q]] = q;
  PM_TRY(PM_CALLOC(f->import_index, nn + 1, "refined import table"));
  PM_TRY(PM_MALLOC(f->import_item, nx, "refined import table"));
  for (int32_t i = 0; i < nx; i++) {
    f->import_index[slot[ext[i].owner] + 1]++;
    f->import_item[i] = ni + i;
  }
  /* Exports: what each rank asked for, in ascending global index (the order it imports in). */
  PM_TRY(PM_MALLOC(exp, w->nreq, "refined export table"));
  for (int64_t r = 0; r < w->nreq; r++) exp[r] = (ext_rec_t){w->req_rank[r], w->req_cand[r], w->cidx[w->req_cand[r]]};
  qsort(exp, (size_t)w->nreq, sizeof *exp, cmp_ext);
  PM_TRY(PM_CALLOC(f->export_index, nn + 1, "refined export table"));
  PM_TRY(PM_MALLOC(f->export_item, w->nreq, "refined export table"));
  for (int64_t r = 0; r < w->nreq; r++) {
    f->export_index[slot[exp[r].owner] + 1]++;
    f->export_item[r] = w->lid[exp[r].cand];
  }
  for (int k = 0; k < nn; k++) {
    f->import_index[k + 1] += f->import_index[k];
    f->export_index[k + 1] += f->export_index[k];
  }
  *fine_cand = fc;
  fc = NULL;
cleanup:
  free(key);
  free(perm);
  free(ext);
  free(exp);
  free(slot);
  free(fc);
  return ierr;
}

/* The kept children as the fine elements; felem [n_elems*m] (the caller frees it, also after a
 * failure) gets the fine element of each kept child, -1 for the others.  Local. */
static int build_elements(work_t *w, pm_local_t *f, const int32_t *fc, int32_t **felem_out) {
  const pm_local_t *c = w->c;
  int64_t nfe = 0, nfn = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    for (int ch = 0; ch < t->n_children; ch++)
      if (w->keep[(int64_t)e * w->m + ch]) {
        nfe++;
        nfn += child_cell(t, ch)->n_verts;
      }
  }
  PM_CHECK(nfn <= INT32_MAX, PM_ERR_ARG, "rank %d: the refined elements have %lld node entries: more than %d", w->rank,
           (long long)nfn, INT32_MAX);
  f->n_elems = (int32_t)nfe;
  PM_CALL(PM_MALLOC(f->elem_type, nfe, "refined elements"));
  PM_CALL(PM_MALLOC(f->elem_gid, nfe, "refined elements"));
  PM_CALL(PM_MALLOC(f->elem_index, nfe, "refined elements"));
  PM_CALL(PM_MALLOC(f->elem_owner, nfe, "refined elements"));
  PM_CALL(PM_MALLOC(f->elem_ptr, nfe + 1, "refined elements"));
  PM_CALL(PM_MALLOC(f->elem_node, nfn, "refined elements"));
  PM_CALL(PM_MALLOC(*felem_out, (int64_t)c->n_elems * w->m, "refined elements"));
  int32_t *felem = *felem_out;
  f->elem_ptr[0] = 0;
  int32_t n = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    for (int ch = 0; ch < w->m; ch++) {
      int64_t s = (int64_t)e * w->m + ch;
      felem[s] = -1;
      if (ch >= t->n_children || !w->keep[s]) continue;
      const pm_cell_t *kid = child_cell(t, ch);
      int nvert = kid->n_verts;
      const int8_t *ref = cell_child(t, w->variant[e], ch);
      int32_t p = f->elem_ptr[n], lo = -1;
      for (int j = 0; j < nvert; j++) {
        int32_t k = cand_of(w, e, ref[j]);
        f->elem_node[p + j] = w->lid[k];
        if (lo < 0 || f->gid[w->lid[k]] < f->gid[f->elem_node[p + lo]]) lo = j;
      }
      f->elem_type[n] = kid->gmsh_type;
      f->elem_gid[n] = (c->elem_gid[e] - 1) * w->m + ch + 1;
      f->elem_index[n] = child_index(w, e, ch);
      f->elem_owner[n] = w->cown[fc[f->elem_node[p + lo]]];
      f->elem_ptr[n + 1] = p + nvert;
      felem[s] = n++;
    }
  }
  return PM_OK;
}

/* The faces of coarse group L split by the table's templates into F (a line into 2, a
 * triangle or quadrangle into 4, a point kept), the children that touch an internal node only.
 * F's face arrays are allocated for every child.  Local. */
static int group_faces(const work_t *w, const pm_local_group_t *L, pm_local_group_t *F) {
  F->face_ptr[0] = 0;
  for (int32_t fa = 0; fa < L->n_faces; fa++) {
    const int32_t *v = L->face_node + L->face_ptr[fa];
    const pm_cell_t *t = pm_cell_gmsh(L->face_type[fa]); /* checked in group_bits */
    int32_t sub[PM_CELL_MAX_VERTS];
    for (int ch = 0; ch < t->n_children; ch++) {
      int mine = 0;
      for (int j = 0; j < t->n_verts; j++) {
        sub[j] = face_cand(w, t, v, t->child[ch][j]); /* found in group_bits */
        mine |= w->cown[sub[j]] == w->rank;
      }
      if (!mine) continue;
      int32_t q = F->n_faces++, p = F->face_ptr[q];
      F->face_type[q] = L->face_type[fa];
      F->face_gid[q] = L->face_gid[fa] == 0 ? 0 : (L->face_gid[fa] - 1) * w->m + ch + 1;
      for (int j = 0; j < t->n_verts; j++) {
        PM_CHECK(w->lid[sub[j]] >= 0, PM_ERR_INCONSISTENT,
                 "rank %d: group '%s': a refined face's node is not local (internal error)", w->rank, L->name);
        F->face_node[p + j] = w->lid[sub[j]];
      }
      F->face_ptr[q + 1] = p + t->n_verts;
    }
  }
  return PM_OK;
}

/* Group g: fine nodes by membership; faces split where a child touches an internal node; the
 * kept children of the group's elements (felem from build_elements).  Local. */
static int build_group(const work_t *w, pm_local_t *f, const int32_t *fc, const int32_t *felem, int g) {
  const pm_local_group_t *L = &w->c->groups[g];
  pm_local_group_t *F = &f->groups[g];
  PM_CALL(pm_strdup(L->name, &F->name));
  F->dim = L->dim;
  int32_t cn = 0, ce = 0;
  for (int32_t i = 0; i < f->n_total; i++) cn += has_bit(w, fc[i], g);
  for (int32_t k = 0; felem && k < L->n_elems; k++)
    for (int ch = 0; ch < w->m; ch++) ce += felem[(int64_t)L->elems[k] * w->m + ch] >= 0;
  int64_t cf = 0, cfn = 0;
  for (int32_t fa = 0; fa < L->n_faces; fa++) {
    const pm_cell_t *t = pm_cell_gmsh(L->face_type[fa]);
    cf += t->n_children;
    cfn += (int64_t)t->n_children * t->n_verts;
  }
  PM_CHECK(cfn <= INT32_MAX, PM_ERR_ARG, "rank %d: group '%s' would have more than %d face node entries", w->rank,
           L->name, INT32_MAX);
  PM_CALL(PM_MALLOC(F->nodes, (int64_t)cn + 1, "refined group nodes"));
  PM_CALL(PM_MALLOC(F->elems, (int64_t)ce + 1, "refined group elements"));
  PM_CALL(PM_MALLOC(F->face_type, cf + 1, "refined group faces"));
  PM_CALL(PM_MALLOC(F->face_gid, cf + 1, "refined group faces"));
  PM_CALL(PM_MALLOC(F->face_ptr, cf + 1, "refined group faces"));
  PM_CALL(PM_MALLOC(F->face_node, cfn + 1, "refined group faces"));
  for (int32_t i = 0; i < f->n_total; i++)
    if (has_bit(w, fc[i], g)) F->nodes[F->n_nodes++] = i;
  for (int32_t k = 0; felem && k < L->n_elems; k++)
    for (int ch = 0; ch < w->m; ch++) {
      int32_t fe = felem[(int64_t)L->elems[k] * w->m + ch];
      if (fe >= 0) F->elems[F->n_elems++] = fe;
    }
  return group_faces(w, L, F);
}

/* Elements and groups.  Local. */
int pm_refine_build_cells(work_t *w, pm_local_t *f, const int32_t *fc) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  int32_t *felem = NULL; /* [n_elems*m]: fine element of each kept child, -1 */
  if (w->no_elements)
    f->has_mesh = 0; /* as pm_local_release leaves a mesh without its elements */
  else
    PM_TRY(build_elements(w, f, fc, &felem));
  PM_TRY(PM_CALLOC(f->groups, c->n_groups, "refined groups"));
  f->n_groups = c->n_groups;
  for (int g = 0; g < c->n_groups; g++) PM_TRY(build_group(w, f, fc, felem, g));
cleanup:
  free(felem);
  return ierr;
}

/* ---------------------------------------------------------------- elements from the points */

/* Fine node owners from the tables: internal nodes the rank's, externals their neighbour's. */
static int node_owners(const pm_local_t *f, int32_t **owner) {
  PM_CALL(PM_MALLOC(*owner, (int64_t)f->n_total + 1, "fine node owners"));
  for (int32_t i = 0; i < f->n_total; i++) (*owner)[i] = f->rank;
  for (int k = 0; k < f->n_neib; k++)
    for (int32_t j = f->import_index[k]; j < f->import_index[k + 1]; j++) (*owner)[f->import_item[j]] = f->neib[k];
  return PM_OK;
}

int pm_refine_points_child(const pm_local_t *c, const pm_refine_points_t *pt, int32_t e, int ch, int32_t *v) {
  const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
  const int8_t *ref = cell_child(t, pt->variant[e], ch);
  int missing = 0, nv = child_cell(t, ch)->n_verts;
  for (int j = 0; j < nv; j++) {
    v[j] = pm_refine_point(pt, c, e, ref[j]);
    missing |= v[j] < 0;
  }
  return missing ? 0 : nv;
}

/* Child ch of coarse element e as fine nodes v[]; 0 when it is not kept (it touches no internal
 * node: build_elements' rule). */
static int point_child(const pm_local_t *c, const pm_refine_points_t *pt, const pm_local_t *f, int32_t e, int ch,
                       int32_t *v) {
  int nv = pm_refine_points_child(c, pt, e, ch, v), mine = 0;
  for (int j = 0; j < nv; j++) mine |= v[j] < f->n_internal;
  return mine;
}

int pm_refine_points_elements(const pm_local_t *c, const pm_refine_points_t *pt, pm_local_t *f) {
  int ierr = PM_OK;
  int32_t *owner = NULL, *felem = NULL, v[PM_CELL_MAX_VERTS];
  int64_t nfe = 0, nfn = 0;
  PM_CHECK(pt && pt->n_elems == c->n_elems && f->n_elems == 0 && !f->elem_ptr && c->n_groups == f->n_groups, PM_ERR_ARG,
           "pm_refine_points_elements: the points are not the coarse mesh's, or the fine mesh has elements");
  int m = 1;
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    PM_CHECK(t->n_tet_children == 0, PM_ERR_UNSUPPORTED,
             "rank %d: element %lld is a %s: its children's element indices need the collective refinement "
             "(pm_refine_local_points with elements)",
             f->rank, (long long)c->elem_gid[e], t->name);
    if (1 << t->dim > m) m = 1 << t->dim;
    for (int ch = 0; ch < t->n_children; ch++)
      if (point_child(c, pt, f, e, ch, v)) nfe++, nfn += t->n_verts;
  }
  PM_CHECK(nfn <= INT32_MAX, PM_ERR_ARG, "rank %d: the refined elements have %lld node entries: more than %d", f->rank,
           (long long)nfn, INT32_MAX);
  PM_TRY(node_owners(f, &owner));
  PM_TRY(PM_MALLOC(felem, (int64_t)c->n_elems * m + 1, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_type, nfe + 1, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_gid, nfe + 1, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_index, nfe + 1, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_owner, nfe + 1, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_ptr, nfe + 1, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_node, nfn + 1, "refined elements"));
  f->elem_ptr[0] = 0;
  int32_t n = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    for (int ch = 0; ch < m; ch++) {
      felem[(int64_t)e * m + ch] = -1;
      if (ch >= t->n_children || !point_child(c, pt, f, e, ch, v)) continue;
      int32_t p = f->elem_ptr[n];
      int lo = 0;
      for (int j = 0; j < t->n_verts; j++) {
        f->elem_node[p + j] = v[j];
        if (f->gid[v[j]] < f->gid[v[lo]]) lo = j;
      }
      f->elem_type[n] = c->elem_type[e];
      f->elem_gid[n] = (c->elem_gid[e] - 1) * m + ch + 1;
      f->elem_index[n] = c->elem_index[e] * m + ch;
      f->elem_owner[n] = owner[v[lo]];
      f->elem_ptr[n + 1] = p + t->n_verts;
      felem[(int64_t)e * m + ch] = n++;
    }
  }
  f->n_elems = n;
  for (int g = 0; g < c->n_groups; g++) { /* the kept children of the groups' elements */
    const pm_local_group_t *L = &c->groups[g];
    pm_local_group_t *F = &f->groups[g];
    free(F->elems);
    F->elems = NULL;
    F->n_elems = 0;
    PM_TRY(PM_MALLOC(F->elems, (int64_t)L->n_elems * m + 1, "refined group elements"));
    for (int32_t k = 0; k < L->n_elems; k++)
      for (int ch = 0; ch < m; ch++)
        if (felem[(int64_t)L->elems[k] * m + ch] >= 0) F->elems[F->n_elems++] = felem[(int64_t)L->elems[k] * m + ch];
  }
  f->has_mesh = 1;
cleanup:
  free(owner);
  free(felem);
  return ierr;
}
