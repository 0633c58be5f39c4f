/* partition_quality.h - partition's report of the shape measures (partition_quality.c). */
#ifndef PMESH_PARTITION_QUALITY_H
#define PMESH_PARTITION_QUALITY_H

#include <stdio.h>

#include "pmesh/pm_quality.h"

/* The shape measures per cell type, one line each, on stdout. */
void partition_print_quality(const pm_quality_t *q);
/* The shape measures per cell type as the JSON member "quality" (an array, then ",\n"). */
void partition_write_quality(FILE *fp, const pm_quality_t *q);

#endif
