/* pm_csr.c - the lecture's local matrix layout: structure from the mesh, overlapped SpMV. */
#include "pmesh/pm_csr.h"

#include <stdlib.h>
#include <string.h>

#include "base/pm_exact_int.h"
#include "pmesh/pm_cell.h"
#include "pm_csr_int.h"
#include "pmesh/pm_error.h"

void pm_csr_destroy(pm_csr_t **csr) {
  if (!csr || !*csr) return;
  pm_csr_t *a = *csr;
  free(a->d);
  free(a->index);
  free(a->item);
  free(a->amat);
  free(a->runs);
  free(a);
  *csr = NULL;
}

/* Sort a row's columns by global id (rows are short: insertion sort) and drop duplicates. */
static int32_t sort_unique(int32_t *c, int32_t n, const int64_t *gid) {
  for (int32_t i = 1; i < n; i++) {
    int32_t x = c[i], j = i - 1;
    while (j >= 0 && gid[c[j]] > gid[x]) {
      c[j + 1] = c[j];
      j--;
    }
    c[j + 1] = x;
  }
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++)
    if (m == 0 || c[i] != c[m - 1]) c[m++] = c[i];
  return m;
}

/* Interior rows (all columns internal: computable before the halo update) and the others, each
 * as runs of consecutive rows, so the product walks rows in order with no index array. */
int pm_csr_build_runs(pm_csr_t *a) {
  int ierr = PM_OK;
  int32_t n = a->n, k = 0;
  unsigned char *in = NULL;
  PM_TRY(PM_MALLOC(in, n + 1, "row classes"));
  for (int32_t i = 0; i < n; i++) {
    in[i] = 1;
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) in[i] &= a->item[q] < n;
  }
  int32_t count = 0;
  for (int32_t i = 0; i < n; i++) count += i == 0 || in[i] != in[i - 1];
  free(a->runs);
  a->runs = NULL;
  PM_TRY(PM_MALLOC(a->runs, 2 * (size_t)count + 2, "row runs"));
  a->n_interior = 0;
  for (int want = 1; want >= 0; want--) {
    for (int32_t i = 0; i < n; i++) {
      if (in[i] != want || (i > 0 && in[i - 1] == want)) continue;
      int32_t e = i;
      while (e < n && in[e] == want) e++;
      a->runs[2 * k] = i;
      a->runs[2 * k + 1] = e;
      k++;
      if (want) a->n_interior += e - i;
    }
    if (want) a->n_runs_interior = k;
  }
  a->n_runs = k;
cleanup:
  free(in);
  return ierr;
}

/* The elements of each internal node: a node-to-element transpose restricted to rows < n
 * (*ptr: [n+1], *list: the element indices of row i at [ptr[i], ptr[i+1])).  Checks every
 * element against the cell table on the way. */
static int row_elements(const pm_local_t *l, int32_t n, int32_t **ptr, int32_t **list) {
  int ierr = PM_OK;
  int32_t *p = NULL, *e_of = NULL;
  PM_TRY(PM_CALLOC(p, (size_t)n + 2, "matrix row elements"));
  for (int32_t e = 0; e < l->n_elems; e++) {
    const pm_cell_t *c = pm_cell_gmsh(l->elem_type[e]);
    int32_t k0 = l->elem_ptr[e], nv = l->elem_ptr[e + 1] - k0;
    PM_TRY_CHECK(c && c->n_verts == nv, PM_ERR_FORMAT, "element %lld: type %d with %d nodes is no cell of the table",
                 (long long)l->elem_gid[e], l->elem_type[e], (int)nv);
    for (int32_t k = k0; k < k0 + nv; k++)
      if (l->elem_node[k] < n) p[l->elem_node[k] + 2]++;
  }
  for (int32_t i = 0; i < n; i++) p[i + 2] += p[i + 1];
  PM_TRY(PM_MALLOC(e_of, (size_t)p[n + 1] + 1, "matrix row elements"));
  /* p[i + 1] is row i's next free place; once filled it is row i + 1's start. */
  for (int32_t e = 0; e < l->n_elems; e++)
    for (int32_t k = l->elem_ptr[e]; k < l->elem_ptr[e + 1]; k++)
      if (l->elem_node[k] < n) e_of[p[l->elem_node[k] + 1]++] = e;
  *ptr = p;
  *list = e_of;
  p = e_of = NULL;
cleanup:
  free(p);
  free(e_of);
  return ierr;
}

/* Column col of row i, once: stamp[col] == i marks a column already met; out == NULL only
 * counts. */
static inline int32_t add_column(int32_t i, int32_t col, int32_t *stamp, int32_t *out, int32_t m) {
  if (stamp[col] == i) return m;
  stamp[col] = i;
  if (out) out[m] = col;
  return m + 1;
}

/* The distinct neighbours of row i (not i itself): the other vertices of its elements, or
 * (edges_only) those joined to it by an edge of the cell table.  Returns their number. */
static int32_t row_columns(const pm_local_t *l, int edges_only, int32_t i, const int32_t *elems, int32_t ne,
                           int32_t *stamp, int32_t *out) {
  int32_t m = 0;
  stamp[i] = i;
  for (int32_t q = 0; q < ne; q++) {
    int32_t e = elems[q], k0 = l->elem_ptr[e], nv = l->elem_ptr[e + 1] - k0;
    const int32_t *node = l->elem_node + k0;
    if (!edges_only) {
      for (int32_t v = 0; v < nv; v++) m = add_column(i, node[v], stamp, out, m);
      continue;
    }
    const pm_cell_t *c = pm_cell_gmsh(l->elem_type[e]);
    for (int k = 0; k < c->n_edges; k++) {
      int32_t a = node[c->edge[k][0]], b = node[c->edge[k][1]];
      if (a == i) m = add_column(i, b, stamp, out, m);
      if (b == i) m = add_column(i, a, stamp, out, m);
    }
  }
  return m;
}

/* Rows from the elements of each node, each row's distinct columns written once into a column
 * array grown as it fills, so no list of element pairs (about 5x the final pattern on
 * tetrahedra) is ever held. */
int pm_csr_create(const pm_local_t *l, int edges_only, pm_csr_t **csr) {
  int ierr = PM_OK;
  pm_csr_t *a = NULL;
  int32_t *ptr = NULL, *elems = NULL, *stamp = NULL;
  int32_t n = l->n_internal, np = l->n_total, nst = l->n_total + l->n_aux;
  *csr = NULL;
  PM_CHECK(l->has_mesh, PM_ERR_ARG,
           "the local mesh has no elements (a lecture table file, or elements released by pm_local_release)");
  PM_TRY(PM_CALLOC(a, 1, "matrix"));
  a->n = n;
  a->ncol = np;
  PM_TRY(row_elements(l, n, &ptr, &elems));
  PM_TRY(PM_MALLOC(stamp, (size_t)nst + 1, "matrix column marks"));
  for (int32_t c = 0; c < nst; c++) stamp[c] = -1;
  PM_TRY(PM_MALLOC(a->index, (size_t)n + 1, "matrix index"));
  size_t cap = 16 * (size_t)n + PM_CELL_MAX_VERTS; /* a tetrahedral row's ~13, grown for more */
  PM_TRY(PM_MALLOC(a->item, cap, "matrix columns"));
  /* Columns sorted by global id; they must be internal or external. */
  size_t w = 0;
  for (int32_t i = 0; i < n; i++) {
    size_t bound = (size_t)(ptr[i + 1] - ptr[i]) * PM_CELL_MAX_VERTS;
    if (w + bound > cap) {
      cap = w + bound > cap / 2 * 3 ? w + bound : cap / 2 * 3;
      PM_TRY(PM_REALLOC(a->item, cap, "matrix columns"));
    }
    int32_t m = row_columns(l, edges_only, i, elems + ptr[i], ptr[i + 1] - ptr[i], stamp, a->item + w);
    sort_unique(a->item + w, m, l->gid);
    for (int32_t k = 0; k < m; k++)
      PM_TRY_CHECK(a->item[w + k] < np, PM_ERR_INCONSISTENT,
                   "row of node %lld couples to node %lld, which is neither internal nor external here: the partition "
                   "was made with the edge halo (nodes joined by an edge) but the scheme needs the element halo (nodes "
                   "sharing an element)",
                   (long long)l->gid[i], (long long)l->gid[a->item[w + k]]);
    PM_TRY_CHECK(w + (size_t)m <= INT32_MAX, PM_ERR_MEMORY, "the local matrix has more than %d entries",
                 (int)INT32_MAX);
    a->index[i] = (int32_t)w;
    w += (size_t)m;
  }
  a->index[n] = (int32_t)w;
  PM_TRY(PM_REALLOC(a->item, w + 1, "matrix columns"));
  free(elems);
  free(ptr);
  free(stamp);
  elems = ptr = stamp = NULL;
  PM_TRY(PM_CALLOC(a->amat, (size_t)a->index[n] + 1, "matrix values"));
  PM_TRY(PM_CALLOC(a->d, (size_t)n + 1, "matrix diagonal"));
  PM_TRY(pm_csr_build_runs(a));
  *csr = a;
  a = NULL;
cleanup:
  free(ptr);
  free(elems);
  free(stamp);
  pm_csr_destroy(&a);
  return ierr;
}

int32_t pm_csr_find(const pm_csr_t *a, const int64_t *gid, int32_t row, int32_t col) {
  int32_t lo = a->index[row], hi = a->index[row + 1] - 1;
  int64_t g = gid[col];
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    int64_t gm = gid[a->item[mid]];
    if (gm == g) return mid;
    if (gm < g)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* s + sum of row entries [k, e) times x, in entry (global id) order.  Rows of 2 and 4 entries
 * (the 1D bar, the 5-point stencil) take a straight-line path: fewer instructions per entry,
 * which is what limits this loop once the data streams. */
static inline double row_sum(const int32_t *restrict item, const double *restrict amat, const double *restrict x,
                             int32_t k, int32_t e, double s) {
  if (e - k == 4) {
    s += amat[k] * x[item[k]];
    s += amat[k + 1] * x[item[k + 1]];
    s += amat[k + 2] * x[item[k + 2]];
    s += amat[k + 3] * x[item[k + 3]];
  } else if (e - k == 2) {
    s += amat[k] * x[item[k]];
    s += amat[k + 1] * x[item[k + 1]];
  } else {
    for (; k < e; k++) s += amat[k] * x[item[k]];
  }
  return s;
}

/* y = A x over rows [i0, i1), adding x.y into two partial sums (even and odd rows: independent
 * chains the CPU overlaps; fixed order, so results are reproducible).  d == NULL: unit diagonal. */
static void product_rows(const pm_csr_t *a, const double *restrict x, double *restrict y, int32_t i0, int32_t i1,
                         double dot[2]) {
  const int32_t *restrict index = a->index, *restrict item = a->item;
  const double *restrict amat = a->amat, *restrict d = a->d;
  double d0 = dot[0], d1 = dot[1];
  int32_t k = index[i0];
  for (int32_t i = i0; i < i1; i++) {
    int32_t e = index[i + 1];
    double s = row_sum(item, amat, x, k, e, d ? d[i] * x[i] : x[i]);
    k = e;
    y[i] = s;
    if (i & 1)
      d1 += x[i] * s;
    else
      d0 += x[i] * s;
  }
  dot[0] = d0;
  dot[1] = d1;
}

/* product_rows with x.y's terms summed exactly, alternate rows into acc[0] and acc[1] (two lanes,
 * so consecutive rows' terms do not wait for each other's bin). */
static void product_rows_exact(const pm_csr_t *a, const double *restrict x, double *restrict y, int32_t i0, int32_t i1,
                               pm_exact_acc_t *const *acc) {
  const int32_t *restrict index = a->index, *restrict item = a->item;
  const double *restrict amat = a->amat, *restrict d = a->d;
  pm_exact_acc_t *a0 = acc[0], *a1 = acc[1];
  int32_t k = index[i0], i = i0;
  for (; i + 1 < i1; i += 2) {
    int32_t e = index[i + 1], f = index[i + 2];
    double s = row_sum(item, amat, x, k, e, d ? d[i] * x[i] : x[i]);
    double t = row_sum(item, amat, x, e, f, d ? d[i + 1] * x[i + 1] : x[i + 1]);
    k = f;
    y[i] = s;
    y[i + 1] = t;
    pm_exact_acc_add(a0, x[i] * s);
    pm_exact_acc_add(a1, x[i + 1] * t);
  }
  if (i < i1) {
    double s = row_sum(item, amat, x, k, index[i + 1], d ? d[i] * x[i] : x[i]);
    y[i] = s;
    pm_exact_acc_add(a0, x[i] * s);
  }
}

int pm_csr_spmv_exact(const pm_csr_t *a, pm_halo_t *halo, double *x, double *y, pm_exact_acc_t *const *acc,
                      double *t_exchange) {
  double t = MPI_Wtime();
  PM_CALL(pm_halo_update_begin(halo, x, MPI_DOUBLE, 1));
  double te = MPI_Wtime() - t;
  for (int32_t r = 0; r < a->n_runs_interior; r++) product_rows_exact(a, x, y, a->runs[2 * r], a->runs[2 * r + 1], acc);
  t = MPI_Wtime();
  PM_CALL(pm_halo_update_end(halo, x, MPI_DOUBLE, 1));
  te += MPI_Wtime() - t;
  for (int32_t r = a->n_runs_interior; r < a->n_runs; r++)
    product_rows_exact(a, x, y, a->runs[2 * r], a->runs[2 * r + 1], acc);
  if (t_exchange) *t_exchange += te;
  return PM_OK;
}

int pm_csr_spmv(const pm_csr_t *a, pm_halo_t *halo, double *x, double *y, double *xy, double *t_exchange) {
  double t = MPI_Wtime(), dot[2] = {0, 0};
  PM_CALL(pm_halo_update_begin(halo, x, MPI_DOUBLE, 1));
  double te = MPI_Wtime() - t;
  for (int32_t r = 0; r < a->n_runs_interior; r++) product_rows(a, x, y, a->runs[2 * r], a->runs[2 * r + 1], dot);
  t = MPI_Wtime();
  PM_CALL(pm_halo_update_end(halo, x, MPI_DOUBLE, 1));
  te += MPI_Wtime() - t;
  for (int32_t r = a->n_runs_interior; r < a->n_runs; r++)
    product_rows(a, x, y, a->runs[2 * r], a->runs[2 * r + 1], dot);
  if (xy) *xy = dot[0] + dot[1];
  if (t_exchange) *t_exchange += te;
  return PM_OK;
}

int pm_csr_compact_copy(const pm_csr_t *a, const double *s, pm_csr_t **copy) {
  int ierr = PM_OK;
  pm_csr_t *c = NULL;
  int32_t n = a->n;
  *copy = NULL;
  PM_TRY(PM_CALLOC(c, 1, "matrix copy"));
  c->n = n;
  c->ncol = a->ncol;
  int32_t nnz = 0;
  for (int32_t k = 0; k < a->index[n]; k++) nnz += a->amat[k] != 0.0;
  PM_TRY(PM_MALLOC(c->index, n + 1, "matrix copy index"));
  PM_TRY(PM_MALLOC(c->item, nnz > 0 ? nnz : 1, "matrix copy columns"));
  PM_TRY(PM_MALLOC(c->amat, nnz > 0 ? nnz : 1, "matrix copy values"));
  if (!s) PM_TRY(PM_MALLOC(c->d, n > 0 ? n : 1, "matrix copy diagonal"));
  int32_t w = 0;
  c->index[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) {
      if (a->amat[k] == 0.0) continue;
      int32_t j = a->item[k];
      c->item[w] = j;
      c->amat[w++] = s ? s[i] * a->amat[k] * s[j] : a->amat[k];
    }
    c->index[i + 1] = w;
    if (!s) c->d[i] = a->d[i];
  }
  PM_TRY(pm_csr_build_runs(c));
  *copy = c;
  c = NULL;
cleanup:
  pm_csr_destroy(&c);
  return ierr;
}

int pm_csr_compact(pm_csr_t *a) {
  int32_t n = a->n, w = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t k0 = a->index[i], k1 = a->index[i + 1];
    a->index[i] = w;
    for (int32_t k = k0; k < k1; k++) {
      if (a->amat[k] == 0.0) continue;
      a->item[w] = a->item[k];
      a->amat[w++] = a->amat[k];
    }
  }
  if (w == a->index[n] && a->runs) return PM_OK;
  a->index[n] = w;
  /* Shrinking cannot fail in practice; when it does, the larger blocks stay, which is correct. */
  int32_t *item = realloc(a->item, (size_t)(w > 0 ? w : 1) * sizeof *item);
  double *amat = realloc(a->amat, (size_t)(w > 0 ? w : 1) * sizeof *amat);
  if (item) a->item = item;
  if (amat) a->amat = amat;
  return pm_csr_build_runs(a);
}
