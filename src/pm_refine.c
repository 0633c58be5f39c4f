/* pm_refine.c - one level of parallel uniform refinement of the local meshes (pm_refine.h has
 * the numbering and owner rules).
 *
 * Each rank lists "candidate" fine nodes from its coarse elements: its coarse nodes, the
 * midpoints of its coarse elements' edges, the centres of its quadrangles.  Owners follow from
 * the rules alone.  A rank owning a node knows everything about it: the owner of an edge's
 * smaller end keeps every element around that end, so it sees all the edges from it, and the
 * owner of a quadrangle keeps it.  The new nodes' indices come from one prefix sum over the
 * coarse nodes (edges counted at their smaller end) and elements (quadrangles), in global
 * order.  Every rank then keeps the children touching a node it owns, and asks the owners of
 * the other nodes they use for their indices and groups: the questions are the import lists and
 * the owners answer them as export lists, in ascending global index, so the tables are mutual
 * by construction. */
#include "pmesh/pm_refine.h"

#include <stdlib.h>
#include <string.h>

#include "pm_refine_comm.h"
#include "pm_scan.h"
#include "pm_util.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_msh.h"

/* A child's nodes as references into its parent: vertex j (0..3), midpoint of edge j (from
 * vertex j to vertex j+1; 4..7) or the centre (8).  Counter-clockwise parents give
 * counter-clockwise children. */
enum { REF_E = 4, REF_C = 8 };
static const int8_t child_line[2][2] = {{0, REF_E + 0}, {REF_E + 0, 1}};
static const int8_t child_tri[4][3] = {
    {0, REF_E + 0, REF_E + 2}, {REF_E + 0, 1, REF_E + 1}, {REF_E + 2, REF_E + 1, 2}, {REF_E + 0, REF_E + 1, REF_E + 2}};
static const int8_t child_quad[4][4] = {{0, REF_E + 0, REF_C, REF_E + 3},
                                        {REF_E + 0, 1, REF_E + 1, REF_C},
                                        {REF_C, REF_E + 1, 2, REF_E + 2},
                                        {REF_E + 3, REF_C, REF_E + 2, 3}};

static int type_edges(int t) {
  return t == PM_MSH_LINE ? 1 : t == PM_MSH_TRI ? 3 : t == PM_MSH_QUAD ? 4 : -1;
}
static int type_children(int t) {
  return t == PM_MSH_LINE ? 2 : 4;
}
static const int8_t *child_refs(int t, int c) {
  return t == PM_MSH_LINE ? child_line[c] : t == PM_MSH_TRI ? child_tri[c] : child_quad[c];
}

enum { KIND_VERTEX = 0, KIND_EDGE = 1, KIND_CENTRE = 2 };

typedef struct edge_rec {
  int64_t ka, kb; /* global indices of the ends, ka < kb */
  int32_t a, b;   /* local indices of the ends */
  int32_t slot;   /* elem_ptr[e] + j of the element edge it came from */
} edge_rec_t;

typedef struct ext_rec {
  int32_t owner, cand;
  int64_t index;
} ext_rec_t;

typedef struct work {
  const pm_local_t *c;
  MPI_Comm comm;
  int rank, P, dim, m, W; /* m: children per element; W: 64-bit words of group bits per node */
  int64_t N, NE, maxtag;  /* coarse global nodes, elements, largest tag */
  int32_t nv;             /* coarse local nodes */
  int32_t *own;           /* [nv] owners of the coarse local nodes */
  int32_t ne, *slot_edge; /* unique local edges; edge of each element edge slot */
  edge_rec_t *edge;       /* [ne] sorted by (ka, kb) */
  int32_t nq, *elem_quad, *quad_elem;
  int32_t nc;          /* candidates: nv vertices, ne midpoints, nq centres */
  int32_t *cown, *lid; /* owner, fine local index (-1: not in the fine mesh) */
  int64_t *cidx;       /* fine global index (-1: not known yet) */
  uint64_t *cbits;     /* [nc*W] group membership */
  char *used;          /* in a kept child */
  char *keep;          /* [n_elems*m]: child kept */
  int64_t fine_nodes;  /* global */
  /* Requests answered: for each, the asking rank and the candidate. */
  int64_t nreq;
  int32_t *req_rank, *req_cand;
} work_t;

static void work_free(work_t *w) {
  free(w->own);
  free(w->slot_edge);
  free(w->edge);
  free(w->elem_quad);
  free(w->quad_elem);
  free(w->cown);
  free(w->lid);
  free(w->cidx);
  free(w->cbits);
  free(w->used);
  free(w->keep);
  free(w->req_rank);
  free(w->req_cand);
}

/* rec[nrec] (made in slot order) sorted by (ka, kb, slot) in linear time: a stable counting
 * sort on the position of ka among the local nodes' global indices, then each node's few edges
 * by kb, stably (a comparison sort of every edge took a tenth of a refinement). */
static int sort_edges(const pm_local_t *c, edge_rec_t *rec, int32_t nrec) {
  int ierr = PM_OK;
  int32_t nv = c->n_total, *pos = NULL, *start = NULL;
  int64_t *perm = NULL;
  edge_rec_t *tmp = NULL;
  PM_TRY(PM_MALLOC(perm, (size_t)nv + 1, "refinement: edge order"));
  PM_TRY(PM_MALLOC(pos, (size_t)nv + 1, "refinement: edge order"));
  PM_TRY(PM_CALLOC(start, (size_t)nv + 2, "refinement: edge order"));
  PM_TRY(PM_MALLOC(tmp, (size_t)nrec + 1, "refinement: edge order"));
  PM_TRY(pm_argsort_i64(c->node_index, nv, perm));
  for (int32_t i = 0; i < nv; i++) pos[perm[i]] = i;
  for (int32_t k = 0; k < nrec; k++) start[pos[rec[k].a] + 1]++;
  for (int32_t i = 0; i < nv; i++) start[i + 1] += start[i];
  for (int32_t k = 0; k < nrec; k++) tmp[start[pos[rec[k].a]]++] = rec[k];
  for (int32_t i = nv; i > 0; i--) start[i] = start[i - 1]; /* back to the buckets' starts */
  start[0] = 0;
  for (int32_t i = 0; i < nv; i++) {
    edge_rec_t *b = tmp + start[i];
    int32_t m = start[i + 1] - start[i];
    for (int32_t x = 1; x < m; x++) {
      edge_rec_t r = b[x];
      int32_t y = x - 1;
      while (y >= 0 && b[y].kb > r.kb) {
        b[y + 1] = b[y];
        y--;
      }
      b[y + 1] = r;
    }
  }
  memcpy(rec, tmp, (size_t)nrec * sizeof *rec);
cleanup:
  free(perm);
  free(pos);
  free(start);
  free(tmp);
  return ierr;
}

static int cmp_ext(const void *x, const void *y) {
  const ext_rec_t *a = x, *b = y;
  if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static int32_t find_edge(const work_t *w, int64_t ka, int64_t kb) {
  int32_t lo = 0, hi = w->ne - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    const edge_rec_t *e = &w->edge[mid];
    if (e->ka == ka && e->kb == kb) return mid;
    if (e->ka < ka || (e->ka == ka && e->kb < kb))
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Candidate of reference `ref` in coarse element e. */
static int32_t cand_of(const work_t *w, int32_t e, int ref) {
  const pm_local_t *c = w->c;
  int32_t p = c->elem_ptr[e];
  if (ref < REF_E) return c->elem_node[p + ref];
  if (ref < REF_C) return w->nv + w->slot_edge[p + ref - REF_E];
  return w->nv + w->ne + w->elem_quad[e];
}

static int64_t cand_gid(const work_t *w, int32_t k) {
  return k < w->nv ? w->c->gid[k] : w->maxtag + 1 + (w->cidx[k] - w->N);
}

/* Checks, owners of the coarse nodes, unique edges, quadrangles.  Local. */
static int setup(work_t *w) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  edge_rec_t *rec = NULL;
  PM_CHECK(c->has_mesh, PM_ERR_UNSUPPORTED,
           "rank %d: the local mesh has the lecture's tables only (no coordinates or elements): refinement needs "
           "pmesh's local files",
           w->rank);
  PM_CHECK(c->n_aux == 0, PM_ERR_UNSUPPORTED,
           "rank %d: the local mesh has %d auxiliary nodes (a --halo edge partition of quadrangles); refinement "
           "supports element-halo partitions only: partition with --halo element",
           w->rank, c->n_aux);
  PM_CHECK(c->rank == w->rank && c->nparts == w->P, PM_ERR_INCONSISTENT,
           "rank %d of %d holds the local mesh of rank %d of %d", w->rank, w->P, c->rank, c->nparts);
  w->nv = c->n_total;
  PM_CALL(PM_MALLOC(w->own, w->nv, "refinement: owners"));
  for (int32_t i = 0; i < c->n_internal; i++) w->own[i] = w->rank;
  for (int k = 0; k < c->n_neib; k++)
    for (int32_t j = c->import_index[k]; j < c->import_index[k + 1]; j++) w->own[c->import_item[j]] = c->neib[k];
  int dim = 0;
  int32_t nslot = c->elem_ptr[c->n_elems], nrec = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    int t = c->elem_type[e], ned = type_edges(t), nvert = pm_msh_type_nodes(t);
    PM_CHECK(ned > 0 && c->elem_ptr[e + 1] - c->elem_ptr[e] == nvert, PM_ERR_UNSUPPORTED,
             "rank %d: element %d (tag %lld) has type %d: refinement takes lines, triangles and quadrangles", w->rank,
             e + 1, (long long)c->elem_gid[e], t);
    int d = t == PM_MSH_LINE ? 1 : 2;
    PM_CHECK(dim == 0 || d == dim, PM_ERR_UNSUPPORTED, "rank %d: the local mesh mixes lines with 2D cells", w->rank);
    dim = d;
    nrec += ned;
  }
  w->dim = dim;
  PM_TRY(PM_MALLOC(rec, nrec, "refinement: edges"));
  PM_TRY(PM_MALLOC(w->slot_edge, nslot, "refinement: edges"));
  PM_TRY(PM_MALLOC(w->elem_quad, c->n_elems, "refinement: quadrangles"));
  nrec = 0;
  w->nq = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    int t = c->elem_type[e], nvert = pm_msh_type_nodes(t);
    int32_t p = c->elem_ptr[e];
    for (int j = 0; j < type_edges(t); j++) {
      int32_t a = c->elem_node[p + j], b = c->elem_node[p + (j + 1) % nvert];
      if (c->node_index[a] > c->node_index[b]) {
        int32_t s = a;
        a = b;
        b = s;
      }
      rec[nrec++] = (edge_rec_t){c->node_index[a], c->node_index[b], a, b, p + j};
    }
    w->elem_quad[e] = t == PM_MSH_QUAD ? w->nq++ : -1;
  }
  PM_TRY(sort_edges(c, rec, nrec));
  w->ne = 0;
  for (int32_t k = 0; k < nrec; k++) {
    if (k == 0 || rec[k].ka != rec[k - 1].ka || rec[k].kb != rec[k - 1].kb) rec[w->ne++] = rec[k];
    w->slot_edge[rec[k].slot] = w->ne - 1;
  }
  PM_TRY(PM_MALLOC(w->edge, w->ne, "refinement: edges"));
  memcpy(w->edge, rec, (size_t)w->ne * sizeof *rec);
  PM_TRY(PM_MALLOC(w->quad_elem, w->nq, "refinement: quadrangles"));
  for (int32_t e = 0; e < c->n_elems; e++)
    if (w->elem_quad[e] >= 0) w->quad_elem[w->elem_quad[e]] = e;
  int64_t nc = (int64_t)w->nv + w->ne + w->nq;
  PM_TRY_CHECK(nc <= INT32_MAX, PM_ERR_ARG, "rank %d: the refined local mesh would have %lld nodes: more than %d",
               w->rank, (long long)nc, INT32_MAX);
  w->nc = (int32_t)nc;
  PM_TRY(PM_MALLOC(w->cown, nc, "refinement: nodes"));
  PM_TRY(PM_MALLOC(w->lid, nc, "refinement: nodes"));
  PM_TRY(PM_MALLOC(w->cidx, nc, "refinement: nodes"));
  PM_TRY(PM_CALLOC(w->used, nc, "refinement: nodes"));
  for (int32_t k = 0; k < w->nv; k++) {
    w->cown[k] = w->own[k];
    w->cidx[k] = c->node_index[k];
  }
  for (int32_t k = 0; k < w->ne; k++) {
    w->cown[w->nv + k] = w->own[w->edge[k].a];
    w->cidx[w->nv + k] = -1;
  }
  for (int32_t k = 0; k < w->nq; k++) {
    w->cown[w->nv + w->ne + k] = c->elem_owner[w->quad_elem[k]];
    w->cidx[w->nv + w->ne + k] = -1;
  }
cleanup:
  free(rec);
  return ierr;
}

/* Global indices of the owned new nodes: one prefix sum over positions 0..N-1 (nodes: the
 * edges at their smaller end) and N..N+NE-1 (elements: 1 for a quadrangle).  Collective. */
static int number_owned(work_t *w) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  int64_t *index = NULL, *count = NULL, *off = NULL, total = 0;
  int32_t n = 0, nown = 0;
  for (int32_t e = 0; e < c->n_elems; e++) nown += c->elem_owner[e] == w->rank;
  PM_TRY(PM_MALLOC(index, c->n_internal + nown, "refinement: scan"));
  PM_TRY(PM_CALLOC(count, c->n_internal + nown, "refinement: scan"));
  PM_TRY(PM_MALLOC(off, c->n_internal + nown, "refinement: scan"));
  for (int32_t i = 0; i < c->n_internal; i++) index[n++] = c->node_index[i];
  /* Internal nodes are 0..N-1 in ascending index, so the edges of internal node i (those at
   * their smaller end) are a run of the sorted edges: count them. */
  for (int32_t k = 0; k < w->ne; k++)
    if (w->edge[k].a < c->n_internal) count[w->edge[k].a]++;
  for (int32_t e = 0; e < c->n_elems; e++)
    if (c->elem_owner[e] == w->rank) {
      count[n] = c->elem_type[e] == PM_MSH_QUAD;
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
    n = c->n_internal;
    for (int32_t e = 0; e < c->n_elems; e++)
      if (c->elem_owner[e] == w->rank) {
        if (w->elem_quad[e] >= 0) w->cidx[w->nv + w->ne + w->elem_quad[e]] = w->N + off[n];
        n++;
      }
  }
  free(index);
  free(count);
  free(off);
  if (ierr) pm_error_trace(__FILE__, __LINE__);
  return ierr;
}

/* Keep every child touching a node this rank owns; mark the nodes kept children use.  Local. */
static int mark_children(work_t *w) {
  const pm_local_t *c = w->c;
  PM_CALL(PM_CALLOC(w->keep, (int64_t)c->n_elems * w->m, "refinement: children"));
  for (int32_t e = 0; e < c->n_elems; e++) {
    int t = c->elem_type[e], nvert = pm_msh_type_nodes(t);
    for (int ch = 0; ch < type_children(t); ch++) {
      const int8_t *ref = child_refs(t, ch);
      int mine = 0;
      for (int j = 0; j < nvert; j++) mine |= w->cown[cand_of(w, e, ref[j])] == w->rank;
      if (!mine) continue;
      w->keep[(int64_t)e * w->m + ch] = 1;
      for (int j = 0; j < nvert; j++) w->used[cand_of(w, e, ref[j])] = 1;
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
 * and element around them), partial for the others (the owners' answers replace it).  Local. */
static int group_bits(work_t *w) {
  const pm_local_t *c = w->c;
  w->W = (c->n_groups + 63) / 64;
  PM_CALL(PM_CALLOC(w->cbits, (int64_t)w->nc * w->W, "refinement: group members"));
  for (int g = 0; g < c->n_groups; g++) {
    const pm_local_group_t *L = &c->groups[g];
    for (int32_t k = 0; k < L->n_nodes; k++) set_bit(w, L->nodes[k], g);
    if (w->dim == 2 && L->dim == 1)
      for (int32_t f = 0; f < L->n_faces; f++) {
        PM_CHECK(L->face_ptr[f + 1] - L->face_ptr[f] == 2, PM_ERR_UNSUPPORTED,
                 "rank %d: group '%s' face %d (tag %lld) is not a 2-node line", w->rank, L->name, f + 1,
                 (long long)L->face_gid[f]);
        int64_t ka = c->node_index[L->face_node[L->face_ptr[f]]], kb = c->node_index[L->face_node[L->face_ptr[f] + 1]];
        int32_t k = ka < kb ? find_edge(w, ka, kb) : find_edge(w, kb, ka);
        PM_CHECK(k >= 0, PM_ERR_UNSUPPORTED,
                 "rank %d: group '%s' line %lld is not an edge of a triangle or quadrangle: it cannot be refined with "
                 "the mesh",
                 w->rank, L->name, (long long)L->face_gid[f]);
        set_bit(w, w->nv + k, g);
      }
    if (L->dim == w->dim)
      for (int32_t k = 0; k < L->n_elems; k++) {
        int32_t e = L->elems[k];
        for (int j = 0; j < type_edges(c->elem_type[e]); j++) set_bit(w, cand_of(w, e, REF_E + j), g);
        if (w->elem_quad[e] >= 0) set_bit(w, cand_of(w, e, REF_C), g);
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
  PM_TRY(PM_MALLOC(keys, 3 * (int64_t)ns, "refinement: requests"));
  PM_TRY(PM_MALLOC(order, ns, "refinement: requests"));
  fill[0] = 0;
  for (int q = 0; q < P; q++) fill[q + 1] = fill[q] + sc[q];
  for (int32_t k = 0; k < w->nc; k++) {
    if (!w->used[k] || w->cown[k] == w->rank) continue;
    int32_t s = fill[w->cown[k]]++;
    int64_t *key = keys + 3 * (int64_t)s;
    order[s] = k;
    if (k < w->nv) {
      key[0] = KIND_VERTEX, key[1] = c->node_index[k], key[2] = 0;
    } else if (k < w->nv + w->ne) {
      key[0] = KIND_EDGE, key[1] = w->edge[k - w->nv].ka, key[2] = w->edge[k - w->nv].kb;
    } else {
      key[0] = KIND_CENTRE, key[1] = c->elem_index[w->quad_elem[k - w->nv - w->ne]], key[2] = 0;
    }
  }
  /* Owned quadrangles by element index, for the questions about centres. */
  for (int32_t q = 0; q < w->nq; q++) nqo += w->cown[w->nv + w->ne + q] == w->rank;
  PM_TRY(PM_MALLOC(qidx, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(qcand, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(qtmp, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(qperm, nqo, "refinement: quadrangles"));
  PM_TRY(PM_MALLOC(ctmp, nqo, "refinement: quadrangles"));
  for (int32_t q = 0, n = 0; q < w->nq; q++)
    if (w->cown[w->nv + w->ne + q] == w->rank) {
      qtmp[n] = c->elem_index[w->quad_elem[q]];
      ctmp[n++] = w->nv + w->ne + q;
    }
  PM_TRY(pm_argsort_i64(qtmp, nqo, qperm));
  for (int32_t i = 0; i < nqo; i++) {
    qidx[i] = qtmp[qperm[i]];
    qcand[i] = ctmp[qperm[i]];
  }
  if (MPI_Type_contiguous(3, MPI_INT64_T, &tkey) != MPI_SUCCESS || MPI_Type_commit(&tkey) != MPI_SUCCESS ||
      MPI_Type_contiguous(R, MPI_INT64_T, &tans) != MPI_SUCCESS || MPI_Type_commit(&tans) != MPI_SUCCESS)
    PM_TRY_CHECK(0, PM_ERR_MPI, "rank %d: cannot build an MPI datatype", w->rank);
cleanup:
  ierr = pm_comm_agree(w->comm, ierr);
  if (!ierr) ierr = pm_refine_alltoallv(w->comm, tkey, 3 * sizeof(int64_t), sc, keys, &rc, (void **)&got);
  if (ierr) goto done;
  int64_t nr = 0;
  for (int q = 0; q < P; q++) nr += rc[q];
  w->nreq = nr;
  ierr = PM_MALLOC(ans, R * nr, "refinement: answers");
  if (!ierr) ierr = PM_MALLOC(w->req_rank, nr, "refinement: answers");
  if (!ierr) ierr = PM_MALLOC(w->req_cand, nr, "refinement: answers");
  for (int q = 0, k = 0; !ierr && q < P; q++)
    for (int j = 0; !ierr && j < rc[q]; j++, k++) {
      const int64_t *key = got + 3 * (int64_t)k;
      int32_t cand = lookup(w, key, qidx, qcand, nqo);
      if (cand < 0 || w->cown[cand] != w->rank) {
        ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                            "rank %d: rank %d asks for a refined node (kind %d, %lld, %lld) it does not own: the "
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

static int has_bit(const work_t *w, int32_t k, int g) {
  return (int)(w->cbits[(int64_t)k * w->W + g / 64] >> (g % 64) & 1);
}

/* Nodes (internal by index, externals by owner then index), tables, coordinates.  Local. */
static int build_nodes(work_t *w, pm_local_t *f, int32_t **fine_cand) {
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
    } else {
      int32_t e = w->quad_elem[k - w->nv - w->ne];
      const int32_t *v = c->elem_node + c->elem_ptr[e];
      for (int d = 0; d < 3; d++)
        x[d] = 0.25 * (c->xyz[3 * (int64_t)v[0] + d] + c->xyz[3 * (int64_t)v[1] + d] + c->xyz[3 * (int64_t)v[2] + d] +
                       c->xyz[3 * (int64_t)v[3] + d]);
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

/* Elements, groups and parents.  Local. */
static int build_cells(work_t *w, pm_local_t *f, const int32_t *fc, pm_refine_parents_t **parents) {
  const pm_local_t *c = w->c;
  int ierr = PM_OK;
  int32_t *felem = NULL; /* [n_elems*m]: fine element of each kept child, -1 */
  pm_refine_parents_t *pa = NULL;
  int64_t nfe = 0, nfn = 0;
  for (int32_t e = 0; e < c->n_elems; e++)
    for (int ch = 0; ch < type_children(c->elem_type[e]); ch++)
      if (w->keep[(int64_t)e * w->m + ch]) {
        nfe++;
        nfn += pm_msh_type_nodes(c->elem_type[e]);
      }
  PM_TRY_CHECK(nfn <= INT32_MAX, PM_ERR_ARG, "rank %d: the refined elements have %lld node entries: more than %d",
               w->rank, (long long)nfn, INT32_MAX);
  f->n_elems = (int32_t)nfe;
  PM_TRY(PM_MALLOC(f->elem_type, nfe, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_gid, nfe, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_index, nfe, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_owner, nfe, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_ptr, nfe + 1, "refined elements"));
  PM_TRY(PM_MALLOC(f->elem_node, nfn, "refined elements"));
  PM_TRY(PM_MALLOC(felem, (int64_t)c->n_elems * w->m, "refined elements"));
  f->elem_ptr[0] = 0;
  int32_t n = 0;
  for (int32_t e = 0; e < c->n_elems; e++) {
    int t = c->elem_type[e], nvert = pm_msh_type_nodes(t);
    for (int ch = 0; ch < w->m; ch++) {
      int64_t s = (int64_t)e * w->m + ch;
      felem[s] = -1;
      if (ch >= type_children(t) || !w->keep[s]) continue;
      const int8_t *ref = child_refs(t, ch);
      int32_t p = f->elem_ptr[n], lo = -1;
      for (int j = 0; j < nvert; j++) {
        int32_t k = cand_of(w, e, ref[j]);
        f->elem_node[p + j] = w->lid[k];
        if (lo < 0 || f->gid[w->lid[k]] < f->gid[f->elem_node[p + lo]]) lo = j;
      }
      f->elem_type[n] = (int8_t)t;
      f->elem_gid[n] = (c->elem_gid[e] - 1) * w->m + ch + 1;
      f->elem_index[n] = c->elem_index[e] * w->m + ch;
      f->elem_owner[n] = w->cown[fc[f->elem_node[p + lo]]];
      f->elem_ptr[n + 1] = p + nvert;
      felem[s] = n++;
    }
  }
  /* Groups: fine nodes by membership; faces split (end points kept) where a child touches an
   * internal node; the kept children of the group's elements. */
  PM_TRY(PM_CALLOC(f->groups, c->n_groups, "refined groups"));
  f->n_groups = c->n_groups;
  for (int g = 0; g < c->n_groups; g++) {
    const pm_local_group_t *L = &c->groups[g];
    pm_local_group_t *F = &f->groups[g];
    PM_TRY(pm_strdup(L->name, &F->name));
    F->dim = L->dim;
    int32_t cn = 0, ce = 0;
    for (int32_t i = 0; i < f->n_total; i++) cn += has_bit(w, fc[i], g);
    for (int32_t k = 0; k < L->n_elems; k++)
      for (int ch = 0; ch < w->m; ch++) ce += felem[(int64_t)L->elems[k] * w->m + ch] >= 0;
    int64_t cf = 2 * (int64_t)L->n_faces, cfn = 2 * (int64_t)L->face_ptr[L->n_faces];
    PM_TRY_CHECK(cfn <= INT32_MAX, PM_ERR_ARG, "rank %d: group '%s' would have more than %d face node entries", w->rank,
                 L->name, INT32_MAX);
    PM_TRY(PM_MALLOC(F->nodes, cn, "refined group nodes"));
    PM_TRY(PM_MALLOC(F->elems, ce, "refined group elements"));
    PM_TRY(PM_MALLOC(F->face_type, cf, "refined group faces"));
    PM_TRY(PM_MALLOC(F->face_gid, cf, "refined group faces"));
    PM_TRY(PM_MALLOC(F->face_ptr, cf + 1, "refined group faces"));
    PM_TRY(PM_MALLOC(F->face_node, cfn, "refined group faces"));
    for (int32_t i = 0; i < f->n_total; i++)
      if (has_bit(w, fc[i], g)) F->nodes[F->n_nodes++] = i;
    for (int32_t k = 0; k < L->n_elems; k++)
      for (int ch = 0; ch < w->m; ch++) {
        int32_t fe = felem[(int64_t)L->elems[k] * w->m + ch];
        if (fe >= 0) F->elems[F->n_elems++] = fe;
      }
    F->face_ptr[0] = 0;
    for (int32_t fa = 0; fa < L->n_faces; fa++) {
      const int32_t *v = L->face_node + L->face_ptr[fa];
      int nvf = L->face_ptr[fa + 1] - L->face_ptr[fa];
      int32_t sub[2][2];
      int nsub = 1;
      if (nvf == 2) {
        int64_t ka = c->node_index[v[0]], kb = c->node_index[v[1]];
        int32_t mid = w->nv + (ka < kb ? find_edge(w, ka, kb) : find_edge(w, kb, ka)); /* found in group_bits */
        sub[0][0] = v[0], sub[0][1] = mid, sub[1][0] = mid, sub[1][1] = v[1];
        nsub = 2;
      } else {
        PM_TRY_CHECK(nvf == 1, PM_ERR_UNSUPPORTED, "rank %d: group '%s' face %d has %d nodes", w->rank, L->name, fa + 1,
                     nvf);
        sub[0][0] = v[0];
      }
      for (int ch = 0; ch < nsub; ch++) {
        int mine = 0;
        for (int j = 0; j < nvf; j++) mine |= w->cown[sub[ch][j]] == w->rank;
        if (!mine) continue;
        int32_t q = F->n_faces++, p = F->face_ptr[q];
        F->face_type[q] = L->face_type[fa];
        F->face_gid[q] = L->face_gid[fa] == 0 ? 0 : (L->face_gid[fa] - 1) * w->m + ch + 1;
        for (int j = 0; j < nvf; j++) {
          PM_TRY_CHECK(w->lid[sub[ch][j]] >= 0, PM_ERR_INCONSISTENT,
                       "rank %d: group '%s': a refined face's node is not local (internal error)", w->rank, L->name);
          F->face_node[p + j] = w->lid[sub[ch][j]];
        }
        F->face_ptr[q + 1] = p + nvf;
      }
    }
  }
  /* Parents: the coarse nodes each fine node interpolates. */
  if (parents) {
    PM_TRY(PM_CALLOC(pa, 1, "refinement parents"));
    pa->n = f->n_total;
    PM_TRY(PM_MALLOC(pa->ptr, pa->n + 1, "refinement parents"));
    PM_TRY(PM_MALLOC(pa->node, 4 * (int64_t)pa->n, "refinement parents"));
    pa->ptr[0] = 0;
    for (int32_t i = 0; i < pa->n; i++) {
      int32_t k = fc[i], *out = pa->node + pa->ptr[i], np = 0;
      if (k < w->nv) {
        out[np++] = k;
      } else if (k < w->nv + w->ne) {
        out[np++] = w->edge[k - w->nv].a;
        out[np++] = w->edge[k - w->nv].b;
      } else {
        int32_t e = w->quad_elem[k - w->nv - w->ne];
        for (int j = 0; j < 4; j++) out[np++] = c->elem_node[c->elem_ptr[e] + j];
      }
      pa->ptr[i + 1] = pa->ptr[i] + np;
    }
    *parents = pa;
    pa = NULL;
  }
cleanup:
  free(felem);
  pm_refine_parents_destroy(&pa);
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

int pm_refine_local(MPI_Comm comm, const pm_local_t *coarse, pm_local_t **fine, pm_refine_parents_t **parents) {
  work_t w = {0};
  pm_local_t *f = NULL;
  int32_t *fc = NULL;
  int ierr = PM_OK;
  if (fine) *fine = NULL;
  if (parents) *parents = NULL;
  w.c = coarse;
  w.comm = comm;
  MPI_Comm_rank(comm, &w.rank);
  MPI_Comm_size(comm, &w.P);
  if (!coarse || !fine)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_refine_local: NULL argument on rank %d", w.rank);
  else
    ierr = setup(&w);
  ierr = pm_comm_agree(comm, ierr);
  if (ierr) goto cleanup;
  /* Global counts: nodes, elements (owned ones), the largest tag; the dimension agreed. */
  int64_t sum[2] = {coarse->n_internal, 0}, mx[4] = {0, w.dim, -w.dim, coarse->n_groups}, gsum[2], gmx[4];
  for (int32_t e = 0; e < coarse->n_elems; e++) sum[1] += coarse->elem_owner[e] == w.rank;
  for (int32_t i = 0; i < coarse->n_internal; i++)
    if (coarse->gid[i] > mx[0]) mx[0] = coarse->gid[i];
  int mpi = pm_comm_allreduce(sum, gsum, 2, MPI_INT64_T, MPI_SUM, comm);
  if (mpi == MPI_SUCCESS) mpi = pm_comm_allreduce(mx, gmx, 4, MPI_INT64_T, MPI_MAX, comm);
  PM_TRY_CHECK(mpi == MPI_SUCCESS, PM_ERR_MPI, "rank %d: MPI_Allreduce failed", w.rank);
  PM_TRY_CHECK(gmx[1] == -gmx[2] && gmx[1] > 0, PM_ERR_UNSUPPORTED,
               "the local meshes mix 1D and 2D elements (rank %d has %dD ones)", w.rank, w.dim);
  w.N = gsum[0];
  w.NE = gsum[1];
  w.maxtag = gmx[0];
  w.dim = (int)gmx[1];
  w.m = w.dim == 2 ? 4 : 2;
  ierr = mark_children(&w);
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
    ierr = build_nodes(&w, f, &fc);
  }
  if (!ierr) ierr = build_cells(&w, f, fc, parents);
  ierr = pm_comm_agree(comm, ierr);
  if (ierr) goto cleanup;
  *fine = f;
  f = NULL;
cleanup:
  if (ierr && parents) pm_refine_parents_destroy(parents);
  pm_local_destroy(&f);
  free(fc);
  work_free(&w);
  return ierr;
}
