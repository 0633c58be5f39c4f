/* consumer.c - uses the installed pmesh: reads a mesh, partitions it in memory and takes its
 * fingerprint (its headers are installed and stand alone). */
#include <pmesh/pm_error.h>
#include <pmesh/pm_fingerprint.h>
#include <pmesh/pm_mesh.h>
#include <pmesh/pm_part.h>
#include <pmesh/pm_version.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  pm_mesh_t *mesh = NULL;
  pm_graph_t g;
  if (pm_mesh_read(argv[1], &mesh, NULL) || pm_graph_build(mesh, PM_ADJACENCY_ELEMENT, &g)) {
    fprintf(stderr, "consumer: %s\n", pm_error_message());
    return 1;
  }
  int32_t *part = malloc((size_t)mesh->n_nodes * sizeof *part);
  pm_part_options_t opt = {.nparts = 2, .method = PM_PART_RCB};
  int64_t cut;
  if (!part || pm_part_compute(mesh, &g, &opt, part, &cut)) return 1;
  printf("pmesh %s: %lld nodes, edge cut %lld, fingerprint %016llx\n", PMESH_VERSION, (long long)mesh->n_nodes,
         (long long)cut, (unsigned long long)pm_fingerprint_mesh(mesh));
  free(part);
  pm_graph_free(&g);
  pm_mesh_destroy(&mesh);
  return 0;
}
