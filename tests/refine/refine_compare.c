/* refine_compare - compare a refined partition directory with a mesh refined by gmsh -refine:
 * the same node coordinates (mapped by coordinates, to 1e-12 of the mesh size), the same
 * element count, the same node count in every group.  Reports how many coarse vertices keep
 * gmsh's tag too.  Not an MPI program (reads every file in one process).
 *
 *   refine_compare DIR GMSH_REFINED.msh */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_meta.h"

typedef struct pt {
  double x[3];
  int64_t tag;
} pt_t;

static int cmp_x(const void *a, const void *b) {
  const pt_t *p = a, *q = b;
  return (p->x[0] > q->x[0]) - (p->x[0] < q->x[0]);
}

static int fail(const char *what) {
  fprintf(stderr, "refine_compare: %s: %s\n", what, pm_error_message());
  return EXIT_FAILURE;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: refine_compare DIR GMSH_REFINED.msh\n");
    return EXIT_FAILURE;
  }
  char path[4400];
  pm_meta_t *meta = NULL;
  pm_mesh_t *g = NULL;
  if (pm_meta_path(argv[1], path, sizeof path) || pm_meta_read(path, &meta)) return fail(argv[1]);
  if (pm_mesh_read(argv[2], &g, NULL)) return fail(argv[2]);
  int64_t n = meta->global_nodes, k = 0, *gcount = calloc((size_t)meta->n_groups + 1, sizeof *gcount);
  pt_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)g->n_nodes * sizeof *b);
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (int r = 0; r < meta->nparts; r++) {
    pm_local_t *l = NULL;
    if (pm_local_path(argv[1], r, path, sizeof path) || pm_local_read(path, r, &l)) return fail(path);
    for (int32_t i = 0; i < l->n_internal && k < n; i++, k++) {
      memcpy(a[k].x, l->xyz + 3 * i, sizeof a[k].x);
      a[k].tag = l->gid[i];
      for (int d = 0; d < 3; d++) lo[d] = fmin(lo[d], a[k].x[d]), hi[d] = fmax(hi[d], a[k].x[d]);
    }
    for (int gi = 0; gi < l->n_groups && gi < meta->n_groups; gi++)
      for (int32_t j = 0; j < l->groups[gi].n_nodes; j++) gcount[gi] += l->groups[gi].nodes[j] < l->n_internal;
    pm_local_destroy(&l);
  }
  double size = 0;
  for (int d = 0; d < 3; d++) size = fmax(size, hi[d] - lo[d]);
  double tol = 1e-12 * size;
  int bad = 0;
  if (k != n || g->n_nodes != n) {
    fprintf(stderr, "refine_compare: %lld nodes in %s, %lld in %s\n", (long long)k, argv[1], (long long)g->n_nodes,
            argv[2]);
    return EXIT_FAILURE;
  }
  if (g->n_elems != meta->global_elems) {
    fprintf(stderr, "refine_compare: %lld elements in %s, %lld in %s\n", (long long)meta->global_elems, argv[1],
            (long long)g->n_elems, argv[2]);
    bad = 1;
  }
  for (int64_t i = 0; i < n; i++) {
    memcpy(b[i].x, g->xyz + 3 * i, sizeof b[i].x);
    b[i].tag = g->node_gid[i];
  }
  /* Map by coordinates: gmsh's nodes sorted by x, each of ours matched to an unused one within
   * tol in every coordinate. */
  qsort(b, (size_t)n, sizeof *b, cmp_x);
  char *used = calloc((size_t)n, 1);
  int64_t same_tag = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t l = 0, h = n;
    while (l < h) {
      int64_t mid = l + (h - l) / 2;
      if (b[mid].x[0] < a[i].x[0] - tol)
        l = mid + 1;
      else
        h = mid;
    }
    int64_t hit = -1;
    for (int64_t j = l; j < n && b[j].x[0] <= a[i].x[0] + tol && hit < 0; j++)
      if (!used[j] && fabs(b[j].x[1] - a[i].x[1]) <= tol && fabs(b[j].x[2] - a[i].x[2]) <= tol) hit = j;
    if (hit < 0) {
      fprintf(stderr, "refine_compare: node %lld at (%.17g %.17g %.17g) in %s: no node of %s there\n",
              (long long)a[i].tag, a[i].x[0], a[i].x[1], a[i].x[2], argv[1], argv[2]);
      return EXIT_FAILURE;
    }
    used[hit] = 1;
    same_tag += a[i].tag == b[hit].tag;
  }
  free(used);
  for (int gi = 0; gi < meta->n_groups; gi++) {
    int64_t want = -1;
    for (int h = 0; h < g->n_groups; h++)
      if (strcmp(g->groups[h].name, meta->group_name[gi]) == 0) want = g->groups[h].n_nodes;
    if (want != gcount[gi]) {
      fprintf(stderr, "refine_compare: group '%s': %lld nodes in %s, %lld in %s\n", meta->group_name[gi],
              (long long)gcount[gi], argv[1], (long long)want, argv[2]);
      bad = 1;
    }
  }
  printf("refine_compare: %lld nodes at the same coordinates as %s (%lld with the same tag), %lld elements\n",
         (long long)n, argv[2], (long long)same_tag, (long long)meta->global_elems);
  free(a);
  free(b);
  free(gcount);
  pm_mesh_destroy(&g);
  pm_meta_destroy(&meta);
  return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
