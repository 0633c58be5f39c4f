/* pm_dirichlet.h - private: the symmetric elimination of Dirichlet values (pm_dirichlet.c). */
#ifndef PMESH_PM_DIRICHLET_H
#define PMESH_PM_DIRICHLET_H

#include <stdint.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_local.h"

/** Symmetric elimination of the nodes marked in fixed [NP] with the values u [NP]: their rows of
 *  a become identity rows with b_i = u_i, their columns move to the right-hand side b, and the
 *  mass matrix m (NULL for a steady problem; same structure as a) loses their rows and columns.
 *  Checks that every other diagonal is positive.
 *  @param[out] n_fixed  internal nodes eliminated */
int pm_dirichlet_eliminate(const pm_local_t *l, const char *fixed, const double *u, pm_csr_t *a, pm_csr_t *m, double *b,
                           int64_t *n_fixed);

#endif
