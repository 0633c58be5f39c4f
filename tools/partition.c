/* partition - split a Gmsh mesh into per-rank local meshes in the lecture's format.
 *
 *   partition MESH NPARTS [-o DIR] [--method metis|metis-rb|rcb|file:PATH] [--halo element|edge]
 *             [--order none|hilbert] [--seed N] [--ufactor N] [--summary FILE.json] [--view FILE.h5]
 *             [--quiet]
 *   partition --check DIR
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
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_order.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_partdir.h"
#include "pmesh/pm_version.h"

static const char *tool = "partition";

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: partition MESH NPARTS [options]\n"
          "       partition --check DIR\n"
          "\n"
          "Split a Gmsh mesh (MSH 2.2 or 4.1, ASCII or binary) into NPARTS local meshes in the\n"
          "lecture's format (#NEIBPEtot, #NEIBPE, #NODE, #IMPORT*, #EXPORT* + pmesh's sections).\n"
          "\n"
          "options:\n"
          "  -o DIR              output directory (default: %s, where solve looks)\n"
          "  --method M          metis (k-way, default) | metis-rb (recursive bisection) |\n"
          "                      rcb (recursive coordinate bisection, parts in coordinate order) |\n"
          "                      file:PATH (one 0-based part id per line, nodes in ascending tag order)\n"
          "  --halo H            element (nodes sharing an element: FEM, default) |\n"
          "                      edge (nodes joined by an element edge: 5-point FDM)\n"
          "  --order O           none (keep the file's node and element numbering, default) |\n"
          "                      hilbert (renumber both along a Hilbert curve: neighbours get near\n"
          "                      ids, which speeds every solver on meshes in Gmsh's 2D mesher order)\n"
          "  --seed N            METIS random seed (default 0)\n"
          "  --ufactor N         METIS load imbalance in 1/1000 (default: METIS's, 30)\n"
          "  --summary FILE      also write the report as JSON\n"
          "  --view FILE.h5      also write the global mesh with the part id per node and per\n"
          "                      element as HDF5 + XDMF (FILE.xmf beside it; open it in ParaView)\n"
          "  --write-graph FILE  also write the node graph in METIS's format (for gpmetis)\n"
          "  --quiet             no report on stdout\n"
          "  --check DIR         validate a partition directory and exit\n"
          "  --help, --version\n",
          PM_DEFAULT_PART_DIR);
}

typedef struct stage {
  const char *name;
  double seconds;
  int64_t peak;
} stage_t;

enum { ST_READ, ST_GRAPH, ST_PART, ST_BUILD, ST_WRITE, ST_N };

typedef struct rank_stat {
  int64_t internal, external, aux, elems, neib, import, export_;
} rank_stat_t;

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
  return EXIT_SUCCESS;
}

int main(int argc, char **argv) {
  const char *mesh_path = NULL, *outdir = PM_DEFAULT_PART_DIR, *method_s = "metis", *halo_s = "element";
  const char *order_s = "none";
  const char *summary = NULL, *check_dir = NULL, *view = NULL, *graph_out = NULL;
  int64_t nparts = 0, seed = 0, ufactor = 0;
  int quiet = 0, npos = 0;
  pm_part_options_t opt = {0};
  pm_adjacency_t halo = PM_ADJACENCY_ELEMENT;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has_val = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return EXIT_SUCCESS;
    } else if (strcmp(a, "--version") == 0) {
      printf("partition (pmesh) %s\n", PMESH_VERSION);
      return EXIT_SUCCESS;
    } else if (strcmp(a, "--quiet") == 0) {
      quiet = 1;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--method") == 0 || strcmp(a, "--halo") == 0 ||
               strcmp(a, "--order") == 0 || strcmp(a, "--seed") == 0 || strcmp(a, "--ufactor") == 0 ||
               strcmp(a, "--summary") == 0 || strcmp(a, "--check") == 0 || strcmp(a, "--view") == 0 ||
               strcmp(a, "--write-graph") == 0) {
      if (!has_val) {
        pm_tool_error(tool, "option %s needs a value (see partition --help)", a);
        return EXIT_FAILURE;
      }
      const char *v = argv[++i];
      if (strcmp(a, "-o") == 0) {
        outdir = v;
      } else if (strcmp(a, "--method") == 0) {
        method_s = v;
      } else if (strcmp(a, "--halo") == 0) {
        halo_s = v;
      } else if (strcmp(a, "--order") == 0) {
        order_s = v;
      } else if (strcmp(a, "--seed") == 0) {
        if (pm_tool_int(tool, a, v, 0, INT32_MAX, &seed)) return EXIT_FAILURE;
      } else if (strcmp(a, "--ufactor") == 0) {
        if (pm_tool_int(tool, a, v, 1, 1000000, &ufactor)) return EXIT_FAILURE;
      } else if (strcmp(a, "--summary") == 0) {
        summary = v;
      } else if (strcmp(a, "--view") == 0) {
        view = v;
      } else if (strcmp(a, "--write-graph") == 0) {
        graph_out = v;
      } else {
        check_dir = v;
      }
    } else if (a[0] == '-' && a[1] != '\0') {
      pm_tool_error(tool, "unknown option '%s' (see partition --help)", a);
      return EXIT_FAILURE;
    } else if (npos == 0) {
      mesh_path = a;
      npos++;
    } else if (npos == 1) {
      if (pm_tool_int(tool, "NPARTS", a, 1, 1 << 20, &nparts)) return EXIT_FAILURE;
      npos++;
    } else {
      pm_tool_error(tool, "unexpected argument '%s' (see partition --help)", a);
      return EXIT_FAILURE;
    }
  }
  if (check_dir) {
    if (npos) {
      pm_tool_error(tool, "--check DIR takes no mesh or part count");
      return EXIT_FAILURE;
    }
    return run_check(check_dir);
  }
  if (npos != 2) {
    pm_tool_error(tool, "expected MESH and NPARTS (see partition --help)");
    return EXIT_FAILURE;
  }
  opt.nparts = (int)nparts;
  opt.seed = seed;
  opt.ufactor = (int)ufactor;
  if (strcmp(method_s, "metis") == 0) {
    opt.method = PM_PART_METIS_KWAY;
  } else if (strcmp(method_s, "metis-rb") == 0) {
    opt.method = PM_PART_METIS_RB;
  } else if (strcmp(method_s, "rcb") == 0) {
    opt.method = PM_PART_RCB;
  } else if (strncmp(method_s, "file:", 5) == 0 && method_s[5]) {
    opt.method = PM_PART_FILE;
    opt.file = method_s + 5;
  } else {
    pm_tool_error(tool, "--method %s: expected metis, metis-rb, rcb or file:PATH", method_s);
    return EXIT_FAILURE;
  }
  if (strcmp(halo_s, "element") == 0) {
    halo = PM_ADJACENCY_ELEMENT;
  } else if (strcmp(halo_s, "edge") == 0) {
    halo = PM_ADJACENCY_EDGE;
  } else {
    pm_tool_error(tool, "--halo %s: expected element or edge", halo_s);
    return EXIT_FAILURE;
  }
  pm_order_t order;
  if (pm_order_parse(order_s, &order)) {
    pm_tool_error(tool, "--order: %s", pm_error_message());
    return EXIT_FAILURE;
  }
  if (order != PM_ORDER_NONE && opt.method == PM_PART_FILE) {
    pm_tool_error(tool,
                  "--order %s with --method file:PATH: the part file lists nodes in the mesh file's order; "
                  "partition with --order none",
                  order_s);
    return EXIT_FAILURE;
  }
  int ierr = pm_partdir_check(outdir);
  if (ierr) {
    pm_error_prefix("-o: ");
    pm_tool_report(tool, ierr);
    return EXIT_FAILURE;
  }

  stage_t st[ST_N] = {{"read", 0, 0}, {"graph", 0, 0}, {"partition", 0, 0}, {"local build", 0, 0}, {"write", 0, 0}};
  pm_mesh_t *mesh = NULL;
  pm_graph_t graph = {0};
  int32_t *part = NULL;
  pm_part_plan_t *plan = NULL;
  pm_local_t *local = NULL;
  pm_partdir_t *pd = NULL;
  rank_stat_t *rs = NULL;
  pm_meta_t meta = {0};
  uint64_t checksum = 0;
  int64_t edgecut = 0;
  int status = EXIT_FAILURE;
  double t0 = pm_tool_wtime(), t;

  PM_TRY(pm_mesh_read(mesh_path, &mesh, &checksum));
  PM_TRY(pm_mesh_reorder(mesh, order, NULL));
  st[ST_READ].seconds = pm_tool_wtime() - t0;
  st[ST_READ].peak = pm_tool_peak_rss();
  int big = mesh->n_nodes > 200000;
  if (mesh->n_dropped_nodes)
    fprintf(stderr,
            "partition: warning: %s: %" PRId64 " node(s) used by no %s (e.g. tag %" PRId64 ") were dropped; %" PRId64
            " lower-dimension element(s) on them were dropped too\n",
            mesh_path, mesh->n_dropped_nodes, mesh->dim == 2 ? "triangle or quadrangle" : "line",
            mesh->first_dropped_gid, mesh->n_dropped_entries);
  if (big)
    fprintf(stderr, "partition: read %" PRId64 " nodes in %.2f s; building the graph\n", mesh->n_nodes, st[0].seconds);

  t = pm_tool_wtime();
  PM_TRY(pm_graph_build(mesh, halo, &graph));
  st[ST_GRAPH].seconds = pm_tool_wtime() - t;
  st[ST_GRAPH].peak = pm_tool_peak_rss();
  if (big) fprintf(stderr, "partition: graph built in %.2f s; partitioning\n", st[ST_GRAPH].seconds);
  if (graph_out) { /* not timed: a benchmark aid, METIS's graph file format (1-based) */
    pm_tool_out_t o;
    if (pm_tool_open(tool, &o, graph_out)) goto cleanup;
    fprintf(o.fp, "%" PRId64 " %" PRId64 "\n", graph.n, graph.xadj[graph.n] / 2);
    for (int64_t i = 0; i < graph.n; i++) {
      for (int64_t k = graph.xadj[i]; k < graph.xadj[i + 1]; k++)
        fprintf(o.fp, k > graph.xadj[i] ? " %d" : "%d", graph.adj[k] + 1);
      fputc('\n', o.fp);
    }
    if (pm_tool_close(tool, &o, 1)) goto cleanup;
  }

  t = pm_tool_wtime();
  PM_TRY(PM_MALLOC(part, mesh->n_nodes, "partition"));
  PM_TRY(pm_part_compute(mesh, &graph, &opt, part, &edgecut));
  st[ST_PART].seconds = pm_tool_wtime() - t;
  st[ST_PART].peak = pm_tool_peak_rss();
  if (big)
    fprintf(stderr, "partition: partitioned in %.2f s; writing %d local meshes\n", st[ST_PART].seconds, opt.nparts);

  /* Fingerprint: the source, the options and the assignment itself. */
  uint64_t fp = pm_part_fingerprint(mesh, part, opt.nparts, checksum, method_s, halo_s, order_s);

  PM_TRY(pm_partdir_create(outdir, &pd));

  t = pm_tool_wtime();
  PM_TRY(pm_part_plan_create(mesh, &graph, halo, part, opt.nparts, &plan));
  st[ST_BUILD].seconds += pm_tool_wtime() - t;
  PM_TRY(PM_CALLOC(rs, opt.nparts, "report"));
  for (int r = 0; r < opt.nparts; r++) {
    t = pm_tool_wtime();
    PM_TRY(pm_part_local(plan, r, fp, &local));
    st[ST_BUILD].seconds += pm_tool_wtime() - t;
    st[ST_BUILD].peak = pm_tool_peak_rss();
    rs[r].internal = local->n_internal;
    rs[r].external = local->n_total - local->n_internal;
    rs[r].aux = local->n_aux;
    rs[r].elems = local->n_elems;
    rs[r].neib = local->n_neib;
    rs[r].import = local->import_index[local->n_neib];
    rs[r].export_ = local->export_index[local->n_neib];
    t = pm_tool_wtime(); /* the write stage: time spent waiting for the writer thread */
    PM_TRY(pm_partdir_write_local(pd, r, &local));
    st[ST_WRITE].seconds += pm_tool_wtime() - t;
    if (big && (r + 1) % 4 == 0) fprintf(stderr, "partition: built %d of %d local meshes\n", r + 1, opt.nparts);
  }
  t = pm_tool_wtime();
  meta.version = PM_META_VERSION;
  meta.nparts = opt.nparts;
  meta.dim = mesh->dim;
  meta.global_nodes = mesh->n_nodes;
  meta.global_elems = mesh->n_elems;
  meta.source = (char *)(uintptr_t)mesh_path;
  meta.source_checksum = checksum;
  meta.method = (char *)(uintptr_t)(opt.method == PM_PART_FILE ? "file" : method_s);
  meta.halo = (char *)(uintptr_t)halo_s;
  meta.seed = seed;
  meta.ufactor = ufactor;
  meta.fingerprint = fp;
  meta.has_mesh_fingerprint = 1; /* stored once here, so solve's result writes need not hash the mesh */
  meta.mesh_fingerprint = pm_fingerprint_mesh(mesh);
  meta.n_groups = mesh->n_groups;
  PM_TRY(PM_MALLOC(meta.group_name, mesh->n_groups, "group names"));
  PM_TRY(PM_MALLOC(meta.group_dim, mesh->n_groups, "group dims"));
  for (int g = 0; g < mesh->n_groups; g++) {
    meta.group_name[g] = mesh->groups[g].name;
    meta.group_dim[g] = mesh->groups[g].dim;
  }
  PM_TRY(pm_partdir_write_meta(pd, &meta));
  if (view) { /* serial HDF5: no MPI needed (checked: the parallel library's default driver works without MPI_Init) */
    char xmf[4400];
    size_t vl = strlen(view);
    if (vl > 3 && strcmp(view + vl - 3, ".h5") == 0)
      snprintf(xmf, sizeof xmf, "%.*s.xmf", (int)(vl - 3), view);
    else
      snprintf(xmf, sizeof xmf, "%s.xmf", view);
    PM_TRY(pm_h5_write_partition(mesh, part, opt.nparts, fp, view, xmf));
  }
  PM_TRY(pm_partdir_commit(pd));
  if (pm_partdir_leftover(pd)) fprintf(stderr, "partition: warning: could not remove %s\n", pm_partdir_leftover(pd));
  st[ST_WRITE].seconds += pm_tool_wtime() - t;
  st[ST_WRITE].peak = pm_tool_peak_rss();
  double total = pm_tool_wtime() - t0;

  /* Report. */
  int64_t mn = INT64_MAX, mx = 0, sum = 0;
  for (int r = 0; r < opt.nparts; r++) {
    if (rs[r].internal < mn) mn = rs[r].internal;
    if (rs[r].internal > mx) mx = rs[r].internal;
    sum += rs[r].internal;
  }
  double avg = (double)sum / opt.nparts, imbalance = (double)mx / avg;
  if (!quiet) {
    printf("partition: %s -> %s/ (%d parts, method %s, halo %s)\n", mesh_path, outdir, opt.nparts, method_s, halo_s);
    printf("mesh: %dD, %" PRId64 " nodes, %" PRId64 " elements, %d groups", mesh->dim, mesh->n_nodes, mesh->n_elems,
           mesh->n_groups);
    if (mesh->n_dropped_nodes) printf(", %" PRId64 " orphan nodes dropped", mesh->n_dropped_nodes);
    printf("\n%6s %10s %10s %8s %10s %6s %10s %10s\n", "rank", "internal", "external", "aux", "elements", "neib",
           "import", "export");
    for (int r = 0; r < opt.nparts; r++)
      printf("%6d %10" PRId64 " %10" PRId64 " %8" PRId64 " %10" PRId64 " %6" PRId64 " %10" PRId64 " %10" PRId64 "\n", r,
             rs[r].internal, rs[r].external, rs[r].aux, rs[r].elems, rs[r].neib, rs[r].import, rs[r].export_);
    printf("internal nodes per rank: min %" PRId64 " avg %.1f max %" PRId64 ", imbalance %.3f; edge cut %" PRId64 "\n",
           mn, avg, mx, imbalance, edgecut);
    for (int s = 0; s < ST_N; s++)
      printf("stage %-12s %8.3f s   peak memory %8.1f MB\n", st[s].name, st[s].seconds, st[s].peak / 1048576.0);
    printf("total %.3f s, peak memory %.1f MB (%.0f bytes per node)\n", total, pm_tool_peak_rss() / 1048576.0,
           (double)pm_tool_peak_rss() / (double)mesh->n_nodes);
  }
  if (summary) {
    pm_tool_out_t o;
    if (pm_tool_open(tool, &o, summary)) goto cleanup;
    FILE *fp_ = o.fp;
    fprintf(fp_, "{\n  \"tool\": \"partition\",\n  \"version\": \"%s\",\n  \"mesh\": ", PMESH_VERSION);
    pm_tool_json_string(fp_, mesh_path);
    fprintf(fp_, ",\n  \"output\": ");
    pm_tool_json_string(fp_, outdir);
    fprintf(fp_,
            ",\n  \"nparts\": %d,\n  \"method\": \"%s\",\n  \"halo\": \"%s\",\n  \"seed\": %" PRId64
            ",\n  \"ufactor\": %" PRId64 ",\n  \"dim\": %d,\n  \"nodes\": %" PRId64 ",\n  \"elements\": %" PRId64
            ",\n  \"dropped_nodes\": %" PRId64 ",\n  \"edge_cut\": %" PRId64 ",\n  \"internal_min\": %" PRId64
            ",\n  \"internal_avg\": %.3f,\n  \"internal_max\": %" PRId64 ",\n  \"imbalance\": %.6f,\n  \"ranks\": [\n",
            opt.nparts, opt.method == PM_PART_FILE ? "file" : method_s, halo_s, seed, ufactor, mesh->dim, mesh->n_nodes,
            mesh->n_elems, mesh->n_dropped_nodes, edgecut, mn, avg, mx, imbalance);
    for (int r = 0; r < opt.nparts; r++)
      fprintf(fp_,
              "    {\"rank\": %d, \"internal\": %" PRId64 ", \"external\": %" PRId64 ", \"aux\": %" PRId64
              ", \"elements\": %" PRId64 ", \"neighbours\": %" PRId64 ", \"import\": %" PRId64 ", \"export\": %" PRId64
              "}%s\n",
              r, rs[r].internal, rs[r].external, rs[r].aux, rs[r].elems, rs[r].neib, rs[r].import, rs[r].export_,
              r + 1 < opt.nparts ? "," : "");
    fprintf(fp_, "  ],\n  \"stages\": [\n");
    for (int s = 0; s < ST_N; s++)
      fprintf(fp_, "    {\"name\": \"%s\", \"seconds\": %.6f, \"peak_rss_bytes\": %" PRId64 "}%s\n", st[s].name,
              st[s].seconds, st[s].peak, s + 1 < ST_N ? "," : "");
    fprintf(fp_, "  ],\n  \"total_seconds\": %.6f,\n  \"peak_rss_bytes\": %" PRId64 "\n}\n", total, pm_tool_peak_rss());
    if (pm_tool_close(tool, &o, 1)) goto cleanup;
  }
  status = EXIT_SUCCESS;
cleanup:
  if (ierr) pm_tool_report(tool, ierr);
  pm_partdir_destroy(&pd); /* without a commit: removes the temporary directory */
  free(meta.group_name);
  free(meta.group_dim);
  free(rs);
  pm_local_destroy(&local);
  pm_part_plan_destroy(&plan);
  free(part);
  pm_graph_free(&graph);
  pm_mesh_destroy(&mesh);
  return status;
}
