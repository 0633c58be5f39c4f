/* pm_refine.c - one level of parallel uniform refinement of the local meshes (pm_refine.h has
 * the numbering and owner rules).
 *
 * Each rank lists "candidate" fine nodes from its coarse elements: its coarse nodes, the
 * midpoints of its coarse elements' edges, the centres of the quadrilateral faces of its 3D
 * cells and the centres of its quadrangles and hexahedra; the children are the cell-type table's
 * templates over those (pm_refine_work.h).  Owners follow from the rules alone.  A rank owning
 * a node knows everything about it: the owner of an edge's smaller end (a face's smallest
 * vertex) keeps every element around that vertex, so it sees all the edges and faces from it,
 * and the owner of a cell keeps it.  The new nodes' indices come from one prefix sum over the
 * coarse nodes (edges and faces counted at their smallest vertex) and elements (cell centres),
 * in global order.  Every rank then keeps the children touching a node it owns, and asks the
 * owners of the other nodes they use for their indices and groups: the questions are the import
 * lists and the owners answer them as export lists, in ascending global index, so the tables
 * are mutual by construction. */
#include "pmesh/pm_refine.h"

#include <stdlib.h>
#include <string.h>

#include "base/pm_scan.h"
#include "base/pm_util.h"
#include "pm_refine_build.h"
#include "pm_refine_comm.h"
#include "pm_refine_tet.h"
#include "pm_refine_work.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

static void work_free(work_t *w) {
  free(w->own);
  free(w->slot_edge);
  free(w->edge);
  free(w->eptr);
  free(w->fptr);
  free(w->slot_face);
  free(w->face);
  free(w->elem_cent);
  free(w->cent_elem);
  free(w->variant);
  free(w->cbase);
  free(w->cown);
  free(w->lid);
  free(w->cidx);
  free(w->cbits);
  free(w->used);
  free(w->keep);
  free(w->req_rank);
  free(w->req_cand);
}

/* An element edge slot in its smaller end's bucket: the larger end and the slot. */
typedef struct slot_rec {
  int32_t b, slot;
} slot_rec_t;

/* The ends of element e's edge j, the one of smaller global index first. */
static inline void edge_ends(const pm_local_t *c, int32_t e, const pm_cell_t *t, int j, int32_t *a, int32_t *b) {
  const int32_t *v = c->elem_node + c->elem_ptr[e];
  *a = v[t->edge[j][0]];
  *b = v[t->edge[j][1]];
  if (c->node_index[*a] > c->node_index[*b]) {
    int32_t s = *a;
    *a = *b;
    *b = s;
  }
}

/* The element edge slots by (smaller end, larger end, slot) in linear time: a counting sort into
 * buckets by the position of the smaller end among the local nodes' global indices (slots in
 * order, so stable), then each bucket's few slots by the larger end's global index, stably.  8
 * bytes a slot: the edges' full records, sorted through a copy, were the largest arrays of a
 * 3D refinement (64 bytes a slot, its peak).  start[nv+1] receives the buckets' starts. */
static int sort_edges(const pm_local_t *c, const int32_t *eptr, slot_rec_t *rec, const int64_t *perm, int32_t *start) {
  int32_t nv = c->n_total, *pos = NULL;
  PM_CALL(PM_MALLOC(pos, (size_t)nv + 1, "refinement: edge order"));
  for (int32_t i = 0; i < nv; i++) pos[perm[i]] = i;
  memset(start, 0, ((size_t)nv + 2) * sizeof *start);
  for (int pass = 0; pass < 2; pass++) {
    for (int32_t e = 0; e < c->n_elems; e++) {
      const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
      for (int j = 0; j < t->n_edges; j++) {
        int32_t a, b;
        edge_ends(c, e, t, j, &a, &b);
        if (pass == 0)
          start[pos[a] + 1]++;
        else
          rec[start[pos[a]]++] = (slot_rec_t){b, eptr[e] + j};
      }
    }
    if (pass == 0)
      for (int32_t i = 0; i < nv; i++) start[i + 1] += start[i];
  }
  free(pos);
  for (int32_t i = nv; i > 0; i--) start[i] = start[i - 1]; /* back to the buckets' starts */
  start[0] = 0;
  const int64_t *key = c->node_index;
  for (int32_t i = 0; i < nv; i++) {
    slot_rec_t *bk = rec + start[i];
    int32_t m = start[i + 1] - start[i];
    for (int32_t x = 1; x < m; x++) {
      slot_rec_t r = bk[x];
      int32_t y = x - 1;
      while (y >= 0 && key[bk[y].b] > key[r.b]) {
        bk[y + 1] = bk[y];
        y--;
      }
      bk[y + 1] = r;
    }
  }
  return PM_OK;
}

static int cmp_face(const void *x, const void *y) {
  const face_rec_t *a = x, *b = y;
  int s = cmp_key4(a->k, b->k);
  return s ? s : (a->slot > b->slot) - (a->slot < b->slot);
}

/* Unique edges of the elements, sorted by their ends' global indices (each the record of its
 * first slot); every slot's edge.  Local. */
static int make_edges(work_t *w) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  slot_rec_t *rec = NULL;
  int64_t *perm = NULL;
  int32_t nrec = w->eptr[c->n_elems], nv = c->n_total, *start = NULL;
  PM_TRY(PM_MALLOC(rec, (int64_t)nrec + 1, "refinement: edges"));
  PM_TRY(PM_MALLOC(w->slot_edge, (int64_t)nrec + 1, "refinement: edges"));
  PM_TRY(PM_MALLOC(perm, (size_t)nv + 1, "refinement: edge order"));
  PM_TRY(PM_MALLOC(start, (size_t)nv + 2, "refinement: edge order"));
  PM_TRY(pm_argsort_i64(c->node_index, nv, perm));
  PM_TRY(sort_edges(c, w->eptr, rec, perm, start));
  const int64_t *key = c->node_index;
  w->ne = 0;
  for (int32_t i = 0; i < nv; i++)
    for (int32_t k = start[i]; k < start[i + 1]; k++) w->ne += k == start[i] || key[rec[k].b] != key[rec[k - 1].b];
  PM_TRY(PM_MALLOC(w->edge, (int64_t)w->ne + 1, "refinement: edges"));
  int32_t ne = 0;
  for (int32_t i = 0; i < nv; i++) {
    int32_t a = (int32_t)perm[i];
    for (int32_t k = start[i]; k < start[i + 1]; k++) {
      if (k == start[i] || key[rec[k].b] != key[rec[k - 1].b])
        w->edge[ne++] = (edge_rec_t){key[a], key[rec[k].b], a, rec[k].b, rec[k].slot};
      w->slot_edge[rec[k].slot] = ne - 1;
    }
  }
cleanup:
  free(rec);
  free(perm);
  free(start);
  return ierr;
}

/* Unique quadrilateral faces of the 3D cells, sorted by their vertices' global indices.  Local. */
static int make_faces(work_t *w) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  face_rec_t *rec = NULL;
  int32_t nrec = w->fptr[c->n_elems];
  PM_TRY(PM_MALLOC(rec, (int64_t)nrec + 1, "refinement: faces"));
  PM_TRY(PM_MALLOC(w->slot_face, (int64_t)nrec + 1, "refinement: faces"));
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    const int32_t *v = c->elem_node + c->elem_ptr[e];
    int32_t s = w->fptr[e];
    for (int f = 0; t->dim == 3 && f < t->n_facets; f++) {
      if (t->facet_type[f] != PM_CELL_QUAD) continue;
      face_rec_t *r = &rec[s];
      r->slot = s++;
      for (int j = 0; j < 4; j++) { /* insertion by global index */
        int32_t a = v[t->facet[f][j]];
        int i = j;
        for (; i > 0 && r->k[i - 1] > c->node_index[a]; i--) {
          r->k[i] = r->k[i - 1];
          r->v[i] = r->v[i - 1];
        }
        r->k[i] = c->node_index[a];
        r->v[i] = a;
      }
    }
  }
  qsort(rec, (size_t)nrec, sizeof *rec, cmp_face);
  w->nf = 0;
  for (int32_t k = 0; k < nrec; k++) {
    if (k == 0 || cmp_key4(rec[k].k, rec[k - 1].k) != 0) rec[w->nf++] = rec[k];
    w->slot_face[rec[k].slot] = w->nf - 1;
  }
  PM_TRY(PM_MALLOC(w->face, (int64_t)w->nf + 1, "refinement: faces"));
  memcpy(w->face, rec, (size_t)w->nf * sizeof *rec);
cleanup:
  free(rec);
  return ierr;
}

/* Checks; element types and dimension; edge and face slots; tetrahedra's diagonals.  Local. */
static int check_cells(work_t *w) {
  const pm_local_t *c = w->c;
  PM_CHECK(c->has_mesh, PM_ERR_UNSUPPORTED,
           "rank %d: the local mesh has the lecture's tables only (no coordinates or elements): refinement needs "
           "pmesh's local files",
           w->rank);
  PM_CHECK(c->n_aux == 0, PM_ERR_UNSUPPORTED,
           "rank %d: the local mesh has %d auxiliary nodes (a --halo edge partition); refinement supports "
           "element-halo partitions only: partition with --halo element",
           w->rank, c->n_aux);
  PM_CHECK(c->rank == w->rank && c->nparts == w->P, PM_ERR_INCONSISTENT,
           "rank %d of %d holds the local mesh of rank %d of %d", w->rank, w->P, c->rank, c->nparts);
  PM_CALL(PM_MALLOC(w->eptr, (int64_t)c->n_elems + 1, "refinement: edges"));
  PM_CALL(PM_MALLOC(w->fptr, (int64_t)c->n_elems + 1, "refinement: faces"));
  PM_CALL(PM_CALLOC(w->variant, (int64_t)c->n_elems + 1, "refinement: tetrahedra"));
  int dim = 0;
  int64_t ned = 0, nfa = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    PM_CHECK(t && t->dim >= 1 && c->elem_ptr[e + 1] - c->elem_ptr[e] == t->n_verts, PM_ERR_UNSUPPORTED,
             "rank %d: element %d (tag %lld) has type %d with %d nodes: refinement takes lines, triangles, "
             "quadrangles, tetrahedra, hexahedra, prisms and pyramids",
             w->rank, e + 1, (long long)c->elem_gid[e], c->elem_type[e], c->elem_ptr[e + 1] - c->elem_ptr[e]);
    PM_CHECK(dim == 0 || t->dim == dim, PM_ERR_UNSUPPORTED,
             "rank %d: element %d (tag %lld) is a %s among %dD elements: the local mesh mixes dimensions", w->rank,
             e + 1, (long long)c->elem_gid[e], t->name, dim);
    dim = t->dim;
    w->eptr[e] = (int32_t)ned;
    w->fptr[e] = (int32_t)nfa;
    ned += t->n_edges;
    nfa += cell_quad_faces(t);
    PM_CHECK(ned <= INT32_MAX, PM_ERR_ARG, "rank %d: more than %d element edges", w->rank, INT32_MAX);
    if (t->n_variants > 0) w->variant[e] = (int8_t)pm_refine_tet_variant(c, e, t);
  }
  w->eptr[c->n_elems] = (int32_t)ned;
  w->fptr[c->n_elems] = (int32_t)nfa;
  w->dim = dim;
  return PM_OK;
}

/* Owners of the coarse nodes, unique edges and faces, centres, candidates.  Local. */
static int setup(work_t *w) {
  const pm_local_t *c = w->c;
  PM_CALL(check_cells(w));
  w->nv = c->n_total;
  PM_CALL(PM_MALLOC(w->own, (int64_t)w->nv + 1, "refinement: owners"));
  for (int32_t i = 0; i < c->n_internal; i++) w->own[i] = w->rank;
  for (int k = 0; k < c->n_neib; k++)
    for (int32_t j = c->import_index[k]; j < c->import_index[k + 1]; j++) w->own[c->import_item[j]] = c->neib[k];
  PM_CALL(make_edges(w));
  PM_CALL(make_faces(w));
  PM_CALL(PM_MALLOC(w->elem_cent, (int64_t)c->n_elems + 1, "refinement: centres"));
  w->nq = 0;
  for (int32_t e = 0; e < c->n_elems; e++)
    w->elem_cent[e] = cell_has_centre(pm_cell_gmsh(c->elem_type[e])) ? w->nq++ : -1;
  PM_CALL(PM_MALLOC(w->cent_elem, (int64_t)w->nq + 1, "refinement: centres"));
  for (int32_t e = 0; e < c->n_elems; e++)
    if (w->elem_cent[e] >= 0) w->cent_elem[w->elem_cent[e]] = e;
  int64_t nc = (int64_t)w->nv + w->ne + w->nf + w->nq;
  PM_CHECK(nc <= INT32_MAX, PM_ERR_ARG, "rank %d: the refined local mesh would have %lld nodes: more than %d", w->rank,
           (long long)nc, INT32_MAX);
  w->nc = (int32_t)nc;
  PM_CALL(PM_MALLOC(w->cown, nc + 1, "refinement: nodes"));
  PM_CALL(PM_MALLOC(w->lid, nc + 1, "refinement: nodes"));
  PM_CALL(PM_MALLOC(w->cidx, nc + 1, "refinement: nodes"));
  PM_CALL(PM_CALLOC(w->used, nc + 1, "refinement: nodes"));
  for (int32_t k = 0; k < w->nv; k++) {
    w->cown[k] = w->own[k];
    w->cidx[k] = c->node_index[k];
  }
  int32_t f0 = w->nv + w->ne, q0 = f0 + w->nf;
  for (int32_t k = w->nv; k < w->nc; k++) w->cidx[k] = -1;
  for (int32_t k = 0; k < w->ne; k++) w->cown[w->nv + k] = w->own[w->edge[k].a];
  for (int32_t k = 0; k < w->nf; k++) w->cown[f0 + k] = w->own[w->face[k].v[0]];
  for (int32_t k = 0; k < w->nq; k++) w->cown[q0 + k] = c->elem_owner[w->cent_elem[k]];
  return PM_OK;
}

/* Global indices of the owned new nodes: one prefix sum over positions 0..N-1 (nodes: the
 * edges at their smaller end, then the quadrilateral faces at their smallest vertex) and
 * N..N+NE-1 (elements: 1 for a cell with a centre).  Collective. */
static int number_owned(work_t *w) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  int64_t *index = NULL, *count = NULL, *off = NULL, total = 0;
  int32_t n = 0, nown = 0, *nedge = NULL;
  for (int32_t e = 0; e < c->n_elems; e++) nown += c->elem_owner[e] == w->rank;
  PM_TRY(PM_MALLOC(index, (int64_t)c->n_internal + nown + 1, "refinement: scan"));
  PM_TRY(PM_CALLOC(count, (int64_t)c->n_internal + nown + 1, "refinement: scan"));
  PM_TRY(PM_MALLOC(off, (int64_t)c->n_internal + nown + 1, "refinement: scan"));
  PM_TRY(PM_CALLOC(nedge, (int64_t)c->n_internal + 1, "refinement: scan"));
  for (int32_t i = 0; i < c->n_internal; i++) index[n++] = c->node_index[i];
  /* Internal nodes are 0..N-1 in ascending index, so the edges (faces) of internal node i (those
   * at their smallest end) are a run of the sorted edges (faces): count them. */
  for (int32_t k = 0; k < w->ne; k++)
    if (w->edge[k].a < c->n_internal) nedge[w->edge[k].a]++;
  for (int32_t i = 0; i < c->n_internal; i++) count[i] = nedge[i];
  for (int32_t k = 0; k < w->nf; k++)
    if (w->face[k].v[0] < c->n_internal) count[w->face[k].v[0]]++;
  for (int32_t e = 0; e < c->n_elems; e++)
    if (c->elem_owner[e] == w->rank) {
      count[n] = w->elem_cent[e] >= 0;
      index[n++] = w->N + c->elem_index[e];
    }
cleanup:
  ierr = pm_comm_agree(w->comm, ierr);
  if (!ierr) ierr = pm_refine_exscan(w->comm, w->N + w->NE, n, index, count, off, &total);
  if (!ierr) {
    w->fine_nodes = w->N + total;
    int32_t run = 0;
    for (int32_t k = 0; k < w->ne; k++) {
      int32_t a = w->edge[k].a;
      if (a >= c->n_internal) continue;
      run = k > 0 && w->edge[k - 1].a == a ? run + 1 : 0;
      w->cidx[w->nv + k] = w->N + off[a] + run;
    }
    for (int32_t k = 0; k < w->nf; k++) {
      int32_t a = w->face[k].v[0];
      if (a >= c->n_internal) continue;
      run = k > 0 && w->face[k - 1].v[0] == a ? run + 1 : 0;
      w->cidx[w->nv + w->ne + k] = w->N + off[a] + nedge[a] + run;
    }
    n = c->n_internal;
    for (int32_t e = 0; e < c->n_elems; e++)
      if (c->elem_owner[e] == w->rank) {
        if (w->elem_cent[e] >= 0) w->cidx[w->nv + w->ne + w->nf + w->elem_cent[e]] = w->N + off[n];
        n++;
      }
  }
  free(index);
  free(count);
  free(off);
  free(nedge);
  if (ierr) pm_error_trace(__FILE__, __LINE__);
  return ierr;
}

/* The children's element indices where cells have different numbers of children (a pyramid
 * 10, the others 8): one prefix sum over the coarse elements in global order, each rank asking
 * for its halo elements' bases in the same scan.  Collective. */
static int child_bases(work_t *w) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  int64_t *count = NULL, total = 0;
  PM_TRY(PM_MALLOC(w->cbase, (int64_t)c->n_elems + 1, "refinement: children"));
  PM_TRY(PM_MALLOC(count, (int64_t)c->n_elems + 1, "refinement: children"));
  for (int32_t e = 0; e < c->n_elems; e++)
    count[e] = c->elem_owner[e] == w->rank ? pm_cell_gmsh(c->elem_type[e])->n_children : -1;
cleanup:
  ierr = pm_comm_agree(w->comm, ierr);
  if (!ierr) ierr = pm_refine_exscan(w->comm, w->NE, c->n_elems, c->elem_index, count, w->cbase, &total);
  free(count);
  if (ierr) pm_error_trace(__FILE__, __LINE__);
  return ierr;
}

/* Keep every child touching a node this rank owns; mark the nodes kept children use.  Local. */
static int mark_children(work_t *w) {
  const pm_local_t *c = w->c;
  PM_CALL(PM_CALLOC(w->keep, (int64_t)c->n_elems * w->m + 1, "refinement: children"));
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    for (int ch = 0; ch < t->n_children; ch++) {
      const int8_t *ref = cell_child(t, w->variant[e], ch);
      int mine = 0, nv = child_cell(t, ch)->n_verts;
      for (int j = 0; j < nv; j++) mine |= w->cown[cand_of(w, e, ref[j])] == w->rank;
      if (!mine) continue;
      w->keep[(int64_t)e * w->m + ch] = 1;
      for (int j = 0; j < nv; j++) w->used[cand_of(w, e, ref[j])] = 1;
    }
  }
  for (int32_t k = 0; k < w->nc; k++)
    PM_CHECK(w->cown[k] != w->rank || w->used[k], PM_ERR_INCONSISTENT,
             "rank %d: a node it owns (candidate %d) is in none of its refined elements: the local mesh does not "
             "keep every element around its internal nodes",
             w->rank, k);
  return PM_OK;
}

static void set_bit(work_t *w, int32_t k, int g) {
  w->cbits[(int64_t)k * w->W + g / 64] |= UINT64_C(1) << (g % 64);
}

/* Group membership of the candidates: complete for the nodes this rank owns (it has every face
 * and element around them), partial for the others (the owners' answers replace it).  A face's
 * new refinement points (edge midpoints, a quadrangle's centre) join its group; an element's
 * (edges, faces, centre) join the groups of its dimension.  Local. */
static int group_bits(work_t *w) {
  const pm_local_t *c = w->c;
  w->W = (c->n_groups + 63) / 64;
  PM_CALL(PM_CALLOC(w->cbits, (int64_t)w->nc * w->W + 1, "refinement: group members"));
  for (int g = 0; g < c->n_groups; g++) {
    const pm_local_group_t *L = &c->groups[g];
    for (int32_t k = 0; k < L->n_nodes; k++) set_bit(w, L->nodes[k], g);
    for (int32_t f = 0; f < L->n_faces; f++) {
      const pm_cell_t *t = pm_cell_gmsh(L->face_type[f]);
      const int32_t *v = L->face_node + L->face_ptr[f];
      PM_CHECK(t && t->dim < w->dim && L->face_ptr[f + 1] - L->face_ptr[f] == t->n_verts, PM_ERR_UNSUPPORTED,
               "rank %d: group '%s' face %d (tag %lld) has type %d with %d nodes: not a facet of %dD elements", w->rank,
               L->name, f + 1, (long long)L->face_gid[f], L->face_type[f], L->face_ptr[f + 1] - L->face_ptr[f], w->dim);
      for (int r = t->n_verts; r < t->n_refined; r++) {
        int32_t k = face_cand(w, t, v, r);
        PM_CHECK(k >= 0, PM_ERR_UNSUPPORTED,
                 "rank %d: group '%s' %s %lld is not made of the elements' edges and faces: it cannot be refined "
                 "with the mesh",
                 w->rank, L->name, t->name, (long long)L->face_gid[f]);
        set_bit(w, k, g);
      }
    }
    if (L->dim == w->dim)
      for (int32_t k = 0; k < L->n_elems; k++) {
        int32_t e = L->elems[k];
        const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
        for (int r = t->n_verts; r < t->n_refined; r++) set_bit(w, cand_of(w, e, r), g);
      }
  }
  return PM_OK;
}

/* The candidate this rank owns that a key names, or -1. */
static int32_t lookup(const work_t *w, const int64_t *key, const int64_t *qidx, const int32_t *qcand, int32_t nqo) {
  const pm_local_t *c = w->c;
  int32_t k = -1;
  if (key[0] == KIND_VERTEX) {
    int32_t lo = 0, hi = c->n_internal - 1;
    while (lo <= hi) {
      int32_t mid = lo + (hi - lo) / 2;
      if (c->node_index[mid] == key[1]) return mid;
      if (c->node_index[mid] < key[1])
        lo = mid + 1;
      else
        hi = mid - 1;
    }
  } else if (key[0] == KIND_EDGE) {
    k = find_edge(w, key[1], key[2]);
    if (k >= 0) k += w->nv;
  } else if (key[0] == KIND_FACE) {
    k = find_face(w, key + 1);
    if (k >= 0) k += w->nv + w->ne;
  } else if (key[0] == KIND_CENTRE) {
    int32_t lo = 0, hi = nqo - 1;
    while (lo <= hi) {
      int32_t mid = lo + (hi - lo) / 2;
      if (qidx[mid] == key[1]) return qcand[mid];
      if (qidx[mid] < key[1])
        lo = mid + 1;
      else
        hi = mid - 1;
    }
  }
  return k;
}

/* Ask the owners of the nodes used but not owned for their index and groups; answer the same
 * questions from the others and remember them (the export lists).  Collective. */
static int exchange(work_t *w) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK, P = w->P, R = 1 + w->W;
  int *sc = NULL, *fill = NULL, *rc = NULL, *rc2 = NULL;
  int64_t *keys = NULL, *got = NULL, *ans = NULL, *back = NULL, *qidx = NULL, *qtmp = NULL, *qperm = NULL;
  int32_t *order = NULL, *qcand = NULL, *ctmp = NULL, nqo = 0, ns = 0;
  MPI_Datatype tkey = MPI_DATATYPE_NULL, tans = MPI_DATATYPE_NULL;
  PM_TRY(PM_CALLOC(sc, P, "refinement: requests"));
  PM_TRY(PM_MALLOC(fill, P + 1, "refinement: requests"));
  for (int32_t k = 0; k < w->nc; k++)
    if (w->used[k] && w->cown[k] != w->rank) {
      sc[w->cown[k]]++;
      ns++;
    }
  PM_TRY(PM_MALLOC(keys, KEY_WORDS * (int64_t)ns + 1, "refinement: requests"));
  PM_TRY(PM_MALLOC(order, ns, "refinement: requests"));
  fill[0] = 0;
  for (int q = 0; q < P; q++) fill[q + 1] = fill[q] + sc[q];
  for (int32_t k = 0; k < w->nc; k++) {
    if (!w->used[k] || w->cown[k] == w->rank) continue;
    int32_t s = fill[w->cown[k]]++;
    int64_t *key = keys + KEY_WORDS * (int64_t)s;
    int32_t f0 = w->nv + w->ne, q0 = f0 + w->nf;
    order[s] = k;
    memset(key, 0, KEY_WORDS * sizeof *key);
    if (k < w->nv) {
      key[0] = KIND_VERTEX, key[1] = c->node_index[k];
    } else if (k < f0) {
      key[0] = KIND_EDGE, key[1] = w->edge[k - w->nv].ka, key[2] = w->edge[k - w->nv].kb;
    } else if (k < q0) {
      key[0] = KIND_FACE;
      memcpy(key + 1, w->face[k - f0].k, 4 * sizeof *key);
    } else {
      key[0] = KIND_CENTRE, key[1] = c->elem_index[w->cent_elem[k - q0]];
    }
  }
  /* Owned centres by element index, for the questions about centres. */
  int32_t q0 = w->nv + w->ne + w->nf;
  for (int32_t q = 0; q < w->nq; q++) nqo += w->cown[q0 + q] == w->rank;
  PM_TRY(PM_MALLOC(qidx, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(qcand, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(qtmp, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(qperm, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(ctmp, nqo, "refinement: quadrangles"));
  for (int32_t q = 0, n = 0; q < w->nq; q++)
    if (w->cown[q0 + q] == w->rank) {
      qtmp[n] = c->elem_index[w->cent_elem[q]];
      ctmp[n++] = q0 + q;
    }
  PM_TRY(pm_argsort_i64(qtmp, nqo, qperm));
  for (int32_t i = 0; i < nqo; i++) {
    qidx[i] = qtmp[qperm[i]];
    qcand[i] = ctmp[qperm[i]];
  }
  if (MPI_Type_contiguous(KEY_WORDS, MPI_INT64_T, &tkey) != MPI_SUCCESS || MPI_Type_commit(&tkey) != MPI_SUCCESS ||
      MPI_Type_contiguous(R, MPI_INT64_T, &tans) != MPI_SUCCESS || MPI_Type_commit(&tans) != MPI_SUCCESS)
    PM_TRY_CHECK(0, PM_ERR_MPI, "rank %d: cannot build an MPI datatype", w->rank);
cleanup:
  ierr = pm_comm_agree(w->comm, ierr);
  if (!ierr) ierr = pm_refine_alltoallv(w->comm, tkey, KEY_WORDS * sizeof(int64_t), sc, keys, &rc, (void **)&got);
  if (ierr) goto done;
  int64_t nr = 0;
  for (int q = 0; q < P; q++) nr += rc[q];
  w->nreq = nr;
  ierr = PM_MALLOC(ans, R * nr, "refinement: answers");
  if (!ierr) ierr = PM_MALLOC(w->req_rank, nr, "refinement: answers");
  if (!ierr) ierr = PM_MALLOC(w->req_cand, nr, "refinement: answers");
  for (int q = 0, k = 0; !ierr && q < P; q++)
    for (int j = 0; !ierr && j < rc[q]; j++, k++) {
      const int64_t *key = got + KEY_WORDS * (int64_t)k;
      int32_t cand = lookup(w, key, qidx, qcand, nqo);
      if (cand < 0 || w->cown[cand] != w->rank) {
        ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                            "rank %d: rank %d asks for a refined node (kind %d, %lld, %lld, ...) it does not own: the "
                            "local meshes do not fit together",
                            w->rank, q, (int)key[0], (long long)key[1], (long long)key[2]);
        break;
      }
      w->req_rank[k] = q;
      w->req_cand[k] = cand;
      ans[R * k] = w->cidx[cand];
      memcpy(ans + R * k + 1, w->cbits + (int64_t)cand * w->W, (size_t)w->W * sizeof *ans);
    }
  ierr = pm_comm_agree(w->comm, ierr);
  if (!ierr) ierr = pm_refine_alltoallv(w->comm, tans, (size_t)R * sizeof(int64_t), rc, ans, &rc2, (void **)&back);
  if (ierr) goto done;
  for (int32_t s = 0; s < ns; s++) {
    int32_t k = order[s];
    w->cidx[k] = back[R * (int64_t)s];
    memcpy(w->cbits + (int64_t)k * w->W, back + R * (int64_t)s + 1, (size_t)w->W * sizeof *back);
  }
done:
  free(sc);
  free(fill);
  free(rc);
  free(rc2);
  free(keys);
  free(got);
  free(ans);
  free(back);
  free(order);
  free(qidx);
  free(qcand);
  free(qtmp);
  free(qperm);
  free(ctmp);
  if (tkey != MPI_DATATYPE_NULL) MPI_Type_free(&tkey);
  if (tans != MPI_DATATYPE_NULL) MPI_Type_free(&tans);
  if (ierr) pm_error_trace(__FILE__, __LINE__);
  return ierr;
}

void pm_refine_parents_destroy(pm_refine_parents_t **parents) {
  if (!parents || !*parents) return;
  free((*parents)->ptr);
  free((*parents)->node);
  free(*parents);
  *parents = NULL;
}

uint64_t pm_refine_fingerprint(uint64_t coarse) {
  return pm_fnv1a(coarse, "refine", 6);
}

/* The coarse parents of candidate k into out[] (at most PM_CELL_MAX_VERTS): a vertex itself, an
 * edge's ends and a face's vertices by global index, a centre's cell in its vertex order.
 * Returns their count.  Local. */
static int cand_parents(const work_t *w, int32_t k, int32_t *out) {
  const pm_local_t *c = w->c;
  int32_t f0 = w->nv + w->ne, q0 = f0 + w->nf;
  if (k < w->nv) {
    out[0] = k;
    return 1;
  }
  if (k < f0) {
    out[0] = w->edge[k - w->nv].a;
    out[1] = w->edge[k - w->nv].b;
    return 2;
  }
  if (k < q0) {
    memcpy(out, w->face[k - f0].v, 4 * sizeof *out);
    return 4;
  }
  int32_t e = w->cent_elem[k - q0], n = c->elem_ptr[e + 1] - c->elem_ptr[e];
  memcpy(out, c->elem_node + c->elem_ptr[e], (size_t)n * sizeof *out);
  return (int)n;
}

/* Parents: the coarse nodes each fine node (fc: its candidate) interpolates.  Local. */
static int build_parents(const work_t *w, const pm_local_t *f, const int32_t *fc, pm_refine_parents_t **parents) {
  pm_refine_parents_t *pa = NULL;
  int ierr = PM_OK;
  int32_t tmp[PM_CELL_MAX_VERTS];
  int64_t total = 0;
  for (int32_t i = 0; i < f->n_total; i++) total += cand_parents(w, fc[i], tmp);
  PM_TRY_CHECK(total <= INT32_MAX, PM_ERR_ARG, "rank %d: more than %d refinement parents", w->rank, INT32_MAX);
  PM_TRY(PM_CALLOC(pa, 1, "refinement parents"));
  pa->n = f->n_total;
  PM_TRY(PM_MALLOC(pa->ptr, (int64_t)pa->n + 1, "refinement parents"));
  PM_TRY(PM_MALLOC(pa->node, total + 1, "refinement parents"));
  pa->ptr[0] = 0;
  for (int32_t i = 0; i < pa->n; i++) pa->ptr[i + 1] = pa->ptr[i] + cand_parents(w, fc[i], pa->node + pa->ptr[i]);
  *parents = pa;
  pa = NULL;
cleanup:
  pm_refine_parents_destroy(&pa);
  return ierr;
}

void pm_refine_points_destroy(pm_refine_points_t **points) {
  if (!points || !*points) return;
  free((*points)->node);
  free((*points)->vert);
  free((*points)->variant);
  free(*points);
  *points = NULL;
}

/* Each coarse node's and each coarse element's other refinement points as fine local nodes,
 * and the element's variant.  Local. */
static int build_points(const work_t *w, pm_refine_points_t **points) {
  const pm_local_t *c = w->c;
  pm_refine_points_t *pt = NULL;
  int ierr = PM_OK, stride = 1;
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    if (t->n_refined - t->n_verts > stride) stride = t->n_refined - t->n_verts;
  }
  PM_TRY(PM_CALLOC(pt, 1, "refinement points"));
  pt->n_elems = c->n_elems;
  pt->stride = stride;
  pt->n_coarse = w->nv;
  PM_TRY(PM_MALLOC(pt->node, (int64_t)c->n_elems * stride + 1, "refinement points"));
  PM_TRY(PM_MALLOC(pt->vert, (int64_t)w->nv + 1, "refinement points"));
  PM_TRY(PM_MALLOC(pt->variant, (int64_t)c->n_elems + 1, "refinement points"));
  for (int32_t k = 0; k < w->nv; k++) pt->vert[k] = w->lid[k]; /* candidates [0, nv): the coarse nodes */
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
    int32_t *row = pt->node + (int64_t)e * stride;
    for (int k = 0; k < stride; k++) row[k] = t->n_verts + k < t->n_refined ? w->lid[cand_of(w, e, t->n_verts + k)] : -1;
    pt->variant[e] = w->variant[e];
  }
  *points = pt;
  pt = NULL;
cleanup:
  pm_refine_points_destroy(&pt);
  return ierr;
}

int pm_refine_local(MPI_Comm comm, const pm_local_t *coarse, pm_local_t **fine, pm_refine_parents_t **parents) {
  return pm_refine_local_points(comm, coarse, 1, fine, parents, NULL);
}

int pm_refine_local_points(MPI_Comm comm, const pm_local_t *coarse, int elements, pm_local_t **fine,
                           pm_refine_parents_t **parents, pm_refine_points_t **points) {
  work_t w = {0};
  w.no_elements = !elements;
  pm_local_t *f = NULL;
  int32_t *fc = NULL;
  int ierr = PM_OK;
  if (fine) *fine = NULL;
  if (parents) *parents = NULL;
  if (points) *points = NULL;
  w.c = coarse;
  w.comm = comm;
  MPI_Comm_rank(comm, &w.rank);
  MPI_Comm_size(comm, &w.P);
  if (!coarse || !fine || (!elements && !points))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_refine_local: NULL argument on rank %d", w.rank);
  else
    ierr = setup(&w);
  ierr = pm_comm_agree(comm, ierr);
  if (ierr) goto cleanup;
  /* Global counts: nodes, elements (owned ones), the largest tag; the dimension agreed. */
  int64_t sum[2] = {coarse->n_internal, 0}, mx[6] = {0, w.dim, -w.dim, coarse->n_groups, 0, -PM_CELL_MAX_CHILDREN};
  int64_t gsum[2], gmx[6];
  for (int32_t e = 0; e < coarse->n_elems; e++) {
    int kids = pm_cell_gmsh(coarse->elem_type[e])->n_children; /* checked in setup */
    sum[1] += coarse->elem_owner[e] == w.rank;
    mx[4] = kids > mx[4] ? kids : mx[4];
    mx[5] = -kids > mx[5] ? -kids : mx[5];
  }
  for (int32_t i = 0; i < coarse->n_internal; i++)
    if (coarse->gid[i] > mx[0]) mx[0] = coarse->gid[i];
  int mpi = pm_comm_allreduce(sum, gsum, 2, MPI_INT64_T, MPI_SUM, comm);
  if (mpi == MPI_SUCCESS) mpi = pm_comm_allreduce(mx, gmx, 6, MPI_INT64_T, MPI_MAX, comm);
  PM_TRY_CHECK(mpi == MPI_SUCCESS, PM_ERR_MPI, "rank %d: MPI_Allreduce failed", w.rank);
  PM_TRY_CHECK(gmx[1] == -gmx[2] && gmx[1] > 0, PM_ERR_UNSUPPORTED,
               "the local meshes mix dimensions (rank %d has %dD elements)", w.rank, w.dim);
  w.N = gsum[0];
  w.NE = gsum[1];
  w.maxtag = gmx[0];
  w.dim = (int)gmx[1];
  w.m = (int)gmx[4]; /* the table's children per cell: 2, 4, 8, or 10 with pyramids */
  if (gmx[4] != -gmx[5]) ierr = child_bases(&w);
  if (!ierr) ierr = mark_children(&w);
  if (!ierr) ierr = group_bits(&w);
  ierr = pm_comm_agree(comm, ierr);
  if (!ierr) ierr = number_owned(&w);
  if (!ierr) ierr = exchange(&w);
  if (ierr) goto cleanup;
  ierr = pm_local_create(&f);
  if (!ierr) {
    f->rank = w.rank;
    f->nparts = w.P;
    f->has_mesh = 1;
    f->fingerprint = pm_refine_fingerprint(coarse->fingerprint);
    ierr = pm_refine_build_nodes(&w, f, &fc);
  }
  if (!ierr) ierr = pm_refine_build_cells(&w, f, fc);
  if (!ierr && parents) ierr = build_parents(&w, f, fc, parents);
  if (!ierr && points) ierr = build_points(&w, points);
  ierr = pm_comm_agree(comm, ierr);
  if (ierr) goto cleanup;
  *fine = f;
  f = NULL;
cleanup:
  if (ierr && parents) pm_refine_parents_destroy(parents);
  if (ierr && points) pm_refine_points_destroy(points);
  pm_local_destroy(&f);
  free(fc);
  work_free(&w);
  return ierr;
}
