/* pm_pc.h - preconditioners behind one interface (PETSc's PC, MFEM's Solver): an object that is
 * set up once from an operator and then applied, z = M^-1 r, as often as a Krylov solver needs.
 * CG (pm_cg.h) never knows which one it runs; Jacobi, none, algebraic multigrid and any
 * user-written method plug in through pm_pc_ops_t.
 *
 * Vector lengths.  Every pmesh call that takes a nodal vector uses one of three lengths of the
 * local mesh (pm_local.h), in this order of the local numbering:
 *   N        the internal (owned) nodes: the rows of the local matrix, a right-hand side, a
 *            residual;
 *   NP       N plus the external nodes: what a halo update fills, so any vector a matrix
 *            multiplies (its columns run over NP);
 *   NP + NA  NP plus the auxiliary nodes (element-only nodes of `--halo edge` partitions): a
 *            nodal field on the whole local mesh (coordinates, a solution that is written out).
 * A vector may always be longer than its convention; only the leading entries are used. */
#ifndef PMESH_PM_PC_H
#define PMESH_PM_PC_H

#include <stdio.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a preconditioner implements.  ctx is the implementation's state, given to
 *  pm_pc_create and owned by the pm_pc_t from then on (destroy frees it). */
typedef struct pm_pc_ops {
  const char *name; /* "jacobi", "amg", ... */
  /** Build from the operator a (N rows, NP columns; pm_op.h), which outlives the object: its
   *  diagonal (pm_op_diagonal), its assembled matrix (pm_op_csr; NULL for a shell operator,
   *  which a method that needs entries refuses with PM_ERR_ARG), products with it.  Called
   *  once, by pm_pc_setup.  Errors must be agreed across ranks (pm_op_comm).  Collective. */
  int (*setup)(void *ctx, pm_op_t *a);
  /** z = M^-1 r.  r has N entries (read only); z has NP entries, of which the externals are
   *  scratch space (their values on return are unspecified).  M^-1 must be symmetric positive
   *  definite for CG.  Collective. */
  int (*apply)(void *ctx, const double *r, double *z);
  /** Optional.  A preconditioner that is a symmetric diagonal scaling, M = S^-2, returns S
   *  (NP entries; the externals valid when the operator has a halo, pm_op_halo), or NULL for
   *  S = I (no preconditioning).  CG then runs on the scaled system S A S, whose unit diagonal
   *  saves a sweep per iteration, when the operator is assembled (S A S is formed once); with
   *  a shell operator S != I is applied as any preconditioner.  Not collective. */
  const double *(*diagonal_scaling)(void *ctx);
  /** Optional.  Writes what setup built: json = 0 as indented text lines, json = 1 as the
   *  members of a JSON object ("key": value, ... without braces).  Only rank 0 is called, so
   *  setup must have gathered what it reports.  Not collective. */
  int (*view)(void *ctx, FILE *out, int json);
  /** Frees ctx (called once, also when setup failed or never ran).  Not collective. */
  void (*destroy)(void *ctx);
} pm_pc_ops_t;

typedef struct pm_pc pm_pc_t;

/** A preconditioner from an implementation.  ops must outlive the object; ctx belongs to the
 *  object from this call on, even when it fails.  Not collective. */
PM_EXTERN int pm_pc_create(const pm_pc_ops_t *ops, void *ctx, pm_pc_t **pc);

/** No preconditioning (M = I), and Jacobi (M = diag(A) from pm_op_diagonal, applied by CG as a
 *  symmetric scaling; setup fails with PM_ERR_ARG on every rank for an operator without a
 *  diagonal, with PM_ERR_SOLVER if a diagonal entry is not positive).  Not collective. */
PM_EXTERN int pm_pc_create_none(pm_pc_t **pc);
PM_EXTERN int pm_pc_create_jacobi(pm_pc_t **pc);

/** Free; NULL-safe, sets *pc to NULL.  Not collective (the implementation's destroy is local). */
PM_EXTERN void pm_pc_destroy(pm_pc_t **pc);

/** Set up from the operator a (N rows, NP columns), which must outlive the preconditioner.
 *  A second call is PM_ERR_ARG: build a new object for a new operator.  Collective. */
PM_EXTERN int pm_pc_setup(pm_pc_t *pc, pm_op_t *a);

/** z = M^-1 r (lengths as in pm_pc_ops_t.apply), after pm_pc_setup.  Collective. */
PM_EXTERN int pm_pc_apply(pm_pc_t *pc, const double *r, double *z);

/** Whether pm_pc_setup has run.  Not collective. */
PM_EXTERN int pm_pc_is_setup(const pm_pc_t *pc);

/** For a diagonal scaling M = S^-2: returns 1 and *s = S (NULL for S = I); else 0.  After
 *  setup.  Not collective. */
PM_EXTERN int pm_pc_diagonal_scaling(const pm_pc_t *pc, const double **s);

/** The implementation's name; seconds spent in setup and in apply, and the number of applies.
 *  Not collective. */
PM_EXTERN const char *pm_pc_name(const pm_pc_t *pc);
PM_EXTERN double pm_pc_setup_seconds(const pm_pc_t *pc);
PM_EXTERN double pm_pc_apply_seconds(const pm_pc_t *pc);
PM_EXTERN long pm_pc_apply_count(const pm_pc_t *pc);

/** The implementation's state (ctx given to pm_pc_create): for an implementation's own queries
 *  (pm_amg_get_info), which must check pm_pc_name first.  Not collective. */
PM_EXTERN void *pm_pc_context(const pm_pc_t *pc);

/** The implementation's view (pm_pc_ops_t.view), or nothing when it has none; returns 1 when it
 *  wrote something.  Call it on rank 0 only.  Not collective. */
PM_EXTERN int pm_pc_view(const pm_pc_t *pc, FILE *out, int json);

#ifdef __cplusplus
}
#endif
#endif
