/* partition - split a Gmsh mesh into per-rank local meshes in the lecture's format.
 *
 *   partition MESH NPARTS [-o DIR] [--method metis|metis-rb|rcb|file:PATH] [--halo element|edge]
 *             [--order none|hilbert] [--seed N] [--ufactor N] [--summary FILE.json] [--view FILE.h5]
 *             [--quiet]
 *   partition --check DIR [DIR...]
 *
 * Reads the mesh, builds the node graph, partitions it, builds and writes one local mesh per
 * rank plus DIR/partition.meta, then reports sizes, edge cut, imbalance and per-stage time and
 * peak memory.  The directory is written under a temporary name and swapped in when complete
 * (pm_partdir.h). */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_tool.h"
#include "pmesh/pm_check.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_h5_view.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_order.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_partdir.h"
#include "pmesh/pm_quality.h"
#include "pmesh/pm_version.h"
#include "partition.h"

static const char *tool = "partition";

/* --order auto: hilbert from this many nodes up. */
enum { AUTO_HILBERT_NODES = 50000 };

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: partition MESH NPARTS [options]\n"
          "       partition --check DIR [DIR...]\n"
          "\n"
          "Split a Gmsh mesh (MSH 2.2 or 4.1, ASCII or binary; lines, triangles, quadrangles,\n"
          "tetrahedra, hexahedra, prisms and pyramids) into NPARTS local meshes in the lecture's\n"
          "format (#NEIBPEtot, #NEIBPE, #NODE, #IMPORT*, #EXPORT* + pmesh's sections).\n"
          "\n"
          "options:\n"
          "  -o DIR              output directory (default: %s, where solve looks)\n"
          "  --method M          metis (k-way, default) | metis-rb (recursive bisection) |\n"
          "                      rcb (recursive coordinate bisection, parts in coordinate order) |\n"
          "                      file:PATH (one 0-based part id per line, nodes in ascending tag order)\n"
          "  --halo H            element (nodes sharing an element: FEM, default) |\n"
          "                      edge (nodes joined by a cell edge: 5/7-point FDM)\n"
          "  --order O           none (keep the file's node and element numbering) |\n"
          "                      hilbert (renumber both along a Hilbert curve: neighbours get near\n"
          "                      ids, which speeds every solver on meshes in Gmsh's mesher order) |\n"
          "                      auto (default: hilbert from %d nodes up, where the renumbering\n"
          "                      pays for itself in the solve; none below it, for the lecture's\n"
          "                      small meshes, and with --method file:PATH)\n"
          "  --seed N            METIS random seed (default 0)\n"
          "  --ufactor N         METIS load imbalance in 1/1000 (default: METIS's, 30)\n"
          "  --summary FILE      also write the report as JSON\n"
          "  --view FILE.h5      also write the global mesh with the part id per node and per\n"
          "                      element as HDF5 + XDMF (FILE.xmf beside it; open it in ParaView)\n"
          "  --write-graph FILE  also write the node graph in METIS's format (for gpmetis)\n"
          "  --quiet             no report on stdout\n"
          "  --check DIR [DIR...] validate partition directories and exit\n"
          "  --help, --version\n",
          PM_DEFAULT_PART_DIR, AUTO_HILBERT_NODES);
}

static int run_check(const char *dir) {
  pm_check_stats_t st;
  int ierr = pm_check_partition(dir, &st);
  if (ierr) {
    pm_tool_report(tool, ierr);
    return EXIT_FAILURE;
  }
  printf("%s: ok: %d parts, %" PRId64 " nodes, %" PRId64 " elements, %" PRId64 " external nodes, %" PRId64
         " exported items; every node has one owner and every export list matches its import list\n",
         dir, st.nparts, st.global_nodes, st.global_elems, st.external_nodes, st.exchanged_items);
  partition_print_quality(&st.quality);
  return EXIT_SUCCESS;
}

static int is_value_option(const char *a) {
  static const char *const v[] = {"-o",        "--method", "--halo", "--order",       "--seed", "--ufactor",
                                  "--summary", "--check",  "--view", "--write-graph", NULL};
  for (int k = 0; v[k]; k++)
    if (!strcmp(a, v[k])) return 1;
  return 0;
}

/* One option with its value. */
static int set_value_option(args_t *o, const char *a, const char *v) {
  if (!strcmp(a, "-o"))
    o->outdir = v;
  else if (!strcmp(a, "--method"))
    o->method_s = v;
  else if (!strcmp(a, "--halo"))
    o->halo_s = v;
  else if (!strcmp(a, "--order"))
    o->order_s = v;
  else if (!strcmp(a, "--seed"))
    return pm_tool_int(tool, a, v, 0, INT32_MAX, &o->seed);
  else if (!strcmp(a, "--ufactor"))
    return pm_tool_int(tool, a, v, 1, 1000000, &o->ufactor);
  else if (!strcmp(a, "--summary"))
    o->summary = v;
  else if (!strcmp(a, "--view"))
    o->view = v;
  else if (!strcmp(a, "--write-graph"))
    o->graph_out = v;
  else
    o->check_dir = v;
  return 0;
}

/* The command line into o.  Returns 0, 1 after --help or --version, -1 after printing why. */
static int parse_args(int argc, char **argv, args_t *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return 1;
    } else if (!strcmp(a, "--version")) {
      printf("partition (pmesh) %s\n", PMESH_VERSION);
      return 1;
    } else if (!strcmp(a, "--quiet")) {
      o->quiet = 1;
    } else if (is_value_option(a)) {
      if (i + 1 >= argc) return pm_tool_error(tool, "option %s needs a value (see partition --help)", a);
      if (set_value_option(o, a, argv[++i])) return -1;
    } else if (a[0] == '-' && a[1] != '\0') {
      return pm_tool_error(tool, "unknown option '%s' (see partition --help)", a);
    } else if (o->check_dir && o->npos == 0) {
      o->nchecks++;
    } else if (o->npos == 0) {
      o->mesh_path = a;
      o->npos++;
    } else if (o->npos == 1) {
      if (pm_tool_int(tool, "NPARTS", a, 1, 1 << 20, &o->nparts)) return -1;
      o->npos++;
    } else {
      return pm_tool_error(tool, "unexpected argument '%s' (see partition --help)", a);
    }
  }
  return 0;
}

/* The options' names into the library's values; *order is PM_ORDER_NONE for auto (decided once the
 * mesh's size is known, auto set). */
static int resolve_options(const args_t *o, pm_part_options_t *opt, pm_adjacency_t *halo, pm_order_t *order,
                           int *order_auto) {
  size_t ml = strlen(o->mesh_path);
  if (ml > 4 && !strcmp(o->mesh_path + ml - 4, ".geo"))
    return pm_tool_error(tool,
                         "%s is a Gmsh geometry, not a mesh: mesh it first (gmsh -2 %s, or gmsh -3 for 3D), then "
                         "partition the .msh file",
                         o->mesh_path, o->mesh_path);
  opt->nparts = (int)o->nparts;
  opt->seed = o->seed;
  opt->ufactor = (int)o->ufactor;
  if (!strcmp(o->method_s, "metis"))
    opt->method = PM_PART_METIS_KWAY;
  else if (!strcmp(o->method_s, "metis-rb"))
    opt->method = PM_PART_METIS_RB;
  else if (!strcmp(o->method_s, "rcb"))
    opt->method = PM_PART_RCB;
  else if (!strncmp(o->method_s, "file:", 5) && o->method_s[5]) {
    opt->method = PM_PART_FILE;
    opt->file = o->method_s + 5;
  } else {
    return pm_tool_error(tool, "--method %s: expected metis, metis-rb, rcb or file:PATH", o->method_s);
  }
  if (!strcmp(o->halo_s, "element"))
    *halo = PM_ADJACENCY_ELEMENT;
  else if (!strcmp(o->halo_s, "edge"))
    *halo = PM_ADJACENCY_EDGE;
  else
    return pm_tool_error(tool, "--halo %s: expected element or edge", o->halo_s);
  *order_auto = !strcmp(o->order_s, "auto");
  *order = PM_ORDER_NONE;
  if (!*order_auto && pm_order_parse(o->order_s, order)) return pm_tool_error(tool, "--order: %s", pm_error_message());
  if (*order != PM_ORDER_NONE && opt->method == PM_PART_FILE)
    return pm_tool_error(tool,
                         "--order %s with --method file:PATH: the part file lists nodes in the mesh file's order; "
                         "partition with --order none",
                         o->order_s);
  int ierr = pm_partdir_check(o->outdir);
  if (ierr) {
    pm_error_prefix("-o: ");
    return pm_tool_report(tool, ierr);
  }
  return 0;
}

static void work_free(work_t *w) {
  pm_partdir_destroy(&w->pd); /* without a commit: removes the temporary directory */
  free(w->meta.group_name);
  free(w->meta.group_dim);
  free(w->rs);
  pm_local_destroy(&w->local);
  pm_part_plan_destroy(&w->plan);
  free(w->part);
  pm_graph_free(&w->graph);
  pm_mesh_destroy(&w->mesh);
}

static void stage_end(work_t *w, int s, double t) {
  w->st[s].seconds += pm_tool_wtime() - t;
  w->st[s].peak = pm_tool_peak_rss();
}

/* Read (and renumber): --order auto is decided by the mesh's size here. */
static int stage_read(work_t *w, pm_order_t order, int order_auto) {
  PM_CALL(pm_mesh_read(w->a->mesh_path, &w->mesh, &w->checksum));
  if (order_auto && w->mesh->n_nodes >= AUTO_HILBERT_NODES && w->opt.method != PM_PART_FILE) order = PM_ORDER_HILBERT;
  w->order_s = order == PM_ORDER_HILBERT ? "hilbert" : "none";
  PM_CALL(pm_mesh_reorder(w->mesh, order, NULL));
  stage_end(w, ST_READ, w->t0);
  w->big = w->mesh->n_nodes > 200000;
  const pm_mesh_t *m = w->mesh;
  if (m->n_dropped_nodes)
    fprintf(stderr,
            "partition: warning: %s: %" PRId64 " node(s) used by no %s (e.g. tag %" PRId64 ") were dropped; %" PRId64
            " lower-dimension element(s) on them were dropped too\n",
            w->a->mesh_path, m->n_dropped_nodes,
            m->dim == 3   ? "tetrahedron, hexahedron, prism or pyramid"
            : m->dim == 2 ? "triangle or quadrangle"
                          : "line",
            m->first_dropped_gid, m->n_dropped_entries);
  if (w->big)
    fprintf(stderr, "partition: read %" PRId64 " nodes in %.2f s; building the graph\n", m->n_nodes,
            w->st[ST_READ].seconds);
  return PM_OK;
}

/* --write-graph: METIS's graph file format (1-based); not timed, a benchmark aid. */
static int write_graph(const work_t *w) {
  const pm_graph_t *g = &w->graph;
  pm_tool_out_t o;
  if (pm_tool_open(tool, &o, w->a->graph_out)) return -1;
  fprintf(o.fp, "%" PRId64 " %" PRId64 "\n", g->n, g->xadj[g->n] / 2);
  for (int64_t i = 0; i < g->n; i++) {
    for (int64_t k = g->xadj[i]; k < g->xadj[i + 1]; k++) fprintf(o.fp, k > g->xadj[i] ? " %d" : "%d", g->adj[k] + 1);
    fputc('\n', o.fp);
  }
  return pm_tool_close(tool, &o, 1);
}

static int stage_graph_partition(work_t *w) {
  double t = pm_tool_wtime();
  PM_CALL(pm_graph_build(w->mesh, w->halo, &w->graph));
  stage_end(w, ST_GRAPH, t);
  if (w->big) fprintf(stderr, "partition: graph built in %.2f s; partitioning\n", w->st[ST_GRAPH].seconds);
  if (w->a->graph_out && write_graph(w)) return PM_ERR_IO;
  t = pm_tool_wtime();
  PM_CALL(PM_MALLOC(w->part, w->mesh->n_nodes, "partition"));
  PM_CALL(pm_part_compute(w->mesh, &w->graph, &w->opt, w->part, &w->edgecut));
  stage_end(w, ST_PART, t);
  if (w->big)
    fprintf(stderr, "partition: partitioned in %.2f s; writing %d local meshes\n", w->st[ST_PART].seconds,
            w->opt.nparts);
  /* Fingerprint: the source, the options and the assignment itself. */
  w->fp = pm_part_fingerprint(w->mesh, w->part, w->opt.nparts, w->checksum, w->a->method_s, w->a->halo_s, w->order_s);
  return PM_OK;
}

/* Build each rank's local mesh and hand it to the writer. */
static int stage_build_write(work_t *w) {
  PM_CALL(pm_partdir_create(w->a->outdir, &w->pd));
  double t = pm_tool_wtime();
  PM_CALL(pm_part_plan_create(w->mesh, &w->graph, w->halo, w->part, w->opt.nparts, &w->plan));
  w->st[ST_BUILD].seconds += pm_tool_wtime() - t;
  PM_CALL(PM_CALLOC(w->rs, w->opt.nparts, "report"));
  for (int r = 0; r < w->opt.nparts; r++) {
    t = pm_tool_wtime();
    PM_CALL(pm_part_local(w->plan, r, w->fp, &w->local));
    stage_end(w, ST_BUILD, t);
    const pm_local_t *l = w->local;
    w->rs[r] = (rank_stat_t){l->n_internal,
                             l->n_total - l->n_internal,
                             l->n_aux,
                             l->n_elems,
                             l->n_neib,
                             l->import_index[l->n_neib],
                             l->export_index[l->n_neib]};
    t = pm_tool_wtime(); /* the write stage: time spent waiting for the writer thread */
    PM_CALL(pm_partdir_write_local(w->pd, r, &w->local));
    w->st[ST_WRITE].seconds += pm_tool_wtime() - t;
    if (w->big && (r + 1) % 4 == 0) fprintf(stderr, "partition: built %d of %d local meshes\n", r + 1, w->opt.nparts);
  }
  return PM_OK;
}

/* partition.meta, the --view file, then the directory swapped into place. */
static int stage_meta_commit(work_t *w) {
  double t = pm_tool_wtime();
  const pm_mesh_t *mesh = w->mesh;
  pm_meta_t *meta = &w->meta;
  meta->version = PM_META_VERSION;
  meta->nparts = w->opt.nparts;
  meta->dim = mesh->dim;
  meta->global_nodes = mesh->n_nodes;
  meta->global_elems = mesh->n_elems;
  meta->source = (char *)(uintptr_t)w->a->mesh_path;
  meta->source_checksum = w->checksum;
  meta->method = (char *)(uintptr_t)(w->opt.method == PM_PART_FILE ? "file" : w->a->method_s);
  meta->halo = (char *)(uintptr_t)w->a->halo_s;
  meta->seed = w->a->seed;
  meta->ufactor = w->a->ufactor;
  meta->fingerprint = w->fp;
  meta->has_mesh_fingerprint = 1; /* stored once here, so solve's result writes need not hash the mesh */
  meta->mesh_fingerprint = pm_fingerprint_mesh(mesh);
  meta->n_groups = mesh->n_groups;
  PM_CALL(PM_MALLOC(meta->group_name, mesh->n_groups, "group names"));
  PM_CALL(PM_MALLOC(meta->group_dim, mesh->n_groups, "group dims"));
  for (int g = 0; g < mesh->n_groups; g++) {
    meta->group_name[g] = mesh->groups[g].name;
    meta->group_dim[g] = mesh->groups[g].dim;
  }
  PM_CALL(pm_partdir_write_meta(w->pd, meta));
  const char *view = w->a->view;
  if (view) { /* serial HDF5: no MPI needed (checked: the parallel library's default driver works without MPI_Init) */
    char xmf[4400];
    size_t vl = strlen(view);
    if (vl > 3 && strcmp(view + vl - 3, ".h5") == 0)
      snprintf(xmf, sizeof xmf, "%.*s.xmf", (int)(vl - 3), view);
    else
      snprintf(xmf, sizeof xmf, "%s.xmf", view);
    PM_CALL(pm_h5_write_partition(mesh, w->part, w->opt.nparts, w->fp, view, xmf));
  }
  PM_CALL(pm_partdir_commit(w->pd));
  if (pm_partdir_leftover(w->pd))
    fprintf(stderr, "partition: warning: could not remove %s\n", pm_partdir_leftover(w->pd));
  stage_end(w, ST_WRITE, t);
  w->total = pm_tool_wtime() - w->t0;
  return PM_OK;
}

int main(int argc, char **argv) {
  args_t a = {NULL, PM_DEFAULT_PART_DIR, "metis", "element", "auto", NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0};
  int rc = parse_args(argc, argv, &a);
  if (rc) return rc > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  if (a.check_dir) {
    if (a.npos) return pm_tool_error(tool, "--check DIR takes no mesh or part count"), EXIT_FAILURE;
    rc = run_check(a.check_dir);
    /* More directories: the arguments that are neither options nor their values (one process for
     * many checks: the tests validate hundreds of partitions). */
    for (int i = 1; i < argc && a.nchecks; i++) {
      if (is_value_option(argv[i]))
        i++;
      else if (argv[i][0] != '-' || argv[i][1] == '\0')
        rc = run_check(argv[i]) != EXIT_SUCCESS ? EXIT_FAILURE : rc;
    }
    return rc;
  }
  if (a.npos != 2) return pm_tool_error(tool, "expected MESH and NPARTS (see partition --help)"), EXIT_FAILURE;
  work_t w;
  memset(&w, 0, sizeof w);
  w.a = &a;
  pm_order_t order = PM_ORDER_NONE;
  int order_auto = 0;
  if (resolve_options(&a, &w.opt, &w.halo, &order, &order_auto)) return EXIT_FAILURE;
  const char *names[ST_N] = {"read", "graph", "partition", "local build", "write"};
  for (int s = 0; s < ST_N; s++) w.st[s].name = names[s];
  w.t0 = pm_tool_wtime();
  int ierr = stage_read(&w, order, order_auto);
  if (!ierr) ierr = stage_graph_partition(&w);
  if (!ierr) ierr = stage_build_write(&w);
  if (!ierr) ierr = stage_meta_commit(&w);
  if (ierr && ierr != PM_ERR_IO)
    pm_tool_report(tool, ierr);
  else if (ierr && pm_error_message()[0])
    pm_tool_report(tool, ierr);
  int status = !ierr && !partition_report(&w) ? EXIT_SUCCESS : EXIT_FAILURE;
  work_free(&w);
  return status;
}
