/* solve_opts_text.c - the options that solve a problem again, as one shell command line (the
 * result's attribute solve_options). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pmesh/pm_run.h"
#include "solve.h"

/* One word of a command line, quoted for a POSIX shell when it needs it. */
static void append_word(char *buf, size_t size, size_t *used, const char *w) {
  int plain = w[0] != '\0';
  for (const char *c = w; *c; c++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:+", *c)) plain = 0;
  if (*used > 0 && *used + 1 < size) buf[(*used)++] = ' ';
  if (!plain && *used + 1 < size) buf[(*used)++] = '\'';
  for (const char *c = w; *c && *used + 5 < size; c++) {
    if (*c == '\'' && !plain) {
      memcpy(buf + *used, "'\\''", 4);
      *used += 4;
    } else {
      buf[(*used)++] = *c;
    }
  }
  if (!plain && *used + 1 < size) buf[(*used)++] = '\'';
  buf[*used < size ? *used : size - 1] = '\0';
}

static void append_opt(char *buf, size_t size, size_t *used, const char *opt, const char *v1, const char *v2) {
  char word[NAME_LEN + 2 * EXPR_LEN + 2];
  append_word(buf, size, used, opt);
  if (!v1) return;
  snprintf(word, sizeof word, "%s%s%s", v1, v2 ? "=" : "", v2 ? v2 : "");
  append_word(buf, size, used, v2 && !v1[0] ? v2 : word);
}

void solve_options_text(const params_t *p, char *buf, size_t size) {
  static const char *precond[PRECOND_COUNT] = {"none", "jacobi", "amg", "mg", "auto"};
  char num[64], rob[2 * EXPR_LEN + 2];
  size_t used = 0;
  buf[0] = '\0';
  if (p->scheme != PM_SCHEME_FEM) append_opt(buf, size, &used, "--scheme", pm_scheme_name((pm_scheme_t)p->scheme), NULL);
  for (int i = 0; i < p->n_source; i++) append_opt(buf, size, &used, "--source", p->src_group[i], p->src_expr[i]);
  for (int i = 0; i < p->n_cond; i++) append_opt(buf, size, &used, "--conductivity", p->cond_group[i], p->cond_expr[i]);
  for (int i = 0; i < p->n_dir; i++) append_opt(buf, size, &used, "--dirichlet", p->dir_group[i], p->dir_expr[i]);
  for (int i = 0; i < p->n_neu; i++) append_opt(buf, size, &used, "--neumann", p->neu_group[i], p->neu_expr[i]);
  for (int i = 0; i < p->n_rob; i++) {
    snprintf(rob, sizeof rob, "%s,%s", p->rob_h[i], p->rob_uinf[i]);
    append_opt(buf, size, &used, "--robin", p->rob_group[i], rob);
  }
  if (p->dim == 1) {
    snprintf(num, sizeof num, "%.17g", p->area);
    append_opt(buf, size, &used, "--area", num, NULL);
  }
  if (p->refine > 0) {
    snprintf(num, sizeof num, "%d", p->refine);
    append_opt(buf, size, &used, "--refine", num, NULL);
  }
  append_opt(buf, size, &used, "--precond", precond[p->precond], NULL);
  if (p->precond == PRECOND_AMG || p->precond == PRECOND_MG) {
    pm_amg_options_t o;
    solve_amg_options(p, &o);
    snprintf(num, sizeof num, "%.17g", o.threshold);
    append_opt(buf, size, &used, "--amg-threshold", num, NULL);
    append_opt(buf, size, &used, "--amg-smoother", pm_amg_smoother_name(o.smoother), NULL);
    const char *iopt[4] = {"--amg-sweeps", "--amg-levels", "--amg-coarse", "--amg-rows-per-rank"};
    int64_t iv[4] = {o.sweeps, o.max_levels, (int64_t)o.coarse_size, (int64_t)o.rows_per_rank};
    for (int k = 0; k < 4; k++) {
      snprintf(num, sizeof num, "%" PRId64, iv[k]);
      append_opt(buf, size, &used, iopt[k], num, NULL);
    }
    append_opt(buf, size, &used, "--amg-precision", pm_amg_precision_name(o.precision), NULL);
  }
  if (p->precond == PRECOND_MG)
    append_opt(buf, size, &used, "--mg-coarse", p->mg_coarse ? "galerkin" : "rediscretize", NULL);
  if (p->fine_operator == FINE_MATRIX_FREE) append_opt(buf, size, &used, "--fine-operator", "matrix-free", NULL);
  snprintf(num, sizeof num, "%.17g", p->rtol);
  append_opt(buf, size, &used, "--rtol", num, NULL);
  snprintf(num, sizeof num, "%d", p->maxit);
  append_opt(buf, size, &used, "--maxit", num, NULL);
  if (p->reproducible) append_opt(buf, size, &used, "--reproducible", NULL, NULL);
  if (p->exact[0]) append_opt(buf, size, &used, "--exact", p->exact, NULL);
  if (p->steps > 0) {
    snprintf(num, sizeof num, "%.17g", p->dt);
    append_opt(buf, size, &used, "--dt", num, NULL);
    snprintf(num, sizeof num, "%d", p->steps);
    append_opt(buf, size, &used, "--steps", num, NULL);
    snprintf(num, sizeof num, "%d", p->every);
    append_opt(buf, size, &used, "--every", num, NULL);
    append_opt(buf, size, &used, "--mass", p->mass == PM_MASS_LUMPED ? "lumped" : "consistent", NULL);
  }
  if (p->initial_value[0]) append_opt(buf, size, &used, "--initial-value", p->initial_value, NULL);
  if (p->initial[0]) {
    append_opt(buf, size, &used, "--initial", p->initial, NULL);
    append_opt(buf, size, &used, "--initial-field", p->initial_field, NULL);
    if (p->initial_step >= 0) {
      snprintf(num, sizeof num, "%d", p->initial_step);
      append_opt(buf, size, &used, "--initial-step", num, NULL);
    }
  }
}
