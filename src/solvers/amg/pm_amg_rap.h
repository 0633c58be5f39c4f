/* pm_amg_rap.h - the parallel Galerkin product A_c = P^T A P from distributed rows (private).
 *
 * Each rank holds its fine rows of A and P.  The rows of P at the fine externals come from
 * their owners over the fine level's neighbour lists; the rank then forms P^T A P restricted to
 * its fine rows, which contributes to the coarse rows of every aggregate its P touches; the rows
 * owned by other ranks travel back to their owners (the reverse direction of the coarse tables)
 * and are summed there.  Columns are global ids until the coarse layout exists (its externals:
 * every column of the owned coarse rows and every column of the local P), then local. */
#ifndef PMESH_PM_AMG_RAP_H
#define PMESH_PM_AMG_RAP_H

#include "pm_amg_agg.h"
#include "pm_dmat.h"
#include "pmesh/pm_csr.h"

/** A_c = P^T A P.  a: the fine matrix (columns in fdm's local numbering; explicit zeros are
 *  skipped); fdm: the fine layout with its tables; p: the fine rows of P with coarse global
 *  ids; crange[size+1]: the coarse rows each rank owns.  Returns the coarse layout (with its
 *  halo) and matrix, and fills p->col with coarse local ids.  Collective on fdm->comm. */
int pm_amg_rap(const pm_csr_t *a, const pm_dmat_t *fdm, pm_amg_p_t *p, const int64_t *crange, pm_dmat_t **cdm,
               pm_csr_t **ac);

#endif
