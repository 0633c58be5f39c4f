/* pm_csr_int.h - private: the product of pm_csr with the exact dot product of reproducible CG. */
#ifndef PMESH_PM_CSR_INT_H
#define PMESH_PM_CSR_INT_H

#include "base/pm_exact_int.h"
#include "pmesh/pm_csr.h"

/** pm_csr_spmv, with the terms x_i y_i of x.y added exactly to acc[0] and acc[1] (alternate
 *  rows) instead of summed in floating point.  y is the same as pm_csr_spmv's, bit for bit.
 *  Collective among neighbours (the halo update). */
int pm_csr_spmv_exact(const pm_csr_t *csr, pm_halo_t *halo, double *x, double *y, pm_exact_acc_t *const *acc,
                      double *t_exchange);

/** The row runs (interior rows first, pm_csr_t) of a matrix whose structure is final.  Not
 *  collective. */
int pm_csr_build_runs(pm_csr_t *a);

#endif
