/* pm_csr.h - the local matrix in the lecture's layout and its parallel product.
 *
 * N rows (the internal nodes); the diagonal D kept apart; off-diagonals in CSR (index, item,
 * amat) with columns in local numbering, externals included.  The entries of every row are
 * ordered by global column id (externals too), and a row's product is its diagonal term first,
 * then the entries in that order, so a row's arithmetic does not depend on the partition. */
#ifndef PMESH_PM_CSR_H
#define PMESH_PM_CSR_H

#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Open struct: read-only to callers except the values (d, amat) during assembly. */
typedef struct pm_csr {
  int32_t n;                       /* rows = internal nodes */
  int32_t ncol;                    /* columns = NP (internal + external) */
  double *d;                       /* [n] diagonal; NULL: every diagonal entry is 1 (a scaled copy) */
  int32_t *index;                  /* [n+1] */
  int32_t *item;                   /* [nnz] local column indices, ordered by global id within a row */
  double *amat;                    /* [nnz] */
  int32_t n_interior;              /* rows whose columns are all internal: computable before the halo update */
  int32_t n_runs_interior, n_runs; /* runs[2k], runs[2k+1]: rows [begin, end); interior runs first */
  int32_t *runs;
} pm_csr_t;

/** Structure from the local mesh: row i couples to every node sharing an element with it
 *  (`edges_only`: only the nodes joined by an edge of the cell table - the 5- and 7-point stencils).  Values zero.
 *  Not collective. */
PM_EXTERN int pm_csr_create(const pm_local_t *local, int edges_only, pm_csr_t **csr);
/** Free; NULL-safe, sets *csr to NULL.  Not collective. */
PM_EXTERN void pm_csr_destroy(pm_csr_t **csr);

/** Position of column `col` in row `row` (binary search by global id), or -1.  Not collective. */
PM_EXTERN int32_t pm_csr_find(const pm_csr_t *csr, const int64_t *gid, int32_t row, int32_t col);

/** y = A x (x has NP entries; its externals are refreshed by a halo update overlapped with the
 *  interior rows).  Optionally returns the local part of x.y in *xy (NULL to skip).
 *  Collective among neighbours (the halo update). */
PM_EXTERN int pm_csr_spmv(const pm_csr_t *csr, pm_halo_t *halo, double *x, double *y, double *xy, double *t_exchange);

/** A copy for repeated products: explicit zeros (the columns of eliminated Dirichlet nodes)
 *  dropped, and, when `s` (NP entries, externals included) is given, scaled symmetrically:
 *  copy = S A S with S = diag(s), whose diagonal is taken to be 1 (the caller passes
 *  s = 1/sqrt(diag), refreshed at the externals), so products read no diagonal at all.
 *  Row entries keep their global-id order.  Not collective. */
PM_EXTERN int pm_csr_compact_copy(const pm_csr_t *csr, const double *s, pm_csr_t **copy);

/** Drop the explicit zeros of csr in place (its arrays shrink to the entries left), for a matrix
 *  nothing will assemble into again: products give the same values, bit for bit, with fewer
 *  entries to read.  Also (re)builds the row runs the product needs, for a matrix whose caller
 *  filled index, item, amat and d itself.  Not collective. */
PM_EXTERN int pm_csr_compact(pm_csr_t *csr);

#ifdef __cplusplus
}
#endif
#endif
