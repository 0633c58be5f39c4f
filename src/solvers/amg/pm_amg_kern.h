/* pm_amg_kern.h - the V-cycle's kernels in one precision, included by pm_amg_cycle.c once per
 * precision with T (float or double), F(name) (name with the precision's suffix) and MPI_T
 * defined.  Not a header of its own: no include guard, on purpose.
 *
 * Every level's values, vectors and P are in T (pm_amg_cycle.h), but for a wide level's values
 * (pm_amg_rows.h).  The smoother's sweeps are fused with their products: one pass over a row
 * computes (A v)_i and updates the row's residual, direction and iterate, so each step reads the
 * matrix and its vectors once. */

/* A fused sweep over rows [i0, i1): the finest level of a geometric multigrid may read double
 * values with float vectors (ROWS_WIDE, defined for float). */
static void F(sweep)(const pm_amg_level_t *lv, pass_kind_t kind, const pm_amg_pass_t *ps, int32_t i0, int32_t i1) {
#ifdef ROWS_WIDE
  if (lv->wide) {
    ROWS_WIDE(lv, kind, ps, i0, i1);
    return;
  }
#endif
  F(rows)(lv, kind, ps, i0, i1);
}

/* The sweep of a level whose operator is a shell: its product y = A v in double first, then the
 * same updates as the fused rows. */
static int F(shell_pass)(const pm_amg_level_t *lv, pass_kind_t kind, const pm_amg_pass_t *ps) {
  int32_t n = lv->a->n;
  const T *v = ps->v, *b = ps->b, *dinv = lv->dinv;
  T *r = ps->r, *w = ps->w, *wn = ps->wn, *x = ps->x, al = (T)ps->al, be = (T)ps->be;
  double *xv = lv->opx ? lv->opx : (double *)ps->v, *y = lv->opy;
  if (lv->opx)
    for (int32_t i = 0; i < n; i++) xv[i] = (double)v[i];
  PM_CALL(pm_op_apply(lv->op, xv, y));
  for (int32_t i = 0; i < n; i++) {
    T ri = kind == PASS_START ? b[i] - (T)y[i] : r[i] - (T)y[i];
    r[i] = ri;
    if (kind == PASS_START) {
      w[i] = be * dinv[i] * ri;
      continue;
    }
    T wi = w[i];
    if (kind == PASS_STEP) wn[i] = al * wi + be * dinv[i] * ri;
    x[i] = ps->set ? wi : x[i] + wi;
  }
  return PM_OK;
}

/* A fused sweep over the owned rows, with v's externals refreshed by a halo update overlapped
 * with the interior rows. */
static int F(pass)(const pm_amg_level_t *lv, pass_kind_t kind, const pm_amg_pass_t *ps) {
  if (lv->op) return F(shell_pass)(lv, kind, ps);
  const pm_csr_t *a = lv->a;
  PM_CALL(pm_halo_update_begin(lv->halo, ps->v, MPI_T, 1));
  for (int32_t k = 0; k < a->n_runs_interior; k++) F(sweep)(lv, kind, ps, a->runs[2 * k], a->runs[2 * k + 1]);
  PM_CALL(pm_halo_update_end(lv->halo, ps->v, MPI_T, 1));
  for (int32_t k = a->n_runs_interior; k < a->n_runs; k++) F(sweep)(lv, kind, ps, a->runs[2 * k], a->runs[2 * k + 1]);
  return PM_OK;
}

/* The smoother (pm_amg_cycle.c's comment): from x = 0 (zero) or from x, leaving b - A x in
 * lv->r when want_r. */
static int F(smooth)(const pm_amg_hier_t *h, pm_amg_level_t *lv, const T *b, T *x, int zero, int want_r) {
  int32_t n = lv->a->n;
  T *r = lv->r, *w = lv->w, *wn = lv->q;
  const T *dinv = lv->dinv;
  smooth_coef_t c;
  smooth_coef_init(h, lv, &c);
  pm_amg_pass_t ps = {.b = b, .r = r, .x = x, .be = c.c0, .set = zero};
  if (zero) {
    T c0 = (T)c.c0;
    for (int32_t i = 0; i < n; i++) {
      r[i] = b[i];
      w[i] = c0 * dinv[i] * b[i];
    }
  } else {
    ps.v = x;
    ps.w = w;
    PM_CALL(F(pass)(lv, PASS_START, &ps));
  }
  for (int s = 1; s < h->opt.sweeps; s++) {
    smooth_coef_next(&c, &ps.al, &ps.be);
    ps.v = w;
    ps.w = w;
    ps.wn = wn;
    PM_CALL(F(pass)(lv, PASS_STEP, &ps));
    ps.set = 0;
    T *t = w;
    w = wn;
    wn = t;
  }
  if (want_r) {
    ps.v = w;
    ps.w = w;
    return F(pass)(lv, PASS_LAST, &ps);
  }
  for (int32_t i = 0; i < n; i++) x[i] = ps.set ? w[i] : x[i] + w[i];
  return PM_OK;
}

/* The coarsest level's factor is in double: b widened, the solution narrowed. */
static int F(direct)(pm_amg_hier_t *h, pm_amg_level_t *lv, const T *b, T *x) {
  pm_amg_direct_t *d = &h->dir;
  int32_t n = lv->a->n;
  for (int32_t i = 0; i < n; i++) d->bl[i] = (double)b[i];
  PM_CALL(pm_amg_direct_solve(h, lv));
  const double *y = d->y + d->off[lv->dm->rank];
  for (int32_t i = 0; i < n; i++) x[i] = (T)y[i];
  return PM_OK;
}

static int F(cycle)(pm_amg_hier_t *h, int l, const T *b, T *x) {
  pm_amg_level_t *lv = &h->lev[l];
  if (l == h->nlev - 1) {
    if (h->direct) return F(direct)(h, lv, b, x);
    PM_CALL(F(smooth)(h, lv, b, x, 1, 0));
    return F(smooth)(h, lv, b, x, 0, 0);
  }
  pm_amg_level_t *cv = &h->lev[l + 1];
  const pm_amg_p_t *p = lv->p;
  const T *restrict pv = lv->vp;
  /* P's columns: the next level's layout, or the transfer layout when the next level is on
   * fewer ranks (its owned rows are the next level's, in the same order). */
  const pm_dmat_t *t = lv->xdm ? lv->xdm : cv->dm;
  T *tb = lv->xdm ? lv->xv : cv->b, *tx = lv->xdm ? lv->xv : cv->x;
  const T *r = lv->r;
  int32_t n = lv->a->n, nc = t->n;
  PM_CALL(F(smooth)(h, lv, b, x, 1, 1));
  /* b_c = P^T r by the rows of P^T (sums in registers, no scattered updates); the externals'
   * parts are accumulated at their owners. */
  const pm_amg_pt_t *pt = &lv->pt;
  const T *restrict tv = pt->val, *restrict pw = lv->vw;
  for (int32_t c = 0; c < t->ncol; c++) {
    T s = 0;
    if (pw)
      for (int32_t k = pt->ptr[c]; k < pt->ptr[c + 1]; k++) s += pw[pt->row[k]] * r[pt->row[k]];
    else
      for (int32_t k = pt->ptr[c]; k < pt->ptr[c + 1]; k++) s += tv[k] * r[pt->row[k]];
    tb[c] = s;
  }
  PM_CALL(pm_halo_accumulate(t->halo, tb, MPI_T, 1));
  if (!cv->idle) {
    if (tb != (T *)cv->b) memcpy(cv->b, tb, (size_t)nc * sizeof *tb);
    PM_CALL(F(cycle)(h, l + 1, cv->b, cv->x));
    if (tx != (T *)cv->x) memcpy(tx, cv->x, (size_t)nc * sizeof *tx);
  }
  /* x += P x_c, with x_c's externals from their owners. */
  PM_CALL(pm_halo_update(t->halo, tx, MPI_T, 1));
  for (int32_t i = 0; i < n; i++) {
    T s = 0;
    if (pw) {
      for (int32_t k = p->ptr[i]; k < p->ptr[i + 1]; k++) s += tx[p->col[k]];
      s *= pw[i];
    } else {
      for (int32_t k = p->ptr[i]; k < p->ptr[i + 1]; k++) s += pv[k] * tx[p->col[k]];
    }
    x[i] += s;
  }
  return F(smooth)(h, lv, b, x, 0, 0);
}

/* The level's values in T: double borrows the operator's and P's arrays, float copies them (a
 * wide level borrows the operator's). */
static int F(level_values)(pm_amg_level_t *lv, int copy) {
  const pm_csr_t *a = lv->a;
  int32_t n = a->n, nnz = a->index[n];
  lv->va = a->amat;
  lv->vd = a->d;
  lv->vp = lv->p && !copy ? lv->p->val : NULL;
  if (!copy) return PM_OK;
  if (!lv->wide) {
    T *va = NULL, *vd = NULL;
    lv->va = lv->vd = NULL;
    PM_CALL(PM_MALLOC(va, (size_t)nnz + 1, "level operator (cycle precision)"));
    lv->va = va;
    for (int32_t k = 0; k < nnz; k++) va[k] = (T)a->amat[k];
    if (a->d) {
      PM_CALL(PM_MALLOC(vd, (size_t)n + 1, "level diagonal (cycle precision)"));
      lv->vd = vd;
      for (int32_t i = 0; i < n; i++) vd[i] = (T)a->d[i];
    }
  }
  if (lv->p && !lv->vw) {
    T *vp = NULL;
    int32_t np = lv->p->ptr[lv->p->n];
    lv->vp = NULL;
    PM_CALL(PM_MALLOC(vp, (size_t)np + 1, "level prolongator (cycle precision)"));
    lv->vp = vp;
    for (int32_t k = 0; k < np; k++) vp[k] = (T)lv->p->val[k];
  }
  return PM_OK;
}

/* A P whose every row has one weight (a refinement's: 1 / the number of parents) keeps that
 * weight per row instead of one per entry, here and in P^T (lv->vw; NULL when some row has two). */
static int F(level_row_weights)(pm_amg_level_t *lv) {
  const pm_amg_p_t *p = lv->p;
  for (int32_t i = 0; i < p->n; i++)
    for (int32_t k = p->ptr[i] + 1; k < p->ptr[i + 1]; k++)
      if (p->val[k] != p->val[p->ptr[i]]) return PM_OK;
  T *w = NULL;
  PM_CALL(PM_MALLOC(w, (size_t)p->n + 1, "prolongator row weights"));
  for (int32_t i = 0; i < p->n; i++) w[i] = p->ptr[i + 1] > p->ptr[i] ? (T)p->val[p->ptr[i]] : (T)0;
  lv->vw = w;
  return PM_OK;
}

/* P^T by rows (the transfer layout's ncol columns of P), its values in T. */
static int F(level_transpose)(pm_amg_level_t *lv, int32_t ncol) {
  const pm_amg_p_t *p = lv->p;
  pm_amg_pt_t *pt = &lv->pt;
  const T *pv = lv->vp;
  int32_t n = p->n, nnz = p->ptr[n];
  T *val = NULL;
  PM_CALL(PM_CALLOC(pt->ptr, (size_t)ncol + 2, "P transpose"));
  PM_CALL(PM_MALLOC(pt->row, (size_t)nnz + 1, "P transpose rows"));
  if (!lv->vw) PM_CALL(PM_MALLOC(val, (size_t)nnz + 1, "P transpose values"));
  pt->val = val;
  for (int32_t k = 0; k < nnz; k++) pt->ptr[p->col[k] + 2]++;
  for (int32_t c = 0; c < ncol; c++) pt->ptr[c + 2] += pt->ptr[c + 1];
  for (int32_t i = 0; i < n; i++)
    for (int32_t k = p->ptr[i]; k < p->ptr[i + 1]; k++) {
      int32_t at = pt->ptr[p->col[k] + 1]++;
      pt->row[at] = i;
      if (val) val[at] = pv[k];
    }
  return PM_OK;
}
