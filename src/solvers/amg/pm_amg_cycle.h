/* pm_amg_cycle.h - the levels of an AMG hierarchy and the V-cycle over them (private): the
 * smoothers, the transfers between levels and the coarsest level's direct solve. */
#ifndef PMESH_PM_AMG_CYCLE_H
#define PMESH_PM_AMG_CYCLE_H

#include <mpi.h>
#include <stdio.h>

#include "pm_amg_agg.h"
#include "pm_dmat.h"
#include "pmesh/pm_amg.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_op.h"

/* A level's communicator is its layout's (dm->comm): the hierarchy's, or that of the ranks it
 * was agglomerated onto (pm_amg_agglom.h).  A rank outside it is idle on the level: a, dm and
 * the rest are NULL there. */
/* P^T by rows, for the restriction: row c lists the fine rows i with P(i,c) != 0. */
typedef struct pm_amg_pt {
  int32_t *ptr; /* [ncol + 2] (the transfer layout's columns; one extra for the build) */
  int32_t *row; /* [nnz] */
  void *val;    /* [nnz] in the cycle's precision */
} pm_amg_pt_t;

typedef struct pm_amg_level {
  int idle;          /* this rank holds no part of the level */
  MPI_Comm sub;      /* owned: the communicator the level was agglomerated onto, else MPI_COMM_NULL */
  const pm_csr_t *a; /* the operator: the caller's on level 0, own (`own`) below; with `op`, only
                      * its sizes and diagonal (no entries) */
  pm_op_t *op;       /* level 0 of a geometric multigrid on a shell (matrix-free) operator: the
                      * products are its, in double (opx, opy), else NULL */
  double *opx, *opy; /* [ncol], [n]: the product's vectors in a single-precision cycle (opx) */
  pm_csr_t *own;
  pm_halo_t *halo; /* the caller's on level 0, dm->halo below */
  pm_dmat_t *dm;   /* layout and tables (level 0: tables only) */
  pm_amg_p_t *p;   /* prolongator from the next level (NULL on the coarsest) */
  pm_dmat_t *xdm;  /* when the next level is agglomerated: the transfer layout of P's columns
                    * (on this level's communicator), else NULL (P's columns are the next
                    * level's own layout) */
  double lmax;     /* estimate of the largest eigenvalue of D^-1 A */
  double omega;    /* Jacobi's damping */
  /* In the cycle's precision (opt.precision: float or double): */
  void *va, *vd, *vp; /* the operator's values and diagonal (NULL: ones) and P's values:
                       * double borrows a's and p's arrays, single owns copies */
  void *vw;           /* [P's rows] owned: each row's one weight when P has such rows (P^T
                       * then has no values and vp is unread), else NULL */
  int own_values;     /* vp and (but on a wide level) va, vd are copies to free */
  int wide;           /* va, vd are the operator's doubles with float vectors (h->wide0) */
  pm_amg_pt_t pt;     /* P^T (with p) */
  void *dinv;         /* [n] the smoother's inverse diagonal */
  void *xv;           /* [xdm->ncol] the transfer's coarse vector (with xdm) */
  void *x, *b;        /* [ncol] the level's correction and right-hand side (level 0: single only) */
  void *r, *q, *w;    /* [ncol] work: residual, next direction, direction */
} pm_amg_level_t;

/* The coarsest level's dense Cholesky factor, on every rank of the level. */
typedef struct pm_amg_direct {
  int32_t n;        /* global rows */
  double *l;        /* [n*n] lower triangle, row-major */
  double *y;        /* [n] gathered right-hand side and solution */
  double *bl;       /* [local rows] this rank's part of the right-hand side */
  int *count, *off; /* [size] each rank's rows and their first */
} pm_amg_direct_t;

typedef struct pm_amg_hier {
  pm_amg_options_t opt;
  MPI_Comm comm; /* duplicate of the halo's communicator: level 0's and the set-up's agreement */
  int nlev;
  pm_amg_level_t lev[PM_AMG_MAX_LEVELS];
  int direct; /* the coarsest level is factored */
  int wide0;  /* single precision: level 0 reads the caller's double values instead of a float
               * copy (geometric multigrid: the copy of the finest operator was the largest array
               * it added; AMG keeps the faster copy) */
  pm_amg_direct_t dir;
  pm_amg_info_t info;
  double t_setup; /* MPI_Wtime at the start of the set-up */
  double t_cycle;
} pm_amg_hier_t;

/** The smoother's state of a level (dinv, omega) from its operator and lmax.  Not collective. */
int pm_amg_smoother_setup(pm_amg_hier_t *h, pm_amg_level_t *lv);

/** Level l's values in the cycle's precision (va, vd, vp) and P^T, once its operator and P are
 *  final.  Not collective. */
int pm_amg_level_values(pm_amg_hier_t *h, int l);

/** Gather the coarsest level's matrix onto every rank of the level and factor it;
 *  PM_ERR_SOLVER (agreed) when it is not positive definite.  Collective on the level's
 *  communicator. */
int pm_amg_direct_setup(pm_amg_hier_t *h, pm_amg_level_t *lv);
void pm_amg_direct_free(pm_amg_direct_t *d);

/** One V-cycle: z = M^-1 r on level 0 (r: N entries, z: NP).  Collective on h->comm (a rank
 *  idle on the coarse levels skips them and receives its correction). */
int pm_amg_vcycle(pm_amg_hier_t *h, const double *r, double *z);

#endif
