/* pm_order.c - renumbering a global mesh along the Hilbert curve (see pm_order.h). */
#include "pmesh/pm_order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pmesh/pm_alloc.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"

int pm_order_parse(const char *name, pm_order_t *order) {
  if (strcmp(name, "none") == 0)
    *order = PM_ORDER_NONE;
  else if (strcmp(name, "hilbert") == 0)
    *order = PM_ORDER_HILBERT;
  else
    return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "unknown order '%s' (expected none or hilbert)", name);
  return PM_OK;
}

const char *pm_order_name(pm_order_t order) {
  return order == PM_ORDER_HILBERT ? "hilbert" : "none";
}

/* Cells per axis: 2^21 keeps a 64M-node mesh's neighbours in distinct cells, and the index in
 * 42 bits. */
enum { BITS = 21 };

/* Distance along the Hilbert curve of cell (x, y) of the 2^BITS x 2^BITS grid: at each scale the
 * quadrant adds its rank times the quadrant's area, and the coordinates are reflected/swapped
 * into the orientation the curve has inside that quadrant. */
static uint64_t hilbert(uint32_t x, uint32_t y) {
  const uint32_t n = 1u << BITS;
  uint64_t d = 0;
  for (uint32_t s = n >> 1; s > 0; s >>= 1) {
    uint32_t rx = (x & s) != 0, ry = (y & s) != 0;
    d += (uint64_t)s * s * ((3u * rx) ^ ry);
    if (!ry) {
      if (rx) {
        x = n - 1 - x;
        y = n - 1 - y;
      }
      uint32_t t = x;
      x = y;
      y = t;
    }
  }
  return d;
}

/* The 21 low bits of x spread out to every third bit (bit b to bit 3 b). */
static uint64_t spread3(uint32_t x) {
  uint64_t v = x & ((1u << BITS) - 1);
  v = (v | v << 32) & UINT64_C(0x1f00000000ffff);
  v = (v | v << 16) & UINT64_C(0x1f0000ff0000ff);
  v = (v | v << 8) & UINT64_C(0x100f00f00f00f00f);
  v = (v | v << 4) & UINT64_C(0x10c30c30c30c30c3);
  v = (v | v << 2) & UINT64_C(0x1249249249249249);
  return v;
}

/* Distance along the 3D Hilbert curve of cell x[0..2] of the (2^BITS)^3 grid (3 * 21 = 63 bits),
 * by Skilling's method ("Programming the Hilbert curve", AIP Conf. Proc. 707, 2004): undo the
 * rotations and reflections scale by scale from the coarsest, Gray-code the result, and read the
 * distance off the coordinates' bits interleaved from the most significant. */
static uint64_t hilbert3(uint32_t x[3]) {
  const uint32_t top = 1u << (BITS - 1);
  for (uint32_t q = top; q > 1; q >>= 1) {
    uint32_t p = q - 1;
    for (int i = 0; i < 3; i++) {
      if (x[i] & q) {
        x[0] ^= p; /* reflect */
      } else {     /* exchange the low bits of x[0] and x[i] */
        uint32_t t = (x[0] ^ x[i]) & p;
        x[0] ^= t;
        x[i] ^= t;
      }
    }
  }
  x[1] ^= x[0];
  x[2] ^= x[1];
  uint32_t t = 0;
  for (uint32_t q = top; q > 1; q >>= 1)
    if (x[2] & q) t ^= q - 1;
  for (int i = 0; i < 3; i++) x[i] ^= t;
  /* Interleave from the most significant bit: x[0]'s bit b is the distance's bit 3 b + 2. */
  return spread3(x[0]) << 2 | spread3(x[1]) << 1 | spread3(x[2]);
}

typedef struct box {
  double lo[3], scale[3];
  int dim;  /* 3: the 3D curve over x, y, z; 2: the 2D curve over x, y */
  int axis; /* -1: a curve; 0/1: the only axis with extent (a line) */
} box_t;

static box_t bounding_box(const pm_mesh_t *m) {
  box_t b = {{0, 0, 0}, {0, 0, 0}, m->dim == 3 ? 3 : 2, -1};
  double hi[3] = {0, 0, 0};
  for (int c = 0; c < b.dim; c++) {
    b.lo[c] = m->n_nodes ? m->xyz[c] : 0;
    hi[c] = b.lo[c];
  }
  for (int64_t i = 0; i < m->n_nodes; i++)
    for (int c = 0; c < b.dim; c++) {
      double v = m->xyz[3 * i + c];
      if (v < b.lo[c]) b.lo[c] = v;
      if (v > hi[c]) hi[c] = v;
    }
  const double cells = (double)((1u << BITS) - 1);
  for (int c = 0; c < b.dim; c++) b.scale[c] = hi[c] > b.lo[c] ? cells / (hi[c] - b.lo[c]) : 0.0;
  /* Points on one axis-parallel line: the coordinate itself, so a bar is numbered end to end. */
  if (b.dim == 2 && b.scale[1] == 0.0) b.axis = 0;
  if (b.dim == 2 && b.scale[0] == 0.0) b.axis = 1;
  return b;
}

static uint64_t key_of(const box_t *b, const double v[3]) {
  uint32_t q[3] = {0, 0, 0};
  for (int c = 0; c < b->dim; c++) {
    double t = floor((v[c] - b->lo[c]) * b->scale[c]);
    q[c] = t <= 0 ? 0u : t >= (double)((1u << BITS) - 1) ? (1u << BITS) - 1 : (uint32_t)t;
  }
  if (b->dim == 3) return hilbert3(q);
  return b->axis < 0 ? hilbert(q[0], q[1]) : q[b->axis];
}

static int cmp_i64(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/* Renumber a sorted index list of a set of n items through inv and sort it again.  A list of
 * every item stays 0..n-1. */
static void remap_sorted(int64_t *list, int64_t len, int64_t n, const int64_t *inv) {
  if (len == n) return;
  for (int64_t k = 0; k < len; k++) list[k] = inv[list[k]];
  qsort(list, (size_t)len, sizeof *list, cmp_i64);
}

/* Order of the items along the curve by their keys, ties by the old position (a stable sort of
 * the identity), so the order is a function of the mesh alone: perm[k] = the k-th item. */
static int curve_order(int64_t *key, int64_t n, int64_t *perm) {
  for (int64_t i = 0; i < n; i++) perm[i] = i;
  return pm_sort_pairs_i64(key, perm, n);
}

/* The element connectivity in the new element order (new[k] = old[eperm[k]]) when every element
 * has nv nodes: in place, cycle by cycle, marking the placed positions in eperm (-1 - source). */
static void permute_uniform(int64_t *enode, int nv, int64_t ne, int64_t *eperm) {
  int64_t tmp[PM_CELL_MAX_VERTS];
  for (int64_t i = 0; i < ne; i++) {
    if (eperm[i] < 0) continue;
    memcpy(tmp, enode + (size_t)nv * i, (size_t)nv * sizeof *tmp);
    for (int64_t j = i;;) {
      int64_t src = eperm[j];
      eperm[j] = -1 - src;
      if (src == i) {
        memcpy(enode + (size_t)nv * j, tmp, (size_t)nv * sizeof *tmp);
        break;
      }
      memcpy(enode + (size_t)nv * j, enode + (size_t)nv * src, (size_t)nv * sizeof *tmp);
      j = src;
    }
  }
}

/* The nodes along the curve: perm (k-th node) and inv (new index of a node). */
static int node_order(const pm_mesh_t *m, const box_t *b, int64_t *key, int64_t *perm, int64_t *inv) {
  for (int64_t i = 0; i < m->n_nodes; i++) key[i] = (int64_t)key_of(b, m->xyz + 3 * i);
  PM_CALL(curve_order(key, m->n_nodes, perm));
  for (int64_t k = 0; k < m->n_nodes; k++) inv[perm[k]] = k;
  return PM_OK;
}

/* The elements along the curve through their centroids: eperm (k-th element). */
static int elem_order(const pm_mesh_t *m, const box_t *b, int64_t *key, int64_t *eperm) {
  for (int64_t e = 0; e < m->n_elems; e++) {
    double c[3] = {0, 0, 0};
    int64_t nv = m->elem_ptr[e + 1] - m->elem_ptr[e];
    for (int64_t q = m->elem_ptr[e]; q < m->elem_ptr[e + 1]; q++)
      for (int d = 0; d < 3; d++) c[d] += m->xyz[3 * m->elem_node[q] + d] / (double)nv;
    key[e] = (int64_t)key_of(b, c);
  }
  return curve_order(key, m->n_elems, eperm);
}

/* Renumbered one array at a time (the whole mesh is never held twice): the element
 * connectivity of a mesh of one cell type is permuted in place. */
int pm_mesh_reorder(pm_mesh_t *m, pm_order_t order, int64_t **node_perm) {
  int ierr = PM_OK;
  int64_t *key = NULL, *inv = NULL, *perm = NULL, *eperm = NULL, *einv = NULL, *eptr = NULL, *enode = NULL;
  double *xyz = NULL;
  int8_t *etype = NULL;
  if (node_perm) *node_perm = NULL;
  if (order == PM_ORDER_NONE) return PM_OK;
  int64_t n = m->n_nodes, ne = m->n_elems, nen = m->elem_ptr[ne];
  int nv = ne ? (int)(m->elem_ptr[1] - m->elem_ptr[0]) : 0;
  int uniform = nv <= PM_CELL_MAX_VERTS && nen == (int64_t)nv * ne;
  for (int64_t e = 0; uniform && e < ne; e++) uniform = m->elem_ptr[e + 1] - m->elem_ptr[e] == nv;

  box_t b = bounding_box(m);
  PM_TRY(PM_MALLOC(key, (n > ne ? n : ne) + 1, "curve keys"));
  PM_TRY(PM_MALLOC(perm, n + 1, "node renumbering"));
  PM_TRY(PM_MALLOC(inv, n + 1, "node renumbering"));
  PM_TRY(node_order(m, &b, key, perm, inv));
  PM_TRY(PM_MALLOC(eperm, ne + 1, "element order"));
  PM_TRY(elem_order(m, &b, key, eperm));
  free(key);
  key = NULL;
  PM_TRY(PM_MALLOC(xyz, 3 * n + 1, "renumbered coordinates"));
  for (int64_t k = 0; k < n; k++) memcpy(xyz + 3 * k, m->xyz + 3 * perm[k], 3 * sizeof *xyz);
  PM_TRY(PM_MALLOC(einv, ne + 1, "element renumbering"));
  for (int64_t k = 0; k < ne; k++) einv[eperm[k]] = k;
  PM_TRY(PM_MALLOC(etype, ne + 1, "renumbered elements"));
  for (int64_t k = 0; k < ne; k++) etype[k] = m->elem_type[eperm[k]];
  if (!uniform) {
    PM_TRY(PM_MALLOC(eptr, ne + 1, "renumbered elements"));
    PM_TRY(PM_MALLOC(enode, nen + 1, "renumbered elements"));
    eptr[0] = 0;
    for (int64_t k = 0; k < ne; k++) {
      int64_t e = eperm[k], w = eptr[k];
      for (int64_t q = m->elem_ptr[e]; q < m->elem_ptr[e + 1]; q++) enode[w++] = m->elem_node[q];
      eptr[k + 1] = w;
    }
  }
  /* Element ids: the k-th element along the curve takes the k-th smallest tag (the last step
   * that can fail; it leaves the ids as they were if it does). */
  PM_TRY(pm_sort_i64(m->elem_gid, ne));

  /* Nothing below can fail: swap the arrays in. */
#define SWAP_IN(field, fresh) \
  do {                        \
    free(m->field);           \
    m->field = fresh;         \
    fresh = NULL;             \
  } while (0)
  SWAP_IN(xyz, xyz);
  SWAP_IN(elem_type, etype);
  if (!uniform) {
    SWAP_IN(elem_ptr, eptr);
    SWAP_IN(elem_node, enode);
  } else {
    permute_uniform(m->elem_node, nv, ne, eperm);
  }
#undef SWAP_IN
  for (int64_t q = 0; q < nen; q++) m->elem_node[q] = inv[m->elem_node[q]];
  for (int64_t q = 0; q < m->face_ptr[m->n_faces]; q++) m->face_node[q] = inv[m->face_node[q]];
  for (int g = 0; g < m->n_groups; g++) {
    pm_group_t *gr = &m->groups[g];
    remap_sorted(gr->nodes, gr->n_nodes, n, inv);
    remap_sorted(gr->elems, gr->n_elems, ne, einv);
  }
  if (node_perm) {
    *node_perm = perm;
    perm = NULL;
  }
cleanup:
  free(key);
  free(inv);
  free(perm);
  free(eperm);
  free(einv);
  free(xyz);
  free(etype);
  free(eptr);
  free(enode);
  return ierr;
}
