/* local_read.c - a tiny CLI over pm_local_read and pm_meta_read for the bad-input tests:
 *   local_read FILE [RANK]     read a local mesh file (RANK >= 0 checks its #PARTITION rank)
 *   local_read --meta FILE     read a partition.meta file
 * On success prints the counts; on failure prints "local_read: error: <message>" to stderr and
 * exits 1. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"

static int usage(void) {
  fprintf(stderr, "usage: local_read FILE [RANK]\n       local_read --meta FILE\n");
  return EXIT_FAILURE;
}

static int fail(void) {
  fprintf(stderr, "local_read: error: %s\n", pm_error_message());
  return EXIT_FAILURE;
}

static int read_meta(const char *path) {
  pm_meta_t *m = NULL;
  if (pm_meta_read(path, &m)) return fail();
  printf("version %d nparts %d dim %d\n", m->version, m->nparts, m->dim);
  printf("global nodes %" PRId64 " elements %" PRId64 "\n", m->global_nodes, m->global_elems);
  printf("method %s halo %s seed %" PRId64 " ufactor %" PRId64 "\n", m->method, m->halo, m->seed, m->ufactor);
  printf("checksum %016" PRIx64 " fingerprint %016" PRIx64 "\n", m->source_checksum, m->fingerprint);
  if (m->has_mesh_fingerprint) printf("mesh_fingerprint %016" PRIx64 "\n", m->mesh_fingerprint);
  if (m->refine_levels > 0)
    printf("refine_levels %d of coarse %016" PRIx64 " (mesh %016" PRIx64 ", nodes %" PRId64 " elements %" PRId64 ")\n",
           m->refine_levels, m->coarse_fingerprint, m->coarse_mesh_fingerprint, m->coarse_global_nodes,
           m->coarse_global_elems);
  printf("groups %d\n", m->n_groups);
  for (int g = 0; g < m->n_groups; g++) printf("  %d %s\n", m->group_dim[g], m->group_name[g]);
  printf("source %s\n", m->source);
  pm_meta_destroy(&m);
  return EXIT_SUCCESS;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--meta") == 0) return read_meta(argv[2]);
  if (argc < 2 || argc > 3 || argv[1][0] == '-') return usage();
  int rank = -1;
  if (argc == 3) {
    char *end;
    long r = strtol(argv[2], &end, 10);
    if (*end || end == argv[2] || r < 0 || r > 1 << 24) return usage();
    rank = (int)r;
  }
  pm_local_t *l = NULL;
  if (pm_local_read(argv[1], rank, &l)) return fail();
  printf("neighbours %d:", l->n_neib);
  for (int k = 0; k < l->n_neib; k++) printf(" %d", l->neib[k]);
  printf("\nnodes NP %" PRId32 " N %" PRId32 " aux %" PRId32 "\n", l->n_total, l->n_internal, l->n_aux);
  printf("imports %" PRId32 " exports %" PRId32 "\n", l->import_index[l->n_neib], l->export_index[l->n_neib]);
  if (l->has_mesh) {
    printf("elements %" PRId32 " groups %d\n", l->n_elems, l->n_groups);
    for (int g = 0; g < l->n_groups; g++)
      printf("  %s dim %d nodes %" PRId32 " faces %" PRId32 " elements %" PRId32 "\n", l->groups[g].name,
             l->groups[g].dim, l->groups[g].n_nodes, l->groups[g].n_faces, l->groups[g].n_elems);
    printf("partition %016" PRIx64 " nparts %d rank %d\n", l->fingerprint, l->nparts, l->rank);
  } else {
    printf("lecture file (tables only)\n");
  }
  pm_local_destroy(&l);
  return EXIT_SUCCESS;
}
