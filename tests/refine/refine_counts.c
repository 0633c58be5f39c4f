/* refine_counts MESH: the global node and element counts of MESH refined 0, 1 and 2 times, one
 * line "nodes elements" per level, computed from the mesh's own counts (not by refining it):
 * 2D: V' = V + E + Q, E' = 2E + 3T + 4Q, T' = 4T, Q' = 4Q (E: unique edges); 1D: V' = V + L,
 * L' = 2L. */
#include <stdio.h>
#include <stdlib.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_msh.h"

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  pm_mesh_t *m = NULL;
  if (argc != 2 || pm_mesh_read(argv[1], &m, NULL)) {
    fprintf(stderr, "usage: refine_counts MESH (%s)\n", pm_error_message());
    return EXIT_FAILURE;
  }
  int64_t V = m->n_nodes, T = 0, Q = 0, L = 0, E = 0, n = 0;
  int64_t *key = malloc((size_t)(m->elem_ptr[m->n_elems] + 1) * sizeof *key);
  for (int64_t e = 0; e < m->n_elems; e++) {
    int64_t p = m->elem_ptr[e], nv = m->elem_ptr[e + 1] - p;
    T += m->elem_type[e] == PM_MSH_TRI;
    Q += m->elem_type[e] == PM_MSH_QUAD;
    L += m->elem_type[e] == PM_MSH_LINE;
    for (int64_t j = 0; nv > 2 && j < nv; j++) {
      int64_t a = m->elem_node[p + j], b = m->elem_node[p + (j + 1) % nv];
      key[n++] = a < b ? a * V + b : b * V + a;
    }
  }
  qsort(key, (size_t)n, sizeof *key, cmp64);
  for (int64_t k = 0; k < n; k++) E += k == 0 || key[k] != key[k - 1];
  for (int level = 0; level <= 2; level++) {
    printf("%lld %lld\n", (long long)V, (long long)(T + Q + L));
    if (m->dim == 1) {
      V += L;
      L *= 2;
    } else {
      V += E + Q;
      E = 2 * E + 3 * T + 4 * Q;
      T *= 4;
      Q *= 4;
    }
  }
  free(key);
  pm_mesh_destroy(&m);
  return EXIT_SUCCESS;
}
