/* partition_report.c - partition's report: sizes per rank, groups, shape measures, edge cut,
 * imbalance and per-stage time and peak memory, on stdout and as the --summary JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "partition.h"
#include "pm_tool.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_version.h"

static const char *tool = "partition";

/* The shape measures per cell type (pmesh/pm_quality.h), one line each, on stdout. */
void partition_print_quality(const pm_quality_t *q) {
  for (int t = 0; t < PM_CELL_NTYPES; t++) {
    if (!q->count[t]) continue;
    printf("shape %-12s %10" PRId64 " cells, %s: worst %.4g mean %.4g", pm_cell_get((pm_cell_type_t)t)->name,
           q->count[t], pm_quality_name((pm_cell_type_t)t), q->worst[t], pm_quality_mean(q, (pm_cell_type_t)t));
    if (q->degenerate[t]) printf(" (%" PRId64 " flat or tangled)", q->degenerate[t]);
    printf("\n");
  }
}

/* A JSON number, null for an infinite one (JSON has no infinity). */
static void json_number(FILE *fp, double v) {
  if (isfinite(v))
    fprintf(fp, "%.9g", v);
  else
    fprintf(fp, "null");
}

/* The shape measures per cell type as a JSON array member "quality". */
static void write_quality(FILE *fp, const pm_quality_t *q) {
  fprintf(fp, "  \"quality\": [");
  const char *sep = "\n";
  for (int t = 0; t < PM_CELL_NTYPES; t++) {
    if (!q->count[t]) continue;
    fprintf(fp,
            "%s    {\"cell\": \"%s\", \"measure\": \"%s\", \"cells\": %" PRId64 ", \"degenerate\": %" PRId64
            ", \"worst\": ",
            sep, pm_cell_get((pm_cell_type_t)t)->name, pm_quality_name((pm_cell_type_t)t), q->count[t],
            q->degenerate[t]);
    json_number(fp, q->worst[t]);
    fprintf(fp, ", \"mean\": ");
    json_number(fp, pm_quality_mean(q, (pm_cell_type_t)t));
    fprintf(fp, "}");
    sep = ",\n";
  }
  fprintf(fp, "%s],\n", sep[0] == ',' ? "\n  " : "");
}

/* What group g holds: elements (a group of the mesh's dimension) or boundary faces. */
static int64_t group_count(const pm_mesh_t *m, int g) {
  return m->groups[g].dim == m->dim ? m->groups[g].n_elems : m->groups[g].n_faces;
}

static const char *group_items(const pm_mesh_t *m, int g) {
  return m->groups[g].dim == m->dim ? "elements" : "faces";
}

static void print_report(const work_t *w, int64_t mn, double avg, int64_t mx, double imbalance) {
  const pm_mesh_t *mesh = w->mesh;
  const args_t *a = w->a;
  const rank_stat_t *rs = w->rs;
  printf("partition: %s -> %s/ (%d parts, method %s, halo %s, order %s%s)\n", a->mesh_path, a->outdir, w->opt.nparts,
         a->method_s, a->halo_s, w->order_s, strcmp(a->order_s, "auto") ? "" : " (auto)");
  printf("mesh: %dD, %" PRId64 " nodes, %" PRId64 " elements, %d groups", mesh->dim, mesh->n_nodes, mesh->n_elems,
         mesh->n_groups);
  if (mesh->n_dropped_nodes) printf(", %" PRId64 " orphan nodes dropped", mesh->n_dropped_nodes);
  printf("\n");
  if (mesh->n_ignored_lines || mesh->n_ignored_points)
    printf("ignored: %" PRId64 " lines, %" PRId64 " points (in 3D, boundary conditions go on physical surfaces)\n",
           mesh->n_ignored_lines, mesh->n_ignored_points);
  for (int g = 0; g < mesh->n_groups; g++)
    printf("  group %-16s %dD, %" PRId64 " %s, %" PRId64 " nodes\n", mesh->groups[g].name, mesh->groups[g].dim,
           group_count(mesh, g), group_items(mesh, g), mesh->groups[g].n_nodes);
  partition_print_quality(&w->quality);
  printf("%6s %10s %10s %8s %10s %6s %10s %10s\n", "rank", "internal", "external", "aux", "elements", "neib", "import",
         "export");
  for (int r = 0; r < w->opt.nparts; r++)
    printf("%6d %10" PRId64 " %10" PRId64 " %8" PRId64 " %10" PRId64 " %6" PRId64 " %10" PRId64 " %10" PRId64 "\n", r,
           rs[r].internal, rs[r].external, rs[r].aux, rs[r].elems, rs[r].neib, rs[r].import, rs[r].export_);
  printf("internal nodes per rank: min %" PRId64 " avg %.1f max %" PRId64 ", imbalance %.3f; edge cut %" PRId64 "\n",
         mn, avg, mx, imbalance, w->edgecut);
  for (int s = 0; s < ST_N; s++)
    printf("stage %-12s %8.3f s   peak memory %8.1f MB\n", w->st[s].name, w->st[s].seconds, w->st[s].peak / 1048576.0);
  printf("total %.3f s, peak memory %.1f MB (%.0f bytes per node)\n", w->total, pm_tool_peak_rss() / 1048576.0,
         (double)pm_tool_peak_rss() / (double)mesh->n_nodes);
}

static int write_summary(const work_t *w, int64_t mn, double avg, int64_t mx, double imbalance) {
  const pm_mesh_t *mesh = w->mesh;
  const args_t *a = w->a;
  const rank_stat_t *rs = w->rs;
  int nparts = w->opt.nparts;
  pm_tool_out_t o;
  if (pm_tool_open(tool, &o, a->summary)) return -1;
  FILE *fp_ = o.fp;
  fprintf(fp_, "{\n  \"tool\": \"partition\",\n  \"version\": \"%s\",\n  \"mesh\": ", PMESH_VERSION);
  pm_tool_json_string(fp_, a->mesh_path);
  fprintf(fp_, ",\n  \"output\": ");
  pm_tool_json_string(fp_, a->outdir);
  fprintf(fp_,
          ",\n  \"nparts\": %d,\n  \"method\": \"%s\",\n  \"halo\": \"%s\",\n  \"order\": \"%s\",\n  \"seed\": %" PRId64
          ",\n  \"ufactor\": %" PRId64 ",\n  \"dim\": %d,\n  \"nodes\": %" PRId64 ",\n  \"elements\": %" PRId64
          ",\n  \"dropped_nodes\": %" PRId64 ",\n  \"ignored_lines\": %" PRId64 ",\n  \"ignored_points\": %" PRId64
          ",\n  \"edge_cut\": %" PRId64 ",\n  \"internal_min\": %" PRId64
          ",\n  \"internal_avg\": %.3f,\n  \"internal_max\": %" PRId64 ",\n  \"imbalance\": %.6f,\n  \"groups\": [\n",
          nparts, w->opt.method == PM_PART_FILE ? "file" : a->method_s, a->halo_s, w->order_s, a->seed, a->ufactor,
          mesh->dim, mesh->n_nodes, mesh->n_elems, mesh->n_dropped_nodes, mesh->n_ignored_lines, mesh->n_ignored_points,
          w->edgecut, mn, avg, mx, imbalance);
  for (int g = 0; g < mesh->n_groups; g++) {
    fprintf(fp_, "    {\"name\": ");
    pm_tool_json_string(fp_, mesh->groups[g].name);
    fprintf(fp_, ", \"dim\": %d, \"%s\": %" PRId64 ", \"nodes\": %" PRId64 "}%s\n", mesh->groups[g].dim,
            group_items(mesh, g), group_count(mesh, g), mesh->groups[g].n_nodes, g + 1 < mesh->n_groups ? "," : "");
  }
  fprintf(fp_, "  ],\n");
  write_quality(fp_, &w->quality);
  fprintf(fp_, "  \"ranks\": [\n");
  for (int r = 0; r < nparts; r++)
    fprintf(fp_,
            "    {\"rank\": %d, \"internal\": %" PRId64 ", \"external\": %" PRId64 ", \"aux\": %" PRId64
            ", \"elements\": %" PRId64 ", \"neighbours\": %" PRId64 ", \"import\": %" PRId64 ", \"export\": %" PRId64
            "}%s\n",
            r, rs[r].internal, rs[r].external, rs[r].aux, rs[r].elems, rs[r].neib, rs[r].import, rs[r].export_,
            r + 1 < nparts ? "," : "");
  fprintf(fp_, "  ],\n  \"stages\": [\n");
  for (int s = 0; s < ST_N; s++)
    fprintf(fp_, "    {\"name\": \"%s\", \"seconds\": %.6f, \"peak_rss_bytes\": %" PRId64 "}%s\n", w->st[s].name,
            w->st[s].seconds, w->st[s].peak, s + 1 < ST_N ? "," : "");
  fprintf(fp_, "  ],\n  \"total_seconds\": %.6f,\n  \"peak_rss_bytes\": %" PRId64 "\n}\n", w->total,
          pm_tool_peak_rss());
  return pm_tool_close(tool, &o, 1);
}

int partition_report(work_t *w) {
  int64_t mn = INT64_MAX, mx = 0, sum = 0;
  for (int r = 0; r < w->opt.nparts; r++) {
    if (w->rs[r].internal < mn) mn = w->rs[r].internal;
    if (w->rs[r].internal > mx) mx = w->rs[r].internal;
    sum += w->rs[r].internal;
  }
  double avg = (double)sum / w->opt.nparts, imbalance = (double)mx / avg;
  pm_quality_init(&w->quality);
  int ierr = !w->a->quiet || w->a->summary ? pm_mesh_quality(w->mesh, &w->quality) : 0;
  if (ierr) {
    pm_tool_report(tool, ierr);
    return -1;
  }
  if (!w->a->quiet) print_report(w, mn, avg, mx, imbalance);
  return w->a->summary ? write_summary(w, mn, avg, mx, imbalance) : 0;
}
