/* test_part.c - self-checking tests of pm_part: node graphs, partitions and the local meshes a
 * plan builds.  Serial (pm_part is not collective).
 *
 *   test_part [MESH...]   MESH: bundled meshes by name (default: bar square mixed lshape
 *                         disk_hole), read from $PMESH_MESHES, or paths to .msh files (the 3D
 *                         fixtures of tests/common/meshes3d)
 *
 * For every mesh, halo kind (element, edge), method (metis, metis-rb, rcb, and a part file that
 * deals the nodes out in turn, so parts interleave and every part borders many others) and part
 * count, every rank's local mesh is built and checked against what this program computes from
 * the global mesh with its own loops (not pm_check's):
 *  - the node graph: the nodes sharing an element (or joined by an element edge, the edges
 *    described here independently of the cell table), ascending;
 *  - the parts: every node in one part, no part empty, the edge cut; RCB in 1D runs left to right;
 *  - internal nodes: exactly the part's nodes, ascending global id; each node internal on exactly
 *    one rank;
 *  - external nodes: the graph neighbours of internal nodes owned elsewhere, grouped by owner in
 *    ascending rank order, ascending global id within an owner; #NEIBPE those owners; the import
 *    table lists them in that order;
 *  - exports to q: the internal nodes with a neighbour in q, ascending global id; a's export list
 *    to b is b's import list from a (same global ids, same order); neighbour lists are mutual;
 *  - elements: exactly those touching an internal node, in global order, with their type, tag and
 *    nodes; the owner is the rank that owns the element's node with the smallest global id, and
 *    the owner keeps it; auxiliary nodes are the other nodes of kept elements (none for --halo
 *    element);
 *  - global ids, global positions and coordinates of every local node; groups: their local
 *    nodes, the faces that touch an internal node (in the group's order), their kept elements.
 * Exit status 0 when every check passed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_part.h"
#include "tu_check.h"

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "test_part: out of memory\n");
    exit(2);
  }
  return p;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* ---------------------------------------------------------------- the expected graph */

/* adj[ptr[i]..ptr[i+1]): the nodes sharing an element with node i (edges_only: joined to it by
 * an element edge: consecutive corners of a polygon, the two ends of a line), ascending. */
typedef struct gadj {
  int64_t *ptr, *adj;
} gadj_t;

/* Whether corners a and b of an nv-corner cell of dimension dim (Gmsh's numbering) are joined by
 * an edge: the two ends of a line; consecutive corners of a polygon; in 3D any two corners of a
 * tetrahedron, consecutive corners of the bottom (0..3) or top (4..7) quadrangle of a hexahedron
 * or of the bottom (0..2) or top (3..5) triangle of a prism, and a bottom corner with the one
 * above it. */
static int is_edge(int dim, int64_t nv, int64_t a, int64_t b) {
  if (nv <= 2) return 1;
  if (dim < 3) return b == (a + 1) % nv || a == (b + 1) % nv;
  if (nv == 4) return 1;
  int64_t k = nv / 2; /* corners per end polygon */
  if (a / k != b / k) return a % k == b % k;
  int64_t x = a % k, y = b % k;
  return y == (x + 1) % k || x == (y + 1) % k;
}

static void adjacency(const pm_mesh_t *m, int edges_only, gadj_t *g) {
  int64_t n = m->n_nodes;
  g->ptr = xcalloc((size_t)n + 1, sizeof *g->ptr);
  for (int64_t e = 0; e < m->n_elems; e++) {
    int64_t nv = m->elem_ptr[e + 1] - m->elem_ptr[e];
    for (int64_t a = 0; a < nv; a++) g->ptr[m->elem_node[m->elem_ptr[e] + a] + 1] += nv - 1;
  }
  for (int64_t i = 0; i < n; i++) g->ptr[i + 1] += g->ptr[i];
  int64_t *fill = xcalloc((size_t)n, sizeof *fill);
  g->adj = xcalloc((size_t)g->ptr[n], sizeof *g->adj);
  for (int64_t e = 0; e < m->n_elems; e++) {
    const int64_t *v = m->elem_node + m->elem_ptr[e];
    int64_t nv = m->elem_ptr[e + 1] - m->elem_ptr[e];
    for (int64_t a = 0; a < nv; a++)
      for (int64_t b = 0; b < nv; b++) {
        int edge = is_edge(m->dim, nv, a, b);
        if (b != a && v[b] != v[a] && (!edges_only || edge)) g->adj[g->ptr[v[a]] + fill[v[a]]++] = v[b];
      }
  }
  int64_t w = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t b = g->ptr[i], len = fill[i];
    qsort(g->adj + b, (size_t)len, sizeof *g->adj, cmp_i64);
    g->ptr[i] = w;
    for (int64_t k = 0; k < len; k++)
      if (k == 0 || g->adj[b + k] != g->adj[b + k - 1]) g->adj[w++] = g->adj[b + k];
  }
  g->ptr[n] = w;
  free(fill);
}

static void check_graph(const pm_graph_t *graph, const gadj_t *g, int64_t n) {
  EXPECT(graph->n == n, "the graph has %lld nodes, expected %lld", (long long)graph->n, (long long)n);
  if (graph->n != n) return;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = g->ptr[i + 1] - g->ptr[i];
    EXPECT(graph->xadj[i + 1] - graph->xadj[i] == len, "graph node %lld has %lld neighbours, expected %lld",
           (long long)i, (long long)(graph->xadj[i + 1] - graph->xadj[i]), (long long)len);
    if (graph->xadj[i + 1] - graph->xadj[i] != len) continue;
    for (int64_t k = 0; k < len; k++)
      EXPECT(graph->adj[graph->xadj[i] + k] == g->adj[g->ptr[i] + k],
             "graph node %lld, neighbour %lld: %d, expected %lld", (long long)i, (long long)k,
             graph->adj[graph->xadj[i] + k], (long long)g->adj[g->ptr[i] + k]);
  }
}

/* ---------------------------------------------------------------- one rank's local mesh */

typedef struct ext {
  int32_t part;
  int64_t node;
} ext_t;

static int cmp_ext(const void *a, const void *b) {
  const ext_t *x = a, *y = b;
  if (x->part != y->part) return x->part < y->part ? -1 : 1;
  return (x->node > y->node) - (x->node < y->node);
}

/* Scratch arrays over the global nodes and elements, reset after each rank. */
typedef struct scratch {
  int32_t *lid;   /* [n_nodes] local index + 1 on the rank being checked, 0 elsewhere */
  int32_t *elid;  /* [n_elems] local element index + 1, 0 elsewhere */
  char *mark;     /* [n_nodes] */
  ext_t *ext;     /* [n_nodes] */
  int64_t *list;  /* [max(n_nodes, n_elems)] */
  int64_t *list2; /* [max(n_nodes, n_elems)] */
} scratch_t;

static void check_local(const pm_mesh_t *m, const gadj_t *g, const int32_t *part, int nparts, int r, int halo_elem,
                        const pm_local_t *l, scratch_t *s) {
  int64_t n = m->n_nodes;
  EXPECT(l->rank == r && l->nparts == nparts && l->has_mesh && l->fingerprint == 0x5eed,
         "rank %d: rank %d nparts %d has_mesh %d fingerprint %llx", r, l->rank, l->nparts, l->has_mesh,
         (unsigned long long)l->fingerprint);
  /* Internal nodes: the part's, ascending. */
  int32_t N = 0;
  for (int64_t i = 0; i < n; i++)
    if (part[i] == r) s->list[N++] = i;
  EXPECT(l->n_internal == N, "rank %d: %d internal nodes, expected %d", r, l->n_internal, N);
  if (l->n_internal != N) return;
  for (int32_t k = 0; k < N; k++)
    EXPECT(l->node_index[k] == s->list[k], "rank %d: internal node %d is global node %lld, expected %lld", r, k,
           (long long)l->node_index[k], (long long)s->list[k]);
  /* Externals: graph neighbours of internal nodes owned elsewhere, by (owner, global id). */
  int64_t ne = 0;
  for (int32_t k = 0; k < N; k++) {
    int64_t i = s->list[k];
    for (int64_t a = g->ptr[i]; a < g->ptr[i + 1]; a++) {
      int64_t j = g->adj[a];
      if (part[j] != r && !s->mark[j]) {
        s->mark[j] = 1;
        s->ext[ne++] = (ext_t){part[j], j};
      }
    }
  }
  for (int64_t k = 0; k < ne; k++) s->mark[s->ext[k].node] = 0;
  qsort(s->ext, (size_t)ne, sizeof *s->ext, cmp_ext);
  EXPECT(l->n_total == N + ne, "rank %d: NP = %d, expected %lld", r, l->n_total, (long long)(N + ne));
  if (l->n_total != N + ne) return;
  for (int64_t k = 0; k < ne; k++)
    EXPECT(l->node_index[N + k] == s->ext[k].node,
           "rank %d: external %lld is global node %lld, expected %lld (part %d)", r, (long long)k,
           (long long)l->node_index[N + k], (long long)s->ext[k].node, s->ext[k].part);
  /* Neighbours: the owners of the externals, ascending; imports grouped by them. */
  int nn = 0;
  for (int64_t k = 0; k < ne; k++) nn += k == 0 || s->ext[k].part != s->ext[k - 1].part;
  EXPECT(l->n_neib == nn, "rank %d: %d neighbours, expected %d", r, l->n_neib, nn);
  if (l->n_neib != nn) return;
  EXPECT(l->import_index[0] == 0 && l->export_index[0] == 0, "rank %d: the tables do not start at 0", r);
  for (int q = 0, k = 0; q < nn; q++) {
    int32_t p = s->ext[k].part, b = (int32_t)k;
    while (k < ne && s->ext[k].part == p) k++;
    EXPECT(l->neib[q] == p, "rank %d: neighbour %d is rank %d, expected %d", r, q, l->neib[q], p);
    EXPECT(l->import_index[q] == b && l->import_index[q + 1] == k,
           "rank %d: imports from rank %d are [%d, %d), expected [%d, %d)", r, p, l->import_index[q],
           l->import_index[q + 1], b, k);
  }
  for (int64_t k = 0; k < ne; k++)
    EXPECT(l->import_item[k] == N + k, "rank %d: import item %lld is %d, expected %lld", r, (long long)k,
           l->import_item[k], (long long)(N + k));
  /* Exports to each neighbour q: the internal nodes with a graph neighbour in q, ascending. */
  for (int q = 0; q < nn; q++) {
    int32_t c = 0;
    for (int32_t k = 0; k < N; k++) {
      int64_t i = s->list[k];
      int touch = 0;
      for (int64_t a = g->ptr[i]; a < g->ptr[i + 1] && !touch; a++) touch = part[g->adj[a]] == l->neib[q];
      if (touch) s->list2[c++] = k;
    }
    EXPECT(l->export_index[q + 1] - l->export_index[q] == c, "rank %d: %d exports to rank %d, expected %d", r,
           l->export_index[q + 1] - l->export_index[q], l->neib[q], c);
    if (l->export_index[q + 1] - l->export_index[q] != c) continue;
    for (int32_t k = 0; k < c; k++)
      EXPECT(l->export_item[l->export_index[q] + k] == s->list2[k],
             "rank %d: export %d to rank %d is node %d, expected %lld", r, k, l->neib[q],
             l->export_item[l->export_index[q] + k], (long long)s->list2[k]);
  }
  /* Elements: those touching an internal node, in global order. */
  int64_t nel = 0;
  for (int64_t e = 0; e < m->n_elems; e++) {
    int touch = 0;
    for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) touch |= part[m->elem_node[j]] == r;
    if (touch) s->list2[nel++] = e;
  }
  EXPECT(l->n_elems == nel, "rank %d: %d elements, expected %lld", r, l->n_elems, (long long)nel);
  if (l->n_elems != nel) return;
  int32_t nt = l->n_total + l->n_aux;
  for (int32_t k = 0; k < nt; k++) {
    int64_t i = l->node_index[k];
    EXPECT(i >= 0 && i < n && !s->lid[i], "rank %d: local node %d: global position %lld out of range or repeated", r, k,
           (long long)i);
    if (i < 0 || i >= n || s->lid[i]) return;
    s->lid[i] = k + 1;
    EXPECT(l->gid[k] == m->node_gid[i], "rank %d: local node %d has gid %lld, expected %lld", r, k,
           (long long)l->gid[k], (long long)m->node_gid[i]);
    EXPECT(memcmp(l->xyz + 3 * k, m->xyz + 3 * i, 3 * sizeof(double)) == 0, "rank %d: local node %d: coordinates", r,
           k);
  }
  int64_t naux = 0;
  for (int32_t k = 0; k < l->n_elems; k++) {
    int64_t e = s->list2[k];
    s->elid[e] = k + 1;
    EXPECT(l->elem_index[k] == e && l->elem_gid[k] == m->elem_gid[e] && l->elem_type[k] == m->elem_type[e],
           "rank %d: element %d is global %lld (tag %lld type %d), expected %lld (tag %lld type %d)", r, k,
           (long long)l->elem_index[k], (long long)l->elem_gid[k], l->elem_type[k], (long long)e,
           (long long)m->elem_gid[e], m->elem_type[e]);
    int64_t nv = m->elem_ptr[e + 1] - m->elem_ptr[e], lo = INT64_MAX;
    EXPECT(l->elem_ptr[k + 1] - l->elem_ptr[k] == nv, "rank %d: element %d has %d nodes, expected %lld", r, k,
           l->elem_ptr[k + 1] - l->elem_ptr[k], (long long)nv);
    if (l->elem_ptr[k + 1] - l->elem_ptr[k] != nv) continue;
    for (int64_t a = 0; a < nv; a++) {
      int64_t v = m->elem_node[m->elem_ptr[e] + a];
      int32_t lv = l->elem_node[l->elem_ptr[k] + a];
      EXPECT(lv >= 0 && lv < nt && l->node_index[lv] == v,
             "rank %d: element %d node %lld is local %d, expected global %lld", r, k, (long long)a, lv, (long long)v);
      if (v < lo) lo = v;
    }
    EXPECT(l->elem_owner[k] == part[lo], "rank %d: element %lld owned by %d, expected %d (owner of node %lld)", r,
           (long long)m->elem_gid[e], l->elem_owner[k], part[lo], (long long)m->node_gid[lo]);
  }
  /* Auxiliary nodes: nodes of kept elements that are neither internal nor external. */
  for (int32_t k = 0; k < l->n_elems; k++) {
    int64_t e = s->list2[k];
    for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) {
      int64_t v = m->elem_node[j];
      int32_t lv = s->lid[v] - 1;
      EXPECT(lv >= 0, "rank %d: node %lld of element %d is not local", r, (long long)m->node_gid[v], k);
      if (lv >= l->n_total && !s->mark[v]) {
        s->mark[v] = 1;
        naux++;
      }
    }
  }
  for (int32_t k = l->n_total; k < nt; k++) s->mark[l->node_index[k]] = 0;
  EXPECT(l->n_aux == naux, "rank %d: %d auxiliary nodes, expected %lld", r, l->n_aux, (long long)naux);
  if (halo_elem) EXPECT(l->n_aux == 0, "rank %d: auxiliary nodes with --halo element", r);
  /* Groups. */
  EXPECT(l->n_groups == m->n_groups, "rank %d: %d groups, expected %d", r, l->n_groups, m->n_groups);
  for (int gi = 0; gi < m->n_groups && l->n_groups == m->n_groups; gi++) {
    const pm_group_t *G = &m->groups[gi];
    const pm_local_group_t *L = &l->groups[gi];
    EXPECT(strcmp(L->name, G->name) == 0 && L->dim == G->dim, "rank %d: group %d is '%s' dim %d, expected '%s' dim %d",
           r, gi, L->name, L->dim, G->name, G->dim);
    for (int64_t k = 0; k < G->n_nodes; k++) s->mark[G->nodes[k]] = 1;
    int32_t c = 0;
    for (int32_t k = 0; k < nt; k++)
      if (s->mark[l->node_index[k]]) s->list[c++] = k;
    for (int64_t k = 0; k < G->n_nodes; k++) s->mark[G->nodes[k]] = 0;
    EXPECT(L->n_nodes == c, "rank %d: group '%s' has %d local nodes, expected %d", r, G->name, L->n_nodes, c);
    for (int32_t k = 0; k < c && L->n_nodes == c; k++)
      EXPECT(L->nodes[k] == s->list[k], "rank %d: group '%s' node %d is %d, expected %lld", r, G->name, k, L->nodes[k],
             (long long)s->list[k]);
    int32_t f = 0;
    for (int64_t k = 0; k < G->n_faces; k++) {
      int64_t gf = G->faces[k];
      int touch = 0;
      for (int64_t j = m->face_ptr[gf]; j < m->face_ptr[gf + 1]; j++) touch |= part[m->face_node[j]] == r;
      if (!touch) continue;
      EXPECT(f < L->n_faces, "rank %d: group '%s' lacks face %lld", r, G->name, (long long)m->face_gid[gf]);
      if (f >= L->n_faces) break;
      EXPECT(L->face_type[f] == m->face_type[gf] && L->face_gid[f] == m->face_gid[gf] &&
                 L->face_ptr[f + 1] - L->face_ptr[f] == m->face_ptr[gf + 1] - m->face_ptr[gf],
             "rank %d: group '%s' face %d is not face %lld", r, G->name, f, (long long)m->face_gid[gf]);
      for (int64_t j = 0; j < m->face_ptr[gf + 1] - m->face_ptr[gf] && j < L->face_ptr[f + 1] - L->face_ptr[f]; j++) {
        int32_t lv = L->face_node[L->face_ptr[f] + j];
        EXPECT(lv >= 0 && lv < nt && l->node_index[lv] == m->face_node[m->face_ptr[gf] + j],
               "rank %d: group '%s' face %d node %lld", r, G->name, f, (long long)j);
      }
      f++;
    }
    EXPECT(L->n_faces == f, "rank %d: group '%s' has %d faces, expected %d", r, G->name, L->n_faces, f);
    c = 0;
    for (int64_t k = 0; k < G->n_elems; k++)
      if (s->elid[G->elems[k]]) s->list[c++] = s->elid[G->elems[k]] - 1;
    EXPECT(L->n_elems == c, "rank %d: group '%s' has %d elements, expected %d", r, G->name, L->n_elems, c);
    for (int32_t k = 0; k < c && L->n_elems == c; k++)
      EXPECT(L->elems[k] == s->list[k], "rank %d: group '%s' element %d is %d, expected %lld", r, G->name, k,
             L->elems[k], (long long)s->list[k]);
  }
  for (int32_t k = 0; k < nt; k++) s->lid[l->node_index[k]] = 0;
  for (int32_t k = 0; k < l->n_elems; k++) s->elid[l->elem_index[k]] = 0;
}

/* ---------------------------------------------------------------- all ranks together */

static void check_across(const pm_mesh_t *m, int nparts, pm_local_t **L) {
  /* Each node internal on exactly one rank; each element owned by exactly one rank that keeps it. */
  int32_t *count = xcalloc((size_t)(m->n_nodes > m->n_elems ? m->n_nodes : m->n_elems), sizeof *count);
  for (int r = 0; r < nparts; r++)
    for (int32_t k = 0; k < L[r]->n_internal; k++) count[L[r]->node_index[k]]++;
  for (int64_t i = 0; i < m->n_nodes; i++)
    EXPECT(count[i] == 1, "node %lld is internal on %d ranks", (long long)m->node_gid[i], count[i]);
  memset(count, 0, (size_t)m->n_elems * sizeof *count);
  for (int r = 0; r < nparts; r++)
    for (int32_t k = 0; k < L[r]->n_elems; k++) count[L[r]->elem_index[k]] += L[r]->elem_owner[k] == r;
  for (int64_t e = 0; e < m->n_elems; e++)
    EXPECT(count[e] == 1, "element %lld is kept by its owner %d times", (long long)m->elem_gid[e], count[e]);
  free(count);
  /* Neighbours are mutual; a's export list to b is b's import list from a, by global id. */
  for (int r = 0; r < nparts; r++) {
    const pm_local_t *a = L[r];
    for (int k = 0; k < a->n_neib; k++) {
      const pm_local_t *b = L[a->neib[k]];
      int kb = -1;
      for (int j = 0; j < b->n_neib; j++)
        if (b->neib[j] == r) kb = j;
      EXPECT(kb >= 0, "rank %d lists rank %d as a neighbour, but not the other way round", r, a->neib[k]);
      if (kb < 0) continue;
      int32_t ne = a->export_index[k + 1] - a->export_index[k], ni = b->import_index[kb + 1] - b->import_index[kb];
      EXPECT(ne == ni, "rank %d exports %d nodes to rank %d, which imports %d", r, ne, a->neib[k], ni);
      for (int32_t j = 0; j < ne && ne == ni; j++) {
        int64_t ga = a->node_index[a->export_item[a->export_index[k] + j]];
        int64_t gb = b->node_index[b->import_item[b->import_index[kb] + j]];
        EXPECT(ga == gb, "rank %d's export %d to rank %d is node %lld, the import is node %lld", r, j, a->neib[k],
               (long long)m->node_gid[ga], (long long)m->node_gid[gb]);
      }
    }
  }
}

/* ---------------------------------------------------------------- the cases */

static const char *method_name(pm_part_method_t method) {
  switch (method) {
    case PM_PART_METIS_KWAY:
      return "metis";
    case PM_PART_METIS_RB:
      return "metis-rb";
    case PM_PART_RCB:
      return "rcb";
    default:
      return "file (dealt in turn)";
  }
}

static void test_case(const pm_mesh_t *m, const pm_graph_t *graph, const gadj_t *g, pm_adjacency_t halo,
                      pm_part_method_t method, int nparts, const char *partfile, scratch_t *s) {
  int64_t n = m->n_nodes;
  int32_t *part = xcalloc((size_t)n, sizeof *part);
  if (method == PM_PART_FILE) {
    FILE *fp = fopen(partfile, "w");
    if (!fp) {
      FAIL("cannot write the part file %s", partfile);
      exit(2);
    }
    for (int64_t i = 0; i < n; i++) fprintf(fp, "%lld\n", (long long)(i % nparts));
    if (fclose(fp) != 0) {
      FAIL("cannot write the part file %s", partfile);
      exit(2);
    }
  }
  pm_part_options_t opt = {.nparts = nparts, .method = method, .file = partfile, .seed = 3};
  int64_t cut = -1;
  OK(pm_part_compute(m, graph, &opt, part, &cut));
  int64_t *size = xcalloc((size_t)nparts, sizeof *size), want_cut = 0;
  for (int64_t i = 0; i < n; i++) {
    EXPECT(part[i] >= 0 && part[i] < nparts, "node %lld in part %d", (long long)i, part[i]);
    if (part[i] >= 0 && part[i] < nparts) size[part[i]]++;
    for (int64_t a = g->ptr[i]; a < g->ptr[i + 1]; a++) want_cut += g->adj[a] > i && part[g->adj[a]] != part[i];
    if (method == PM_PART_FILE)
      EXPECT(part[i] == i % nparts, "node %lld: part %d, the file says %lld", (long long)i, part[i],
             (long long)(i % nparts));
  }
  for (int p = 0; p < nparts; p++) EXPECT(size[p] > 0, "part %d is empty", p);
  EXPECT(cut == want_cut, "edge cut %lld, expected %lld", (long long)cut, (long long)want_cut);
  if (method == PM_PART_RCB && m->dim == 1) { /* the parts run left to right */
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = 0; j < n; j++)
        if (m->xyz[3 * i] < m->xyz[3 * j])
          EXPECT(part[i] <= part[j], "RCB in 1D: node at x = %g in part %d, node at x = %g in part %d", m->xyz[3 * i],
                 part[i], m->xyz[3 * j], part[j]);
  }
  free(size);

  pm_part_plan_t *plan = NULL;
  OK(pm_part_plan_create(m, graph, halo, part, nparts, &plan));
  pm_local_t **L = xcalloc((size_t)nparts, sizeof *L);
  /* Last rank first: the plan's scratch maps must be reset between ranks, in any order. */
  for (int r = nparts - 1; r >= 0; r--) OK(pm_part_local(plan, r, 0x5eed, &L[r]));
  for (int r = 0; r < nparts; r++) check_local(m, g, part, nparts, r, halo == PM_ADJACENCY_ELEMENT, L[r], s);
  check_across(m, nparts, L);
  pm_local_t *bad = NULL;
  EXPECT(pm_part_local(plan, nparts, 0, &bad) == PM_ERR_ARG && bad == NULL, "rank %d of %d parts is accepted", nparts,
         nparts);
  pm_error_clear();
  for (int r = 0; r < nparts; r++) pm_local_destroy(&L[r]);
  free(L);
  pm_part_plan_destroy(&plan);
  EXPECT(plan == NULL, "pm_part_plan_destroy does not set the handle to NULL");
  pm_part_plan_destroy(&plan);
  free(part);
}

static void test_mesh(const char *dir, const char *name, const char *partfile) {
  char path[4096];
  if (strchr(name, '/')) /* a path to a mesh elsewhere (the 3D fixtures) */
    snprintf(path, sizeof path, "%s", name);
  else
    snprintf(path, sizeof path, "%s/%s.msh", dir, name);
  snprintf(g_what, sizeof g_what, "%s", name);
  pm_mesh_t *m = NULL;
  uint64_t checksum;
  OK(pm_mesh_read(path, &m, &checksum));
  int64_t n = m->n_nodes, big = n > m->n_elems ? n : m->n_elems;
  scratch_t s = {xcalloc((size_t)n, sizeof *s.lid),
                 xcalloc((size_t)m->n_elems, sizeof *s.elid),
                 xcalloc((size_t)n, 1),
                 xcalloc((size_t)n, sizeof *s.ext),
                 xcalloc((size_t)big, sizeof *s.list),
                 xcalloc((size_t)big, sizeof *s.list2)};
  static const int counts_small[] = {1, 2, 3, 4}, counts[] = {1, 2, 3, 5, 8};
  const int *nps = n < 100 ? counts_small : counts;
  int n_np = n < 100 ? 4 : 5;
  static const pm_part_method_t methods[] = {PM_PART_METIS_KWAY, PM_PART_METIS_RB, PM_PART_RCB, PM_PART_FILE};
  int cases = 0;
  for (int h = 0; h < 2; h++) {
    pm_adjacency_t halo = h ? PM_ADJACENCY_EDGE : PM_ADJACENCY_ELEMENT;
    gadj_t g;
    pm_graph_t graph;
    adjacency(m, h, &g);
    snprintf(g_what, sizeof g_what, "%s, --halo %s: the node graph", name, h ? "edge" : "element");
    OK(pm_graph_build(m, halo, &graph));
    check_graph(&graph, &g, n);
    for (size_t k = 0; k < sizeof methods / sizeof *methods; k++)
      for (int i = 0; i < n_np; i++) {
        snprintf(g_what, sizeof g_what, "%s, --halo %s, %s, %d parts", name, h ? "edge" : "element",
                 method_name(methods[k]), nps[i]);
        test_case(m, &graph, &g, halo, methods[k], nps[i], partfile, &s);
        cases++;
      }
    pm_graph_free(&graph);
    free(g.ptr);
    free(g.adj);
  }
  printf("test_part: %s: %lld nodes, %lld elements, %d partitions checked\n", name, (long long)n, (long long)m->n_elems,
         cases);
  free(s.lid);
  free(s.elid);
  free(s.mark);
  free(s.ext);
  free(s.list);
  free(s.list2);
  pm_mesh_destroy(&m);
}

int main(int argc, char **argv) {
  const char *dir = getenv("PMESH_MESHES");
  if (!dir) dir = "meshes";
  char partfile[64];
  snprintf(partfile, sizeof partfile, "test_part.%ld.part", (long)getpid());
  static const char *const defaults[] = {"bar", "square", "mixed", "lshape", "disk_hole"};
  int nmesh = argc > 1 ? argc - 1 : (int)(sizeof defaults / sizeof *defaults);
  for (int k = 0; k < nmesh; k++) test_mesh(dir, argc > 1 ? argv[k + 1] : defaults[k], partfile);
  remove(partfile);
  printf("test_part: %ld checks, %ld failures\n", g_checks, g_fail);
  return g_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
