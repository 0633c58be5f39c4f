/* pm_mesh_boundary.c - the global mesh's derived faces: the derived group "boundary" (the facets
 * of exactly one cell, outward, from the cell table), and the checks that cells meet on whole
 * faces, at most two to a face, from opposite sides (3D). */
#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pm_mesh_int.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"

/* The facets of every cell type, read once from the table: for Gmsh code t, tab[t].n_facets
 * facets (0 if t is no cell), each with its vertex count, Gmsh code and cell-local vertices in
 * outward order. */
typedef struct facet_tab {
  int n_facets;
  int nv[PM_CELL_MAX_FACETS];
  int8_t gmsh[PM_CELL_MAX_FACETS];
  int8_t vert[PM_CELL_MAX_FACETS][PM_CELL_MAX_FACET_VERTS];
} facet_tab_t;

static void facet_tabs(facet_tab_t tab[256]) {
  memset(tab, 0, 256 * sizeof *tab);
  for (int t = 0; t < 128; t++) {
    const pm_cell_t *c = pm_cell_gmsh(t);
    if (!c) continue;
    tab[t].n_facets = c->n_facets;
    for (int f = 0; f < c->n_facets; f++) {
      const pm_cell_t *fc = pm_cell_get(c->facet_type[f]);
      tab[t].nv[f] = fc->n_verts;
      tab[t].gmsh[f] = (int8_t)fc->gmsh_type;
      memcpy(tab[t].vert[f], c->facet[f], sizeof c->facet[f]);
    }
  }
}

/* The facet f of cell e: its mesh nodes in the facet's outward order; returns the count. */
static inline int cell_facet(const pm_mesh_t *m, const facet_tab_t *tab, int64_t e, int f,
                             int64_t v[PM_CELL_MAX_FACET_VERTS]) {
  const facet_tab_t *t = &tab[(uint8_t)m->elem_type[e]];
  const int64_t *en = m->elem_node + m->elem_ptr[e];
  for (int a = 0; a < t->nv[f]; a++) v[a] = en[t->vert[f][a]];
  return t->nv[f];
}

static inline int64_t min_node(const int64_t *v, int n) {
  int64_t lo = v[0];
  for (int a = 1; a < n; a++) lo = v[a] < lo ? v[a] : lo;
  return lo;
}

/* A facet in its bucket (the bucket is its smallest node): its cell and facet (8 e + f) and its
 * other vertices ascending, the third of a quadrangle left in the cell (QUAD is set in k2 for
 * them), NONE for missing ones.  Kept with the facet so that comparing facets reads no cell. */
typedef struct facet_item {
  uint32_t it, k1, k2;
} facet_item_t;

#define NONE UINT32_C(0xffffffff)
#define QUAD UINT32_C(0x80000000)

static void item_of(const int64_t *v, int nv, int64_t it, facet_item_t *x) {
  int lo = 0;
  for (int a = 1; a < nv; a++) lo = v[a] < v[lo] ? a : lo;
  int64_t o[PM_CELL_MAX_FACET_VERTS - 1];
  int k = 0;
  for (int a = 0; a < nv; a++)
    if (a != lo) o[k++] = v[a];
  for (int a = 1; a < k; a++)
    for (int b = a; b > 0 && o[b] < o[b - 1]; b--) {
      int64_t t = o[b];
      o[b] = o[b - 1];
      o[b - 1] = t;
    }
  x->it = (uint32_t)it;
  x->k1 = k > 0 ? (uint32_t)o[0] : NONE;
  x->k2 = k > 1 ? (uint32_t)o[1] | (k > 2 ? QUAD : 0u) : NONE;
}

/* Every facet of every cell, bucketed by its smallest node: start[i]..start[i+1] are the facets
 * whose smallest node is i, in cell order. */
static int facet_buckets(const pm_mesh_t *m, const facet_tab_t *tab, int64_t **start_out, facet_item_t **item_out) {
  int ierr = PM_OK;
  int64_t n = m->n_nodes, *start = NULL, v[PM_CELL_MAX_FACET_VERTS];
  facet_item_t *item = NULL;
  PM_TRY(PM_CALLOC(start, n + 2, "facet buckets"));
  for (int64_t e = 0; e < m->n_elems; e++)
    for (int f = 0; f < tab[(uint8_t)m->elem_type[e]].n_facets; f++) start[min_node(v, cell_facet(m, tab, e, f, v)) + 2]++;
  for (int64_t i = 0; i < n; i++) start[i + 2] += start[i + 1];
  PM_TRY(PM_MALLOC(item, start[n + 1] + 1, "facet buckets"));
  for (int64_t e = 0; e < m->n_elems; e++)
    for (int f = 0; f < tab[(uint8_t)m->elem_type[e]].n_facets; f++) {
      int nv = cell_facet(m, tab, e, f, v);
      item_of(v, nv, 8 * e + f, &item[start[min_node(v, nv) + 1]++]);
    }
  *start_out = start;
  *item_out = item;
  start = NULL;
  item = NULL;
cleanup:
  free(start);
  free(item);
  return ierr;
}

/* A facet within its bucket: its other vertices ascending (padded with -1; equal keys are the
 * same facet, since the bucket fixes the smallest one) and its position in the bucket. */
typedef struct facet_ref {
  int64_t key[PM_CELL_MAX_FACET_VERTS - 1];
  int64_t p;
} facet_ref_t;

static inline int cmp_ref(const facet_ref_t *x, const facet_ref_t *y) {
  for (int i = 0; i < PM_CELL_MAX_FACET_VERTS - 1; i++)
    if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
  return 0;
}

/* Sort refs by key, stably (they come in position order): insertion sort of runs of 16, then
 * bottom-up merges through tmp. */
static void sort_refs(facet_ref_t *sk, facet_ref_t *tmp, int64_t n) {
  enum { RUN = 16 };
  for (int64_t r = 0; r < n; r += RUN) {
    int64_t end = r + RUN < n ? r + RUN : n;
    for (int64_t a = r + 1; a < end; a++) {
      facet_ref_t x = sk[a];
      int64_t b = a;
      for (; b > r && cmp_ref(&x, &sk[b - 1]) < 0; b--) sk[b] = sk[b - 1];
      sk[b] = x;
    }
  }
  facet_ref_t *src = sk, *dst = tmp;
  for (int64_t w = RUN; w < n; w *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * w) {
      int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = cmp_ref(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    facet_ref_t *t = src;
    src = dst;
    dst = t;
  }
  if (src != sk) memcpy(sk, src, (size_t)n * sizeof *sk);
}

static void ref_of(const pm_mesh_t *m, const facet_tab_t *tab, const facet_item_t *x, int64_t p, facet_ref_t *r) {
  r->key[0] = x->k1 == NONE ? -1 : (int64_t)x->k1;
  r->key[1] = x->k2 == NONE ? -1 : (int64_t)(x->k2 & ~QUAD);
  r->key[2] = -1;
  if (x->k2 != NONE && (x->k2 & QUAD)) { /* a quadrangle: its largest vertex, from the cell */
    int64_t v[PM_CELL_MAX_FACET_VERTS], hi = -1;
    int nv = cell_facet(m, tab, x->it / 8, (int)(x->it % 8), v);
    for (int a = 0; a < nv; a++) hi = v[a] > hi ? v[a] : hi;
    r->key[2] = hi;
  }
  r->p = p;
}

/* How many cells share each facet of one bucket (nbk facets from item[b0]): times[p]; and the
 * first facet (by position) of a facet of three or more cells in *bad with the position of
 * another of its cells in *bad_other (-1 if none).  sk has room for 2 nbk refs. */
static void facet_counts(const pm_mesh_t *m, const facet_tab_t *tab, const facet_item_t *item, int64_t b0, int64_t nbk,
                         facet_ref_t *sk, int64_t *times, int64_t *bad, int64_t *bad_other) {
  for (int64_t p = 0; p < nbk; p++) ref_of(m, tab, &item[b0 + p], p, &sk[p]);
  sort_refs(sk, sk + nbk, nbk);
  *bad = *bad_other = -1;
  for (int64_t r0 = 0, r1; r0 < nbk; r0 = r1) {
    for (r1 = r0 + 1; r1 < nbk && !memcmp(sk[r1].key, sk[r0].key, sizeof sk[r0].key);) r1++;
    for (int64_t j = r0; j < r1; j++) times[sk[j].p] = r1 - r0;
    if (r1 - r0 > 2 && (*bad < 0 || sk[r0].p < *bad)) {
      *bad = sk[r0].p;
      *bad_other = sk[r0 + 1].p;
    }
  }
}

/* The vertex after the smallest one in facet it's outward order. */
static int64_t after_smallest(const pm_mesh_t *m, const facet_tab_t *tab, uint32_t it, int before) {
  int64_t v[PM_CELL_MAX_FACET_VERTS];
  int nv = cell_facet(m, tab, it / 8, (int)(it % 8), v), lo = 0;
  for (int a = 1; a < nv; a++) lo = v[a] < v[lo] ? a : lo;
  return v[(lo + (before ? nv - 1 : 1)) % nv];
}

/* In 3D, where every cell is positively oriented, the two cells of an inner face see it in
 * opposite orders (each outward from itself); in the same order, they lie on one side of it and
 * overlap: a tangled mesh, whose cells have positive volumes and match face to face.  The
 * positions of the first such face's two cells in one bucket in *one and *two, or -1.  sk holds
 * the bucket's sorted refs (facet_counts). */
static void same_side(const pm_mesh_t *m, const facet_tab_t *tab, const facet_item_t *item, int64_t b0,
                      const facet_ref_t *sk, int64_t nbk, const int64_t *times, int64_t *one, int64_t *two) {
  *one = *two = -1;
  for (int64_t r = 0; r + 1 < nbk; r++) {
    if (times[sk[r].p] != 2 || memcmp(sk[r].key, sk[r + 1].key, sizeof sk[r].key)) continue;
    uint32_t a = item[b0 + sk[r].p].it, b = item[b0 + sk[r + 1].p].it;
    if (after_smallest(m, tab, a, 0) != after_smallest(m, tab, b, 1)) {
      *one = sk[r].p;
      *two = sk[r + 1].p;
      return;
    }
    r++;
  }
}

/* A boundary quadrangle of one bucket that boundary triangles of the same bucket split (a
 * hexahedron or prism against tetrahedra, without the pyramids that would join them): the
 * positions of the quadrangle and of one triangle in *quad and *tri, or -1.  A split always
 * leaves a triangle with the quadrangle's smallest node, so the bucket holds it.  sk holds the
 * bucket's sorted refs (facet_counts). */
static void split_quad(const facet_ref_t *sk, int64_t nbk, const int64_t *times, int64_t *quad, int64_t *tri) {
  *quad = *tri = -1;
  for (int64_t q = 0; q < nbk; q++) {
    const int64_t *kq = sk[q].key;
    if (kq[2] < 0 || times[sk[q].p] != 1) continue;
    for (int64_t t = 0; t < nbk; t++) {
      const int64_t *kt = sk[t].key;
      if (kt[1] < 0 || kt[2] >= 0 || times[sk[t].p] != 1) continue;
      int in = 0;
      for (int a = 0; a < 2; a++) in += kt[a] == kq[0] || kt[a] == kq[1] || kt[a] == kq[2];
      if (in == 2) {
        *quad = sk[q].p;
        *tri = sk[t].p;
        return;
      }
    }
  }
}

/* Derive the "boundary" faces: the facets of exactly one cell (edges of 2D cells, faces of 3D
 * cells, end points of lines), outward as the cell sees them, in the order of their smallest
 * node and then of their cells.  A facet of three or more cells (in 2D and 3D) and a quadrangle
 * split by triangles are not meshes pmesh can solve on and are refused.  With keep, appends the
 * faces to the face arrays (gid 0) and returns their index range in *first, *count; without,
 * only checks. */
static int derive_boundary(pm_mesh_t *m, int keep, int64_t *first, int64_t *count) {
  int ierr = PM_OK;
  int64_t *start = NULL, *bf = NULL, *times = NULL;
  facet_item_t *item = NULL;
  facet_ref_t *sk = NULL;
  facet_tab_t *tab = NULL;
  int64_t nb = 0, cap = 16, nbn = 0, maxb = 1;
  PM_TRY_CHECK(m->n_nodes < INT32_MAX && m->n_elems < (INT64_C(1) << 29), PM_ERR_UNSUPPORTED,
               "%lld nodes and %lld cells: the boundary derivation takes fewer than 2^31 nodes and 2^29 cells",
               (long long)m->n_nodes, (long long)m->n_elems);
  PM_TRY(PM_MALLOC(tab, 256, "facet table"));
  facet_tabs(tab);
  PM_TRY(facet_buckets(m, tab, &start, &item));
  for (int64_t i = 0; i < m->n_nodes; i++)
    if (start[i + 1] - start[i] > maxb) maxb = start[i + 1] - start[i];
  PM_TRY(PM_MALLOC(sk, 2 * maxb, "facet keys"));
  PM_TRY(PM_MALLOC(times, maxb, "facet counts"));
  PM_TRY(PM_MALLOC(bf, cap, "boundary faces"));
  for (int64_t i = 0; i < m->n_nodes; i++) {
    int64_t b0 = start[i], nbk = start[i + 1] - b0, bad, other;
    facet_counts(m, tab, item, b0, nbk, sk, times, &bad, &other);
    PM_TRY_CHECK(bad < 0 || m->dim < 2, PM_ERR_FORMAT,
                 "elements %lld and %lld (and %lld more) share a%s: a %s may belong to at most two cells",
                 (long long)m->elem_gid[item[b0 + bad].it / 8], (long long)m->elem_gid[item[b0 + other].it / 8],
                 (long long)(bad < 0 ? 0 : times[bad] - 2), m->dim == 3 ? " face" : "n edge",
                 m->dim == 3 ? "face" : "edge");
    int64_t quad, tri;
    split_quad(sk, nbk, times, &quad, &tri);
    PM_TRY_CHECK(quad < 0, PM_ERR_FORMAT,
                 "element %lld's quadrangle face is split into triangles by element %lld: a non-conforming "
                 "interface (cells must meet on whole faces; a hexahedron or prism meets tetrahedra on a "
                 "quadrangle only through a pyramid, as Gmsh makes them where a recombined surface bounds "
                 "tetrahedra)",
                 (long long)m->elem_gid[item[b0 + (quad < 0 ? 0 : quad)].it / 8],
                 (long long)m->elem_gid[item[b0 + (tri < 0 ? 0 : tri)].it / 8]);
    int64_t one = -1, two = -1;
    if (m->dim == 3) same_side(m, tab, item, b0, sk, nbk, times, &one, &two);
    PM_TRY_CHECK(one < 0, PM_ERR_FORMAT,
                 "elements %lld and %lld lie on the same side of the face they share: they overlap (a tangled "
                 "mesh, though every cell has a positive volume; the solution on it would be wrong): re-mesh, "
                 "e.g. with another 3D algorithm or a finer size",
                 (long long)m->elem_gid[item[b0 + (one < 0 ? 0 : one)].it / 8],
                 (long long)m->elem_gid[item[b0 + (two < 0 ? 0 : two)].it / 8]);
    for (int64_t p = 0; p < nbk && keep; p++) {
      if (times[p] != 1) continue;
      if (nb == cap) {
        cap *= 2;
        PM_TRY(PM_REALLOC(bf, cap, "boundary faces"));
      }
      int64_t it = item[b0 + p].it;
      bf[nb++] = it;
      nbn += tab[(uint8_t)m->elem_type[it / 8]].nv[it % 8];
    }
  }
  free(item);
  item = NULL;
  *first = m->n_faces;
  *count = 0;
  if (!keep) goto cleanup;
  int64_t nf = m->n_faces;
  PM_TRY(PM_REALLOC(m->face_type, nf + nb, "faces"));
  PM_TRY(PM_REALLOC(m->face_gid, nf + nb, "faces"));
  PM_TRY(PM_REALLOC(m->face_ptr, nf + nb + 1, "faces"));
  PM_TRY(PM_REALLOC(m->face_node, m->face_ptr[nf] + nbn, "faces"));
  for (int64_t f = 0; f < nb; f++) {
    int64_t v[PM_CELL_MAX_FACET_VERTS], k0 = m->face_ptr[nf + f];
    int nv = cell_facet(m, tab, bf[f] / 8, (int)(bf[f] % 8), v);
    m->face_type[nf + f] = tab[(uint8_t)m->elem_type[bf[f] / 8]].gmsh[bf[f] % 8];
    m->face_gid[nf + f] = 0;
    for (int a = 0; a < nv; a++) m->face_node[k0 + a] = v[a];
    m->face_ptr[nf + f + 1] = k0 + nv;
  }
  *first = nf;
  *count = nb;
  m->n_faces = nf + nb;
cleanup:
  free(tab);
  free(start);
  free(item);
  free(sk);
  free(times);
  free(bf);
  return ierr;
}

/* The derived group "boundary", unless the file names a group so. */
int pm_mesh_add_boundary(pm_mesh_t *m) {
  int have_boundary = 0;
  for (int g = 0; g < m->n_groups; g++) have_boundary |= strcmp(m->groups[g].name, "boundary") == 0;
  int64_t f0 = 0, nb = 0;
  PM_CALL(derive_boundary(m, !have_boundary, &f0, &nb)); /* its checks run either way */
  if (have_boundary) return PM_OK;
  pm_group_t *grp = &m->groups[m->n_groups];
  m->n_groups++;
  grp->dim = m->dim - 1;
  PM_CALL(pm_strdup("boundary", &grp->name));
  PM_CALL(PM_MALLOC(grp->faces, nb, "boundary faces"));
  PM_CALL(PM_MALLOC(grp->nodes, m->face_ptr[f0 + nb] - m->face_ptr[f0] + 1, "boundary nodes"));
  PM_CALL(PM_MALLOC(grp->elems, 1, "boundary elements"));
  for (int64_t f = 0; f < nb; f++) {
    grp->faces[f] = f0 + f;
    for (int64_t k = m->face_ptr[f0 + f]; k < m->face_ptr[f0 + f + 1]; k++)
      grp->nodes[grp->n_nodes++] = m->face_node[k];
  }
  grp->n_faces = nb;
  PM_CALL(pm_sort_i64(grp->nodes, grp->n_nodes));
  grp->n_nodes = pm_unique_i64(grp->nodes, grp->n_nodes);
  return PM_OK;
}
