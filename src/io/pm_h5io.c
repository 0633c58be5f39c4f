/* pm_h5io.c - the HDF5 plumbing shared by pm_h5.c, pm_h5_mesh.c and pm_h5_view.c (see pm_h5io.h). */
#define _POSIX_C_SOURCE 200809L
#include "pm_h5io.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/pm_util.h"
#include "pm_xdmf.h"

/* ------------------------------------------------------------------------------------------
 * Errors */

/* The innermost entry of HDF5's error stack: the most specific reason. */
static herr_t h5_walk(unsigned n, const H5E_error2_t *e, void *ud) {
  if (n == 0) {
    char minor[128] = "";
    if (H5Eget_msg(e->min_num, NULL, minor, sizeof minor) < 0) minor[0] = '\0';
    snprintf((char *)ud, 320, "%s%s%s", e->desc ? e->desc : "", minor[0] ? " - " : "", minor);
  }
  return 0;
}

static unsigned long h5_errors; /* HDF5 calls that failed on this rank, ever */

unsigned long pm_h5io_error_count(void) {
  return h5_errors;
}

int pm_h5io_error(const char *file, int line, const char *fmt, ...) {
  char what[600], why[320] = "";
  h5_errors++;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_walk, why);
  H5Eclear2(H5E_DEFAULT);
  for (char *c = why; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  return pm_error_set(PM_ERR_IO, file, line, "%s failed%s%s%s", what, why[0] ? " (HDF5: " : "", why, why[0] ? ")" : "");
}

void pm_h5io_quiet_begin(pm_h5io_quiet_t *q) {
  /* Before HDF5 initialises: its exit handler closes the files still open, which is collective,
   * and a rank that exits because pm_comm_abort ended the job must not wait in it.  (pmesh
   * closes what it opens on every other path, and HDF5 still shuts down at MPI_Finalize.) */
  static int once;
  if (!once) H5dont_atexit();
  once = 1;
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void pm_h5io_quiet_end(const pm_h5io_quiet_t *q) {
  H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
  pm_comm_watch_end();
}

void pm_h5io_close(hid_t *id, herr_t (*close)(hid_t)) {
  if (*id >= 0) close(*id);
  *id = -1;
}

/* ------------------------------------------------------------------------------------------
 * Watchdog and profile */

static double watch_s;

void pm_h5io_watch_setup(MPI_Comm comm, const char *path) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  watch_s = n > 1 ? pm_comm_env_seconds("PMESH_H5_TIMEOUT", PM_H5_TIMEOUT) : 0;
  pm_comm_watch_begin(watch_s, "PMESH_H5_TIMEOUT", "HDF5 on %s", path ? path : "(no name)");
}

void pm_h5io_watch_off(void) {
  watch_s = 0;
}
double pm_h5io_watch_seconds(void) {
  return watch_s;
}

static double prof[PM_H5_PROF_N];

double pm_h5io_prof_now(void) {
  static int mode = -1;
  if (mode < 0) {
    const char *e = getenv("PMESH_H5_PROFILE");
    mode = e && strcmp(e, "cpu") == 0;
  }
  if (mode) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  }
  return pm_wtime();
}

void pm_h5io_prof_add(int phase, double seconds) {
  prof[phase] += seconds;
}
double pm_h5io_prof_get(int phase) {
  return prof[phase];
}
void pm_h5io_prof_reset(void) {
  memset(prof, 0, sizeof prof);
}

long pm_h5io_minor_faults(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/* ------------------------------------------------------------------------------------------
 * Write-behind */

static int wb_run(void *arg) {
  pm_h5io_wb_t *wb = arg;
  mtx_lock(&wb->mu);
  for (;;) {
    while (!wb->stop && wb->written - wb->synced < wb->step) cnd_wait(&wb->cv, &wb->mu);
    if (wb->stop) break;
    wb->synced = wb->written;
    mtx_unlock(&wb->mu);
    (void)fdatasync(wb->fd);
    mtx_lock(&wb->mu);
  }
  mtx_unlock(&wb->mu);
  return 0;
}

void pm_h5io_wb_begin(pm_h5io_wb_t *wb, const char *path, int64_t step) {
  memset(wb, 0, sizeof *wb);
  wb->fd = open(path, O_RDONLY | O_CLOEXEC);
  wb->step = step;
  if (wb->fd < 0) return;
  if (mtx_init(&wb->mu, mtx_plain) != thrd_success) goto fail;
  if (cnd_init(&wb->cv) != thrd_success) {
    mtx_destroy(&wb->mu);
    goto fail;
  }
  if (thrd_create(&wb->th, wb_run, wb) == thrd_success) {
    wb->running = 1;
    return;
  }
  cnd_destroy(&wb->cv);
  mtx_destroy(&wb->mu);
fail:
  close(wb->fd);
  wb->fd = -1;
}

void pm_h5io_wb_end(pm_h5io_wb_t *wb) {
  if (wb->running) {
    mtx_lock(&wb->mu);
    wb->stop = 1;
    cnd_signal(&wb->cv);
    mtx_unlock(&wb->mu);
    thrd_join(wb->th, NULL);
    cnd_destroy(&wb->cv);
    mtx_destroy(&wb->mu);
    wb->running = 0;
  }
  if (wb->fd >= 0) close(wb->fd);
  wb->fd = -1;
}

void pm_h5io_wb_note(pm_h5io_wb_t *wb, int64_t bytes) {
  if (!wb || !wb->running || bytes <= 0) return;
  mtx_lock(&wb->mu);
  wb->written += bytes;
  if (wb->written - wb->synced >= wb->step) cnd_signal(&wb->cv);
  mtx_unlock(&wb->mu);
}

/* Helper threads run only where MPI allows threads beside the one that calls it (MPI_Init gives
 * MPICH's default, MPI_THREAD_SINGLE).  Without them the file is the same. */
int pm_h5io_threads_allowed(void) {
  int level = MPI_THREAD_SINGLE;
  return MPI_Query_thread(&level) == MPI_SUCCESS && level >= MPI_THREAD_FUNNELED;
}

/* ------------------------------------------------------------------------------------------
 * Names, attributes, datasets */

int pm_h5io_valid_name(const char *s) {
  if (!s || !*s || strlen(s) > PM_H5_NAME_MAX) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
      return 0;
  return 1;
}

int pm_h5io_tmp_name(const char *path, long pid, char **out) {
  size_t n = strlen(path) + 48;
  PM_CALL(PM_MALLOC(*out, n, "file name"));
  snprintf(*out, n, "%s.tmp.%ld", path, pid);
  return PM_OK;
}

/* By default HDF5 stamps each object with the second it was made. */
hid_t pm_h5io_group_create(hid_t loc, const char *name) {
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), g = -1;
  if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) >= 0) g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  pm_h5io_close(&gcpl, H5Pclose);
  return g;
}

int pm_h5io_attr_str(hid_t loc, const char *name, const char *value, const char *where) {
  int ierr = PM_OK;
  hid_t t = -1, sp = -1, a = -1;
  size_t len = strlen(value);
  H5_TRY(t = H5Tcopy(H5T_C_S1), "H5Tcopy for attribute %s of %s", name, where);
  H5_TRY(H5Tset_size(t, len + 1), "H5Tset_size for attribute %s of %s", name, where);
  H5_TRY(sp = H5Screate(H5S_SCALAR), "H5Screate for attribute %s of %s", name, where);
  H5_TRY(a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT), "creating attribute %s of %s", name, where);
  H5_TRY(H5Awrite(a, t, len ? value : " "), "writing attribute %s of %s", name, where);
cleanup:
  pm_h5io_close(&a, H5Aclose);
  pm_h5io_close(&sp, H5Sclose);
  pm_h5io_close(&t, H5Tclose);
  return ierr;
}

int pm_h5io_attr_num(hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *v,
                     const char *where) {
  int ierr = PM_OK;
  hid_t sp = -1, a = -1;
  H5_TRY(sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL), "H5Screate for attribute %s of %s", name,
         where);
  H5_TRY(a = H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT), "creating attribute %s of %s", name, where);
  H5_TRY(H5Awrite(a, mtype, v), "writing attribute %s of %s", name, where);
cleanup:
  pm_h5io_close(&a, H5Aclose);
  pm_h5io_close(&sp, H5Sclose);
  return ierr;
}

int pm_h5io_attr_i64(hid_t loc, const char *name, int64_t v, const char *where) {
  return pm_h5io_attr_num(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &v, where);
}

int pm_h5io_attr_u64(hid_t loc, const char *name, uint64_t v, const char *where) {
  return pm_h5io_attr_num(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &v, where);
}

/* No fill values: every element is written once, and filling first would double the I/O. */
int pm_h5io_dset_create(hid_t loc, const char *name, hid_t ftype, int ncols, int64_t n_global, const char *center,
                        const char *where, hid_t *ds) {
  int ierr = PM_OK, nd = ncols > 0 ? 2 : 1;
  hid_t fs = -1, dcpl = -1;
  hsize_t dims[2] = {(hsize_t)n_global, (hsize_t)ncols};
  *ds = -1;
  H5_TRY(fs = H5Screate_simple(nd, dims, NULL), "H5Screate_simple for %s", where);
  H5_TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate for %s", where);
  H5_TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time for %s", where);
  H5_TRY(H5Pset_obj_track_times(dcpl, 0), "H5Pset_obj_track_times for %s", where);
  H5_WATCH("HDF5 creating %s", where);
  H5_TRY(*ds = H5Dcreate2(loc, name, ftype, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT), "creating %s", where);
  if (center) PM_TRY(pm_h5io_attr_str(*ds, "center", center, where));
cleanup:
  if (ierr) pm_h5io_close(ds, H5Dclose);
  pm_h5io_close(&dcpl, H5Pclose);
  pm_h5io_close(&fs, H5Sclose);
  return ierr;
}

int pm_h5io_dset_put(const pm_h5io_out_t *o, hid_t ds, hid_t mtype, int ncols, int64_t lo, int64_t cnt, const void *buf,
                     const char *where) {
  int ierr = PM_OK, nd = ncols > 0 ? 2 : 1;
  hid_t fs = -1, ms = -1;
  hsize_t start[2] = {(hsize_t)lo, 0}, count[2] = {(hsize_t)cnt, (hsize_t)ncols};
  static const char dummy[8];
  double t = pm_h5io_prof_now();
  H5_TRY(fs = H5Dget_space(ds), "H5Dget_space for %s", where);
  if (cnt > 0) {
    H5_TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "selecting rows of %s", where);
    H5_TRY(ms = H5Screate_simple(nd, count, NULL), "H5Screate_simple for %s", where);
  } else {
    hsize_t one[2] = {1, 1};
    H5_TRY(H5Sselect_none(fs), "H5Sselect_none for %s", where);
    H5_TRY(ms = H5Screate_simple(nd, one, NULL), "H5Screate_simple for %s", where);
    H5_TRY(H5Sselect_none(ms), "H5Sselect_none for %s", where);
  }
  H5_WATCH("HDF5 writing %s", where);
  H5_TRY(H5Dwrite(ds, mtype, ms, fs, o->dxpl, cnt > 0 ? buf : dummy), "writing %s", where);
  pm_h5io_wb_note(o->wb, cnt * (int64_t)H5Tget_size(mtype) * (ncols > 0 ? ncols : 1));
cleanup:
  pm_h5io_close(&ms, H5Sclose);
  pm_h5io_close(&fs, H5Sclose);
  pm_h5io_prof_add(PM_H5_PROF_WRITE, pm_h5io_prof_now() - t);
  return ierr;
}

int pm_h5io_write_slab(const pm_h5io_out_t *o, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                       int ncols, int64_t n_global, int64_t lo, int64_t cnt, const void *buf, const char *center) {
  int ierr = PM_OK;
  hid_t ds = -1;
  char where[300];
  snprintf(where, sizeof where, "dataset %s/%s of %s", gname, name, o->path);
  PM_TRY(pm_h5io_dset_create(loc, name, ftype, ncols, n_global, center, where, &ds));
  PM_TRY(pm_h5io_dset_put(o, ds, mtype, ncols, lo, cnt, buf, where));
cleanup:
  pm_h5io_close(&ds, H5Dclose);
  return ierr;
}

/* ------------------------------------------------------------------------------------------
 * What results need */

/* Slab rows per round: the coordinates of a round (0.75 MB) stay in cache between the exchange
 * and the write. */
enum { ROWS_DEFAULT = 1 << 15 };

int pm_h5io_rows_per_round(MPI_Comm comm, int64_t *rows) {
  int ierr = PM_OK, rank;
  const char *env = getenv("PMESH_H5_ROWS");
  MPI_Comm_rank(comm, &rank);
  *rows = ROWS_DEFAULT;
  if (rank == 0 && env && atoll(env) > 0) *rows = atoll(env);
  PM_TRY_MPI(pm_comm_bcast(rows, 1, MPI_INT64_T, 0, comm));
cleanup:
  return ierr;
}

/* What a result needs of the metadata. */
static int check_meta(const pm_meta_t *meta) {
  PM_CHECK(meta->dim >= 1 && meta->dim <= 3, PM_ERR_ARG, "partition.meta: dimension %d, expected 1, 2 or 3", meta->dim);
  PM_CHECK(meta->global_nodes > 0 && meta->global_elems > 0, PM_ERR_ARG,
           "partition.meta: %" PRId64 " nodes and %" PRId64 " elements; a result needs both", meta->global_nodes,
           meta->global_elems);
  return PM_OK;
}

int pm_h5io_check_nodes(int rank, const pm_local_t *l, const pm_meta_t *meta) {
  PM_CHECK(l && meta, PM_ERR_ARG, "pm_h5: NULL local mesh or metadata");
  PM_CHECK(l->xyz || l->n_total + l->n_aux == 0, PM_ERR_ARG,
           "rank %d: the local mesh has no coordinates: a lecture file with the tables only (re-partition with "
           "partition to get a full local mesh)",
           rank);
  return check_meta(meta);
}

int pm_h5io_check_local(int rank, const pm_local_t *l, const pm_meta_t *meta, int32_t *nown) {
  PM_CHECK(l && meta, PM_ERR_ARG, "pm_h5: NULL local mesh or metadata");
  PM_CHECK(l->has_mesh, PM_ERR_ARG,
           "rank %d: the local mesh has no coordinates or elements: a lecture file with the tables only "
           "(re-partition with partition to get a full local mesh), or a mesh whose elements were released "
           "(pm_local_release)",
           rank);
  PM_CALL(check_meta(meta));
  /* Nodes of a cell by Gmsh code, 0 where the code is no cell of the mesh's dimension (one pass
   * over a million elements: no call per element). */
  int8_t nodes[PM_H5_GMSH_CODES];
  memset(nodes, 0, sizeof nodes);
  for (int t = 0; t < PM_CELL_NTYPES; t++) {
    const pm_cell_t *c = pm_cell_get((pm_cell_type_t)t);
    if (c->dim == meta->dim && c->gmsh_type >= 0 && c->gmsh_type < PM_H5_GMSH_CODES)
      nodes[c->gmsh_type] = (int8_t)c->n_verts;
  }
  const int8_t *type = l->elem_type;
  const int32_t *ptr = l->elem_ptr, *owner = l->elem_owner;
  int32_t own = 0;
  for (int32_t e = 0; e < l->n_elems; e++) {
    int t = type[e], nv = t >= 0 && t < PM_H5_GMSH_CODES ? nodes[t] : 0;
    if (nv == 0 || ptr[e + 1] - ptr[e] != nv) {
      PM_CHECK(nv != 0, PM_ERR_INCONSISTENT, "rank %d: element %d has Gmsh type %d, not a cell of a %dD mesh", rank, e,
               t, meta->dim);
      PM_CHECK(0, PM_ERR_INCONSISTENT, "rank %d: element %d has %d nodes, its type %d has %d", rank, e,
               ptr[e + 1] - ptr[e], t, nv);
    }
    own += owner[e] == rank;
  }
  if (nown) *nown = own;
  return PM_OK;
}

/* ------------------------------------------------------------------------------------------
 * Connectivity */

void pm_h5io_type_map(int8_t map[PM_H5_GMSH_CODES]) {
  memset(map, -1, PM_H5_GMSH_CODES);
  for (int t = 0; t < PM_CELL_NTYPES; t++) {
    int g = pm_cell_get((pm_cell_type_t)t)->gmsh_type;
    if (g >= 0 && g < PM_H5_GMSH_CODES) map[g] = (int8_t)t;
  }
}

int64_t pm_h5io_mixed_len(const int64_t ttot[PM_H5_NT]) {
  int64_t len = 0;
  for (int t = 0; t < PM_H5_NT; t++) len += ttot[t] * (1 + pm_cell_get((pm_cell_type_t)t)->n_verts);
  return len;
}

int pm_h5io_conn_narrow(int64_t n_nodes) {
  const char *wide = getenv("PMESH_H5_WIDE");
  return n_nodes <= INT32_MAX && !(wide && strcmp(wide, "1") == 0);
}

void pm_h5io_conn_pack(int64_t *a, int64_t n, int narrow) {
  if (!narrow) return;
  char *o = (char *)a; /* bytes: value k goes where it cannot overwrite a value not yet read */
  for (int64_t k = 0; k < n; k++) {
    int32_t v = (int32_t)a[k];
    memcpy(o + sizeof v * (size_t)k, &v, sizeof v);
  }
}

int pm_h5io_type_attrs(hid_t root, int dim, const int64_t ttot[PM_H5_NT], const char *where) {
  static const pm_cell_type_t always[3] = {PM_CELL_TRI, PM_CELL_QUAD, PM_CELL_LINE}; /* their order of old */
  char name[32];
  for (int k = 0; k < 3; k++) {
    snprintf(name, sizeof name, "n_%s", pm_xdmf_conn_names[always[k]]);
    PM_CALL(pm_h5io_attr_i64(root, name, ttot[always[k]], where));
  }
  for (int t = 0; t < PM_H5_NT; t++)
    if (dim == 3 && pm_cell_get((pm_cell_type_t)t)->dim == 3) {
      snprintf(name, sizeof name, "n_%s", pm_xdmf_conn_names[t]);
      PM_CALL(pm_h5io_attr_i64(root, name, ttot[t], where));
    }
  return PM_OK;
}

void pm_h5io_elem_split(const int64_t *items, int64_t n, int64_t *const rows[PM_H5_NT], int64_t *mixed,
                        int64_t cnt[PM_H5_NT], int64_t *mlen) {
  int8_t map[PM_H5_GMSH_CODES];
  const pm_cell_t *cell[PM_H5_NT];
  int64_t m = 0;
  pm_h5io_type_map(map);
  for (int t = 0; t < PM_H5_NT; t++) cell[t] = pm_cell_get((pm_cell_type_t)t);
  memset(cnt, 0, PM_H5_NT * sizeof *cnt);
  for (int64_t k = 0; k < n; k++, items += PM_H5_ELEM_W) {
    int t = pm_h5io_cell_of(map, (int)items[0]), nv = cell[t]->n_verts;
    const int8_t *perm = cell[t]->to_vtk;
    if (rows[t])
      for (int v = 0; v < nv; v++) rows[t][cnt[t] * nv + v] = items[1 + perm[v]];
    cnt[t]++;
    if (mixed) {
      mixed[m++] = cell[t]->xdmf_type;
      for (int v = 0; v < nv; v++) mixed[m++] = items[1 + perm[v]];
    }
  }
  *mlen = m;
}
