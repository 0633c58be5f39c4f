/* pm_op_int.h - private: the operator product CG iterates with, fused with the local part of
 * x.y as pm_csr_spmv fuses it. */
#ifndef PMESH_PM_OP_INT_H
#define PMESH_PM_OP_INT_H

#include "base/pm_exact_int.h"
#include "pmesh/pm_op.h"

/** y = A x and the local part of x.y: into *xy (xy non-NULL) summed in floating point over
 *  two lanes (even and odd rows), or, acc given, its terms added exactly to acc[0] and acc[1]
 *  (alternate rows).  An assembled operator is pm_csr_spmv / pm_csr_spmv_exact, its exchange
 *  time added to *t_exchange (NULL to skip); a shell's exchange is inside its apply, so it adds
 *  nothing.  Collective (the exchange). */
int pm_op_apply_dot(pm_op_t *op, double *x, double *y, double *xy, pm_exact_acc_t *const *acc, double *t_exchange);

#endif
