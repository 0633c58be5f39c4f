/* pm_check.h - validation of a whole partition directory (also hand-edited ones). */
#ifndef PMESH_PM_CHECK_H
#define PMESH_PM_CHECK_H

#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_quality.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_check_stats {
  int nparts;
  int64_t global_nodes, global_elems, external_nodes, exchanged_items;
  pm_quality_t quality; /* shape measures of the elements, each counted once (on its owner) */
} pm_check_stats_t;

/** Check every file of a partition directory against the metadata and each other: each global
 *  node internal on exactly one rank; neighbour lists mutual; a's export list to b equal to b's
 *  import list from a (same global ids, same order); externals imported from their owner;
 *  element owners; connectivity and group names.  Also measures every element's shape
 *  (pmesh/pm_quality.h) into stats->quality.  Stops at the first violation with a message
 *  naming the file, section and entry.  Not collective (reads all files in this process). */
PM_EXTERN int pm_check_partition(const char *dir, pm_check_stats_t *stats);

#ifdef __cplusplus
}
#endif
#endif
