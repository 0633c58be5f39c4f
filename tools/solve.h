/* solve.h - what the files of the solve tool share: the parameters rank 0 reads from the command
 * line and the problem and options made from them (solve_args.c, with the problem's options in
 * solve_opts_problem.c and the options as text in solve_opts_text.c), which solve.c sends to
 * every rank and runs.  solve.c calls them, never the other way round. */
#ifndef PMESH_TOOLS_SOLVE_H
#define PMESH_TOOLS_SOLVE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "pm_tool.h"
#include "pmesh/pm_amg.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_problem.h"
#include "pmesh/pm_run.h"

static const char *const tool = "solve";

/* The preconditioners of --precond: their names (solve.c creates them).  auto is resolved by
 * solve_parse into amg or jacobi. */
enum { PRECOND_NONE, PRECOND_JACOBI, PRECOND_AMG, PRECOND_MG, PRECOND_AUTO, PRECOND_COUNT };

/* --precond auto: AMG from this many unknowns (after --refine) up, Jacobi below. */
#define AUTO_AMG_UNKNOWNS 30000
#define AUTO_AMG_TEXT "30000"
/* --fine-operator auto: matrix-free from this many unknowns on (where the assembled fine level's
 * ~500 bytes an unknown start to be gigabytes; below, the exact double-precision operator). */
#define AUTO_MATRIX_FREE_UNKNOWNS 1000000

enum { MAXBC = 16, NAME_LEN = 128, EXPR_LEN = 512, PATH_LEN = 1024 };

/* Everything rank 0 decides, sent in one broadcast.  Integers, then doubles, then the 64-bit
 * fingerprint, then characters only: solve.c builds its MPI datatype from that layout. */
/* --fine-operator's choices, in the option table's order. */
enum { FINE_AUTO, FINE_ASSEMBLED, FINE_MATRIX_FREE };

typedef struct params {
  int status; /* 0 run, 1 error (rank 0 printed it), 2 done (--help, --version) */
  int scheme, precond, exchange, maxit, monitor, exchange_test, nparts, dim, no_output;
  int n_source, n_cond, n_dir, n_neu, n_rob;
  int steps, every, mass, initial_step; /* steps 0: steady; mass: pm_mass_t; initial_step -1: last */
  int amg_smoother, amg_sweeps, amg_levels, amg_coarse, amg_rows_per_rank, amg_precision;
  int reproducible;  /* --reproducible */
  int refine;        /* --refine K: uniform refinements after loading */
  int mg_coarse;     /* --mg-coarse: pm_mg_coarse_t */
  int fine_operator; /* --fine-operator: FINE_AUTO (until solve.c decides, the mesh loaded), FINE_ASSEMBLED,
                        FINE_MATRIX_FREE (pm_fine_op.h) */
  int precond_auto;  /* the preconditioner was chosen by --precond auto */
  double rtol, area, dt, amg_threshold;
  uint64_t fingerprint;
  char dir[PATH_LEN], out_h5[PATH_LEN], out_xmf[PATH_LEN], summary[PATH_LEN], dump[PATH_LEN], dump_u[PATH_LEN];
  char dump_local[PATH_LEN];
  char initial[PATH_LEN], initial_field[NAME_LEN], initial_value[EXPR_LEN];
  char exact[EXPR_LEN], history[PATH_LEN];
  char src_group[MAXBC][NAME_LEN], cond_group[MAXBC][NAME_LEN], dir_group[MAXBC][NAME_LEN], neu_group[MAXBC][NAME_LEN];
  char src_expr[MAXBC][EXPR_LEN], cond_expr[MAXBC][EXPR_LEN], dir_expr[MAXBC][EXPR_LEN], neu_expr[MAXBC][EXPR_LEN];
  char rob_group[MAXBC][NAME_LEN], rob_h[MAXBC][EXPR_LEN], rob_uinf[MAXBC][EXPR_LEN]; /* --robin GROUP=H,U_INF */
} params_t;

/** Rank 0: the options, the control file and the partition's metadata into p (zeroed by the
 * caller).  Returns 0 (p->status 2 after --help or --version), or -1 after printing why. */
int solve_parse(int argc, char **argv, int nranks, params_t *p);
/** The problem of the options (every rank builds the same one). */
int solve_build_problem(const params_t *p, pm_problem_t **prob);
/** The AMG options of --amg-*. */
void solve_amg_options(const params_t *p, pm_amg_options_t *o);
/** The options that solve this problem again, every value explicit, without -p, -o and the rank
 *  count (so a reproducible result stays the same file for any partition), into buf. */
void solve_options_text(const params_t *p, char *buf, size_t size);

/* Between the option files (solve_opts_table.c and solve_opts_problem.c, for solve_args.c's
 * parse). */
enum { SOLVE_N_OPTIONS = 48 };
/** The option table (SOLVE_N_OPTIONS entries at most, the last one's name NULL) into t, its values
 *  pointing into p; the defaults into p; the help text with the table's lines. */
void solve_options_table(params_t *p, pm_tool_opt_t t[SOLVE_N_OPTIONS]);
void solve_set_defaults(params_t *p);
void solve_print_help(const pm_tool_opt_t *t);
/** --source, --conductivity ([GROUP=]EXPR), --dirichlet, --neumann (GROUP=EXPR); --robin
 *  GROUP=H,U_INF (option-table callbacks). */
int solve_opt_bc(void *ctx, const char *opt, const char *v);
int solve_opt_robin(void *ctx, const char *opt, const char *v);
/** The lecture's control file (may be NULL), then the defaults of what is still unset. */
int solve_apply_defaults(const pm_tool_opt_t *t, params_t *p, const char *control, const pm_meta_t *meta);
/** The problem against the metadata (groups, dimensions, scheme) and every expression. */
int solve_check_problem(params_t *p, const pm_meta_t *meta);

/* Before the run (solve_refine.c); collective, errors agreed. */
/** --fine-operator auto, the options allowing it (solve_args.c): matrix-free when every cell of
 *  the mesh is a tetrahedron, else assembled. */
int solve_choose_fine_operator(params_t *p, const pm_partition_t *part);
/** --refine K: every rank refines its own part (mg keeps the levels), then --dump-local; a note on
 *  stderr when the partition's node order would slow a large refined run. */
int solve_refine(const params_t *p, pm_partition_t *part);

/* The report (solve_report.c). */
/* Peak resident memory at the end of each stage: solve's own (load, refine), then the run's. */
enum { RSS_LOAD, RSS_REFINE, RSS_RUN, RSS_STAGES = RSS_RUN + PM_RUN_STAGES };

/* The mesh as the report tells it: its dimension and its cells per type (each counted once, by
 * its owner rank). */
typedef struct mesh_info {
  int dim;
  int64_t cells[PM_CELL_NTYPES];
} mesh_info_t;
/** Rank 0 gets the peak resident memory of every stage: the largest rank's (rss[0]) and the sum
 *  (rss[1]); own: this rank's at the end of load and refine.  Collective. */
int solve_rss_reduce(MPI_Comm comm, const int64_t *own, const pm_run_result_t *r, int64_t rss[2][RSS_STAGES]);
/** Rank 0: the report on standard output, the --summary file, and why a run failed. */
void solve_print_report(const params_t *p, const mesh_info_t *mi, int size, const pm_run_result_t *r, const pm_pc_t *pc,
                        double t_load, double t_refine, double t_total, int64_t rss[2][RSS_STAGES]);

#endif
