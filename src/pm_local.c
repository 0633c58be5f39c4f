/* pm_local.c - local mesh files (the lecture's format plus pmesh's sections) and the partition
 * metadata file: writing through temporary names, reading with every count and item checked. */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_local.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pm_scan.h"
#include "pm_util.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_msh.h"

int pm_local_path(const char *dir, int rank, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s/local.%d", dir, rank);
  PM_CHECK(n > 0 && (size_t)n < size, PM_ERR_ARG, "path too long: %s/local.%d", dir, rank);
  return PM_OK;
}

int pm_meta_path(const char *dir, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s/partition.meta", dir);
  PM_CHECK(n > 0 && (size_t)n < size, PM_ERR_ARG, "path too long: %s/partition.meta", dir);
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

/* ---------------------------------------------------------------- writing */

/* A file written under "path.tmp.PID" and renamed over path when complete. */
typedef struct out_file {
  FILE *fp;
  char path[4096], tmp[4200];
} out_file_t;

static int out_open(out_file_t *o, const char *path) {
  PM_CHECK(strlen(path) < sizeof o->path, PM_ERR_ARG, "path too long: %s", path);
  strcpy(o->path, path);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
  o->fp = fopen(o->tmp, "w");
  PM_CHECK(o->fp, PM_ERR_IO, "%s: cannot create: %s", o->tmp, strerror(errno));
  setvbuf(o->fp, NULL, _IOFBF, 1 << 20);
  return PM_OK;
}

static int out_close(out_file_t *o, int ok) {
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
    return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot rename %s into place: %s", o->path,
                        o->tmp, strerror(e));
  }
  return PM_OK;
}

static void put_items(FILE *fp, const int32_t *v, int32_t n) {
  for (int32_t i = 0; i < n; i++) fprintf(fp, "%" PRId32 "\n", v[i] + 1);
}

static void put_index(FILE *fp, const int32_t *index, int n) {
  for (int k = 1; k <= n; k++) fprintf(fp, k > 1 ? " %" PRId32 : "%" PRId32, index[k]);
  fputc('\n', fp);
}

int pm_local_write(const pm_local_t *l, const char *path) {
  out_file_t o;
  PM_CALL(out_open(&o, path));
  FILE *fp = o.fp;
  fprintf(fp, "#NEIBPEtot\n%d\n#NEIBPE\n", l->n_neib);
  for (int k = 0; k < l->n_neib; k++) fprintf(fp, k ? " %d" : "%d", l->neib[k]);
  fprintf(fp, "\n#NODE\n%" PRId32 " %" PRId32 "\n", l->n_total, l->n_internal);
  fprintf(fp, "#IMPORTindex\n");
  put_index(fp, l->import_index, l->n_neib);
  fprintf(fp, "#IMPORTitems\n");
  put_items(fp, l->import_item, l->import_index[l->n_neib]);
  fprintf(fp, "#EXPORTindex\n");
  put_index(fp, l->export_index, l->n_neib);
  fprintf(fp, "#EXPORTitems\n");
  put_items(fp, l->export_item, l->export_index[l->n_neib]);
  if (l->has_mesh) {
    int32_t nt = l->n_total + l->n_aux;
    fprintf(fp, "#AUXNODE\n%" PRId32 "\n#GLOBALID\n%" PRId32 "\n", l->n_aux, nt);
    for (int32_t i = 0; i < nt; i++) fprintf(fp, "%" PRId64 " %" PRId64 "\n", l->gid[i], l->node_index[i]);
    fprintf(fp, "#COORD\n%" PRId32 "\n", nt);
    for (int32_t i = 0; i < nt; i++)
      fprintf(fp, "%.17g %.17g %.17g\n", l->xyz[3 * i], l->xyz[3 * i + 1], l->xyz[3 * i + 2]);
    fprintf(fp, "#ELEMENT\n%" PRId32 "\n", l->n_elems);
    for (int32_t e = 0; e < l->n_elems; e++) {
      fprintf(fp, "%d %" PRId64 " %" PRId64 " %" PRId32, l->elem_type[e], l->elem_gid[e], l->elem_index[e],
              l->elem_owner[e]);
      for (int32_t k = l->elem_ptr[e]; k < l->elem_ptr[e + 1]; k++) fprintf(fp, " %" PRId32, l->elem_node[k] + 1);
      fputc('\n', fp);
    }
    fprintf(fp, "#GROUP\n%d\n", l->n_groups);
    for (int g = 0; g < l->n_groups; g++) {
      const pm_local_group_t *gr = &l->groups[g];
      fprintf(fp, "%s %d %" PRId32 " %" PRId32 " %" PRId32 "\n", gr->name, gr->dim, gr->n_nodes, gr->n_faces,
              gr->n_elems);
      put_items(fp, gr->nodes, gr->n_nodes);
      for (int32_t f = 0; f < gr->n_faces; f++) {
        fprintf(fp, "%d %" PRId64, gr->face_type[f], gr->face_gid[f]);
        for (int32_t k = gr->face_ptr[f]; k < gr->face_ptr[f + 1]; k++) fprintf(fp, " %" PRId32, gr->face_node[k] + 1);
        fputc('\n', fp);
      }
      put_items(fp, gr->elems, gr->n_elems);
    }
    fprintf(fp, "#PARTITION\n%016" PRIx64 " %d %d\n#END\n", l->fingerprint, l->nparts, l->rank);
  }
  return out_close(&o, 1);
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
  PM_CHECK(header_is(t, n, name), PM_ERR_FORMAT, "%s:%lld: expected section %s, found '%s'", s->path,
           (long long)s->line, name, s->tok);
  if (found) *found = 1;
  return PM_OK;
}

/* A count that must be at most what the rest of the file could hold (bytes_each per entry). */
static int read_count(pm_scan_t *s, const char *what, int64_t bytes_each, int64_t hi, int32_t *v) {
  int64_t x;
  PM_CALL(pm_scan_int64(s, 0, hi, what, &x));
  PM_CHECK(x * bytes_each <= pm_scan_remaining(s), PM_ERR_FORMAT,
           "%s:%lld: %s = %lld is more than the rest of the file can hold", s->path, (long long)s->line, what,
           (long long)x);
  *v = (int32_t)x;
  return PM_OK;
}

static int read_items(pm_scan_t *s, int32_t n, int32_t lo, int32_t hi, const char *what, int32_t *out) {
  for (int32_t i = 0; i < n; i++) {
    int64_t x;
    PM_CALL(pm_scan_int64(s, lo, hi, what, &x));
    out[i] = (int32_t)(x - 1);
  }
  return PM_OK;
}

static int read_index(pm_scan_t *s, int n, const char *what, int32_t *index) {
  index[0] = 0;
  for (int k = 1; k <= n; k++) {
    int64_t x;
    PM_CALL(pm_scan_int64(s, 0, INT32_MAX, what, &x));
    PM_CHECK(x >= index[k - 1], PM_ERR_FORMAT, "%s:%lld: %s must not decrease (entry %d: %lld after %d)", s->path,
             (long long)s->line, what, k, (long long)x, index[k - 1]);
    index[k] = (int32_t)x;
  }
  PM_CHECK((int64_t)index[n] * 2 <= pm_scan_remaining(s), PM_ERR_FORMAT,
           "%s:%lld: %s announces %d items, more than the rest of the file can hold", s->path, (long long)s->line,
           what, index[n]);
  return PM_OK;
}

static int read_nodes_list(pm_scan_t *s, int8_t *type, int64_t *gid, int64_t *index, int32_t *ptr, int32_t **node,
                           int32_t n, int32_t nt, int nparts, int32_t *owner, const char *what) {
  int32_t cap = n * 2 + 4, len = 0;
  PM_CALL(PM_MALLOC(*node, cap, what));
  ptr[0] = 0;
  for (int32_t e = 0; e < n; e++) {
    int64_t t, g, w;
    PM_CALL(pm_scan_int64(s, 1, 15, "element type", &t));
    int nv = pm_msh_type_nodes((int)t);
    PM_CHECK(nv > 0, PM_ERR_FORMAT, "%s:%lld: %s %d: unsupported element type %lld", s->path, (long long)s->line,
             what, e + 1, (long long)t);
    PM_CALL(pm_scan_int64(s, 0, INT64_MAX, "element global id", &g));
    if (index) PM_CALL(pm_scan_int64(s, 0, INT64_MAX - 1, "element index", &index[e]));
    if (owner) {
      PM_CALL(pm_scan_int64(s, 0, nparts > 0 ? nparts - 1 : INT32_MAX, "element owner rank", &w));
      owner[e] = (int32_t)w;
    }
    type[e] = (int8_t)t;
    gid[e] = g;
    if (len + nv > cap) {
      cap = 2 * cap + nv;
      PM_CALL(PM_REALLOC(*node, cap, what));
    }
    PM_CALL(read_items(s, nv, 1, nt, "node number", *node + len));
    len += nv;
    ptr[e + 1] = len;
  }
  return PM_OK;
}

static int parse_hex64(const char *t, size_t n, uint64_t *v) {
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

static int local_read(pm_scan_t *s, int expect_rank, pm_local_t *l) {
  int64_t x;
  l->rank = expect_rank;
  l->nparts = 0;
  PM_CALL(expect_header(s, "#NEIBPEtot", NULL));
  PM_CALL(pm_scan_int64(s, 0, 1 << 20, "number of neighbours (#NEIBPEtot)", &x));
  l->n_neib = (int)x;
  PM_CALL(PM_MALLOC(l->neib, l->n_neib, "neighbours"));
  PM_CALL(expect_header(s, "#NEIBPE", NULL));
  for (int k = 0; k < l->n_neib; k++) {
    PM_CALL(pm_scan_int64(s, 0, (1 << 24) - 1, "neighbour rank (#NEIBPE)", &x));
    l->neib[k] = (int)x;
    PM_CHECK(x != expect_rank, PM_ERR_FORMAT, "%s:%lld: #NEIBPE lists the file's own rank %lld", s->path,
             (long long)s->line, (long long)x);
    for (int j = 0; j < k; j++)
      PM_CHECK(l->neib[j] != l->neib[k], PM_ERR_FORMAT, "%s:%lld: #NEIBPE lists rank %d twice", s->path,
               (long long)s->line, l->neib[k]);
  }
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
  PM_CALL(PM_MALLOC(l->import_item, l->import_index[l->n_neib], "import items"));
  PM_CALL(expect_header(s, "#IMPORTitems", NULL));
  PM_CALL(read_items(s, l->import_index[l->n_neib], (int32_t)n + 1, (int32_t)np,
                     "#IMPORTitems entry (an external node, N+1..NP)", l->import_item));
  {
    /* Every external node is imported exactly once. */
    char *seen = NULL;
    PM_CALL(PM_CALLOC(seen, np - n + 1, "import check"));
    for (int32_t i = 0; i < l->import_index[l->n_neib]; i++) {
      int32_t v = l->import_item[i] - (int32_t)n;
      if (seen[v]) {
        free(seen);
        return pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                            "%s: #IMPORTitems: external node %d is imported twice (entry %d)", s->path,
                            l->import_item[i] + 1, i + 1);
      }
      seen[v] = 1;
    }
    free(seen);
  }
  PM_CALL(expect_header(s, "#EXPORTindex", NULL));
  PM_CALL(read_index(s, l->n_neib, "#EXPORTindex", l->export_index));
  PM_CALL(PM_MALLOC(l->export_item, l->export_index[l->n_neib], "export items"));
  PM_CALL(expect_header(s, "#EXPORTitems", NULL));
  PM_CALL(read_items(s, l->export_index[l->n_neib], 1, (int32_t)n, "#EXPORTitems entry (an internal node, 1..N)",
                     l->export_item));

  int found;
  PM_CALL(expect_header(s, "#AUXNODE", &found));
  if (!found) return PM_OK; /* a lecture file: the tables only */
  l->has_mesh = 1;
  int32_t na, nt, ne;
  PM_CALL(read_count(s, "#AUXNODE count", 4, INT32_MAX - np, &na));
  l->n_aux = na;
  PM_CALL(expect_header(s, "#GLOBALID", NULL));
  PM_CALL(read_count(s, "#GLOBALID count", 4, INT32_MAX, &nt));
  PM_CHECK(nt == np + na, PM_ERR_FORMAT, "%s:%lld: #GLOBALID count %d must equal NP + NA = %lld", s->path,
           (long long)s->line, nt, (long long)(np + na));
  PM_CALL(PM_MALLOC(l->gid, nt, "global ids"));
  PM_CALL(PM_MALLOC(l->node_index, nt, "global node indices"));
  for (int32_t i = 0; i < nt; i++) {
    PM_CALL(pm_scan_int64(s, 1, INT64_MAX, "global id (#GLOBALID)", &l->gid[i]));
    PM_CALL(pm_scan_int64(s, 0, INT64_MAX - 1, "global node index (#GLOBALID)", &l->node_index[i]));
  }
  PM_CALL(expect_header(s, "#COORD", NULL));
  PM_CALL(read_count(s, "#COORD count", 6, INT32_MAX, &ne));
  PM_CHECK(ne == nt, PM_ERR_FORMAT, "%s:%lld: #COORD count %d must equal the #GLOBALID count %d", s->path,
           (long long)s->line, ne, nt);
  PM_CALL(PM_MALLOC(l->xyz, 3 * (int64_t)nt, "coordinates"));
  for (int64_t i = 0; i < 3 * (int64_t)nt; i++) PM_CALL(pm_scan_double(s, "coordinate (#COORD)", &l->xyz[i]));
  PM_CALL(expect_header(s, "#ELEMENT", NULL));
  PM_CALL(read_count(s, "#ELEMENT count", 10, INT32_MAX / 4, &ne));
  l->n_elems = ne;
  PM_CALL(PM_MALLOC(l->elem_type, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_gid, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_index, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_owner, ne, "elements"));
  PM_CALL(PM_MALLOC(l->elem_ptr, (int64_t)ne + 1, "elements"));
  /* The owner range is checked against nparts after #PARTITION. */
  PM_CALL(read_nodes_list(s, l->elem_type, l->elem_gid, l->elem_index, l->elem_ptr, &l->elem_node, ne, nt, 0, l->elem_owner,
                          "#ELEMENT"));
  PM_CALL(expect_header(s, "#GROUP", NULL));
  int32_t ng;
  PM_CALL(read_count(s, "#GROUP count", 10, 99999, &ng));
  PM_CALL(PM_CALLOC(l->groups, ng, "groups"));
  for (int32_t g = 0; g < ng; g++) {
    pm_local_group_t *gr = &l->groups[g];
    l->n_groups = (int)g + 1;
    const char *t;
    size_t tn;
    PM_CALL(pm_scan_token(s, &t, &tn));
    PM_CHECK(t && tn < 256 && t[0] != '#', PM_ERR_FORMAT, "%s:%lld: #GROUP: expected group %d's name, found '%s'",
             s->path, (long long)s->line, g + 1, t ? s->tok : "the end of the file");
    PM_CALL(PM_MALLOC(gr->name, tn + 1, "group name"));
    memcpy(gr->name, t, tn);
    gr->name[tn] = '\0';
    PM_CALL(pm_scan_int64(s, 0, 3, "group dimension", &x));
    gr->dim = (int)x;
    PM_CALL(read_count(s, "group node count", 2, nt, &gr->n_nodes));
    PM_CALL(read_count(s, "group face count", 6, INT32_MAX / 4, &gr->n_faces));
    PM_CALL(read_count(s, "group element count", 2, ne, &gr->n_elems));
    PM_CALL(PM_MALLOC(gr->nodes, gr->n_nodes, "group nodes"));
    PM_CALL(read_items(s, gr->n_nodes, 1, nt, "group node number", gr->nodes));
    PM_CALL(PM_MALLOC(gr->face_type, gr->n_faces, "group faces"));
    PM_CALL(PM_MALLOC(gr->face_gid, gr->n_faces, "group faces"));
    PM_CALL(PM_MALLOC(gr->face_ptr, (int64_t)gr->n_faces + 1, "group faces"));
    PM_CALL(read_nodes_list(s, gr->face_type, gr->face_gid, NULL, gr->face_ptr, &gr->face_node, gr->n_faces, nt, 0, NULL,
                            "#GROUP face"));
    PM_CALL(PM_MALLOC(gr->elems, gr->n_elems, "group elements"));
    PM_CALL(read_items(s, gr->n_elems, 1, ne, "group element number", gr->elems));
  }
  PM_CALL(expect_header(s, "#PARTITION", NULL));
  const char *t;
  size_t tn;
  PM_CALL(pm_scan_token(s, &t, &tn));
  PM_CHECK(t && parse_hex64(t, tn, &l->fingerprint), PM_ERR_FORMAT,
           "%s:%lld: #PARTITION: expected a 16-digit hexadecimal fingerprint, found '%s'", s->path,
           (long long)s->line, t ? s->tok : "the end of the file");
  PM_CALL(pm_scan_int64(s, 1, 1 << 24, "number of parts (#PARTITION)", &x));
  l->nparts = (int)x;
  PM_CALL(pm_scan_int64(s, 0, l->nparts - 1, "rank (#PARTITION)", &x));
  PM_CHECK(expect_rank < 0 || x == expect_rank, PM_ERR_INCONSISTENT,
           "%s: #PARTITION says this file is rank %lld's, but it was read for rank %d", s->path, (long long)x,
           expect_rank);
  l->rank = (int)x;
  for (int k = 0; k < l->n_neib; k++)
    PM_CHECK(l->neib[k] < l->nparts && l->neib[k] != l->rank, PM_ERR_FORMAT,
             "%s: #NEIBPE entry %d is rank %d, not a valid other rank of %d parts", s->path, k + 1, l->neib[k],
             l->nparts);
  for (int32_t e = 0; e < ne; e++)
    PM_CHECK(l->elem_owner[e] < l->nparts, PM_ERR_FORMAT, "%s: #ELEMENT %d: owner rank %d is not below %d parts",
             s->path, e + 1, l->elem_owner[e], l->nparts);
  PM_CALL(expect_header(s, "#END", NULL));
  PM_CALL(pm_scan_token(s, &t, &tn));
  PM_CHECK(!t, PM_ERR_FORMAT, "%s:%lld: unexpected '%s' after #END", s->path, (long long)s->line, s->tok);
  return PM_OK;
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

/* ---------------------------------------------------------------- metadata */

int pm_meta_write(const pm_meta_t *m, const char *path) {
  out_file_t o;
  PM_CALL(out_open(&o, path));
  FILE *fp = o.fp;
  fprintf(fp, "#PMESH_PARTITION\nversion %d\nnparts %d\ndim %d\nglobal_nodes %" PRId64 "\nglobal_elements %" PRId64
              "\n",
          m->version, m->nparts, m->dim, m->global_nodes, m->global_elems);
  fprintf(fp, "source_checksum %016" PRIx64 "\nmethod %s\nhalo %s\nseed %" PRId64 "\nufactor %" PRId64
              "\nfingerprint %016" PRIx64 "\ngroups %d\n",
          m->source_checksum, m->method, m->halo, m->seed, m->ufactor, m->fingerprint, m->n_groups);
  for (int g = 0; g < m->n_groups; g++) fprintf(fp, "group %d %s\n", m->group_dim[g], m->group_name[g]);
  fprintf(fp, "source %s\n", m->source); /* last: the rest of the line, spaces allowed */
  return out_close(&o, 1);
}

void pm_meta_destroy(pm_meta_t **meta) {
  if (!meta || !*meta) return;
  pm_meta_t *m = *meta;
  free(m->source);
  free(m->method);
  free(m->halo);
  for (int g = 0; g < m->n_groups; g++) free(m->group_name[g]);
  free(m->group_name);
  free(m->group_dim);
  free(m);
  *meta = NULL;
}

static int meta_key(pm_scan_t *s, const char *key) {
  const char *t;
  size_t n;
  PM_CALL(pm_scan_token(s, &t, &n));
  PM_CHECK(t && n == strlen(key) && memcmp(t, key, n) == 0, PM_ERR_FORMAT, "%s:%lld: expected key '%s', found '%s'",
           s->path, (long long)s->line, key, t ? s->tok : "the end of the file");
  return PM_OK;
}

static int meta_word(pm_scan_t *s, const char *key, char **out) {
  const char *t;
  size_t n;
  PM_CALL(meta_key(s, key));
  PM_CALL(pm_scan_token(s, &t, &n));
  PM_CHECK(t && n < 4096, PM_ERR_FORMAT, "%s:%lld: '%s' needs a value", s->path, (long long)s->line, key);
  PM_CALL(PM_MALLOC(*out, n + 1, key));
  memcpy(*out, t, n);
  (*out)[n] = '\0';
  return PM_OK;
}

static int meta_int(pm_scan_t *s, const char *key, int64_t lo, int64_t hi, int64_t *v) {
  PM_CALL(meta_key(s, key));
  return pm_scan_int64(s, lo, hi, key, v);
}

static int meta_hex(pm_scan_t *s, const char *key, uint64_t *v) {
  const char *t;
  size_t n;
  PM_CALL(meta_key(s, key));
  PM_CALL(pm_scan_token(s, &t, &n));
  PM_CHECK(t && parse_hex64(t, n, v), PM_ERR_FORMAT, "%s:%lld: '%s' needs 16 hexadecimal digits, found '%s'",
           s->path, (long long)s->line, key, t ? s->tok : "the end of the file");
  return PM_OK;
}

static int meta_read(pm_scan_t *s, pm_meta_t *m) {
  int64_t x;
  PM_CALL(pm_scan_expect(s, "#PMESH_PARTITION"));
  PM_CALL(meta_int(s, "version", 1, 1000, &x));
  PM_CHECK(x == PM_META_VERSION, PM_ERR_UNSUPPORTED,
           "%s: partition format version %lld; this pmesh reads version %d (re-run partition)", s->path,
           (long long)x, PM_META_VERSION);
  m->version = (int)x;
  PM_CALL(meta_int(s, "nparts", 1, 1 << 24, &x));
  m->nparts = (int)x;
  PM_CALL(meta_int(s, "dim", 1, 2, &x));
  m->dim = (int)x;
  PM_CALL(meta_int(s, "global_nodes", 1, INT64_MAX, &m->global_nodes));
  PM_CALL(meta_int(s, "global_elements", 1, INT64_MAX, &m->global_elems));
  PM_CALL(meta_hex(s, "source_checksum", &m->source_checksum));
  PM_CALL(meta_word(s, "method", &m->method));
  PM_CALL(meta_word(s, "halo", &m->halo));
  PM_CALL(meta_int(s, "seed", INT64_MIN, INT64_MAX, &m->seed));
  PM_CALL(meta_int(s, "ufactor", 0, INT64_MAX, &m->ufactor));
  PM_CALL(meta_hex(s, "fingerprint", &m->fingerprint));
  PM_CALL(meta_int(s, "groups", 0, 99999, &x));
  PM_CHECK(x * 8 <= pm_scan_remaining(s), PM_ERR_FORMAT, "%s:%lld: %lld groups: more than the file can hold",
           s->path, (long long)s->line, (long long)x);
  PM_CALL(PM_CALLOC(m->group_name, x, "group names"));
  PM_CALL(PM_CALLOC(m->group_dim, x, "group dimensions"));
  for (int g = 0; g < x; g++) {
    int64_t d;
    m->n_groups = g + 1;
    PM_CALL(meta_int(s, "group", 0, 3, &d));
    m->group_dim[g] = (int)d;
    const char *t;
    size_t n;
    PM_CALL(pm_scan_token(s, &t, &n));
    PM_CHECK(t && n < 256, PM_ERR_FORMAT, "%s:%lld: group %d needs a name", s->path, (long long)s->line, g + 1);
    PM_CALL(PM_MALLOC(m->group_name[g], n + 1, "group name"));
    memcpy(m->group_name[g], t, n);
    m->group_name[g][n] = '\0';
  }
  PM_CALL(meta_key(s, "source"));
  const char *line;
  size_t n;
  PM_CALL(pm_scan_line(s, &line, &n));
  while (n > 0 && (*line == ' ' || *line == '\t')) {
    line++;
    n--;
  }
  PM_CALL(PM_MALLOC(m->source, n + 1, "source name"));
  memcpy(m->source, line, n);
  m->source[n] = '\0';
  return PM_OK;
}

int pm_meta_read(const char *path, pm_meta_t **meta) {
  pm_scan_t s;
  pm_meta_t *m = NULL;
  *meta = NULL;
  PM_CALL(pm_scan_open(&s, path));
  int ierr = PM_CALLOC(m, 1, "metadata");
  if (!ierr) ierr = meta_read(&s, m);
  pm_scan_close(&s);
  if (ierr) {
    pm_error_trace(__FILE__, __LINE__);
    pm_meta_destroy(&m);
    return ierr;
  }
  *meta = m;
  return PM_OK;
}
