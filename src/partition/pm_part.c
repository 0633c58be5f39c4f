/* pm_part.c - node graph, partitioning (METIS k-way / recursive, RCB, user file) and the build
 * of every rank's local mesh in the lecture's numbering. */
#include "pmesh/pm_part.h"

#include <math.h>
#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_scan.h"
#include "base/pm_util.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"

/* ---------------------------------------------------------------- graph */

void pm_graph_free(pm_graph_t *g) {
  free(g->xadj);
  free(g->adj);
  g->xadj = NULL;
  g->adj = NULL;
  g->n = 0;
}

static void sort_row(int32_t *v, int64_t n) {
  for (int64_t i = 1; i < n; i++) {
    int32_t x = v[i];
    int64_t j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* The node pairs of every cell type (by Gmsh code) for an adjacency rule, read once. */
typedef struct pair_tab {
  int n;
  int8_t a[PM_CELL_MAX_VERTS * (PM_CELL_MAX_VERTS - 1) / 2], b[PM_CELL_MAX_VERTS * (PM_CELL_MAX_VERTS - 1) / 2];
} pair_tab_t;

/* The neighbours of node i through the elements around it (inc[..]), each once, not i itself:
 * appended to row (if not NULL); returns their count.  stamp[j] == i marks j as seen. */
static int64_t node_row(const pm_mesh_t *m, const pair_tab_t *tab, const int32_t *inc, int64_t i0, int64_t i1,
                        int32_t i, int32_t *stamp, int32_t *row) {
  int64_t deg = 0;
  stamp[i] = i;
  for (int64_t q = i0; q < i1; q++) {
    int64_t e = inc[q];
    const int64_t *v = m->elem_node + m->elem_ptr[e];
    const pair_tab_t *t = &tab[(uint8_t)m->elem_type[e]];
    for (int p = 0; p < t->n; p++) {
      int64_t x = v[t->a[p]], y = v[t->b[p]], j = x == i ? y : y == i ? x : -1;
      if (j < 0 || stamp[j] == i) continue;
      stamp[j] = i;
      if (row) row[deg] = (int32_t)j;
      deg++;
    }
  }
  return deg;
}

/* The graph row by row from the elements around each node (a node-to-element incidence), so
 * no list of every element's pairs (each twice, before duplicates go) is ever held. */
int pm_graph_build(const pm_mesh_t *m, pm_adjacency_t halo, pm_graph_t *g) {
  int ierr = PM_OK;
  int64_t n = m->n_nodes, ne = m->n_elems, nen = m->elem_ptr[ne];
  int64_t *ptr = NULL;
  int32_t *inc = NULL, *stamp = NULL;
  pair_tab_t *tab = NULL;
  memset(g, 0, sizeof *g);
  PM_CHECK(n < INT32_MAX, PM_ERR_UNSUPPORTED, "%lld nodes: pmesh's local indices are 32-bit", (long long)n);
  PM_CHECK(ne < INT32_MAX, PM_ERR_UNSUPPORTED, "%lld elements: the graph build indexes elements in 32 bits",
           (long long)ne);
  PM_TRY(PM_CALLOC(tab, 256, "graph pairs"));
  for (int t = 0; t < 128; t++) {
    const pm_cell_t *c = pm_cell_gmsh(t);
    if (!c) continue;
    if (halo == PM_ADJACENCY_EDGE) {
      for (int k = 0; k < c->n_edges; k++) {
        tab[t].a[tab[t].n] = c->edge[k][0];
        tab[t].b[tab[t].n++] = c->edge[k][1];
      }
    } else {
      for (int i = 0; i < c->n_verts; i++)
        for (int j = i + 1; j < c->n_verts; j++) {
          tab[t].a[tab[t].n] = (int8_t)i;
          tab[t].b[tab[t].n++] = (int8_t)j;
        }
    }
  }
  PM_TRY(PM_CALLOC(ptr, n + 2, "node elements"));
  for (int64_t k = 0; k < nen; k++) ptr[m->elem_node[k] + 2]++;
  for (int64_t i = 0; i < n; i++) ptr[i + 2] += ptr[i + 1];
  PM_TRY(PM_MALLOC(inc, nen + 1, "node elements"));
  for (int64_t e = 0; e < ne; e++)
    for (int64_t k = m->elem_ptr[e]; k < m->elem_ptr[e + 1]; k++) inc[ptr[m->elem_node[k] + 1]++] = (int32_t)e;
  PM_TRY(PM_MALLOC(stamp, n + 1, "graph marks"));
  for (int64_t i = 0; i < n; i++) stamp[i] = -1;
  PM_TRY(PM_MALLOC(g->xadj, n + 1, "graph offsets"));
  g->xadj[0] = 0;
  for (int64_t i = 0; i < n; i++) g->xadj[i + 1] = g->xadj[i] + node_row(m, tab, inc, ptr[i], ptr[i + 1], (int32_t)i, stamp, NULL);
  PM_TRY(PM_MALLOC(g->adj, g->xadj[n] + 1, "graph adjacency"));
  for (int64_t i = 0; i < n; i++) stamp[i] = -1;
  for (int64_t i = 0; i < n; i++) {
    int32_t *row = g->adj + g->xadj[i];
    int64_t len = node_row(m, tab, inc, ptr[i], ptr[i + 1], (int32_t)i, stamp, row);
    if (len > 32)
      qsort(row, (size_t)len, sizeof *row, cmp_i32);
    else
      sort_row(row, len);
  }
  g->n = n;
cleanup:
  free(tab);
  free(ptr);
  free(inc);
  free(stamp);
  if (ierr) pm_graph_free(g);
  return ierr;
}

/* ---------------------------------------------------------------- partitioning */

static int part_metis(const pm_graph_t *g, const pm_part_options_t *opt, int32_t *part) {
  int ierr = PM_OK;
  idx_t *xadj = NULL, *adj = NULL, *where = NULL;
  /* The one place pmesh converts to METIS's idx_t. */
  PM_CHECK(g->n > 0 && g->xadj[g->n] <= (int64_t)((((uint64_t)1) << (PMESH_METIS_IDXTYPEWIDTH - 1)) - 1),
           PM_ERR_UNSUPPORTED, "the graph (%lld edges) is too large for METIS's %d-bit idx_t", (long long)g->xadj[g->n],
           PMESH_METIS_IDXTYPEWIDTH);
  PM_TRY(PM_MALLOC(xadj, g->n + 1, "METIS graph"));
  PM_TRY(PM_MALLOC(adj, g->xadj[g->n], "METIS graph"));
  PM_TRY(PM_MALLOC(where, g->n, "METIS partition"));
  for (int64_t i = 0; i <= g->n; i++) xadj[i] = (idx_t)g->xadj[i];
  for (int64_t k = 0; k < g->xadj[g->n]; k++) adj[k] = (idx_t)g->adj[k];
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = (idx_t)opt->seed;
  options[METIS_OPTION_NUMBERING] = 0;
  if (opt->ufactor > 0) options[METIS_OPTION_UFACTOR] = (idx_t)opt->ufactor;
  idx_t nv = (idx_t)g->n, ncon = 1, np = (idx_t)opt->nparts, objval = 0;
  int rc;
  if (opt->method == PM_PART_METIS_RB)
    rc = METIS_PartGraphRecursive(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, options, &objval, where);
  else
    rc = METIS_PartGraphKway(&nv, &ncon, xadj, adj, NULL, NULL, NULL, &np, NULL, NULL, options, &objval, where);
  PM_TRY_CHECK(rc == METIS_OK, PM_ERR_METIS, "METIS failed (%s) partitioning %lld nodes into %d parts",
               rc == METIS_ERROR_MEMORY  ? "out of memory"
               : rc == METIS_ERROR_INPUT ? "bad input"
                                         : "error",
               (long long)g->n, opt->nparts);
  for (int64_t i = 0; i < g->n; i++) part[i] = (int32_t)where[i];
cleanup:
  free(xadj);
  free(adj);
  free(where);
  return ierr;
}

typedef struct rcb_key {
  double x;
  int64_t i;
} rcb_key_t;

static int cmp_rcb(const void *a, const void *b) {
  const rcb_key_t *p = a, *q = b;
  if (p->x != q->x) return p->x < q->x ? -1 : 1;
  return (p->i > q->i) - (p->i < q->i);
}

/* Split nodes[0..n) into parts [p0, p0+np): the longest axis of their bounding box, sorted
 * (ties by global id), cut in proportion to the part counts; lower coordinates get lower parts. */
static void rcb_split(const double *xyz, int64_t *nodes, rcb_key_t *key, int64_t n, int p0, int np, int32_t *part) {
  if (np == 1) {
    for (int64_t k = 0; k < n; k++) part[nodes[k]] = p0;
    return;
  }
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int64_t k = 0; k < n; k++)
    for (int d = 0; d < 3; d++) {
      double c = xyz[3 * nodes[k] + d];
      if (c < lo[d]) lo[d] = c;
      if (c > hi[d]) hi[d] = c;
    }
  int axis = 0;
  for (int d = 1; d < 3; d++)
    if (hi[d] - lo[d] > hi[axis] - lo[axis]) axis = d;
  for (int64_t k = 0; k < n; k++) {
    key[k].x = xyz[3 * nodes[k] + axis];
    key[k].i = nodes[k];
  }
  qsort(key, (size_t)n, sizeof *key, cmp_rcb);
  for (int64_t k = 0; k < n; k++) nodes[k] = key[k].i;
  int nl = np / 2;
  int64_t cut = (int64_t)((double)n * nl / np + 0.5);
  rcb_split(xyz, nodes, key, cut, p0, nl, part);
  rcb_split(xyz, nodes + cut, key, n - cut, p0 + nl, np - nl, part);
}

static int part_rcb(const pm_mesh_t *m, int nparts, int32_t *part) {
  int64_t *nodes = NULL;
  rcb_key_t *key = NULL;
  int ierr = PM_OK;
  PM_TRY(PM_MALLOC(nodes, m->n_nodes, "RCB order"));
  PM_TRY(PM_MALLOC(key, m->n_nodes, "RCB keys"));
  for (int64_t i = 0; i < m->n_nodes; i++) nodes[i] = i;
  rcb_split(m->xyz, nodes, key, m->n_nodes, 0, nparts, part);
cleanup:
  free(nodes);
  free(key);
  return ierr;
}

static int part_file(const pm_mesh_t *m, const char *path, int nparts, int32_t *part) {
  pm_scan_t s;
  PM_CALL(pm_scan_open(&s, path));
  int ierr = PM_OK;
  for (int64_t i = 0; i < m->n_nodes; i++) {
    int64_t p;
    const char *t;
    size_t n;
    ierr = pm_scan_token(&s, &t, &n);
    if (ierr) break;
    if (!t) {
      ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                          "%s: has %lld part ids; the mesh has %lld nodes (one id per line, for the nodes in "
                          "ascending tag order, orphan nodes excluded)",
                          path, (long long)i, (long long)m->n_nodes);
      break;
    }
    s.pos -= n; /* re-read it as a number */
    ierr = pm_scan_int64(&s, 0, nparts - 1, "part id", &p);
    if (ierr) break;
    part[i] = (int32_t)p;
  }
  if (!ierr) {
    const char *t;
    size_t n;
    ierr = pm_scan_token(&s, &t, &n);
    if (!ierr && t)
      ierr = PM_SCAN_FAIL(&s, PM_ERR_FORMAT, "more part ids than the mesh's %lld nodes ('%s')", (long long)m->n_nodes,
                          s.tok);
  }
  pm_scan_close(&s);
  if (ierr) pm_error_trace(__FILE__, __LINE__);
  return ierr;
}

int pm_part_compute(const pm_mesh_t *m, const pm_graph_t *g, const pm_part_options_t *opt, int32_t *part,
                    int64_t *edgecut) {
  PM_CHECK(opt->nparts >= 1, PM_ERR_ARG, "the number of parts must be at least 1, got %d", opt->nparts);
  PM_CHECK(opt->nparts <= m->n_nodes, PM_ERR_ARG,
           "cannot split %lld nodes into %d parts: every part needs at least one node", (long long)m->n_nodes,
           opt->nparts);
  if (opt->method == PM_PART_FILE) {
    PM_CALL(part_file(m, opt->file, opt->nparts, part));
  } else if (opt->nparts == 1) {
    memset(part, 0, (size_t)m->n_nodes * sizeof *part);
  } else if (opt->method == PM_PART_RCB) {
    PM_CALL(part_rcb(m, opt->nparts, part));
  } else {
    PM_CALL(part_metis(g, opt, part));
  }
  int64_t *count = NULL;
  PM_CALL(PM_CALLOC(count, opt->nparts, "part sizes"));
  for (int64_t i = 0; i < m->n_nodes; i++) count[part[i]]++;
  for (int p = 0; p < opt->nparts; p++) {
    if (count[p] == 0) {
      free(count);
      return pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "part %d is empty (%lld nodes into %d parts): use fewer parts%s", p, (long long)m->n_nodes,
                          opt->nparts,
                          opt->method == PM_PART_FILE  ? " or fix the part file"
                          : opt->method == PM_PART_RCB ? ""
                                                       : ", or --method rcb (METIS may leave a part of a small "
                                                         "mesh empty; recursive bisection gives each part nodes)");
    }
  }
  free(count);
  int64_t cut = 0;
  for (int64_t i = 0; i < g->n; i++)
    for (int64_t k = g->xadj[i]; k < g->xadj[i + 1]; k++) cut += g->adj[k] > i && part[g->adj[k]] != part[i];
  *edgecut = cut;
  return PM_OK;
}

/* ---------------------------------------------------------------- local meshes */

struct pm_part_plan {
  const pm_mesh_t *mesh;
  const pm_graph_t *graph;
  pm_adjacency_t halo;
  const int32_t *part;
  int nparts;
  int64_t *int_ptr, *int_node;   /* internal nodes per rank, ascending */
  int64_t *elem_ptr, *elem_list; /* elements touching a rank's internal nodes, ascending */
  int32_t *lid;                  /* [n_nodes] local index on the rank being built, -1 elsewhere */
  int32_t *elid;                 /* [n_elems] local element index, -1 elsewhere */
  int32_t *slot;                 /* [nparts] neighbour slot, -1 elsewhere */
  /* Per group, a bitmap of its nodes / elements when the group is large (NULL otherwise), so
   * each rank selects its group members from its own nodes and elements rather than scanning
   * the whole group (the domain group holds every node and element). */
  uint64_t **gnode_bits, **gelem_bits;
};

/* A group bitmap pays off when the group is more than 1/32 of the nodes (elements). */
static int group_dense(int64_t members, int64_t total) {
  return members > 0 && members * 32 >= total;
}

static int bit_get(const uint64_t *bits, int64_t i) {
  return (int)(bits[i >> 6] >> (i & 63) & 1);
}

void pm_part_plan_destroy(pm_part_plan_t **plan) {
  if (!plan || !*plan) return;
  pm_part_plan_t *p = *plan;
  free(p->int_ptr);
  free(p->int_node);
  free(p->elem_ptr);
  free(p->elem_list);
  free(p->lid);
  free(p->elid);
  free(p->slot);
  if (p->gnode_bits)
    for (int g = 0; g < p->mesh->n_groups; g++) free(p->gnode_bits[g]);
  if (p->gelem_bits)
    for (int g = 0; g < p->mesh->n_groups; g++) free(p->gelem_bits[g]);
  free(p->gnode_bits);
  free(p->gelem_bits);
  free(p);
  *plan = NULL;
}

/* Distinct parts of element e's nodes, in out[] (at most 4). */
static int elem_parts(const pm_mesh_t *m, const int32_t *part, int64_t e, int32_t *out) {
  int k = 0;
  for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) {
    int32_t p = part[m->elem_node[j]];
    int dup = 0;
    for (int a = 0; a < k; a++) dup |= out[a] == p;
    if (!dup) out[k++] = p;
  }
  return k;
}

int pm_part_plan_create(const pm_mesh_t *m, const pm_graph_t *g, pm_adjacency_t halo, const int32_t *part, int nparts,
                        pm_part_plan_t **plan) {
  int ierr = PM_OK;
  pm_part_plan_t *p = NULL;
  PM_CHECK(m->n_elems < INT32_MAX && m->n_nodes < INT32_MAX, PM_ERR_UNSUPPORTED,
           "the mesh is too large for 32-bit local indices");
  PM_TRY(PM_CALLOC(p, 1, "partition plan"));
  p->mesh = m;
  p->graph = g;
  p->halo = halo;
  p->part = part;
  p->nparts = nparts;
  PM_TRY(PM_CALLOC(p->int_ptr, nparts + 1, "internal lists"));
  PM_TRY(PM_MALLOC(p->int_node, m->n_nodes, "internal lists"));
  for (int64_t i = 0; i < m->n_nodes; i++) p->int_ptr[part[i] + 1]++;
  for (int r = 0; r < nparts; r++) p->int_ptr[r + 1] += p->int_ptr[r];
  {
    int64_t *fill = NULL;
    PM_TRY(PM_MALLOC(fill, nparts, "internal lists"));
    memcpy(fill, p->int_ptr, (size_t)nparts * sizeof *fill);
    for (int64_t i = 0; i < m->n_nodes; i++) p->int_node[fill[part[i]]++] = i;
    free(fill);
  }
  PM_TRY(PM_CALLOC(p->elem_ptr, nparts + 1, "element lists"));
  int32_t ps[8];
  for (int64_t e = 0; e < m->n_elems; e++) {
    int k = elem_parts(m, part, e, ps);
    for (int a = 0; a < k; a++) p->elem_ptr[ps[a] + 1]++;
  }
  for (int r = 0; r < nparts; r++) p->elem_ptr[r + 1] += p->elem_ptr[r];
  PM_TRY(PM_MALLOC(p->elem_list, p->elem_ptr[nparts], "element lists"));
  {
    int64_t *fill = NULL;
    PM_TRY(PM_MALLOC(fill, nparts, "element lists"));
    memcpy(fill, p->elem_ptr, (size_t)nparts * sizeof *fill);
    for (int64_t e = 0; e < m->n_elems; e++) {
      int k = elem_parts(m, part, e, ps);
      for (int a = 0; a < k; a++) p->elem_list[fill[ps[a]]++] = e;
    }
    free(fill);
  }
  PM_TRY(PM_MALLOC(p->lid, m->n_nodes, "local numbering"));
  for (int64_t i = 0; i < m->n_nodes; i++) p->lid[i] = -1;
  PM_TRY(PM_MALLOC(p->elid, m->n_elems, "local element numbering"));
  for (int64_t e = 0; e < m->n_elems; e++) p->elid[e] = -1;
  PM_TRY(PM_MALLOC(p->slot, nparts, "neighbour slots"));
  for (int r = 0; r < nparts; r++) p->slot[r] = -1;
  PM_TRY(PM_CALLOC(p->gnode_bits, m->n_groups + 1, "group bitmaps"));
  PM_TRY(PM_CALLOC(p->gelem_bits, m->n_groups + 1, "group bitmaps"));
  for (int gi = 0; gi < m->n_groups; gi++) {
    const pm_group_t *G = &m->groups[gi];
    if (group_dense(G->n_nodes, m->n_nodes)) {
      PM_TRY(PM_CALLOC(p->gnode_bits[gi], m->n_nodes / 64 + 1, "group bitmaps"));
      for (int64_t k = 0; k < G->n_nodes; k++) p->gnode_bits[gi][G->nodes[k] >> 6] |= UINT64_C(1) << (G->nodes[k] & 63);
    }
    if (group_dense(G->n_elems, m->n_elems)) {
      PM_TRY(PM_CALLOC(p->gelem_bits[gi], m->n_elems / 64 + 1, "group bitmaps"));
      for (int64_t k = 0; k < G->n_elems; k++) p->gelem_bits[gi][G->elems[k] >> 6] |= UINT64_C(1) << (G->elems[k] & 63);
    }
  }
  *plan = p;
  p = NULL;
cleanup:
  pm_part_plan_destroy(&p);
  return ierr;
}

static int64_t min_node(const int64_t *nodes, int64_t k0, int64_t k1) {
  int64_t v = nodes[k0];
  for (int64_t k = k0 + 1; k < k1; k++)
    if (nodes[k] < v) v = nodes[k];
  return v;
}

/* Rank r's internal nodes numbered 0..N-1 in ascending global id (lid), and its external nodes
 * (neighbours owned elsewhere, marked -2 in lid) in *ext as owner * n_nodes + node, sorted by
 * (owner, global id); sets n_internal and n_total. */
static int external_nodes(pm_part_plan_t *p, int r, pm_local_t *l, int64_t **ext_out, int64_t *next_out) {
  const pm_mesh_t *m = p->mesh;
  const pm_graph_t *g = p->graph;
  const int32_t *part = p->part;
  int32_t *lid = p->lid;
  int32_t N = (int32_t)(p->int_ptr[r + 1] - p->int_ptr[r]);
  const int64_t *in = p->int_node + p->int_ptr[r];
  int64_t next = 0, cap = 1024, *ext = NULL;
  for (int32_t k = 0; k < N; k++) lid[in[k]] = k;
  PM_CALL(PM_MALLOC(ext, cap, "external nodes"));
  *ext_out = ext; /* the caller frees it, also after a failure */
  for (int32_t k = 0; k < N; k++) {
    int64_t i = in[k];
    for (int64_t a = g->xadj[i]; a < g->xadj[i + 1]; a++) {
      int32_t j = g->adj[a];
      if (lid[j] != -1) continue;
      lid[j] = -2;
      if (next == cap) {
        cap *= 2;
        PM_CALL(PM_REALLOC(ext, cap, "external nodes"));
        *ext_out = ext;
      }
      ext[next++] = (int64_t)part[j] * m->n_nodes + j;
    }
  }
  PM_CALL(pm_sort_i64(ext, next));
  l->n_internal = N;
  l->n_total = N + (int32_t)next;
  *next_out = next;
  return PM_OK;
}

/* The neighbours in ascending rank order (p->slot maps a rank to its place) and the import table;
 * the local numbers of the external nodes, and l2g for the internal and external ones. */
static int import_table(pm_part_plan_t *p, int r, pm_local_t *l, const int64_t *ext, int64_t next, int64_t *l2g) {
  const pm_mesh_t *m = p->mesh;
  int32_t N = l->n_internal;
  const int64_t *in = p->int_node + p->int_ptr[r];
  int nn = 0;
  for (int64_t k = 0; k < next; k++) {
    int32_t q = (int32_t)(ext[k] / m->n_nodes);
    if (p->slot[q] < 0) p->slot[q] = nn++;
  }
  l->n_neib = nn;
  PM_CALL(PM_MALLOC(l->neib, nn, "neighbours"));
  PM_CALL(PM_CALLOC(l->import_index, nn + 1, "import index"));
  PM_CALL(PM_MALLOC(l->import_item, next, "import items"));
  for (int32_t k = 0; k < N; k++) l2g[k] = in[k];
  for (int64_t k = 0; k < next; k++) {
    int32_t q = (int32_t)(ext[k] / m->n_nodes);
    int64_t j = ext[k] % m->n_nodes;
    l->neib[p->slot[q]] = q;
    l->import_index[p->slot[q] + 1]++;
    l->import_item[k] = N + (int32_t)k;
    p->lid[j] = N + (int32_t)k;
    l2g[N + k] = j;
  }
  for (int k = 0; k < nn; k++) l->import_index[k + 1] += l->import_index[k];
  return PM_OK;
}

/* Exports: internal nodes adjacent to a neighbour's nodes, ascending global id (the order in
 * which that neighbour imports them); counted in a first pass, listed in a second.  Resets
 * p->slot for the next rank. */
static int export_table(pm_part_plan_t *p, int r, pm_local_t *l) {
  const pm_mesh_t *m = p->mesh;
  const pm_graph_t *g = p->graph;
  const int32_t *part = p->part;
  int32_t N = l->n_internal;
  const int64_t *in = p->int_node + p->int_ptr[r];
  int nn = l->n_neib;
  PM_CALL(PM_CALLOC(l->export_index, nn + 1, "export index"));
  for (int pass = 0; pass < 2; pass++) {
    int32_t *fill = NULL;
    if (pass == 1) {
      for (int k = 0; k < nn; k++) l->export_index[k + 1] += l->export_index[k];
      PM_CALL(PM_MALLOC(l->export_item, l->export_index[nn], "export items"));
      PM_CALL(PM_MALLOC(fill, nn + 1, "export fill"));
      memcpy(fill, l->export_index, (size_t)nn * sizeof *fill);
    }
    for (int32_t k = 0; k < N; k++) {
      int64_t i = in[k];
      int32_t seen[64];
      int ns = 0;
      for (int64_t a = g->xadj[i]; a < g->xadj[i + 1]; a++) {
        int32_t q = part[g->adj[a]];
        if (q == r) continue;
        int dup = 0;
        for (int b = 0; b < ns && !dup; b++) dup = seen[b] == q;
        if (dup) continue;
        int s = p->slot[q];
        if (s < 0 || ns == 64) {
          free(fill);
          PM_CHECK(0, PM_ERR_INCONSISTENT, "node %lld of rank %d borders %s", (long long)m->node_gid[i], r,
                   s < 0 ? "a rank that is no neighbour (internal error)" : "more than 64 ranks");
        }
        seen[ns++] = q;
        if (pass == 0)
          l->export_index[s + 1]++;
        else
          l->export_item[fill[s]++] = k;
      }
    }
    free(fill);
  }
  for (int k = 0; k < nn; k++) p->slot[l->neib[k]] = -1;
  return PM_OK;
}

/* Elements touching internal nodes; nodes they use that are not local become auxiliary (appended
 * to *l2g, which grows by doubling *cap). */
static int local_elements(pm_part_plan_t *p, int r, pm_local_t *l, int64_t **l2g_io, int64_t *cap) {
  const pm_mesh_t *m = p->mesh;
  int32_t *lid = p->lid, NP = l->n_total;
  int64_t *l2g = *l2g_io;
  int64_t e0 = p->elem_ptr[r], e1 = p->elem_ptr[r + 1];
  int32_t ne = (int32_t)(e1 - e0), na = 0;
  int64_t nen = 0;
  for (int64_t k = e0; k < e1; k++) nen += m->elem_ptr[p->elem_list[k] + 1] - m->elem_ptr[p->elem_list[k]];
  l->n_elems = ne;
  PM_CALL(PM_MALLOC(l->elem_type, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_gid, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_index, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_owner, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_ptr, ne + 1, "elements"));
  PM_CALL(PM_MALLOC(l->elem_node, nen, "element nodes"));
  l->elem_ptr[0] = 0;
  for (int32_t k = 0; k < ne; k++) {
    int64_t e = p->elem_list[e0 + k];
    p->elid[e] = k;
    l->elem_type[k] = m->elem_type[e];
    l->elem_gid[k] = m->elem_gid[e];
    l->elem_index[k] = e;
    l->elem_owner[k] = p->part[min_node(m->elem_node, m->elem_ptr[e], m->elem_ptr[e + 1])];
    int32_t w = l->elem_ptr[k];
    for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++) {
      int64_t v = m->elem_node[j];
      if (lid[v] < 0) {
        if (NP + na == *cap) {
          *cap *= 2;
          PM_CALL(PM_REALLOC(l2g, *cap, "local to global"));
          *l2g_io = l2g;
        }
        lid[v] = NP + na;
        l2g[NP + na++] = v;
      }
      l->elem_node[w++] = lid[v];
    }
    l->elem_ptr[k + 1] = w;
  }
  l->n_aux = na;
  return PM_OK;
}

/* Global ids, global indices and coordinates of the nt = NP + n_aux local nodes. */
static int node_data(const pm_mesh_t *m, pm_local_t *l, const int64_t *l2g) {
  int32_t nt = l->n_total + l->n_aux;
  PM_CALL(PM_MALLOC(l->gid, nt, "global ids"));
  PM_CALL(PM_MALLOC(l->node_index, nt, "global node indices"));
  PM_CALL(PM_MALLOC(l->xyz, 3 * (int64_t)nt, "coordinates"));
  for (int32_t k = 0; k < nt; k++) {
    l->gid[k] = m->node_gid[l2g[k]];
    l->node_index[k] = l2g[k];
    memcpy(l->xyz + 3 * k, m->xyz + 3 * l2g[k], 3 * sizeof(double));
  }
  return PM_OK;
}

/* Group gi on rank r: its local nodes, its faces touching an internal node, its kept elements;
 * counted first, then listed.  Dense groups read the plan's bitmaps instead of their lists. */
static int local_group(pm_part_plan_t *p, int r, pm_local_t *l, int gi, const int64_t *l2g) {
  const pm_mesh_t *m = p->mesh;
  const int32_t *part = p->part, *lid = p->lid;
  const pm_group_t *G = &m->groups[gi];
  pm_local_group_t *L = &l->groups[gi];
  int32_t nt = l->n_total + l->n_aux, ne = l->n_elems;
  int64_t e0 = p->elem_ptr[r];
  PM_CALL(pm_strdup(G->name, &L->name));
  L->dim = G->dim;
  const uint64_t *nbits = p->gnode_bits[gi], *ebits = p->gelem_bits[gi];
  int32_t cn = 0, cf = 0, cfn = 0, ce = 0;
  if (nbits)
    for (int32_t k = 0; k < nt; k++) cn += bit_get(nbits, l2g[k]);
  else
    for (int64_t k = 0; k < G->n_nodes; k++) cn += lid[G->nodes[k]] >= 0;
  for (int64_t k = 0; k < G->n_faces; k++) {
    int64_t f = G->faces[k], touch = 0;
    for (int64_t j = m->face_ptr[f]; j < m->face_ptr[f + 1]; j++) touch |= part[m->face_node[j]] == r;
    if (touch) {
      cf++;
      cfn += (int32_t)(m->face_ptr[f + 1] - m->face_ptr[f]);
    }
  }
  if (ebits)
    for (int32_t k = 0; k < ne; k++) ce += bit_get(ebits, p->elem_list[e0 + k]);
  else
    for (int64_t k = 0; k < G->n_elems; k++) ce += p->elid[G->elems[k]] >= 0;
  PM_CALL(PM_MALLOC(L->nodes, cn, "group nodes"));
  PM_CALL(PM_MALLOC(L->face_type, cf, "group faces"));
  PM_CALL(PM_MALLOC(L->face_gid, cf, "group faces"));
  PM_CALL(PM_MALLOC(L->face_ptr, cf + 1, "group faces"));
  PM_CALL(PM_MALLOC(L->face_node, cfn, "group faces"));
  PM_CALL(PM_MALLOC(L->elems, ce, "group elements"));
  if (nbits) { /* local numbers in ascending order already */
    for (int32_t k = 0; k < nt; k++)
      if (bit_get(nbits, l2g[k])) L->nodes[L->n_nodes++] = k;
  } else {
    for (int64_t k = 0; k < G->n_nodes; k++)
      if (lid[G->nodes[k]] >= 0) L->nodes[L->n_nodes++] = lid[G->nodes[k]];
    /* Local numbers of a group's nodes are not monotone in global id (externals): sort them. */
    qsort(L->nodes, (size_t)L->n_nodes, sizeof *L->nodes, cmp_i32);
  }
  L->face_ptr[0] = 0;
  for (int64_t k = 0; k < G->n_faces; k++) {
    int64_t f = G->faces[k], touch = 0;
    for (int64_t j = m->face_ptr[f]; j < m->face_ptr[f + 1]; j++) touch |= part[m->face_node[j]] == r;
    if (!touch) continue;
    int32_t c = L->n_faces++, w = L->face_ptr[c];
    L->face_type[c] = m->face_type[f];
    L->face_gid[c] = m->face_gid[f];
    for (int64_t j = m->face_ptr[f]; j < m->face_ptr[f + 1]; j++) {
      int32_t v = lid[m->face_node[j]];
      PM_CHECK(v >= 0, PM_ERR_INCONSISTENT, "internal error: face %lld of group '%s' is not local on rank %d",
               (long long)m->face_gid[f], G->name, r);
      L->face_node[w++] = v;
    }
    L->face_ptr[c + 1] = w;
  }
  if (ebits) { /* local elements follow the ascending global index, as G->elems does */
    for (int32_t k = 0; k < ne; k++)
      if (bit_get(ebits, p->elem_list[e0 + k])) L->elems[L->n_elems++] = k;
  } else {
    for (int64_t k = 0; k < G->n_elems; k++)
      if (p->elid[G->elems[k]] >= 0) L->elems[L->n_elems++] = p->elid[G->elems[k]];
  }
  return PM_OK;
}

/* Rank r's local mesh from the plan: nodes (internal, external, auxiliary), halo tables,
 * elements and groups; *l2g_out gets the global index of every local node. */
static int build_local(pm_part_plan_t *p, int r, pm_local_t *l, int64_t **l2g_out) {
  const pm_mesh_t *m = p->mesh;
  int64_t *ext = NULL, *l2g = NULL, next = 0;
  int ierr = PM_OK;
  PM_TRY(external_nodes(p, r, l, &ext, &next));
  int64_t cap = l->n_total + 16;
  PM_TRY(PM_MALLOC(l2g, cap, "local to global"));
  PM_TRY(import_table(p, r, l, ext, next, l2g));
  PM_TRY(export_table(p, r, l));
  PM_TRY(local_elements(p, r, l, &l2g, &cap));
  PM_TRY(node_data(m, l, l2g));
  PM_TRY(PM_CALLOC(l->groups, m->n_groups, "groups"));
  l->n_groups = m->n_groups;
  for (int gi = 0; gi < m->n_groups; gi++) PM_TRY(local_group(p, r, l, gi, l2g));
  *l2g_out = l2g;
  l2g = NULL;
cleanup:
  free(ext);
  free(l2g);
  return ierr;
}

int pm_part_local(pm_part_plan_t *p, int rank, uint64_t fingerprint, pm_local_t **local) {
  pm_local_t *l = NULL;
  int64_t *l2g = NULL;
  PM_CHECK(rank >= 0 && rank < p->nparts, PM_ERR_ARG, "rank %d is not in 0..%d", rank, p->nparts - 1);
  PM_CALL(pm_local_create(&l));
  l->rank = rank;
  l->nparts = p->nparts;
  l->has_mesh = 1;
  l->fingerprint = fingerprint;
  int ierr = build_local(p, rank, l, &l2g);
  /* Reset the shared scratch maps, also after a failure. */
  int32_t nt = l->n_total + l->n_aux;
  if (l2g) {
    for (int32_t k = 0; k < nt; k++) p->lid[l2g[k]] = -1;
  } else {
    for (int64_t i = 0; i < p->mesh->n_nodes; i++) p->lid[i] = -1;
  }
  for (int64_t k = p->elem_ptr[rank]; k < p->elem_ptr[rank + 1]; k++) p->elid[p->elem_list[k]] = -1;
  for (int q = 0; q < p->nparts; q++) p->slot[q] = -1;
  free(l2g);
  if (ierr) {
    pm_error_trace(__FILE__, __LINE__);
    pm_local_destroy(&l);
    return ierr;
  }
  *local = l;
  return PM_OK;
}

uint64_t pm_part_fingerprint(const pm_mesh_t *mesh, const int32_t *part, int nparts, uint64_t source_checksum,
                             const char *method, const char *halo, const char *order) {
  uint64_t fp = pm_fnv1a(PM_FNV_OFFSET, &source_checksum, sizeof source_checksum);
  fp = pm_fnv1a(fp, method, strlen(method));
  fp = pm_fnv1a(fp, halo, strlen(halo));
  if (order && strcmp(order, "none") != 0) fp = pm_fnv1a(fp, order, strlen(order));
  fp = pm_fnv1a(fp, &nparts, sizeof nparts);
  fp = pm_fnv1a(fp, mesh->node_gid, (size_t)mesh->n_nodes * sizeof *mesh->node_gid);
  return pm_fnv1a(fp, part, (size_t)mesh->n_nodes * sizeof *part);
}
