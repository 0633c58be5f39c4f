/* pm_amg_rows.h - the smoother's fused row sweeps, included by pm_amg_cycle.c once per pair of
 * types with T (the vectors' type), V (the operator's values' type) and R(name) (name with the
 * pair's suffix) defined.  Not a header of its own: no include guard, on purpose.
 *
 * V is T on every level but one: a geometric multigrid's finest level in single precision reads
 * the operator's own double values with float vectors (pm_amg_level_t.wide). */

/* (A v)_i: the diagonal (d == NULL: 1), then the row's entries in column order. */
static inline T R(row)(const int32_t *restrict index, const int32_t *restrict item, const V *restrict va,
                       const V *restrict vd, const T *restrict v, int32_t i) {
  T s = (vd ? (T)vd[i] : (T)1) * v[i];
  for (int32_t k = index[i]; k < index[i + 1]; k++) s += (T)va[k] * v[item[k]];
  return s;
}

/* One fused sweep over rows [i0, i1) (see pass_kind_t). */
static void R(rows)(const pm_amg_level_t *lv, pass_kind_t kind, const pm_amg_pass_t *ps, int32_t i0, int32_t i1) {
  const int32_t *restrict index = lv->a->index, *restrict item = lv->a->item;
  const V *restrict va = lv->va, *restrict vd = lv->vd;
  const T *restrict dinv = lv->dinv;
  const T *restrict v = ps->v, *restrict b = ps->b;
  T *restrict r = ps->r, *restrict w = ps->w, *restrict wn = ps->wn, *restrict x = ps->x;
  T al = (T)ps->al, be = (T)ps->be;
  int set = ps->set;
  switch (kind) {
    case PASS_START: /* r = b - A x, w = be Dinv r */
      for (int32_t i = i0; i < i1; i++) {
        T ri = b[i] - R(row)(index, item, va, vd, v, i);
        r[i] = ri;
        w[i] = be * dinv[i] * ri;
      }
      break;
    case PASS_STEP: /* r -= A w, wn = al w + be Dinv r, x += w (x = w when set) */
      for (int32_t i = i0; i < i1; i++) {
        T ri = r[i] - R(row)(index, item, va, vd, v, i), wi = w[i];
        r[i] = ri;
        wn[i] = al * wi + be * dinv[i] * ri;
        x[i] = set ? wi : x[i] + wi;
      }
      break;
    case PASS_LAST: /* r -= A w, x += w (x = w when set) */
      for (int32_t i = i0; i < i1; i++) {
        T wi = w[i];
        r[i] -= R(row)(index, item, va, vd, v, i);
        x[i] = set ? wi : x[i] + wi;
      }
      break;
  }
}
