/* pm_h5_view.c - the global mesh with its partition (partition --view): the result file's layout,
 * with the part of every node and element, written by one process with serial HDF5 (no MPI). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pm_h5io.h"
#include "pm_xdmf.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_h5_view.h"
#include "pmesh/pm_version.h"

/* Connectivity of the n elements of a whole mesh (items as pm_h5io_elem_split takes them; ttot:
 * per cell type), written at once, as int32 when narrow (pm_h5io_conn_narrow). */
static int write_connectivity(const pm_h5io_out_t *o, hid_t g, const int64_t *items, int64_t n,
                              const int64_t ttot[PM_H5_NT], int narrow, pm_scratch_t *sb) {
  int ierr = PM_OK, ntypes = 0;
  int64_t *buf = NULL, *rows[PM_H5_NT], cnt[PM_H5_NT], mlen = 0, at = 0;
  for (int t = 0; t < PM_H5_NT; t++) {
    at += ttot[t] * pm_cell_get((pm_cell_type_t)t)->n_verts;
    ntypes += ttot[t] > 0;
  }
  int64_t mtot = ntypes > 1 ? pm_h5io_mixed_len(ttot) : 0;
  PM_TRY(PM_SCRATCH_GET(sb, sizeof(int64_t) * (size_t)(at + mtot + 1), buf));
  at = 0;
  for (int t = 0; t < PM_H5_NT; t++) {
    rows[t] = ttot[t] > 0 ? buf + at : NULL;
    at += ttot[t] * pm_cell_get((pm_cell_type_t)t)->n_verts;
  }
  pm_h5io_elem_split(items, n, rows, ntypes > 1 ? buf + at : NULL, cnt, &mlen);
  for (int t = 0; t < PM_H5_NT; t++)
    if (ttot[t] > 0) {
      int nv = pm_cell_get((pm_cell_type_t)t)->n_verts;
      pm_h5io_conn_pack(rows[t], cnt[t] * nv, narrow);
      PM_TRY(pm_h5io_write_slab(o, g, "/mesh", pm_xdmf_conn_names[t], pm_h5io_conn_ftype(narrow),
                                pm_h5io_conn_mtype(narrow), nv, ttot[t], 0, cnt[t], rows[t], NULL));
    }
  if (ntypes > 1) {
    pm_h5io_conn_pack(buf + at, mlen, narrow);
    PM_TRY(pm_h5io_write_slab(o, g, "/mesh", "mixed", pm_h5io_conn_ftype(narrow), pm_h5io_conn_mtype(narrow), 0, mtot,
                              0, mlen, buf + at, NULL));
  }
cleanup:
  return ierr;
}

int pm_h5_write_partition(const pm_mesh_t *m, const int32_t *part, int nparts, uint64_t partition_fingerprint,
                          const char *h5path, const char *xmfpath) {
  int ierr = PM_OK;
  hid_t file = -1, g = -1, gf = -1, root = -1;
  char *h5tmp = NULL, *xmftmp = NULL;
  int64_t *e = NULL;
  int32_t *epart = NULL;
  int64_t ttot[PM_H5_NT] = {0};
  int8_t map[PM_H5_GMSH_CODES];
  pm_xdmf_t x;
  pm_scratch_t conv = {NULL, 0};
  pm_h5io_quiet_t q;
  memset(&x, 0, sizeof x);
  pm_h5io_quiet_begin(&q);
  pm_h5io_watch_off(); /* serial */
  pm_h5io_out_t o = {-1, H5P_DEFAULT, h5path, NULL};
  PM_TRY_CHECK(m && part && h5path && m->n_nodes > 0 && m->n_elems > 0, PM_ERR_ARG,
               "pm_h5_write_partition: empty mesh or missing argument");
  PM_TRY(pm_h5io_tmp_name(h5path, (long)getpid(), &h5tmp));
  if (xmfpath) PM_TRY(pm_h5io_tmp_name(xmfpath, (long)getpid(), &xmftmp));
  PM_TRY(PM_MALLOC(e, PM_H5_ELEM_W * m->n_elems, "elements"));
  PM_TRY(PM_MALLOC(epart, m->n_elems, "element parts"));
  pm_h5io_type_map(map);
  for (int64_t k = 0; k < m->n_elems; k++) {
    int code = m->elem_type[k], t = pm_h5io_cell_of(map, code);
    const pm_cell_t *c = t >= 0 ? pm_cell_get((pm_cell_type_t)t) : NULL;
    int64_t a = m->elem_ptr[k], b = m->elem_ptr[k + 1], mn = INT64_MAX;
    PM_TRY_CHECK(c && c->dim == m->dim && b - a == c->n_verts, PM_ERR_INCONSISTENT,
                 "element %" PRId64 ": Gmsh type %d with %" PRId64 " nodes is not a cell of a %dD mesh", k, code, b - a,
                 m->dim);
    e[PM_H5_ELEM_W * k] = code;
    for (int v = 0; v < PM_CELL_MAX_VERTS; v++) e[PM_H5_ELEM_W * k + 1 + v] = a + v < b ? m->elem_node[a + v] : -1;
    for (int64_t j = a; j < b; j++)
      if (m->elem_node[j] < mn) mn = m->elem_node[j];
    epart[k] = part[mn]; /* the owner rule of the local meshes */
    ttot[t]++;
  }
  file = H5Fcreate(h5tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5_TRY(file, "creating %s (temporary name of %s)", h5tmp, h5path);
  o.file = file;
  H5_TRY(g = pm_h5io_group_create(file, "mesh"), "creating /mesh in %s", h5path);
  H5_TRY(gf = pm_h5io_group_create(file, "fields"), "creating /fields in %s", h5path);
  PM_TRY(pm_h5io_write_slab(&o, g, "/mesh", "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, m->n_nodes, 0,
                            m->n_nodes, m->xyz, NULL));
  PM_TRY(pm_h5io_write_slab(&o, g, "/mesh", "global_id", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, m->n_nodes, 0, m->n_nodes,
                            m->node_gid, "node"));
  x.conn_kind = pm_h5io_conn_narrow(m->n_nodes) ? PM_XDMF_INT32 : PM_XDMF_INT64;
  PM_TRY(write_connectivity(&o, g, e, m->n_elems, ttot, x.conn_kind == PM_XDMF_INT32, &conv));
  PM_TRY(pm_h5io_write_slab(&o, gf, "/fields", "part", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, m->n_nodes, 0, m->n_nodes,
                            part, "node"));
  PM_TRY(pm_h5io_write_slab(&o, gf, "/fields", "elem_part", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, m->n_elems, 0,
                            m->n_elems, epart, "cell"));
  H5_TRY(root = H5Gopen2(file, "/", H5P_DEFAULT), "opening / in %s", h5path);
  PM_TRY(pm_h5io_attr_str(root, "format", PM_H5_FORMAT, h5path));
  PM_TRY(pm_h5io_attr_i64(root, "format_version", PM_H5_FORMAT_VERSION, h5path));
  PM_TRY(pm_h5io_attr_str(root, "pmesh_version", PMESH_VERSION, h5path));
  PM_TRY(pm_h5io_attr_i64(root, "nparts", nparts, h5path));
  PM_TRY(pm_h5io_attr_i64(root, "dim", m->dim, h5path));
  PM_TRY(pm_h5io_attr_i64(root, "global_nodes", m->n_nodes, h5path));
  PM_TRY(pm_h5io_attr_i64(root, "global_elems", m->n_elems, h5path));
  PM_TRY(pm_h5io_type_attrs(root, m->dim, ttot, h5path));
  PM_TRY(pm_h5io_attr_u64(root, "mesh_fingerprint", pm_fingerprint_mesh(m), h5path));
  PM_TRY(pm_h5io_attr_u64(root, "partition_fingerprint", partition_fingerprint, h5path));
  pm_h5io_close(&root, H5Gclose);
  pm_h5io_close(&g, H5Gclose);
  pm_h5io_close(&gf, H5Gclose);
  H5_TRY(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing %s", h5tmp);
  herr_t rc = H5Fclose(file);
  file = -1;
  H5_TRY(rc, "closing %s", h5tmp);
  x.dim = m->dim;
  x.n_nodes = m->n_nodes;
  x.n_elems = m->n_elems;
  memcpy(x.ttot, ttot, sizeof ttot);
  PM_TRY(pm_xdmf_add_field(&x, -1, "/mesh/global_id", "global_id", 0, PM_XDMF_INT64));
  PM_TRY(pm_xdmf_add_field(&x, -1, "/fields/part", "part", 0, PM_XDMF_INT32));
  PM_TRY(pm_xdmf_add_field(&x, -1, "/fields/elem_part", "part", 1, PM_XDMF_INT32));
  if (xmfpath) PM_TRY(pm_xdmf_write(&x, h5path, xmfpath, xmftmp));
  PM_TRY_CHECK(rename(h5tmp, h5path) == 0, PM_ERR_IO, "%s: cannot move %s into place: %s", h5path, h5tmp,
               strerror(errno));
  if (xmfpath)
    PM_TRY_CHECK(rename(xmftmp, xmfpath) == 0, PM_ERR_IO, "%s: cannot move %s into place: %s", xmfpath, xmftmp,
                 strerror(errno));
  free(h5tmp);
  h5tmp = NULL;
  free(xmftmp);
  xmftmp = NULL;
cleanup:
  pm_h5io_close(&root, H5Gclose);
  pm_h5io_close(&g, H5Gclose);
  pm_h5io_close(&gf, H5Gclose);
  pm_h5io_close(&file, H5Fclose);
  if (h5tmp) remove(h5tmp);
  if (xmftmp) remove(xmftmp);
  free(h5tmp);
  free(xmftmp);
  free(e);
  free(epart);
  pm_scratch_free(&conv);
  pm_xdmf_clear(&x);
  pm_h5io_quiet_end(&q);
  return ierr;
}
