/* pm_amg.h - smoothed-aggregation algebraic multigrid (Vanek, Mandel, Brezina) as a pm_pc_t.
 *
 * Set-up (pm_pc_setup, once per operator; a transient run reuses it for every step), on every
 * rank at once and without gathering the fine matrix:
 *  - strength of connection: j is a strong neighbour of i when |a_ij| >= threshold sqrt(a_ii a_jj);
 *  - aggregates inside each rank (decoupled aggregation: every aggregate is owned by the rank of
 *    its rows), Vanek's three greedy phases; rows with no strong neighbour (eliminated Dirichlet
 *    rows) stay out and are left to the smoother;
 *  - the tentative prolongator (the constant on each aggregate) smoothed by one damped Jacobi
 *    step, omega = 4 / (3 lambda_max(D^-1 A)), lambda_max from a few Lanczos (CG) steps;
 *  - the Galerkin operator P^T A P from distributed rows; every coarse level gets its own rows,
 *    #NEIBPE/#IMPORT/#EXPORT tables and pm_halo;
 *  - a coarse level with fewer than `rows_per_rank` rows per rank of its parent level is moved
 *    onto fewer ranks (the first ones, its rows split evenly in global order); it and the
 *    levels below it are built and cycled on those ranks alone, the others idle below it
 *    (agglomeration, as PETSc's GAMG and hypre do), so the small levels, eventually on one
 *    rank, do not pay every rank's message latency;
 *  - coarsening stops at `coarse_size` global rows (or `max_levels`, or when it stagnates); that
 *    level is gathered onto every rank it is on and factored once by a dense Cholesky (up to
 *    PM_AMG_DENSE_MAX rows; a larger coarsest level is smoothed instead).
 * Apply: one V-cycle, symmetric positive definite (the same polynomial smoother before and
 * after the coarse correction; moving a level between ranks is part of P and P^T), with no
 * reduction inside (only the coarsest level's gather).
 * The operator must be assembled (pm_op_create_csr: the hierarchy is built from its entries; a
 * shell operator is refused with PM_ERR_ARG) and symmetric positive definite: a singular one
 * fails in the coarsest factorisation (PM_ERR_SOLVER), agreed on every rank. */
#ifndef PMESH_PM_AMG_H
#define PMESH_PM_AMG_H

#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_pc.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { PM_AMG_MAX_LEVELS = 25, PM_AMG_DENSE_MAX = 4000, PM_AMG_ROWS_PER_RANK_MAX = 1000000000 };

typedef enum pm_amg_smoother {
  PM_AMG_CHEBYSHEV, /* Chebyshev polynomial of D^-1 A on [lmax/5, 1.1 lmax] (default) */
  PM_AMG_JACOBI,    /* damped Jacobi, omega = 4 / (3 lmax) */
  PM_AMG_L1_JACOBI, /* l1-Jacobi: D_l1 = diag(sum_j |a_ij|), convergent without an estimate */
  PM_AMG_SMOOTHER_COUNT
} pm_amg_smoother_t;

/* The precision of the V-cycle's data (values, vectors, P).  CG, its residual and its operator
 * stay in double either way: the preconditioner only has to approximate A^-1, and single
 * precision halves the bytes each cycle moves, which bound its time. */
typedef enum pm_amg_precision {
  PM_AMG_SINGLE, /* float values and vectors in the cycle (default); the coarsest factor in double */
  PM_AMG_DOUBLE,
  PM_AMG_MIXED, /* as single, but the finest level reads the caller's double operator instead of a
                 * float copy: the same cycle bit for bit, ~4 bytes a nonzero less, more bytes a sweep */
  PM_AMG_PRECISION_COUNT
} pm_amg_precision_t;

typedef struct pm_amg_options {
  double threshold;             /* strength of connection, 0 <= threshold < 1 (default 0.08; 0.02 in
                                 * 3D with pm_amg_options_default_dim) */
  pm_amg_smoother_t smoother;   /* default PM_AMG_CHEBYSHEV */
  int sweeps;                   /* smoothing before and after the coarse correction: the Chebyshev
                                 * degree or the number of Jacobi sweeps, 1..100 (default 2) */
  int max_levels;               /* 1..PM_AMG_MAX_LEVELS (default 10); 1 solves the fine level directly */
  int64_t coarse_size;          /* a level of at most this many rows is the coarsest, 1..PM_AMG_DENSE_MAX
                                 * (default 500) */
  int64_t rows_per_rank;        /* a coarse level of R rows whose parent runs on S ranks, with
                                 * R < rows_per_rank S, moves onto max(1, R / rows_per_rank) ranks;
                                 * 0..PM_AMG_ROWS_PER_RANK_MAX, 0: never (default 2000) */
  pm_amg_precision_t precision; /* the cycle's (default PM_AMG_SINGLE) */
} pm_amg_options_t;

/** The defaults above.  Not collective. */
PM_EXTERN void pm_amg_options_default(pm_amg_options_t *opt);
/** The defaults for a mesh of dimension dim: those above, but the strength threshold 0.02 in 3D
 *  (iterations as flat as with 0.08 as the mesh grows, at two thirds of the operator complexity;
 *  docs/solve.md, AMG).  Not collective. */
PM_EXTERN void pm_amg_options_default_dim(pm_amg_options_t *opt, int dim);

/** PM_ERR_ARG with a message naming the option and its range when an option is out of range.
 *  Not collective. */
PM_EXTERN int pm_amg_options_check(const pm_amg_options_t *opt);

/** "chebyshev", "jacobi", "l1-jacobi"; and the smoother of a name (PM_ERR_ARG listing the names).
 *  Not collective. */
PM_EXTERN const char *pm_amg_smoother_name(pm_amg_smoother_t s);
PM_EXTERN int pm_amg_smoother_parse(const char *name, pm_amg_smoother_t *s);

/** "single", "double", "mixed"; and the precision of a name (PM_ERR_ARG listing the names).  Not
 *  collective. */
PM_EXTERN const char *pm_amg_precision_name(pm_amg_precision_t p);
PM_EXTERN int pm_amg_precision_parse(const char *name, pm_amg_precision_t *p);

/** An AMG preconditioner with the given options (NULL: the defaults), checked here.  The
 *  hierarchy is built by pm_pc_setup.  Not collective. */
PM_EXTERN int pm_pc_create_amg(const pm_amg_options_t *opt, pm_pc_t **pc);

/** The hierarchy an AMG preconditioner built (identical on every rank). */
typedef struct pm_amg_info {
  int levels;
  int geometric;                       /* the first `geometric` levels' prolongators come from a
                                        * refinement (pm_mg.h); 0 for AMG */
  int64_t rows[PM_AMG_MAX_LEVELS];     /* global rows per level */
  int64_t nonzeros[PM_AMG_MAX_LEVELS]; /* global nonzeros per level (diagonal included) */
  int ranks[PM_AMG_MAX_LEVELS];        /* ranks that own rows of the level (fewer on the levels
                                        * agglomerated, see rows_per_rank) */
  double operator_complexity;          /* sum of nonzeros over the fine level's */
  double grid_complexity;              /* sum of rows over the fine level's */
  int coarse_direct;                   /* 1: the coarsest level is factored (dense Cholesky) */
  int coarse_ranks;                    /* ranks the coarsest level is on (each holds the factor) */
  double setup_seconds, cycle_seconds; /* set-up; time per V-cycle (0 before the first) */
  long cycles;                         /* V-cycles applied */
} pm_amg_info_t;

/** The hierarchy of an AMG preconditioner after its set-up; PM_ERR_ARG for another kind of
 *  preconditioner or before the set-up.  Not collective. */
PM_EXTERN int pm_amg_get_info(const pm_pc_t *pc, pm_amg_info_t *info);

#ifdef __cplusplus
}
#endif
#endif
