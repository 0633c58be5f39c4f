/* pm_xdmf.c - the XDMF description of a pmesh HDF5 result (see pm_xdmf.h). */
#define _POSIX_C_SOURCE 200809L
#include "pm_xdmf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_error.h"

const char *const pm_xdmf_conn_names[PM_CELL_NTYPES] = {NULL,         "lines",     "triangles", "quadrangles",
                                                        "tetrahedra", "hexahedra", "prisms",    "pyramids"};

int pm_xdmf_add_field(pm_xdmf_t *x, int step, const char *dset, const char *label, int on_elements, int kind) {
  if (x->nfields == x->fcap) {
    x->fcap = x->fcap ? 2 * x->fcap : 8;
    PM_CALL(PM_REALLOC(x->fields, x->fcap, "field list"));
  }
  pm_xdmf_field_t *f = &x->fields[x->nfields++];
  memset(f, 0, sizeof *f);
  f->step = step;
  snprintf(f->dset, sizeof f->dset, "%s", dset);
  snprintf(f->label, sizeof f->label, "%s", label);
  f->on_elements = on_elements;
  f->kind = kind;
  return PM_OK;
}

int pm_xdmf_add_step(pm_xdmf_t *x, double time) {
  if (x->nsteps == x->tcap) {
    x->tcap = x->tcap ? 2 * x->tcap : 16;
    PM_CALL(PM_REALLOC(x->times, x->tcap, "step times"));
  }
  x->times[x->nsteps++] = time;
  return PM_OK;
}

void pm_xdmf_clear(pm_xdmf_t *x) {
  free(x->times);
  free(x->fields);
  memset(x, 0, sizeof *x);
}

static void xml_text(FILE *fp, const char *s) {
  for (; *s; s++) switch (*s) {
      case '&':
        fputs("&amp;", fp);
        break;
      case '<':
        fputs("&lt;", fp);
        break;
      case '>':
        fputs("&gt;", fp);
        break;
      case '"':
        fputs("&quot;", fp);
        break;
      default:
        fputc(*s, fp);
    }
}

static void xmf_item(FILE *fp, const char *ind, const char *dims, int kind, const char *ref, const char *dset) {
  static const char *nt[3] = {"Float", "Int", "Int"}, *pr[3] = {"8", "4", "8"};
  fprintf(fp, "%s<DataItem Dimensions=\"%s\" NumberType=\"%s\" Precision=\"%s\" Format=\"HDF\">", ind, dims, nt[kind],
          pr[kind]);
  xml_text(fp, ref);
  fprintf(fp, ":%s</DataItem>\n", dset);
}

static void xmf_grid(FILE *fp, const pm_xdmf_t *x, const char *ref, int step, const char *ind) {
  char dims[64], in2[32], in3[32];
  snprintf(in2, sizeof in2, "%s  ", ind);
  snprintf(in3, sizeof in3, "%s    ", ind);
  if (step < 0)
    fprintf(fp, "%s<Grid Name=\"mesh\" GridType=\"Uniform\">\n", ind);
  else
    fprintf(fp, "%s<Grid Name=\"step%d\" GridType=\"Uniform\">\n%s<Time Value=\"%.17g\"/>\n", ind, step, in2,
            x->times[step]);
  /* One type: its dataset; several: the Mixed list (pm_h5io.h says how it is made). */
  int ntypes = 0, one = PM_CELL_LINE;
  int64_t mlen = 0, ncells = 0;
  for (int t = 0; t < PM_CELL_NTYPES; t++)
    if (x->ttot[t] > 0) {
      ntypes++;
      one = t;
      ncells += x->ttot[t];
      mlen += x->ttot[t] * (1 + pm_cell_get((pm_cell_type_t)t)->n_verts);
    }
  if (ntypes > 1) {
    fprintf(fp, "%s<Topology TopologyType=\"Mixed\" NumberOfElements=\"%" PRId64 "\">\n", in2, ncells);
    snprintf(dims, sizeof dims, "%" PRId64, mlen);
    xmf_item(fp, in3, dims, x->conn_kind, ref, "/mesh/mixed");
  } else {
    const pm_cell_t *c = pm_cell_get((pm_cell_type_t)one);
    char dset[64];
    fprintf(fp, "%s<Topology TopologyType=\"%s\" NumberOfElements=\"%" PRId64 "\" NodesPerElement=\"%d\">\n", in2,
            c->xdmf_name, x->ttot[one], c->n_verts);
    snprintf(dims, sizeof dims, "%" PRId64 " %d", x->ttot[one], c->n_verts);
    snprintf(dset, sizeof dset, "/mesh/%s", pm_xdmf_conn_names[one]);
    xmf_item(fp, in3, dims, x->conn_kind, ref, dset);
  }
  fprintf(fp, "%s</Topology>\n%s<Geometry GeometryType=\"XYZ\">\n", in2, in2);
  snprintf(dims, sizeof dims, "%" PRId64 " 3", x->n_nodes);
  xmf_item(fp, in3, dims, PM_XDMF_FLOAT64, ref, "/mesh/coordinates");
  fprintf(fp, "%s</Geometry>\n", in2);
  for (int f = 0; f < x->nfields; f++) {
    const pm_xdmf_field_t *xf = &x->fields[f];
    if (xf->step != -1 && xf->step != step) continue;
    fprintf(fp, "%s<Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"%s\">\n", in2, xf->label,
            xf->on_elements ? "Cell" : "Node");
    snprintf(dims, sizeof dims, "%" PRId64, xf->on_elements ? x->n_elems : x->n_nodes);
    xmf_item(fp, in3, dims, xf->kind, ref, xf->dset);
    fprintf(fp, "%s</Attribute>\n", in2);
  }
  fprintf(fp, "%s</Grid>\n", ind);
}

/* How the .xmf names the .h5: its base name when both are in one directory, else a path that
 * works from anywhere. */
static void h5_reference(const char *h5path, const char *xmfpath, char *ref, size_t size) {
  const char *hb = strrchr(h5path, '/'), *xb = strrchr(xmfpath, '/');
  size_t hd = hb ? (size_t)(hb - h5path) : 0, xd = xb ? (size_t)(xb - xmfpath) : 0;
  if (hd == xd && strncmp(h5path, xmfpath, hd) == 0) {
    snprintf(ref, size, "%s", hb ? hb + 1 : h5path);
    return;
  }
  if (h5path[0] == '/') {
    snprintf(ref, size, "%s", h5path);
    return;
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd))
    snprintf(ref, size, "%s/%s", cwd, h5path);
  else
    snprintf(ref, size, "%s", h5path);
}

int pm_xdmf_write_raw(const pm_xdmf_t *x, const char *h5path, const char *xmfpath, const char *tmp, int *created) {
  char ref[4400];
  FILE *fp = fopen(tmp, "w");
  *created = fp != NULL;
  if (!fp) return errno ? errno : EIO;
  h5_reference(h5path, xmfpath, ref, sizeof ref);
  fprintf(fp, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n");
  if (x->nsteps == 0) {
    xmf_grid(fp, x, ref, -1, "    ");
  } else {
    fprintf(fp, "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (int k = 0; k < x->nsteps; k++) xmf_grid(fp, x, ref, k, "      ");
    fprintf(fp, "    </Grid>\n");
  }
  fprintf(fp, "  </Domain>\n</Xdmf>\n");
  int bad = ferror(fp) || fflush(fp) != 0 || fsync(fileno(fp)) != 0;
  int e = errno;
  if (fclose(fp) != 0) {
    if (!bad) e = errno;
    bad = 1;
  }
  return bad ? (e ? e : EIO) : 0;
}

int pm_xdmf_report(const char *tmp, int e, int created) {
  if (!e) return PM_OK;
  if (!created) return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot create: %s", tmp, strerror(e));
  return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: write failed: %s", tmp, strerror(e));
}

int pm_xdmf_write(const pm_xdmf_t *x, const char *h5path, const char *xmfpath, const char *tmp) {
  int created = 0, e = pm_xdmf_write_raw(x, h5path, xmfpath, tmp, &created);
  return pm_xdmf_report(tmp, e, created);
}

static int job_run(void *arg) {
  pm_xdmf_job_t *j = arg;
  j->err = pm_xdmf_write_raw(j->x, j->h5path, j->xmfpath, j->tmp, &j->created);
  return 0;
}

void pm_xdmf_job_start(pm_xdmf_job_t *j, const pm_xdmf_t *x, const char *h5path, const char *xmfpath, const char *tmp,
                       int use_thread) {
  j->x = x;
  j->h5path = h5path;
  j->xmfpath = xmfpath;
  j->tmp = tmp;
  j->err = 0;
  j->created = 1;
  j->threaded = use_thread && thrd_create(&j->th, job_run, j) == thrd_success;
  if (!j->threaded) job_run(j);
}

void pm_xdmf_job_join(pm_xdmf_job_t *j) {
  if (j->threaded) thrd_join(j->th, NULL);
}
