/* pm_local.c - local mesh files (the lecture's format plus pmesh's sections): writing through a
 * temporary name, reading with every count and item checked.  The partition metadata file is
 * pm_meta.c's. */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_local.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/pm_fmt.h"
#include "base/pm_scan.h"
#include "base/pm_util.h"
#include "pm_local_int.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_msh.h"

int pm_local_path(const char *dir, int rank, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s/local.%d", dir, rank);
  PM_CHECK(n > 0 && (size_t)n < size, PM_ERR_ARG, "path too long: %s/local.%d", dir, rank);
  return PM_OK;
}

int pm_local_create(pm_local_t **local) {
  PM_CALL(PM_CALLOC(*local, 1, "local mesh"));
  return PM_OK;
}

static void group_free(pm_local_group_t *g) {
  free(g->name);
  free(g->nodes);
  free(g->face_type);
  free(g->face_gid);
  free(g->face_ptr);
  free(g->face_node);
  free(g->elems);
}

void pm_local_destroy(pm_local_t **local) {
  if (!local || !*local) return;
  pm_local_t *l = *local;
  free(l->neib);
  free(l->import_index);
  free(l->import_item);
  free(l->export_index);
  free(l->export_item);
  free(l->gid);
  free(l->node_index);
  free(l->xyz);
  free(l->elem_type);
  free(l->elem_gid);
  free(l->elem_index);
  free(l->elem_owner);
  free(l->elem_ptr);
  free(l->elem_node);
  for (int g = 0; g < l->n_groups; g++) group_free(&l->groups[g]);
  free(l->groups);
  free(l);
  *local = NULL;
}

int pm_local_element_groups(const pm_local_t *l, const pm_meta_t *m, int32_t **out) {
  int32_t *g = NULL;
  PM_CALL(PM_MALLOC(g, l->n_elems > 0 ? l->n_elems : 1, "element groups"));
  for (int32_t e = 0; e < l->n_elems; e++) g[e] = -1;
  for (int k = 0; k < l->n_groups; k++) {
    const pm_local_group_t *lg = &l->groups[k];
    int idx = -1;
    for (int j = 0; j < m->n_groups && m->group_name; j++)
      if (m->group_name[j] && lg->name && strcmp(m->group_name[j], lg->name) == 0) idx = j;
    if (idx < 0 || !lg->elems) continue;
    for (int32_t i = 0; i < lg->n_elems; i++)
      if (lg->elems[i] >= 0 && lg->elems[i] < l->n_elems) g[lg->elems[i]] = idx;
  }
  *out = g;
  return PM_OK;
}

void pm_local_release(pm_local_t *l, int what) {
  if (!l) return;
  if (what & PM_LOCAL_COORDS) {
    free(l->xyz);
    l->xyz = NULL;
  }
  if (what & (PM_LOCAL_ELEM_PLACE | PM_LOCAL_ELEMENTS)) {
    free(l->elem_index);
    free(l->elem_owner);
    l->elem_index = NULL;
    l->elem_owner = NULL;
  }
  if (!(what & PM_LOCAL_ELEMENTS)) return;
  free(l->elem_type);
  free(l->elem_gid);
  free(l->elem_ptr);
  free(l->elem_node);
  l->elem_type = NULL;
  l->elem_gid = NULL;
  l->elem_ptr = l->elem_node = NULL;
  l->n_elems = 0;
  l->has_mesh = 0;
  for (int g = 0; g < l->n_groups; g++) {
    free(l->groups[g].elems);
    l->groups[g].elems = NULL;
    l->groups[g].n_elems = 0;
  }
}

/* ---------------------------------------------------------------- writing */

int pm_local_out_open(pm_out_file_t *o, const char *path) {
  PM_CHECK(strlen(path) < sizeof o->path, PM_ERR_ARG, "path too long: %s", path);
  strcpy(o->path, path);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
  o->fp = fopen(o->tmp, "w");
  PM_CHECK(o->fp, PM_ERR_IO, "%s: cannot create: %s", o->tmp, strerror(errno));
  setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
  return PM_OK;
}

int pm_local_out_close(pm_out_file_t *o, int ok) {
  int bad = ferror(o->fp);
  int rc = fclose(o->fp);
  o->fp = NULL;
  if (!ok || bad || rc != 0) {
    int e = errno;
    remove(o->tmp);
    PM_CHECK(!ok, PM_ERR_IO, "%s: write failed: %s", o->path, strerror(e));
    return PM_ERR_IO;
  }
  if (rename(o->tmp, o->path) != 0) {
    int e = errno;
    remove(o->tmp);
    return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot rename %s into place: %s", o->path, o->tmp,
                        strerror(e));
  }
  return PM_OK;
}

/* Output through a 64 KiB staging buffer with hand-written number formatting (pm_fmt, the same
 * bytes as printf): fprintf's per-call cost was most of the writing time. */
typedef struct wbuf {
  FILE *fp;
  char *p;
  char buf[1 << 16];
} wbuf_t;

enum { WB_LINE = 512 }; /* room for any line but a group's name line */

static void wb_flush(wbuf_t *w) {
  fwrite(w->buf, 1, (size_t)(w->p - w->buf), w->fp);
  w->p = w->buf;
}

static char *wb_room(wbuf_t *w, size_t n) {
  if ((size_t)(w->buf + sizeof w->buf - w->p) < n) wb_flush(w);
  return w->p;
}

static void wb_str(wbuf_t *w, const char *str) {
  size_t n = strlen(str);
  if (n >= sizeof w->buf / 2) {
    wb_flush(w);
    fwrite(str, 1, n, w->fp);
    return;
  }
  memcpy(wb_room(w, n), str, n);
  w->p += n;
}

static void wb_i64(wbuf_t *w, int64_t v, char after) {
  char *q = pm_fmt_i64(wb_room(w, 24), v);
  *q++ = after;
  w->p = q;
}

static void put_items(wbuf_t *w, const int32_t *v, int32_t n) {
  for (int32_t i = 0; i < n; i++) wb_i64(w, (int64_t)v[i] + 1, '\n');
}

static void put_index(wbuf_t *w, const int32_t *index, int n) {
  for (int k = 1; k <= n; k++) wb_i64(w, index[k], k < n ? ' ' : '\n');
  if (n == 0) wb_str(w, "\n");
}

int pm_local_write(const pm_local_t *l, const char *path) {
  pm_out_file_t o;
  wbuf_t *w = NULL;
  PM_CALL(PM_MALLOC(w, 1, "output buffer"));
  int ierr = pm_local_out_open(&o, path);
  if (ierr) {
    free(w);
    pm_error_trace(__FILE__, __LINE__);
    return ierr;
  }
  w->fp = o.fp;
  w->p = w->buf;
  wb_str(w, "#NEIBPEtot\n");
  wb_i64(w, l->n_neib, '\n');
  wb_str(w, "#NEIBPE\n");
  for (int k = 0; k < l->n_neib; k++) wb_i64(w, l->neib[k], k + 1 < l->n_neib ? ' ' : '\n');
  if (l->n_neib == 0) wb_str(w, "\n");
  wb_str(w, "#NODE\n");
  wb_i64(w, l->n_total, ' ');
  wb_i64(w, l->n_internal, '\n');
  wb_str(w, "#IMPORTindex\n");
  put_index(w, l->import_index, l->n_neib);
  wb_str(w, "#IMPORTitems\n");
  put_items(w, l->import_item, l->import_index[l->n_neib]);
  wb_str(w, "#EXPORTindex\n");
  put_index(w, l->export_index, l->n_neib);
  wb_str(w, "#EXPORTitems\n");
  put_items(w, l->export_item, l->export_index[l->n_neib]);
  if (l->has_mesh) {
    int32_t nt = l->n_total + l->n_aux;
    wb_str(w, "#AUXNODE\n");
    wb_i64(w, l->n_aux, '\n');
    wb_str(w, "#GLOBALID\n");
    wb_i64(w, nt, '\n');
    for (int32_t i = 0; i < nt; i++) {
      wb_i64(w, l->gid[i], ' ');
      wb_i64(w, l->node_index[i], '\n');
    }
    wb_str(w, "#COORD\n");
    wb_i64(w, nt, '\n');
    for (int32_t i = 0; i < nt; i++) {
      char *q = wb_room(w, 3 * (PM_FMT_G17_MAX + 1));
      q = pm_fmt_g17(q, l->xyz[3 * i]);
      *q++ = ' ';
      q = pm_fmt_g17(q, l->xyz[3 * i + 1]);
      *q++ = ' ';
      q = pm_fmt_g17(q, l->xyz[3 * i + 2]);
      *q++ = '\n';
      w->p = q;
    }
    wb_str(w, "#ELEMENT\n");
    wb_i64(w, l->n_elems, '\n');
    for (int32_t e = 0; e < l->n_elems; e++) {
      wb_i64(w, l->elem_type[e], ' ');
      wb_i64(w, l->elem_gid[e], ' ');
      wb_i64(w, l->elem_index[e], ' ');
      wb_i64(w, l->elem_owner[e], l->elem_ptr[e] < l->elem_ptr[e + 1] ? ' ' : '\n');
      for (int32_t k = l->elem_ptr[e]; k < l->elem_ptr[e + 1]; k++)
        wb_i64(w, (int64_t)l->elem_node[k] + 1, k + 1 < l->elem_ptr[e + 1] ? ' ' : '\n');
    }
    wb_str(w, "#GROUP\n");
    wb_i64(w, l->n_groups, '\n');
    for (int g = 0; g < l->n_groups; g++) {
      const pm_local_group_t *gr = &l->groups[g];
      wb_str(w, gr->name);
      wb_str(w, " ");
      wb_i64(w, gr->dim, ' ');
      wb_i64(w, gr->n_nodes, ' ');
      wb_i64(w, gr->n_faces, ' ');
      wb_i64(w, gr->n_elems, '\n');
      put_items(w, gr->nodes, gr->n_nodes);
      for (int32_t f = 0; f < gr->n_faces; f++) {
        wb_i64(w, gr->face_type[f], ' ');
        wb_i64(w, gr->face_gid[f], gr->face_ptr[f] < gr->face_ptr[f + 1] ? ' ' : '\n');
        for (int32_t k = gr->face_ptr[f]; k < gr->face_ptr[f + 1]; k++)
          wb_i64(w, (int64_t)gr->face_node[k] + 1, k + 1 < gr->face_ptr[f + 1] ? ' ' : '\n');
      }
      put_items(w, gr->elems, gr->n_elems);
    }
    wb_flush(w);
    fprintf(w->fp, "#PARTITION\n%016" PRIx64 " %d %d\n#END\n", l->fingerprint, l->nparts, l->rank);
  } else {
    wb_flush(w);
  }
  free(w);
  return pm_local_out_close(&o, 1);
}

/* ---------------------------------------------------------------- reading */

/* Compare a section header with a name, ignoring case and underscores ("#IMPORT_index"). */
static int header_is(const char *tok, size_t n, const char *name) {
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    if (tok[i] == '_') continue;
    if (name[j] == '\0' || toupper((unsigned char)tok[i]) != toupper((unsigned char)name[j])) return 0;
    j++;
  }
  return name[j] == '\0';
}

static int expect_header(pm_scan_t *s, const char *name, int *found) {
  const char *t;
  size_t n;
  PM_CALL(pm_scan_token(s, &t, &n));
  if (!t) {
    if (found) {
      *found = 0;
      return PM_OK;
    }
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected section %s, found the end of the file", name);
  }
  if (!header_is(t, n, name)) {
    /* A number where a header belongs: the section before has more entries than its count. */
    int number = isdigit((unsigned char)t[0]) || ((t[0] == '-' || t[0] == '+') && n > 1);
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected section %s, found '%s'%s", name, s->tok,
                        number ? " (the section before has more entries than its count says)" : "");
  }
  if (found) *found = 1;
  return PM_OK;
}

/* A decimal integer of n bytes: 1 when valid, 0 when not an integer, -1 when out of int64. */
static int parse_int64(const char *t, size_t n, int64_t *v) {
  size_t i = 0;
  int neg = 0;
  if (n > 0 && (t[0] == '-' || t[0] == '+')) {
    neg = t[0] == '-';
    i = 1;
  }
  if (i == n) return 0;
  uint64_t acc = 0;
  int big = 0;
  for (; i < n; i++) {
    unsigned d = (unsigned)(t[i] - '0');
    if (d > 9) return 0;
    if (acc > (UINT64_C(1) << 63) / 10) big = 1;
    acc = acc * 10 + d;
    if (acc > (UINT64_C(1) << 63)) big = 1;
  }
  if (big || (!neg && acc > (uint64_t)INT64_MAX)) return -1;
  *v = neg ? (int64_t)(0 - acc) : (int64_t)acc;
  return 1;
}

/* Entry k of the n of a counted list (`list`, e.g. "#IMPORTitems"): an integer in [lo, hi].  A
 * section header or the end of the file where an entry belongs means the list is shorter than
 * its count says, and the message says so. */
/* The next token as entry k of n of a counted list; a section header or the end of the file where an
 * entry belongs means the list is shorter than its count says. */
static int entry_token(pm_scan_t *s, const char *list, int64_t k, int64_t n, const char *what, const char **t,
                       size_t *len) {
  PM_CALL(pm_scan_token(s, t, len));
  if (!*t)
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s entry %lld of %lld: expected %s, found the end of the file", list,
                        (long long)k, (long long)n, what);
  if ((*t)[0] == '#')
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT,
                        "%s entry %lld of %lld: expected %s, found section '%s' (fewer entries than the count says)",
                        list, (long long)k, (long long)n, what, s->tok);
  return PM_OK;
}

static int entry_int(pm_scan_t *s, const char *list, int64_t k, int64_t n, int64_t lo, int64_t hi, const char *what,
                     int64_t *v) {
  const char *t;
  size_t len;
  PM_CALL(entry_token(s, list, k, n, what, &t, &len));
  int64_t x = 0;
  int ok = parse_int64(t, len, &x);
  if (ok <= 0 || x < lo || x > hi)
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s entry %lld of %lld: expected %s (an integer in [%lld, %lld]), found '%s'",
                        list, (long long)k, (long long)n, what, (long long)lo, (long long)hi, s->tok);
  *v = x;
  return PM_OK;
}

/* The same for a finite number. */
static int entry_double(pm_scan_t *s, const char *list, int64_t k, int64_t n, const char *what, double *v) {
  const char *t;
  size_t len;
  PM_CALL(entry_token(s, list, k, n, what, &t, &len));
  char *end;
  double x = strtod(t, &end); /* stops at the whitespace or the sentinel after the token */
  if (end != t + len || !isfinite(x))
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "%s entry %lld of %lld: expected %s (a finite number), found '%s'", list,
                        (long long)k, (long long)n, what, s->tok);
  *v = x;
  return PM_OK;
}

/* A count that must be at most what the rest of the file could hold (bytes_each per entry). */
static int read_count(pm_scan_t *s, const char *what, int64_t bytes_each, int64_t hi, int32_t *v) {
  int64_t x;
  PM_CALL(pm_scan_int64(s, 0, hi, what, &x));
  PM_CHECK(x * bytes_each <= pm_scan_remaining(s), PM_ERR_FORMAT,
           "%s:%lld: %s = %lld is more than the rest of the file can hold (a truncated file?)", s->path,
           (long long)s->line, what, (long long)x);
  *v = (int32_t)x;
  return PM_OK;
}

static int read_items(pm_scan_t *s, const char *list, int32_t n, int32_t lo, int32_t hi, const char *what,
                      int32_t *out) {
  for (int32_t i = 0; i < n; i++) {
    int64_t x = 0;
    PM_CALL(entry_int(s, list, i + 1, n, lo, hi, what, &x));
    out[i] = (int32_t)(x - 1);
  }
  return PM_OK;
}

static int read_index(pm_scan_t *s, int n, const char *what, int32_t *index) {
  index[0] = 0;
  for (int k = 1; k <= n; k++) {
    int64_t x = 0;
    PM_CALL(entry_int(s, what, k, n, 0, INT32_MAX, "a cumulative count", &x));
    PM_CHECK(x >= index[k - 1], PM_ERR_FORMAT, "%s:%lld: %s must not decrease (entry %d: %lld after %d)", s->path,
             (long long)s->line, what, k, (long long)x, index[k - 1]);
    index[k] = (int32_t)x;
  }
  PM_CHECK((int64_t)index[n] * 2 <= pm_scan_remaining(s), PM_ERR_FORMAT,
           "%s:%lld: %s announces %d items, more than the rest of the file can hold", s->path, (long long)s->line, what,
           index[n]);
  return PM_OK;
}

/* Only whitespace may follow on the current line (before a list of one-line records). */
static int end_of_line(pm_scan_t *s, const char *where) {
  int64_t line = s->line;
  const char *t;
  size_t n;
  PM_CALL(pm_scan_line(s, &t, &n));
  for (size_t i = 0; i < n; i++)
    if (!isspace((unsigned char)t[i]))
      return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s:%lld: %s: unexpected '%.*s' at the end of the line",
                          s->path, (long long)line, where, (int)(n - i < 40 ? n - i : 40), t + i);
  return PM_OK;
}

/* Elements ("type gid index owner n1 .. nk") and group faces ("type gid n1 .. nk"): one record
 * per line, k from the type.  Reading them by lines keeps a short or long record from shifting
 * every later field, so the message names the line that is wrong. */
typedef struct records {
  const char *list;  /* "#ELEMENT", "#GROUP 'name' face" */
  const char *shape; /* the fields, for messages */
  int32_t n, nt;     /* records, nodes (node numbers are 1..nt) */
  int nparts;        /* owners are 0..nparts-1 (0: checked later) */
  int8_t *type;
  int64_t *gid, *index; /* index: NULL for faces */
  int32_t *owner;       /* NULL for faces */
  int32_t *ptr, **node;
} records_t;

static int read_records(pm_scan_t *s, records_t *r) {
  enum { MAXF = 4 + PM_CELL_MAX_VERTS + 1 }; /* type gid index owner, the nodes, one more to see extras */
  int nfix = r->index ? 4 : 2;
  int64_t len = 0;
  PM_CALL(end_of_line(s, r->list));
  PM_CALL(PM_MALLOC(*r->node, (int64_t)PM_CELL_MAX_VERTS * r->n + 1, r->list));
  r->ptr[0] = 0;
  for (int32_t e = 0; e < r->n; e++) {
    const char *t, *f[MAXF];
    size_t n, fl[MAXF];
    int64_t line;
    for (;;) { /* the next line that is not blank */
      line = s->line;
      PM_CALL(pm_scan_line(s, &t, &n));
      while (n > 0 && isspace((unsigned char)t[n - 1])) n--;
      while (n > 0 && isspace((unsigned char)*t)) t++, n--;
      if (n > 0) break;
      if (s->eof && s->pos >= s->len)
        return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                            "%s:%lld: %s entry %d of %d: expected '%s', found the end of the file", s->path,
                            (long long)line, r->list, e + 1, r->n, r->shape);
    }
    int nf = 0;
    for (size_t i = 0; i < n && nf < MAXF;) {
      size_t j = i;
      while (j < n && !isspace((unsigned char)t[j])) j++;
      f[nf] = t + i;
      fl[nf++] = j - i;
      while (j < n && isspace((unsigned char)t[j])) j++;
      i = j;
    }
    int show = (int)(n < 60 ? n : 60);
    if (t[0] == '#')
      return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                          "%s:%lld: %s entry %d of %d: expected '%s', found '%.*s' (fewer entries than the count says)",
                          s->path, (long long)line, r->list, e + 1, r->n, r->shape, show, t);
    int64_t v[MAXF];
    int ty = 0, nv = 0;
    if (parse_int64(f[0], fl[0], &v[0]) == 1 && v[0] >= 1 && v[0] <= 127) ty = (int)v[0];
    if (ty) nv = pm_msh_type_nodes(ty);
    if (nv <= 0)
      return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                          "%s:%lld: %s entry %d: element type '%.*s' is not one pmesh uses (Gmsh's 1 line, 2 triangle, "
                          "3 quadrangle, 4 tetrahedron, 5 hexahedron, 6 prism, 7 pyramid, 15 point)",
                          s->path, (long long)line, r->list, e + 1, (int)(fl[0] < 40 ? fl[0] : 40), f[0]);
    if (nf != nfix + nv)
      return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                          "%s:%lld: %s entry %d: a type %d element needs %d numbers on its line ('%s'), found %s%d: "
                          "'%.*s'",
                          s->path, (long long)line, r->list, e + 1, ty, nfix + nv, r->shape,
                          nf == MAXF ? "more than " : "", nf == MAXF ? MAXF - 1 : nf, show, t);
    for (int i = 1; i < nf; i++) {
      static const char *fname[4] = {"element type", "global id", "global element index", "owner rank"};
      int node = i >= nfix;
      int64_t lo = node ? 1 : 0;
      int64_t hi = node ? r->nt : i == 3 ? (r->nparts > 0 ? r->nparts - 1 : INT32_MAX) : INT64_MAX - 1;
      if (parse_int64(f[i], fl[i], &v[i]) != 1 || v[i] < lo || v[i] > hi) {
        char name[32];
        if (node)
          snprintf(name, sizeof name, "node number %d", i - nfix + 1);
        else
          snprintf(name, sizeof name, "%s", fname[i]);
        return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                            "%s:%lld: %s entry %d: expected %s (an integer in [%lld, %lld]), found '%.*s'", s->path,
                            (long long)line, r->list, e + 1, name, (long long)lo, (long long)hi,
                            (int)(fl[i] < 40 ? fl[i] : 40), f[i]);
      }
    }
    r->type[e] = (int8_t)ty;
    r->gid[e] = v[1];
    if (r->index) {
      r->index[e] = v[2];
      r->owner[e] = (int32_t)v[3];
    }
    for (int i = 0; i < nv; i++) (*r->node)[len + i] = (int32_t)(v[nfix + i] - 1);
    len += nv;
    r->ptr[e + 1] = (int32_t)len;
  }
  return PM_OK;
}

int pm_local_hex64(const char *t, size_t n, uint64_t *v) {
  if (n == 0 || n > 16) return 0;
  uint64_t x = 0;
  for (size_t i = 0; i < n; i++) {
    int c = tolower((unsigned char)t[i]), d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else
      return 0;
    x = x * 16 + (uint64_t)d;
  }
  *v = x;
  return 1;
}

/* #NEIBPEtot and #NEIBPE: the neighbour ranks, distinct and other than expect_rank. */
static int read_neighbours(pm_scan_t *s, int expect_rank, pm_local_t *l) {
  int64_t x;
  PM_CALL(expect_header(s, "#NEIBPEtot", NULL));
  PM_CALL(pm_scan_int64(s, 0, 1 << 20, "number of neighbours (#NEIBPEtot)", &x));
  /* each neighbour takes at least 2 bytes in #NEIBPE, and 2 in each index */
  PM_CHECK(x * 6 <= pm_scan_remaining(s), PM_ERR_FORMAT,
           "%s:%lld: #NEIBPEtot = %lld neighbours is more than the rest of the file can hold", s->path,
           (long long)s->line, (long long)x);
  l->n_neib = (int)x;
  PM_CALL(PM_MALLOC(l->neib, l->n_neib, "neighbours"));
  PM_CALL(expect_header(s, "#NEIBPE", NULL));
  for (int k = 0; k < l->n_neib; k++) {
    PM_CALL(entry_int(s, "#NEIBPE", k + 1, l->n_neib, 0, (1 << 24) - 1, "a neighbour rank", &x));
    l->neib[k] = (int)x;
    PM_CHECK(x != expect_rank, PM_ERR_FORMAT, "%s:%lld: #NEIBPE lists the file's own rank %lld", s->path,
             (long long)s->line, (long long)x);
    for (int j = 0; j < k; j++)
      PM_CHECK(l->neib[j] != l->neib[k], PM_ERR_FORMAT, "%s:%lld: #NEIBPE lists rank %d twice (entries %d and %d)",
               s->path, (long long)s->line, l->neib[k], j + 1, k + 1);
  }
  return PM_OK;
}

/* #IMPORTitems: the ni external node numbers, every one of N+1..NP imported exactly once. */
static int read_imports(pm_scan_t *s, pm_local_t *l, int32_t ni) {
  int64_t x, n = l->n_internal, np = l->n_total;
  int32_t *first = NULL; /* entry that imports each external node, 0: none yet */
  PM_CALL(PM_CALLOC(first, ni + 1, "import check"));
  int ierr = PM_OK;
  for (int32_t i = 0; i < ni && !ierr; i++) {
    ierr = entry_int(s, "#IMPORTitems", i + 1, ni, n + 1, np, "an external node number, N+1..NP", &x);
    if (ierr) break;
    int32_t v = (int32_t)(x - n - 1);
    if (first[v])
      ierr = PM_SCAN_FAIL(s, PM_ERR_FORMAT,
                          "#IMPORTitems entry %d: external node %lld is imported twice (entries %d "
                          "and %d); each of N+1..NP must appear once",
                          i + 1, (long long)x, first[v], i + 1);
    first[v] = i + 1;
    l->import_item[i] = (int32_t)(x - 1);
  }
  free(first);
  return ierr;
}

/* #NODE (NP and N) and the halo tables #IMPORTindex .. #EXPORTitems. */
static int read_tables(pm_scan_t *s, pm_local_t *l) {
  PM_CALL(expect_header(s, "#NODE", NULL));
  int64_t np, n;
  PM_CALL(pm_scan_int64(s, 0, INT32_MAX - 1, "number of nodes NP (#NODE)", &np));
  PM_CALL(pm_scan_int64(s, 0, np, "number of internal nodes N (#NODE, at most NP)", &n));
  l->n_total = (int32_t)np;
  l->n_internal = (int32_t)n;
  PM_CALL(PM_MALLOC(l->import_index, l->n_neib + 1, "import index"));
  PM_CALL(PM_MALLOC(l->export_index, l->n_neib + 1, "export index"));
  PM_CALL(expect_header(s, "#IMPORTindex", NULL));
  PM_CALL(read_index(s, l->n_neib, "#IMPORTindex", l->import_index));
  PM_CHECK(l->import_index[l->n_neib] == np - n, PM_ERR_FORMAT,
           "%s:%lld: #IMPORTindex ends at %d but there are NP - N = %lld external nodes", s->path, (long long)s->line,
           l->import_index[l->n_neib], (long long)(np - n));
  int32_t ni = l->import_index[l->n_neib];
  PM_CALL(PM_MALLOC(l->import_item, ni, "import items"));
  PM_CALL(expect_header(s, "#IMPORTitems", NULL));
  PM_CALL(read_imports(s, l, ni));
  PM_CALL(expect_header(s, "#EXPORTindex", NULL));
  PM_CALL(read_index(s, l->n_neib, "#EXPORTindex", l->export_index));
  PM_CALL(PM_MALLOC(l->export_item, l->export_index[l->n_neib], "export items"));
  PM_CALL(expect_header(s, "#EXPORTitems", NULL));
  PM_CALL(read_items(s, "#EXPORTitems", l->export_index[l->n_neib], 1, (int32_t)n, "an internal node number, 1..N",
                     l->export_item));
  return PM_OK;
}

/* #AUXNODE count (its header already read), #GLOBALID and #COORD: every local node's global id,
 * global index and coordinates; *nt_out = NP + NA. */
static int read_nodes(pm_scan_t *s, pm_local_t *l, int32_t *nt_out) {
  int64_t np = l->n_total;
  int32_t na = 0, nt = 0, nc = 0;
  PM_CALL(read_count(s, "#AUXNODE count", 4, INT32_MAX - np, &na));
  l->n_aux = na;
  PM_CALL(expect_header(s, "#GLOBALID", NULL));
  /* a node takes at least 4 bytes here ("1 0\n") and 6 in #COORD ("0 0 0\n") */
  PM_CALL(read_count(s, "#GLOBALID count", 10, INT32_MAX, &nt));
  PM_CHECK(nt == np + na, PM_ERR_FORMAT, "%s:%lld: #GLOBALID count %d must equal NP + NA = %lld", s->path,
           (long long)s->line, nt, (long long)(np + na));
  PM_CALL(PM_MALLOC(l->gid, nt, "global ids"));
  PM_CALL(PM_MALLOC(l->node_index, nt, "global node indices"));
  for (int32_t i = 0; i < nt; i++) {
    PM_CALL(entry_int(s, "#GLOBALID", i + 1, nt, 1, INT64_MAX, "a global id (Gmsh node tag)", &l->gid[i]));
    PM_CALL(entry_int(s, "#GLOBALID", i + 1, nt, 0, INT64_MAX - 1, "a global node index", &l->node_index[i]));
  }
  PM_CALL(expect_header(s, "#COORD", NULL));
  PM_CALL(read_count(s, "#COORD count", 6, INT32_MAX, &nc));
  PM_CHECK(nc == nt, PM_ERR_FORMAT, "%s:%lld: #COORD count %d must equal the #GLOBALID count %d", s->path,
           (long long)s->line, nc, nt);
  PM_CALL(PM_MALLOC(l->xyz, 3 * (int64_t)nt, "coordinates"));
  for (int64_t i = 0; i < 3 * (int64_t)nt; i++) {
    static const char *axis[3] = {"an x coordinate", "a y coordinate", "a z coordinate"};
    PM_CALL(entry_double(s, "#COORD", i / 3 + 1, nt, axis[i % 3], &l->xyz[i]));
  }
  *nt_out = nt;
  return PM_OK;
}

/* #ELEMENT: the elements over the nt local nodes.  The owner range is checked against nparts
 * after #PARTITION. */
static int read_elements(pm_scan_t *s, pm_local_t *l, int32_t nt) {
  int32_t ne = 0;
  PM_CALL(expect_header(s, "#ELEMENT", NULL));
  PM_CALL(read_count(s, "#ELEMENT count", 11, INT32_MAX / 4, &ne));
  l->n_elems = ne;
  PM_CALL(PM_MALLOC(l->elem_type, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_gid, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_index, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_owner, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_ptr, (int64_t)ne + 1, "elements"));
  records_t er = {.list = "#ELEMENT", .shape = "type gid index owner n1 .. nk", .n = ne, .nt = nt};
  er.type = l->elem_type;
  er.gid = l->elem_gid;
  er.index = l->elem_index;
  er.owner = l->elem_owner;
  er.ptr = l->elem_ptr;
  er.node = &l->elem_node;
  return read_records(s, &er);
}

/* Group g of ng in #GROUP: name, dimension, counts, node numbers, face records, element numbers
 * (over nt nodes and ne elements). */
static int read_group(pm_scan_t *s, pm_local_group_t *gr, int32_t g, int32_t ng, int32_t nt, int32_t ne) {
  const char *t;
  size_t tn;
  int64_t x;
  PM_CALL(pm_scan_token(s, &t, &tn));
  if (!t || t[0] == '#' || tn >= 256)
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "#GROUP: expected group %d of %d's name, found %s%s%s%s", g + 1, ng,
                        t ? "'" : "", t ? s->tok : "the end of the file", t ? "'" : "",
                        t && t[0] == '#' ? " (fewer groups than the count says)" : "");
  PM_CALL(PM_MALLOC(gr->name, tn + 1, "group name"));
  memcpy(gr->name, t, tn);
  gr->name[tn] = '\0';
  char what[320];
  snprintf(what, sizeof what, "#GROUP '%s' dimension", gr->name);
  PM_CALL(pm_scan_int64(s, 0, 3, what, &x));
  gr->dim = (int)x;
  snprintf(what, sizeof what, "#GROUP '%s' node count", gr->name);
  PM_CALL(read_count(s, what, 2, nt, &gr->n_nodes));
  snprintf(what, sizeof what, "#GROUP '%s' face count", gr->name);
  PM_CALL(read_count(s, what, 6, INT32_MAX / 4, &gr->n_faces));
  snprintf(what, sizeof what, "#GROUP '%s' element count", gr->name);
  PM_CALL(read_count(s, what, 2, ne, &gr->n_elems));
  PM_CALL(PM_MALLOC(gr->nodes, gr->n_nodes, "group nodes"));
  snprintf(what, sizeof what, "#GROUP '%s' node", gr->name);
  PM_CALL(read_items(s, what, gr->n_nodes, 1, nt, "a node number", gr->nodes));
  PM_CALL(PM_MALLOC(gr->face_type, gr->n_faces, "group faces"));
  PM_CALL(PM_MALLOC(gr->face_gid, gr->n_faces, "group faces"));
  PM_CALL(PM_MALLOC(gr->face_ptr, (int64_t)gr->n_faces + 1, "group faces"));
  snprintf(what, sizeof what, "#GROUP '%s' face", gr->name);
  records_t fr = {.list = what, .shape = "type gid n1 .. nk", .n = gr->n_faces, .nt = nt};
  fr.type = gr->face_type;
  fr.gid = gr->face_gid;
  fr.ptr = gr->face_ptr;
  fr.node = &gr->face_node;
  PM_CALL(read_records(s, &fr));
  PM_CALL(PM_MALLOC(gr->elems, gr->n_elems, "group elements"));
  snprintf(what, sizeof what, "#GROUP '%s' element", gr->name);
  PM_CALL(read_items(s, what, gr->n_elems, 1, ne, "an element number", gr->elems));
  return PM_OK;
}

/* #PARTITION (fingerprint, number of parts, rank) with the checks that need the number of parts,
 * and #END as the last token. */
static int read_partition(pm_scan_t *s, int expect_rank, pm_local_t *l) {
  int64_t x;
  PM_CALL(expect_header(s, "#PARTITION", NULL));
  const char *t;
  size_t tn;
  PM_CALL(pm_scan_token(s, &t, &tn));
  if (!t || !pm_local_hex64(t, tn, &l->fingerprint))
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "#PARTITION: expected a 16-digit hexadecimal fingerprint, found %s%s%s",
                        t ? "'" : "", t ? s->tok : "the end of the file", t ? "'" : "");
  int64_t pline = s->line;
  PM_CALL(pm_scan_int64(s, 1, 1 << 24, "number of parts (#PARTITION)", &x));
  l->nparts = (int)x;
  PM_CALL(pm_scan_int64(s, 0, l->nparts - 1, "rank (#PARTITION)", &x));
  PM_CHECK(expect_rank < 0 || x == expect_rank, PM_ERR_INCONSISTENT,
           "%s:%lld: #PARTITION says this file is rank %lld's, but it was read for rank %d (a file copied or renamed?)",
           s->path, (long long)s->line, (long long)x, expect_rank);
  l->rank = (int)x;
  for (int k = 0; k < l->n_neib; k++)
    PM_CHECK(l->neib[k] < l->nparts && l->neib[k] != l->rank, PM_ERR_FORMAT,
             "%s: #NEIBPE entry %d is rank %d, not another rank of the %d parts that #PARTITION (line %lld) gives",
             s->path, k + 1, l->neib[k], l->nparts, (long long)pline);
  for (int32_t e = 0; e < l->n_elems; e++)
    PM_CHECK(l->elem_owner[e] < l->nparts, PM_ERR_FORMAT,
             "%s: #ELEMENT entry %d: owner rank %d, but #PARTITION (line %lld) gives %d parts (ranks 0..%d)", s->path,
             e + 1, l->elem_owner[e], (long long)pline, l->nparts, l->nparts - 1);
  PM_CALL(expect_header(s, "#END", NULL));
  PM_CALL(pm_scan_token(s, &t, &tn));
  PM_CHECK(!t, PM_ERR_FORMAT, "%s:%lld: unexpected '%s' after #END", s->path, (long long)s->line, s->tok);
  return PM_OK;
}

/* A local-mesh file, section by section; a lecture file ends after the halo tables. */
static int local_read(pm_scan_t *s, int expect_rank, pm_local_t *l) {
  l->rank = expect_rank;
  l->nparts = 0;
  PM_CALL(read_neighbours(s, expect_rank, l));
  PM_CALL(read_tables(s, l));
  int found;
  PM_CALL(expect_header(s, "#AUXNODE", &found));
  if (!found) return PM_OK; /* a lecture file: the tables only */
  l->has_mesh = 1;
  int32_t nt = 0, ng = 0;
  PM_CALL(read_nodes(s, l, &nt));
  PM_CALL(read_elements(s, l, nt));
  PM_CALL(expect_header(s, "#GROUP", NULL));
  PM_CALL(read_count(s, "#GROUP count", 10, 99999, &ng));
  PM_CALL(PM_CALLOC(l->groups, ng, "groups"));
  for (int32_t g = 0; g < ng; g++) {
    l->n_groups = (int)g + 1;
    PM_CALL(read_group(s, &l->groups[g], g, ng, nt, l->n_elems));
  }
  return read_partition(s, expect_rank, l);
}

int pm_local_read(const char *path, int expect_rank, pm_local_t **local) {
  pm_scan_t s;
  pm_local_t *l = NULL;
  *local = NULL;
  PM_CALL(pm_scan_open(&s, path));
  int ierr = pm_local_create(&l);
  if (!ierr) ierr = local_read(&s, expect_rank, l);
  pm_scan_close(&s);
  if (ierr) {
    pm_error_trace(__FILE__, __LINE__);
    pm_local_destroy(&l);
    return ierr;
  }
  *local = l;
  return PM_OK;
}

int pm_local_find_group(const pm_local_t *l, const char *name) {
  for (int g = 0; g < l->n_groups; g++)
    if (strcmp(l->groups[g].name, name) == 0) return g;
  return -1;
}
