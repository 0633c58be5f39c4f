/* pm_h5.c - results and time series in one parallel HDF5 file (MPI-IO, independent transfers),
 * described for ParaView by an XDMF file (pm_xdmf.c).  pm_h5_read.c reads them back for restarts.
 *
 * This file is the series' life: the temporary names, the redistribution plans (pm_redist) and
 * the mesh fingerprint, the file and its transfer properties, one write-behind thread per node
 * that makes the file durable as it grows (wb_setup), the fields of each step, the root
 * attributes, and the end (flush, close, both files renamed into place) or the discard after an
 * error.  pm_h5_mesh.c writes the datasets: every one through its row writer, the mesh's there. */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_h5.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/pm_util.h"
#include "halo/pm_redist.h"
#include "pm_h5_int.h"
#include "pm_h5_src.h"
#include "pm_h5io.h"
#include "pm_xdmf.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_version.h"

/* Write-behind syncs after each WB_NODE_STEP bytes that the ranks of a node wrote. */
enum { WB_NODE_STEP = 16 << 20 };

/* Of the calls of the current series: seconds inside them, and the minor page faults (a result's
 * two parts lie either side of a solve: what is between is not theirs). */
static double prof_in_;
static long prof_faults_;

/* ------------------------------------------------------------------------------------------
 * Series (pm_h5_write is a series of one unnamed step written to /fields) */

/* Write-behind on one rank per node (the node's ranks share its page cache, and fdatasync covers
 * the whole file), syncing each time it has written its share of WB_NODE_STEP more bytes; off
 * with PMESH_H5_WRITE_BEHIND=0.  Collective. */
static int wb_setup(pm_h5_series_t *s) {
  int ierr = PM_OK, local = 0, nlocal = 1;
  MPI_Comm node = MPI_COMM_NULL;
  const char *env = getenv("PMESH_H5_WRITE_BEHIND");
  PM_TRY_MPI(MPI_Comm_split_type(s->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &nlocal);
  if (local == 0 && pm_h5io_threads_allowed() && !(env && strcmp(env, "0") == 0))
    pm_h5io_wb_begin(&s->wb, s->h5tmp, WB_NODE_STEP / nlocal);
cleanup:
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  return ierr;
}

static int series_fail(pm_h5_series_t *s, int ierr) {
  if (ierr) s->failed = 1;
  return ierr;
}

/* Remove the temporaries (rank 0), after every rank closed the file.  Collective (after an
 * agreed error).  When an HDF5 call on the open file failed on some rank (a full disk, an I/O
 * error), HDF5 cannot close it: with collective metadata writes the ranks end up in different
 * collective calls inside H5Fclose and none returns; with independent ones H5Fclose fails and
 * HDF5's own clean-up at MPI_Finalize crashes (both seen with Debian's HDF5 1.10).  No orderly
 * end is left: the job ends here, the temporaries removed and the previous result kept. */
static void series_discard(pm_h5_series_t *s) {
  if (s->file >= 0) {
    int mine = pm_h5io_error_count() > s->h5_errors0, any = mine;
    pm_comm_allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, s->comm);
    if (any && !mine) {
      /* The rank that failed says why as it ends the job: give it the time to (a second, or the
       * agreement's deadline when that is shorter: the fault tests' runs set it to a fraction). */
      double wait = pm_comm_env_seconds("PMESH_AGREE_TIMEOUT", PM_COMM_AGREE_TIMEOUT);
      if (wait <= 0 || wait > 1) wait = 1;
      const struct timespec pause = {0, (long)(wait * 999999999.0)};
      nanosleep(&pause, NULL);
    }
    if (any)
      pm_comm_abort(s->comm, "HDF5 cannot close %s after a failed %s%s; ending the job (the previous %s is kept)",
                    s->h5tmp, mine ? "call" : "call on another rank", mine ? " on this rank" : "", s->h5path);
  }
  H5_WATCH("HDF5 closing %s after an error", s->h5tmp ? s->h5tmp : "the result");
  if (s->file >= 0) H5Fclose(s->file);
  s->file = -1;
  pm_h5io_wb_end(&s->wb);
  pm_comm_barrier(s->comm);
  if (s->rank == 0) {
    if (s->h5tmp) remove(s->h5tmp);
    if (s->xmftmp) remove(s->xmftmp);
  }
}

/* The job is ending (pm_comm_abort or the watchdog): the temporaries go (the result, if any, stays). */
static void series_abort(void *arg) {
  const pm_h5_series_t *s = arg;
  if (s->h5tmp) remove(s->h5tmp);
  if (s->xmftmp) remove(s->xmftmp);
}

static void series_free(pm_h5_series_t **sp) {
  pm_h5_series_t *s = *sp;
  if (!s) return;
  pm_comm_on_abort(NULL, NULL);
  pm_h5io_close(&s->dxpl, H5Pclose);
  pm_h5io_wb_end(&s->wb);
  pm_redist_destroy(&s->np);
  pm_redist_destroy(&s->ep);
  pm_scratch_free(&s->chunk);
  pm_scratch_free(&s->xbuf);
  pm_scratch_free(&s->conv);
  free(s->esel);
  free(s->h5path);
  free(s->xmfpath);
  free(s->h5tmp);
  free(s->xmftmp);
  pm_xdmf_clear(&s->x);
  if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
  free(s);
  *sp = NULL;
}

/* The internal nodes' plan, unless it is there.  Collective; the error agreed. */
static int node_plan(pm_h5_series_t *s) {
  if (s->np) return PM_OK;
  pm_redist_opts_t opt = {s->rows, 1, "node", PM_H5_REDIST_HINT, &s->xbuf};
  return pm_redist_create(s->comm, s->meta->global_nodes, s->local->n_internal, s->local->node_index, NULL, &opt,
                          &s->np);
}

/* The node and element plans, and the mesh fingerprint.  Collective; errors agreed. */
static int series_plans(pm_h5_series_t *s, int32_t nown, uint64_t esum) {
  const pm_local_t *l = s->local;
  const pm_meta_t *meta = s->meta;
  PM_CALL(pm_h5io_rows_per_round(s->comm, &s->rows));
  PM_CALL(node_plan(s));
  pm_redist_opts_t opt = {s->rows, 1, "element", PM_H5_REDIST_HINT, &s->xbuf};
  if (s->src.e) { /* items of per elements: rounds of about as many elements */
    opt.rows_per_round = s->rows / s->per > 0 ? s->rows / s->per : 1;
    opt.what = "item of elements";
    PM_CALL(pm_redist_create(s->comm, meta->global_elems / s->per, s->src.e->n_items, s->src.e->pos, s->src.e->sel,
                             &opt, &s->ep));
  } else {
    PM_CALL(pm_redist_create(s->comm, meta->global_elems, nown, l->elem_index, s->esel, &opt, &s->ep));
  }
  /* partition stores the mesh fingerprint (partition.meta version 2; partition --check verifies
   * it); only older partitions, and a mesh whose elements the caller gives, need it hashed here. */
  if (meta->has_mesh_fingerprint)
    s->mesh_fp = meta->mesh_fingerprint;
  else if (s->src.e)
    PM_CALL(pm_fingerprint_local_sum(s->comm, l, meta, esum, (int64_t)s->src.e->n_items * s->per, &s->mesh_fp));
  else
    PM_CALL(pm_fingerprint_local(s->comm, l, meta, &s->mesh_fp));
  return PM_OK;
}

int pm_h5_series_create(MPI_Comm comm, const pm_local_t *l, const pm_meta_t *meta, const char *h5path,
                        const char *xmfpath, const pm_h5_options_t *h5opt, pm_h5_series_t **sp) {
  int flags = h5opt ? (h5opt->no_partition ? H5_NO_PARTITION : 0) | (h5opt->node_fields ? H5_NODE_FIELDS : 0) : 0;
  int ierr = PM_OK;
  pm_h5_series_t *s = NULL;
  hid_t fapl = -1;
  pm_h5io_quiet_t q;
  pm_h5io_quiet_begin(&q);
  pm_h5io_watch_setup(comm, h5path);
  *sp = NULL;
  pm_h5io_prof_reset();
  prof_in_ = 0;
  prof_faults_ = 0;
  double t_in = pm_h5io_prof_now();
  long f_in = pm_h5io_minor_faults();
  PM_TRY(PM_CALLOC(s, 1, "HDF5 series"));
  s->comm = MPI_COMM_NULL;
  s->file = s->dxpl = -1;
  s->wb.fd = -1;
  s->h5_errors0 = pm_h5io_error_count();
  PM_TRY_MPI(pm_comm_dup(comm, &s->comm));
  PM_TRY_MPI(MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN));
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->nranks);
  s->local = l;
  s->meta = meta;
  s->flags = flags;
  s->src.e = h5opt ? h5opt->elements : NULL;
  s->src.l = l;
  s->per = s->src.e ? s->src.e->per : 1;
  long pid = (long)getpid();
  PM_TRY_MPI(pm_comm_bcast(&pid, 1, MPI_LONG, 0, s->comm));
  double t0 = pm_h5io_prof_now();

  /* Everything local first, then one agreement. */
  if (!ierr && !h5path) ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_h5: no HDF5 file name");
  if (!ierr) ierr = pm_strdup(h5path, &s->h5path);
  if (!ierr && xmfpath) ierr = pm_strdup(xmfpath, &s->xmfpath);
  if (!ierr) ierr = pm_h5io_tmp_name(h5path, pid, &s->h5tmp);
  if (!ierr && xmfpath) ierr = pm_h5io_tmp_name(xmfpath, pid, &s->xmftmp);
  if (!ierr) pm_comm_on_abort(series_abort, s);
  int32_t nown = 0;
  uint64_t esum = 0; /* a source's elements' fingerprint terms */
  if (!ierr && s->src.e) ierr = pm_h5_src_survey(&s->src, s->rank, s->nranks, meta, flags & H5_NODE_FIELDS, &esum);
  if (!ierr && !s->src.e) ierr = pm_h5io_check_local(s->rank, l, meta, &nown);
  if (!ierr && !s->src.e && nown < l->n_elems) { /* else esel stays NULL: owned element k is local element k */
    ierr = PM_MALLOC_BUFFER(s->esel, nown > 0 ? nown : 1, "owned elements");
    nown = 0;
    if (!ierr)
      for (int32_t e = 0; e < l->n_elems; e++)
        if (l->elem_owner[e] == s->rank) s->esel[nown++] = e;
  }
  PM_TRY(pm_comm_agree(s->comm, ierr));
  PM_TRY(series_plans(s, nown, esum));
  pm_h5io_prof_add(PM_H5_PROF_PREP, pm_h5io_prof_now() - t0);
  s->x.dim = meta->dim;
  s->x.n_nodes = meta->global_nodes;
  s->x.n_elems = meta->global_elems;
  s->x.conn_kind = pm_h5io_conn_narrow(meta->global_nodes) ? PM_XDMF_INT32 : PM_XDMF_INT64;

  H5_TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate (file access) for %s", h5path);
  H5_TRY(H5Pset_fapl_mpio(fapl, s->comm, MPI_INFO_NULL), "H5Pset_fapl_mpio for %s", h5path);
  /* No collective metadata writes: they share the cache's writes among the ranks, and which
   * freed space is ever written then depends on the rank count, so a --reproducible file would
   * differ in unused bytes (a 3 x 3 x 3 box at np 3). */
  H5_TRY(H5Pset_all_coll_metadata_ops(fapl, 1), "H5Pset_all_coll_metadata_ops for %s", h5path);
  H5_TRY(s->dxpl = H5Pcreate(H5P_DATASET_XFER), "H5Pcreate (transfer) for %s", h5path);
  /* Independent transfers: every rank writes contiguous rows of its own slab, which needs no
   * coordination, and a collective transfer synchronises the ranks twice per H5Dwrite (seconds
   * per result on oversubscribed cores, where a waiting rank polls instead of yielding).
   * Metadata operations stay collective (above). */
  H5_TRY(H5Pset_dxpl_mpio(s->dxpl, H5FD_MPIO_INDEPENDENT), "H5Pset_dxpl_mpio for %s", h5path);
  H5_WATCH("HDF5 creating %s", s->h5tmp);
  t0 = pm_h5io_prof_now();
  s->file = H5Fcreate(s->h5tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  ierr =
      s->file < 0 ? pm_h5io_error(__FILE__, __LINE__, "creating %s (temporary name of %s)", s->h5tmp, h5path) : PM_OK;
  PM_TRY(pm_comm_agree(s->comm, ierr));
  PM_TRY(wb_setup(s));
  pm_h5io_prof_add(PM_H5_PROF_OPEN, pm_h5io_prof_now() - t0);
  ierr = pm_h5_write_mesh(s);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  s->src.e = NULL;              /* the caller's only during this call */
  if (flags & H5_NODE_FIELDS) { /* a refined run's element plan is 10 bytes an element */
    pm_redist_destroy(&s->ep);
    free(s->esel);
    s->esel = NULL;
    pm_scratch_free(&s->conv);
    /* A solve comes before the fields: the buffers grow again for them, after it. */
    pm_scratch_free(&s->chunk);
    pm_scratch_free(&s->xbuf);
  }
  ierr = pm_xdmf_add_field(&s->x, -1, "/mesh/global_id", "global_id", 0, PM_XDMF_INT64);
  if (!ierr && !(flags & H5_NO_PARTITION)) {
    ierr = pm_xdmf_add_field(&s->x, -1, "/fields/node_rank", "node_rank", 0, PM_XDMF_INT32);
    if (!ierr) ierr = pm_xdmf_add_field(&s->x, -1, "/fields/cell_rank", "cell_rank", 1, PM_XDMF_INT32);
  }
  if (!ierr) ierr = pm_xdmf_add_field(&s->x, -1, "/fields/cell_group", "cell_group", 1, PM_XDMF_INT32);
  PM_TRY(pm_comm_agree(s->comm, ierr)); /* a failure here is local: series_discard is collective */
  *sp = s;
  s = NULL;
cleanup:
  pm_h5io_close(&fapl, H5Pclose);
  if (s) {
    if (s->comm != MPI_COMM_NULL) series_discard(s);
    series_free(&s);
  }
  pm_h5io_quiet_end(&q);
  prof_in_ += pm_h5io_prof_now() - t_in;
  prof_faults_ += pm_h5io_minor_faults() - f_in;
  return ierr;
}

/* Fields into group `gname` (created here).  Collective. */
static int series_fields(pm_h5_series_t *s, const char *gname, int step, double time, const pm_h5_field_t *fields,
                         int nfields) {
  int ierr = PM_OK;
  hid_t g = -1;
  /* Names first (same on every rank), then data pointers (this rank's). */
  for (int f = 0; f < nfields && !ierr; f++) {
    const char *nm = fields[f].name;
    if (!pm_h5io_valid_name(nm))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "field name '%s': use 1 to %d letters, digits, '_' or '-'",
                          nm ? nm : "(null)", PM_H5_NAME_MAX);
    else if (strcmp(nm, "node_rank") == 0 || strcmp(nm, "cell_rank") == 0 || strcmp(nm, "cell_group") == 0 ||
             strcmp(nm, "global_id") == 0)
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "field name '%s' is reserved (pmesh writes it itself)", nm);
    else if (fields[f].on_elements && (s->flags & H5_NODE_FIELDS))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "field '%s': this series writes node fields only", nm);
    else if (!fields[f].data &&
             (fields[f].on_elements ? s->local->n_elems > 0 : s->local->n_total + s->local->n_aux > 0))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "rank %d: field '%s' has no data", s->rank, nm);
    for (int h = 0; h < f && !ierr; h++)
      if (strcmp(fields[h].name, nm) == 0)
        ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "field '%s' given twice", nm);
  }
  PM_TRY(pm_comm_agree(s->comm, ierr));
  PM_TRY(node_plan(s));
  if (step >= 0) {
    H5_STEP(s->comm, g = pm_h5io_group_create(s->file, gname), "creating group %s in %s", gname, s->h5path);
    STEP(s->comm, pm_h5io_attr_num(g, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &time, gname));
  } else {
    H5_STEP(s->comm, g = H5Gopen2(s->file, gname, H5P_DEFAULT), "opening group %s in %s", gname, s->h5path);
  }
  for (int f = 0; f < nfields; f++) {
    const pm_h5_field_t *fd = &fields[f];
    const pm_redist_t *rd = fd->on_elements ? s->ep : s->np;
    int per = fd->on_elements ? s->per : 1;
    pm_redist_src_t x = {fd->is_int ? 4 : 8, fd->data, NULL, NULL};
    STEP(s->comm, pm_h5_write_rows(s, g, gname, fd->name, fd->is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE,
                                   fd->is_int ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE, 0, rd, per, &x,
                                   fd->on_elements ? "cell" : "node"));
    char dset[96];
    snprintf(dset, sizeof dset, "%s/%s", gname, fd->name);
    STEP(s->comm,
         pm_xdmf_add_field(&s->x, step, dset, fd->name, fd->on_elements, fd->is_int ? PM_XDMF_INT32 : PM_XDMF_FLOAT64));
  }
cleanup:
  pm_h5io_close(&g, H5Gclose);
  return ierr;
}

int pm_h5_series_write(pm_h5_series_t *s, double time, const pm_h5_field_t *fields, int nfields) {
  PM_CHECK(s, PM_ERR_ARG, "pm_h5_series_write: no series");
  PM_CHECK(!s->failed, PM_ERR_ARG, "pm_h5_series_write: %s: an earlier write failed; close the series with ok = 0",
           s->h5path);
  PM_CHECK(s->single < 2, PM_ERR_ARG, "pm_h5_series_write: %s is a single result: its fields are written once",
           s->h5path);
  int ierr = PM_OK;
  double t_in = pm_h5io_prof_now();
  long f_in = pm_h5io_minor_faults();
  pm_h5io_quiet_t q;
  pm_h5io_quiet_begin(&q);
  pm_h5io_watch_setup(s->comm, s->h5path);
  char gname[64];
  if (s->x.nsteps == 0 && !s->single) {
    hid_t g = pm_h5io_group_create(s->file, "steps");
    if (g < 0)
      ierr = pm_h5io_error(__FILE__, __LINE__, "creating group /steps in %s", s->h5path);
    else
      H5Gclose(g);
  }
  if (s->single)
    snprintf(gname, sizeof gname, "/fields");
  else
    snprintf(gname, sizeof gname, "/steps/%d", s->x.nsteps);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  ierr = series_fields(s, gname, s->single ? -1 : s->x.nsteps, time, fields, nfields);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  if (!s->single)
    PM_TRY(pm_xdmf_add_step(&s->x, time));
  else
    s->single = 2; /* written */
cleanup:
  pm_h5io_quiet_end(&q);
  prof_in_ += pm_h5io_prof_now() - t_in;
  prof_faults_ += pm_h5io_minor_faults() - f_in;
  return series_fail(s, ierr);
}

/* The names of /fields/cell_group's values: "INDEX=NAME" for each group of the mesh's dimension,
 * separated by "; ". */
static int group_names_attr(hid_t root, const pm_meta_t *m, const char *w) {
  size_t len = 1;
  for (int j = 0; j < m->n_groups; j++) len += strlen(m->group_name[j]) + 16;
  char *text = NULL;
  PM_CALL(PM_MALLOC(text, len, "group names"));
  size_t used = 0;
  text[0] = '\0';
  for (int j = 0; j < m->n_groups; j++)
    if (m->group_dim && m->group_dim[j] == m->dim)
      used += (size_t)snprintf(text + used, len - used, "%s%d=%s", used ? "; " : "", j, m->group_name[j]);
  int ierr = pm_h5io_attr_str(root, "cell_group_names", text, w);
  free(text);
  return ierr;
}

/* Root attributes: pmesh's, then the caller's. */
static int write_root_attrs(pm_h5_series_t *s, const pm_h5_attr_t *attrs, int nattrs) {
  int ierr = PM_OK;
  hid_t root = -1;
  const pm_meta_t *m = s->meta;
  const char *w = s->h5path;
  H5_TRY(root = H5Gopen2(s->file, "/", H5P_DEFAULT), "opening / in %s", w);
  PM_TRY(pm_h5io_attr_str(root, "format", PM_H5_FORMAT, w));
  PM_TRY(pm_h5io_attr_i64(root, "format_version", PM_H5_FORMAT_VERSION, w));
  PM_TRY(pm_h5io_attr_str(root, "pmesh_version", PMESH_VERSION, w));
  if (!(s->flags & H5_NO_PARTITION)) PM_TRY(pm_h5io_attr_i64(root, "nranks", s->nranks, w));
  PM_TRY(pm_h5io_attr_i64(root, "dim", m->dim, w));
  PM_TRY(pm_h5io_attr_i64(root, "global_nodes", m->global_nodes, w));
  PM_TRY(pm_h5io_attr_i64(root, "global_elems", m->global_elems, w));
  PM_TRY(pm_h5io_type_attrs(root, m->dim, s->x.ttot, w));
  PM_TRY(pm_h5io_attr_u64(root, "mesh_fingerprint", s->mesh_fp, w));
  if (!(s->flags & H5_NO_PARTITION)) PM_TRY(pm_h5io_attr_u64(root, "partition_fingerprint", m->fingerprint, w));
  PM_TRY(pm_h5io_attr_str(root, "mesh_file", m->source ? m->source : "", w));
  PM_TRY(pm_h5io_attr_u64(root, "mesh_file_checksum", m->source_checksum, w));
  PM_TRY(group_names_attr(root, m, w));
  if (!s->single) {
    PM_TRY(pm_h5io_attr_i64(root, "n_steps", s->x.nsteps, w));
    if (s->x.nsteps > 0)
      PM_TRY(pm_h5io_attr_num(root, "times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)s->x.nsteps, s->x.times, w));
  }
  for (int a = 0; a < nattrs; a++) {
    const pm_h5_attr_t *at = &attrs[a];
    PM_TRY_CHECK(pm_h5io_valid_name(at->name), PM_ERR_ARG,
                 "attribute name '%s': use 1 to %d letters, digits, '_' or '-'", at->name ? at->name : "(null)",
                 PM_H5_NAME_MAX);
    htri_t ex = H5Aexists(root, at->name);
    H5_TRY(ex, "H5Aexists %s in %s", at->name, w);
    PM_TRY_CHECK(!ex, PM_ERR_ARG, "attribute '%s' is reserved or given twice; choose another name", at->name);
    if (at->kind == PM_H5_ATTR_DOUBLE)
      PM_TRY(pm_h5io_attr_num(root, at->name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &at->d, w));
    else if (at->kind == PM_H5_ATTR_INT64)
      PM_TRY(pm_h5io_attr_i64(root, at->name, at->i, w));
    else if (at->kind == PM_H5_ATTR_STRING)
      PM_TRY(pm_h5io_attr_str(root, at->name, at->s ? at->s : "", w));
    else
      PM_TRY_CHECK(0, PM_ERR_ARG, "attribute '%s': kind %d, expected 0 (double), 1 (int64) or 2 (string)", at->name,
                   at->kind);
  }
cleanup:
  pm_h5io_close(&root, H5Gclose);
  return ierr;
}

static void print_profile(const pm_h5_series_t *s, double t_in, long f_in, int xmf_threaded) {
  double other = prof_in_ + pm_h5io_prof_now() - t_in;
  for (int k = 0; k < PM_H5_PROF_N; k++) other -= pm_h5io_prof_get(k);
  fprintf(stderr,
          "pm_h5 profile (rank 0, s): prepare %.3f open %.3f exchange %.3f dataset-writes %.3f flush %.3f "
          "close %.3f xmf+rename %.3f other %.3f page-faults %ld write-behind-thread %d xmf-thread %d\n",
          pm_h5io_prof_get(PM_H5_PROF_PREP), pm_h5io_prof_get(PM_H5_PROF_OPEN), pm_h5io_prof_get(PM_H5_PROF_EXCHANGE),
          pm_h5io_prof_get(PM_H5_PROF_WRITE), pm_h5io_prof_get(PM_H5_PROF_FLUSH), pm_h5io_prof_get(PM_H5_PROF_CLOSE),
          pm_h5io_prof_get(PM_H5_PROF_XMF), other, prof_faults_ + pm_h5io_minor_faults() - f_in, s->wb.running,
          xmf_threaded);
}

/* Attributes, flush, close, then both files into place (the h5 first).  Collective. */
static int series_finish(pm_h5_series_t *s, const pm_h5_attr_t *attrs, int nattrs, double t_in, long f_in) {
  int ierr = write_root_attrs(s, attrs, nattrs);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  /* Rank 0 writes the XDMF meanwhile, on a thread where it may (its fsync then overlaps the
   * flush's). */
  pm_xdmf_job_t job;
  memset(&job, 0, sizeof job);
  double t = pm_h5io_prof_now();
  if (s->rank == 0 && s->xmfpath)
    pm_xdmf_job_start(&job, &s->x, s->h5path, s->xmfpath, s->xmftmp, pm_h5io_threads_allowed());
  pm_h5io_prof_add(PM_H5_PROF_XMF, pm_h5io_prof_now() - t);
  /* Flush to disk (MPI_File_sync) before the rename makes the file the result. */
  t = pm_h5io_prof_now();
  H5_WATCH("HDF5 flushing %s", s->h5tmp);
  if (H5Fflush(s->file, H5F_SCOPE_GLOBAL) < 0) ierr = pm_h5io_error(__FILE__, __LINE__, "flushing %s", s->h5tmp);
  pm_h5io_prof_add(PM_H5_PROF_FLUSH, pm_h5io_prof_now() - t);
  t = pm_h5io_prof_now();
  if (!ierr) { /* after a failed flush, closing would write again: series_discard decides */
    H5_WATCH("HDF5 closing %s", s->h5tmp);
    if (H5Fclose(s->file) < 0)
      ierr = pm_h5io_error(__FILE__, __LINE__, "closing %s", s->h5tmp);
    else
      s->file = -1;
  }
  pm_h5io_prof_add(PM_H5_PROF_CLOSE, pm_h5io_prof_now() - t);
  t = pm_h5io_prof_now();
  pm_xdmf_job_join(&job); /* before any return: the job lives on this stack */
  if (!ierr && s->rank == 0 && s->xmfpath) ierr = pm_xdmf_report(s->xmftmp, job.err, job.created);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  if (s->rank == 0) {
    if (rename(s->h5tmp, s->h5path) != 0)
      ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot move %s into place: %s", s->h5path, s->h5tmp,
                          strerror(errno));
    if (!ierr && s->xmfpath && rename(s->xmftmp, s->xmfpath) != 0) /* two files are not renamed as one */
      ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__,
                          "%s: cannot move %s into place: %s (%s is the new result already; an earlier %s "
                          "describes the earlier one)",
                          s->xmfpath, s->xmftmp, strerror(errno), s->h5path, s->xmfpath);
  }
  PM_TRY(pm_comm_agree(s->comm, ierr));
  pm_h5io_prof_add(PM_H5_PROF_XMF, pm_h5io_prof_now() - t);
  if (s->rank == 0 && getenv("PMESH_H5_PROFILE")) print_profile(s, t_in, f_in, job.threaded);
cleanup:
  return ierr;
}

int pm_h5_series_close(pm_h5_series_t **sp, const pm_h5_attr_t *attrs, int nattrs, int ok) {
  pm_h5_series_t *s = sp ? *sp : NULL;
  if (!s) return PM_OK;
  int ierr = PM_OK;
  double t_in = pm_h5io_prof_now();
  long f_in = pm_h5io_minor_faults();
  pm_h5io_quiet_t q;
  pm_h5io_quiet_begin(&q);
  pm_h5io_watch_setup(s->comm, s->h5path);
  if (ok && s->failed)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "%s: not completed: an earlier write failed (previous result kept)", s->h5path);
  if (ok && !ierr) ierr = series_finish(s, attrs, nattrs, t_in, f_in);
  if (!ok || ierr) series_discard(s);
  series_free(sp);
  pm_h5io_quiet_end(&q);
  return ierr;
}

int pm_h5_result_create(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const char *h5path,
                        const char *xmfpath, const pm_h5_options_t *opt, pm_h5_series_t **s) {
  PM_CALL(pm_h5_series_create(comm, local, meta, h5path, xmfpath, opt, s));
  (*s)->single = 1; /* 2 once its fields are written */
  /* solve writes the mesh before it solves and the fields after (node fields): the node plan
   * (2 to 6 bytes a node) is made again for them rather than held through the solve. */
  if (opt && opt->node_fields) pm_redist_destroy(&(*s)->np);
  return PM_OK;
}

int pm_h5_write(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const pm_h5_field_t *fields, int nfields,
                const pm_h5_attr_t *attrs, int nattrs, const char *h5path, const char *xmfpath) {
  pm_h5_series_t *s = NULL;
  PM_CALL(pm_h5_result_create(comm, local, meta, h5path, xmfpath, NULL, &s));
  int ierr = pm_h5_series_write(s, 0.0, fields, nfields);
  if (ierr) {
    pm_error_trace(__FILE__, __LINE__);
    pm_h5_series_close(&s, NULL, 0, 0);
    return ierr;
  }
  PM_CALL(pm_h5_series_close(&s, attrs, nattrs, 1));
  return PM_OK;
}
