/* partition.h - what partition's steps share: the command line, the stages' figures and the work
 * a partitioning holds (partition.c), and the report (partition_report.c). */
#ifndef PMESH_TOOLS_PARTITION_H
#define PMESH_TOOLS_PARTITION_H

#include <stdint.h>

#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_partdir.h"
#include "pmesh/pm_quality.h"

/* What the command line asks for. */
typedef struct args {
  const char *mesh_path, *outdir, *method_s, *halo_s, *order_s, *summary, *check_dir, *view, *graph_out;
  int64_t nparts, seed, ufactor;
  int quiet, npos, nchecks; /* nchecks: directories after --check's (more to validate) */
} args_t;

typedef struct stage {
  const char *name;
  double seconds;
  int64_t peak;
} stage_t;

enum { ST_READ, ST_GRAPH, ST_PART, ST_BUILD, ST_WRITE, ST_N };

typedef struct rank_stat {
  int64_t internal, external, aux, elems, neib, import, export_;
} rank_stat_t;

/* Everything a partitioning holds between its stages. */
typedef struct work {
  const args_t *a;
  pm_part_options_t opt;
  pm_adjacency_t halo;
  const char *order_s; /* the order applied: "none" or "hilbert" */
  stage_t st[ST_N];
  pm_mesh_t *mesh;
  pm_graph_t graph;
  int32_t *part;
  pm_part_plan_t *plan;
  pm_local_t *local;
  pm_partdir_t *pd;
  rank_stat_t *rs;
  pm_meta_t meta;
  uint64_t checksum, fp;
  int64_t edgecut;
  pm_quality_t quality; /* of the input mesh's cells */
  int big;
  double t0, total;
} work_t;

/* The shape measures per cell type, one line each, on stdout (the report and --check). */
void partition_print_quality(const pm_quality_t *q);
/* The report on stdout (unless --quiet) and in --summary; 0 or -1 (reported). */
int partition_report(work_t *w);

#endif
