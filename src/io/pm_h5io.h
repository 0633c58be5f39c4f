/* pm_h5io.h - private: the HDF5 plumbing that pm_h5.c and pm_h5_mesh.c (results, series,
 * restarts) and pm_h5_view.c (partition --view) share.  HDF5 errors as pmesh errors, the watchdog around
 * collective HDF5 calls, the phase profile, attributes, datasets written by rows, and the
 * write-behind thread that makes a growing file durable. */
#ifndef PMESH_PM_H5IO_H
#define PMESH_PM_H5IO_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <threads.h>

#include "base/pm_alloc_int.h"
#include "base/pm_comm_int.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"

#define PM_H5_FORMAT "pmesh-h5"
enum {
  PM_H5_NAME_MAX = 63, /* field and attribute names */
  /* int64 per element in transit: Gmsh type, then up to PM_CELL_MAX_VERTS node positions in
   * Gmsh's order (-1 pads) */
  PM_H5_ELEM_W = 1 + PM_CELL_MAX_VERTS,
  PM_H5_NT = PM_CELL_NTYPES, /* per-type arrays are indexed by pm_cell_type_t */
  PM_H5_GMSH_CODES = 128     /* a type map covers every non-negative int8 Gmsh code */
};

/* ------------------------------------------------------------------------------------------
 * Errors */

/** Record a failed HDF5 call as PM_ERR_IO: "<fmt> failed (HDF5: <its innermost reason>)", and
 *  clear HDF5's error stack.  Counts the failures (pm_h5io_error_count).  Not collective. */
int pm_h5io_error(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/** HDF5 calls that failed on this rank so far. */
unsigned long pm_h5io_error_count(void);

/* Check an HDF5 call (negative return = failure) in a function with ierr and cleanup. */
#define H5_TRY(expr, ...)                                    \
  do {                                                       \
    if ((expr) < 0) {                                        \
      ierr = pm_h5io_error(__FILE__, __LINE__, __VA_ARGS__); \
      goto cleanup;                                          \
    }                                                        \
  } while (0)

/* A step every rank takes: its result is agreed, so all ranks go on or all leave together (a
 * rank that failed alone never skips a collective call that the others make). */
#define STEP(comm, expr)                  \
  do {                                    \
    ierr = pm_comm_agree((comm), (expr)); \
    if (ierr) {                           \
      pm_error_trace(__FILE__, __LINE__); \
      goto cleanup;                       \
    }                                     \
  } while (0)

#define H5_STEP(comm, expr, ...) STEP(comm, (expr) < 0 ? pm_h5io_error(__FILE__, __LINE__, __VA_ARGS__) : PM_OK)

/** HDF5 prints its error stack by default; pmesh reports errors itself.  begin switches the
 *  printing off, end restores the caller's setting and disarms the watchdog. */
typedef struct pm_h5io_quiet {
  H5E_auto2_t func;
  void *data;
} pm_h5io_quiet_t;
void pm_h5io_quiet_begin(pm_h5io_quiet_t *q);
void pm_h5io_quiet_end(const pm_h5io_quiet_t *q);

/** Close an HDF5 id if open and set it to -1. */
void pm_h5io_close(hid_t *id, herr_t (*close)(hid_t));

/* ------------------------------------------------------------------------------------------
 * The watchdog: a collective HDF5 call can block for good on the ranks that entered it when
 * another rank's error path left it (the ranks end up in different collective calls and none
 * returns).  The parallel entry points arm pm_comm's watchdog before each dataset's creation and
 * each write, read, flush and close: a step that has not returned after PMESH_H5_TIMEOUT seconds
 * (default PM_H5_TIMEOUT) ends the job.  pm_h5io_quiet_end disarms it. */
#define PM_H5_TIMEOUT 300.0

/** Take the wait from PMESH_H5_TIMEOUT (none at one rank) and arm the watch for path.  Not
 *  collective. */
void pm_h5io_watch_setup(MPI_Comm comm, const char *path);
/** No watch (serial files). */
void pm_h5io_watch_off(void);
double pm_h5io_watch_seconds(void);
#define H5_WATCH(...) pm_comm_watch_begin(pm_h5io_watch_seconds(), "PMESH_H5_TIMEOUT", __VA_ARGS__)

/* ------------------------------------------------------------------------------------------
 * Phase profile: seconds of each phase of this process, which pm_h5 prints at the end of a
 * write when PMESH_H5_PROFILE is set (=cpu: in process CPU time, for a shared machine), with the
 * minor page faults, which show where fresh memory was touched. */
enum {
  PM_H5_PROF_PREP,
  PM_H5_PROF_OPEN,
  PM_H5_PROF_EXCHANGE,
  PM_H5_PROF_WRITE,
  PM_H5_PROF_FLUSH,
  PM_H5_PROF_CLOSE,
  PM_H5_PROF_XMF,
  PM_H5_PROF_N
};
double pm_h5io_prof_now(void);
void pm_h5io_prof_add(int phase, double seconds);
double pm_h5io_prof_get(int phase);
void pm_h5io_prof_reset(void);
long pm_h5io_minor_faults(void);

/* ------------------------------------------------------------------------------------------
 * Write-behind: a thread that makes the bytes written so far durable (fdatasync) while the
 * writes go on, so that the final flush finds little left to do.  Advice only: it ignores errors,
 * since the final flush (MPI_File_sync) makes the file durable and reports them (Linux >= 4.13
 * reports a writeback error to every descriptor open when it happened).  No MPI or HDF5 call on
 * the thread. */
typedef struct pm_h5io_wb {
  int fd;      /* the file, read-only (-1: no write-behind) */
  int running; /* the thread was started */
  thrd_t th;
  mtx_t mu;
  cnd_t cv;
  int64_t step;    /* bytes between syncs */
  int64_t written; /* bytes this rank handed to HDF5 so far (under mu) */
  int64_t synced;  /* written when the last sync began (under mu) */
  int stop;        /* under mu */
} pm_h5io_wb_t;

/** Open path and start the thread, syncing after every `step` bytes; without either, no
 *  write-behind (fd -1). */
void pm_h5io_wb_begin(pm_h5io_wb_t *wb, const char *path, int64_t step);
/** Stop the thread (after the sync it is in, if any) and close the file.  Idempotent. */
void pm_h5io_wb_end(pm_h5io_wb_t *wb);
/** `bytes` more were written (wb may be NULL). */
void pm_h5io_wb_note(pm_h5io_wb_t *wb, int64_t bytes);

/** Whether pm_h5's helper threads may run: MPI at MPI_THREAD_FUNNELED or more. */
int pm_h5io_threads_allowed(void);

/* ------------------------------------------------------------------------------------------
 * Names, attributes, datasets */

/** 1 to PM_H5_NAME_MAX letters, digits, '_' or '-'. */
int pm_h5io_valid_name(const char *s);

/** "PATH.tmp.PID" in *out (the caller frees it). */
int pm_h5io_tmp_name(const char *path, long pid, char **out);

/** H5Gcreate2 without modification times: the same run writes the same bytes.  Returns the id
 *  or a negative value. */
hid_t pm_h5io_group_create(hid_t loc, const char *name);

/** Attributes of loc: a string; n values (n == 0: a scalar) of file type ftype from memory type
 *  mtype; a scalar int64 or uint64.  `where` names loc in messages. */
int pm_h5io_attr_str(hid_t loc, const char *name, const char *value, const char *where);
int pm_h5io_attr_num(hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *v,
                     const char *where);
int pm_h5io_attr_i64(hid_t loc, const char *name, int64_t v, const char *where);
int pm_h5io_attr_u64(hid_t loc, const char *name, uint64_t v, const char *where);

/** An open output file: its transfer properties, its final name (for messages), its
 *  write-behind (NULL: none). */
typedef struct pm_h5io_out {
  hid_t file, dxpl;
  const char *path;
  pm_h5io_wb_t *wb;
} pm_h5io_out_t;

/** Create dataset loc/name of [n_global] (ncols == 0) or [n_global x ncols], without fill values
 *  and with string attribute "center" when center is not NULL.  Collective when the file is
 *  parallel. */
int pm_h5io_dset_create(hid_t loc, const char *name, hid_t ftype, int ncols, int64_t n_global, const char *center,
                        const char *where, hid_t *ds);

/** Rows [lo, lo + cnt) of dataset ds from buf; a rank with cnt == 0 still takes part (empty
 *  selection).  Collective when the file is parallel. */
int pm_h5io_dset_put(const pm_h5io_out_t *o, hid_t ds, hid_t mtype, int ncols, int64_t lo, int64_t cnt, const void *buf,
                     const char *where);

/** A dataset created and written at once: rows [lo, lo + cnt) from buf. */
int pm_h5io_write_slab(const pm_h5io_out_t *o, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                       int ncols, int64_t n_global, int64_t lo, int64_t cnt, const void *buf, const char *center);

/* ------------------------------------------------------------------------------------------
 * What results need */

/** Rows per round of the redistribution plans: rank 0's PMESH_H5_ROWS (the tests use a few), or
 *  a default whose rows stay in cache.  Collective. */
int pm_h5io_rows_per_round(MPI_Comm comm, int64_t *rows);

/** Local checks before anything collective happens: what a result needs of the local mesh
 *  (cells of the mesh's dimension, each with its type's number of nodes).  nown (if not NULL):
 *  how many of the elements this rank owns.  Not collective. */
int pm_h5io_check_local(int rank, const pm_local_t *l, const pm_meta_t *meta, int32_t *nown);

/** The same for a result whose elements the caller gives (pm_h5_elements_t): the local mesh's
 *  nodes and coordinates only.  Not collective. */
int pm_h5io_check_nodes(int rank, const pm_local_t *l, const pm_meta_t *meta);

/* The likely cause of positions that the plans find inconsistent. */
#define PM_H5_REDIST_HINT "local meshes and partition.meta from different partitions, or not all local meshes loaded?"

/* ------------------------------------------------------------------------------------------
 * Connectivity: one dataset per cell type (pm_xdmf_conn_names), rows in XDMF's (= VTK's) vertex
 * order, the table's to_vtk applied; where types mix, also XDMF's Mixed list (the table's
 * xdmf_type, then the nodes in that order).  Lines are only ever the cells of a 1D mesh, so a
 * Mixed list never holds one (a Polyline there would need its node count). */

/** map[code]: the cell type of Gmsh code `code` (pm_cell_from_gmsh), -1 for none.  Built once
 *  per pass so that no loop over a million elements calls the table per element. */
void pm_h5io_type_map(int8_t map[PM_H5_GMSH_CODES]);
static inline int pm_h5io_cell_of(const int8_t map[PM_H5_GMSH_CODES], int gmsh) {
  return gmsh >= 0 && gmsh < PM_H5_GMSH_CODES ? map[gmsh] : -1;
}

/** Whether connectivity (the per-type datasets and the Mixed list) is stored as int32: while a
 *  mesh's n_nodes positions all fit (fewer than 2^31 nodes) and PMESH_H5_WIDE is not 1, else as
 *  int64.  A refined 3D mesh's connectivity is most of its result file; int32 makes it a third
 *  smaller.  Every rank must see the same environment.  Not collective. */
int pm_h5io_conn_narrow(int64_t n_nodes);

/** The HDF5 file and memory types of connectivity stored narrow (int32) or not (int64). */
static inline hid_t pm_h5io_conn_ftype(int narrow) { return narrow ? H5T_STD_I32LE : H5T_STD_I64LE; }
static inline hid_t pm_h5io_conn_mtype(int narrow) { return narrow ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64; }

/** With `narrow`, a's n values (each fits int32) rewritten in place as int32 from a's first byte
 *  on (so a's memory holds what pm_h5io_conn_mtype(1) describes); without it, nothing.  Not
 *  collective. */
void pm_h5io_conn_pack(int64_t *a, int64_t n, int narrow);

/** Length of XDMF's Mixed list of ttot[t] cells of each type t. */
int64_t pm_h5io_mixed_len(const int64_t ttot[PM_H5_NT]);

/** Root attributes n_<dataset> of the cell counts ttot[t]: n_triangles, n_quadrangles and n_lines
 *  in every file (as 2D files always had them), n_tetrahedra, n_hexahedra and n_prisms in a 3D
 *  one.  `where` names the file in messages. */
int pm_h5io_type_attrs(hid_t root, int dim, const int64_t ttot[PM_H5_NT], const char *where);

/** n elements in transit (PM_H5_ELEM_W int64 each, the type a valid Gmsh code) -> rows per cell
 *  type (rows[t], n_verts columns, XDMF order; NULL for a type not kept) and, if mixed is not
 *  NULL, XDMF's mixed list.  cnt[t] and *mlen: what was added. */
void pm_h5io_elem_split(const int64_t *items, int64_t n, int64_t *const rows[PM_H5_NT], int64_t *mixed,
                        int64_t cnt[PM_H5_NT], int64_t *mlen);

#endif
