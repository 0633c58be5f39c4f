/* partition_quality.c - partition's report of the shape measures (pmesh/pm_quality.h): a line
 * per cell type on stdout, and the "quality" member of --summary. */
#include "partition_quality.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "pmesh/pm_cell.h"

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
void partition_write_quality(FILE *fp, const pm_quality_t *q) {
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
