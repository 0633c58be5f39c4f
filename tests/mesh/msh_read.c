/* msh_read.c - a tiny CLI over pm_msh_read for the bad-input tests and timing:
 * `msh_read FILE` prints the counts on success; on failure prints
 * "msh_read: error: <message>" to stderr and exits 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_msh.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: msh_read FILE.msh\n");
    return EXIT_FAILURE;
  }
  pm_msh_t *m = NULL;
  if (pm_msh_read(argv[1], &m)) {
    fprintf(stderr, "msh_read: error: %s\n", pm_error_message());
    return EXIT_FAILURE;
  }
  int64_t count[16] = {0};
  for (int64_t e = 0; e < m->n_elems; e++) count[m->elem_type[e] & 15]++;
  printf("version %d.%d %s\n", m->version_major, m->version_minor, m->binary ? "binary" : "ASCII");
  printf("nodes %" PRId64 "\n", m->n_nodes);
  printf("elements %" PRId64 " (points %" PRId64 ", lines %" PRId64 ", triangles %" PRId64 ", quadrangles %" PRId64
         ", tetrahedra %" PRId64 ", hexahedra %" PRId64 ", prisms %" PRId64 ")\n",
         m->n_elems, count[PM_MSH_POINT], count[PM_MSH_LINE], count[PM_MSH_TRI], count[PM_MSH_QUAD], count[4], count[5],
         count[6]);
  printf("memberships %" PRId64 "\n", m->n_member);
  printf("physical names %d\n", m->n_phys_names);
  for (int i = 0; i < m->n_phys_names; i++)
    printf("  %d %d \"%s\"\n", m->phys_names[i].dim, m->phys_names[i].tag, m->phys_names[i].name);
  printf("bytes %" PRId64 " checksum %016" PRIx64 "\n", m->file_bytes, m->checksum);
  pm_msh_destroy(&m);
  return EXIT_SUCCESS;
}
