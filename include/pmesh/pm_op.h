/* pm_op.h - a linear operator y = A x on a rank's rows, as the solvers see it (PETSc's MatShell,
 * MFEM's Operator): CG (pm_cg.h) and the preconditioners (pm_pc.h) take one of these, never a
 * matrix.  Two kinds:
 *  - csr:   an assembled pm_csr_t and its halo (pm_op_create_csr); the product is
 *           pm_csr_spmv.  What AMG and geometric multigrid need: they build their hierarchy from
 *           its entries (pm_op_csr);
 *  - shell: the caller's product (pm_op_create_shell): matrix-free, a user's own storage, or a
 *           composition.  It may also give its diagonal (for Jacobi); it has no entries, so
 *           AMG refuses it, and geometric multigrid takes it only as its finest level with a
 *           diagonal and the Dirichlet rows (pm_mg.h, pm_fine_op.h).
 * Vectors follow pm_pc.h's lengths: x has NP = n_total entries, of which the first N = n are
 * the input and the others (the externals) are refreshed by the operator itself; y has N. */
#ifndef PMESH_PM_OP_H
#define PMESH_PM_OP_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_export.h"
#include "pmesh/pm_halo.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_op pm_op_t;

/** What a shell operator implements; ctx is the implementation's state given to
 *  pm_op_create_shell. */
typedef struct pm_op_shell {
  const char *name; /* for messages ("laplace-free", ...); NULL: "shell" */
  /** y = A x on this rank's n rows.  x has n_total entries: the first n are the input; the
   *  others are scratch the apply refreshes itself (a halo update) before it reads them, so
   *  their values on entry are stale and on return whatever the exchange left.  y has n
   *  entries.  Must be linear, and symmetric positive definite for CG; the same x must give
   *  the same y bit for bit (CG's figures are compared across runs).  Collective as the
   *  implementation's exchange is (every rank of the operator's communicator calls it). */
  int (*apply)(void *ctx, double *x, double *y);
  /** Optional: the n diagonal entries of A into d (what Jacobi needs).  Not collective. */
  int (*diagonal)(void *ctx, double *d);
  /** Optional: frees ctx when the operator is destroyed (also when pm_op_create_shell fails);
   *  NULL leaves ctx to the caller, who keeps it valid while the operator is in use.  Not
   *  collective. */
  void (*destroy)(void *ctx);
} pm_op_shell_t;

/** An operator from the caller's product.  Collective on comm (it is duplicated, with
 *  MPI_ERRORS_RETURN, for the solvers' reductions: their messages never meet the caller's).
 *  @param[in]  comm     the ranks the operator is distributed over
 *  @param[in]  n        N: this rank's rows (>= 0)
 *  @param[in]  n_total  NP >= N: the entries of an input vector, externals included
 *  @param[in]  shell    the callbacks (apply required); must outlive the operator
 *  @param[in]  ctx      given to the callbacks; owned by the operator from this call on if
 *                       shell->destroy is set (freed even when this call fails)
 *  @param[out] op       the operator; pm_op_destroy frees it
 *  @return PM_OK; PM_ERR_ARG (agreed on every rank) for a missing apply, bad counts; or an MPI
 *          or memory error. */
PM_EXTERN int pm_op_create_shell(MPI_Comm comm, int32_t n, int32_t n_total, const pm_op_shell_t *shell, void *ctx,
                                 pm_op_t **op);

/** The assembled operator: products are pm_csr_spmv(a, halo, ...).  a and halo are borrowed
 *  and must outlive the operator (as must a's values: the preconditioners and CG read them at
 *  their set-up).  PM_ERR_ARG when a's rows and columns are not the halo's N and NP.  Not
 *  collective.
 *  @param[in]  a     the local matrix (N rows, NP columns)
 *  @param[in]  halo  the exchange of a's column space
 *  @param[out] op    the operator; pm_op_destroy frees it (not a, not halo) */
PM_EXTERN int pm_op_create_csr(const pm_csr_t *a, pm_halo_t *halo, pm_op_t **op);

/** Free; NULL-safe, sets *op to NULL.  Collective for a shell operator (it frees its
 *  duplicated communicator), not collective for an assembled one. */
PM_EXTERN void pm_op_destroy(pm_op_t **op);

/** y = A x: x has NP entries, of which the first N are read and the externals refreshed
 *  (overwritten); y has N.  Collective (the halo exchange). */
PM_EXTERN int pm_op_apply(pm_op_t *op, double *x, double *y);

/** The N diagonal entries of A into d.  PM_ERR_ARG, with a message naming the operator, when
 *  it has none (a shell operator without a diagonal callback).  Not collective. */
PM_EXTERN int pm_op_diagonal(pm_op_t *op, double *d);

/** Whether pm_op_diagonal can answer.  Not collective. */
PM_EXTERN int pm_op_has_diagonal(const pm_op_t *op);

/** The assembled matrix and its halo, or NULL for a shell operator (which has no entries).
 *  Not collective. */
PM_EXTERN const pm_csr_t *pm_op_csr(const pm_op_t *op);
PM_EXTERN pm_halo_t *pm_op_halo(const pm_op_t *op);

/** The operator's communicator (the halo's, or the shell's duplicate), N, NP and name ("csr"
 *  or the shell's).  Not collective. */
PM_EXTERN MPI_Comm pm_op_comm(const pm_op_t *op);
PM_EXTERN int32_t pm_op_n(const pm_op_t *op);
PM_EXTERN int32_t pm_op_n_total(const pm_op_t *op);
PM_EXTERN const char *pm_op_name(const pm_op_t *op);

#ifdef __cplusplus
}
#endif
#endif
