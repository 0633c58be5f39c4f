/* pm_run.h - a run as library calls: load a partition collectively in one call, then solve a
 * problem (pm_problem.h) steady or transient (backward Euler) from an initial state, with error
 * norms against an exact solution and the result written as HDF5 + XDMF (pm_h5.h).
 *
 *   pm_partition_t *part;  pm_problem_t *prob;  pm_pc_t *pc;
 *   pm_partition_load(MPI_COMM_WORLD, "pmesh.part", pm_exchange_default(), &part);
 *   pm_problem_create(&prob);  pm_problem_add_dirichlet(prob, "boundary", pm_value_expr("0"));
 *   pm_pc_create_jacobi(&pc);
 *   pm_run_options_t opt = pm_run_options_default();  opt.output = "result.h5";
 *   double *u = malloc(part->local->n_total + part->local->n_aux ...);
 *   pm_run_result_t res;
 *   pm_run_steady(part, prob, pc, &opt, u, &res);
 *
 * Every call here is collective on the partition's communicator; errors are agreed: every rank
 * returns an error code when any failed, the failing rank its own (with the message recorded,
 * pm_error.h) and the others PM_ERR_REMOTE.  An error that every rank meets alike (a problem
 * with no Dirichlet value, ...) is returned by rank 0 and as PM_ERR_REMOTE elsewhere, so a tool
 * that prints the errors other than PM_ERR_REMOTE prints each failure once. */
#ifndef PMESH_PM_RUN_H
#define PMESH_PM_RUN_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "pmesh/pm_amg.h"
#include "pmesh/pm_cg.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_export.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_partition.h"
#include "pmesh/pm_pc.h"
#include "pmesh/pm_problem.h"
#include "pmesh/pm_refine.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Where the run starts: u^0 of a transient run, the initial guess of CG in a steady one.  Given
 *  nothing (file NULL, value unset), u starts at 0 away from the Dirichlet nodes; otherwise at the
 *  value or at the earlier result's field, and the Dirichlet nodes keep their values. */
typedef struct pm_run_initial {
  pm_value_t value;  /* an expression or a callback, evaluated at every local node */
  const char *file;  /* or an earlier result of the same mesh (any number of ranks; wins) */
  const char *field; /* its nodal field (NULL: "u") */
  int step;          /* its series step (-1: the last; a single result: -1 or 0) */
} pm_run_initial_t;

/** What a run does besides the problem.  Start from pm_run_options_default(). */
typedef struct pm_run_options {
  pm_cg_options_t cg;        /* rtol, maxit, monitor, out (transient: per-step lines with monitor > 0) */
  double dt;                 /* transient: the time step (> 0) */
  int steps;                 /* transient: the number of steps (>= 1) */
  int every;                 /* transient: write every `every`-th step (step 0 and the last always) */
  pm_mass_t mass;            /* transient: the mass matrix (fdm5: PM_MASS_LUMPED only) */
  pm_run_initial_t initial;  /* the initial state */
  pm_value_t exact;          /* unset, or the exact solution: error norms in the result (transient:
                                at the last step's time) */
  const char *output;        /* the result file (must end in .h5), NULL: none */
  const char *output_xmf;    /* its XDMF file (NULL: output with .xmf for .h5) */
  const pm_h5_attr_t *attrs; /* further root attributes of the result, the same on every rank */
  int n_attrs;
  /** Optional: called once on every rank after the assembly with the assembled system (a, b)
   *  before any solve (to inspect or dump it); its error is agreed.  Not collective. */
  int (*on_assembled)(void *ctx, const pm_partition_t *part, const pm_csr_t *a, const double *b);
  void *on_assembled_ctx;
  /** Steady runs: free the partition's elements as soon as nothing after needs them (with no
   *  exact solution to compare with): their place in the global mesh once the result's mesh is
   *  written, the rest once the operator is assembled (pm_local_release on part->local, which
   *  has no elements after the run).  For runs as large as the machine (solve sets it). */
  int release_elements;
  /** With release_elements, on a matrix-free finest level (matrix_free): free its nodes'
   *  coordinates too (pm_local_release PM_LOCAL_COORDS, 24 bytes an unknown) once the result's
   *  mesh is written and the right-hand side made; the fine operator reads the level below's.
   *  Whoever reads part->local->xyz after the run leaves it 0 (solve sets it unless
   *  --dump-solution). */
  int release_coords;
  /** Steady FEM runs on tetrahedra refined by pm_partition_refine_points: apply the finest
   *  operator matrix-free from the level below (pm_fine_op.h) instead of assembling it; what it
   *  does not support is refused with PM_ERR_UNSUPPORTED, naming it.  Its products agree with
   *  the assembled operator's to rounding. */
  int matrix_free;
} pm_run_options_t;

/** rtol 1e-8, maxit 10000, no monitor (out stdout), every 1, consistent mass, start from 0, no
 *  exact solution, no output.  Not collective. */
PM_EXTERN pm_run_options_t pm_run_options_default(void);

/** The stages of a run whose peak memory it records (pm_run_result_t.peak_rss): writing the
 *  result's mesh (before the assembly; nothing without output), the assembly, the solver's set-up
 *  (the preconditioner's included), the solve (transient: every step's) and the output of the
 *  fields. */
typedef enum pm_run_stage {
  PM_RUN_STAGE_MESH_OUTPUT,
  PM_RUN_STAGE_ASSEMBLY,
  PM_RUN_STAGE_SETUP,
  PM_RUN_STAGE_SOLVE,
  PM_RUN_STAGE_OUTPUT,
  PM_RUN_STAGES
} pm_run_stage_t;

/** The stage's name ("mesh_output", "assembly", "setup", "solve", "output").  Not collective. */
PM_EXTERN const char *pm_run_stage_name(pm_run_stage_t stage);

/** What a run did, the same on every rank (output_bytes: rank 0 only; peak_rss: this rank's). */
typedef struct pm_run_result {
  int64_t unknowns, fixed; /* internal nodes, and those with a Dirichlet value, over all ranks */
  int converged;           /* steady: CG converged; transient: every step did */
  pm_cg_result_t cg;       /* steady: the solve; transient: iterations and seconds summed over the
                              steps (t_setup: the one set-up), residual: the last step's */
  /* transient only */
  int steps_done, steps_written, it_min, it_max;
  int64_t it_total;
  double residual_max;                /* the worst step's ||r||/||b|| */
  int failed_step, failed_iterations; /* the step whose CG did not converge (then nothing is kept) */
  double failed_residual;
  /* both */
  double u_min, u_max;             /* over the internal nodes (a transient run: the last step) */
  int has_error;                   /* an exact solution was given: */
  double error_max, error_l2;      /* max-norm and discrete L2 norm (pm_run_error_norms) */
  double t_assembly, t_output;     /* seconds (the solve's are in cg) */
  int64_t output_bytes;            /* size of the result file (rank 0; 0 elsewhere or without one) */
  int64_t peak_rss[PM_RUN_STAGES]; /* this rank's peak resident memory (bytes) at the end of each
                                      stage: the process's peak so far, 0 when unknown */
} pm_run_result_t;

/** Solve -div(k grad u) = f.  The result file (opt->output) gets the mesh before the assembly and
 *  u after the solve, with the attributes below; it is written only when every step before it
 *  worked (a failure keeps the previous file), and also when CG did not converge (check
 *  res->converged).  A problem without Dirichlet value and without a Robin condition with h > 0
 *  is singular: PM_ERR_ARG.  So is a problem or an exact solution that depends on the time t (a
 *  steady run has none).  Collective.
 *  @param[in]  pc  created by the caller and not yet set up (NULL: no preconditioning); it is set
 *                  up on the assembled operator and may be viewed (pm_pc_view) afterwards
 *  @param[out] u   [NP+NA] the solution at the internal nodes, the owners' values at the
 *                  externals
 *  With opt->cg.rtol 0 CG runs maxit iterations, and having run them counts as converged.
 *  Result attributes: problem, scheme, precond, source, conductivity, dirichlet, neumann, robin
 *  (every value set, pm_problem_describe's text; "0", "1", "", "", "" when none), area, rtol,
 *  maxit, then initial_file, initial_field, initial_step or initial_value, then reproducible (1,
 *  only with opt->cg.reproducible), then exact, error_max, error_l2 (with an exact solution),
 *  then iterations, residual, converged (CG's own), then opt->attrs.
 *  With opt->cg.reproducible the solve sums exactly (pm_cg.h), the error norms' L2 sum too, and
 *  the result leaves out the owner ranks (pm_h5_options_t.no_partition): with a diagonal preconditioner
 *  the file is then the same, byte for byte, for any number of ranks and any partition. */
PM_EXTERN int pm_run_steady(const pm_partition_t *part, const pm_problem_t *prob, pm_pc_t *pc,
                            const pm_run_options_t *opt, double *u, pm_run_result_t *res);

/** du/dt - div(k grad u) = f by backward Euler, (M/dt + K) u^{n+1} = (M/dt) u^n + f, one CG solve
 *  per step (the solver and pc set up once).  Sources, Dirichlet values, Neumann fluxes and Robin
 *  outside values may depend on t (pm_problem.h): step n+1 takes them at t_{n+1} = (n+1) dt (the
 *  Dirichlet values of u^0 at t = 0); each step then assembles its load and sets its Dirichlet
 *  values (pm_fem_assemble_operator, pm_fem_load), otherwise the load is assembled once.  The
 *  result is a
 *  time series of steps 0, every, 2 every, ..., steps, kept only when every step converged; a
 *  step that does not converge ends the run (res->converged = 0, res->failed_*).  Collective.
 *  Attributes: as pm_run_steady's up to the initial state, then dt, steps, every, mass,
 *  iterations (total), iterations_min, iterations_max, residual (worst), converged, opt->attrs.
 *  @param[out] u  [NP+NA] the last step's solution */
PM_EXTERN int pm_run_transient(const pm_partition_t *part, const pm_problem_t *prob, pm_pc_t *pc,
                               const pm_run_options_t *opt, double *u, pm_run_result_t *res);

/** How pm_run_error_norms measures.  A zero-initialised struct, or NULL in its place, gives the
 *  defaults: t = 0, the L2 sum in floating point. */
typedef struct pm_run_norms_options {
  double t;         /* the time at which an exact solution that depends on t is taken */
  int reproducible; /* nonzero: the L2 sum exact (pm_exact.h), the same for any partition */
} pm_run_norms_options_t;

/** Errors of u (internal nodes) against an exact solution: the max-norm and the discrete L2 norm
 *  sqrt(sum w_i e_i^2) with the lumped-mass node weights (pm_fem_node_weights).  Collective on
 *  part->comm (errors agreed).
 *  @param[in]  u          [NP] the solution (the internal nodes are read)
 *  @param[in]  exact      the exact solution
 *  @param[in]  opt        the time and the summation (NULL: t = 0, floating point)
 *  @param[out] error_max  max_i |u_i - exact(x_i)|, the same on every rank
 *  @param[out] error_l2   the discrete L2 norm, the same on every rank */
PM_EXTERN int pm_run_error_norms(const pm_partition_t *part, const double *u, pm_value_t exact,
                                 const pm_run_norms_options_t *opt, double *error_max, double *error_l2);

/** Set u at every local node (NP) to a value (at t = 0 when it depends on t); PM_ERR_ARG naming
 *  `what` and the node where it is not finite.  Not collective. */
PM_EXTERN int pm_run_set_value(const pm_local_t *local, pm_value_t value, const char *what, double *u);

#ifdef __cplusplus
}
#endif
#endif
