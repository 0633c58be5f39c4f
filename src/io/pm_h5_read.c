/* pm_h5_read.c - restarts: a nodal field of a pmesh result (pm_h5.c), written at any number of
 * ranks, read back into this partition's local meshes.  Each rank reads its block of the global
 * node order with one collective H5Dread, and the node plan (pm_redist) run backwards hands each
 * owner its nodes' values.  The file must be of the same mesh (its mesh fingerprint). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "halo/pm_redist.h"
#include "pm_h5io.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_h5_read.h"

static int read_attr(hid_t loc, const char *name, hid_t mtype, void *v, const char *path, int *found) {
  int ierr = PM_OK;
  hid_t a = -1;
  htri_t ex = H5Aexists(loc, name);
  H5_TRY(ex, "H5Aexists %s in %s", name, path);
  *found = ex > 0;
  if (!ex) goto cleanup;
  H5_TRY(a = H5Aopen(loc, name, H5P_DEFAULT), "opening attribute %s of %s", name, path);
  H5_TRY(H5Aread(a, mtype, v), "reading attribute %s of %s", name, path);
cleanup:
  pm_h5io_close(&a, H5Aclose);
  return ierr;
}

/* The names in group `g`, for a message. */
static void list_names(hid_t file, const char *g, char *buf, size_t size) {
  H5G_info_t info;
  buf[0] = '\0';
  if (H5Gget_info_by_name(file, g, &info, H5P_DEFAULT) < 0) return;
  size_t len = 0;
  for (hsize_t i = 0; i < info.nlinks && len + 70 < size; i++) {
    char nm[64];
    if (H5Lget_name_by_idx(file, g, H5_INDEX_NAME, H5_ITER_INC, i, nm, sizeof nm, H5P_DEFAULT) < 0) break;
    len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", nm);
  }
}

/* The arguments, and (rank 0) the file's existence and kind; not collective: the caller agrees
 * on the result. */
static int check_args(int rank, const pm_local_t *l, const pm_meta_t *meta, const char *h5path, const char *name,
                      int step, const double *values) {
  int ierr = pm_h5io_check_local(rank, l, meta, NULL);
  if (!ierr && (!h5path || !name || !values || step < -1))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_h5_read_field: missing argument or step %d < -1", step);
  if (!ierr && rank == 0) { /* the file's existence and kind: one rank looks */
    struct stat sb;
    if (stat(h5path, &sb) != 0)
      ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot open: %s", h5path, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
      ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: is not a regular file", h5path);
    else {
      htri_t is = H5Fis_hdf5(h5path);
      if (is < 0)
        ierr = pm_h5io_error(__FILE__, __LINE__, "%s: checking the file", h5path);
      else if (is == 0)
        ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                            "%s: not an HDF5 file; give a result written by pmesh (pm_h5_write / solve)", h5path);
    }
  }
  return ierr;
}

/* Open the file on every rank of c for collective reads (*fapl, *dxpl and *file are the
 * caller's to close, also after a failure).  Collective. */
static int open_file(MPI_Comm c, const char *h5path, hid_t *fapl, hid_t *dxpl, hid_t *file) {
  int ierr = PM_OK;
  H5_TRY(*fapl = H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate (file access) for %s", h5path);
  H5_TRY(H5Pset_fapl_mpio(*fapl, c, MPI_INFO_NULL), "H5Pset_fapl_mpio for %s", h5path);
  H5_TRY(H5Pset_all_coll_metadata_ops(*fapl, 1), "H5Pset_all_coll_metadata_ops for %s", h5path);
  H5_TRY(*dxpl = H5Pcreate(H5P_DATASET_XFER), "H5Pcreate (transfer) for %s", h5path);
  H5_TRY(H5Pset_dxpl_mpio(*dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio for %s", h5path);
  H5_WATCH("HDF5 opening %s", h5path);
  *file = H5Fopen(h5path, H5F_ACC_RDONLY, *fapl);
  ierr = *file < 0 ? pm_h5io_error(__FILE__, __LINE__, "opening %s", h5path) : PM_OK;
  PM_TRY(pm_comm_agree(c, ierr));
cleanup:
  return ierr;
}

/* The path of field `name` at `step` (-1: the last) in dset[size], after checking that the file
 * is a result of this mesh (fingerprint mine_fp) and that the group and the field exist. */
static int find_field(hid_t file, const char *h5path, uint64_t mine_fp, const char *name, int step, char *dset,
                      size_t size) {
  int ierr = PM_OK, found;
  hid_t root = -1;
  uint64_t file_fp = 0;
  int64_t nsteps = 0;
  char group[64] = "", names[600];
  H5_TRY(root = H5Gopen2(file, "/", H5P_DEFAULT), "opening / in %s", h5path);
  PM_TRY(read_attr(root, "mesh_fingerprint", H5T_NATIVE_UINT64, &file_fp, h5path, &found));
  PM_TRY_CHECK(found, PM_ERR_FORMAT, "%s: not a pmesh result (no attribute mesh_fingerprint at /)", h5path);
  PM_TRY_CHECK(file_fp == mine_fp, PM_ERR_INCONSISTENT,
               "%s: written for another mesh (mesh fingerprint %016" PRIx64 "; this mesh's is %016" PRIx64
               "): restart from a result of the same mesh (any partition and number of ranks)",
               h5path, file_fp, mine_fp);
  PM_TRY(read_attr(root, "n_steps", H5T_NATIVE_INT64, &nsteps, h5path, &found));
  if (!found) nsteps = 0;
  if (nsteps == 0) {
    PM_TRY_CHECK(step <= 0, PM_ERR_ARG, "%s: a single result has no step %d; use step -1 or 0", h5path, step);
    snprintf(group, sizeof group, "/fields");
  } else {
    int64_t k = step < 0 ? nsteps - 1 : step;
    PM_TRY_CHECK(k < nsteps, PM_ERR_ARG, "%s: no step %d: the series has %" PRId64 " steps, 0 to %" PRId64, h5path,
                 step, nsteps, nsteps - 1);
    snprintf(group, sizeof group, "/steps/%" PRId64, k);
  }
  snprintf(dset, size, "%s/%s", group, name);
  htri_t ex = H5Lexists(file, group, H5P_DEFAULT);
  H5_TRY(ex, "looking up %s in %s", group, h5path);
  PM_TRY_CHECK(ex > 0, PM_ERR_FORMAT, "%s: no group %s: not a complete pmesh result", h5path, group);
  ex = pm_h5io_valid_name(name) ? H5Lexists(file, dset, H5P_DEFAULT) : 0;
  H5_TRY(ex, "looking up %s in %s", dset, h5path);
  if (!ex) {
    list_names(file, group, names, sizeof names);
    PM_TRY_CHECK(0, PM_ERR_ARG, "%s: no field '%s' in %s (it has: %s)", h5path, name, group, names);
  }
cleanup:
  pm_h5io_close(&root, H5Gclose);
  return ierr;
}

/* The dataset ds (path dset) is a nodal field with one value per global node; *fs gets its file
 * space (the caller's to close). */
static int check_field(hid_t ds, const char *dset, const char *h5path, const pm_meta_t *meta, hid_t *fs) {
  int ierr = PM_OK;
  hid_t at = -1, st = -1;
  char center[8] = "";
  htri_t ex = H5Aexists(ds, "center");
  H5_TRY(ex, "H5Aexists center of %s in %s", dset, h5path);
  if (ex > 0) {
    H5_TRY(at = H5Aopen(ds, "center", H5P_DEFAULT), "opening attribute center of %s in %s", dset, h5path);
    H5_TRY(st = H5Tcopy(H5T_C_S1), "H5Tcopy");
    H5_TRY(H5Tset_size(st, sizeof center - 1), "H5Tset_size");
    H5_TRY(H5Aread(at, st, center), "reading attribute center of %s in %s", dset, h5path);
  }
  PM_TRY_CHECK(strcmp(center, "node") == 0, PM_ERR_ARG, "%s: %s is a %s field; a restart reads nodal fields", h5path,
               dset, center[0] ? center : "non-pmesh");
  H5_TRY(*fs = H5Dget_space(ds), "H5Dget_space of %s in %s", dset, h5path);
  hsize_t dims[2] = {0, 0};
  int nd = H5Sget_simple_extent_dims(*fs, dims, NULL);
  H5_TRY(nd, "reading the shape of %s in %s", dset, h5path);
  PM_TRY_CHECK(nd == 1 && dims[0] == (hsize_t)meta->global_nodes, PM_ERR_FORMAT,
               "%s: %s has shape [%llu%s] but the mesh has %" PRId64 " nodes", h5path, dset,
               (unsigned long long)dims[0], nd == 1 ? "" : " x ...", meta->global_nodes);
cleanup:
  pm_h5io_close(&st, H5Tclose);
  pm_h5io_close(&at, H5Aclose);
  return ierr;
}

/* This rank's block of rows (in.lo, in.cnt) of the dataset into slab, by one collective read. */
static int read_block(hid_t ds, hid_t fs, hid_t dxpl, const pm_redist_info_t *in, const char *dset, const char *h5path,
                      double *slab) {
  int ierr = PM_OK;
  hid_t ms = -1;
  hsize_t start = (hsize_t)in->lo, count = (hsize_t)in->cnt, one = 1;
  if (in->cnt > 0) {
    H5_TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL), "selecting rows of %s", dset);
    H5_TRY(ms = H5Screate_simple(1, &count, NULL), "H5Screate_simple");
  } else {
    H5_TRY(H5Sselect_none(fs), "H5Sselect_none");
    H5_TRY(ms = H5Screate_simple(1, &one, NULL), "H5Screate_simple");
    H5_TRY(H5Sselect_none(ms), "H5Sselect_none");
  }
  H5_WATCH("HDF5 reading %s of %s", dset, h5path);
  H5_TRY(H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, slab), "reading %s of %s", dset, h5path);
cleanup:
  pm_h5io_close(&ms, H5Sclose);
  return ierr;
}

int pm_h5_read_field(MPI_Comm comm, const pm_local_t *l, const pm_meta_t *meta, const char *h5path, const char *name,
                     int step, double *values) {
  int ierr = PM_OK, rank;
  MPI_Comm c = MPI_COMM_NULL;
  hid_t fapl = -1, dxpl = -1, file = -1, ds = -1, fs = -1;
  pm_redist_t *pl = NULL;
  pm_redist_info_t in;
  double *slab = NULL;
  uint64_t mine_fp = 0;
  char dset[128] = "";
  pm_h5io_quiet_t q;
  pm_h5io_quiet_begin(&q);
  pm_h5io_watch_setup(comm, h5path);
  PM_TRY_MPI(pm_comm_dup(comm, &c));
  PM_TRY_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  MPI_Comm_rank(c, &rank);

  PM_TRY(pm_comm_agree(c, check_args(rank, l, meta, h5path, name, step, values)));
  /* With a stored fingerprint the plan checks that the local meshes cover the nodes exactly (what
   * hashing them would have checked). */
  int64_t rows = 0;
  PM_TRY(pm_h5io_rows_per_round(c, &rows));
  pm_redist_opts_t opt = {rows, meta->has_mesh_fingerprint, "node", PM_H5_REDIST_HINT, NULL};
  PM_TRY(pm_redist_create(c, meta->global_nodes, l->n_internal, l->node_index, NULL, &opt, &pl));
  pm_redist_get_info(pl, &in);
  if (meta->has_mesh_fingerprint)
    mine_fp = meta->mesh_fingerprint;
  else
    PM_TRY(pm_fingerprint_local(c, l, meta, &mine_fp));

  PM_TRY(open_file(c, h5path, &fapl, &dxpl, &file));
  /* From here on every rank sees the same file, so every rank takes the same branch. */
  PM_TRY(find_field(file, h5path, mine_fp, name, step, dset, sizeof dset));
  H5_TRY(ds = H5Dopen2(file, dset, H5P_DEFAULT), "opening %s in %s", dset, h5path);
  PM_TRY(check_field(ds, dset, h5path, meta, &fs));
  PM_TRY(PM_MALLOC_BUFFER(slab, in.cnt > 0 ? in.cnt : 1, "field slab"));
  PM_TRY(read_block(ds, fs, dxpl, &in, dset, h5path, slab));
  PM_TRY(pm_redist_backward(pl, sizeof(double), slab, values));
cleanup:
  ierr = c != MPI_COMM_NULL ? pm_comm_agree(c, ierr) : ierr;
  pm_h5io_close(&fs, H5Sclose);
  pm_h5io_close(&ds, H5Dclose);
  pm_h5io_close(&file, H5Fclose);
  pm_h5io_close(&dxpl, H5Pclose);
  pm_h5io_close(&fapl, H5Pclose);
  pm_redist_destroy(&pl);
  free(slab);
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  pm_h5io_quiet_end(&q);
  return ierr;
}
