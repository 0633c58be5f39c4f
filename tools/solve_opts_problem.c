/* solve_opts_problem.c - solve's options of the problem: [GROUP=]VALUE and Robin values, the
 * lecture's control file and the defaults, the checks of the problem against the partition's
 * metadata (groups and their dimensions, the scheme and the mesh's dimension), and the problem
 * they make (solve_build_problem, on every rank). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_tool.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_lecture.h"
#include "solve.h"

/* --source, --conductivity ([GROUP=]EXPR), --dirichlet, --neumann (GROUP=EXPR). */
int solve_opt_bc(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  int which = !strcmp(opt, "--source") ? 0 : !strcmp(opt, "--conductivity") ? 1 : !strcmp(opt, "--dirichlet") ? 2 : 3;
  int *cnt[4] = {&p->n_source, &p->n_cond, &p->n_dir, &p->n_neu}, need_group = which >= 2;
  char(*grp[4])[NAME_LEN] = {p->src_group, p->cond_group, p->dir_group, p->neu_group};
  char(*ex[4])[EXPR_LEN] = {p->src_expr, p->cond_expr, p->dir_expr, p->neu_expr};
  if (*cnt[which] == MAXBC) return pm_tool_error(tool, "%s: at most %d of them", opt, MAXBC);
  const char *eq = strchr(v, '=');
  if (!eq && need_group) return pm_tool_error(tool, "%s %s: expected GROUP=VALUE", opt, v);
  size_t gl = eq ? (size_t)(eq - v) : 0;
  const char *e = eq ? eq + 1 : v;
  if (eq && gl == 0) return pm_tool_error(tool, "%s %s: the group name before '=' is empty", opt, v);
  if (e[0] == '\0')
    return pm_tool_error(tool, "%s %s: the value is empty (expected %sVALUE)", opt, v,
                         need_group ? "GROUP=" : "[GROUP=]");
  if (gl >= NAME_LEN || strlen(e) >= EXPR_LEN)
    return pm_tool_error(tool, "%s %s: a group name below %d and a value below %d characters, please", opt, v, NAME_LEN,
                         EXPR_LEN);
  memcpy(grp[which][*cnt[which]], v, gl);
  grp[which][*cnt[which]][gl] = '\0';
  strcpy(ex[which][(*cnt[which])++], e);
  return 0;
}

/* --robin GROUP=H,U_INF: the comma outside parentheses splits the two expressions. */
int solve_opt_robin(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  if (p->n_rob == MAXBC) return pm_tool_error(tool, "%s: at most %d of them", opt, MAXBC);
  const char *eq = strchr(v, '='), *comma = NULL;
  int depth = 0, commas = 0;
  for (const char *c = eq ? eq + 1 : v; *c; c++) {
    depth += (*c == '(') - (*c == ')');
    if (*c == ',' && depth == 0) {
      commas++;
      comma = c;
    }
  }
  size_t gl = eq ? (size_t)(eq - v) : 0, hl = comma && eq ? (size_t)(comma - eq - 1) : 0;
  if (!eq || gl == 0 || commas != 1 || hl == 0 || !comma[1])
    return pm_tool_error(tool, "%s %s: expected GROUP=H,U_INF (the flux k du/dn = H (U_INF - u))", opt, v);
  if (gl >= NAME_LEN || hl >= EXPR_LEN || strlen(comma + 1) >= EXPR_LEN)
    return pm_tool_error(tool, "%s %s: a group name below %d and values below %d characters", opt, v, NAME_LEN,
                         EXPR_LEN);
  memcpy(p->rob_group[p->n_rob], v, gl);
  p->rob_group[p->n_rob][gl] = '\0';
  memcpy(p->rob_h[p->n_rob], eq + 1, hl);
  p->rob_h[p->n_rob][hl] = '\0';
  strcpy(p->rob_uinf[p->n_rob++], comma + 1);
  return 0;
}

/* Insert an ungrouped value first in a list of [GROUP=]VALUE entries, so that the elements of no
 * group given keep it (later entries override it on their groups). */
static int prepend_default(int *n, char (*grp)[NAME_LEN], char (*ex)[EXPR_LEN], const char *value, const char *opt) {
  for (int i = 0; i < *n; i++)
    if (!grp[i][0]) return 0; /* an ungrouped value covers every element already */
  if (*n == MAXBC) return pm_tool_error(tool, "%s: at most %d values with GROUP= when none is without", opt, MAXBC - 1);
  memmove(grp + 1, grp, (size_t)*n * sizeof *grp);
  memmove(ex + 1, ex, (size_t)*n * sizeof *ex);
  grp[0][0] = '\0';
  snprintf(ex[0], EXPR_LEN, "%s", value);
  (*n)++;
  return 0;
}

/* The lecture's control file, then the defaults of what is still unset. */
int solve_apply_defaults(const pm_tool_opt_t *t, params_t *p, const char *control, const pm_meta_t *meta) {
  char q[64] = "1", cond[64] = "1";
  if (control) {
    pm_lecture_control_t c;
    int ierr = pm_lecture_control_read(control, &c);
    if (ierr) return pm_tool_report(tool, ierr);
    if (c.neg != meta->global_elems)
      return pm_tool_error(tool,
                           "%s: NEg = %" PRId64 ", but the partition in %s has %" PRId64
                           " elements (make it with: meshgen line %" PRId64 " %g)",
                           control, c.neg, p->dir, meta->global_elems, c.neg, c.dx);
    snprintf(q, sizeof q, "%.17g", c.q);
    snprintf(cond, sizeof cond, "%.17g", c.cond);
    if (!pm_tool_seen(t, "--area")) p->area = c.a;
    if (!pm_tool_seen(t, "--maxit")) p->maxit = (int)c.itermax;
    if (!pm_tool_seen(t, "--rtol")) p->rtol = c.eps;
    for (int g = 0; p->n_dir == 0 && g < meta->n_groups; g++)
      if (strcmp(meta->group_name[g], "xmin") == 0) {
        strcpy(p->dir_group[0], "xmin");
        strcpy(p->dir_expr[0], "0");
        p->n_dir = 1;
      }
  }
  if (prepend_default(&p->n_source, p->src_group, p->src_expr, q, "--source")) return -1;
  if (prepend_default(&p->n_cond, p->cond_group, p->cond_expr, cond, "--conductivity")) return -1;
  if (p->n_dir == 0 && p->n_neu == 0 && p->n_rob == 0 && !p->exchange_test) {
    strcpy(p->dir_group[0], "boundary");
    strcpy(p->dir_expr[0], "0");
    p->n_dir = 1;
  }
  if (p->precond == PRECOND_AUTO) {
    /* The unknowns after --refine: each refinement multiplies them by about 2^dim. */
    double unknowns = (double)meta->global_nodes * pow(meta->dim == 3 ? 8.0 : meta->dim == 2 ? 4.0 : 2.0, p->refine);
    p->precond_auto = 1;
    p->precond = unknowns >= AUTO_AMG_UNKNOWNS && !p->reproducible && !control ? PRECOND_AMG : PRECOND_JACOBI;
  }
  return 0;
}

/* A constant conductivity must be positive (a non-constant one is checked at the elements' nodes
 * at the elements' centres once they are loaded, in solve.c). */
static int check_conductivity(const params_t *p) {
  for (int i = 0; i < p->n_cond; i++) {
    pm_expr_t *ex = NULL;
    if (pm_expr_create(p->cond_expr[i], &ex)) continue; /* the problem's check names it */
    double k = pm_expr_is_const(ex) ? pm_expr_eval(ex, 0, 0, 0) : 1.0;
    pm_expr_destroy(&ex);
    if (!(k > 0) || !isfinite(k))
      return pm_tool_error(tool, "--conductivity %s%s%s: the conductivity must be positive and finite (it is %g)",
                           p->cond_group[i], p->cond_group[i][0] ? "=" : "", p->cond_expr[i], k);
  }
  return 0;
}

/* The problem against the mesh's groups, and every expression (the ranks would all fail alike
 * later; say it once, here, with the option concerned). */
int solve_check_problem(params_t *p, const pm_meta_t *meta) {
  pm_problem_item_t bad = PM_PROBLEM_NONE;
  pm_problem_t *prob = NULL;
  const char *prefix = "";
  int ierr = solve_build_problem(p, &prob);
  if (!ierr) ierr = pm_problem_check(prob, meta, &bad);
  const char *single[2] = {p->exact, p->initial_value}, *single_opt[2] = {"--exact: ", "--initial-value: "};
  for (int w = 0; w < 2 && !ierr; w++) {
    pm_expr_t *ex = NULL;
    if (single[w][0]) ierr = pm_expr_create(single[w], &ex);
    if (ierr) prefix = single_opt[w];
    pm_expr_destroy(&ex);
  }
  /* A steady run has no time: t in its data or in --exact is refused. */
  if (!ierr && p->steps == 0 && pm_problem_depends_on_time(prob, &bad))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "uses the time t, which only a transient run (--dt DT --steps N) defines");
  if (!ierr && p->steps == 0 && p->exact[0] && pm_value_depends_on_time(pm_value_expr(p->exact)))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "--exact: uses the time t, which only a transient run (--dt DT --steps N) defines");
  pm_problem_destroy(&prob);
  if (ierr) {
    static const char *opt[] = {"", "--source: ", "--conductivity: ", "--dirichlet: ", "--neumann: ", "--robin: "};
    pm_error_prefix(bad != PM_PROBLEM_NONE ? opt[bad] : prefix);
    return pm_tool_report(tool, ierr);
  }
  return check_conductivity(p);
}

int solve_build_problem(const params_t *p, pm_problem_t **prob) {
  PM_CALL(pm_problem_create(prob));
  pm_problem_t *q = *prob;
  PM_CALL(pm_problem_set_scheme(q, (pm_scheme_t)p->scheme));
  PM_CALL(pm_problem_set_area(q, p->area));
  for (int i = 0; i < p->n_source; i++)
    PM_CALL(pm_problem_set_source(q, p->src_group[i][0] ? p->src_group[i] : NULL, pm_value_expr(p->src_expr[i])));
  for (int i = 0; i < p->n_cond; i++)
    PM_CALL(
        pm_problem_set_conductivity(q, p->cond_group[i][0] ? p->cond_group[i] : NULL, pm_value_expr(p->cond_expr[i])));
  for (int i = 0; i < p->n_dir; i++)
    PM_CALL(pm_problem_add_dirichlet(q, p->dir_group[i], pm_value_expr(p->dir_expr[i])));
  for (int i = 0; i < p->n_neu; i++) PM_CALL(pm_problem_add_neumann(q, p->neu_group[i], pm_value_expr(p->neu_expr[i])));
  for (int i = 0; i < p->n_rob; i++)
    PM_CALL(pm_problem_add_robin(q, p->rob_group[i], pm_value_expr(p->rob_h[i]), pm_value_expr(p->rob_uinf[i])));
  return PM_OK;
}

