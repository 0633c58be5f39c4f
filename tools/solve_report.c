/* solve_report.c - solve's report of a run: the figures on standard output, the --summary JSON,
 * why a run failed, and the peak memory per stage gathered for them (solve.c runs, this tells). */
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_version.h"
#include "solve.h"

static const char *precond_names[PRECOND_COUNT] = {"none", "jacobi", "amg", "mg", "auto"};

static const char *rss_name(int s) {
  return s == RSS_LOAD ? "load" : s == RSS_REFINE ? "refine" : pm_run_stage_name((pm_run_stage_t)(s - RSS_RUN));
}

/* The stages' peaks (solve's two, then the run's) as their maximum and sum over the ranks, on
 * rank 0.  Collective. */
int solve_rss_reduce(MPI_Comm comm, const int64_t *own, const pm_run_result_t *r, int64_t rss[2][RSS_STAGES]) {
  int64_t v[RSS_STAGES];
  v[RSS_LOAD] = own[0];
  v[RSS_REFINE] = own[1];
  for (int s = 0; s < PM_RUN_STAGES; s++) v[RSS_RUN + s] = r->peak_rss[s];
  PM_CALL_MPI(MPI_Reduce(v, rss[0], RSS_STAGES, MPI_INT64_T, MPI_MAX, 0, comm));
  PM_CALL_MPI(MPI_Reduce(v, rss[1], RSS_STAGES, MPI_INT64_T, MPI_SUM, 0, comm));
  return PM_OK;
}

/* "hexahedron 1000, tetrahedron 20" into buf. */
static void cells_text(const mesh_info_t *mi, char *buf, size_t size, int json) {
  size_t used = 0;
  buf[0] = '\0';
  for (int c = 0; c < PM_CELL_NTYPES && used + 1 < size; c++)
    if (mi->cells[c] > 0)
      used += (size_t)snprintf(buf + used, size - used, json ? "%s\"%s\": %" PRId64 : "%s%s %" PRId64, used ? ", " : "",
                               pm_cell_get((pm_cell_type_t)c)->name, mi->cells[c]);
}

/* --summary: the run's figures as JSON. */
static void write_summary(const params_t *p, const mesh_info_t *mi, int size, const pm_run_result_t *r,
                          const pm_pc_t *pc, double t_load, double t_refine, double t_total,
                          int64_t rss[2][RSS_STAGES]) {
  int transient = p->steps > 0;
  const pm_cg_result_t *res = &r->cg;
  int it = res->iterations > 0 ? res->iterations : 1;
  const char *scheme = pm_scheme_name((pm_scheme_t)p->scheme), *precond = precond_names[p->precond];
  char cells[256];
  cells_text(mi, cells, sizeof cells, 1);
  const char *mass = p->mass == PM_MASS_LUMPED ? "lumped" : "consistent";
  const char *exchange = pm_exchange_name((pm_exchange_t)p->exchange);
  double it_avg = r->steps_done ? (double)r->it_total / r->steps_done : 0.0;
  double per = r->unknowns > 0 ? (double)rss[1][RSS_STAGES - 1] / (double)r->unknowns : 0.0;
  pm_tool_out_t o;
  if (p->summary[0] && !pm_tool_open(tool, &o, p->summary)) {
    fprintf(o.fp,
            "{\n  \"tool\": \"solve\",\n  \"version\": \"%s\",\n  \"ranks\": %d,\n  \"dim\": %d,\n"
            "  \"cells\": {%s},\n  \"unknowns\": %" PRId64 ",\n  \"fixed\": %" PRId64
            ",\n  \"scheme\": \"%s\",\n  \"precond\": \"%s\",\n  \"fine_operator\": \"%s\",\n  \"exchange\": \"%s\",\n"
            "  \"iterations\": %d,\n  \"converged\": %s,\n  \"residual\": %.17g,\n  \"u_min\": %.17g,\n  "
            "\"u_max\": %.17g,\n",
            PMESH_VERSION, size, mi->dim, cells, r->unknowns, r->fixed, scheme, precond,
            p->fine_operator == FINE_MATRIX_FREE ? "matrix-free" : "assembled", exchange, res->iterations,
            r->converged ? "true" : "false", transient ? r->residual_max : res->residual, r->u_min, r->u_max);
    if (transient)
      fprintf(o.fp,
              "  \"transient\": {\"dt\": %.17g, \"steps\": %d, \"steps_done\": %d, \"time\": %.17g, \"every\": %d,"
              " \"mass\": \"%s\",\n                \"iterations_total\": %" PRId64
              ", \"iterations_min\": %d, \"iterations_avg\": %.6f, \"iterations_max\": %d,\n"
              "                \"steps_written\": %d},\n",
              p->dt, p->steps, r->steps_done, r->steps_done * p->dt, p->every, mass, r->it_total, r->it_min, it_avg,
              r->it_max, r->steps_written);
    if (p->exact[0]) fprintf(o.fp, "  \"error_max\": %.17g,\n  \"error_l2\": %.17g,\n", r->error_max, r->error_l2);
    if (p->precond == PRECOND_AMG || p->precond == PRECOND_MG) {
      fprintf(o.fp, "  \"%s\": {", precond);
      pm_pc_view(pc, o.fp, 1);
      fprintf(o.fp, "},\n");
    }
    if (p->refine > 0) fprintf(o.fp, "  \"refine\": %d,\n", p->refine);
    fprintf(o.fp, "  \"seconds\": {\"load\": %.6f, ", t_load);
    if (p->refine > 0) fprintf(o.fp, "\"refine\": %.6f, ", t_refine);
    fprintf(o.fp,
            "\"assembly\": %.6f, \"solve\": %.6f, \"solver_setup\": %.6f, "
            "\"per_iteration\": %.9f,\n"
            "              \"spmv\": %.6f, \"exchange\": %.6f, \"reductions\": %.6f, \"vector_updates\": %.6f,\n"
            "              \"output\": %.6f, \"total\": %.6f},\n  \"output_bytes\": %" PRId64 ",\n",
            r->t_assembly, res->t_total, res->t_setup, (res->t_total - res->t_setup) / it, res->t_spmv, res->t_exchange,
            res->t_reduce, res->t_update, r->t_output, t_total, p->no_output ? 0 : r->output_bytes);
    /* Peaks so far at the end of each stage (monotonic), the largest rank's and the sum. */
    for (int m = 0; m < 2; m++) {
      fprintf(o.fp, "  \"peak_rss_bytes_%s\": {", m ? "sum" : "max");
      for (int s = 0; s < RSS_STAGES; s++)
        if (s != RSS_REFINE || p->refine > 0)
          fprintf(o.fp, "%s\"%s\": %" PRId64, s ? ", " : "", rss_name(s), rss[m][s]);
      fprintf(o.fp, "},\n");
    }
    fprintf(o.fp, "  \"peak_rss_bytes_per_unknown\": %.1f\n}\n", per);
    pm_tool_close(tool, &o, 1);
  }
}

/* Why the run failed, when CG did not converge. */
static void print_failure(const params_t *p, const pm_run_result_t *r) {
  int transient = p->steps > 0;
  const pm_cg_result_t *res = &r->cg;
  if (!r->converged && transient)
    fprintf(stderr,
            "%s: error: CG did not converge at step %d (t = %g) in %d iterations (||r||/||b|| = %.3e > rtol %.1e); "
            "no result was written (a smaller --dt or a larger --maxit may help)\n",
            tool, r->failed_step, r->failed_step * p->dt, r->failed_iterations, r->failed_residual, p->rtol);
  else if (!r->converged)
    fprintf(stderr, "%s: error: CG did not converge in %d iterations (||r||/||b|| = %.3e > rtol %.1e)\n", tool,
            res->iterations, res->residual, p->rtol);
}

/* Rank 0: the figures of the run on stdout and, with --summary, as JSON. */
void solve_print_report(const params_t *p, const mesh_info_t *mi, int size, const pm_run_result_t *r, const pm_pc_t *pc,
                        double t_load, double t_refine, double t_total, int64_t rss[2][RSS_STAGES]) {
  int transient = p->steps > 0, fdm = p->scheme != PM_SCHEME_FEM;
  const pm_cg_result_t *res = &r->cg;
  int it = res->iterations > 0 ? res->iterations : 1;
  const char *scheme = pm_scheme_name((pm_scheme_t)p->scheme), *precond = precond_names[p->precond];
  char cells[256];
  cells_text(mi, cells, sizeof cells, 0);
  const char *mass = p->mass == PM_MASS_LUMPED ? "lumped" : "consistent";
  const char *exchange = pm_exchange_name((pm_exchange_t)p->exchange);
  double it_avg = r->steps_done ? (double)r->it_total / r->steps_done : 0.0;
  printf("mesh: %dD, cells: %s\n", mi->dim, cells);
  printf("solve: %d ranks, %" PRId64 " unknowns (%" PRId64 " fixed), scheme %s, precond %s%s%s, exchange %s%s\n", size,
         r->unknowns, r->fixed, scheme, precond, p->precond_auto ? " (auto)" : "",
         p->fine_operator == FINE_MATRIX_FREE ? ", fine operator matrix-free" : "", exchange,
         p->reproducible ? ", reproducible (exact sums)" : "");
  if (transient) {
    const char *init = p->initial[0] ? p->initial : p->initial_value[0] ? p->initial_value : "0";
    printf("transient: %d steps of dt %.6g to t = %.6g, mass %s%s, initial %s\n", r->steps_done, p->dt,
           r->steps_done * p->dt, mass, fdm ? " (finite differences: the nodal value)" : "", init);
    printf("cg: %s, %" PRId64
           " iterations in total, per step min %d avg %.2f max %d, worst ||r||/||b|| = %.3e "
           "(rtol %.1e)\n",
           r->converged ? "every step converged" : "NOT converged", r->it_total, r->it_min, it_avg, r->it_max,
           r->residual_max, p->rtol);
  } else if (p->rtol == 0) {
    printf("cg: ran %d iterations (--rtol 0: --maxit %d of them), ||r||/||b|| = %.3e\n", res->iterations, p->maxit,
           res->residual);
  } else {
    printf("cg: %s after %d iterations, ||r||/||b|| = %.3e (rtol %.1e)\n",
           res->converged ? "converged" : "NOT converged", res->iterations, res->residual, p->rtol);
  }
  printf(
      "time per iteration %.3f ms: spmv %.3f, exchange %.3f, reductions %.3f, vector updates %.3f "
      "(solver set-up %.3f s apart)\n",
      1e3 * (res->t_total - res->t_setup) / it, 1e3 * res->t_spmv / it, 1e3 * res->t_exchange / it,
      1e3 * res->t_reduce / it, 1e3 * res->t_update / it, res->t_setup);
  if (p->refine > 0) printf("refined %d times on every rank\n", p->refine);
  if (p->precond == PRECOND_AMG || p->precond == PRECOND_MG) pm_pc_view(pc, stdout, 0);
  printf("u: min %.10g max %.10g%s\n", r->u_min, r->u_max, transient ? " (last step)" : "");
  if (p->exact[0]) printf("error against %s: max %.6e, L2 %.6e\n", p->exact, r->error_max, r->error_l2);
  if (p->refine > 0)
    printf("seconds: load %.3f, refine %.3f, assembly %.3f, solve %.3f, output %.3f, total %.3f\n", t_load, t_refine,
           r->t_assembly, res->t_total, r->t_output, t_total);
  else
    printf("seconds: load %.3f, assembly %.3f, solve %.3f, output %.3f, total %.3f\n", t_load, r->t_assembly,
           res->t_total, r->t_output, t_total);
  /* The peak after the last stage is the run's; the stage where it grows is where memory goes. */
  double per = r->unknowns > 0 ? (double)rss[1][RSS_STAGES - 1] / (double)r->unknowns : 0.0;
  printf("peak memory (MB, largest rank / sum over ranks) after:");
  for (int s = 0; s < RSS_STAGES; s++)
    if (s != RSS_REFINE || p->refine > 0)
      printf("%s %s %.0f/%.0f", s ? "," : "", rss_name(s), rss[0][s] / 1048576.0, rss[1][s] / 1048576.0);
  printf("; %.0f bytes per unknown\n", per);
  if (!p->no_output && (r->converged || !transient))
    printf("result: %s (%s beside it, open it in ParaView)%s\n", p->out_h5, p->out_xmf,
           transient ? ": a time series" : "");
  write_summary(p, mi, size, r, pc, t_load, t_refine, t_total, rss);
  print_failure(p, r);
}
