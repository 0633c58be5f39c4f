/* pm_meta.c - the partition metadata file DIR/partition.meta (pmesh/pm_meta.h): written through
 * a temporary name, read with every key and value checked. */
#include "pmesh/pm_meta.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_scan.h"
#include "pm_local_int.h"
#include "pmesh/pm_error.h"

int pm_meta_path(const char *dir, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s/partition.meta", dir);
  PM_CHECK(n > 0 && (size_t)n < size, PM_ERR_ARG, "path too long: %s/partition.meta", dir);
  return PM_OK;
}

int pm_meta_write(const pm_meta_t *m, const char *path) {
  pm_out_file_t o;
  PM_CALL(pm_local_out_open(&o, path));
  FILE *fp = o.fp;
  int version = m->refine_levels > 0                   ? PM_META_VERSION_REFINED
                : m->version < PM_META_VERSION_REFINED ? m->version
                                                       : PM_META_VERSION;
  fprintf(fp,
          "#PMESH_PARTITION\nversion %d\nnparts %d\ndim %d\nglobal_nodes %" PRId64 "\nglobal_elements %" PRId64 "\n",
          version, m->nparts, m->dim, m->global_nodes, m->global_elems);
  fprintf(fp,
          "source_checksum %016" PRIx64 "\nmethod %s\nhalo %s\nseed %" PRId64 "\nufactor %" PRId64
          "\nfingerprint %016" PRIx64 "\n",
          m->source_checksum, m->method, m->halo, m->seed, m->ufactor, m->fingerprint);
  if (version >= 2) fprintf(fp, "mesh_fingerprint %016" PRIx64 "\n", m->mesh_fingerprint);
  if (version >= 3)
    fprintf(fp,
            "refine_levels %d\ncoarse_fingerprint %016" PRIx64 "\ncoarse_mesh_fingerprint %016" PRIx64
            "\ncoarse_global_nodes %" PRId64 "\ncoarse_global_elements %" PRId64 "\n",
            m->refine_levels, m->coarse_fingerprint, m->coarse_mesh_fingerprint, m->coarse_global_nodes,
            m->coarse_global_elems);
  fprintf(fp, "groups %d\n", m->n_groups);
  for (int g = 0; g < m->n_groups; g++) fprintf(fp, "group %d %s\n", m->group_dim[g], m->group_name[g]);
  fprintf(fp, "source %s\n", m->source); /* last: the rest of the line, spaces allowed */
  return pm_local_out_close(&o, 1);
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
  if (!t || n != strlen(key) || memcmp(t, key, n) != 0)
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "expected the key '%s', found %s%s%s", key, t ? "'" : "",
                        t ? s->tok : "the end of the file", t ? "'" : "");
  return PM_OK;
}

static int meta_word(pm_scan_t *s, const char *key, char **out) {
  const char *t;
  size_t n;
  PM_CALL(meta_key(s, key));
  PM_CALL(pm_scan_token(s, &t, &n));
  PM_CHECK(t && n < 4096, PM_ERR_FORMAT, "%s:%lld: '%s' needs a value (a word), found %s", s->path, (long long)s->line,
           key, t ? "a word longer than 4095 bytes" : "the end of the file");
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
  if (!t || !pm_local_hex64(t, n, v))
    return PM_SCAN_FAIL(s, PM_ERR_FORMAT, "'%s' needs 16 hexadecimal digits, found %s%s%s", key, t ? "'" : "",
                        t ? s->tok : "the end of the file", t ? "'" : "");
  return PM_OK;
}

/* Version 3: the refinement and the coarse partition it started from. */
static int meta_refined(pm_scan_t *s, pm_meta_t *m) {
  int64_t x;
  PM_CALL(meta_int(s, "refine_levels", 1, 64, &x));
  m->refine_levels = (int)x;
  PM_CALL(meta_hex(s, "coarse_fingerprint", &m->coarse_fingerprint));
  PM_CALL(meta_hex(s, "coarse_mesh_fingerprint", &m->coarse_mesh_fingerprint));
  PM_CALL(meta_int(s, "coarse_global_nodes", 1, INT64_MAX, &m->coarse_global_nodes));
  PM_CALL(meta_int(s, "coarse_global_elements", 1, INT64_MAX, &m->coarse_global_elems));
  return PM_OK;
}

static int meta_read(pm_scan_t *s, pm_meta_t *m) {
  int64_t x;
  PM_CALL(pm_scan_expect(s, "#PMESH_PARTITION"));
  PM_CALL(meta_int(s, "version", 1, 1000, &x));
  PM_CHECK(x >= 1 && x <= PM_META_VERSION_REFINED, PM_ERR_UNSUPPORTED,
           "%s:%lld: partition format version %lld; this pmesh reads versions 1 to 3 (re-run partition)", s->path,
           (long long)s->line, (long long)x);
  m->version = (int)x;
  PM_CALL(meta_int(s, "nparts", 1, 1 << 24, &x));
  m->nparts = (int)x;
  PM_CALL(meta_int(s, "dim", 1, 3, &x));
  m->dim = (int)x;
  PM_CALL(meta_int(s, "global_nodes", 1, INT64_MAX, &m->global_nodes));
  PM_CALL(meta_int(s, "global_elements", 1, INT64_MAX, &m->global_elems));
  PM_CALL(meta_hex(s, "source_checksum", &m->source_checksum));
  PM_CALL(meta_word(s, "method", &m->method));
  PM_CALL(meta_word(s, "halo", &m->halo));
  PM_CALL(meta_int(s, "seed", INT64_MIN, INT64_MAX, &m->seed));
  PM_CALL(meta_int(s, "ufactor", 0, INT64_MAX, &m->ufactor));
  PM_CALL(meta_hex(s, "fingerprint", &m->fingerprint));
  if (m->version >= 2) {
    PM_CALL(meta_hex(s, "mesh_fingerprint", &m->mesh_fingerprint));
    m->has_mesh_fingerprint = 1;
  }
  if (m->version >= 3) PM_CALL(meta_refined(s, m));
  PM_CALL(meta_int(s, "groups", 0, 99999, &x));
  PM_CHECK(x * 8 <= pm_scan_remaining(s), PM_ERR_FORMAT,
           "%s:%lld: groups %lld: more group lines than the rest of the file can hold (a truncated file?)", s->path,
           (long long)s->line, (long long)x);
  PM_CALL(PM_CALLOC(m->group_name, x, "group names"));
  PM_CALL(PM_CALLOC(m->group_dim, x, "group dimensions"));
  for (int g = 0; g < x; g++) {
    int64_t d;
    m->n_groups = g + 1;
    const char *t;
    size_t n;
    PM_CALL(pm_scan_token(s, &t, &n));
    if (!t || n != 5 || memcmp(t, "group", 5) != 0)
      return PM_SCAN_FAIL(
          s, PM_ERR_FORMAT, "'groups %lld' announces %lld group lines, but line %d is missing (found %s%s%s)",
          (long long)x, (long long)x, g + 1, t ? "'" : "", t ? s->tok : "the end of the file", t ? "'" : "");
    PM_CALL(pm_scan_int64(s, 0, 3, "group dimension", &d));
    m->group_dim[g] = (int)d;
    PM_CALL(pm_scan_token(s, &t, &n));
    PM_CHECK(t && n < 256, PM_ERR_FORMAT, "%s:%lld: group %d needs a name (a word of at most 255 bytes)", s->path,
             (long long)s->line, g + 1);
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
